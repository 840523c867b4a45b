//! A loopback Discord: the Web API routes a bot uses (`GET /gateway`, `GET /gateway/bot`,
//! `GET /users/@me`, `GET /oauth2/applications/@me`, `POST /channels/{id}/messages`,
//! `PUT /applications/{id}/commands`), recorded, and a gateway WebSocket speaking the documented
//! protocol (v10, JSON text frames): HELLO (op 10) → IDENTIFY (op 2, token and intents checked;
//! 4004 / 4014 closes) → READY with `session_id` and `resume_gateway_url`; heartbeats (op 1 →
//! op 11); MESSAGE_CREATE dispatches on demand; op 7 RECONNECT, then RESUME (op 6) on a new
//! connection → RESUMED. Validated against discord.py (tests/discord_standin.rs) before the bot
//! is tested against it.
#![allow(dead_code)]

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

pub const BOT_USER: &str = "1100000000000000000";
pub const APPLICATION: &str = "1100000000000000000";
pub const GUILD: &str = "1160000000000000000";
pub const CHANNEL: &str = "1150000000000000000";
pub const THREAD: &str = "1170000000000000000";
pub const ASKER: &str = "1140000000000000000";
const SESSION: &str = "standin-session-1";
/// Privileged intents (GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT): refused with 4014
/// unless the stand-in is told the portal allows them.
const PRIVILEGED: u64 = (1 << 1) | (1 << 8) | (1 << 15);

/// How the stand-in behaves.
#[derive(Clone)]
pub struct Options {
    pub token: String,
    /// Whether the Web API refuses a wrong token with 401 (Discord does); off to reach the
    /// gateway's 4004 with a bad token.
    pub rest_checks_token: bool,
    pub heartbeat_ms: u64,
}

impl Options {
    pub fn new(token: &str) -> Options {
        Options {
            token: token.into(),
            rest_checks_token: true,
            heartbeat_ms: 1500,
        }
    }
}

