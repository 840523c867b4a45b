//! Feishu/Lark callbacks (after decryption) to [`Question`]s: the `url_verification` challenge and
//! event v2 `im.message.receive_v1` text messages, with the bot's `@_user_N` mention removed.

use crate::model::{Conversation, Delivery, Platform, Question};
use serde_json::Value;
use subtle::ConstantTimeEq;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    Challenge(String),
    Question(Question),
    Ignored(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("body is not valid JSON: {0}")]
    Json(String),
    #[error("missing field {0}")]
    Missing(&'static str),
    #[error("verification token does not match")]
    Token,
}

/// `plain` is the decrypted (or unencrypted) body of an event callback; its token must match.
pub fn parse(
    plain: &[u8],
    verification_token: &str,
    bot_open_id: Option<&str>,
) -> Result<Inbound, EventError> {
    parse_with(plain, Some(verification_token), bot_open_id)
}

/// An event from the long connection: the same JSON as a callback, but the socket was opened
/// with the app's secret, so there is no token to check (the SDKs check none either).
pub fn parse_long_connection(
    plain: &[u8],
    bot_open_id: Option<&str>,
) -> Result<Inbound, EventError> {
    parse_with(plain, None, bot_open_id)
}

fn parse_with(
    plain: &[u8],
    verification_token: Option<&str>,
    bot_open_id: Option<&str>,
) -> Result<Inbound, EventError> {
    let v: Value = serde_json::from_slice(plain).map_err(|e| EventError::Json(e.to_string()))?;
    let s = |p: &str| v.pointer(p).and_then(Value::as_str);
    if s("/type") == Some("url_verification") {
        check_token(s("/token"), verification_token)?;
        return Ok(Inbound::Challenge(
            s("/challenge")
                .ok_or(EventError::Missing("challenge"))?
                .to_string(),
        ));
    }
    if s("/schema") != Some("2.0") {
        // v1 callbacks carry the token at the top level; still refuse a forged one.
        check_token(s("/token"), verification_token)?;
        return Ok(Inbound::Ignored("event schema v1"));
    }
    check_token(s("/header/token"), verification_token)?;
    if s("/header/event_type") != Some("im.message.receive_v1") {
        return Ok(Inbound::Ignored("event type"));
    }
    if s("/event/sender/sender_type") != Some("user") {
        return Ok(Inbound::Ignored("message from an app"));
    }
    let msg = v
        .pointer("/event/message")
        .ok_or(EventError::Missing("event.message"))?;
    let m = |k: &str| msg.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    if m("message_type") != Some("text") {
        return Ok(Inbound::Ignored("not a text message"));
    }
    let content: Value =
        serde_json::from_str(m("content").ok_or(EventError::Missing("event.message.content"))?)
            .map_err(|e| EventError::Json(format!("message content: {e}")))?;
    let text = content
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mentions = msg
        .get("mentions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let message_id = m("message_id").ok_or(EventError::Missing("event.message.message_id"))?;
    Ok(Inbound::Question(Question {
        conversation: Conversation {
            platform: Platform::Feishu,
            workspace: s("/header/tenant_key").unwrap_or_default().to_string(),
            channel: m("chat_id")
                .ok_or(EventError::Missing("event.message.chat_id"))?
                .to_string(),
            thread: Some(m("root_id").unwrap_or(message_id).to_string()),
            user: s("/event/sender/sender_id/open_id")
                .ok_or(EventError::Missing("event.sender.sender_id.open_id"))?
                .to_string(),
            direct: m("chat_type") == Some("p2p"),
        },
        text: strip_mentions(text, mentions, bot_open_id),
        event_id: s("/header/event_id")
            .ok_or(EventError::Missing("header.event_id"))?
            .to_string(),
        delivery: Delivery::FeishuReply(message_id.to_string()),
    }))
}

fn check_token(given: Option<&str>, expected: Option<&str>) -> Result<(), EventError> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let given = given.unwrap_or_default();
    if bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
        Ok(())
    } else {
        Err(EventError::Token)
    }
}

