//! Socket Mode for teams without a public URL: `apps.connections.open` with the app-level
//! token, a WebSocket per connection, envelopes acknowledged right after [`Inbox::submit`],
//! and a new connection whenever Slack asks (`disconnect`) or the socket drops. Push events
//! and slash commands go through the same parser as the HTTP endpoint, so both paths produce
//! identical [`Question`](crate::model::Question)s.
//!
//! slack-morphism supplies the Web API calls (`auth.test`, `apps.connections.open`) and the
//! envelope models; the connection loop is ours because its `SlackClientSocketModeListener`
//! retries a refused token every 30 s forever, logs `disconnect` reasons and `hello` only at
//! trace level and waits a fixed 30 s after a failure, none of which the bot could report.

mod frame;
mod link;

use super::inbound::{self, Inbound, ParseError};
use crate::inbox::Inbox;
use slack_morphism::errors::SlackClientError;
use slack_morphism::prelude::*;
use std::sync::{Arc, Mutex};

/// Connections held open at once. Slack allows up to 10 per app and spreads envelopes over
/// them; two means a refresh on one never leaves the bot unreachable.
pub const CONNECTIONS: usize = 2;

/// Which credential Slack refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// The app-level token (`xapp-…`, `connections:write`).
    App,
    /// The bot token (`xoxb-…`).
    Bot,
}

impl Token {
    fn what(self) -> &'static str {
        match self {
            Token::App => "app-level token; it must be the xapp- token with connections:write",
            Token::Bot => "bot token (xoxb-)",
        }
    }
}

/// Why Socket Mode stopped for good.
#[derive(Debug, thiserror::Error)]
pub enum SocketError {
    #[error("building the Slack client failed: {0}")]
    Client(String),
    /// Retrying cannot help: the token is wrong, revoked or lacks its scope.
    #[error("Slack refused the {} ({code})", .token.what())]
    Refused { token: Token, code: String },
}

/// Where the connections stand, for `/healthz`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SocketEvent {
    /// At least one connection got its `hello`.
    Connected { connections: usize },
    /// None has: every connection is between attempts.
    Reconnecting { reason: String },
}

/// What Socket Mode needs to run.
pub struct SocketOptions {
    pub app_token: String,
    /// Used for `auth.test`, which names the bot's own user (its messages are not questions).
    pub bot_token: String,
    /// Replaces `https://slack.com/api` (tests).
    pub api_url: Option<String>,
    pub connections: usize,
}

type Report = Box<dyn Fn(SocketEvent) + Send + Sync>;

/// What every connection shares.
struct Shared {
    client: Arc<SlackHyperClient>,
    app_token: SlackApiToken,
    bot_user: Option<String>,
    inbox: Inbox,
    live: Mutex<Vec<bool>>,
    report: Report,
}

impl Shared {
    fn up(&self, n: usize) {
        let count = {
            let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            live[n] = true;
            live.iter().filter(|l| **l).count()
        };
        (self.report)(SocketEvent::Connected { connections: count });
    }

    fn down(&self, n: usize, reason: &str) {
        let count = {
            let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
            live[n] = false;
            live.iter().filter(|l| **l).count()
        };
        (self.report)(match count {
            0 => SocketEvent::Reconnecting {
                reason: reason.to_string(),
            },
            c => SocketEvent::Connected { connections: c },
        });
    }
}

/// Runs Socket Mode until `shutdown` resolves (then closes every socket) or Slack refuses a
/// token. Network failures are retried, never returned.
pub async fn listen(
    opts: SocketOptions,
    inbox: Inbox,
    report: impl Fn(SocketEvent) + Send + Sync + 'static,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), SocketError> {
    let client = Arc::new(client(opts.api_url.as_deref())?);
    let bot_user = bot_user(&client, &opts.bot_token).await?;
    let n = opts.connections.max(1);
    let shared = Arc::new(Shared {
        client,
        app_token: SlackApiToken::new(opts.app_token.into()),
        bot_user,
        inbox,
        live: Mutex::new(vec![false; n]),
        report: Box::new(report),
    });
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut links = tokio::task::JoinSet::new();
    for i in 0..n {
        links.spawn(link::keep(i, shared.clone(), stop_rx.clone()));
    }
    let outcome = tokio::select! {
        () = shutdown => Ok(()),
        Some(ended) = links.join_next() => match ended {
            Ok(r) => r,
            Err(e) => Err(SocketError::Client(format!("a connection task ended: {e}"))),
        },
    };
    let _ = stop_tx.send(true);
    while links.join_next().await.is_some() {}
    outcome
}

/// The bot's own user id from `auth.test`. A refused bot token is fatal; a network failure
/// only costs the id (events carry it in `authorizations` too).
async fn bot_user(client: &SlackHyperClient, token: &str) -> Result<Option<String>, SocketError> {
    let token = SlackApiToken::new(token.to_string().into());
    let session = client.open_session(&token);
    match session.auth_test().await {
        Ok(r) => Ok(Some(r.user_id.0)),
        Err(SlackClientError::ApiError(e)) if frame::refused_token(&e.code) => {
            Err(SocketError::Refused {
                token: Token::Bot,
                code: e.code,
            })
        }
        Err(e) => {
            tracing::warn!(error = %e, "Slack auth.test failed; the bot user id comes from each event");
            Ok(None)
        }
    }
}

