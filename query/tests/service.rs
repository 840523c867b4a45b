//! `query::Service` over real indexes: two repositories behind one service, scopes enforced
//! before any index is touched, a re-index picked up without a restart, and many threads asking
//! at once.

mod support;

use indexer::pipeline::{self, IndexOptions};
use query::{IndexLocation, RepoConfig, Request, Scope, Service, ServiceError};
use std::path::Path;
use std::sync::Arc;
use support::*;

const STOCK: &str = "package com.shop.stock;\n\n/** Stock levels. */\npublic class StockService {\n    private int left = 10;\n\n    /** Takes stock away for an order. */\n    public void deductStock(String sku, int qty) {\n        left -= qty;\n    }\n}\n";
const ORDER: &str = "package com.shop.order;\n\nimport com.shop.stock.StockService;\n\n/** Orders. */\npublic class OrderService {\n    private final StockService stock = new StockService();\n\n    /** Places an order. */\n    public void placeOrder(String sku, int qty) {\n        stock.deductStock(sku, qty);\n    }\n}\n";
const LEDGER: &str = "package com.billing;\n\n/** The ledger. */\npublic class Ledger {\n    /** Books an amount. */\n    public void book(long cents) {\n    }\n}\n";
const INVOICE: &str = "package com.billing;\n\n/** Invoices. */\npublic class InvoiceService {\n    private final Ledger ledger = new Ledger();\n\n    /** Bills a sale. */\n    public void billSale(long cents) {\n        ledger.book(cents);\n    }\n}\n";

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

fn repo(name: &str, root: &Path, workers: usize) -> RepoConfig {
    RepoConfig {
        name: name.into(),
        location: IndexLocation::Embedded {
            index_dir: root.join(".codemap"),
            repo_root: Some(root.to_path_buf()),
        },
        workers,
        preload: true,
        preload_limit_mb: None,
    }
}

fn cited(a: &query::Answer) -> Vec<String> {
    symbols(a)
}

/// Writes a new ReturnService (a new caller of the shop's stock deduction) and indexes the shop
/// again, as `codemap index` would.
fn reindex_with_return_service(shop: &Path, source: &str) {
    std::fs::write(shop.join("src/com/shop/stock/ReturnService.java"), source).unwrap();
    let dir = indexer::store::IndexDir::new(shop.join(".codemap"));
    pipeline::run(shop, &dir, &IndexOptions::default(), &|_| {}).unwrap();
}

fn two_repos(tmp: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let shop = tmp.join("shop");
    index_repo(
        &shop,
        &files(&[
            ("src/com/shop/stock/StockService.java", STOCK),
            ("src/com/shop/order/OrderService.java", ORDER),
        ]),
    );
    let billing = tmp.join("billing");
    index_repo(
        &billing,
        &files(&[
            ("src/com/billing/Ledger.java", LEDGER),
            ("src/com/billing/InvoiceService.java", INVOICE),
        ]),
    );
    (shop, billing)
}

#[test]
fn two_repositories_answer_each_from_its_own_index() {
    let tmp = tempfile::tempdir().unwrap();
    let (shop, billing) = two_repos(tmp.path());
    let svc = Service::start(
        vec![repo("shop", &shop, 1), repo("billing", &billing, 1)],
        None,
    );
    let all = Scope::of(["shop", "billing"]);
    assert_eq!(svc.repositories(&all), ["billing", "shop"]);
    let a = svc
        .ask(&all, "shop", &Request::new("Who calls deductStock?"))
        .unwrap();
    assert_eq!(cited(&a)[0], "OrderService.placeOrder");
    assert_citations_resolve(&a, &shop);
    let b = svc
        .ask(&all, "billing", &Request::new("Who calls book?"))
        .unwrap();
    assert_eq!(cited(&b)[0], "InvoiceService.billSale");
    assert_citations_resolve(&b, &billing);
    // Status reads the snapshot without a question.
    let st = svc.status(&all, "billing").unwrap();
    assert_eq!(
        (st.name.as_str(), st.files, st.graph_built),
        ("billing", 2, true)
    );
    // `read` hands the reader to a closure inside the worker.
    let files = svc
        .read(&all, "shop", |r| {
            r.current_files().map(|f| f.len()).unwrap_or(0)
        })
        .unwrap();
    assert_eq!(files, 2);
}

