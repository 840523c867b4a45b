//! Slack: the Events API and `/codemap` over HTTP ([`router`]), Socket Mode ([`socket::listen`]),
//! and replies through the Web API ([`SlackSender`]).

pub mod inbound;
pub mod render;
pub mod send;
pub mod socket;
pub mod verify;

pub use send::SlackSender;

use crate::inbox::{Inbox, Submitted};
use crate::platform::{ConfigError, MAX_BODY, ack_status, unix_now};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use inbound::Inbound;
use std::sync::Arc;

/// The ephemeral ack of a slash command.
pub(crate) const WORKING: &str = "Working on it…";
/// The ack of a slash command when the queue is full (Slack does not retry commands).
pub(crate) const BUSY: &str = "The bot is busy right now; please try again in a minute.";

/// What the HTTP endpoints need: the signing secret and, if known, the bot's user id (else the
/// one in each event's `authorizations` is used).
#[derive(Clone)]
pub struct SlackConfig {
    signing_secret: Arc<[u8]>,
    bot_user_id: Option<String>,
}

impl SlackConfig {
    pub fn new(
        signing_secret: &str,
        bot_user_id: Option<String>,
    ) -> Result<SlackConfig, ConfigError> {
        if signing_secret.trim().is_empty() {
            return Err(ConfigError {
                key: "slack.signing_secret",
                problem: "is empty".into(),
            });
        }
        Ok(SlackConfig {
            signing_secret: signing_secret.as_bytes().into(),
            bot_user_id,
        })
    }
}

struct Shared {
    config: SlackConfig,
    inbox: Inbox,
}

/// `POST /slack/events` (Events API) and `POST /slack/commands` (slash commands).
pub fn router(config: SlackConfig, inbox: Inbox) -> Router {
    Router::new()
        .route("/slack/events", post(events))
        .route("/slack/commands", post(commands))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(Arc::new(Shared { config, inbox }))
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

fn check(shared: &Shared, headers: &HeaderMap, body: &[u8]) -> Result<(), StatusCode> {
    verify::verify(
        &shared.config.signing_secret,
        header(headers, "x-slack-request-timestamp"),
        header(headers, "x-slack-signature"),
        body,
        unix_now(),
    )
    .map_err(|e| {
        tracing::warn!(error = %e, "Slack request refused");
        StatusCode::UNAUTHORIZED
    })
}

async fn events(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(status) = check(&shared, &headers, &body) {
        return (status, "invalid signature").into_response();
    }
    if let Some(n) = header(&headers, "x-slack-retry-num") {
        tracing::info!(
            retry = n,
            reason = header(&headers, "x-slack-retry-reason"),
            "Slack retry"
        );
    }
    match inbound::parse_event(&body, shared.config.bot_user_id.as_deref()) {
        Ok(Inbound::Challenge(c)) => {
            (StatusCode::OK, [("content-type", "text/plain")], c).into_response()
        }
        Ok(Inbound::Question(q)) => ack_status(&shared.inbox, q).into_response(),
        Ok(Inbound::Ignored(why)) => {
            tracing::debug!(why, "Slack event ignored");
            StatusCode::OK.into_response()
        }
        Err(e) => {
            tracing::warn!(error = %e, "unreadable Slack event");
            (StatusCode::BAD_REQUEST, e.to_string()).into_response()
        }
    }
}

async fn commands(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(status) = check(&shared, &headers, &body) {
        return (status, "invalid signature").into_response();
    }
    let text = match inbound::parse_command(&body) {
        Ok(Inbound::Question(q)) => match shared.inbox.submit(q) {
            Submitted::Accepted | Submitted::Duplicate => WORKING,
            Submitted::Refused => BUSY,
        },
        Ok(_) => "I could not read that command.",
        Err(e) => {
            tracing::warn!(error = %e, "unreadable Slack command");
            return (StatusCode::BAD_REQUEST, e.to_string()).into_response();
        }
    };
    axum::Json(serde_json::json!({"response_type": "ephemeral", "text": text})).into_response()
}
