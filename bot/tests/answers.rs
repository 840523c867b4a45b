//! The answer core end to end over real indexes of the shop fixture (and a second small
//! repository): questions submitted to the inbox, answered by the query service, delivered to a
//! recording sender.

mod support;

use bot::Submitted;
use bot::model::{ErrorClass, Reply};
use bot::platform::DeliveryError;
use std::time::{Duration, Instant};
use support::*;

const SHOP_ONLY: &str = "[scopes.slack]\nC_SHOP = [\"shop\"]\n";
const SCOPES: &str = "[scopes.slack]\nC_SHOP = [\"shop\"]\nC_BILL = [\"billing\"]\nC_BOTH = [\"shop\", \"billing\"]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stock_deduction_callers_resolve_and_thread_follow_ups_walk_the_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    // Links are only checked when the fixture has a commit: make sure it has one where git is.
    assert!(
        shop.commit.is_some()
            || std::process::Command::new("git")
                .arg("--version")
                .output()
                .is_err(),
        "git is installed but the fixture copy was not committed"
    );
    let bot = start(config(&[("shop", &shop)], SHOP_ONLY), memory_dedupe());
    let inbox = &bot.running.inbox;

    let ask = |event: &str, text: &str| {
        assert_eq!(
            inbox.submit(question("C_SHOP", Some("th1"), "U1", event, text)),
            Submitted::Accepted
        );
    };
    ask("Ev1", "who calls the stock deduction?");
    let got = bot.slack.wait_for(1, WAIT).await;
    let first = answer(&got[0].reply).clone();
    assert_eq!(first.repo, "shop");
    assert_resolves(&first, &shop, "shop");
    let cited = symbols(&first);
    // The deduction is reached from the Feign client of the order service.
    assert_eq!(
        cited.first().map(String::as_str),
        Some("InventoryClient.deduct"),
        "{first:#?}"
    );
    assert!(first.citations.len() <= 5);
    assert!(!first.freshness.is_empty());

    // "that" is the first answer's top symbol; its callers are one hop further up.
    ask("Ev2", "and who calls that?");
    let got = bot.slack.wait_for(2, WAIT).await;
    let second = answer(&got[1].reply).clone();
    assert_resolves(&second, &shop, "shop");
    assert!(
        second
            .notes
            .iter()
            .any(|n| n == "read as: who calls InventoryClient.deduct? (from this thread)"),
        "{:#?}",
        second.notes
    );
    let cited = symbols(&second);
    assert!(
        cited.iter().any(|s| s == "OrderServiceImpl.createOrder"),
        "{cited:?}"
    );

    // The same walk in Chinese, one hop more.
    ask("Ev3", "那谁调用它?");
    let got = bot.slack.wait_for(3, WAIT).await;
    let third = answer(&got[2].reply).clone();
    assert_resolves(&third, &shop, "shop");
    let top = second_top(&second);
    assert!(
        third
            .notes
            .iter()
            .any(|n| n.contains(&top) && n.starts_with("read as:")),
        "{top}: {:#?}",
        third.notes
    );

    // Another thread of the same channel does not know what "that" is.
    assert_eq!(
        inbox.submit(question(
            "C_SHOP",
            Some("th2"),
            "U2",
            "Ev4",
            "and who calls that?"
        )),
        Submitted::Accepted
    );
    let got = bot.slack.wait_for(4, WAIT).await;
    match &got[3].reply {
        Reply::Answer(a) => assert!(a.notes.iter().all(|n| !n.starts_with("read as:"))),
        Reply::Error { class, .. } => assert_eq!(*class, ErrorClass::NotFound),
        other => panic!("{other:?}"),
    }
    bot.running.shutdown().await;
}

