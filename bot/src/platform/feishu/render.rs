//! [`Reply`] → a Feishu `post` (rich text) message within 30 KB: text elements for prose, `a`
//! elements only for code links. Lines that do not fit are dropped from the end (never half a
//! citation) and a pointer says how many.

use crate::model::{AnswerReply, CodeLink, Reply};
use crate::platform::{clip, error_text, help_lines, plain, safe_url};
use serde_json::{Value, json};

/// Feishu's limit for card and rich-text request bodies.
pub const BODY_MAX: usize = 30 * 1024;

/// The reply request body (`/im/v1/messages/{id}/reply`); `uuid` makes Feishu drop a repeat.
pub fn reply_body(reply: &Reply, uuid: &str) -> Value {
    let (title, paragraphs, footer) = post(reply);
    let build = |ps: &[Value], omitted: usize| {
        let mut content: Vec<Value> = ps.to_vec();
        if omitted > 0 {
            content.push(json!([text(&format!(
                "… {omitted} more line{} not shown; ask a narrower question to see them.",
                if omitted == 1 { "" } else { "s" }
            ))]));
        }
        content.extend(footer.iter().cloned());
        let post = json!({"zh_cn": {"title": title, "content": content}});
        json!({
            "msg_type": "post",
            "content": post.to_string(),
            "uuid": clip(uuid, 50),
        })
    };
    let fits = |keep: usize| {
        build(&paragraphs[..keep], paragraphs.len() - keep)
            .to_string()
            .len()
            <= BODY_MAX
    };
    if fits(paragraphs.len()) {
        return build(&paragraphs, 0);
    }
    // The most paragraphs that fit, by bisection (size grows with `keep`).
    let (mut lo, mut hi) = (0, paragraphs.len());
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    build(&paragraphs[..lo], paragraphs.len() - lo)
}

/// The same content as a new message in a chat (`/im/v1/messages?receive_id_type=chat_id`).
pub fn create_body(reply: &Reply, chat_id: &str, uuid: &str) -> Value {
    let mut body = reply_body(reply, uuid);
    body["receive_id"] = json!(chat_id);
    body
}

/// Title, body paragraphs (each a line of elements), footer paragraphs.
fn post(reply: &Reply) -> (String, Vec<Value>, Vec<Value>) {
    match reply {
        Reply::Answer(a) => answer(a),
        Reply::Help(h) => {
            let (repos, examples) = help_lines(h);
            let mut ps = vec![json!([text(&repos)])];
            if !examples.is_empty() {
                ps.push(json!([text("Try:")]));
                ps.extend(examples.iter().map(|e| json!([text(&format!("• {e}"))])));
            }
            ("codemap".into(), ps, vec![])
        }
        Reply::Error {
            class,
            message,
            reference,
        } => {
            let (head, body) = error_text(*class, message, reference.as_deref());
            (head, vec![json!([text(&body)])], vec![])
        }
    }
}

fn answer(a: &AnswerReply) -> (String, Vec<Value>, Vec<Value>) {
    let mut ps = vec![json!([text(&clip(&plain(&a.summary), 8_000))])];
    if !a.chain.is_empty() {
        ps.push(json!([text("Call chain")]));
        for c in &a.chain {
            let indent = "\u{2003}".repeat(c.depth.min(8));
            ps.push(json!([
                text(&format!("{indent}↳ {} ", plain(&c.symbol))),
                link(&c.link)
            ]));
        }
    }
    if !a.citations.is_empty() {
        ps.push(json!([text("Citations")]));
        for c in &a.citations {
            let mut line = vec![text("• "), link(c)];
            if let Some(s) = &c.symbol {
                line.push(text(&format!(" {}", plain(s))));
            }
            ps.push(Value::Array(line));
        }
    }
    ps.extend(a.notes.iter().map(|n| json!([text(&plain(n))])));
    let footer = (!a.freshness.is_empty())
        .then(|| json!([text(&clip(&plain(&a.freshness), 200))]))
        .into_iter()
        .collect();
    (clip(&plain(&a.repo), 100), ps, footer)
}

fn text(t: &str) -> Value {
    json!({"tag": "text", "text": t})
}

fn link(l: &CodeLink) -> Value {
    match safe_url(l.url.as_deref()) {
        Some(url) => json!({"tag": "a", "text": plain(&l.label), "href": url}),
        None => text(&plain(&l.label)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChainLine, ErrorClass};

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
            summary: "deductStock 由 OrderService.placeOrder 调用。 <at user_id=\"all\">所有人</at> @all https://evil.example".into(),
            chain: vec![ChainLine { depth: 1, symbol: "OrderService.placeOrder".into(), link: link_at("src/main/java/shop/OrderService.java", 77) }],
            citations: vec![
                CodeLink { symbol: Some("OrderService.placeOrder".into()), ..link_at("src/main/java/shop/OrderService.java", 77) },
                CodeLink { label: "x".into(), url: Some("ftp://evil.example/".into()), symbol: None },
            ],
            notes: vec![],
            freshness: "indexed at 1a2b3c4 (3 h ago); HEAD unchanged".into(),
        }
    }

    #[test]
    fn answer_post() {
        let body = reply_body(&Reply::Answer(sample()), "ev-1");
        let content: Value = serde_json::from_str(body["content"].as_str().unwrap()).unwrap();
        insta::assert_json_snapshot!(content);
        assert_eq!(body["msg_type"], "post");
    }

    #[test]
    fn error_post() {
        let e = Reply::Error {
            class: ErrorClass::Unavailable,
            message: "The index is being rebuilt.".into(),
            reference: None,
        };
        let body = reply_body(&e, "ev-2");
        insta::assert_json_snapshot!(
            serde_json::from_str::<Value>(body["content"].as_str().unwrap()).unwrap()
        );
    }

    #[test]
    fn huge_answers_fit_in_30_kb_with_a_pointer() {
        let mut a = sample();
        a.citations = (0..2_000)
            .map(|i| link_at("src/main/java/shop/inventory/InventoryService.java", i))
            .collect();
        let body = reply_body(&Reply::Answer(a), "ev-3");
        let s = body.to_string();
        assert!(s.len() <= BODY_MAX, "{}", s.len());
        assert!(s.contains("more lines not shown"));
        assert!(s.contains("HEAD unchanged"));
    }
}
