//! Discord at the adapter boundary: interactions signed with a test Ed25519 key (python
//! `cryptography`) are verified by the router and by the official `discord-interactions`
//! verifier alike; answers go to a loopback REST API that records them.

mod platform_support;

use bot::model::{
    AnswerReply, CodeLink, Conversation, Delivery, ErrorClass, Platform, Question, Reply,
};
use bot::platform::ChatSender;
use bot::platform::discord::{self, DiscordConfig, DiscordSender};
use platform_support::{Recorder, inbox, node, now, post, python, urls_in};
use serde_json::{Value, json};
use std::time::Duration;

fn ask(question: &str) -> String {
    json!({
        "id": "1180000000000000001", "application_id": "1170000000000000000", "type": 2,
        "token": "aW50ZXJhY3Rpb24tdG9rZW4", "version": 1, "guild_id": "1160000000000000000",
        "channel_id": "1150000000000000000", "locale": "en-US",
        "member": {"user": {"id": "1140000000000000000", "username": "ann"}, "roles": [], "permissions": "0"},
        "data": {"id": "1130000000000000000", "name": "ask", "type": 1,
                 "options": [{"name": "question", "type": 3, "value": question}]}
    })
    .to_string()
}

#[tokio::test]
async fn signed_interactions_are_answered_tampered_ones_refused_and_discord_interactions_agrees() {
    let ts = now();
    let ping =
        r#"{"type":1,"id":"1","application_id":"1170000000000000000","token":"t","version":1}"#
            .to_string();
    let ask = ask("who calls the stock deduction?");
    let Some(signed) = python(
        "discord_sign.py",
        "cryptography",
        &json!({"requests": [{"timestamp": ts, "body": ping}, {"timestamp": ts, "body": ask}]}),
    ) else {
        return;
    };
    let key = signed["public_key"].as_str().unwrap();
    let sig = |i: usize| signed["signatures"][i].as_str().unwrap().to_string();
    let tampered = ask.replacen("stock", "Stock", 1);
    let headers = |sig: &str, ts: i64| {
        vec![
            ("x-signature-ed25519", sig.to_string()),
            ("x-signature-timestamp", ts.to_string()),
            ("content-type", "application/json".to_string()),
        ]
    };

    let (inbox, mut rx) = inbox(8);
    let router = discord::router(DiscordConfig::new(key).unwrap(), inbox);
    let cases = [
        (ping.clone(), sig(0), ts, 200),
        (ask.clone(), sig(1), ts, 200),
        (tampered.clone(), sig(1), ts, 401),
        (ask.clone(), sig(0), ts, 401),
        (ask.clone(), sig(1), ts + 1, 401),
    ];
    let mut ours = vec![];
    for (i, (body, s, t, want)) in cases.iter().enumerate() {
        let (status, _, reply) = post(
            &router,
            "/discord/interactions",
            &headers(s, *t),
            body.clone().into_bytes(),
        )
        .await;
        assert_eq!(status.as_u16(), *want, "case {i}");
        ours.push(status == 200);
        if i == 0 {
            assert_eq!(
                serde_json::from_slice::<Value>(&reply).unwrap(),
                json!({"type": 1}),
                "PONG"
            );
        }
        if i == 1 {
            assert_eq!(
                serde_json::from_slice::<Value>(&reply).unwrap(),
                json!({"type": 5}),
                "deferred"
            );
        }
    }
    let q = rx.try_recv().expect("the /ask reached the inbox");
    assert_eq!(q.text, "who calls the stock deduction?");
    assert_eq!(
        q.delivery,
        Delivery::DiscordInteraction {
            application_id: "1170000000000000000".into(),
            token: "aW50ZXJhY3Rpb24tdG9rZW4".into()
        }
    );
    assert!(
        rx.try_recv().is_err(),
        "refused requests never reach the inbox"
    );

    // The official verifier gives the same verdict on the same bytes.
    let requests: Vec<Value> = cases
        .iter()
        .map(|(b, s, t, _)| json!({"body": b, "signature": s, "timestamp": t}))
        .collect();
    if let Some(theirs) = node(
        "discord_verify.js",
        "discord-interactions",
        &json!({"public_key": key, "requests": requests}),
    ) {
        assert_eq!(theirs["valid"], json!(ours));
    }
    // Unsigned garbage.
    let (status, _, _) = post(&router, "/discord/interactions", &[], b"{}".to_vec()).await;
    assert_eq!(status, 401);
}

