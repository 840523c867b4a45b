//! Feishu's long connection, for apps without a public URL: `POST {api_base}/callback/ws/endpoint`
//! with the app id and secret answers a WebSocket URL and the server's [`ClientConfig`]; the
//! socket then carries protobuf [`Frame`]s. Events become questions through the same parser as
//! the HTTP callback and are acknowledged right after [`Inbox::submit`]; the client pings every
//! `PingInterval`; a lost socket is dialled again (endpoint first) after a random part of
//! `ReconnectNonce`, then every `ReconnectInterval`. An endpoint answer that refuses the app's
//! credentials ends the connection with an error: retrying cannot help.

use super::event::{self, Inbound};
use super::frame::{ClientConfig, Frame, Incoming, Parts};
use crate::connect::LinkState;
use crate::inbox::Inbox;
use futures_util::{SinkExt, StreamExt};
use prost::Message as _;
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, Message};

/// Endpoint codes the SDKs retry; any other non-zero code refuses the app.
const SYSTEM_BUSY: i64 = 1;
const INTERNAL_ERROR: i64 = 1000040343;
/// Handshake refusals the SDKs do not retry.
const FORBIDDEN: i64 = 403;
const AUTH_FAILED: i64 = 514;
const EXCEED_CONN_LIMIT: &str = "1000040350";

/// Where and as whom to connect. No `Debug`: it holds the secret.
pub struct Settings {
    /// The Open API base (`https://open.feishu.cn`), where the endpoint call goes.
    pub api_base: String,
    pub app_id: String,
    pub app_secret: String,
}

/// Why the long connection gave up.
#[derive(Debug, thiserror::Error)]
pub enum WsError {
    #[error(
        "Feishu refused the app's credentials for the long connection (code {code}: {msg}); check the app secret (and app id) in the variables platforms.feishu.app_secret_env and app_id_env name"
    )]
    Credentials { code: i64, msg: String },
    #[error("Feishu refused the WebSocket (handshake status {code}: {msg})")]
    Refused { code: i64, msg: String },
    #[error("Feishu was unreachable after {attempts} attempts (the server's ReconnectCount)")]
    GaveUp { attempts: i64 },
    #[error("building the HTTP client: {0}")]
    Client(String),
}

impl WsError {
    /// The configuration key to look at.
    pub fn key(&self) -> &'static str {
        match self {
            WsError::Credentials { .. } => "platforms.feishu.app_secret_env",
            _ => "platforms.feishu",
        }
    }
}

/// A failed attempt: worth another try, or not.
#[derive(Debug)]
enum Failure {
    Retry(String),
    Fatal(WsError),
}

