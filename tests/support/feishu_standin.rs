//! A loopback Feishu for tests of the long connection. Over HTTP it answers the Open API calls a
//! bot makes — `POST /callback/ws/endpoint` (the WebSocket URL and the server's ClientConfig,
//! or a refusal when the app id or secret is wrong), the tenant_access_token call and the
//! message reply / create calls — recording what each was sent. Its WebSocket speaks the long
//! connection's protobuf frames (pbbp2 `Frame`): it sends `im.message.receive_v1` events (in
//! parts when asked), records the client's acknowledgements and pings, answers pings with pongs
//! carrying a ClientConfig, and can close the socket to force a reconnect.
//!
//! Its frames are its own reading of the official SDK, checked against lark-oapi's `ws.Client`
//! by tests/feishu_standin.rs before the bot is tested against it.
#![allow(dead_code)]

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::post;
use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};

/// The service id the stand-in's URLs carry (a real one's shape).
pub const SERVICE_ID: i32 = 33554678;
/// The tenant token the stand-in issues and expects on message calls.
pub const TENANT_TOKEN: &str = "t-g1044qeGEDXTB6NDJOGV4JQX7OJ5PJHGBSLCRJNG";
/// The endpoint code for a refused app (the auth API's "app secret invalid").
pub const BAD_SECRET: i64 = 10014;

#[derive(Clone, PartialEq, prost::Message)]
pub struct PbHeader {
    #[prost(string, required, tag = "1")]
    pub key: String,
    #[prost(string, required, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct PbFrame {
    #[prost(uint64, required, tag = "1")]
    pub seq_id: u64,
    #[prost(uint64, required, tag = "2")]
    pub log_id: u64,
    #[prost(int32, required, tag = "3")]
    pub service: i32,
    #[prost(int32, required, tag = "4")]
    pub method: i32,
    #[prost(message, repeated, tag = "5")]
    pub headers: Vec<PbHeader>,
    #[prost(string, optional, tag = "6")]
    pub payload_encoding: Option<String>,
    #[prost(string, optional, tag = "7")]
    pub payload_type: Option<String>,
    #[prost(bytes = "vec", optional, tag = "8")]
    pub payload: Option<Vec<u8>>,
    #[prost(string, optional, tag = "9")]
    pub log_id_new: Option<String>,
}

impl PbFrame {
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.key == key)
            .map(|h| h.value.as_str())
    }

    pub fn payload_json(&self) -> Value {
        serde_json::from_slice(self.payload.as_deref().unwrap_or_default()).unwrap_or(Value::Null)
    }
}

fn h(key: &str, value: &str) -> PbHeader {
    PbHeader {
        key: key.into(),
        value: value.into(),
    }
}

/// The app the stand-in knows and the pacing it hands out.
#[derive(Clone)]
pub struct Options {
    pub app_id: String,
    pub app_secret: String,
    /// `data.ClientConfig` of the endpoint answer.
    pub client_config: Value,
    /// The payload of every pong (`None`: empty pongs).
    pub pong_config: Option<Value>,
}

impl Options {
    /// Fast pacing for tests: pings every second, reconnects within about a second.
    pub fn fast(app_id: &str, app_secret: &str) -> Options {
        let cfg = json!({"ReconnectCount": -1, "ReconnectInterval": 1, "ReconnectNonce": 1, "PingInterval": 1});
        Options {
            app_id: app_id.into(),
            app_secret: app_secret.into(),
            client_config: cfg.clone(),
            pong_config: Some(cfg),
        }
    }
}

/// One call to a message API.
#[derive(Debug, Clone)]
pub struct Sent {
    pub path: String,
    pub query: Option<String>,
    pub authorization: Option<String>,
    pub body: Value,
}

/// Everything the stand-in was sent.
#[derive(Debug, Clone, Default)]
pub struct Log {
    /// Bodies of `/callback/ws/endpoint` calls.
    pub endpoint_calls: Vec<Value>,
    pub token_calls: Vec<Value>,
    pub messages: Vec<Sent>,
    /// Request URIs of accepted WebSocket upgrades.
    pub connections: Vec<String>,
    pub pings: Vec<PbFrame>,
    /// Data frames the client sent back.
    pub acks: Vec<PbFrame>,
    /// Frames that were neither.
    pub other: Vec<PbFrame>,
}

enum Cmd {
    Send(Vec<u8>),
    Close,
}

struct Shared {
    opts: Options,
    ws_base: String,
    log: Mutex<Log>,
    link: Mutex<Option<mpsc::UnboundedSender<Cmd>>>,
    seq: AtomicU64,
}

pub struct Standin {
    /// The Open API base (`http://127.0.0.1:PORT`), what `api_base` / lark-oapi's `domain` take.
    pub base: String,
    shared: Arc<Shared>,
}