#[test]
fn a_repository_outside_the_scope_reads_exactly_like_a_missing_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (shop, billing) = two_repos(tmp.path());
    let svc = Service::start(
        vec![repo("shop", &shop, 1), repo("billing", &billing, 1)],
        None,
    );
    let shop_only = Scope::of(["shop"]);
    let q = Request::new("Who calls book?");
    let outside = svc.ask(&shop_only, "billing", &q).unwrap_err();
    let missing = svc.ask(&shop_only, "payroll", &q).unwrap_err();
    assert!(matches!(outside, ServiceError::NotFound(ref n) if n == "billing"));
    assert!(matches!(missing, ServiceError::NotFound(ref n) if n == "payroll"));
    assert_eq!(
        outside.to_string().replace("billing", "X"),
        missing.to_string().replace("payroll", "X")
    );
    assert!(matches!(
        svc.status(&shop_only, "billing"),
        Err(ServiceError::NotFound(_))
    ));
    assert!(matches!(
        svc.read(&shop_only, "billing", |_| ()),
        Err(ServiceError::NotFound(_))
    ));
    // Deny by default: the empty scope sees nothing, not even the list.
    let none = Scope::default();
    assert!(svc.repositories(&none).is_empty());
    assert!(matches!(
        svc.ask(&none, "shop", &q),
        Err(ServiceError::NotFound(_))
    ));
    // A configured repository whose index does not exist is unavailable, not missing; the
    // others keep serving.
    let svc = Service::start(
        vec![
            repo("shop", &shop, 1),
            repo("gone", &tmp.path().join("gone"), 1),
        ],
        None,
    );
    let s = Scope::of(["shop", "gone"]);
    assert!(matches!(
        svc.ask(&s, "gone", &q),
        Err(ServiceError::Unavailable { .. })
    ));
    assert!(
        svc.ask(&s, "shop", &Request::new("Who calls deductStock?"))
            .is_ok()
    );
}

#[test]
fn a_re_index_is_answered_without_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let (shop, _) = two_repos(tmp.path());
    let svc = Service::start(vec![repo("shop", &shop, 2)], None);
    let s = Scope::of(["shop"]);
    let q = Request::new("Who calls deductStock?");
    let before = svc.ask(&s, "shop", &q).unwrap();
    assert!(
        !cited(&before)
            .iter()
            .any(|c| c.starts_with("ReturnService"))
    );
    let gen_before = before.freshness.generation;

    // A new caller appears and the repository is indexed again, as `codemap index` would.
    reindex_with_return_service(
        &shop,
        "package com.shop.stock;\n\n/** Returns. */\npublic class ReturnService {\n    private final StockService stock = new StockService();\n\n    /** A damaged return still leaves the shelf. */\n    public void writeOffDamaged(String sku) {\n        stock.deductStock(sku, 1);\n    }\n}\n",
    );

    // Both warm workers see it (ask twice as many times as there are workers).
    for _ in 0..4 {
        let after = svc.ask(&s, "shop", &q).unwrap();
        assert!(after.freshness.generation > gen_before);
        assert!(
            cited(&after)
                .iter()
                .any(|c| c == "ReturnService.writeOffDamaged"),
            "{:?}",
            cited(&after)
        );
        assert_citations_resolve(&after, &shop);
    }
}

