//! Discord: the HTTP interactions endpoint ([`router`]), the gateway bot ([`gateway::run`]), and
//! replies by editing the deferred response or replying to a mention ([`DiscordSender`]).

pub mod buckets;
pub mod gateway;
pub mod interaction;
pub mod register;
pub mod render;
pub mod send;
pub mod verify;

pub use send::DiscordSender;

/// The production Web API base; a configuration's `api_base` replaces it.
pub const API_BASE: &str = "https://discord.com/api/v10";

use crate::inbox::{Inbox, Submitted};
use crate::platform::{ConfigError, MAX_BODY, unix_now};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use ed25519_dalek::VerifyingKey;
use interaction::Inbound;
use std::sync::Arc;

/// The interactions endpoint's setting: the application's public key.
#[derive(Clone)]
pub struct DiscordConfig {
    public_key: VerifyingKey,
}

impl DiscordConfig {
    /// `public_key_hex` as the developer portal shows it.
    pub fn new(public_key_hex: &str) -> Result<DiscordConfig, ConfigError> {
        Ok(DiscordConfig {
            public_key: verify::public_key(public_key_hex)?,
        })
    }
}

struct Shared {
    config: DiscordConfig,
    inbox: Inbox,
}

/// `POST /discord/interactions`.
pub fn router(config: DiscordConfig, inbox: Inbox) -> Router {
    Router::new()
        .route("/discord/interactions", post(interactions))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(Arc::new(Shared { config, inbox }))
}

async fn interactions(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let h = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    if let Err(e) = verify::verify(
        &shared.config.public_key,
        h("x-signature-ed25519"),
        h("x-signature-timestamp"),
        &body,
        unix_now(),
    ) {
        tracing::warn!(error = %e, "Discord interaction refused");
        return (StatusCode::UNAUTHORIZED, "invalid request signature").into_response();
    }
    let reply = match interaction::parse(&body) {
        Ok(Inbound::Ping) => interaction::pong(),
        // Discord does not redeliver interactions, so a full queue is told to the user at once.
        Ok(Inbound::Question(q)) => match shared.inbox.submit(q) {
            Submitted::Accepted | Submitted::Duplicate => interaction::deferred(),
            Submitted::Refused => {
                interaction::ephemeral("The bot is busy right now; please try again in a minute.")
            }
        },
        Ok(Inbound::Unsupported(what)) => {
            tracing::debug!(what, "unsupported Discord interaction");
            interaction::ephemeral("I only know /ask.")
        }
        Err(e) => {
            tracing::warn!(error = %e, "unreadable Discord interaction");
            return (StatusCode::BAD_REQUEST, e.to_string()).into_response();
        }
    };
    axum::Json(reply).into_response()
}