fn question(delivery: Delivery) -> Question {
    Question {
        conversation: Conversation {
            platform: Platform::Discord,
            workspace: "1160000000000000000".into(),
            channel: "1150000000000000000".into(),
            thread: Some("1190000000000000001".into()),
            user: "1140000000000000000".into(),
            direct: false,
        },
        text: "who calls the stock deduction?".into(),
        event_id: "1190000000000000001".into(),
        delivery,
    }
}

fn long_answer() -> Reply {
    Reply::Answer(AnswerReply {
        repo: "shop".into(),
        summary: "InventoryService.deductStock is called by OrderService.placeOrder. @everyone <@&1234> https://evil.example".into(),
        chain: vec![],
        citations: (0..25)
            .map(|i| CodeLink {
                label: format!("src/main/java/shop/OrderService.java:{}", i + 1),
                url: Some(format!("https://git.example/shop/blob/1a2b3c4/src/main/java/shop/OrderService.java#L{}", i + 1)),
                symbol: Some("OrderService.placeOrder".into()),
            })
            .collect(),
        notes: vec![],
        freshness: "indexed at 1a2b3c4".into(),
    })
}

#[tokio::test]
async fn interaction_answer_edits_the_original_then_follows_up_within_2000_chars_and_waits_out_a_429()
 {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let api = Recorder::start(|_, n| {
        if n == 1 {
            (429, vec![("retry-after", "1".to_string())], json!({"message": "You are being rate limited.", "retry_after": 0.3, "global": false}))
        } else {
            (200, vec![], json!({"id": "1200000000000000000"}))
        }
    })
    .await;
    let sender = DiscordSender::new(&format!("{}/api/v10", api.base), None).unwrap();
    let app = "1170000000000000000";
    let token = "aW50ZXJhY3Rpb24tdG9rZW4";
    let q = question(Delivery::DiscordInteraction {
        application_id: app.into(),
        token: token.into(),
    });
    sender.deliver(&q, &long_answer()).await.unwrap();
    let calls = api.calls();
    assert!(calls.len() >= 3, "{}", calls.len());
    assert_eq!(calls[0].method, "PATCH");
    assert_eq!(
        calls[0].path,
        format!("/api/v10/webhooks/{app}/{token}/messages/@original")
    );
    assert_eq!(calls[1].method, "POST");
    assert_eq!(calls[1].path, format!("/api/v10/webhooks/{app}/{token}"));
    // The 429'd follow-up was sent again after retry_after (0.3 s, the body's figure).
    assert_eq!(calls[2].body, calls[1].body);
    assert!(calls[2].at - calls[1].at >= Duration::from_millis(300));
    let mut seen = vec![];
    for c in calls
        .iter()
        .filter(|c| c.headers.get("authorization").is_none())
    {
        let content = c.body["content"].as_str().unwrap();
        assert!(content.chars().count() <= 2_000);
        assert_eq!(c.body["allowed_mentions"], json!({"parse": []}));
        assert_eq!(c.body["flags"], 4, "SUPPRESS_EMBEDS on text answers");
        assert!(
            !content.contains("@everyone") && !content.contains("<@&"),
            "{content}"
        );
        for url in urls_in(&c.body) {
            assert!(
                url.starts_with("https://git.example/shop/blob/1a2b3c4/"),
                "{url}"
            );
        }
        seen.push(content.to_string());
    }
    seen.dedup();
    let all = seen.join("\n");
    for i in 1..=25 {
        assert_eq!(
            all.matches(&format!("OrderService.java:{i}](<")).count(),
            1,
            "citation {i} whole, once"
        );
    }
}