impl Standin {
    pub async fn start(opts: Options) -> Standin {
        let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", http.local_addr().unwrap());
        let ws = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let shared = Arc::new(Shared {
            opts,
            ws_base: format!("ws://{}", ws.local_addr().unwrap()),
            log: Mutex::default(),
            link: Mutex::default(),
            seq: AtomicU64::new(1),
        });
        let app = axum::Router::new()
            .route("/callback/ws/endpoint", post(endpoint))
            .route(
                "/open-apis/auth/v3/tenant_access_token/internal",
                post(tenant_token),
            )
            .route("/open-apis/im/v1/messages/{id}/reply", post(reply))
            .route("/open-apis/im/v1/messages", post(create))
            .with_state(shared.clone());
        tokio::spawn(async move { axum::serve(http, app).await.unwrap() });
        tokio::spawn(accept(ws, shared.clone()));
        Standin { base, shared }
    }

    pub fn log(&self) -> Log {
        self.shared.log.lock().unwrap().clone()
    }

    /// Waits (up to 60 s) until `ready` holds for the log; panics naming `what` otherwise.
    pub async fn wait(&self, what: &str, ready: impl Fn(&Log) -> bool) -> Log {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            let log = self.log();
            if ready(&log) {
                return log;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the stand-in waited in vain for {what}: {log:#?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends `event` down the current socket in `parts` data frames; returns the frames'
    /// message id (what the acknowledgement carries).
    pub fn send_event(&self, event: &Value, parts: usize) -> String {
        let seq = self.shared.seq.fetch_add(1, Ordering::SeqCst);
        let message_id = format!("msg-{seq}-{}", std::process::id());
        let bytes = event.to_string().into_bytes();
        let size = bytes.len().div_ceil(parts.max(1));
        let chunks: Vec<&[u8]> = bytes.chunks(size.max(1)).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            let frame = PbFrame {
                seq_id: seq,
                log_id: seq,
                service: SERVICE_ID,
                method: 1,
                headers: vec![
                    h("type", "event"),
                    h("message_id", &message_id),
                    h("sum", &chunks.len().to_string()),
                    h("seq", &i.to_string()),
                    h("trace_id", &format!("trace-{seq}")),
                ],
                payload: Some(chunk.to_vec()),
                ..PbFrame::default()
            };
            self.command(Cmd::Send(frame.encode_to_vec()));
        }
        message_id
    }

    /// Closes the current socket from the server side.
    pub fn close(&self) {
        self.command(Cmd::Close);
    }

    fn command(&self, cmd: Cmd) {
        let link = self.shared.link.lock().unwrap();
        link.as_ref()
            .expect("a client is connected")
            .send(cmd)
            .unwrap_or_else(|_| panic!("the socket is gone"));
    }

    /// The acknowledgement of the event sent as `message_id`, once there.
    pub async fn ack_of(&self, message_id: &str) -> PbFrame {
        let log = self
            .wait(&format!("the ack of {message_id}"), |l| {
                l.acks
                    .iter()
                    .any(|a| a.header("message_id") == Some(message_id))
            })
            .await;
        log.acks
            .into_iter()
            .find(|a| a.header("message_id") == Some(message_id))
            .unwrap()
    }
}

/// An `im.message.receive_v1` event (schema 2.0) as Feishu delivers it, from user `ou_asker` in
/// group chat `chat_id`, mentioning the bot as `@_user_1`.
pub fn message_event(event_id: &str, message_id: &str, chat_id: &str, text: &str) -> Value {
    json!({
        "schema": "2.0",
        "header": {"event_id": event_id, "event_type": "im.message.receive_v1", "create_time": "1700000000000",
                   "token": "", "app_id": "cli_standin", "tenant_key": "2ca1d211f64f6438"},
        "event": {
            "sender": {"sender_id": {"union_id": "on_8ed6aa67", "user_id": "e33ggbyz", "open_id": "ou_asker"},
                       "sender_type": "user", "tenant_key": "2ca1d211f64f6438"},
            "message": {"message_id": message_id, "root_id": "", "parent_id": "",
                        "create_time": "1700000000000", "update_time": "1700000000000",
                        "chat_id": chat_id, "chat_type": "group", "message_type": "text",
                        "content": json!({"text": format!("@_user_1 {text}")}).to_string(),
                        "mentions": [{"key": "@_user_1", "id": {"union_id": "on_bot", "user_id": null, "open_id": "ou_bot"},
                                      "name": "codemap", "tenant_key": "2ca1d211f64f6438"}]}
        }
    })
}

async fn endpoint(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Json<Value> {
    s.log.lock().unwrap().endpoint_calls.push(body.clone());
    if body["AppID"] != s.opts.app_id.as_str() || body["AppSecret"] != s.opts.app_secret.as_str() {
        return Json(json!({"code": BAD_SECRET, "msg": "app secret invalid", "data": null}));
    }
    let n = s.seq.fetch_add(1, Ordering::SeqCst);
    let url = format!(
        "{}/ws/v2?fpid=493&aid=552564&device_id=dev{n}&access_key=ak{n}&service_id={SERVICE_ID}&ticket=tk{n}",
        s.ws_base
    );
    Json(
        json!({"code": 0, "msg": "ok", "data": {"URL": url, "ClientConfig": s.opts.client_config}}),
    )
}

async fn tenant_token(State(s): State<Arc<Shared>>, Json(body): Json<Value>) -> Json<Value> {
    s.log.lock().unwrap().token_calls.push(body.clone());
    if body["app_id"] != s.opts.app_id.as_str() || body["app_secret"] != s.opts.app_secret.as_str()
    {
        return Json(json!({"code": BAD_SECRET, "msg": "app secret invalid"}));
    }
    Json(json!({"code": 0, "msg": "ok", "tenant_access_token": TENANT_TOKEN, "expire": 7200}))
}

fn record(
    s: &Shared,
    path: String,
    query: Option<String>,
    headers: &HeaderMap,
    body: Value,
) -> Json<Value> {
    let authorization = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let ok = authorization.as_deref() == Some(&format!("Bearer {TENANT_TOKEN}"));
    let n = {
        let mut log = s.log.lock().unwrap();
        log.messages.push(Sent {
            path,
            query,
            authorization,
            body,
        });
        log.messages.len()
    };
    if !ok {
        return Json(json!({"code": 99991663, "msg": "Invalid access token for authorization"}));
    }
    Json(
        json!({"code": 0, "msg": "success", "data": {"message_id": format!("om_reply_{n}"), "msg_type": "post"}}),
    )
}

async fn reply(
    State(s): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    record(
        &s,
        format!("/open-apis/im/v1/messages/{id}/reply"),
        None,
        &headers,
        body,
    )
}

async fn create(
    State(s): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    record(
        &s,
        "/open-apis/im/v1/messages".into(),
        query,
        &headers,
        body,
    )
}

/// Accepts upgrades whose URL carries a ticket the endpoint issued.
async fn accept(listener: tokio::net::TcpListener, s: Arc<Shared>) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            return;
        };
        let s = s.clone();
        tokio::spawn(async move {
            let mut uri = String::new();
            // tungstenite's handshake callback returns its own (large) error response type.
            #[allow(clippy::result_large_err)]
            let check = |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
                uri = req.uri().to_string();
                if uri.contains("ticket=tk") && uri.contains(&format!("service_id={SERVICE_ID}")) {
                    Ok(resp)
                } else {
                    let mut e = ErrorResponse::new(Some("no ticket".into()));
                    *e.status_mut() = axum::http::StatusCode::FORBIDDEN;
                    e.headers_mut()
                        .insert("handshake-status", "403".parse().unwrap());
                    e.headers_mut()
                        .insert("handshake-msg", "no ticket".parse().unwrap());
                    Err(e)
                }
            };
            let Ok(ws) = tokio_tungstenite::accept_hdr_async(tcp, check).await else {
                return;
            };
            s.log.lock().unwrap().connections.push(uri);
            serve(ws, s).await;
        });
    }
}

