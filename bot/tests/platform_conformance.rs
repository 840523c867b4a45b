//! One suite over every [`ChatSender`]: the same hostile replies go to each platform's loopback
//! API, and what arrives must hold the rules all three share — only code links, no live mass
//! mention, errors told with their reference id, every citation either shown whole or counted.

mod platform_support;

use bot::model::{
    AnswerReply, ChainLine, CodeLink, Conversation, Delivery, ErrorClass, Platform, Question, Reply,
};
use bot::platform::ChatSender;
use bot::platform::discord::DiscordSender;
use bot::platform::feishu::FeishuSender;
use bot::platform::slack::SlackSender;
use platform_support::{Recorded, Recorder, urls_in};
use serde_json::{Value, json};

const CODE_HOST: &str = "https://git.example/shop/blob/1a2b3c4/";
const MASS: [&str; 9] = [
    "@everyone",
    "@here",
    "@channel",
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<@&",
    "@all",
    "<at ",
];

fn hostile_answer(citations: usize) -> Reply {
    let link = |l: usize| CodeLink {
        label: format!("src/main/java/shop/OrderService.java:{l}"),
        url: Some(format!(
            "{CODE_HOST}src/main/java/shop/OrderService.java#L{l}"
        )),
        symbol: Some("OrderService.placeOrder".into()),
    };
    Reply::Answer(AnswerReply {
        repo: "shop @everyone".into(),
        summary: "Called by placeOrder. @everyone @here @channel <!channel> <!here> <!everyone> <@&42> @all <at user_id=\"all\"></at> \
                  [login](https://evil.example/steal?t=1) ![x](http://evil.example/p.png) <https://evil.example|click>"
            .into(),
        chain: vec![ChainLine { depth: 1, symbol: "OrderService.placeOrder @here".into(), link: link(77) }],
        citations: (1..=citations)
            .map(link)
            .chain([
                CodeLink { label: "bad scheme".into(), url: Some("javascript:alert(1)".into()), symbol: None },
                CodeLink { label: "markup".into(), url: Some("https://evil.example/a|<!channel>".into()), symbol: None },
            ])
            .collect(),
        notes: vec!["note with https://evil.example/n".into()],
        freshness: "indexed at 1a2b3c4 <!here>".into(),
    })
}

fn internal_error() -> Reply {
    Reply::Error {
        class: ErrorClass::Internal,
        message: "panic at src/secret.rs:12 @everyone".into(),
        reference: Some("ref-5d1c".into()),
    }
}

fn question(platform: Platform, delivery: Delivery) -> Question {
    Question {
        conversation: Conversation {
            platform,
            workspace: "W1".into(),
            channel: "C1".into(),
            thread: Some("1700000000.000100".into()),
            user: "U1".into(),
            direct: false,
        },
        text: "who calls the stock deduction?".into(),
        event_id: "ev-conf".into(),
        delivery,
    }
}

/// A fake API that accepts everything the way each platform says "ok".
async fn api() -> Recorder {
    Recorder::start(|r, _| {
        if r.path.ends_with("tenant_access_token/internal") {
            return (
                200,
                vec![],
                json!({"code": 0, "tenant_access_token": "t-1", "expire": 7200}),
            );
        }
        (200, vec![], json!({"ok": true, "code": 0, "id": "1"}))
    })
    .await
}

struct Case {
    name: &'static str,
    sender: Box<dyn ChatSender>,
    question: Question,
}

async fn cases(api: &Recorder) -> Vec<Case> {
    vec![
        Case {
            name: "slack",
            sender: Box::new(
                SlackSender::new("xoxb-1", &api.base, "https://hooks.slack.com").unwrap(),
            ),
            question: question(Platform::Slack, Delivery::Post),
        },
        Case {
            name: "discord",
            sender: Box::new(DiscordSender::new(&api.base, None).unwrap()),
            question: question(
                Platform::Discord,
                Delivery::DiscordInteraction {
                    application_id: "1".into(),
                    token: "tok".into(),
                },
            ),
        },
        Case {
            name: "feishu",
            sender: Box::new(FeishuSender::new(&api.base, "cli_1", "secret").unwrap()),
            question: question(Platform::Feishu, Delivery::FeishuReply("om_1".into())),
        },
    ]
}

/// The message payloads (not token requests), with Feishu's stringified content unpacked.
fn messages(calls: &[Recorded]) -> Vec<Value> {
    calls
        .iter()
        .filter(|c| !c.path.ends_with("tenant_access_token/internal"))
        .map(|c| match c.body.get("content").and_then(Value::as_str) {
            Some(s) if c.body.get("msg_type").is_some() => serde_json::from_str(s).unwrap(),
            _ => c.body.clone(),
        })
        .collect()
}

#[tokio::test]
async fn every_sender_keeps_links_mentions_and_errors_safe() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    for citations in [3, 400] {
        let api = api().await;
        for case in cases(&api).await {
            let before = api.calls().len();
            case.sender
                .deliver(&case.question, &hostile_answer(citations))
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            let sent = messages(&api.calls()[before..]);
            assert!(!sent.is_empty(), "{}", case.name);
            let text = serde_json::to_string(&sent).unwrap();
            for url in urls_in(&Value::Array(sent.clone())) {
                assert!(
                    url.starts_with(CODE_HOST),
                    "{}: a link the bot did not build: {url}",
                    case.name
                );
            }
            for m in MASS {
                assert!(!text.contains(m), "{}: live {m} in {text}", case.name);
            }
            // Each citation appears whole exactly once, or the reply says lines were left out.
            let shown = (1..=citations)
                .filter(|l| {
                    text.contains(&format!("OrderService.java:{l}\""))
                        || text.contains(&format!("OrderService.java:{l}>"))
                        || text.contains(&format!("OrderService.java:{l}]"))
                        || text.contains(&format!("OrderService.java:{l}|"))
                })
                .count();
            if shown < citations {
                assert!(
                    text.contains("not shown"),
                    "{}: {shown}/{citations} citations and no pointer",
                    case.name
                );
            }
            assert!(
                text.contains(&format!(
                    "{CODE_HOST}src/main/java/shop/OrderService.java#L1"
                )),
                "{}: the first citation is a link",
                case.name
            );
        }
    }

    let api = api().await;
    for case in cases(&api).await {
        let before = api.calls().len();
        case.sender
            .deliver(&case.question, &internal_error())
            .await
            .unwrap();
        let text = serde_json::to_string(&messages(&api.calls()[before..])).unwrap();
        assert!(
            text.contains("ref-5d1c"),
            "{}: the reference id is shown",
            case.name
        );
        assert!(
            !text.contains("src/secret.rs"),
            "{}: internal detail stays in the log",
            case.name
        );
    }
}