#[tokio::test]
async fn gateway_mentions_are_answered_with_a_reply_and_errors_as_an_embed() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let api = Recorder::start(|_, _| (200, vec![], json!({"id": "1200000000000000000"}))).await;
    let sender =
        DiscordSender::new(&format!("{}/api/v10", api.base), Some("bot-token".into())).unwrap();
    let err = Reply::Error {
        class: ErrorClass::Internal,
        message: "stack overflow".into(),
        reference: Some("ref-42".into()),
    };
    sender
        .deliver(&question(Delivery::Post), &err)
        .await
        .unwrap();
    let calls = api.calls();
    assert_eq!(calls.len(), 1);
    let c = &calls[0];
    assert_eq!(c.path, "/api/v10/channels/1150000000000000000/messages");
    assert_eq!(c.headers["authorization"], "Bot bot-token");
    assert_eq!(
        c.body["message_reference"]["message_id"],
        "1190000000000000001"
    );
    assert_eq!(c.body["allowed_mentions"], json!({"parse": []}));
    assert!(
        c.body.get("flags").is_none(),
        "an embed is sent, so embeds are not suppressed"
    );
    assert!(
        c.body["embeds"][0]["description"]
            .as_str()
            .unwrap()
            .contains("ref-42")
    );
    assert!(
        !c.body.to_string().contains("stack overflow"),
        "internal detail stays in the log"
    );

    let no_token = DiscordSender::new(&api.base, None).unwrap();
    assert!(
        no_token
            .deliver(&question(Delivery::Post), &err)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn ask_is_registered_with_a_bulk_overwrite() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let api = Recorder::start(|_, _| (200, vec![], json!([]))).await;
    let sender =
        DiscordSender::new(&format!("{}/api/v10", api.base), Some("bot-token".into())).unwrap();
    sender
        .register_commands("1170000000000000000")
        .await
        .unwrap();
    let calls = api.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].method.as_str(), calls[0].path.as_str()),
        ("PUT", "/api/v10/applications/1170000000000000000/commands")
    );
    assert_eq!(calls[0].headers["authorization"], "Bot bot-token");
    assert_eq!(calls[0].body[0]["name"], "ask");
    assert_eq!(calls[0].body[0]["options"][0]["name"], "question");
    assert!(sender.register_commands("../../x").await.is_err());
    assert_eq!(api.calls().len(), 1);
}

#[tokio::test]
async fn replies_wait_for_an_empty_bucket_to_refill_and_other_channels_are_not_held() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    // Discord's documented headers: each channel's message bucket has one request left after
    // a send, then none until it refills 400 ms later.
    let api = Recorder::start(|r, _| {
        let remaining = if r.body["content"]
            .as_str()
            .is_some_and(|c| c.contains("first"))
        {
            "1"
        } else {
            "0"
        };
        (
            200,
            vec![
                ("x-ratelimit-bucket", "msgbucket".to_string()),
                ("x-ratelimit-limit", "5".to_string()),
                ("x-ratelimit-remaining", remaining.to_string()),
                ("x-ratelimit-reset-after", "0.4".to_string()),
            ],
            json!({"id": "1200000000000000000"}),
        )
    })
    .await;
    let sender =
        DiscordSender::new(&format!("{}/api/v10", api.base), Some("bot-token".into())).unwrap();
    let text = |s: &str| Reply::Error {
        class: ErrorClass::User,
        message: s.into(),
        reference: None,
    };
    let mut other = question(Delivery::Post);
    other.conversation.channel = "1150000000000000099".into();
    let here = question(Delivery::Post);
    sender.deliver(&here, &text("first")).await.unwrap(); // 1 left
    sender.deliver(&here, &text("second")).await.unwrap(); // 0 left, refills in 0.4 s
    sender.deliver(&other, &text("elsewhere")).await.unwrap();
    sender.deliver(&here, &text("third")).await.unwrap();
    let calls = api.calls();
    assert_eq!(calls.len(), 4, "no request was refused, none repeated");
    let at = |needle: &str| {
        calls
            .iter()
            .find(|c| c.body.to_string().contains(needle))
            .unwrap_or_else(|| panic!("{needle} sent"))
            .at
    };
    assert!(
        at("elsewhere") - at("second") < Duration::from_millis(300),
        "another channel's bucket is its own"
    );
    assert!(
        at("third") - at("second") >= Duration::from_millis(350),
        "the third waited for the refill: {:?}",
        at("third") - at("second")
    );
}