/// The bot's placeholder is removed; other people's become `@name`. With no known bot id, the
/// placeholder that opens the message is taken to be the bot.
fn strip_mentions(text: &str, mentions: &[Value], bot_open_id: Option<&str>) -> String {
    let mut out = text.to_string();
    // Longest keys first, so `@_user_1` does not eat into `@_user_10`.
    let mut ms: Vec<&Value> = mentions.iter().collect();
    ms.sort_by_key(|m| std::cmp::Reverse(m.get("key").and_then(Value::as_str).map_or(0, str::len)));
    for mention in ms {
        let Some(key) = mention.get("key").and_then(Value::as_str) else {
            continue;
        };
        let open_id = mention.pointer("/id/open_id").and_then(Value::as_str);
        let is_bot = match bot_open_id {
            Some(bot) => open_id == Some(bot),
            None => out.trim_start().starts_with(key),
        };
        let with = if is_bot {
            String::new()
        } else {
            format!(
                "@{}",
                mention
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("someone")
            )
        };
        out = out.replace(key, &with);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) fn message_event(text: &str, chat_type: &str) -> Value {
        json!({
            "schema": "2.0",
            "header": {"event_id": "5e3702a84e847582be8db7fb73283c02", "event_type": "im.message.receive_v1",
                       "create_time": "1700000000000", "token": "vtoken", "app_id": "cli_9f5343c580712544", "tenant_key": "2ca1d211f64f6438"},
            "event": {
                "sender": {"sender_id": {"union_id": "on_8ed6aa67", "user_id": "e33ggbyz", "open_id": "ou_84aad35d"}, "sender_type": "user", "tenant_key": "2ca1d211f64f6438"},
                "message": {"message_id": "om_5ce6d572455d361153b7cb51da133945", "root_id": "", "parent_id": "",
                            "create_time": "1700000000000", "chat_id": "oc_5ce6d572455d361153b7xx51da133945", "chat_type": chat_type,
                            "message_type": "text", "content": serde_json::to_string(&json!({"text": text})).unwrap(),
                            "mentions": [{"key": "@_user_1", "id": {"union_id": "on_bot", "user_id": null, "open_id": "ou_bot"}, "name": "codemap", "tenant_key": "2ca1d211f64f6438"},
                                         {"key": "@_user_2", "id": {"union_id": "on_b", "user_id": "b", "open_id": "ou_bob"}, "name": "Bob", "tenant_key": "2ca1d211f64f6438"}]}
            }
        })
    }

    #[test]
    fn group_message_becomes_a_reply_question() {
        let body = serde_json::to_vec(&message_event(
            "@_user_1 谁调用了 deductStock? cc @_user_2",
            "group",
        ))
        .unwrap();
        insta::assert_debug_snapshot!(parse(&body, "vtoken", Some("ou_bot")).unwrap());
    }

    #[test]
    fn unknown_bot_id_strips_the_leading_mention() {
        let body =
            serde_json::to_vec(&message_event("@_user_1 who calls deductStock?", "p2p")).unwrap();
        let Inbound::Question(q) = parse(&body, "vtoken", None).unwrap() else {
            panic!()
        };
        assert_eq!(q.text, "who calls deductStock?");
        assert!(q.conversation.direct);
    }

    #[test]
    fn challenge_tokens_apps_and_other_events() {
        let ch = br#"{"challenge":"ajls384kdjx98XX","token":"vtoken","type":"url_verification"}"#;
        assert_eq!(
            parse(ch, "vtoken", None).unwrap(),
            Inbound::Challenge("ajls384kdjx98XX".into())
        );
        assert_eq!(parse(ch, "other", None), Err(EventError::Token));
        let mut e = message_event("hi", "group");
        e["header"]["token"] = json!("forged");
        assert_eq!(
            parse(&serde_json::to_vec(&e).unwrap(), "vtoken", None),
            Err(EventError::Token)
        );
        let mut e = message_event("hi", "group");
        e["event"]["sender"]["sender_type"] = json!("app");
        assert!(matches!(
            parse(&serde_json::to_vec(&e).unwrap(), "vtoken", None),
            Ok(Inbound::Ignored(_))
        ));
        let mut e = message_event("hi", "group");
        e["event"]["message"]["message_type"] = json!("image");
        assert!(matches!(
            parse(&serde_json::to_vec(&e).unwrap(), "vtoken", None),
            Ok(Inbound::Ignored(_))
        ));
        let mut e = message_event("hi", "group");
        e["header"]["event_type"] = json!("im.chat.member.bot.added_v1");
        assert!(matches!(
            parse(&serde_json::to_vec(&e).unwrap(), "vtoken", None),
            Ok(Inbound::Ignored(_))
        ));
        assert!(matches!(
            parse(b"nope", "vtoken", None),
            Err(EventError::Json(_))
        ));
    }

    #[test]
    fn thread_replies_key_on_the_root() {
        let mut e = message_event("@_user_1 and who calls that?", "group");
        e["event"]["message"]["root_id"] = json!("om_root");
        let Inbound::Question(q) =
            parse(&serde_json::to_vec(&e).unwrap(), "vtoken", Some("ou_bot")).unwrap()
        else {
            panic!()
        };
        assert_eq!(q.conversation.thread.as_deref(), Some("om_root"));
        assert_eq!(
            q.delivery,
            Delivery::FeishuReply("om_5ce6d572455d361153b7cb51da133945".into())
        );
    }
}
