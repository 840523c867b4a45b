//! Feishu at the adapter boundary: callbacks encrypted and signed the way lark-oapi reads them
//! (and accepted by lark-oapi's own dispatcher) are decrypted and answered by the router;
//! replies go to a loopback open API that issues tenant tokens and records the messages.

mod platform_support;

use bot::model::{AnswerReply, CodeLink, Conversation, Delivery, Platform, Question, Reply};
use bot::platform::feishu::{self, FeishuConfig, FeishuSender};
use bot::platform::{ChatSender, DeliveryError};
use platform_support::{Recorder, inbox, now, post, python, urls_in};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const KEY: &str = "kSs3Mq2lZxVb4QhE9Jt7";
const TOKEN: &str = "vtoken-8Hw2";

fn message_event(event_id: &str, text: &str) -> Value {
    json!({
        "schema": "2.0",
        "header": {"event_id": event_id, "event_type": "im.message.receive_v1", "create_time": "1700000000000",
                   "token": TOKEN, "app_id": "cli_9f5343c580712544", "tenant_key": "2ca1d211f64f6438"},
        "event": {
            "sender": {"sender_id": {"union_id": "on_8ed6aa67", "user_id": "e33ggbyz", "open_id": "ou_84aad35d"}, "sender_type": "user", "tenant_key": "2ca1d211f64f6438"},
            "message": {"message_id": "om_5ce6d572455d361153b7cb51da133945", "root_id": "", "parent_id": "",
                        "create_time": "1700000000000", "update_time": "1700000000000", "chat_id": "oc_5ce6d572455d361153b7xx51da133945", "chat_type": "group",
                        "message_type": "text", "content": json!({"text": text}).to_string(),
                        "mentions": [{"key": "@_user_1", "id": {"union_id": "on_bot", "user_id": null, "open_id": "ou_bot"}, "name": "codemap", "tenant_key": "2ca1d211f64f6438"}]}
        }
    })
}

fn headers_of(v: &Value) -> Vec<(String, String)> {
    v["headers"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.to_lowercase(), v.as_str().unwrap().to_string()))
        .collect()
}

#[tokio::test]
async fn lark_oapi_encrypted_callbacks_are_decrypted_verified_and_answered() {
    let ts = now();
    let Some(peer) = python(
        "feishu_encrypt.py",
        "lark_oapi",
        &json!({
            "encrypt_key": KEY,
            "verification_token": TOKEN,
            "events": [
                {"plain": {"challenge": "ajls384kdjx98XX", "token": TOKEN, "type": "url_verification"}, "timestamp": ts, "nonce": "n0"},
                {"plain": message_event("ev-1", "@_user_1 谁调用了库存扣减?"), "timestamp": ts, "nonce": "n1"},
                {"plain": message_event("ev-old", "@_user_1 hi"), "timestamp": ts - 6 * 60, "nonce": "n2"},
            ]
        }),
    ) else {
        return;
    };
    let reqs = peer["requests"].as_array().unwrap();
    // lark-oapi's own dispatcher accepted both events and answered the challenge.
    for r in reqs {
        assert_eq!(
            r["sdk_status"], 200,
            "lark-oapi refused its own request: {}",
            r["sdk_body"]
        );
    }
    assert_eq!(peer["sdk_handled"], json!(["ev-1", "ev-old"]));

    let (inbox, mut rx) = inbox(8);
    let router = feishu::router(
        FeishuConfig::new(TOKEN, KEY, Some("ou_bot".into())).unwrap(),
        inbox,
    );
    let send = |r: &Value, body: String, headers: Vec<(String, String)>| {
        let router = router.clone();
        let _ = r;
        async move {
            let h: Vec<(&str, String)> = headers
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect();
            post(&router, "/feishu/events", &h, body.into_bytes()).await
        }
    };

    // The encrypted, unsigned challenge.
    let (status, _, body) = send(
        &reqs[0],
        reqs[0]["body"].as_str().unwrap().into(),
        headers_of(&reqs[0]),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"challenge": "ajls384kdjx98XX"})
    );

    // The signed, encrypted message.
    let (status, _, _) = send(
        &reqs[1],
        reqs[1]["body"].as_str().unwrap().into(),
        headers_of(&reqs[1]),
    )
    .await;
    assert_eq!(status, 200);
    let q = rx.try_recv().expect("the message reached the inbox");
    assert_eq!(q.text, "谁调用了库存扣减?");
    assert_eq!(q.event_id, "ev-1");
    assert_eq!(
        q.conversation.channel,
        "oc_5ce6d572455d361153b7xx51da133945"
    );
    assert_eq!(
        q.delivery,
        Delivery::FeishuReply("om_5ce6d572455d361153b7cb51da133945".into())
    );

    // Tampered body (signature no longer matches), stale timestamp, missing signature, wrong key.
    let tampered = reqs[1]["body"].as_str().unwrap().replacen('A', "B", 1);
    let (status, _, _) = send(&reqs[1], tampered, headers_of(&reqs[1])).await;
    assert_eq!(status, 401);
    let (status, _, _) = send(
        &reqs[2],
        reqs[2]["body"].as_str().unwrap().into(),
        headers_of(&reqs[2]),
    )
    .await;
    assert_eq!(status, 401, "six minutes old");
    let (status, _, _) = send(&reqs[1], reqs[1]["body"].as_str().unwrap().into(), vec![]).await;
    assert_eq!(status, 401, "unsigned event");
    let (other_inbox, mut other_rx) = platform_support::inbox(8);
    let wrong = feishu::router(
        FeishuConfig::new(TOKEN, "another key", None).unwrap(),
        other_inbox,
    );
    let h0 = headers_of(&reqs[0]);
    let h: Vec<(&str, String)> = h0.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let (status, _, _) = post(
        &wrong,
        "/feishu/events",
        &h,
        reqs[0]["body"].as_str().unwrap().as_bytes().to_vec(),
    )
    .await;
    assert_ne!(status, 200);
    assert!(
        rx.try_recv().is_err() && other_rx.try_recv().is_err(),
        "nothing refused reached an inbox"
    );
}

