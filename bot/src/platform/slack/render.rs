//! [`Reply`] → Slack Block Kit, inside Slack's limits: a section's text ≤ 3,000 characters, a
//! message's text ≤ 4,000 in all, ≤ 50 blocks. What does not fit is cut at a line boundary (a
//! citation is never cut in half) and a pointer says how much was left out.

use crate::model::{AnswerReply, CodeLink, Reply};
use crate::platform::{clip, error_text, help_lines, plain, safe_url};
use serde_json::{Value, json};

pub const SECTION_MAX: usize = 3_000;
pub const MESSAGE_TEXT_MAX: usize = 4_000;
pub const MAX_BLOCKS: usize = 50;
/// Room kept for the pointer, the freshness line and the notification text.
const RESERVE: usize = 600;

/// A rendered message: the notification `text` and the blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct SlackMessage {
    pub text: String,
    pub blocks: Vec<Value>,
}

impl SlackMessage {
    /// Characters of text the message carries (blocks and notification text).
    pub fn text_len(&self) -> usize {
        self.text.chars().count() + self.blocks.iter().map(block_len).sum::<usize>()
    }
}

fn block_len(b: &Value) -> usize {
    let section = b.pointer("/text/text").and_then(Value::as_str);
    let elems = b.get("elements").and_then(Value::as_array).map(|es| {
        es.iter()
            .filter_map(|e| e.get("text").and_then(Value::as_str))
            .map(|t| t.chars().count())
            .sum::<usize>()
    });
    section.map_or(0, |t| t.chars().count()) + elems.unwrap_or(0)
}

/// `chat.postMessage` arguments: in the thread, no unfurling.
pub fn post_message(channel: &str, thread: Option<&str>, m: &SlackMessage) -> Value {
    let mut body = json!({
        "channel": channel,
        "text": m.text,
        "blocks": m.blocks,
        "unfurl_links": false,
        "unfurl_media": false,
    });
    if let Some(t) = thread {
        body["thread_ts"] = json!(t);
    }
    body
}

/// A slash command's `response_url` payload: visible to the channel, no unfurling.
pub fn response_url_message(m: &SlackMessage) -> Value {
    json!({
        "response_type": "in_channel",
        "replace_original": false,
        "text": m.text,
        "blocks": m.blocks,
        "unfurl_links": false,
        "unfurl_media": false,
    })
}

pub fn render(reply: &Reply) -> SlackMessage {
    match reply {
        Reply::Answer(a) => answer(a),
        Reply::Help(h) => {
            let (repos, examples) = help_lines(h);
            let mut lines = vec![escape(&repos)];
            if !examples.is_empty() {
                lines.push("*Try:*".into());
                lines.extend(examples.iter().map(|e| format!("• {}", escape(e))));
            }
            let mut b = Builder::default();
            b.section_lines(&lines);
            b.finish(clip(&repos, 300), None)
        }
        Reply::Error {
            class,
            message,
            reference,
        } => {
            let (head, body) = error_text(*class, message, reference.as_deref());
            let mut b = Builder::default();
            b.section_lines(&[format!(":warning: *{}*", escape(&head)), escape(&body)]);
            b.finish(clip(&head, 300), None)
        }
    }
}

fn answer(a: &AnswerReply) -> SlackMessage {
    let mut b = Builder::default();
    let summary = clip(&escape(&plain(&a.summary)), SECTION_MAX - 200);
    b.section_lines(&[format!("*{}* — {}", escape(&plain(&a.repo)), summary)]);
    if !a.chain.is_empty() {
        let mut lines = vec!["*Call chain*".to_string()];
        lines.extend(a.chain.iter().map(|c| {
            let indent = "\u{2003}".repeat(c.depth.min(8));
            format!("{indent}↳ {} {}", code(&c.symbol), link(&c.link))
        }));
        b.section_lines(&lines);
    }
    if !a.citations.is_empty() {
        let mut lines = vec!["*Citations*".to_string()];
        lines.extend(a.citations.iter().map(|c| match &c.symbol {
            Some(s) => format!("• {} {}", link(c), code(s)),
            None => format!("• {}", link(c)),
        }));
        b.section_lines(&lines);
    }
    for n in &a.notes {
        b.context(&format!("_{}_", escape(&plain(n))));
    }
    let text = clip(&plain(&a.summary), 300);
    b.finish(text, Some(&a.freshness))
}

/// Packs lines into sections and stops at the message budget, counting what it left out.
#[derive(Default)]
struct Builder {
    blocks: Vec<Value>,
    used: usize,
    omitted: usize,
}

impl Builder {
    fn room(&self) -> usize {
        (MESSAGE_TEXT_MAX - RESERVE).saturating_sub(self.used)
    }

    fn section_lines(&mut self, lines: &[String]) {
        let mut current = String::new();
        for (i, line) in lines.iter().enumerate() {
            let line = clip(line, SECTION_MAX);
            let extra = line.chars().count() + usize::from(!current.is_empty());
            let full_section = current.chars().count() + extra > SECTION_MAX;
            if self.omitted > 0 || extra > self.room() || self.blocks.len() + 3 >= MAX_BLOCKS {
                self.omitted += lines.len() - i;
                break;
            }
            if full_section {
                self.push_section(std::mem::take(&mut current));
            }
            if !current.is_empty() {
                current.push('\n');
            }
            current.push_str(&line);
            self.used += extra;
        }
        if !current.is_empty() {
            self.push_section(current);
        }
    }

