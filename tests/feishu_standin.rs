//! The Feishu stand-in (tests/support/feishu_standin.rs) checked against the official client
//! before the bot is tested against it: lark-oapi's `lark.ws.Client` calls its endpoint, opens
//! its WebSocket, receives its events (whole and in parts) and acknowledges them, pings it, and
//! dials again when the stand-in closes the socket; a wrong secret makes the SDK give up.

#[path = "support/feishu_standin.rs"]
mod feishu_standin;

use feishu_standin::{Options, SERVICE_ID, Standin, message_event};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const APP_ID: &str = "cli_a5f2d1c0e4b8d00b";
const APP_SECRET: &str = "VfZk3s9QbT1mN7xW2yR8pL4c";

fn python() -> Option<String> {
    let py = std::env::var("CODEMAP_PYTHON").unwrap_or_else(|_| "python3".into());
    let found = Command::new(&py)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('lark_oapi') else 1)",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        Some(py)
    } else {
        indexer::testing::skip(
            "python",
            &format!(
                "{py} or its module lark_oapi is missing (pip install --break-system-packages -r bot/tests/peers/requirements.txt)"
            ),
        );
        None
    }
}

/// The SDK's client, its stdout lines on a channel.
struct Sdk {
    child: Child,
    lines: mpsc::Receiver<Value>,
}

impl Sdk {
    fn start(py: &str, domain: &str, secret: &str) -> Sdk {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("bot/tests/peers/feishu_ws_client.py");
        let mut child = Command::new(py)
            .arg(script)
            .env("NO_PROXY", "127.0.0.1,localhost")
            .env("PYTHONIOENCODING", "utf-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let cfg = json!({"domain": domain, "app_id": APP_ID, "app_secret": secret});
        writeln!(child.stdin.take().unwrap(), "{cfg}").unwrap();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str(&line) {
                    let _ = tx.send(v);
                }
            }
        });
        Sdk { child, lines }
    }

    fn handled(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(30))
            .expect("the SDK's handler got the event")
    }
}

impl Drop for Sdk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn lark_oapi_ws_client_receives_and_acknowledges_the_standins_events() {
    let Some(py) = python() else { return };
    let standin = Standin::start(Options::fast(APP_ID, APP_SECRET)).await;
    let sdk = Sdk::start(&py, &standin.base, APP_SECRET);

    let log = standin
        .wait("the SDK's connection", |l| l.connections.len() == 1)
        .await;
    assert_eq!(
        log.endpoint_calls,
        [json!({"AppID": APP_ID, "AppSecret": APP_SECRET})]
    );
    assert!(log.connections[0].contains(&format!("service_id={SERVICE_ID}")));

    // A whole event: the handler gets it, the ack is the frame back with {"code": 200}.
    let event = message_event("ev-sdk-1", "om_sdk_1", "oc_shop", "who calls deductStock?");
    let mid = standin.send_event(&event, 1);
    let ack = standin.ack_of(&mid).await;
    assert_eq!(ack.payload_json(), json!({"code": 200}));
    assert_eq!((ack.method, ack.service), (1, SERVICE_ID));
    assert_eq!(ack.header("type"), Some("event"));
    assert!(ack.header("biz_rt").is_some(), "{ack:?}");
    let got = sdk.handled();
    assert_eq!(got["event_id"], "ev-sdk-1");
    assert_eq!(got["text"], "@_user_1 who calls deductStock?");

    // An event in three parts is put together by the SDK and acknowledged once.
    let event = message_event("ev-sdk-2", "om_sdk_2", "oc_shop", "谁调用了 deductStock?");
    let mid = standin.send_event(&event, 3);
    let ack = standin.ack_of(&mid).await;
    assert_eq!(ack.payload_json(), json!({"code": 200}));
    assert_eq!(sdk.handled()["text"], "@_user_1 谁调用了 deductStock?");
    assert_eq!(
        standin
            .log()
            .acks
            .iter()
            .filter(|a| a.header("message_id") == Some(&mid))
            .count(),
        1
    );

    // The SDK pings on the stand-in's PingInterval, addressed to the URL's service id.
    let log = standin.wait("a ping", |l| !l.pings.is_empty()).await;
    let ping = &log.pings[0];
    assert_eq!((ping.method, ping.service), (0, SERVICE_ID));
    assert_eq!(ping.header("type"), Some("ping"));
    assert!(log.other.is_empty(), "{:?}", log.other);

    // Closed by the server, the SDK asks the endpoint again and reconnects.
    standin.close();
    standin
        .wait("a second connection", |l| {
            l.connections.len() == 2 && l.endpoint_calls.len() == 2
        })
        .await;
    let mid = standin.send_event(
        &message_event("ev-sdk-3", "om_sdk_3", "oc_shop", "again"),
        1,
    );
    assert_eq!(
        standin.ack_of(&mid).await.payload_json(),
        json!({"code": 200})
    );
    assert_eq!(sdk.handled()["event_id"], "ev-sdk-3");
}

#[tokio::test(flavor = "multi_thread")]
async fn lark_oapi_gives_up_on_the_standins_refusal_of_a_wrong_secret() {
    let Some(py) = python() else { return };
    let standin = Standin::start(Options::fast(APP_ID, APP_SECRET)).await;
    let mut sdk = Sdk::start(&py, &standin.base, "not-the-secret");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = sdk.child.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the SDK kept trying");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(!status.success());
    let mut err = String::new();
    std::io::Read::read_to_string(sdk.child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("app secret invalid"), "{err}");
    let log = standin.log();
    assert_eq!(log.endpoint_calls.len(), 1);
    assert!(log.connections.is_empty());
}