#[test]
fn many_threads_ask_at_once_and_each_gets_its_own_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let (shop, billing) = two_repos(tmp.path());
    let svc = Arc::new(Service::start(
        vec![repo("shop", &shop, 2), repo("billing", &billing, 2)],
        None,
    ));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let svc = svc.clone();
            std::thread::spawn(move || {
                let s = Scope::of(["shop", "billing"]);
                (0..5)
                    .map(|_| {
                        let (repo, q, want) = if i % 2 == 0 {
                            ("shop", "Who calls deductStock?", "OrderService.placeOrder")
                        } else {
                            ("billing", "Who calls book?", "InvoiceService.billSale")
                        };
                        let a = svc.ask(&s, repo, &Request::new(q)).unwrap();
                        (a.citations[0].symbol.clone().unwrap(), want)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut n = 0;
    for h in handles {
        for (got, want) in h.join().unwrap() {
            assert_eq!(got, want);
            n += 1;
        }
    }
    assert_eq!(n, 40);
}

/// The address of the shared view tables each of `workers` workers answers from: every job
/// waits at a barrier until all are taken, so each worker holds exactly one.
fn tables_seen_by_each_worker(svc: &Arc<Service>, workers: usize) -> Vec<usize> {
    let barrier = Arc::new(std::sync::Barrier::new(workers));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (svc, barrier) = (svc.clone(), barrier.clone());
            std::thread::spawn(move || {
                svc.view(&Scope::of(["shop"]), "shop", move |v, _| {
                    barrier.wait();
                    Ok(Arc::as_ptr(v.shared()) as usize)
                })
                .unwrap()
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn the_workers_of_a_repository_share_one_view_and_move_to_the_next_together() {
    let tmp = tempfile::tempdir().unwrap();
    let (shop, _) = two_repos(tmp.path());
    let svc = Arc::new(Service::start(vec![repo("shop", &shop, 3)], None));
    let first = tables_seen_by_each_worker(&svc, 3);
    assert!(first.iter().all(|&p| p == first[0]), "{first:?}");

    // A re-index: the first worker to notice opens the new tables, the others take them.
    reindex_with_return_service(
        &shop,
        "package com.shop.stock;\n\npublic class ReturnService {\n    public void writeOff(StockService s) {\n        s.deductStock(\"x\", 1);\n    }\n}\n",
    );
    let second = tables_seen_by_each_worker(&svc, 3);
    assert!(second.iter().all(|&p| p == second[0]), "{second:?}");
    let sym_count = svc
        .view(&Scope::of(["shop"]), "shop", |v, _| {
            Ok(v.named("writeOff").len())
        })
        .unwrap();
    // What they hold, not where: the old tables may be freed and their address reused.
    assert_eq!(sym_count, 1, "the shared view is the new snapshot's");
}

/// Polls the repository's status until its current snapshot is preloaded.
fn wait_preloaded(svc: &Service, repo: &str) {
    let s = Scope::of([repo]);
    for _ in 0..500 {
        if svc.status(&s, repo).unwrap().preloaded {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("{repo} was not preloaded within 10 s");
}

#[test]
fn a_preloading_service_answers_as_one_reading_per_question_and_moves_to_the_next_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let (shop, _) = two_repos(tmp.path());
    let cold = RepoConfig {
        preload: false,
        ..repo("shop", &shop, 1)
    };
    let (warm, cold) = (
        Service::start(vec![repo("shop", &shop, 2)], None),
        Service::start(vec![cold], None),
    );
    let s = Scope::of(["shop"]);
    let q = Request::new("Who calls deductStock?");
    let first = warm.ask(&s, "shop", &q).unwrap();
    assert_eq!(cited(&first), cited(&cold.ask(&s, "shop", &q).unwrap()));
    wait_preloaded(&warm, "shop");
    assert!(!cold.status(&s, "shop").unwrap().preloaded, "preload off");
    for q in [
        "Who calls deductStock?",
        "what does placeOrder call?",
        "where is stock deducted?",
    ] {
        let (a, b) = (
            warm.ask(&s, "shop", &Request::new(q)).unwrap(),
            cold.ask(&s, "shop", &Request::new(q)).unwrap(),
        );
        assert_eq!(a.answer, b.answer, "{q}");
        assert_eq!(
            format!("{:?}", a.citations),
            format!("{:?}", b.citations),
            "{q}"
        );
    }

    // A re-index: the preloaded graph is the old snapshot's and must not answer for the new one.
    reindex_with_return_service(
        &shop,
        "package com.shop.stock;\n\npublic class ReturnService {\n    public void writeOff(StockService s) {\n        s.deductStock(\"x\", 1);\n    }\n}\n",
    );
    for _ in 0..4 {
        let a = warm.ask(&s, "shop", &q).unwrap();
        assert!(
            cited(&a).iter().any(|c| c == "ReturnService.writeOff"),
            "{:?}",
            cited(&a)
        );
    }
    wait_preloaded(&warm, "shop");
    let a = warm.ask(&s, "shop", &q).unwrap();
    assert!(
        cited(&a).iter().any(|c| c == "ReturnService.writeOff"),
        "{:?}",
        cited(&a)
    );
    assert_citations_resolve(&a, &shop);
}
