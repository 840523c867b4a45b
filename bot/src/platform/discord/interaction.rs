//! Discord interactions (HTTP endpoint and gateway alike) to [`Question`]s, and the initial
//! responses: PONG, DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, or an ephemeral note.

use crate::model::{Conversation, Delivery, Platform, Question};
use serde_json::{Value, json};

/// The slash command the bot registers.
pub const COMMAND: &str = "ask";
/// Its one string option.
pub const OPTION: &str = "question";
/// Interaction response types and message flags used here.
pub const PONG: u64 = 1;
pub const CHANNEL_MESSAGE_WITH_SOURCE: u64 = 4;
pub const DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: u64 = 5;
pub const EPHEMERAL: u64 = 1 << 6;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    Ping,
    Question(Question),
    /// Another command or interaction type: told so, ephemerally.
    Unsupported(&'static str),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("body is not valid JSON: {0}")]
    Json(String),
    #[error("missing field {0}")]
    Missing(&'static str),
}

/// The fields of an `/ask` invocation, however it arrived.
#[derive(Debug, Clone)]
pub struct AskCommand<'a> {
    pub interaction_id: &'a str,
    pub application_id: &'a str,
    pub token: &'a str,
    pub guild_id: Option<&'a str>,
    pub channel_id: &'a str,
    pub user_id: &'a str,
    pub question: &'a str,
}

impl AskCommand<'_> {
    pub fn question(&self) -> Question {
        Question {
            conversation: Conversation {
                platform: Platform::Discord,
                workspace: self.guild_id.unwrap_or_default().to_string(),
                channel: self.channel_id.to_string(),
                thread: Some(self.interaction_id.to_string()),
                user: self.user_id.to_string(),
                direct: self.guild_id.is_none(),
            },
            text: self.question.trim().to_string(),
            event_id: self.interaction_id.to_string(),
            delivery: Delivery::DiscordInteraction {
                application_id: self.application_id.to_string(),
                token: self.token.to_string(),
            },
        }
    }
}

pub fn parse(body: &[u8]) -> Result<Inbound, ParseError> {
    let v: Value = serde_json::from_slice(body).map_err(|e| ParseError::Json(e.to_string()))?;
    from_value(&v)
}

pub fn from_value(v: &Value) -> Result<Inbound, ParseError> {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str);
    match v.get("type").and_then(Value::as_u64) {
        Some(1) => return Ok(Inbound::Ping),
        Some(2) => {}
        Some(_) => return Ok(Inbound::Unsupported("interaction type")),
        None => return Err(ParseError::Missing("type")),
    }
    if s("/data/name") != Some(COMMAND) {
        return Ok(Inbound::Unsupported("command"));
    }
    let question = v
        .pointer("/data/options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|o| o.get("name").and_then(Value::as_str) == Some(OPTION))
        .and_then(|o| o.get("value"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let cmd = AskCommand {
        interaction_id: s("/id").ok_or(ParseError::Missing("id"))?,
        application_id: s("/application_id").ok_or(ParseError::Missing("application_id"))?,
        token: s("/token").ok_or(ParseError::Missing("token"))?,
        guild_id: s("/guild_id"),
        channel_id: s("/channel_id")
            .or_else(|| s("/channel/id"))
            .ok_or(ParseError::Missing("channel_id"))?,
        // In a guild the invoker is `member.user`, in a DM `user`.
        user_id: s("/member/user/id")
            .or_else(|| s("/user/id"))
            .ok_or(ParseError::Missing("member.user.id"))?,
        question,
    };
    Ok(Inbound::Question(cmd.question()))
}

/// The application commands the bot registers (bulk overwrite, so registering is idempotent):
/// `/ask question:<text>`, usable in guilds and in DMs with the bot.
pub fn command_definitions() -> Value {
    json!([{
        "name": COMMAND,
        "type": 1,
        "description": "Ask codemap about the code: who calls X, where is Y, paste a stack trace",
        "options": [{
            "name": OPTION,
            "description": "Your question",
            "type": 3,
            "required": true,
            "max_length": 1500
        }],
        "contexts": [0, 1],
        "integration_types": [0]
    }])
}

pub fn pong() -> Value {
    json!({"type": PONG})
}

pub fn deferred() -> Value {
    json!({"type": DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE})
}

/// An immediate ephemeral message (busy, unsupported command).
pub fn ephemeral(text: &str) -> Value {
    json!({
        "type": CHANNEL_MESSAGE_WITH_SOURCE,
        "data": {"content": text, "flags": EPHEMERAL, "allowed_mentions": {"parse": []}}
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn ask_payload(question: &str) -> Value {
        json!({
            "id": "1180000000000000001", "application_id": "1170000000000000000", "type": 2,
            "token": "aW50ZXJhY3Rpb24tdG9rZW4", "version": 1, "guild_id": "1160000000000000000",
            "channel_id": "1150000000000000000", "locale": "en-US",
            "channel": {"id": "1150000000000000000", "type": 0},
            "member": {"user": {"id": "1140000000000000000", "username": "ann", "discriminator": "0", "avatar": null, "global_name": "Ann"},
                       "roles": [], "joined_at": "2024-01-01T00:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0, "permissions": "0"},
            "data": {"id": "1130000000000000000", "name": "ask", "type": 1,
                     "options": [{"name": "question", "type": 3, "value": question}]},
            "app_permissions": "0", "entitlements": [], "attachment_size_limit": 10485760, "authorizing_integration_owners": {"0": "1160000000000000000"}, "context": 0
        })
    }

    #[test]
    fn ask_becomes_a_question_answered_through_the_interaction() {
        insta::assert_debug_snapshot!(from_value(&ask_payload("who calls deductStock?")).unwrap());
    }

    #[test]
    fn registered_commands() {
        insta::assert_json_snapshot!(command_definitions());
    }

    #[test]
    fn ping_other_commands_and_dms() {
        assert_eq!(
            parse(br#"{"type":1,"id":"1","application_id":"2","token":"t"}"#).unwrap(),
            Inbound::Ping
        );
        let mut other = ask_payload("x");
        other["data"]["name"] = json!("stats");
        assert_eq!(from_value(&other).unwrap(), Inbound::Unsupported("command"));
        let mut dm = ask_payload("where is Order?");
        dm.as_object_mut().unwrap().remove("guild_id");
        dm.as_object_mut().unwrap().remove("member");
        dm["user"] = json!({"id": "1140000000000000000", "username": "ann"});
        let Inbound::Question(q) = from_value(&dm).unwrap() else {
            panic!()
        };
        assert!(q.conversation.direct);
        assert_eq!(q.conversation.user, "1140000000000000000");
        assert!(matches!(parse(b"[]"), Err(ParseError::Missing("type"))));
        assert!(matches!(parse(b"{"), Err(ParseError::Json(_))));
    }
}