#[tokio::test]
async fn a_plaintext_unsigned_event_is_never_answered() {
    // No encrypt key, no router: the callback cannot run without decryption and signatures.
    let err = FeishuConfig::new(TOKEN, "", None).err().expect("refused");
    assert_eq!(err.key, "feishu.encrypt_key");

    let (inbox, mut rx) = inbox(8);
    let router = feishu::router(FeishuConfig::new(TOKEN, KEY, None).unwrap(), inbox);
    // A well-formed event with the right verification token, sent in the clear and unsigned:
    // what a forger who learnt the token would send.
    let forged = message_event("ev-2", "@_user_1 where is OrderService");
    let (status, _, _) = post(
        &router,
        "/feishu/events",
        &[],
        forged.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 401);
    // The plaintext challenge is refused too; a correct token does not stand in for the key.
    let (status, _, _) = post(
        &router,
        "/feishu/events",
        &[],
        json!({"challenge": "c1", "token": TOKEN, "type": "url_verification"})
            .to_string()
            .into_bytes(),
    )
    .await;
    assert_eq!(status, 401);
    // Encrypted but unsigned: refused as well.
    let body =
        json!({"encrypt": feishu::crypto::encrypt(KEY, [7; 16], forged.to_string().as_bytes())});
    let (status, _, _) = post(
        &router,
        "/feishu/events",
        &[],
        body.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 401);
    let (status, _, _) = post(&router, "/feishu/events", &[], b"not json".to_vec()).await;
    assert_eq!(status, 400);
    assert!(rx.try_recv().is_err(), "nothing refused reached the inbox");
}

fn question() -> Question {
    Question {
        conversation: Conversation {
            platform: Platform::Feishu,
            workspace: "2ca1d211f64f6438".into(),
            channel: "oc_1".into(),
            thread: Some("om_1".into()),
            user: "ou_84aad35d".into(),
            direct: false,
        },
        text: "who calls the stock deduction?".into(),
        event_id: "ev-1".into(),
        delivery: Delivery::FeishuReply("om_1".into()),
    }
}

fn answer() -> Reply {
    Reply::Answer(AnswerReply {
        repo: "shop".into(),
        summary: "deductStock 由 OrderService.placeOrder 调用 @all <at user_id=\"all\"></at> https://evil.example".into(),
        chain: vec![],
        citations: vec![CodeLink {
            label: "src/main/java/shop/OrderService.java:77".into(),
            url: Some("https://git.example/shop/blob/1a2b3c4/src/main/java/shop/OrderService.java#L77".into()),
            symbol: Some("OrderService.placeOrder".into()),
        }],
        notes: vec![],
        freshness: "indexed at 1a2b3c4".into(),
    })
}

