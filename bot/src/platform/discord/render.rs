//! [`Reply`] → Discord message bodies. Answers are text (`content` ≤ 2,000 characters) split at
//! line boundaries into at most [`MAX_MESSAGES`] messages, so a citation is never cut; beyond
//! that a pointer says how much was left out. Help and errors are one embed. Every body carries
//! `allowed_mentions: {parse: []}`; text-only bodies also `SUPPRESS_EMBEDS`.

use crate::model::{AnswerReply, CodeLink, Reply};
use crate::platform::{clip, error_text, help_lines, plain, safe_url};
use serde_json::{Value, json};

pub const CONTENT_MAX: usize = 2_000;
/// The edited original response plus two follow-ups.
pub const MAX_MESSAGES: usize = 3;
pub const SUPPRESS_EMBEDS: u64 = 1 << 2;
const EMBED_DESCRIPTION_MAX: usize = 4_096;

/// The message bodies to send, in order (the first edits the deferred response).
pub fn render(reply: &Reply) -> Vec<Value> {
    match reply {
        Reply::Answer(a) => answer(a).into_iter().map(|c| text_message(&c)).collect(),
        Reply::Help(h) => {
            let (repos, examples) = help_lines(h);
            let mut desc = escape(&repos);
            if !examples.is_empty() {
                desc.push_str("\n\n**Try:**");
                for e in &examples {
                    desc.push_str(&format!("\n• {}", escape(e)));
                }
            }
            vec![embed_message("codemap", &desc, 0x5865F2)]
        }
        Reply::Error {
            class,
            message,
            reference,
        } => {
            let (head, body) = error_text(*class, message, reference.as_deref());
            vec![embed_message(&head, &escape(&body), 0xED4245)]
        }
    }
}

fn text_message(content: &str) -> Value {
    json!({"content": content, "allowed_mentions": {"parse": []}, "flags": SUPPRESS_EMBEDS})
}

fn embed_message(title: &str, description: &str, color: u32) -> Value {
    json!({
        "content": "",
        "embeds": [{"title": clip(title, 256), "description": clip(description, EMBED_DESCRIPTION_MAX), "color": color}],
        "allowed_mentions": {"parse": []},
    })
}

/// The answer as message contents.
fn answer(a: &AnswerReply) -> Vec<String> {
    let mut lines = vec![format!(
        "**{}** — {}",
        escape(&plain(&a.repo)),
        escape(&plain(&a.summary))
    )];
    if !a.chain.is_empty() {
        lines.push("**Call chain**".into());
        for c in &a.chain {
            let indent = "\u{2003}".repeat(c.depth.min(8));
            lines.push(format!("{indent}↳ {} {}", code(&c.symbol), link(&c.link)));
        }
    }
    if !a.citations.is_empty() {
        lines.push("**Citations**".into());
        for c in &a.citations {
            lines.push(match &c.symbol {
                Some(s) => format!("• {} {}", link(c), code(s)),
                None => format!("• {}", link(c)),
            });
        }
    }
    lines.extend(a.notes.iter().map(|n| format!("*{}*", escape(&plain(n)))));
    let footer = (!a.freshness.is_empty())
        .then(|| format!("-# {}", clip(&escape(&plain(&a.freshness)), 200)));
    pack(lines, footer)
}

/// Packs whole lines into at most [`MAX_MESSAGES`] contents of ≤ [`CONTENT_MAX`] characters; the
/// footer and, when lines were dropped, a pointer go at the end of the last one.
fn pack(lines: Vec<String>, footer: Option<String>) -> Vec<String> {
    const POINTER_ROOM: usize = 120;
    let footer_len = footer.as_ref().map_or(0, |f| f.chars().count() + 1);
    let mut messages: Vec<String> = vec![String::new()];
    let mut omitted = 0;
    for (i, line) in lines.iter().enumerate() {
        let line = clip(line, CONTENT_MAX - footer_len - POINTER_ROOM);
        let len = line.chars().count();
        let current = messages.last().expect("one message").chars().count();
        let last = messages.len() == MAX_MESSAGES;
        // The last message keeps room for the footer and a pointer.
        let limit = if last {
            CONTENT_MAX - footer_len - POINTER_ROOM
        } else {
            CONTENT_MAX
        };
        if current + 1 + len > limit {
            if last {
                omitted = lines.len() - i;
                break;
            }
            messages.push(String::new());
        }
        let m = messages.last_mut().expect("one message");
        if !m.is_empty() {
            m.push('\n');
        }
        m.push_str(&line);
    }
    let last = messages.last_mut().expect("one message");
    if omitted > 0 {
        last.push_str(&format!(
            "\n… {omitted} more line{} not shown; ask a narrower question to see them.",
            if omitted == 1 { "" } else { "s" }
        ));
    }
    if let Some(f) = footer {
        // Room was kept unless the earlier messages were not full; then it may need its own.
        if last.chars().count() + 1 + f.chars().count() > CONTENT_MAX {
            messages.push(f);
        } else {
            last.push('\n');
            last.push_str(&f);
        }
    }
    messages
}