/// A Web API client; `api_url` replaces `https://slack.com/api`.
fn client(api_url: Option<&str>) -> Result<SlackHyperClient, SocketError> {
    let connector = match api_url {
        // A plain-http API is only ever a loopback stand-in; Slack itself is https-only.
        Some(url) if url.starts_with("http://") => {
            let https_or_http = hyper_rustls::HttpsConnectorBuilder::new()
                .with_native_roots()
                .map_err(|e| SocketError::Client(e.to_string()))?
                .https_or_http()
                .enable_http1()
                .build();
            SlackClientHyperConnector::with_connector(https_or_http).with_slack_api_url(url)
        }
        Some(url) => SlackClientHyperConnector::new()
            .map_err(|e| SocketError::Client(e.to_string()))?
            .with_slack_api_url(url),
        None => SlackClientHyperConnector::new().map_err(|e| SocketError::Client(e.to_string()))?,
    };
    Ok(SlackClient::new(connector))
}

/// A push event as Socket Mode hands it over → what the HTTP endpoint would have made of it.
pub fn from_push_event(
    ev: &SlackPushEventCallback,
    bot_user: Option<&str>,
) -> Result<Inbound, ParseError> {
    let mut v = serde_json::to_value(ev).map_err(|e| ParseError::Json(e.to_string()))?;
    v["type"] = serde_json::json!("event_callback");
    inbound::event_callback(&v, bot_user)
}

/// A slash command delivered over the socket → the same question as over HTTP.
pub fn from_command(ev: &SlackCommandEvent) -> Result<Inbound, ParseError> {
    let v = serde_json::to_value(ev).map_err(|e| ParseError::Json(e.to_string()))?;
    let fields = v
        .as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    inbound::command(&fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Delivery;
    use serde_json::json;

    #[test]
    fn socket_push_event_equals_the_http_question() {
        let envelope = json!({
            "token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
            "event_id": "Ev42", "event_time": 1700000000,
            "authorizations": [{"enterprise_id": null, "team_id": "T1", "user_id": "UBOT", "is_bot": true, "is_enterprise_install": false}],
            "event": {"type": "app_mention", "user": "U2", "text": "<@UBOT> who calls deductStock?",
                      "ts": "1700000000.000100", "channel": "C1", "event_ts": "1700000000.000100"}
        });
        let http = inbound::parse_event(&serde_json::to_vec(&envelope).unwrap(), None).unwrap();
        let SlackPushEvent::EventCallback(cb) =
            serde_json::from_value::<SlackPushEvent>(envelope).unwrap()
        else {
            panic!("slack-morphism did not read an event_callback")
        };
        let socket = from_push_event(&cb, None).unwrap();
        assert_eq!(socket, http);
        let Inbound::Question(q) = socket else {
            panic!()
        };
        assert_eq!(q.text, "who calls deductStock?");
        assert_eq!(q.event_id, "Ev42");
    }

    #[test]
    fn socket_direct_message_and_bot_echo() {
        let dm = |user: &str, bot: Option<&str>| {
            let mut event = json!({"type": "message", "channel_type": "im", "user": user, "text": "where is Order?",
                                   "ts": "1700000000.000300", "channel": "D1"});
            if let Some(b) = bot {
                event["bot_id"] = json!(b);
            }
            let v = json!({"team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": "Ev7",
                           "event_time": 1700000000, "event": event});
            let SlackPushEvent::EventCallback(cb) =
                serde_json::from_value::<SlackPushEvent>(v).unwrap()
            else {
                panic!()
            };
            from_push_event(&cb, Some("UBOT")).unwrap()
        };
        let Inbound::Question(q) = dm("U2", None) else {
            panic!("DM dropped")
        };
        assert!(q.conversation.direct);
        assert!(matches!(dm("UBOT", None), Inbound::Ignored(_)));
        assert!(matches!(dm("U3", Some("B1")), Inbound::Ignored(_)));
    }

    #[test]
    fn socket_slash_command_answers_via_its_response_url() {
        let ev: SlackCommandEvent = serde_json::from_value(json!({
            "team_id": "T1", "channel_id": "C1", "channel_name": "dev", "user_id": "U2", "command": "/codemap",
            "text": "who calls deductStock?", "response_url": "https://hooks.slack.com/commands/T1/1/abc",
            "trigger_id": "tr1"
        }))
        .unwrap();
        let Inbound::Question(q) = from_command(&ev).unwrap() else {
            panic!()
        };
        assert_eq!(q.text, "who calls deductStock?");
        assert_eq!(q.event_id, "tr1");
        assert_eq!(
            q.delivery,
            Delivery::SlackResponseUrl("https://hooks.slack.com/commands/T1/1/abc".into())
        );
    }
}
