//! A staged rebuild of a team index (`codemap index --rebuild --backend meilisearch`) publishes
//! into fresh indexes and swaps them in, and the local rebuild starts generations over: the
//! snapshot swapped in has the generation the old one had. A warm reader (the bot's default
//! copy within its limit, or one searching on the server) must answer from the new snapshot at
//! once, not from what it kept of the old one's generation. Needs a real server (`MEILI_URL`,
//! `MEILI_MASTER_KEY`).

mod support;

use indexer::model::SymbolId;
use indexer::pipeline::{self, IndexOptions};
use indexer::store::catalog::Catalog;
use indexer::store::meilisearch::{MeiliConfig, MeiliStore};
use indexer::store::{IndexDir, IndexRead};
use query::{IndexLocation, RepoConfig, Scope, Service};
use std::path::Path;
use support::*;

const REPO: &str = "rebuilt";

/// `OrderService.placeOrder` says `word` and calls `callee` (both methods exist either way, so
/// the two versions hold as many files, symbols and chunks).
fn service(word: &str, callee: &str) -> String {
    format!(
        "package com.shop;\n\npublic class OrderService {{\n    /** Books an order: {word}. */\n    public void placeOrder(String sku) {{\n        String note = \"{word}\";\n        {callee}(note);\n    }}\n\n    void reserve(String s) {{\n    }}\n\n    void audit(String s) {{\n    }}\n}}\n"
    )
}

/// Indexes `root` and publishes it to this test's indexes through the binary; `rebuild` as
/// `codemap index --rebuild`. Returns the generation indexed.
fn publish(server: &Server, root: &Path, rebuild: bool) -> u64 {
    let mut cmd = codemap();
    cmd.arg("--index-dir")
        .arg(root.join(".codemap"))
        .args([
            "--backend",
            "meilisearch",
            "--meili-prefix",
            server.prefix(),
        ])
        .args(["--repo-name", REPO, "index"])
        .arg(root)
        .arg("--quiet");
    if rebuild {
        cmd.arg("--rebuild");
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Catalog::open_read(&IndexDir::new(root.join(".codemap")).catalog())
        .unwrap()
        .last_snapshot()
        .unwrap()
        .unwrap()
        .generation
}

fn config(server: &Server) -> MeiliConfig {
    MeiliConfig::new(
        std::env::var("MEILI_URL").unwrap(),
        std::env::var("MEILI_MASTER_KEY").ok(),
        server.prefix(),
        REPO,
    )
}

/// Files of the best keyword hits for `q` as the service's warm reader finds them.
fn hits(svc: &Service, q: &str) -> Vec<String> {
    let q = q.to_string();
    svc.view(&Scope::of([REPO]), REPO, move |v, _| {
        Ok(v.index
            .search_chunks(&q, 10)?
            .into_iter()
            .map(|h| h.1)
            .collect())
    })
    .unwrap()
}

/// The simple names `placeOrder` calls, from the service's graph.
fn callees(svc: &Service) -> Vec<String> {
    let mut out = svc
        .view(&Scope::of([REPO]), REPO, |v, g| {
            let i = v.named("placeOrder")[0];
            let id = SymbolId(v.sym(i).symbol.id.0.clone());
            Ok(g.callees(&id)?
                .into_iter()
                .map(|e| e.to.0.rsplit(['#', '.']).next().unwrap_or("").to_string())
                .collect::<Vec<_>>())
        })
        .unwrap();
    out.iter_mut().for_each(|c| {
        *c = c.split('(').next().unwrap_or("").to_string();
    });
    out
}

const FILE: &str = "src/com/shop/OrderService.java";

/// A repository whose service says "lanternfish" and calls `reserve`, published: (its folder's
/// keeper, the repository, the snapshot's generation).
fn first_snapshot(server: &Server) -> (tempfile::TempDir, std::path::PathBuf, u64) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    write(&root, FILE, service("lanternfish", "reserve"));
    let first = publish(server, &root, false);
    (tmp, root, first)
}

