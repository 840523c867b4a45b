//! The Slack stand-in checked against the official client first: slack_sdk's SocketModeClient
//! opens a connection through `apps.connections.open`, gets `hello`, receives an `events_api`
//! envelope and acks it by `envelope_id`, then follows `disconnect`/`refresh_requested` to a
//! new `apps.connections.open` and a new socket, where the next envelope arrives and is acked.
//! If this passes, the stand-in speaks Socket Mode as Slack's own SDK understands it.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;
use support::slack_standin::{self as slack, SlackStandin};

fn python_with(module: &str) -> Option<String> {
    let py = std::env::var("CODEMAP_PYTHON").unwrap_or_else(|_| "python3".into());
    let probe = Command::new(&py)
        .args(["-c", &format!("import {module}")])
        .output();
    if probe.is_ok_and(|o| o.status.success()) {
        return Some(py);
    }
    indexer::testing::skip(
        "python",
        &format!(
            "{py} or its module {module} is missing (pip install -r tests/peers/requirements.txt)"
        ),
    );
    None
}

#[test]
fn slack_sdks_socket_mode_client_connects_acks_and_follows_a_refresh() {
    let Some(py) = python_with("slack_sdk") else {
        return;
    };
    let standin = SlackStandin::start();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/peers/slack_socket_client.py"
    );
    let mut child = Command::new(py)
        .args([script, standin.api.as_str(), slack::APP_TOKEN, "2", "30"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for l in lines.map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&l).unwrap_or(Value::Null));
        }
    });
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("the client never reported {what}"))
    };

    assert_eq!(next("hello")["frame"], "hello");
    let mention = slack::app_mention("C1", "1700000000.000100", "who calls deductStock?");
    assert!(standin.send_event("env-1", "Ev1", mention));
    let got = next("the envelope");
    assert_eq!(got["envelope_id"], "env-1");
    assert_eq!(got["type"], "events_api");
    assert_eq!(got["event_id"], "Ev1");
    assert_eq!(got["text"], "<@UBOT> who calls deductStock?");
    assert!(
        standin.wait(Duration::from_secs(5), |s| s.acked("env-1") == 1),
        "{:?}",
        standin.acks()
    );

    standin.disconnect_all("refresh_requested");
    // slack_sdk handles a disconnect itself (its listeners never see one): it opens a new
    // connection, whose hello is the next frame it reports.
    assert_eq!(next("the new connection's hello")["frame"], "hello");
    assert_eq!(
        standin.opens(),
        2,
        "a fresh apps.connections.open for the new socket"
    );
    assert!(standin.open_tokens().iter().all(|t| t == slack::APP_TOKEN));
    let dm = slack::direct_message("D1", "1700000000.000300", "where is Order?");
    assert!(standin.wait(Duration::from_secs(5), |s| s.send_event(
        "env-2",
        "Ev2",
        dm.clone()
    )));
    let got = next("the second envelope");
    assert_eq!(
        (got["envelope_id"].as_str(), got["text"].as_str()),
        (Some("env-2"), Some("where is Order?"))
    );
    assert!(
        standin.wait(Duration::from_secs(5), |s| s.acked("env-2") == 1),
        "{:?}",
        standin.acks()
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn the_standin_refuses_a_wrong_app_token_as_slack_does() {
    let Some(py) = python_with("slack_sdk") else {
        return;
    };
    let standin = SlackStandin::start();
    let code = format!(
        "from slack_sdk.web import WebClient\nfrom slack_sdk.errors import SlackApiError\n\
         try:\n    WebClient(base_url={:?}).apps_connections_open(app_token='xapp-wrong')\n    print('ok')\n\
         except SlackApiError as e:\n    print(e.response['error'])\n",
        format!("{}/", standin.api)
    );
    let o = Command::new(py).args(["-c", &code]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "invalid_auth",
        "{o:?}"
    );
    assert_eq!(standin.opens(), 1);
}
