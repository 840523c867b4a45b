//! The loopback Discord (support/discord_standin.rs) checked against discord.py, an independent
//! client of the documented gateway protocol, before the bot is tested against it: discord.py
//! logs in over the Web API, reads the gateway URL from `GET /gateway/bot`, identifies,
//! heartbeats, receives READY and a mentioned MESSAGE_CREATE as `on_message`, follows op 7
//! RECONNECT with a RESUME at `resume_gateway_url`, and receives the next message.

#[path = "support/discord_standin.rs"]
mod discord_standin;

use discord_standin::*;
use serde_json::{Value, json};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// `python3` with discord.py, or `None` after printing SKIPPED.
fn discord_py() -> Option<String> {
    let py = std::env::var("CODEMAP_PYTHON").unwrap_or_else(|_| "python3".into());
    let probe = std::process::Command::new(&py)
        .args([
            "-c",
            "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('discord') else 1)",
        ])
        .output();
    match probe {
        Ok(o) if o.status.success() => Some(py),
        _ => {
            indexer::testing::skip(
                "python",
                &format!(
                    "{py} or discord.py is missing (pip install --break-system-packages -r bot/tests/peers/requirements.txt)"
                ),
            );
            None
        }
    }
}

struct Peer {
    child: tokio::process::Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Peer {
    async fn next(&mut self, what: &str) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("discord.py did not report {what}"))
            .unwrap()
            .unwrap_or_else(|| panic!("discord.py ended before {what}"));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["event"], what, "{v}");
        v
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_py_connects_receives_a_mention_and_resumes_after_reconnect() {
    let Some(py) = discord_py() else { return };
    let standin = DiscordStandin::start(Options::new("standin-token")).await;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/bot/tests/peers/discord_gateway_client.py"
    );
    let mut child = tokio::process::Command::new(py)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let spec = json!({"api_base": standin.api_base, "token": "standin-token", "messages": 2});
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(spec.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut peer = Peer { child, lines };

    let ready = peer.next("ready").await;
    assert_eq!(ready["user"], BOT_USER);
    assert_eq!(ready["application"], APPLICATION);
    let identify = &standin.sent_op(2)[0];
    assert_eq!(identify.payload["d"]["token"], "standin-token");
    // GUILD_MESSAGES | DIRECT_MESSAGES
    assert_eq!(identify.payload["d"]["intents"], (1 << 9) | (1 << 12));
    let rest: Vec<String> = standin.rest().iter().map(|r| r.path.clone()).collect();
    assert!(
        rest.contains(&"/api/v10/gateway/bot".to_string()),
        "{rest:?}"
    );

    let asked = standin.message(CHANNEL, true, true, "who calls deductStock?");
    let m = peer.next("message").await;
    assert_eq!(m["id"], asked.as_str());
    assert_eq!(m["channel"], CHANNEL);
    assert_eq!(m["guild"], GUILD);
    assert_eq!(m["mentions"], json!([BOT_USER]));
    assert!(
        m["content"]
            .as_str()
            .unwrap()
            .ends_with("who calls deductStock?")
    );

    // Heartbeats are acknowledged (discord.py reconnects when they are not).
    standin
        .wait(10, "a heartbeat", |s| !s.sent_op(1).is_empty())
        .await;

    standin.reconnect();
    standin.wait(20, "a RESUME", |s| s.live()).await;
    let resume = &standin.sent_op(6)[0];
    assert_eq!(resume.connection, 1);
    assert!(resume.target.starts_with("/resume"), "{}", resume.target);
    assert_eq!(resume.payload["d"]["session_id"], "standin-session-1");
    assert_eq!(resume.payload["d"]["seq"], 2, "READY was 1, the message 2");
    assert_eq!(standin.sent_op(2).len(), 1, "a resume, not a new IDENTIFY");
    peer.next("resumed").await;

    let again = standin.message(CHANNEL, false, false, "and in a DM?");
    let m = peer.next("message").await;
    assert_eq!(m["id"], again.as_str());
    assert_eq!(m["guild"], Value::Null);
    let status = tokio::time::timeout(Duration::from_secs(20), peer.child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status:?}");
}

/// Runs discord.py until it gives up; returns its stderr.
async fn refused(py: String, standin: &DiscordStandin, spec: Value) -> String {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/bot/tests/peers/discord_gateway_client.py"
    );
    let mut child = tokio::process::Command::new(py)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut spec = spec;
    spec["api_base"] = json!(standin.api_base);
    spec["messages"] = json!(1);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(spec.to_string().as_bytes()).await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("discord.py gives up on a fatal close code")
        .unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discord_py_gives_up_on_a_refused_token_and_a_privileged_intent() {
    let Some(py) = discord_py() else { return };
    // The Web API lets the wrong token through, so the gateway's IDENTIFY check answers.
    let mut o = Options::new("standin-token");
    o.rest_checks_token = false;
    let standin = DiscordStandin::start(o).await;
    let err = refused(py.clone(), &standin, json!({"token": "wrong"})).await;
    assert_eq!(standin.closes(), vec![4004]);
    assert!(err.contains("4004"), "{err}");

    let standin = DiscordStandin::start(Options::new("standin-token")).await;
    let err = refused(
        py,
        &standin,
        json!({"token": "standin-token", "privileged": true}),
    )
    .await;
    assert_eq!(standin.closes(), vec![4014]);
    assert!(err.contains("PrivilegedIntentsRequired"), "{err}");
}