/// The endpoint call's useful answer.
#[derive(Debug, PartialEq)]
struct Endpoint {
    url: String,
    config: Option<ClientConfig>,
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Keeps the long connection up until `stop` resolves (then `Ok`), reporting its state.
pub async fn run(
    settings: Settings,
    inbox: Inbox,
    report: impl Fn(LinkState) + Send,
    stop: impl Future<Output = ()> + Send,
) -> Result<(), WsError> {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .map_err(|e| WsError::Client(e.to_string()))?;
    tokio::pin!(stop);
    let mut cfg = ClientConfig::default();
    let (mut first_retry, mut failures) = (true, 0i64);
    loop {
        match open(&http, &settings, &mut cfg).await {
            Ok((ws, service)) => {
                tracing::info!(service, "Feishu long connection up");
                report(LinkState::Connected);
                (first_retry, failures) = (true, 0);
                match session(ws, service, &inbox, &mut cfg, stop.as_mut()).await {
                    End::Stopped => return Ok(()),
                    End::Lost(reason) => {
                        tracing::warn!(%reason, "Feishu long connection lost; reconnecting");
                        report(LinkState::Reconnecting { reason });
                    }
                }
            }
            Err(Failure::Fatal(e)) => return Err(e),
            Err(Failure::Retry(reason)) => {
                failures += 1;
                tracing::warn!(%reason, failures, "Feishu long connection failed");
                if cfg.reconnect_count >= 0 && failures > cfg.reconnect_count {
                    return Err(WsError::GaveUp { attempts: failures });
                }
                report(LinkState::Reconnecting { reason });
            }
        }
        let wait = retry_delay(&cfg, first_retry, unit_random());
        first_retry = false;
        tokio::select! {
            _ = &mut stop => return Ok(()),
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Asks for a URL (taking the server's settings), then dials it.
async fn open(
    http: &reqwest::Client,
    s: &Settings,
    cfg: &mut ClientConfig,
) -> Result<(Socket, i32), Failure> {
    let url = format!("{}/callback/ws/endpoint", s.api_base.trim_end_matches('/'));
    let resp = http
        .post(&url)
        .header("locale", "zh")
        .json(&json!({"AppID": s.app_id, "AppSecret": s.app_secret}))
        .send()
        .await
        .map_err(|e| Failure::Retry(format!("POST {url}: {e}")))?;
    let status = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    let endpoint = endpoint_verdict(status, &body)?;
    if let Some(c) = endpoint.config {
        *cfg = c;
    }
    dial(&endpoint.url).await
}

/// The SDKs' reading of the endpoint answer: code 0 → URL; busy or internal → retry; any other
/// code → the app is refused.
fn endpoint_verdict(status: u16, body: &Value) -> Result<Endpoint, Failure> {
    let msg = body
        .get("msg")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if status != 200 {
        return Err(Failure::Retry(format!(
            "the endpoint answered HTTP {status} {msg}"
        )));
    }
    match body.get("code").and_then(Value::as_i64) {
        Some(0) => {}
        Some(c @ (SYSTEM_BUSY | INTERNAL_ERROR)) => {
            return Err(Failure::Retry(format!("the endpoint is busy: {c} {msg}")));
        }
        Some(code) => return Err(Failure::Fatal(WsError::Credentials { code, msg })),
        None => {
            return Err(Failure::Retry(
                "the endpoint answered without a code".into(),
            ));
        }
    }
    let url = body
        .pointer("/data/URL")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| Failure::Retry("the endpoint answered no URL".into()))?;
    let config = body
        .pointer("/data/ClientConfig")
        .and_then(|c| serde_json::from_value(c.clone()).ok());
    Ok(Endpoint {
        url: url.to_string(),
        config,
    })
}

/// Opens the WebSocket; its URL names the `service_id` pings are addressed to.
async fn dial(url: &str) -> Result<(Socket, i32), Failure> {
    let parsed = url::Url::parse(url).map_err(|e| Failure::Retry(format!("endpoint URL: {e}")))?;
    // The query holds the connection's ticket: log the host only.
    let host = parsed.host_str().unwrap_or_default().to_string();
    let service = parsed
        .query_pairs()
        .find(|(k, _)| k == "service_id")
        .and_then(|(_, v)| v.parse::<i32>().ok())
        .ok_or_else(|| Failure::Retry("the endpoint URL has no service_id".into()))?;
    match tokio_tungstenite::connect_async(url).await {
        Ok((ws, _)) => Ok((ws, service)),
        Err(tungstenite::Error::Http(resp)) => {
            let h = |k: &str| {
                resp.headers()
                    .get(k)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            Err(handshake_verdict(resp.status().as_u16(), h))
        }
        Err(e) => Err(Failure::Retry(format!("WebSocket to {host}: {e}"))),
    }
}

/// A refused upgrade: forbidden, or too many connections for the app, is final.
fn handshake_verdict(status: u16, header: impl Fn(&str) -> Option<String>) -> Failure {
    let code = header("handshake-status").and_then(|c| c.parse::<i64>().ok());
    let msg = header("handshake-msg").unwrap_or_default();
    match code {
        Some(c @ FORBIDDEN) => Failure::Fatal(WsError::Refused { code: c, msg }),
        Some(c @ AUTH_FAILED)
            if header("handshake-autherrcode").as_deref() == Some(EXCEED_CONN_LIMIT) =>
        {
            Failure::Fatal(WsError::Refused { code: c, msg })
        }
        _ => Failure::Retry(format!(
            "WebSocket handshake refused: HTTP {status}, status {code:?} {msg}"
        )),
    }
}

/// How long to wait before the next attempt: a random part of the nonce right after a loss
/// (so a server restart is not met by every client at once), then the interval, at least 1 s.
fn retry_delay(cfg: &ClientConfig, first: bool, unit: f64) -> Duration {
    if first {
        Duration::from_secs_f64(cfg.reconnect_nonce as f64 * unit.clamp(0.0, 1.0))
    } else {
        Duration::from_secs(cfg.reconnect_interval.max(1))
    }
}

/// A number in [0, 1) that differs between calls and processes.
fn unit_random() -> f64 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let h = std::collections::hash_map::RandomState::new().hash_one(nanos);
    (h >> 11) as f64 / (1u64 << 53) as f64
}

enum End {
    Stopped,
    Lost(String),
}

/// One socket's life: pings on schedule, frames answered, until it closes or the bot stops.
async fn session(
    ws: Socket,
    service: i32,
    inbox: &Inbox,
    cfg: &mut ClientConfig,
    mut stop: Pin<&mut impl Future<Output = ()>>,
) -> End {
    let (mut tx, mut rx) = ws.split();
    let mut ping = tokio::time::interval(cfg.ping_every());
    let mut parts = Parts::default();
    let mut heard = Instant::now();
    loop {
        let out = tokio::select! {
            _ = &mut stop => {
                let _ = tx.send(Message::Close(None)).await;
                return End::Stopped;
            }
            _ = ping.tick() => {
                // The server pongs every ping: three periods of silence is a dead socket.
                if heard.elapsed() > cfg.ping_every() * 3 {
                    return End::Lost("no frame from the server for three ping intervals".into());
                }
                Some(Frame::ping(service))
            }
            msg = rx.next() => {
                heard = Instant::now();
                match msg {
                    None => return End::Lost("the server closed the connection".into()),
                    Some(Err(e)) => return End::Lost(e.to_string()),
                    Some(Ok(Message::Close(f))) => {
                        let why = f.map(|f| f.reason.as_str().to_string()).unwrap_or_default();
                        return End::Lost(format!("the server closed the connection {why}").trim_end().into());
                    }
                    Some(Ok(Message::Binary(b))) => {
                        match on_frame(&b, &mut parts, Instant::now(), |p| submit(inbox, p)) {
                            Step::Ack(f) => Some(f),
                            Step::Configure(c) => {
                                tracing::debug!(?c, "Feishu sent new connection settings");
                                if c.ping_every() != cfg.ping_every() {
                                    ping = tokio::time::interval_at(
                                        tokio::time::Instant::now() + c.ping_every(),
                                        c.ping_every(),
                                    );
                                }
                                *cfg = c;
                                None
                            }
                            Step::Nothing => None,
                        }
                    }
                    Some(Ok(_)) => None,
                }
            }
        };
        if let Some(f) = out
            && let Err(e) = tx.send(Message::binary(f.encode_to_vec())).await
        {
            return End::Lost(format!("writing a frame: {e}"));
        }
    }
}

/// What a received frame asks of the client.
#[derive(Debug, PartialEq)]
enum Step {
    Ack(Frame),
    Configure(ClientConfig),
    Nothing,
}

/// Decodes and handles one frame; `submit` takes a whole event payload and answers the code the
/// acknowledgement carries. Parts of an event wait for their siblings unacknowledged (as in the
/// SDKs); server pings and card callbacks need no answer.
fn on_frame(
    bytes: &[u8],
    parts: &mut Parts,
    now: Instant,
    submit: impl FnOnce(&[u8]) -> u16,
) -> Step {
    let frame = match Frame::decode(bytes) {
        Ok(f) => f,
        Err(e) => {
            tracing::warn!(error = %e, "Feishu frame not understood");
            return Step::Nothing;
        }
    };
    match frame.classify() {
        Incoming::Pong(Some(c)) => Step::Configure(c),
        Incoming::Ping | Incoming::Pong(None) => Step::Nothing,
        Incoming::Event(part) => match parts.add(part, now) {
            Some(payload) => {
                let code = submit(&payload);
                Step::Ack(frame.ack(code, now.elapsed().as_millis()))
            }
            None => Step::Nothing,
        },
        Incoming::Other(why) => {
            tracing::debug!(why, "Feishu frame ignored");
            Step::Nothing
        }
    }
}

/// One whole event: a question goes to the inbox (200, or 503 when it is full, so Feishu sends
/// it again); anything else is acknowledged; an event that cannot be read gets 500, as the
/// SDKs answer a failed handler.
fn submit(inbox: &Inbox, payload: &[u8]) -> u16 {
    match event::parse_long_connection(payload, None) {
        Ok(Inbound::Question(q)) => crate::platform::ack_status(inbox, q).as_u16(),
        Ok(Inbound::Ignored(why)) => {
            tracing::debug!(why, "Feishu event ignored");
            200
        }
        Ok(Inbound::Challenge(_)) => 200,
        Err(e) => {
            tracing::warn!(error = %e, "Feishu event not understood");
            500
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::event::tests::message_event;
    use super::super::frame::{Header, METHOD_DATA};
    use super::*;
    use crate::model::Question;
    use axum::body::Body;
    use tower::ServiceExt;

    fn event_frame(payload: &[u8], message_id: &str, sum: usize, seq: usize) -> Vec<u8> {
        let h = |k: &str, v: String| Header {
            key: k.into(),
            value: v,
        };
        Frame {
            seq_id: 1,
            log_id: 2,
            service: 33554678,
            method: METHOD_DATA,
            headers: vec![
                h("type", "event".into()),
                h("message_id", message_id.into()),
                h("sum", sum.to_string()),
                h("seq", seq.to_string()),
                h("trace_id", "t1".into()),
            ],
            payload: Some(payload.to_vec()),
            ..Frame::default()
        }
        .encode_to_vec()
    }

    fn inbox() -> (Inbox, tokio::sync::mpsc::Receiver<Question>) {
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        (Inbox::new(tx), rx)
    }

    /// The same event through the HTTP callback router and through the long connection.
    #[tokio::test]
    async fn both_paths_make_the_same_question() {
        let body = serde_json::to_vec(&message_event(
            "@_user_1 谁调用了 deductStock? cc @_user_2",
            "group",
        ))
        .unwrap();

        // The callback takes events encrypted and signed only.
        let (http_inbox, mut http_rx) = inbox();
        let key = "encrypt-key";
        let router = super::super::router(
            super::super::FeishuConfig::new("vtoken", key, None).unwrap(),
            http_inbox,
        );
        let sealed = serde_json::to_vec(
            &serde_json::json!({"encrypt": super::super::crypto::encrypt(key, [7; 16], &body)}),
        )
        .unwrap();
        let ts = crate::platform::unix_now().to_string();
        let req = axum::http::Request::post("/feishu/events")
            .header("x-lark-request-timestamp", &ts)
            .header("x-lark-request-nonce", "n1")
            .header(
                "x-lark-signature",
                super::super::crypto::signature(&ts, "n1", key, &sealed),
            )
            .body(Body::from(sealed))
            .unwrap();
        assert_eq!(router.oneshot(req).await.unwrap().status(), 200);
        let over_http = http_rx.try_recv().unwrap();

        let (ws_inbox, mut ws_rx) = inbox();
        let step = on_frame(
            &event_frame(&body, "m1", 1, 0),
            &mut Parts::default(),
            Instant::now(),
            |p| submit(&ws_inbox, p),
        );
        let Step::Ack(ack) = step else {
            panic!("{step:?}")
        };
        assert_eq!(ack.payload.as_deref(), Some(&br#"{"code":200}"#[..]));
        let over_ws = ws_rx.try_recv().unwrap();

        assert_eq!(over_ws, over_http);
        assert_eq!(over_ws.text, "谁调用了 deductStock? cc @Bob");
    }

    #[test]
    fn a_parted_event_is_acknowledged_once_whole() {
        let body =
            serde_json::to_vec(&message_event("@_user_1 who calls deductStock?", "p2p")).unwrap();
        let (head, tail) = body.split_at(body.len() / 2);
        let (inbox, mut rx) = inbox();
        let mut parts = Parts::default();
        let now = Instant::now();
        let first = on_frame(&event_frame(tail, "m9", 2, 1), &mut parts, now, |p| {
            submit(&inbox, p)
        });
        assert_eq!(first, Step::Nothing);
        assert!(rx.try_recv().is_err());
        let second = on_frame(&event_frame(head, "m9", 2, 0), &mut parts, now, |p| {
            submit(&inbox, p)
        });
        let Step::Ack(ack) = second else {
            panic!("{second:?}")
        };
        assert_eq!(ack.header("seq"), Some("0"));
        assert_eq!(rx.try_recv().unwrap().text, "who calls deductStock?");
    }

    #[test]
    fn a_full_inbox_and_an_unreadable_event_are_not_acknowledged_as_done() {
        let body = serde_json::to_vec(&message_event("who calls deductStock?", "p2p")).unwrap();
        let (tx, _rx) = tokio::sync::mpsc::channel(1);
        let full = Inbox::new(tx.clone());
        tx.try_send(match event::parse_long_connection(&body, None).unwrap() {
            Inbound::Question(q) => q,
            other => panic!("{other:?}"),
        })
        .unwrap();
        assert_eq!(submit(&full, &body), 503);
        assert_eq!(submit(&full, b"{not json"), 500);
        let mut app = message_event("hi", "group");
        app["event"]["sender"]["sender_type"] = json!("app");
        assert_eq!(submit(&full, &serde_json::to_vec(&app).unwrap()), 200);
    }

    #[test]
    fn a_pong_with_settings_reconfigures_and_pings_are_not_answered() {
        let mut pong = Frame::ping(1);
        pong.headers[0].value = "pong".into();
        pong.payload = Some(
            br#"{"ReconnectCount":-1,"ReconnectInterval":3,"ReconnectNonce":1,"PingInterval":7}"#
                .to_vec(),
        );
        let step = on_frame(
            &pong.encode_to_vec(),
            &mut Parts::default(),
            Instant::now(),
            |_| unreachable!(),
        );
        assert_eq!(
            step,
            Step::Configure(ClientConfig {
                reconnect_count: -1,
                reconnect_interval: 3,
                reconnect_nonce: 1,
                ping_interval: 7
            })
        );
        let ping = Frame::ping(1).encode_to_vec();
        let step = on_frame(
            &ping,
            &mut Parts::default(),
            Instant::now(),
            |_| unreachable!(),
        );
        assert_eq!(step, Step::Nothing);
        let garbage = on_frame(
            b"\xff\xff",
            &mut Parts::default(),
            Instant::now(),
            |_| unreachable!(),
        );
        assert_eq!(garbage, Step::Nothing);
    }

    #[test]
    fn the_endpoint_answer_decides_retry_or_stop() {
        let ok = json!({"code": 0, "msg": "ok", "data": {
            "URL": "wss://msg-frontier.feishu.cn/ws/v2?device_id=1&service_id=33554678",
            "ClientConfig": {"ReconnectCount": -1, "ReconnectInterval": 120, "ReconnectNonce": 30, "PingInterval": 120}}});
        let e = endpoint_verdict(200, &ok).unwrap();
        assert!(e.url.starts_with("wss://"));
        assert_eq!(e.config, Some(ClientConfig::default()));
        for busy in [
            json!({"code": 1, "msg": "system busy"}),
            json!({"code": 1000040343}),
        ] {
            assert!(matches!(
                endpoint_verdict(200, &busy),
                Err(Failure::Retry(_))
            ));
        }
        assert!(matches!(
            endpoint_verdict(502, &Value::Null),
            Err(Failure::Retry(_))
        ));
        let refused = endpoint_verdict(200, &json!({"code": 10014, "msg": "app secret invalid"}));
        let Err(Failure::Fatal(e)) = refused else {
            panic!("{refused:?}")
        };
        assert_eq!(e.key(), "platforms.feishu.app_secret_env");
        assert!(e.to_string().contains("app secret invalid"), "{e}");
    }

    #[test]
    fn handshake_refusals_that_retrying_cannot_fix_are_final() {
        let headers = |status: &'static str, auth: Option<&'static str>| {
            move |k: &str| match k {
                "handshake-status" => Some(status.to_string()),
                "handshake-msg" => Some("no".to_string()),
                "handshake-autherrcode" => auth.map(str::to_string),
                _ => None,
            }
        };
        assert!(matches!(
            handshake_verdict(403, headers("403", None)),
            Failure::Fatal(_)
        ));
        assert!(matches!(
            handshake_verdict(400, headers("514", Some("1000040350"))),
            Failure::Fatal(_)
        ));
        assert!(matches!(
            handshake_verdict(400, headers("514", Some("1"))),
            Failure::Retry(_)
        ));
        assert!(matches!(
            handshake_verdict(502, |_: &str| None),
            Failure::Retry(_)
        ));
    }

    #[test]
    fn retries_wait_a_random_part_of_the_nonce_then_the_interval() {
        let cfg = ClientConfig {
            reconnect_count: -1,
            reconnect_interval: 120,
            reconnect_nonce: 30,
            ping_interval: 120,
        };
        assert_eq!(retry_delay(&cfg, true, 0.5), Duration::from_secs(15));
        assert_eq!(retry_delay(&cfg, true, 0.0), Duration::ZERO);
        assert_eq!(retry_delay(&cfg, false, 0.5), Duration::from_secs(120));
        let zero = ClientConfig {
            reconnect_interval: 0,
            ..cfg
        };
        assert_eq!(retry_delay(&zero, false, 0.5), Duration::from_secs(1));
        let (a, b) = (unit_random(), unit_random());
        assert!((0.0..1.0).contains(&a) && (0.0..1.0).contains(&b));
        assert_ne!(a, b);
    }
}
