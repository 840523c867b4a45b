//! A loopback stand-in for Slack's side of Socket Mode, speaking the documented wire format:
//! the Web API methods `apps.connections.open` (app-level token → a single-use WebSocket URL),
//! `auth.test` and `chat.postMessage` (bot token; what was posted is recorded), and the
//! WebSocket that greets with `hello`, delivers envelopes, records their acks by
//! `envelope_id`, and asks for a move with `disconnect`. tests/slack_standin.rs validates it
//! against slack_sdk's SocketModeClient before other tests rely on it.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

pub const APP_TOKEN: &str = "xapp-1-A1-standin";
pub const BOT_TOKEN: &str = "xoxb-standin";
pub const BOT_USER: &str = "UBOT";
pub const TEAM: &str = "T1";

#[derive(Default)]
struct State {
    /// The Authorization header of every `apps.connections.open`, accepted or not.
    opens: Vec<String>,
    posts: Vec<Value>,
    /// Every text frame a client sent that names an envelope.
    acks: Vec<Value>,
    /// Open sockets by ticket (the order they were opened in), with a way to write to each.
    sockets: BTreeMap<u64, mpsc::UnboundedSender<Message>>,
    tickets: u64,
}

pub struct SlackStandin {
    /// The Web API base, `http://127.0.0.1:PORT/api` (what `api_base` and `base_url` take).
    pub api: String,
    state: Arc<Mutex<State>>,
    rt: tokio::runtime::Runtime,
}

fn bearer(h: &axum::http::HeaderMap) -> String {
    h.get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_string()
}

/// Slack's answer to a request whose token is missing or not the expected one.
fn token_error(got: &str, want: &str) -> Option<Value> {
    match got {
        "" => Some(json!({"ok": false, "error": "not_authed"})),
        g if g != want => Some(json!({"ok": false, "error": "invalid_auth"})),
        _ => None,
    }
}

/// A body either as JSON (slack-morphism, the bot's sender) or form-encoded (slack_sdk).
fn body_value(headers: &axum::http::HeaderMap, body: &[u8]) -> Value {
    let form = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"));
    if form {
        let pairs: serde_json::Map<String, Value> = url_decode(body);
        return Value::Object(pairs);
    }
    serde_json::from_slice(body).unwrap_or(Value::Null)
}

