//! Slack Socket Mode over loopback: a fake `apps.connections.open` hands slack-morphism's
//! listener the URL of a local WebSocket that speaks Slack's envelope protocol; events and slash
//! commands sent down it reach the inbox as the same questions the HTTP endpoint makes, and every
//! envelope is acknowledged by its id.

mod platform_support;

use bot::platform::slack::{inbound, socket};
use futures_util::{SinkExt, StreamExt};
use platform_support::{Recorder, inbox};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

fn event_callback() -> Value {
    json!({
        "token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
        "event_id": "EvSock1", "event_time": 1700000000,
        "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": true, "is_enterprise_install": false}],
        "event": {"type": "app_mention", "user": "U2", "text": "<@UBOT> who calls deductStock?",
                  "ts": "1700000000.000100", "channel": "C1", "event_ts": "1700000000.000100"}
    })
}

fn command() -> Value {
    json!({"token": "x", "team_id": "T1", "team_domain": "shop", "channel_id": "C1", "channel_name": "dev",
           "user_id": "U2", "user_name": "ann", "command": "/codemap", "text": "where is OrderService",
           "api_app_id": "A1", "response_url": "https://hooks.slack.com/commands/T1/1/abc", "trigger_id": "trSock1"})
}

#[tokio::test]
async fn socket_mode_envelopes_become_questions_and_are_acknowledged() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ws = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ws_url = format!("ws://{}/link", ws.local_addr().unwrap());
    let (acks_tx, mut acks_rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let sent = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        loop {
            let (tcp, _) = ws.accept().await.unwrap();
            let acks = acks_tx.clone();
            let first = !sent.swap(true, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
                let hello = json!({"type": "hello", "num_connections": 1,
                                   "debug_info": {"host": "applink-test"}, "connection_info": {"app_id": "A1"}});
                ws.send(Message::text(hello.to_string())).await.unwrap();
                if first {
                    let events = json!({"envelope_id": "env-1", "type": "events_api", "payload": event_callback(),
                                        "accepts_response_payload": false, "retry_attempt": 0, "retry_reason": ""});
                    let slash = json!({"envelope_id": "env-2", "type": "slash_commands", "payload": command(),
                                       "accepts_response_payload": true});
                    ws.send(Message::text(events.to_string())).await.unwrap();
                    ws.send(Message::text(slash.to_string())).await.unwrap();
                }
                while let Some(Ok(m)) = ws.next().await {
                    if let Message::Text(t) = m
                        && let Ok(v) = serde_json::from_str::<Value>(&t)
                    {
                        let _ = acks.send(v);
                    }
                }
            });
        }
    });
    let url = ws_url.clone();
    let api = Recorder::start(move |r, _| match r.path.as_str() {
        "/api/auth.test" => (
            200,
            vec![],
            json!({"ok": true, "user_id": "UBOT", "team_id": "T1", "user": "codemap", "team": "Shop",
                   "url": "https://shop.slack.com/"}),
        ),
        "/api/apps.connections.open" => (200, vec![], json!({"ok": true, "url": url})),
        other => panic!("unexpected Web API call {other}"),
    })
    .await;

    let (inbox, mut rx) = inbox(8);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let opts = socket::SocketOptions {
        app_token: "xapp-1-test".into(),
        bot_token: "xoxb-test".into(),
        api_url: Some(format!("{}/api", api.base)),
        connections: 1,
    };
    let listener = tokio::spawn(socket::listen(opts, inbox, |_| {}, async move {
        let _ = stop_rx.await;
    }));

    let mut questions = vec![];
    let mut acks = vec![];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while (questions.len() < 2 || acks.len() < 2) && tokio::time::Instant::now() < deadline {
        tokio::select! {
            Some(q) = rx.recv() => questions.push(q),
            Some(a) = acks_rx.recv() => acks.push(a),
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
    let _ = stop_tx.send(());
    let ended = tokio::time::timeout(Duration::from_secs(5), listener).await;
    assert!(
        matches!(ended, Ok(Ok(Ok(())))),
        "the listener shuts down cleanly: {ended:?}"
    );

    assert_eq!(
        questions.len(),
        2,
        "questions: {questions:?}, acks: {acks:?}"
    );
    let inbound::Inbound::Question(http_event) =
        inbound::parse_event(&serde_json::to_vec(&event_callback()).unwrap(), None).unwrap()
    else {
        panic!()
    };
    let fields = command()
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let inbound::Inbound::Question(http_command) = inbound::command(&fields).unwrap() else {
        panic!()
    };
    assert!(questions.contains(&http_event), "{questions:?}");
    assert!(questions.contains(&http_command), "{questions:?}");

    let ids: Vec<&str> = acks
        .iter()
        .filter_map(|a| a["envelope_id"].as_str())
        .collect();
    assert!(ids.contains(&"env-1") && ids.contains(&"env-2"), "{acks:?}");
    let slash_ack = acks.iter().find(|a| a["envelope_id"] == "env-2").unwrap();
    assert_eq!(
        slash_ack["payload"]["response_type"], "ephemeral",
        "{slash_ack}"
    );
    for c in api.calls() {
        let token = match c.path.as_str() {
            "/api/auth.test" => "Bearer xoxb-test",
            _ => "Bearer xapp-1-test",
        };
        assert_eq!(c.headers["authorization"], token, "{}", c.path);
    }
}