/// One socket: commands from the test go out; pings are answered, acks recorded.
async fn serve(ws: tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, s: Arc<Shared>) {
    let (mut tx, mut rx) = ws.split();
    let (cmd_tx, mut cmd_rx) = mpsc::unbounded_channel();
    *s.link.lock().unwrap() = Some(cmd_tx);
    loop {
        tokio::select! {
            cmd = cmd_rx.recv() => match cmd {
                Some(Cmd::Send(b)) => {
                    if tx.send(Message::binary(b)).await.is_err() {
                        return;
                    }
                }
                Some(Cmd::Close) | None => {
                    let _ = tx.close().await;
                    return;
                }
            },
            msg = rx.next() => match msg {
                Some(Ok(Message::Binary(b))) => {
                    let Some(pong) = receive(&s, &b) else { continue };
                    if tx.send(Message::binary(pong.encode_to_vec())).await.is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                None | Some(Err(_)) => return,
            },
        }
    }
}

/// Records a frame from the client; a ping gets a pong back.
fn receive(s: &Shared, bytes: &[u8]) -> Option<PbFrame> {
    let frame = PbFrame::decode(bytes).expect("the client sends pbbp2 frames");
    let mut log = s.log.lock().unwrap();
    match (frame.method, frame.header("type")) {
        (0, Some("ping")) => {
            let pong = PbFrame {
                service: frame.service,
                method: 0,
                headers: vec![h("type", "pong")],
                payload: s
                    .opts
                    .pong_config
                    .as_ref()
                    .map(|c| c.to_string().into_bytes()),
                ..PbFrame::default()
            };
            log.pings.push(frame);
            Some(pong)
        }
        (1, _) => {
            log.acks.push(frame);
            None
        }
        _ => {
            log.other.push(frame);
            None
        }
    }
}
