//! What one Socket Mode text frame means and what the bot sends back: pure functions over the
//! frame, the inbox's verdict and the clock, so the protocol rules are tested without a socket.

use super::super::inbound::{Inbound, ParseError};
use super::{from_command, from_push_event};
use crate::inbox::Submitted;
use crate::model::Question;
use serde_json::{Value, json};
use slack_morphism::prelude::{SlackCommandEvent, SlackPushEventCallback};
use std::time::Duration;

/// A frame from Slack, read.
#[derive(Debug)]
pub enum Frame {
    /// The connection is ready; events may follow.
    Hello,
    /// Slack asks the client to move to a new connection (`warning`, `refresh_requested`,
    /// `link_disabled`).
    Disconnect { reason: String },
    /// An envelope to acknowledge by `envelope_id` within 3 s.
    Envelope {
        id: String,
        kind: Kind,
        inbound: Result<Inbound, ParseError>,
    },
    /// Not JSON, or an envelope of a shape not modelled: acknowledged when it carries an id,
    /// since it never reads better on redelivery.
    Unreadable { id: Option<String>, error: String },
}

/// What kind of envelope: a slash command's ack carries the ephemeral text shown to its user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Events,
    SlashCommand,
    Interactive,
}

/// Reads a text frame. `bot_user` is the bot's own user id (its messages are not questions).
pub fn read(text: &str, bot_user: Option<&str>) -> Frame {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Frame::Unreadable {
                id: None,
                error: e.to_string(),
            };
        }
    };
    // The control frames are read leniently (their debug fields vary); the payloads through
    // slack-morphism's event models (its envelope types are not public).
    match v.get("type").and_then(Value::as_str) {
        Some("hello") => return Frame::Hello,
        Some("disconnect") => {
            let reason = v.get("reason").and_then(Value::as_str).unwrap_or("unknown");
            return Frame::Disconnect {
                reason: reason.to_string(),
            };
        }
        _ => {}
    }
    let Some(id) = v.get("envelope_id").and_then(Value::as_str) else {
        return Frame::Unreadable {
            id: None,
            error: "a frame with neither a known type nor an envelope_id".into(),
        };
    };
    let id = id.to_string();
    let payload = v.get("payload").cloned().unwrap_or(Value::Null);
    let (kind, inbound) = match v.get("type").and_then(Value::as_str) {
        Some("events_api") => match serde_json::from_value::<SlackPushEventCallback>(payload) {
            Ok(cb) => (Kind::Events, from_push_event(&cb, bot_user)),
            Err(e) => return unreadable(id, e),
        },
        Some("slash_commands") => match serde_json::from_value::<SlackCommandEvent>(payload) {
            Ok(c) => (Kind::SlashCommand, from_command(&c)),
            Err(e) => return unreadable(id, e),
        },
        Some("interactive") => (
            Kind::Interactive,
            Ok(Inbound::Ignored("interactive payloads are not questions")),
        ),
        other => return unreadable(id, format!("unknown envelope type {other:?}")),
    };
    Frame::Envelope { id, kind, inbound }
}

fn unreadable(id: String, error: impl ToString) -> Frame {
    Frame::Unreadable {
        id: Some(id),
        error: error.to_string(),
    }
}

/// The ack of an envelope: `{"envelope_id": …}` plus, for a slash command, the ephemeral text.
pub fn ack(id: &str, kind: Kind, text: Option<&str>) -> String {
    let mut v = json!({ "envelope_id": id });
    if let (Kind::SlashCommand, Some(t)) = (kind, text) {
        v["payload"] = json!({"response_type": "ephemeral", "text": t});
    }
    v.to_string()
}

/// What to send back for an envelope, having handed its question (if any) to `submit`.
/// `None` leaves it unacknowledged, so Slack delivers it again: only an event the full inbox
/// refused. A slash command is never redelivered by Slack, so its user is told to retry instead.
pub fn respond(
    id: &str,
    kind: Kind,
    inbound: Result<Inbound, ParseError>,
    submit: impl FnOnce(Question) -> Submitted,
) -> Option<String> {
    let text = match inbound {
        Ok(Inbound::Question(q)) => match (submit(q), kind) {
            (Submitted::Accepted | Submitted::Duplicate, _) => super::super::WORKING,
            (Submitted::Refused, Kind::SlashCommand) => super::super::BUSY,
            (Submitted::Refused, _) => return None,
        },
        Ok(_) => "I could not read that command.",
        Err(e) => {
            tracing::warn!(error = %e, envelope_id = id, "unusable Socket Mode envelope acknowledged");
            "I could not read that command."
        }
    };
    Some(ack(id, kind, Some(text)))
}

/// What a connection's end means for the next one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// For logs and `/healthz`: the `disconnect` reason or what broke.
    pub reason: String,
    /// Slack asked for the move (`warning`, `refresh_requested`): reconnect at once.
    pub asked: bool,
    /// The connection got its `hello` (so the failures count starts again).
    pub greeted: bool,
}

/// Exponential backoff between failed attempts: 1 s, 2 s, 4 s … capped at 60 s. A move Slack
/// asked for on a working connection waits nothing; `link_disabled` (Socket Mode switched off
/// in the app settings) is a failure like any other, retried until an admin turns it back on.
#[derive(Debug, Default)]
pub struct Backoff {
    failures: u32,
}

