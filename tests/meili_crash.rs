//! Killing a publish to Meilisearch mid-run, then re-running, leaves no duplicate and no orphan
//! documents. Needs a real server (`MEILI_URL`, `MEILI_MASTER_KEY`); says so when skipped.

mod support;
use indexer::store::catalog::Catalog;
use indexer::store::meilisearch::{MeiliConfig, MeiliStore};
use indexer::store::{IndexDir, IndexRead};
use std::collections::HashSet;
use std::path::Path;
use support::*;

/// `n` classes, and a `Main` (the same text every round) calling all 300 that can exist: its
/// edges turn unresolved when classes go, without its text changing.
fn repo(root: &Path, n: usize, marker: &str) {
    for i in 0..n {
        write(
            root,
            &format!("src/p{}/C{i}.java", i % 5),
            java_class("p", &format!("C{i}"), &format!("{marker} m{i}")),
        );
    }
    let calls: String = (0..300)
        .map(|i| format!("        new p.C{i}().runC{i}(1);\n"))
        .collect();
    write(
        root,
        "src/Main.java",
        format!(
            "package app;\n\npublic class Main {{\n    public void main() {{\n{calls}    }}\n}}\n"
        ),
    );
}

fn publish(idx: &Path, root: &Path, prefix: &str, crash_at: Option<&str>) -> std::process::Child {
    let mut cmd = codemap();
    cmd.args([
        "--index-dir",
        idx.to_str().unwrap(),
        "--backend",
        "meilisearch",
        "--meili-prefix",
        prefix,
    ])
    .args([
        "--repo-name",
        "crashy",
        "index",
        root.to_str().unwrap(),
        "--quiet",
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null());
    if let Some(p) = crash_at {
        cmd.env("CODEMAP_CRASH_AT", p);
    }
    cmd.spawn().unwrap()
}

fn assert_converged(store: &MeiliStore, idx: &Path) {
    let catalog = Catalog::open_read(&IndexDir::new(idx).catalog()).unwrap();
    let (files, symbols, chunks) = catalog.counts().unwrap();
    let m = store.counts().unwrap();
    let edges = catalog.edge_count().unwrap();
    assert!(edges > 0, "the fixture has a call graph");
    assert_eq!(
        (
            m.files as u64,
            m.symbols as u64,
            m.chunks as u64,
            m.edges as u64
        ),
        (files, symbols, chunks, edges),
        "server = local: no duplicates, no orphans"
    );
    let live: HashSet<String> = catalog
        .current_files()
        .unwrap()
        .into_keys()
        .map(|p| p.to_string())
        .collect();
    for s in store.all_symbols().unwrap() {
        assert!(
            live.contains(s.path.as_str()),
            "orphan symbol in {}",
            s.path
        );
    }
    // The calling file's edges on the server are exactly the local ones (resolved or not).
    let key = |e: &indexer::graph::Edge| (e.line, e.caller.clone(), e.callee.clone());
    let local: Vec<_> = catalog
        .edges_in_file("src/Main.java")
        .unwrap()
        .iter()
        .map(key)
        .collect();
    let remote: Vec<_> = store
        .edges_from("java:app.Main#main()")
        .unwrap()
        .iter()
        .map(key)
        .collect();
    assert_eq!(remote, local, "edges of src/Main.java");
    let local_chunks: HashSet<String> = catalog.chunk_ids().unwrap().into_iter().collect();
    for f in &live {
        for c in store.chunks_of(f).unwrap() {
            assert!(local_chunks.contains(&c.id), "orphan chunk {} of {f}", c.id);
        }
    }
    assert_eq!(
        store.last_snapshot().unwrap().unwrap().generation,
        catalog.last_snapshot().unwrap().unwrap().generation
    );
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn killed_publish_then_rerun_converges() {
    let Ok(url) = std::env::var("MEILI_URL") else {
        indexer::testing::skip(
            "meilisearch",
            "killed_publish_then_rerun_converges: MEILI_URL is not set (needs a real Meilisearch server)",
        );
        return;
    };
    let key = std::env::var("MEILI_MASTER_KEY").ok();
    let prefix = format!("crash{}_", std::process::id());
    let store = MeiliStore::connect(MeiliConfig::new(&url, key, &prefix, "crashy")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    repo(&root, 300, "v0");
    assert!(
        publish(&idx, &root, &prefix, None)
            .wait()
            .unwrap()
            .success()
    );
    assert_converged(&store, &idx);

    let mut round = 0;
    for crash in [
        "meili-between-delete-and-add",
        "meili-between-edge-delete-and-add",
        "meili-before-snapshot",
    ] {
        round += 1;
        repo(&root, 300 - round * 10, &format!("v{round}"));
        for i in (300 - round * 10)..300 {
            let _ = std::fs::remove_file(root.join(format!("src/p{}/C{i}.java", i % 5)));
        }
        let status = publish(&idx, &root, &prefix, Some(crash)).wait().unwrap();
        assert!(!status.success(), "{crash}: the publish crashed");
        assert!(
            publish(&idx, &root, &prefix, None)
                .wait()
                .unwrap()
                .success(),
            "{crash}: rerun succeeds"
        );
        assert_converged(&store, &idx);
    }
    for delay_ms in [50u64, 150, 400] {
        round += 1;
        repo(&root, 280, &format!("v{round}"));
        let mut child = publish(&idx, &root, &prefix, None);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        assert!(
            publish(&idx, &root, &prefix, None)
                .wait()
                .unwrap()
                .success()
        );
        assert_converged(&store, &idx);
    }
    // Reads name the published repository; a scope nothing was published under is an error that
    // says what to pass, not an empty answer.
    let read = |repo: &str| {
        codemap()
            .args(["--index-dir", idx.to_str().unwrap()])
            .args(["--backend", "meilisearch", "--meili-prefix", &prefix])
            .args(["--repo-name", repo, "search", "runC7"])
            .output()
            .unwrap()
    };
    let found = read("crashy");
    assert!(found.status.success());
    assert!(String::from_utf8_lossy(&found.stdout).contains("C7.java"));
    let wrong = read("not-published");
    assert_eq!(wrong.status.code(), Some(2));
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        err.contains("no snapshot published for repository \"not-published\"")
            && err.contains("--repo-name"),
        "{err}"
    );
    let _ = store.drop_indexes();
}
