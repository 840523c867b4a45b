//! Slack payloads to [`Question`]s: Events API envelopes (`url_verification`, `app_mention`,
//! `message.im`) and `/codemap` slash commands. Pure: bytes in, decision out.

use crate::model::{Conversation, Delivery, Platform, Question};
use serde_json::Value;
use std::collections::HashMap;

/// What an inbound payload asks the router to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// `url_verification`: answer with this challenge.
    Challenge(String),
    Question(Question),
    /// Verified but not for us (bot messages, edits, other event types): ack and drop.
    Ignored(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("body is not valid JSON: {0}")]
    Json(String),
    #[error("missing field {0}")]
    Missing(&'static str),
}

/// An Events API request body.
pub fn parse_event(body: &[u8], bot_user: Option<&str>) -> Result<Inbound, ParseError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| ParseError::Json(e.to_string()))?;
    match str_at(&v, "type") {
        Some("url_verification") => Ok(Inbound::Challenge(
            str_at(&v, "challenge")
                .ok_or(ParseError::Missing("challenge"))?
                .to_string(),
        )),
        Some("event_callback") => event_callback(&v, bot_user),
        Some(_) => Ok(Inbound::Ignored("envelope type")),
        None => Err(ParseError::Missing("type")),
    }
}

/// An `event_callback` envelope (also what Socket Mode delivers).
pub fn event_callback(v: &Value, bot_user: Option<&str>) -> Result<Inbound, ParseError> {
    let event = v.get("event").ok_or(ParseError::Missing("event"))?;
    let event_id = str_at(v, "event_id").ok_or(ParseError::Missing("event_id"))?;
    // The bot's own user id: configured, else the installation Slack says it delivered to.
    let bot_user = bot_user.map(str::to_string).or_else(|| {
        v.pointer("/authorizations/0/user_id")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let kind = str_at(event, "type").ok_or(ParseError::Missing("event.type"))?;
    let direct = match kind {
        "app_mention" => false,
        "message" if str_at(event, "channel_type") == Some("im") => true,
        "message" => return Ok(Inbound::Ignored("channel message without a mention")),
        _ => return Ok(Inbound::Ignored("event type")),
    };
    if event.get("subtype").is_some_and(|s| !s.is_null()) {
        return Ok(Inbound::Ignored(
            "message subtype (edit, bot message, join, ...)",
        ));
    }
    if event.get("bot_id").is_some_and(|s| !s.is_null()) {
        return Ok(Inbound::Ignored("message from a bot"));
    }
    let user = str_at(event, "user").ok_or(ParseError::Missing("event.user"))?;
    if bot_user.as_deref() == Some(user) {
        return Ok(Inbound::Ignored("the bot's own message"));
    }
    let channel = str_at(event, "channel").ok_or(ParseError::Missing("event.channel"))?;
    let ts = str_at(event, "ts").ok_or(ParseError::Missing("event.ts"))?;
    let thread_ts = str_at(event, "thread_ts");
    // Mentions answer in a thread under the question; DMs stay flat unless asked in a thread.
    let thread = match (thread_ts, direct) {
        (Some(t), _) => Some(t.to_string()),
        (None, false) => Some(ts.to_string()),
        (None, true) => None,
    };
    let workspace = str_at(v, "team_id")
        .or_else(|| str_at(event, "team"))
        .unwrap_or_default();
    let text = strip_mention(
        str_at(event, "text").unwrap_or_default(),
        bot_user.as_deref(),
        !direct,
    );
    Ok(Inbound::Question(Question {
        conversation: Conversation {
            platform: Platform::Slack,
            workspace: workspace.to_string(),
            channel: channel.to_string(),
            thread,
            user: user.to_string(),
            direct,
        },
        text,
        event_id: event_id.to_string(),
        delivery: Delivery::Post,
    }))
}

/// A slash-command body (`application/x-www-form-urlencoded`).
pub fn parse_command(body: &[u8]) -> Result<Inbound, ParseError> {
    let fields: HashMap<String, String> = form_urlencoded::parse(body).into_owned().collect();
    command(&fields)
}

/// Slash-command fields by name (also what Socket Mode delivers).
pub fn command(fields: &HashMap<String, String>) -> Result<Inbound, ParseError> {
    let get = |k: &'static str| {
        fields
            .get(k)
            .map(String::as_str)
            .ok_or(ParseError::Missing(k))
    };
    let channel = get("channel_id")?;
    let direct = fields
        .get("channel_name")
        .is_some_and(|n| n == "directmessage")
        || channel.starts_with('D');
    Ok(Inbound::Question(Question {
        conversation: Conversation {
            platform: Platform::Slack,
            workspace: get("team_id")?.to_string(),
            channel: channel.to_string(),
            thread: None,
            user: get("user_id")?.to_string(),
            direct,
        },
        text: unescape(fields.get("text").map(String::as_str).unwrap_or_default())
            .trim()
            .to_string(),
        event_id: get("trigger_id")?.to_string(),
        delivery: Delivery::SlackResponseUrl(get("response_url")?.to_string()),
    }))
}

/// The question without the bot's `<@U…>` mention, Slack's `&lt;` escapes undone (stack traces
/// quote `<init>`). With no known bot id, a mention's first `<@…>` is taken to be the bot.
fn strip_mention(text: &str, bot_user: Option<&str>, mention: bool) -> String {
    let mut out = text.to_string();
    match bot_user {
        Some(bot) => {
            for form in [format!("<@{bot}>"), format!("<@{bot}|")] {
                while let Some(i) = out.find(&form) {
                    let end = out[i..].find('>').map_or(out.len(), |j| i + j + 1);
                    out.replace_range(i..end, "");
                }
            }
        }
        None if mention => {
            if let Some(i) = out.find("<@") {
                let end = out[i..].find('>').map_or(out.len(), |j| i + j + 1);
                out.replace_range(i..end, "");
            }
        }
        None => {}
    }
    unescape(&out).trim().to_string()
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope(event: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
            "event_id": "Ev1", "event_time": 1700000000,
            "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": true}],
            "event": event
        }))
        .unwrap()
    }

    #[test]
    fn app_mention_becomes_a_threaded_question() {
        let body = envelope(json!({
            "type": "app_mention", "user": "U2", "text": "<@UBOT> who calls `deductStock`? &lt;init&gt;",
            "ts": "1700000000.000100", "channel": "C1", "event_ts": "1700000000.000100"
        }));
        insta::assert_debug_snapshot!(parse_event(&body, None).unwrap());
    }

    #[test]
    fn reply_in_an_existing_thread_stays_in_it() {
        let body = envelope(json!({
            "type": "app_mention", "user": "U2", "text": "<@UBOT> and who calls that?",
            "ts": "1700000050.000200", "thread_ts": "1700000000.000100", "channel": "C1"
        }));
        let Inbound::Question(q) = parse_event(&body, Some("UBOT")).unwrap() else {
            panic!()
        };
        assert_eq!(q.conversation.thread.as_deref(), Some("1700000000.000100"));
        assert_eq!(q.text, "and who calls that?");
    }

    #[test]
    fn direct_message_is_a_flat_direct_question() {
        let body = envelope(json!({
            "type": "message", "channel_type": "im", "user": "U2", "text": "where is OrderService",
            "ts": "1700000000.000300", "channel": "D1"
        }));
        let Inbound::Question(q) = parse_event(&body, None).unwrap() else {
            panic!()
        };
        assert!(q.conversation.direct);
        assert_eq!(q.conversation.thread, None);
        assert_eq!(q.text, "where is OrderService");
    }

    #[test]
    fn bots_edits_and_own_messages_are_dropped() {
        let cases = [
            json!({"type": "message", "channel_type": "im", "subtype": "bot_message", "bot_id": "B1", "text": "x", "ts": "1", "channel": "D1"}),
            json!({"type": "message", "channel_type": "im", "subtype": "message_changed", "ts": "1", "channel": "D1"}),
            json!({"type": "app_mention", "bot_id": "B9", "user": "U9", "text": "<@UBOT> hi", "ts": "1", "channel": "C1"}),
            json!({"type": "message", "channel_type": "im", "user": "UBOT", "text": "my answer", "ts": "1", "channel": "D1"}),
            json!({"type": "message", "channel_type": "channel", "user": "U2", "text": "chatter", "ts": "1", "channel": "C1"}),
            json!({"type": "reaction_added", "user": "U2"}),
        ];
        for event in cases {
            assert!(
                matches!(
                    parse_event(&envelope(event.clone()), None),
                    Ok(Inbound::Ignored(_))
                ),
                "{event}"
            );
        }
    }

    #[test]
    fn challenge_and_garbage() {
        let body = br#"{"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}"#;
        assert_eq!(
            parse_event(body, None).unwrap(),
            Inbound::Challenge("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P".into())
        );
        assert!(matches!(
            parse_event(b"not json", None),
            Err(ParseError::Json(_))
        ));
        assert!(matches!(
            parse_event(b"{}", None),
            Err(ParseError::Missing("type"))
        ));
    }

    #[test]
    fn slash_command_answers_through_its_response_url() {
        let body = b"token=x&team_id=T1&team_domain=shop&channel_id=C1&channel_name=dev&user_id=U2&user_name=ann&command=%2Fcodemap&text=who+calls+deductStock%3F&api_app_id=A1&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F1%2Fabc&trigger_id=13345224609.738474920.8088930838d88f008e0";
        insta::assert_debug_snapshot!(parse_command(body).unwrap());
        assert_eq!(
            parse_command(b"team_id=T1"),
            Err(ParseError::Missing("channel_id"))
        );
    }
}