impl Backoff {
    pub const FIRST: Duration = Duration::from_secs(1);
    pub const MAX: Duration = Duration::from_secs(60);

    /// The wait before the next `apps.connections.open`, given how the last connection ended.
    pub fn after(&mut self, end: &Ended) -> Duration {
        if end.greeted {
            self.failures = 0;
        }
        if end.asked && end.greeted && end.reason != "link_disabled" {
            return Duration::ZERO;
        }
        let wait = Self::FIRST.saturating_mul(1 << self.failures.min(6));
        self.failures += 1;
        wait.min(Self::MAX)
    }
}

/// Web API error codes that mean the token itself cannot work: retrying will not help.
pub fn refused_token(code: &str) -> bool {
    matches!(
        code,
        "invalid_auth"
            | "not_authed"
            | "account_inactive"
            | "token_revoked"
            | "token_expired"
            | "not_allowed_token_type"
            | "missing_scope"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(kind: &str, payload: Value) -> String {
        json!({"envelope_id": "e1", "type": kind, "payload": payload,
               "accepts_response_payload": kind == "slash_commands"})
        .to_string()
    }

    fn mention() -> Value {
        json!({"team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": "Ev1",
               "event_time": 1700000000,
               "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": true}],
               "event": {"type": "app_mention", "user": "U2", "text": "<@UBOT> who calls deductStock?",
                         "ts": "1.1", "channel": "C1", "event_ts": "1.1"}})
    }

    #[test]
    fn hello_and_disconnect_are_read_with_their_reason() {
        let hello = json!({"type": "hello", "num_connections": 1,
                           "debug_info": {"host": "h"}, "connection_info": {"app_id": "A1"}});
        assert!(matches!(read(&hello.to_string(), None), Frame::Hello));
        let bye = json!({"type": "disconnect", "reason": "refresh_requested", "debug_info": {"host": "h"}});
        let Frame::Disconnect { reason } = read(&bye.to_string(), None) else {
            panic!()
        };
        assert_eq!(reason, "refresh_requested");
    }

    #[test]
    fn an_event_envelope_is_acked_by_id_after_its_question_is_submitted() {
        let Frame::Envelope { id, kind, inbound } = read(&envelope("events_api", mention()), None)
        else {
            panic!()
        };
        let mut asked = None;
        let reply = respond(&id, kind, inbound, |q| {
            asked = Some(q.text.clone());
            Submitted::Accepted
        });
        assert_eq!(asked.as_deref(), Some("who calls deductStock?"));
        assert_eq!(reply.as_deref(), Some(r#"{"envelope_id":"e1"}"#));
    }

    #[test]
    fn a_refused_event_is_left_for_redelivery_but_a_refused_command_is_told_busy() {
        let Frame::Envelope { id, kind, inbound } = read(&envelope("events_api", mention()), None)
        else {
            panic!()
        };
        assert_eq!(respond(&id, kind, inbound, |_| Submitted::Refused), None);
        let cmd = json!({"team_id": "T1", "channel_id": "C1", "user_id": "U2", "command": "/codemap",
                         "text": "where is Order", "response_url": "https://hooks.slack.com/commands/T1/1/a",
                         "trigger_id": "tr1"});
        let Frame::Envelope { id, kind, inbound } = read(&envelope("slash_commands", cmd), None)
        else {
            panic!()
        };
        let ack: Value =
            serde_json::from_str(&respond(&id, kind, inbound, |_| Submitted::Refused).unwrap())
                .unwrap();
        assert_eq!(ack["envelope_id"], "e1");
        assert_eq!(ack["payload"]["text"], super::super::super::BUSY);
    }

    #[test]
    fn an_unmodelled_envelope_is_still_acked() {
        let odd = json!({"envelope_id": "e9", "type": "events_api", "payload": 7}).to_string();
        let Frame::Unreadable { id, .. } = read(&odd, None) else {
            panic!()
        };
        assert_eq!(id.as_deref(), Some("e9"));
        assert!(matches!(
            read("not json", None),
            Frame::Unreadable { id: None, .. }
        ));
    }

    #[test]
    fn backoff_doubles_on_failures_and_a_requested_move_waits_nothing() {
        let fail = Ended {
            reason: "reset".into(),
            asked: false,
            greeted: false,
        };
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..8).map(|_| b.after(&fail).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        let moved = Ended {
            reason: "refresh_requested".into(),
            asked: true,
            greeted: true,
        };
        assert_eq!(b.after(&moved), Duration::ZERO);
        assert_eq!(
            b.after(&fail),
            Backoff::FIRST,
            "a greeted connection resets the count"
        );
        let disabled = Ended {
            reason: "link_disabled".into(),
            asked: true,
            greeted: true,
        };
        assert_eq!(b.after(&disabled), Backoff::FIRST);
    }

    #[test]
    fn only_token_errors_are_fatal() {
        assert!(refused_token("invalid_auth") && refused_token("not_authed"));
        assert!(!refused_token("ratelimited") && !refused_token("internal_error"));
    }
}