/// One Web API request.
#[derive(Debug, Clone)]
pub struct Rest {
    pub method: String,
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

/// One frame a client sent, with the connection it came on (0, 1, …) and that connection's
/// request path and query (`/?v=10…`, `/resume?v=10…`).
#[derive(Debug, Clone)]
pub struct Frame {
    pub connection: usize,
    pub target: String,
    pub payload: Value,
}

#[derive(Default)]
struct Shared {
    rest: Vec<Rest>,
    frames: Vec<Frame>,
    /// Close codes the stand-in sent.
    closes: Vec<u16>,
    connections: usize,
    seq: u64,
    messages: u64,
    /// The connection that last completed IDENTIFY or RESUME.
    live: Option<mpsc::UnboundedSender<Command>>,
}

enum Command {
    Send(Value),
}

#[derive(Clone)]
pub struct DiscordStandin {
    /// `http://127.0.0.1:PORT/api/v10`
    pub api_base: String,
    /// `ws://127.0.0.1:PORT`
    pub gateway_url: String,
    options: Options,
    shared: Arc<Mutex<Shared>>,
}

impl DiscordStandin {
    pub async fn start(options: Options) -> DiscordStandin {
        let rest = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let ws = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let s = DiscordStandin {
            api_base: format!("http://{}/api/v10", rest.local_addr().unwrap()),
            gateway_url: format!("ws://{}", ws.local_addr().unwrap()),
            options,
            shared: Arc::default(),
        };
        let app = Router::new().fallback(api).with_state(s.clone());
        tokio::spawn(async move { axum::serve(rest, app).await.unwrap() });
        let gw = s.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = ws.accept().await {
                tokio::spawn(gw.clone().connection(tcp));
            }
        });
        s
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared.lock().unwrap()
    }

    pub fn rest(&self) -> Vec<Rest> {
        self.lock().rest.clone()
    }

    pub fn frames(&self) -> Vec<Frame> {
        self.lock().frames.clone()
    }

    /// Frames with opcode `op`.
    pub fn sent_op(&self, op: u64) -> Vec<Frame> {
        self.frames()
            .into_iter()
            .filter(|f| f.payload["op"] == op)
            .collect()
    }

    pub fn closes(&self) -> Vec<u16> {
        self.lock().closes.clone()
    }

    pub fn connections(&self) -> usize {
        self.lock().connections
    }

    /// Waits up to `secs` for `done` to hold.
    pub async fn wait(&self, secs: u64, what: &str, done: impl Fn(&DiscordStandin) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        while !done(self) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "timed out waiting for {what}; frames: {:?}; rest: {:?}",
                self.frames(),
                self.rest()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Whether a session is live (READY or RESUMED sent on the current connection).
    pub fn live(&self) -> bool {
        self.lock().live.is_some()
    }

    /// Dispatches a MESSAGE_CREATE from a user on the live connection: in the guild channel
    /// `channel` (`guild` set) or a DM; `mention` puts `<@bot>` in front and in `mentions`.
    /// Returns the message id.
    pub fn message(&self, channel: &str, guild: bool, mention: bool, text: &str) -> String {
        let id = {
            let mut s = self.lock();
            s.messages += 1;
            format!("11900000000000{:05}", s.messages)
        };
        self.message_with_id(&id, channel, guild, mention, text);
        id
    }

    /// [`message`](Self::message) with a given id: the same id twice is what a client sees
    /// when a dispatch is replayed after a resume.
    pub fn message_with_id(&self, id: &str, channel: &str, guild: bool, mention: bool, text: &str) {
        let content = if mention {
            format!("<@{BOT_USER}> {text}")
        } else {
            text.to_string()
        };
        let mentions = if mention {
            json!([{"id": BOT_USER, "username": "codemap", "discriminator": "0", "global_name": null, "avatar": null, "bot": true}])
        } else {
            json!([])
        };
        let mut d = json!({
            "id": id, "channel_id": channel, "type": 0, "content": content,
            "author": {"id": ASKER, "username": "ann", "discriminator": "0", "global_name": "Ann", "avatar": null},
            "timestamp": "2026-12-06T05:00:00.000000+00:00", "edited_timestamp": null,
            "tts": false, "mention_everyone": false, "mentions": mentions, "mention_roles": [],
            "attachments": [], "embeds": [], "pinned": false, "flags": 0, "components": [],
        });
        if guild {
            d["guild_id"] = json!(GUILD);
            d["member"] = json!({"roles": [], "joined_at": "2026-01-01T00:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0});
        }
        self.dispatch("MESSAGE_CREATE", d);
    }

    /// Sends a dispatch (op 0) with the next sequence number on the live connection.
    pub fn dispatch(&self, t: &str, d: Value) {
        let mut s = self.lock();
        s.seq += 1;
        let frame = json!({"op": 0, "s": s.seq, "t": t, "d": d});
        let live = s.live.as_ref().expect("no live gateway session");
        live.send(Command::Send(frame)).unwrap();
    }

    /// Op 7 RECONNECT on the live connection: the client should close it and RESUME.
    pub fn reconnect(&self) {
        let mut s = self.lock();
        let live = s.live.take().expect("no live gateway session");
        live.send(Command::Send(json!({"op": 7, "d": null})))
            .unwrap();
    }

    async fn connection(self, tcp: tokio::net::TcpStream) {
        let target = Arc::new(Mutex::new(String::new()));
        let t = target.clone();
        // tungstenite's handshake callback returns its own (large) error response type.
        #[allow(clippy::result_large_err)]
        let record_target =
            move |req: &tokio_tungstenite::tungstenite::handshake::server::Request, resp| {
                *t.lock().unwrap() = req.uri().to_string();
                Ok(resp)
            };
        let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(tcp, record_target).await else {
            return;
        };
        let target = target.lock().unwrap().clone();
        let n = {
            let mut s = self.lock();
            s.connections += 1;
            s.connections - 1
        };
        let hello = json!({"op": 10, "d": {"heartbeat_interval": self.options.heartbeat_ms}});
        if ws.send(Message::text(hello.to_string())).await.is_err() {
            return;
        }
        let (tx, mut rx) = mpsc::unbounded_channel();
        loop {
            tokio::select! {
                Some(Command::Send(v)) = rx.recv() => {
                    if ws.send(Message::text(v.to_string())).await.is_err() { return; }
                }
                msg = ws.next() => {
                    let text = match msg {
                        Some(Ok(Message::Text(t))) => t.to_string(),
                        Some(Ok(Message::Binary(_))) => { self.close(&mut ws, 4002, "binary frames are not decoded here").await; return; }
                        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                        Some(Ok(_)) => continue,
                    };
                    let Ok(payload) = serde_json::from_str::<Value>(&text) else {
                        self.close(&mut ws, 4002, "decode error").await;
                        return;
                    };
                    self.lock().frames.push(Frame { connection: n, target: target.clone(), payload: payload.clone() });
                    if let Some(reply) = self.answer(&payload, &tx) {
                        match reply {
                            Ok(v) => if ws.send(Message::text(v.to_string())).await.is_err() { return; },
                            Err((code, why)) => { self.close(&mut ws, code, why).await; return; }
                        }
                    }
                }
            }
        }
    }

    async fn close<S>(&self, ws: &mut tokio_tungstenite::WebSocketStream<S>, code: u16, why: &str)
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        self.lock().closes.push(code);
        let frame = CloseFrame {
            code: CloseCode::from(code),
            reason: why.to_string().into(),
        };
        let _ = ws.close(Some(frame)).await;
    }

    fn token_ok(&self, token: Option<&str>) -> bool {
        let t = token.unwrap_or_default();
        // Discord takes the raw token; some libraries send it with the "Bot " prefix.
        t == self.options.token || t.strip_prefix("Bot ") == Some(self.options.token.as_str())
    }

    /// The stand-in's answer to a client frame: a frame to send, a close, or nothing.
    fn answer(
        &self,
        p: &Value,
        tx: &mpsc::UnboundedSender<Command>,
    ) -> Option<Result<Value, (u16, &'static str)>> {
        match p["op"].as_u64()? {
            1 => Some(Ok(json!({"op": 11, "d": null}))),
            2 => {
                let d = &p["d"];
                if !self.token_ok(d["token"].as_str()) {
                    return Some(Err((4004, "Authentication failed.")));
                }
                let Some(intents) = d["intents"].as_u64() else {
                    return Some(Err((4013, "Invalid intent(s).")));
                };
                if intents & PRIVILEGED != 0 {
                    return Some(Err((4014, "Disallowed intent(s).")));
                }
                let mut s = self.lock();
                s.live = Some(tx.clone());
                s.seq += 1;
                Some(Ok(json!({"op": 0, "s": s.seq, "t": "READY", "d": {
                    "v": 10,
                    "user": {"id": BOT_USER, "username": "codemap", "discriminator": "0", "global_name": null, "avatar": null, "bot": true, "verified": true, "mfa_enabled": false, "flags": 0},
                    "guilds": [{"id": GUILD, "unavailable": true}],
                    "session_id": SESSION,
                    "resume_gateway_url": format!("{}/resume", self.gateway_url),
                    "application": {"id": APPLICATION, "flags": 0},
                    "private_channels": [], "relationships": [], "presences": [],
                    "geo_ordered_rtc_regions": [], "guild_join_requests": [],
                    "_trace": ["standin"]
                }})))
            }
            6 => {
                let d = &p["d"];
                if !self.token_ok(d["token"].as_str()) {
                    return Some(Err((4004, "Authentication failed.")));
                }
                if d["session_id"] != SESSION {
                    // op 9 INVALID_SESSION, not resumable.
                    return Some(Ok(json!({"op": 9, "d": false})));
                }
                let mut s = self.lock();
                s.live = Some(tx.clone());
                s.seq += 1;
                Some(Ok(
                    json!({"op": 0, "s": s.seq, "t": "RESUMED", "d": {"_trace": ["standin"]}}),
                ))
            }
            _ => None,
        }
    }
}

/// The Web API: records every request, answers the routes a bot uses.
async fn api(
    State(s): State<DiscordStandin>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, axum::Json<Value>) {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let path = uri.path().to_string();
    s.lock().rest.push(Rest {
        method: method.to_string(),
        path: path.clone(),
        authorization: auth.clone(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let Some(route) = path.strip_prefix("/api/v10") else {
        return not_found();
    };
    if route == "/gateway" {
        return (StatusCode::OK, axum::Json(json!({"url": s.gateway_url})));
    }
    let authorized = auth.as_deref().and_then(|a| a.strip_prefix("Bot ")) == Some(&s.options.token);
    if s.options.rest_checks_token && !authorized {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"message": "401: Unauthorized", "code": 0})),
        );
    }
    let ok = |v: Value| (StatusCode::OK, axum::Json(v));
    match (method.as_str(), route) {
        ("GET", "/gateway/bot") => ok(json!({
            "url": s.gateway_url, "shards": 1,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 14400000, "max_concurrency": 1}
        })),
        ("GET", "/users/@me") => ok(json!({
            "id": BOT_USER, "username": "codemap", "discriminator": "0", "global_name": null,
            "avatar": null, "bot": true, "verified": true, "mfa_enabled": false, "flags": 0
        })),
        ("GET", "/oauth2/applications/@me") => ok(json!({
            "id": APPLICATION, "name": "codemap", "icon": null, "description": "",
            "bot_public": true, "bot_require_code_grant": false, "verify_key": "00", "flags": 0,
            "team": null, "owner": {"id": ASKER, "username": "ann", "discriminator": "0", "avatar": null}
        })),
        ("POST", r) if r.starts_with("/channels/") && r.ends_with("/messages") => {
            let channel = r
                .trim_start_matches("/channels/")
                .trim_end_matches("/messages");
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            ok(json!({
                "id": "1199999999999999999", "channel_id": channel, "type": 19,
                "content": body["content"], "author": {"id": BOT_USER, "username": "codemap", "discriminator": "0", "avatar": null, "bot": true},
                "timestamp": "2026-12-06T05:00:01.000000+00:00", "edited_timestamp": null,
                "tts": false, "mention_everyone": false, "mentions": [], "mention_roles": [],
                "attachments": [], "embeds": body["embeds"], "pinned": false
            }))
        }
        ("PUT", r) if r.starts_with("/applications/") && r.ends_with("/commands") => {
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let commands: Vec<Value> = body
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .enumerate()
                .map(|(i, mut c)| {
                    c["id"] = json!(format!("12000000000000000{i:02}"));
                    c["application_id"] = json!(APPLICATION);
                    c["version"] = json!("1");
                    c
                })
                .collect();
            ok(Value::Array(commands))
        }
        _ => not_found(),
    }
}

fn not_found() -> (StatusCode, axum::Json<Value>) {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"message": "404: Not Found", "code": 0})),
    )
}
