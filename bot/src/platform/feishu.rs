//! Feishu/Lark: events through the HTTP callback ([`router`]) or the long connection
//! ([`ws::run`], protobuf [`frame`]s over a WebSocket the bot dials), both parsed by [`event`];
//! replies through the open API ([`FeishuSender`]).

pub mod crypto;
pub mod event;
pub mod frame;
pub mod render;
pub mod send;
pub mod ws;

/// The Open API base when the configuration names none (Lark: `https://open.larksuite.com`).
pub const DEFAULT_API_BASE: &str = "https://open.feishu.cn";

pub use send::FeishuSender;

use crate::inbox::Inbox;
use crate::platform::{ConfigError, MAX_BODY, ack_status, fresh, unix_now};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use event::Inbound;
use serde_json::{Value, json};
use std::sync::Arc;

/// The callback's settings. The Encrypt Key is required: every body must be encrypted with it
/// and every event signed, so a forged plaintext event can never be answered.
#[derive(Clone)]
pub struct FeishuConfig {
    verification_token: String,
    encrypt_key: String,
    bot_open_id: Option<String>,
}

impl FeishuConfig {
    pub fn new(
        verification_token: &str,
        encrypt_key: &str,
        bot_open_id: Option<String>,
    ) -> Result<FeishuConfig, ConfigError> {
        if verification_token.trim().is_empty() {
            return Err(ConfigError {
                key: "feishu.verification_token",
                problem: "is empty".into(),
            });
        }
        if encrypt_key.trim().is_empty() {
            return Err(ConfigError {
                key: "feishu.encrypt_key",
                problem: "is empty; without it events are neither encrypted nor signed".into(),
            });
        }
        Ok(FeishuConfig {
            verification_token: verification_token.to_string(),
            encrypt_key: encrypt_key.to_string(),
            bot_open_id,
        })
    }
}

struct Shared {
    config: FeishuConfig,
    inbox: Inbox,
}

/// `POST /feishu/events`.
pub fn router(config: FeishuConfig, inbox: Inbox) -> Router {
    Router::new()
        .route("/feishu/events", post(events))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(Arc::new(Shared { config, inbox }))
}

fn refuse(status: StatusCode, why: &str) -> Response {
    tracing::warn!(why, "Feishu callback refused");
    (status, axum::Json(json!({"msg": why}))).into_response()
}

async fn events(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let cfg = &shared.config;
    let h = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    let signature = h("x-lark-signature");
    // Events are signed; the URL challenge is not (it is encrypted and its token is checked).
    if let Some(sig) = signature {
        let ts = h("x-lark-request-timestamp").unwrap_or_default();
        let nonce = h("x-lark-request-nonce").unwrap_or_default();
        if !crypto::signature_ok(ts, nonce, &cfg.encrypt_key, &body, sig) {
            return refuse(StatusCode::UNAUTHORIZED, "signature does not match");
        }
        if !fresh(ts, unix_now()) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "timestamp outside the replay window",
            );
        }
    }
    let outer: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => return refuse(StatusCode::BAD_REQUEST, "body is not JSON"),
    };
    let Some(encrypted) = outer.get("encrypt").and_then(Value::as_str) else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "plaintext body; events must be encrypted with the Encrypt Key",
        );
    };
    let plain = match crypto::decrypt(&cfg.encrypt_key, encrypted) {
        Ok(p) => p,
        Err(e) => return refuse(StatusCode::UNAUTHORIZED, &e.to_string()),
    };
    let parsed = match event::parse(&plain, &cfg.verification_token, cfg.bot_open_id.as_deref()) {
        Ok(p) => p,
        Err(event::EventError::Token) => {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "verification token does not match",
            );
        }
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &e.to_string()),
    };
    if !matches!(parsed, Inbound::Challenge(_)) && signature.is_none() {
        return refuse(StatusCode::UNAUTHORIZED, "unsigned event");
    }
    match parsed {
        Inbound::Challenge(c) => axum::Json(json!({"challenge": c})).into_response(),
        Inbound::Question(q) => {
            let status = ack_status(&shared.inbox, q);
            (
                status,
                axum::Json(json!({"msg": if status.is_success() { "success" } else { "busy" }})),
            )
                .into_response()
        }
        Inbound::Ignored(why) => {
            tracing::debug!(why, "Feishu event ignored");
            axum::Json(json!({"msg": "success"})).into_response()
        }
    }
}