    fn push_section(&mut self, text: String) {
        self.blocks
            .push(json!({"type": "section", "text": {"type": "mrkdwn", "text": text}}));
    }

    fn context(&mut self, text: &str) {
        let text = clip(text, 300);
        if self.omitted > 0
            || text.chars().count() > self.room()
            || self.blocks.len() + 3 >= MAX_BLOCKS
        {
            self.omitted += 1;
            return;
        }
        self.used += text.chars().count();
        self.blocks
            .push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}));
    }

    fn finish(mut self, text: String, freshness: Option<&str>) -> SlackMessage {
        if self.omitted > 0 {
            let more = format!(
                "… {} more line{} not shown; ask a narrower question to see them.",
                self.omitted,
                if self.omitted == 1 { "" } else { "s" }
            );
            self.blocks
                .push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]}));
        }
        if let Some(f) = freshness.filter(|f| !f.is_empty()) {
            let f = clip(&escape(&plain(f)), 200);
            self.blocks
                .push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": f}]}));
        }
        SlackMessage {
            text: escape(&text),
            blocks: self.blocks,
        }
    }
}

/// Slack's three control characters; this also defuses `<!channel>` and `<@U…>` markup.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn code(text: &str) -> String {
    format!("`{}`", escape(&plain(text)).replace('`', "'"))
}

fn link(l: &CodeLink) -> String {
    let label = escape(&plain(&l.label)).replace('|', "¦");
    match safe_url(l.url.as_deref()) {
        Some(url) => format!("<{}|{}>", url.replace('&', "&amp;"), label),
        None => format!("`{label}`"),
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

    pub(crate) fn sample() -> AnswerReply {
        AnswerReply {
            repo: "shop".into(),
            summary: "deductStock is called by OrderService.placeOrder and by the retry job. @here see https://evil.example/x <!channel>".into(),
            chain: vec![
                ChainLine { depth: 0, symbol: "InventoryService.deductStock".into(), link: link_at("src/main/java/shop/InventoryService.java", 41) },
                ChainLine { depth: 1, symbol: "OrderService.placeOrder".into(), link: link_at("src/main/java/shop/OrderService.java", 77) },
            ],
            citations: vec![
                CodeLink { symbol: Some("OrderService.placeOrder".into()), ..link_at("src/main/java/shop/OrderService.java", 77) },
                CodeLink { label: "src/main/java/shop/RetryJob.java:12".into(), url: None, symbol: None },
                CodeLink { label: "evil|<!everyone>".into(), url: Some("javascript:alert(1)".into()), symbol: None },
            ],
            notes: vec!["2 callers outside the indexed modules were not followed.".into()],
            freshness: "indexed at 1a2b3c4 (3 h ago); HEAD unchanged".into(),
        }
    }

    #[test]
    fn answer_blocks() {
        let m = render(&Reply::Answer(sample()));
        insta::assert_json_snapshot!(post_message("C1", Some("1700000000.000100"), &m));
    }

    #[test]
    fn help_and_errors() {
        let help = Reply::Help(HelpReply {
            repos: vec!["shop".into()],
            examples: vec!["who calls deductStock?".into()],
        });
        insta::assert_json_snapshot!("help", render(&help).blocks);
        for class in [
            ErrorClass::User,
            ErrorClass::NotFound,
            ErrorClass::Unavailable,
            ErrorClass::Internal,
        ] {
            let e = Reply::Error {
                class,
                message: "no repository named `billing` here".into(),
                reference: Some("ref-7f3a".into()),
            };
            insta::assert_json_snapshot!(format!("error_{class:?}"), render(&e).blocks);
        }
    }

    #[test]
    fn huge_answers_stay_within_every_limit_and_say_what_was_cut() {
        let mut a = sample();
        a.summary = "x".repeat(10_000);
        a.citations = (0..400)
            .map(|i| link_at("src/main/java/shop/VeryLongPackageName/SomeService.java", i))
            .collect();
        a.chain = (0..100)
            .map(|i| ChainLine {
                depth: i % 5,
                symbol: format!("S{i}.m"),
                link: link_at("A.java", i),
            })
            .collect();
        let m = render(&Reply::Answer(a));
        assert!(m.text_len() <= MESSAGE_TEXT_MAX, "{}", m.text_len());
        assert!(m.blocks.len() <= MAX_BLOCKS);
        for b in &m.blocks {
            assert!(block_len(b) <= SECTION_MAX);
            if let Some(t) = b.pointer("/text/text").and_then(Value::as_str) {
                // Every link is whole: as many openings as closings.
                assert_eq!(t.matches('<').count(), t.matches('>').count(), "{t}");
            }
        }
        let last_two = serde_json::to_string(&m.blocks[m.blocks.len() - 2..]).unwrap();
        assert!(last_two.contains("more lines not shown"), "{last_two}");
    }
}
