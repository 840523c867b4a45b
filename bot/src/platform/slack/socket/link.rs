//! One Socket Mode connection kept open: `apps.connections.open` for a fresh URL, the
//! WebSocket, envelopes acked as they are read, and a new connection when Slack asks for one
//! or the socket drops. Decisions live in [`super::frame`]; this is the I/O around them.

use super::frame::{self, Backoff, Ended, Frame};
use super::{Shared, SocketError, Token};
use futures_util::{SinkExt, StreamExt};
use slack_morphism::errors::SlackClientError;
use slack_morphism::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message;

/// How often the bot pings; a socket silent for [`SILENT`] is taken as dropped (Slack pings
/// its clients too, so a live socket is never that quiet).
const PING_EVERY: Duration = Duration::from_secs(10);
const SILENT: Duration = Duration::from_secs(35);

/// Keeps connection `n` open until `stop`; returns an error only when Slack refuses the token.
pub async fn keep(
    n: usize,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), SocketError> {
    let mut backoff = Backoff::default();
    loop {
        let end = match open(&shared).await {
            Ok(url) => match session(n, &url, &shared, &mut stop).await {
                Some(end) => end,
                None => return Ok(()),
            },
            Err(Opened::Refused(code)) => {
                return Err(SocketError::Refused {
                    token: Token::App,
                    code,
                });
            }
            Err(Opened::Failed(reason)) => Ended {
                reason,
                asked: false,
                greeted: false,
            },
        };
        let wait = backoff.after(&end);
        tracing::info!(connection = n, reason = %end.reason, wait_ms = wait.as_millis() as u64, "Slack Socket Mode reconnecting");
        shared.down(n, &end.reason);
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = stopped(&mut stop) => return Ok(()),
        }
    }
}

/// Resolves once the bot is stopping (the guard `wait_for` returns is dropped here: it is not
/// `Send`).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

enum Opened {
    Refused(String),
    Failed(String),
}

/// `apps.connections.open` with the app-level token: a single-use WebSocket URL.
async fn open(shared: &Shared) -> Result<String, Opened> {
    let session = shared.client.open_session(&shared.app_token);
    match session
        .apps_connections_open(&SlackApiAppsConnectionOpenRequest::new())
        .await
    {
        Ok(r) => Ok(r.url.0.to_string()),
        Err(SlackClientError::ApiError(e)) if frame::refused_token(&e.code) => {
            Err(Opened::Refused(e.code))
        }
        Err(e) => Err(Opened::Failed(format!("apps.connections.open: {e}"))),
    }
}

/// One WebSocket from connect to close. `None` when the bot is stopping.
async fn session(
    n: usize,
    url: &str,
    shared: &Shared,
    stop: &mut watch::Receiver<bool>,
) -> Option<Ended> {
    let dropped = |reason: String, greeted| {
        Some(Ended {
            reason,
            asked: false,
            greeted,
        })
    };
    let ws = match tokio_tungstenite::connect_async(url).await {
        Ok((ws, _)) => ws,
        Err(e) => return dropped(format!("WebSocket connect: {e}"), false),
    };
    let (mut tx, mut rx) = ws.split();
    let mut greeted = false;
    let mut heard = Instant::now();
    let mut ping = tokio::time::interval(PING_EVERY);
    loop {
        let msg = tokio::select! {
            () = stopped(stop) => {
                let _ = tx.send(Message::Close(None)).await;
                return None;
            }
            _ = ping.tick() => {
                if heard.elapsed() > SILENT {
                    return dropped(format!("nothing heard for {} s", SILENT.as_secs()), greeted);
                }
                if let Err(e) = tx.send(Message::Ping(Vec::new().into())).await {
                    return dropped(format!("ping: {e}"), greeted);
                }
                continue;
            }
            m = rx.next() => m,
        };
        heard = Instant::now();
        let text = match msg {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(c))) => {
                return dropped(format!("closed by Slack: {c:?}"), greeted);
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return dropped(format!("WebSocket: {e}"), greeted),
            None => return dropped("socket ended".into(), greeted),
        };
        match frame::read(&text, shared.bot_user.as_deref()) {
            Frame::Hello => {
                greeted = true;
                shared.up(n);
            }
            Frame::Disconnect { reason } => {
                let _ = tx.send(Message::Close(None)).await;
                return Some(Ended {
                    reason,
                    asked: true,
                    greeted,
                });
            }
            Frame::Envelope { id, kind, inbound } => {
                let reply = frame::respond(&id, kind, inbound, |q| shared.inbox.submit(q));
                if let Some(ack) = reply
                    && let Err(e) = tx.send(Message::text(ack)).await
                {
                    return dropped(format!("ack: {e}"), greeted);
                }
            }
            Frame::Unreadable { id, error } => {
                tracing::warn!(%error, "unreadable Socket Mode frame");
                if let Some(id) = id {
                    let ack = frame::ack(&id, frame::Kind::Events, None);
                    let _ = tx.send(Message::text(ack)).await;
                }
            }
        }
    }
}
