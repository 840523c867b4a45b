//! Slack end to end at the adapter boundary: requests signed by slack_sdk's own code go through
//! the router into the inbox; replies go to a loopback Web API that records them.

mod platform_support;

use bot::model::{
    AnswerReply, ChainLine, CodeLink, Conversation, Delivery, Platform, Question, Reply,
};
use bot::platform::ChatSender;
use bot::platform::slack::{self, SlackConfig, SlackSender};
use platform_support::{Recorder, inbox, now, post, python, urls_in};
use serde_json::{Value, json};
use std::time::Duration;

const SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";

fn mention_body(event_id: &str) -> String {
    json!({
        "token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
        "event_id": event_id, "event_time": 1700000000,
        "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": true}],
        "event": {"type": "app_mention", "user": "U2", "text": "<@UBOT> who calls the stock deduction?",
                  "ts": "1700000000.000100", "channel": "C1", "event_ts": "1700000000.000100"}
    })
    .to_string()
}

fn headers(ts: i64, sig: &str) -> Vec<(&'static str, String)> {
    vec![
        ("x-slack-request-timestamp", ts.to_string()),
        ("x-slack-signature", sig.to_string()),
        ("content-type", "application/json".to_string()),
    ]
}

#[tokio::test]
async fn slack_sdk_signed_requests_are_accepted_and_tampered_or_stale_ones_get_401() {
    let ts = now();
    let old = ts - 6 * 60;
    let event = mention_body("Ev1");
    let challenge = r#"{"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}"#;
    let command = "token=x&team_id=T1&channel_id=C1&channel_name=dev&user_id=U2&command=%2Fcodemap&text=who+calls+deductStock%3F&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F1%2Fabc&trigger_id=tr-1";
    let ours = slack::verify::sign(SECRET.as_bytes(), &ts.to_string(), event.as_bytes());
    let Some(peer) = python(
        "slack_sign.py",
        "slack_sdk",
        &json!({
            "secret": SECRET,
            "sign": [
                {"timestamp": ts, "body": event},
                {"timestamp": old, "body": event},
                {"timestamp": ts, "body": challenge},
                {"timestamp": ts, "body": command},
            ],
            "check": [
                {"timestamp": ts, "body": event, "signature": ours},
                {"timestamp": ts, "body": format!("{event} "), "signature": ours},
            ]
        }),
    ) else {
        return;
    };
    let sig = |i: usize| peer["signatures"][i].as_str().unwrap().to_string();
    // Our signer and slack_sdk's verifier agree both ways.
    assert_eq!(peer["valid"], json!([true, false]));
    assert_eq!(sig(0), ours);

    let (inbox, mut rx) = inbox(16);
    let router = slack::router(SlackConfig::new(SECRET, None).unwrap(), inbox);

    let (status, _, _) = post(
        &router,
        "/slack/events",
        &headers(ts, &sig(0)),
        event.clone().into_bytes(),
    )
    .await;
    assert_eq!(status, 200);
    let q = rx.try_recv().expect("the signed event reached the inbox");
    assert_eq!(q.text, "who calls the stock deduction?");
    assert_eq!(q.event_id, "Ev1");
    assert_eq!(q.conversation.thread.as_deref(), Some("1700000000.000100"));

    // One byte changed after signing.
    let tampered = event.replacen("deduction", "Deduction", 1);
    let (status, _, _) = post(
        &router,
        "/slack/events",
        &headers(ts, &sig(0)),
        tampered.into_bytes(),
    )
    .await;
    assert_eq!(status, 401);
    // Correctly signed by slack_sdk, but six minutes old.
    let (status, _, _) = post(
        &router,
        "/slack/events",
        &headers(old, &sig(1)),
        event.clone().into_bytes(),
    )
    .await;
    assert_eq!(status, 401);
    // No signature at all, even for a challenge.
    let (status, _, _) = post(&router, "/slack/events", &[], challenge.as_bytes().to_vec()).await;
    assert_eq!(status, 401);
    assert!(rx.try_recv().is_err(), "nothing refused reached the inbox");

    let (status, h, body) = post(
        &router,
        "/slack/events",
        &headers(ts, &sig(2)),
        challenge.as_bytes().to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(h["content-type"], "text/plain");
    assert_eq!(
        body,
        b"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    );

    let mut form = headers(ts, &sig(3));
    form[2].1 = "application/x-www-form-urlencoded".into();
    let (status, _, body) = post(
        &router,
        "/slack/commands",
        &form,
        command.as_bytes().to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    let ack: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(ack["response_type"], "ephemeral");
    let q = rx.try_recv().expect("the slash command reached the inbox");
    assert_eq!(
        q.delivery,
        Delivery::SlackResponseUrl("https://hooks.slack.com/commands/T1/1/abc".into())
    );
    assert_eq!(q.text, "who calls deductStock?");
}

#[tokio::test]
async fn retries_go_through_submit_with_the_same_event_id_and_a_full_queue_gets_503() {
    let ts = now();
    let body = mention_body("EvRetry");
    let sig = slack::verify::sign(SECRET.as_bytes(), &ts.to_string(), body.as_bytes());
    let (inbox, mut rx) = inbox(1);
    let router = slack::router(
        SlackConfig::new(SECRET, Some("UBOT".into())).unwrap(),
        inbox,
    );
    let (status, _, _) = post(
        &router,
        "/slack/events",
        &headers(ts, &sig),
        body.clone().into_bytes(),
    )
    .await;
    assert_eq!(status, 200);
    // A retry of the queued event acks 200 and queues nothing: the inbox dedupes on
    // `(platform, workspace, event_id)`.
    let mut retry = headers(ts, &sig);
    retry.push(("x-slack-retry-num", "1".into()));
    retry.push(("x-slack-retry-reason", "http_timeout".into()));
    let (status, _, _) = post(&router, "/slack/events", &retry, body.clone().into_bytes()).await;
    assert_eq!(status, 200);
    // Another event while the queue (capacity 1) is full is refused, so Slack retries later.
    let other = mention_body("EvOther");
    let other_sig = slack::verify::sign(SECRET.as_bytes(), &ts.to_string(), other.as_bytes());
    let (status, _, _) = post(
        &router,
        "/slack/events",
        &headers(ts, &other_sig),
        other.clone().into_bytes(),
    )
    .await;
    assert_eq!(status, 503);
    let first = rx.try_recv().unwrap();
    assert_eq!(
        (
            first.event_id.as_str(),
            first.conversation.workspace.as_str()
        ),
        ("EvRetry", "T1")
    );
    assert!(rx.try_recv().is_err(), "a retried event was queued twice");
    // The refused event was not marked seen: its retry gets through once there is room.
    let mut other_retry = headers(ts, &other_sig);
    other_retry.push(("x-slack-retry-num", "1".into()));
    let (status, _, _) = post(&router, "/slack/events", &other_retry, other.into_bytes()).await;
    assert_eq!(status, 200);
    assert_eq!(rx.try_recv().unwrap().event_id, "EvOther");
}

fn question(delivery: Delivery) -> Question {
    Question {
        conversation: Conversation {
            platform: Platform::Slack,
            workspace: "T1".into(),
            channel: "C1".into(),
            thread: Some("1700000000.000100".into()),
            user: "U2".into(),
            direct: false,
        },
        text: "who calls the stock deduction?".into(),
        event_id: "Ev1".into(),
        delivery,
    }
}

fn answer() -> Reply {
    let link = |p: &str, l: usize| CodeLink {
        label: format!("{p}:{l}"),
        url: Some(format!("https://git.example/shop/blob/1a2b3c4/{p}#L{l}")),
        symbol: None,
    };
    Reply::Answer(AnswerReply {
        repo: "shop".into(),
        summary: "InventoryService.deductStock is called by OrderService.placeOrder <!channel> @here, see https://evil.example/steal".into(),
        chain: vec![ChainLine { depth: 1, symbol: "OrderService.placeOrder".into(), link: link("src/main/java/shop/OrderService.java", 77) }],
        citations: (0..300).map(|i| link("src/main/java/shop/OrderService.java", i + 1)).collect(),
        notes: vec![],
        freshness: "indexed at 1a2b3c4".into(),
    })
}

#[tokio::test]
async fn chat_post_message_goes_to_the_thread_within_limits_and_waits_out_a_429() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let api = Recorder::start(|_, n| {
        if n == 0 {
            (
                429,
                vec![("retry-after", "1".to_string())],
                json!({"ok": false, "error": "ratelimited"}),
            )
        } else {
            (
                200,
                vec![],
                json!({"ok": true, "channel": "C1", "ts": "1700000001.000200"}),
            )
        }
    })
    .await;
    let sender = SlackSender::new(
        "xoxb-test",
        &format!("{}/api", api.base),
        "https://hooks.slack.com",
    )
    .unwrap();
    sender
        .deliver(&question(Delivery::Post), &answer())
        .await
        .unwrap();
    let calls = api.calls();
    assert_eq!(calls.len(), 2, "one 429, then the post");
    assert!(
        calls[1].at - calls[0].at >= Duration::from_secs(1),
        "Retry-After was honoured"
    );
    let c = &calls[1];
    assert_eq!(
        (c.method.as_str(), c.path.as_str()),
        ("POST", "/api/chat.postMessage")
    );
    assert_eq!(c.headers["authorization"], "Bearer xoxb-test");
    assert_eq!(c.body["thread_ts"], "1700000000.000100");
    assert_eq!(c.body["channel"], "C1");
    assert_eq!(c.body["unfurl_links"], false);
    assert_eq!(c.body["unfurl_media"], false);
    let blocks = c.body["blocks"].as_array().unwrap();
    assert!(blocks.len() <= 50);
    let total: usize = blocks
        .iter()
        .map(|b| {
            b.pointer("/text/text")
                .or(b.pointer("/elements/0/text"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .chars()
                .count()
        })
        .sum();
    assert!(
        total + c.body["text"].as_str().unwrap().chars().count() <= 4_000,
        "{total}"
    );
    for url in urls_in(&c.body) {
        assert!(
            url.starts_with("https://git.example/shop/blob/1a2b3c4/"),
            "a link the bot did not build: {url}"
        );
    }
    let s = c.body.to_string();
    assert!(!s.contains("<!channel>") && !s.contains("@here"), "{s}");
    assert!(s.contains("more lines not shown"));
}

#[tokio::test]
async fn slash_command_answers_go_to_the_response_url_only_on_the_hooks_host() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let hooks = Recorder::start(|_, _| (200, vec![], json!("ok"))).await;
    let sender = SlackSender::new("xoxb-test", "http://127.0.0.1:9/api", &hooks.base).unwrap();
    let url = format!("{}/commands/T1/1/abc", hooks.base);
    let err = Reply::Error {
        class: bot::model::ErrorClass::Internal,
        message: "x".into(),
        reference: Some("ref-9".into()),
    };
    sender
        .deliver(&question(Delivery::SlackResponseUrl(url)), &err)
        .await
        .unwrap();
    let calls = hooks.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].path, "/commands/T1/1/abc");
    assert_eq!(calls[0].body["response_type"], "in_channel");
    assert!(
        calls[0].headers.get("authorization").is_none(),
        "the bot token never goes to a response_url"
    );
    assert!(calls[0].body.to_string().contains("ref-9"));
    let foreign = question(Delivery::SlackResponseUrl(
        "https://attacker.example/x".into(),
    ));
    assert!(matches!(
        sender.deliver(&foreign, &err).await,
        Err(bot::platform::DeliveryError::Refused(_))
    ));
    assert_eq!(hooks.calls().len(), 1);
}

#[tokio::test]
async fn posts_to_one_channel_are_spaced_a_second_apart() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let api = Recorder::start(|_, _| (200, vec![], json!({"ok": true}))).await;
    let sender = SlackSender::new("xoxb-test", &api.base, "https://hooks.slack.com").unwrap();
    let help = Reply::Help(bot::model::HelpReply {
        repos: vec!["shop".into()],
        examples: vec![],
    });
    let q = question(Delivery::Post);
    let mut other = question(Delivery::Post);
    other.conversation.channel = "C2".into();
    let (a, b, c) = tokio::join!(
        sender.deliver(&q, &help),
        sender.deliver(&q, &help),
        sender.deliver(&other, &help)
    );
    a.unwrap();
    b.unwrap();
    c.unwrap();
    let calls = api.calls();
    let at = |ch: &str| {
        calls
            .iter()
            .filter(|c| c.body["channel"] == ch)
            .map(|c| c.at)
            .collect::<Vec<_>>()
    };
    let c1 = at("C1");
    assert_eq!(c1.len(), 2);
    let gap = if c1[1] > c1[0] {
        c1[1] - c1[0]
    } else {
        c1[0] - c1[1]
    };
    assert!(gap >= Duration::from_millis(950), "{gap:?}");
    assert!(
        at("C2")[0] < c1.iter().max().copied().unwrap(),
        "another channel does not wait"
    );
}

#[tokio::test]
async fn oversized_and_unreadable_bodies_are_refused_without_reaching_the_inbox() {
    let (inbox, mut rx) = inbox(4);
    let router = slack::router(SlackConfig::new(SECRET, None).unwrap(), inbox);
    let ts = now();
    let big = vec![b'x'; 2 << 20];
    let sig = slack::verify::sign(SECRET.as_bytes(), &ts.to_string(), &big);
    let (status, _, _) = post(&router, "/slack/events", &headers(ts, &sig), big).await;
    assert_eq!(status, 413, "bodies over 1 MiB are not read");
    let junk = b"\xff\xfe not json".to_vec();
    let sig = slack::verify::sign(SECRET.as_bytes(), &ts.to_string(), &junk);
    let (status, _, _) = post(&router, "/slack/events", &headers(ts, &sig), junk.clone()).await;
    assert_eq!(status, 400);
    let (status, _, _) = post(&router, "/slack/commands", &headers(ts, &sig), junk).await;
    assert_eq!(status, 400);
    assert!(rx.try_recv().is_err());
}