/// The first cited symbol of an answer (what its follow-up's "it" means).
fn second_top(a: &bot::model::AnswerReply) -> String {
    a.citations[0].symbol.clone().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_event_is_answered_once_even_across_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let state = tmp.path().join("state/events.sqlite");
    let h8 = Duration::from_secs(8 * 3600);
    let dedupe = std::sync::Arc::new(bot::dedupe::Dedupe::open(&state, h8, 10_000).unwrap());
    let bot = start(config(&[("shop", &shop)], SHOP_ONLY), dedupe);
    let q = question("C_SHOP", None, "U1", "EvSame", "who calls deductStock?");
    assert_eq!(bot.running.inbox.submit(q.clone()), Submitted::Accepted);
    assert_eq!(bot.running.inbox.submit(q.clone()), Submitted::Duplicate);
    // The same id from another workspace is another event.
    let mut other = q.clone();
    other.conversation.workspace = "T2".into();
    other.conversation.channel = "C_UNMAPPED".into();
    assert_eq!(bot.running.inbox.submit(other), Submitted::Accepted);
    bot.slack.wait_for(2, WAIT).await;
    bot.running.shutdown().await;
    let replies = bot.slack.delivered();
    assert_eq!(replies.len(), 2, "{replies:#?}");
    assert_eq!(
        replies
            .iter()
            .filter(|d| d.question.conversation.workspace == "T1")
            .count(),
        1
    );

    // A restart reads the same store: the platform's late retry is still a duplicate.
    let dedupe = std::sync::Arc::new(bot::dedupe::Dedupe::open(&state, h8, 10_000).unwrap());
    let bot = start(config(&[("shop", &shop)], SHOP_ONLY), dedupe);
    assert_eq!(bot.running.inbox.submit(q), Submitted::Duplicate);
    bot.running.shutdown().await;
    assert!(bot.slack.delivered().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn channels_scoped_to_different_repositories_never_cite_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let billing = billing(tmp.path());
    let config = config(&[("shop", &shop), ("billing", &billing)], SCOPES);
    scoped_channels_never_cite_each_other(config, &shop, &billing).await;
}

/// The same over Meilisearch: both repositories published into the same indexes (one prefix),
/// so only the scope filter of the server's queries keeps them apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
async fn channels_scoped_to_different_repositories_never_cite_each_other_on_meilisearch() {
    let Some(meili) = Meili::from_env(
        "channels_scoped_to_different_repositories_never_cite_each_other_on_meilisearch",
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let billing = billing(tmp.path());
    // The store's client is blocking (it runs its own runtime): used, and dropped, off the
    // test's async workers.
    let published = tokio::task::block_in_place(|| {
        [
            meili.publish(&shop, "shop"),
            meili.publish(&billing, "billing"),
        ]
    });
    let config = meili.config(&["shop", "billing"], SCOPES);
    scoped_channels_never_cite_each_other(config, &shop, &billing).await;
    tokio::task::block_in_place(move || {
        for store in published {
            let _ = store.drop_indexes();
        }
    });
}

/// Questions from a shop channel and a billing channel: every answer cites its own repository
/// only (paths, lines and links); a channel with both answers from its default and says so.
async fn scoped_channels_never_cite_each_other(config: bot::Config, shop: &Repo, billing: &Repo) {
    let bot = start(config, memory_dedupe());
    let questions = [
        "who calls the stock deduction?",
        "who calls deductStock?",
        "where is the ledger?",
        "who calls billSale?",
        "where is an order created?",
    ];
    let mut n = 0;
    for (i, q) in questions.iter().enumerate() {
        for ch in ["C_SHOP", "C_BILL"] {
            let ev = format!("Ev{ch}{i}");
            assert_eq!(
                bot.running
                    .inbox
                    .submit(question(ch, None, &format!("U{i}{ch}"), &ev, q)),
                Submitted::Accepted
            );
            n += 1;
        }
    }
    let got = bot.slack.wait_for(n, WAIT).await;
    assert_eq!(got.len(), n);
    let mut answered = [0, 0];
    for d in &got {
        let (own, own_name, other) = match d.question.conversation.channel.as_str() {
            "C_SHOP" => (shop, "shop", billing),
            _ => (billing, "billing", shop),
        };
        if let Reply::Answer(a) = &d.reply {
            assert_eq!(a.repo, own_name);
            assert_resolves(a, own, own_name);
            for c in &a.citations {
                let path = c.label.rsplit_once(':').unwrap().0;
                assert!(!other.root.join(path).exists(), "{own_name} cited {path}");
                if let Some(url) = &c.url {
                    assert!(url.starts_with(&format!("https://github.com/acme/{own_name}/")));
                }
            }
            answered[usize::from(own_name == "billing")] += 1;
        }
    }
    // Both channels did get answers (the test would pass vacuously otherwise).
    assert!(answered[0] >= 3 && answered[1] >= 2, "{answered:?}");

    // A channel with both asks both: each repository's callers, each named and linked to its own
    // repository, and the reply says where it looked.
    assert_eq!(
        bot.running.inbox.submit(question(
            "C_BOTH",
            None,
            "U9",
            "EvBoth",
            "who calls deductStock?"
        )),
        Submitted::Accepted
    );
    let got = bot.slack.wait_for(n + 1, WAIT).await;
    let a = answer(&got[n].reply);
    assert_eq!(a.repo, "shop (+1 more)");
    assert_eq!(
        a.notes[0],
        "asked 2 repositories; citations from shop, billing"
    );
    let repos = assert_resolves_across(a, &[("shop", shop), ("billing", billing)]);
    assert_eq!(repos, ["billing", "shop"], "{:?}", a.citations);
    assert!(
        a.citations
            .iter()
            .any(|c| c.symbol.as_deref() == Some("InvoiceService.billSale")),
        "billing's caller: {:?}",
        a.citations
    );
    bot.running.shutdown().await;
}

/// A question only one repository holds is answered from it first, whatever the scope's order;
/// the one that holds nothing of it is named, not cited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_over_several_repositories_is_answered_from_the_one_that_holds_the_question() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let billing = billing(tmp.path());
    let bot = start(
        config(&[("shop", &shop), ("billing", &billing)], SCOPES),
        memory_dedupe(),
    );
    bot.running.inbox.submit(question(
        "C_BOTH",
        Some("th1"),
        "U1",
        "E1",
        "where is a sale billed on credit in the ledger?",
    ));
    let got = bot.slack.wait_for(1, WAIT).await;
    let a = answer(&got[0].reply);
    assert!(a.repo.starts_with("billing"), "{a:?}");
    assert!(
        a.citations[0].label.starts_with("billing · "),
        "{:?}",
        a.citations
    );
    assert_resolves_across(a, &[("shop", &shop), ("billing", &billing)]);

    // The thread's follow-up stays in the repository that answered.
    bot.running.inbox.submit(question(
        "C_BOTH",
        Some("th1"),
        "U1",
        "E2",
        "who calls that?",
    ));
    let got = bot.slack.wait_for(2, WAIT).await;
    assert_eq!(answer(&got[1].reply).repo, "billing");
    bot.running.shutdown().await;
}

/// A repository whose index cannot be read leaves a partial answer that says so; when none can
/// be read, the reply says that, and the bot keeps answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_that_cannot_be_read_leaves_a_partial_answer_that_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let gone = Repo {
        root: tmp.path().join("gone"),
        index: tmp.path().join("gone/.codemap"),
        commit: None,
    };
    let scopes = "[scopes.slack]\nC_BOTH = [\"shop\", \"gone\"]\nC_GONE = [\"gone\", \"gone2\"]\n";
    let bot = start(
        config(
            &[("shop", &shop), ("gone", &gone), ("gone2", &gone)],
            scopes,
        ),
        memory_dedupe(),
    );
    bot.running.inbox.submit(question(
        "C_BOTH",
        None,
        "U1",
        "E1",
        "who calls deductStock?",
    ));
    bot.running.inbox.submit(question(
        "C_GONE",
        None,
        "U2",
        "E2",
        "who calls deductStock?",
    ));
    let got = bot.slack.wait_for(2, WAIT).await;
    let by_event = |e: &str| &got.iter().find(|d| d.question.event_id == e).unwrap().reply;
    let a = answer(by_event("E1"));
    assert_eq!(a.repo, "shop");
    assert!(
        a.notes
            .iter()
            .any(|n| n == "partial answer: gone could not be searched right now and is left out"),
        "{:?}",
        a.notes
    );
    assert_resolves_across(a, &[("shop", &shop)]);
    let Reply::Error { class, message, .. } = by_event("E2") else {
        panic!("{:?}", by_event("E2"))
    };
    assert_eq!(*class, ErrorClass::Unavailable);
    assert!(message.contains("gone, gone2"), "{message}");
    assert!(
        !message.contains(".codemap"),
        "no paths in the channel: {message}"
    );
    bot.running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_scope_repository_reads_exactly_like_a_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let billing = billing(tmp.path());
    let bot = start(
        config(&[("shop", &shop), ("billing", &billing)], SCOPES),
        memory_dedupe(),
    );
    let inbox = &bot.running.inbox;
    inbox.submit(question(
        "C_SHOP",
        None,
        "U1",
        "E1",
        "repo:billing who calls deductStock?",
    ));
    bot.slack.wait_for(1, WAIT).await;
    inbox.submit(question(
        "C_SHOP",
        None,
        "U2",
        "E2",
        "repo:payroll who calls deductStock?",
    ));
    bot.slack.wait_for(2, WAIT).await;
    // In scope, the selector works.
    inbox.submit(question(
        "C_BOTH",
        None,
        "U3",
        "E3",
        "in billing: who calls deductStock?",
    ));
    let got = bot.slack.wait_for(3, WAIT).await;
    let by_event = |e: &str| &got.iter().find(|d| d.question.event_id == e).unwrap().reply;
    let (out_of_scope, missing) = (by_event("E1"), by_event("E2"));
    let Reply::Error {
        class,
        message,
        reference,
    } = out_of_scope
    else {
        panic!("{out_of_scope:?}")
    };
    assert_eq!(*class, ErrorClass::NotFound);
    assert_eq!(*reference, None);
    let Reply::Error {
        class: c2,
        message: m2,
        reference: r2,
    } = missing
    else {
        panic!("{missing:?}")
    };
    assert_eq!((class, reference), (c2, r2));
    assert_eq!(
        message.replace("billing", "NAME"),
        m2.replace("payroll", "NAME")
    );
    let a = answer(by_event("E3"));
    assert_eq!(a.repo, "billing");
    assert_resolves(a, &billing, "billing");
    assert!(
        symbols(a).iter().any(|s| s == "InvoiceService.billSale"),
        "{a:#?}"
    );

    // An unmapped channel sees nothing: deny by default.
    inbox.submit(question(
        "C_NOWHERE",
        None,
        "U4",
        "E4",
        "who calls deductStock?",
    ));
    let got = bot.slack.wait_for(4, WAIT).await;
    assert!(matches!(
        got[3].reply,
        Reply::Error {
            class: ErrorClass::NotFound,
            ..
        }
    ));
    // Help lists only what the channel may see.
    inbox.submit(question("C_BILL", None, "U5", "E5", "help"));
    let got = bot.slack.wait_for(5, WAIT).await;
    match &got[4].reply {
        Reply::Help(h) => assert_eq!(h.repos, ["billing"]),
        other => panic!("{other:?}"),
    }
    bot.running.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_over_the_rate_limit_always_gets_a_reply_and_platform_waits_are_honoured() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let limits = "[limits]\nquestions_per_minute = 1\nburst = 1\nconcurrency = 1\n";
    let bot = start(
        config(&[("shop", &shop)], &format!("{SHOP_ONLY}{limits}")),
        memory_dedupe(),
    );
    // The platform says "wait 300 ms" once.
    bot.slack.fail_next(DeliveryError::RateLimited {
        after: Duration::from_millis(300),
    });
    let t0 = Instant::now();
    for i in 0..4 {
        bot.running.inbox.submit(question(
            "C_SHOP",
            None,
            "U1",
            &format!("R{i}"),
            "who calls deductStock?",
        ));
    }
    // Another user is not limited by U1.
    bot.running.inbox.submit(question(
        "C_SHOP",
        None,
        "U2",
        "R9",
        "who calls deductStock?",
    ));
    // R0 and U2 answered, R1 held for its token (a minute), R2 and R3 told to wait.
    bot.slack.wait_for(4, WAIT).await;
    // Stopping answers the held question instead of dropping it.
    bot.running.shutdown().await;
    let got = bot.slack.delivered();
    let reply_to = |event: &str| -> Vec<&Reply> {
        got.iter()
            .filter(|d| d.question.event_id == event)
            .map(|d| &d.reply)
            .collect()
    };
    let refused = |r: &Reply| {
        matches!(
            r,
            Reply::Error { class: ErrorClass::User, message, .. } if message.starts_with("You are asking faster")
        )
    };
    assert_eq!(got.len(), 5, "{got:#?}");
    for event in ["R0", "R1", "R9"] {
        let r = reply_to(event);
        assert!(matches!(r[..], [Reply::Answer(_)]), "{event}: {r:#?}");
    }
    for event in ["R2", "R3"] {
        let r = reply_to(event);
        assert!(r.len() == 1 && refused(r[0]), "{event}: {r:#?}");
    }
    // The rate-limited attempt was retried after the wait, not dropped.
    // (Refusals go out at once, so the first attempt may be any of them.)
    assert_eq!(bot.slack.attempts(), 6);
    assert!(
        got.iter()
            .any(|d| d.at.duration_since(t0) >= Duration::from_millis(300))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_answers_what_is_queued_and_refuses_what_comes_after() {
    let tmp = tempfile::tempdir().unwrap();
    let shop = shop(tmp.path());
    let bot = start(config(&[("shop", &shop)], SHOP_ONLY), memory_dedupe());
    for i in 0..6 {
        assert_eq!(
            bot.running.inbox.submit(question(
                "C_SHOP",
                None,
                &format!("U{i}"),
                &format!("S{i}"),
                "who calls deductStock?"
            )),
            Submitted::Accepted
        );
    }
    let inbox = bot.running.inbox.clone();
    bot.running.shutdown().await;
    assert_eq!(bot.slack.delivered().len(), 6);
    assert_eq!(
        inbox.submit(question(
            "C_SHOP",
            None,
            "U1",
            "S9",
            "who calls deductStock?"
        )),
        Submitted::Refused
    );
}