/// A fake open API: tokens `t1`, `t2`, … that live `expire` seconds; replies rate-limited
/// `limited` times first (alternating HTTP 429 and code 99991400).
async fn open_api(expire: u64, limited: usize) -> (Recorder, Arc<AtomicUsize>) {
    let issued = Arc::new(AtomicUsize::new(0));
    let i = issued.clone();
    let replies = Arc::new(AtomicUsize::new(0));
    let rec = Recorder::start(move |r, _| {
        if r.path == "/open-apis/auth/v3/tenant_access_token/internal" {
            let n = i.fetch_add(1, Ordering::SeqCst) + 1;
            return (200, vec![], json!({"code": 0, "msg": "ok", "tenant_access_token": format!("t{n}"), "expire": expire}));
        }
        let n = replies.fetch_add(1, Ordering::SeqCst);
        if n < limited {
            let reset = vec![("x-ogw-ratelimit-reset", "1".to_string())];
            return if n.is_multiple_of(2) {
                (429, reset, json!({"code": 99991400, "msg": "request trigger frequency limit"}))
            } else {
                (400, reset, json!({"code": 99991400, "msg": "request trigger frequency limit"}))
            };
        }
        (200, vec![], json!({"code": 0, "msg": "success", "data": {"message_id": "om_reply"}}))
    })
    .await;
    (rec, issued)
}

#[tokio::test]
async fn replies_use_a_cached_tenant_token_refreshed_before_expiry() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (api, issued) = open_api(2, 0).await;
    let sender = FeishuSender::new(&api.base, "cli_9f5343c580712544", "secret").unwrap();
    sender.deliver(&question(), &answer()).await.unwrap();
    sender.deliver(&question(), &answer()).await.unwrap();
    assert_eq!(
        issued.load(Ordering::SeqCst),
        1,
        "the token is reused while fresh"
    );
    // A 2 s token is refreshed after 1 s.
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    sender.deliver(&question(), &answer()).await.unwrap();
    assert_eq!(issued.load(Ordering::SeqCst), 2);

    let calls = api.calls();
    assert_eq!(
        calls[0].body,
        json!({"app_id": "cli_9f5343c580712544", "app_secret": "secret"})
    );
    let replies: Vec<_> = calls
        .iter()
        .filter(|c| c.path == "/open-apis/im/v1/messages/om_1/reply")
        .collect();
    assert_eq!(replies.len(), 3);
    assert_eq!(replies[0].headers["authorization"], "Bearer t1");
    assert_eq!(replies[2].headers["authorization"], "Bearer t2");
    let r = &replies[0].body;
    assert_eq!(r["msg_type"], "post");
    assert_eq!(r["uuid"], "ev-1");
    assert!(r.to_string().len() <= 30 * 1024);
    let content: Value = serde_json::from_str(r["content"].as_str().unwrap()).unwrap();
    let text = content.to_string();
    assert!(!text.contains("@all") && !text.contains("<at "), "{text}");
    for url in urls_in(&content) {
        assert!(
            url.starts_with("https://git.example/shop/blob/1a2b3c4/"),
            "{url}"
        );
    }
}

#[tokio::test]
async fn rate_limits_wait_out_the_reset_header_then_give_up() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let (api, _) = open_api(7200, 2).await;
    let sender = FeishuSender::new(&api.base, "cli_1", "secret").unwrap();
    sender.deliver(&question(), &answer()).await.unwrap();
    let replies: Vec<_> = api
        .calls()
        .into_iter()
        .filter(|c| c.path.ends_with("/reply"))
        .collect();
    assert_eq!(replies.len(), 3, "429, 99991400, then delivered");
    assert!(replies[2].at - replies[0].at >= Duration::from_secs(2));

    let (api, _) = open_api(7200, 100).await;
    let sender = FeishuSender::new(&api.base, "cli_1", "secret").unwrap();
    let err = sender.deliver(&question(), &answer()).await.unwrap_err();
    assert!(matches!(err, DeliveryError::RateLimited { .. }), "{err}");
}