fn url_decode(body: &[u8]) -> serde_json::Map<String, Value> {
    let text = String::from_utf8_lossy(body).replace('+', " ");
    text.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (unescape(k), Value::String(unescape(v))))
        .collect()
}

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl SlackStandin {
    pub fn start() -> SlackStandin {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let state: Arc<Mutex<State>> = Arc::default();
        let (api, ws) = rt.block_on(async {
            let api = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let ws = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            (api, ws)
        });
        let api_base = format!("http://{}/api", api.local_addr().unwrap());
        let ws_base = format!("ws://{}/link", ws.local_addr().unwrap());
        rt.spawn(serve_api(api, state.clone(), ws_base));
        rt.spawn(serve_sockets(ws, state.clone()));
        SlackStandin {
            api: api_base,
            state,
            rt,
        }
    }

    /// `apps.connections.open` calls so far (refused ones too).
    pub fn opens(&self) -> usize {
        self.state.lock().unwrap().opens.len()
    }

    pub fn open_tokens(&self) -> Vec<String> {
        self.state.lock().unwrap().opens.clone()
    }

    /// Sockets open now.
    pub fn live(&self) -> usize {
        self.state.lock().unwrap().sockets.len()
    }

    pub fn posts(&self) -> Vec<Value> {
        self.state.lock().unwrap().posts.clone()
    }

    pub fn acks(&self) -> Vec<Value> {
        self.state.lock().unwrap().acks.clone()
    }

    pub fn acked(&self, envelope_id: &str) -> usize {
        self.acks()
            .iter()
            .filter(|a| a["envelope_id"] == envelope_id)
            .count()
    }

    /// Sends `frame` on the newest open socket; false when none is open.
    pub fn send(&self, frame: &Value) -> bool {
        let s = self.state.lock().unwrap();
        s.sockets
            .values()
            .next_back()
            .is_some_and(|tx| tx.send(Message::text(frame.to_string())).is_ok())
    }

    /// An `events_api` envelope around `event` (an `app_mention` or a DM `message`).
    pub fn send_event(&self, envelope_id: &str, event_id: &str, event: Value) -> bool {
        self.send(&events_api(envelope_id, event_id, event))
    }

    /// `disconnect` with `reason` on every open socket, each closed 2 s later as Slack does if
    /// the client has not moved by then.
    pub fn disconnect_all(&self, reason: &str) {
        let frame = json!({"type": "disconnect", "reason": reason,
                           "debug_info": {"host": "applink-standin"}});
        let socks: Vec<_> = self
            .state
            .lock()
            .unwrap()
            .sockets
            .values()
            .cloned()
            .collect();
        for tx in socks {
            let _ = tx.send(Message::text(frame.to_string()));
            let later = tx.clone();
            self.rt.spawn(async move {
                tokio::time::sleep(Duration::from_secs(2)).await;
                let _ = later.send(Message::Close(None));
            });
        }
    }

    /// Waits up to `limit` for `cond`.
    pub fn wait(&self, limit: Duration, cond: impl Fn(&SlackStandin) -> bool) -> bool {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            if cond(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        cond(self)
    }
}

/// A Socket Mode `events_api` envelope as Slack sends it.
pub fn events_api(envelope_id: &str, event_id: &str, event: Value) -> Value {
    json!({
        "envelope_id": envelope_id,
        "payload": {
            "token": "verification-token-unused-in-socket-mode", "team_id": TEAM, "api_app_id": "A1",
            "event": event, "type": "event_callback", "event_id": event_id, "event_time": 1700000000,
            "authorizations": [{"enterprise_id": null, "team_id": TEAM, "user_id": BOT_USER,
                                "is_bot": true, "is_enterprise_install": false}],
            "is_ext_shared_channel": false,
            "event_context": "4-eyJldCI6ImFwcF9tZW50aW9uIn0"
        },
        "type": "events_api",
        "accepts_response_payload": false,
        "retry_attempt": 0,
        "retry_reason": ""
    })
}

/// An `app_mention` of the bot in `channel` asking `text`.
pub fn app_mention(channel: &str, ts: &str, text: &str) -> Value {
    json!({"type": "app_mention", "user": "U2", "text": format!("<@{BOT_USER}> {text}"),
           "ts": ts, "channel": channel, "event_ts": ts, "team": TEAM})
}

/// A direct message to the bot.
pub fn direct_message(channel: &str, ts: &str, text: &str) -> Value {
    json!({"type": "message", "channel_type": "im", "user": "U2", "text": text,
           "ts": ts, "channel": channel, "event_ts": ts, "team": TEAM})
}

async fn serve_api(listener: tokio::net::TcpListener, state: Arc<Mutex<State>>, ws_base: String) {
    use axum::extract::Path;
    use axum::http::HeaderMap;
    let app = axum::Router::new().route(
        "/api/{method}",
        axum::routing::post(
            move |Path(method): Path<String>, headers: HeaderMap, body: axum::body::Bytes| {
                let state = state.clone();
                let ws_base = ws_base.clone();
                async move {
                    let token = bearer(&headers);
                    let answer = web_api(&method, &token, &headers, &body, &state, &ws_base);
                    axum::Json(answer)
                }
            },
        ),
    );
    axum::serve(listener, app).await.unwrap();
}

fn web_api(
    method: &str,
    token: &str,
    headers: &axum::http::HeaderMap,
    body: &[u8],
    state: &Mutex<State>,
    ws_base: &str,
) -> Value {
    match method {
        "apps.connections.open" => {
            let mut s = state.lock().unwrap();
            s.opens.push(token.to_string());
            if let Some(e) = token_error(token, APP_TOKEN) {
                return e;
            }
            s.tickets += 1;
            json!({"ok": true, "url": format!("{ws_base}?ticket={}&app_id=A1", s.tickets)})
        }
        "auth.test" => token_error(token, BOT_TOKEN).unwrap_or_else(|| {
            json!({"ok": true, "url": "https://shop.slack.com/", "team": "Shop", "user": "codemap",
                   "team_id": TEAM, "user_id": BOT_USER, "bot_id": "B1", "is_enterprise_install": false})
        }),
        "chat.postMessage" => {
            if let Some(e) = token_error(token, BOT_TOKEN) {
                return e;
            }
            let msg = body_value(headers, body);
            state.lock().unwrap().posts.push(msg.clone());
            json!({"ok": true, "channel": msg["channel"], "ts": "1700000001.000200",
                   "message": {"type": "message", "text": msg["text"], "bot_id": "B1"}})
        }
        _ => json!({"ok": false, "error": "unknown_method"}),
    }
}

async fn serve_sockets(listener: tokio::net::TcpListener, state: Arc<Mutex<State>>) {
    loop {
        let Ok((tcp, _)) = listener.accept().await else {
            return;
        };
        tokio::spawn(one_socket(tcp, state.clone()));
    }
}

/// One client socket: `hello`, then whatever the test sends, recording the client's acks.
async fn one_socket(tcp: tokio::net::TcpStream, state: Arc<Mutex<State>>) {
    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
        return;
    };
    let (mut write, mut read) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Message>();
    let ticket = {
        let mut s = state.lock().unwrap();
        s.tickets += 1;
        let t = s.tickets;
        s.sockets.insert(t, tx.clone());
        t
    };
    let hello = json!({"type": "hello", "num_connections": 1,
                       "debug_info": {"host": "applink-standin", "build_number": 1,
                                      "approximate_connection_time": 18060},
                       "connection_info": {"app_id": "A1"}});
    let _ = tx.send(Message::text(hello.to_string()));
    loop {
        tokio::select! {
            out = rx.recv() => {
                let Some(m) = out else { break };
                let close = matches!(m, Message::Close(_));
                if write.send(m).await.is_err() || close {
                    break;
                }
            }
            inc = read.next() => match inc {
                Some(Ok(Message::Text(t))) => {
                    if let Ok(v) = serde_json::from_str::<Value>(&t)
                        && v.get("envelope_id").is_some()
                    {
                        state.lock().unwrap().acks.push(v);
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            }
        }
    }
    state.lock().unwrap().sockets.remove(&ticket);
}
