//! `codemap bot` on Feishu's long connection, end to end: the binary calls the stand-in's
//! endpoint with the app id and secret, opens its WebSocket, pings it, answers questions sent
//! as protobuf event frames (one in Chinese, one in parts) with replies whose citations resolve
//! in the shop fixture, acknowledges every event, and when the stand-in closes the socket calls
//! the endpoint again and answers on the new socket. A wrong secret stops the bot, naming the key.

#[path = "support/feishu_standin.rs"]
mod feishu_standin;
mod support;

use feishu_standin::{Options, SERVICE_ID, Standin, TENANT_TOKEN, message_event};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use support::*;

const APP_ID: &str = "cli_a5f2d1c0e4b8d00b";
const APP_SECRET: &str = "VfZk3s9QbT1mN7xW2yR8pL4c";
const CHAT: &str = "oc_5ce6d572455d361153b7xx51da133945";

fn config(tmp: &Path, idx: &Path, api_base: &str) -> PathBuf {
    let text = format!(
        r#"listen = "127.0.0.1:{port}"
state_dir = {state:?}

[[repositories]]
name = "shop"
index_dir = {idx:?}

[scopes.feishu]
{CHAT} = ["shop"]

[platforms.feishu]
connection = "websocket"
app_id_env = "CODEMAP_TEST_FEISHU_APP_ID"
app_secret_env = "CODEMAP_TEST_FEISHU_APP_SECRET"
api_base = {api_base:?}
"#,
        port = free_port(),
        state = tmp.join("state").display().to_string(),
        idx = idx.display().to_string(),
    );
    let p = tmp.join("bot.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// `codemap bot --config CFG` with the app's credentials in the environment; its log in `log`.
fn start_bot(cfg: &Path, secret: &str, log: &Path) -> Child {
    codemap()
        .args(["bot", "--config"])
        .arg(cfg)
        .env("CODEMAP_TEST_FEISHU_APP_ID", APP_ID)
        .env("CODEMAP_TEST_FEISHU_APP_SECRET", secret)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// The labels listed under "Citations" in a recorded `post` reply.
fn citations(body: &Value) -> Vec<String> {
    assert_eq!(body["msg_type"], "post", "{body}");
    let post: Value = serde_json::from_str(body["content"].as_str().unwrap()).unwrap();
    let paragraphs = post["zh_cn"]["content"].as_array().unwrap();
    let start = paragraphs
        .iter()
        .position(|p| p[0]["text"] == "Citations")
        .unwrap_or_else(|| panic!("no citations in {post}"));
    paragraphs[start + 1..]
        .iter()
        .take_while(|p| p[0]["text"] == "• ")
        .map(|p| p[1]["text"].as_str().unwrap().to_string())
        .collect()
}

/// Every `path:start[-end]` lies inside its file in the work tree.
fn assert_resolve(repo: &Path, labels: &[String]) {
    assert!(!labels.is_empty());
    let hits: Vec<(String, u64, u64)> = labels
        .iter()
        .map(|l| {
            let (path, lines) = l.rsplit_once(':').unwrap_or_else(|| panic!("{l}"));
            let (s, e) = lines.split_once('-').unwrap_or((lines, lines));
            (path.to_string(), s.parse().unwrap(), e.parse().unwrap())
        })
        .collect();
    assert_hits_resolve(repo, &hits);
}

/// Sends a question, waits for its ack and for the reply to its message; the reply's body.
async fn ask(standin: &Standin, n: usize, text: &str, parts: usize) -> Value {
    let message_id = format!("om_q{n}_5ce6d572455d361153b7cb51da");
    let event = message_event(&format!("ev-ws-{n}"), &message_id, CHAT, text);
    let frames = standin.send_event(&event, parts);
    let ack = standin.ack_of(&frames).await;
    assert_eq!(ack.payload_json(), json!({"code": 200}), "{ack:?}");
    let path = format!("/open-apis/im/v1/messages/{message_id}/reply");
    let log = standin
        .wait(&format!("the reply to {text:?}"), |l| {
            l.messages.iter().any(|m| m.path == path)
        })
        .await;
    let sent = log.messages.into_iter().find(|m| m.path == path).unwrap();
    assert_eq!(
        sent.authorization.as_deref(),
        Some(format!("Bearer {TENANT_TOKEN}").as_str())
    );
    sent.body
}

fn stop(mut bot: Child, log: &Path) {
    #[cfg(unix)]
    {
        // SAFETY: sending a signal to our own child process.
        unsafe {
            libc::kill(bot.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = bot.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "the bot did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        };
        let log = std::fs::read_to_string(log).unwrap();
        assert!(status.success(), "{status:?}\n{log}");
        assert!(!log.contains(APP_SECRET), "the secret reached the log");
    }
    #[cfg(not(unix))]
    {
        let _ = log;
        bot.kill().unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_bot_answers_feishu_over_the_long_connection_and_reconnects() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed_shop(tmp.path());
    let standin = Standin::start(Options::fast(APP_ID, APP_SECRET)).await;
    let cfg = config(tmp.path(), &idx, &standin.base);
    let log = tmp.path().join("bot.log");
    let bot = start_bot(&cfg, APP_SECRET, &log);

    let seen = standin
        .wait("the bot's connection", |l| l.connections.len() == 1)
        .await;
    assert_eq!(
        seen.endpoint_calls,
        [json!({"AppID": APP_ID, "AppSecret": APP_SECRET})]
    );

    let english = ask(&standin, 1, "who calls deductStock?", 1).await;
    assert_resolve(&repo, &citations(&english));
    // In Chinese, and split over two frames.
    let chinese = ask(&standin, 2, "谁调用了 deductStock?", 2).await;
    let cited = citations(&chinese);
    assert_resolve(&repo, &cited);
    assert!(
        cited.iter().any(|c| c.contains("InventoryController.java")),
        "{cited:?}"
    );

    // The bot pings on the stand-in's PingInterval, to the URL's service id.
    let log_now = standin.wait("a ping", |l| !l.pings.is_empty()).await;
    assert!(
        log_now
            .pings
            .iter()
            .all(|p| p.service == SERVICE_ID && p.method == 0 && p.header("type") == Some("ping"))
    );
    assert!(log_now.other.is_empty(), "{:?}", log_now.other);

    // The stand-in drops the socket: the bot asks the endpoint again and answers on the new one.
    standin.close();
    standin
        .wait("the bot's second connection", |l| {
            l.endpoint_calls.len() == 2 && l.connections.len() == 2
        })
        .await;
    let again = ask(&standin, 3, "who calls deductStock?", 1).await;
    assert_resolve(&repo, &citations(&again));

    let done = standin.log();
    assert_eq!(done.messages.len(), 3, "one reply per question");
    assert!(done.token_calls.iter().all(|b| b["app_id"] == APP_ID));
    stop(bot, &log);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_secret_stops_the_bot_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, idx) = indexed_shop(tmp.path());
    let standin = Standin::start(Options::fast(APP_ID, APP_SECRET)).await;
    let cfg = config(tmp.path(), &idx, &standin.base);
    let log = tmp.path().join("bot.log");
    let mut bot = start_bot(&cfg, "not-the-secret", &log);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = bot.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = bot.kill();
            panic!(
                "the bot kept running: {}",
                std::fs::read_to_string(&log).unwrap()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let err = std::fs::read_to_string(&log).unwrap();
    assert!(!status.success(), "{err}");
    assert!(err.contains("platforms.feishu.app_secret_env"), "{err}");
    assert!(err.contains("app secret invalid"), "{err}");
    assert!(
        !err.contains("not-the-secret"),
        "the secret reached the log"
    );
    let seen = standin.log();
    assert_eq!(seen.endpoint_calls.len(), 1, "a refusal is not retried");
    assert!(seen.connections.is_empty());
}