/// Markdown that could fake a link or format the answer is escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\*_~`|[]()<>#".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn code(text: &str) -> String {
    format!("`{}`", plain(text).replace('`', "'"))
}

fn link(l: &CodeLink) -> String {
    let label = escape(&plain(&l.label));
    match safe_url(l.url.as_deref()) {
        Some(url) => format!("[{label}](<{url}>)"),
        None => format!("`{}`", plain(&l.label).replace('`', "'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChainLine, ErrorClass, HelpReply};

    fn link_at(path: &str, line: usize) -> CodeLink {
        CodeLink {
            label: format!("{path}:{line}"),
            url: Some(format!(
                "https://git.example/shop/blob/1a2b3c4/{path}#L{line}"
            )),
            symbol: None,
        }
    }

    fn sample() -> AnswerReply {
        AnswerReply {
            repo: "shop".into(),
            summary: "deductStock is called by OrderService.placeOrder. @everyone <@&42> [click](https://evil.example)".into(),
            chain: vec![
                ChainLine { depth: 0, symbol: "InventoryService.deductStock".into(), link: link_at("src/main/java/shop/InventoryService.java", 41) },
                ChainLine { depth: 1, symbol: "OrderService.placeOrder".into(), link: link_at("src/main/java/shop/OrderService.java", 77) },
            ],
            citations: vec![
                CodeLink { symbol: Some("OrderService.placeOrder".into()), ..link_at("src/main/java/shop/OrderService.java", 77) },
                CodeLink { label: "src/main/java/shop/RetryJob.java:12".into(), url: None, symbol: None },
                CodeLink { label: "x".into(), url: Some("https://evil.example/a)b".into()), symbol: None },
            ],
            notes: vec![],
            freshness: "indexed at 1a2b3c4 (3 h ago); HEAD unchanged".into(),
        }
    }

    #[test]
    fn answer_message() {
        insta::assert_json_snapshot!(render(&Reply::Answer(sample())));
    }

    #[test]
    fn help_and_error_embeds() {
        let help = Reply::Help(HelpReply {
            repos: vec!["shop".into()],
            examples: vec!["who calls deductStock?".into()],
        });
        insta::assert_json_snapshot!("help", render(&help));
        let e = Reply::Error {
            class: ErrorClass::Internal,
            message: "boom".into(),
            reference: Some("ref-7f3a".into()),
        };
        insta::assert_json_snapshot!("internal_error", render(&e));
    }

    #[test]
    fn long_answers_split_at_lines_and_trim_with_a_pointer() {
        let mut a = sample();
        a.citations = (0..30)
            .map(|i| link_at("src/main/java/shop/inventory/InventoryService.java", i))
            .collect();
        let msgs = render(&Reply::Answer(a.clone()));
        assert!(
            msgs.len() > 1 && msgs.len() <= MAX_MESSAGES,
            "{}",
            msgs.len()
        );
        let all: Vec<&str> = msgs
            .iter()
            .map(|m| m["content"].as_str().unwrap())
            .collect();
        for c in &all {
            assert!(c.chars().count() <= CONTENT_MAX);
        }
        // Every citation line is whole in exactly one message.
        for i in 0..30 {
            let needle = format!("InventoryService.java:{i}](<");
            assert_eq!(
                all.iter().filter(|c| c.contains(&needle)).count(),
                1,
                "citation {i}"
            );
        }
        assert!(all.last().unwrap().ends_with("HEAD unchanged"));

        a.citations = (0..500)
            .map(|i| link_at("src/main/java/shop/inventory/InventoryService.java", i))
            .collect();
        let msgs = render(&Reply::Answer(a));
        assert_eq!(msgs.len(), MAX_MESSAGES);
        let last = msgs.last().unwrap()["content"].as_str().unwrap();
        assert!(last.contains("more lines not shown"), "{last}");
        assert!(last.chars().count() <= CONTENT_MAX);
    }
}