fn start(server: &Server, preload: bool) -> Service {
    Service::start(
        vec![RepoConfig {
            name: REPO.into(),
            location: IndexLocation::Meilisearch {
                config: config(server),
                cache_dir: None,
                repo_root: None,
            },
            workers: 2,
            preload,
            preload_limit_mb: Some(512),
        }],
        None,
    )
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_warm_bot_answers_from_the_snapshot_a_staged_rebuild_swapped_in() {
    let Some(server) = Server::from_env("warm_rebuild") else {
        return;
    };
    let (_keep, root, first) = first_snapshot(&server);
    let file = FILE;

    // The bot's default: the snapshot copied (graph, rows, text, chunks searched in memory).
    let svc = start(&server, true);
    let waited = std::time::Instant::now();
    while !svc.status(&Scope::of([REPO]), REPO).unwrap().preloaded {
        assert!(waited.elapsed().as_secs() < 60, "the copy is made");
        hits(&svc, "lanternfish");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(hits(&svc, "lanternfish"), [file]);
    assert!(hits(&svc, "quokka").is_empty());
    assert_eq!(callees(&svc), ["reserve"]);

    // Changed code, rebuilt and swapped in: generations start over.
    write(&root, file, service("quokka", "audit"));
    let second = publish(&server, &root, true);
    assert_eq!(
        second, first,
        "the rebuilt snapshot has the old one's generation"
    );
    assert_eq!(hits(&svc, "quokka"), [file], "the new snapshot's words");
    assert!(
        hits(&svc, "lanternfish").is_empty(),
        "the old snapshot's words are gone"
    );
    assert_eq!(callees(&svc), ["audit"], "the new snapshot's call graph");
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_bot_searching_on_the_server_forgets_the_lists_of_the_snapshot_swapped_out() {
    let Some(server) = Server::from_env("lists_rebuild") else {
        return;
    };
    let (_keep, root, first) = first_snapshot(&server);
    let file = FILE;

    let svc = start(&server, false);
    assert_eq!(hits(&svc, "lanternfish"), [file]);
    // Asked before the word exists: an empty list, kept for this snapshot.
    assert!(hits(&svc, "quokka").is_empty());
    assert_eq!(callees(&svc), ["reserve"]);

    write(&root, file, service("quokka", "audit"));
    let second = publish(&server, &root, true);
    assert_eq!(
        second, first,
        "the rebuilt snapshot has the old one's generation"
    );
    assert_eq!(hits(&svc, "quokka"), [file], "not the list kept before");
    assert_eq!(
        callees(&svc),
        ["audit"],
        "not the neighbourhood kept before"
    );
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_publish_from_a_fresh_index_folder_replaces_what_the_server_holds() {
    let Some(server) = Server::from_env("fresh_folder") else {
        return;
    };
    let (_keep, root, first) = first_snapshot(&server);
    write(&root, "README.md", "# shop\n");
    assert_eq!(publish(&server, &root, false), first + 1);
    // A CI job on a fresh runner keeps no index folder: every run starts at generation 1, so
    // the server's snapshot may have a generation (and here a commit: none) the new one has,
    // or a later one.
    std::fs::remove_dir_all(root.join(".codemap")).unwrap();
    write(&root, FILE, service("quokka", "audit"));
    let second = publish(&server, &root, false);
    assert_eq!(second, first, "a fresh folder starts generations over");
    let store = MeiliStore::connect(config(&server)).unwrap();
    let last = store.last_snapshot().unwrap().unwrap();
    assert_eq!(
        last.generation, second,
        "the server's last snapshot is the new one"
    );

    let svc = start(&server, false);
    assert_eq!(
        hits(&svc, "quokka"),
        [FILE],
        "the new code is on the server"
    );
    assert!(hits(&svc, "lanternfish").is_empty(), "the old code is gone");
    assert_eq!(callees(&svc), ["audit"]);

    // And a run after it publishes only its change, from the snapshot it knows it published.
    write(&root, FILE, service("wombat", "reserve"));
    let third = publish(&server, &root, false);
    assert_eq!(third, second + 1);
    let svc = start(&server, false);
    assert_eq!(hits(&svc, "wombat"), [FILE]);
    assert!(hits(&svc, "quokka").is_empty());
}

/// Indexes `root` into `idx` in this process; the snapshot's time (seconds).
fn index_here(root: &Path, idx: &Path) -> i64 {
    let dir = IndexDir::new(idx);
    pipeline::run(root, &dir, &IndexOptions::default(), &|_| {}).expect("index runs");
    Catalog::open_read(&dir.catalog())
        .unwrap()
        .last_snapshot()
        .unwrap()
        .unwrap()
        .created_at
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_rebuild_of_the_same_second_is_not_answered_from_the_lists_kept_before() {
    let Some(server) = Server::from_env("lists_same_second") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let file = "src/com/shop/OrderService.java";
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    write(&old, file, service("lanternfish", "reserve"));
    write(&new, file, service("quokka", "audit"));
    // Two runs whose snapshots share generation, second, commit (none) and counts: all a
    // reader could tell them apart by before publishes carried an id.
    let same_second = (0..5).any(|k| {
        let (a, b) = (
            tmp.path().join(format!("a{k}")),
            tmp.path().join(format!("b{k}")),
        );
        if index_here(&old, &a) == index_here(&new, &b) {
            std::fs::rename(&a, tmp.path().join("old-idx")).unwrap();
            std::fs::rename(&b, tmp.path().join("new-idx")).unwrap();
            return true;
        }
        false
    });
    assert!(same_second, "two small runs within one second");
    let catalog =
        |name: &str| Catalog::open_read(&IndexDir::new(tmp.path().join(name)).catalog()).unwrap();
    let store = server.store(REPO);
    store.publish(&catalog("old-idx")).unwrap();
    let reader = server.store(REPO);
    let files = |q: &str| -> Vec<String> {
        reader
            .search_chunks(q, 10)
            .unwrap()
            .into_iter()
            .map(|h| h.1)
            .collect()
    };
    assert_eq!(files("lanternfish"), [file]);
    assert!(files("quokka").is_empty(), "asked before the word exists");

    let before = reader.last_snapshot().unwrap().unwrap();
    store
        .stage_rebuild(&catalog("new-idx"))
        .unwrap()
        .swap_in()
        .unwrap();
    let after = reader.last_snapshot().unwrap().unwrap();
    assert_eq!(
        (
            after.generation,
            after.created_at,
            after.files,
            after.chunks
        ),
        (
            before.generation,
            before.created_at,
            before.files,
            before.chunks
        )
    );
    assert_ne!(after.publish_id, before.publish_id);
    assert_eq!(files("quokka"), [file], "not the empty list kept before");
    assert!(files("lanternfish").is_empty());
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn neighbourhoods_are_read_once_per_snapshot_by_every_reader_of_the_process() {
    let Some(server) = Server::from_env("kept_edges") else {
        return;
    };
    let (_keep, root, _) = first_snapshot(&server);
    let id = "java:com.shop.OrderService#placeOrder(String)";
    let callees = |store: &MeiliStore| -> Vec<String> {
        let mut out: Vec<String> = store
            .edges_from(id)
            .unwrap()
            .into_iter()
            .filter_map(|e| e.callee)
            .collect();
        out.extend(
            store.edges_from_many(&[id]).unwrap()[id]
                .iter()
                .filter_map(|e| e.callee.clone()),
        );
        out
    };
    let first = MeiliStore::connect(config(&server)).unwrap();
    let reserve = "java:com.shop.OrderService#reserve(String)".to_string();
    assert_eq!(callees(&first), [reserve.clone(), reserve.clone()]);
    // Gone from the server with no new snapshot: the process still answers from what it read,
    // a reader opened since as well (the bot's workers share one cache).
    server.delete_documents("edges", REPO);
    let other = MeiliStore::connect(config(&server)).unwrap();
    assert_eq!(callees(&other), [reserve.clone(), reserve]);
    // A new snapshot is read afresh, half a second after its publish at most.
    write(&root, FILE, service("lanternfish", "audit"));
    publish(&server, &root, false);
    std::thread::sleep(std::time::Duration::from_millis(600));
    let audit = "java:com.shop.OrderService#audit(String)".to_string();
    assert_eq!(callees(&first), [audit.clone(), audit]);
}
