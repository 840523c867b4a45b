//! Keyword ranking on both backends: BM25 over the code analyzer's tokens, where Meilisearch's
//! own order would differ; on Meilisearch also the kept token counts and exact-word matching.
//! The Meilisearch test needs a real server (`MEILI_URL`, `MEILI_MASTER_KEY`).

mod support;
use indexer::pipeline::{self, IndexOptions};
use indexer::store::catalog::Catalog;
use indexer::store::{EmbeddedIndex, IndexDir, IndexRead};
use std::path::Path;
use support::*;

fn build(root: &Path, idx: &Path) -> IndexDir {
    let dir = IndexDir::new(idx);
    pipeline::run(root, &dir, &IndexOptions::default(), &|_| {}).expect("index runs");
    dir
}

/// A repository where Meilisearch's own order (most query words matched first) and BM25 (a
/// rare word, often, in a short chunk) disagree.
fn rare_word_fixture(root: &Path) {
    for k in 0..20 {
        let name = format!("Common{k}");
        write(
            root,
            &format!("src/main/java/rw/{name}.java"),
            java_class("rw", &name, "common"),
        );
    }
    let filler: String = (0..40)
        .map(|k| format!("        int v{k} = {k} * 2;\n"))
        .collect();
    write(
        root,
        "src/main/java/rw/Mixed.java",
        format!(
            "package rw;\n\npublic class Mixed {{\n    int both() {{\n        // common, and a sharding key once\n{filler}        return 0;\n    }}\n}}\n"
        ),
    );
    write(
        root,
        "src/main/java/rw/Sharding.java",
        "package rw;\n\npublic class Sharding {\n    /** Sharding: picks the sharding slot by the sharding hash. */\n    int sharding(int h) {\n        return h % 7; // sharding\n    }\n}\n",
    );
}

/// The file of the best keyword hit for "common sharding".
fn top_keyword_file(r: &dyn IndexRead) -> Option<String> {
    let hits = r.search_chunks("common sharding", 10).unwrap();
    hits.first().map(|h| h.1.clone())
}

/// Both stores rank keyword hits by BM25 over the code analyzer's tokens: the short chunk that
/// says the rare word often comes first, though another chunk holds every word of the query.
#[test]
fn the_embedded_store_ranks_keyword_hits_by_bm25() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("rw");
    rare_word_fixture(&root);
    let dir = build(&root, &tmp.path().join("idx"));
    let embedded = EmbeddedIndex::open(&dir).unwrap();
    assert_eq!(
        top_keyword_file(&embedded).as_deref(),
        Some("src/main/java/rw/Sharding.java")
    );
}

/// The same on Meilisearch.
#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn meilisearch_ranks_keyword_hits_by_bm25_like_the_embedded_store() {
    let Some(server) = Server::from_env("meilisearch_ranks_keyword_hits_by_bm25") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("rw");
    rare_word_fixture(&root);
    let dir = build(&root, &tmp.path().join("idx"));
    let store = server.store("rw");
    store
        .publish(&Catalog::open_read(&dir.catalog()).unwrap())
        .unwrap();
    assert_eq!(
        top_keyword_file(&store),
        top_keyword_file(&EmbeddedIndex::open(&dir).unwrap())
    );
    assert_eq!(
        top_keyword_file(&store).as_deref(),
        Some("src/main/java/rw/Sharding.java")
    );
    // Words match exactly, as the analyzer's tokens do: no typo (`shardimg`) or prefix
    // (`shardin`) matches widen the pool.
    for word in ["shardimg", "shardin"] {
        assert_eq!(store.search_chunks(word, 5).unwrap(), vec![], "{word}");
    }
    // Once warm, the snapshot's chunks are searched in memory with the embedded index's
    // schema and analyzer: the same hits, the same scores, phrases included.
    let cold = store.search_chunks("common sharding", 10).unwrap();
    store.warm_search().unwrap();
    for q in ["common sharding", "sharding slot", "\"sharding hash\""] {
        same_ranking(
            store.search_chunks(q, 10).unwrap(),
            EmbeddedIndex::open(&dir)
                .unwrap()
                .search_chunks(q, 10)
                .unwrap(),
            q,
        );
    }
    let ids = |hits: Vec<(String, String, f32)>| hits.into_iter().map(|h| h.0).collect::<Vec<_>>();
    assert_eq!(
        ids(store.search_chunks("common sharding", 10).unwrap())[..2],
        ids(cold)[..2]
    );
    // A changed chunk is a new chunk: what was kept for the old text does not score the new
    // (Common0 now says the rare word often and comes second, as in the embedded index).
    write(
        &root,
        "src/main/java/rw/Common0.java",
        "package rw;\n\npublic class Common0 {\n    /** Sharding, sharding, sharding: common. */\n    int sharding(int h) {\n        return h; // sharding sharding sharding sharding\n    }\n}\n",
    );
    let dir = build(&root, &tmp.path().join("idx"));
    store
        .publish(&Catalog::open_read(&dir.catalog()).unwrap())
        .unwrap();
    let files = |r: &dyn IndexRead| -> Vec<String> {
        let hits = r.search_chunks("common sharding", 3).unwrap();
        hits.into_iter().map(|h| h.1).collect()
    };
    // The warm index holds the snapshot before: questions search on the server meanwhile.
    let embedded = files(&EmbeddedIndex::open(&dir).unwrap());
    assert_eq!(files(&store), embedded);
    assert_eq!(embedded[1], "src/main/java/rw/Common0.java", "{embedded:?}");
    // Warm again for the new snapshot: the changed chunk is found in memory too. (Scores
    // differ a little: the embedded index still counts the replaced chunk until it merges.)
    store.warm_search().unwrap();
    assert_eq!(files(&store), embedded);
}

/// Two hit lists with the same scores, in the same order wherever scores differ: chunks of
/// equal score come in the order each index added them.
fn same_ranking(a: Vec<(String, String, f32)>, b: Vec<(String, String, f32)>, q: &str) {
    let scores = |h: &[(String, String, f32)]| h.iter().map(|x| x.2).collect::<Vec<_>>();
    assert_eq!(scores(&a), scores(&b), "{q}");
    let cut = a.last().map(|x| x.2).unwrap_or(0.0);
    let above = |h: &[(String, String, f32)]| {
        let mut v: Vec<(String, String)> = h
            .iter()
            .filter(|x| x.2 > cut)
            .map(|x| (x.0.clone(), x.1.clone()))
            .collect();
        // Ties above the cut: the same set, in either order.
        v.sort();
        v
    };
    assert_eq!(above(&a), above(&b), "{q}");
    let firsts = |h: &[(String, String, f32)]| h.first().map(|x| x.0.clone());
    assert_eq!(firsts(&a), firsts(&b), "{q}");
}

/// `codemap ARGS` on repository scope `shop` of the test's server, indexed into `idx`, with the
/// indexer's debug log; `cache` as `$XDG_CACHE_HOME` when given.
fn team_shop(
    server: &Server,
    idx: &Path,
    cache: Option<&Path>,
    args: &[&str],
) -> std::process::Output {
    let mut cmd = codemap();
    cmd.arg("--index-dir")
        .arg(idx)
        .args([
            "--backend",
            "meilisearch",
            "--meili-prefix",
            server.prefix(),
        ])
        .args(["--repo-name", "shop"])
        .args(args)
        .env("CODEMAP_LOG", "indexer=debug");
    if let Some(cache) = cache {
        cmd.env("XDG_CACHE_HOME", cache);
    }
    cmd.output().unwrap()
}

/// `ask --batch` in team mode asks the server for every question, as a one-shot `ask` does: no
/// copy is made, and each answer cites what the one-shot question cites; its first five places
/// are those of a batch that first copied the snapshot's chunks into memory (`--memory-copy`):
/// the server scores Meilisearch's pool by BM25, the copy the whole snapshot, so close
/// candidates can swap places (bench/RESULTS.md, "Team mode parity").
#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn ask_batch_searches_on_the_server_by_default() {
    let Some(server) = Server::from_env("ask_batch_searches_on_the_server") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    copy_shop(&repo);
    let idx = tmp.path().join("idx");
    let team = |args: &[&str]| team_shop(&server, &idx, None, args);
    let o = team(&["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let questions = [
        "who calls deductStock?",
        "where does the order status change?",
        "库存在哪里扣减?",
    ];
    let batch = tmp.path().join("q.jsonl");
    let lines: Vec<String> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| serde_json::json!({"id": i, "question": q}).to_string())
        .collect();
    std::fs::write(&batch, lines.join("\n")).unwrap();
    let batch = batch.to_str().unwrap();
    let warm = team(&["ask", "--batch", batch, "--memory-copy"]);
    let server_side = team(&["ask", "--batch", batch]);
    for o in [&warm, &server_side] {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let made_a_copy = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stderr).contains("keyword search warm")
    };
    assert!(made_a_copy(&warm));
    assert!(!made_a_copy(&server_side));
    let answers: Vec<serde_json::Value> = stdout(&server_side)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), questions.len());
    let warm: Vec<serde_json::Value> = stdout(&warm)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for ((q, a), w) in questions.iter().zip(&answers).zip(&warm) {
        let first_five = |v: &serde_json::Value| {
            let mut c: Vec<String> = v["citations"].as_array().unwrap()[..5]
                .iter()
                .map(|c| c.to_string())
                .collect();
            c.sort();
            c
        };
        assert_eq!(
            first_five(a),
            first_five(w),
            "{q}: the places the copy cites"
        );
        let one_shot = team(&["--json", "ask", q]);
        let one_shot: serde_json::Value = serde_json::from_slice(&one_shot.stdout).unwrap();
        assert!(!a["citations"].as_array().unwrap().is_empty(), "{q}");
        assert_eq!(a["citations"], one_shot["citations"], "{q}");
    }
}

/// `ask --batch --memory-copy` keeps its copy of the keyword index on disk, one folder per
/// snapshot under the cache folder, and the next batch of the same snapshot opens it instead of
/// reading every chunk from the server again: with the chunks gone from the server, it still
/// finds a word only the copy holds, where a batch searching the server finds nothing.
#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_batch_reuses_the_search_copy_it_kept_for_the_same_snapshot() {
    let Some(server) = Server::from_env("a_batch_reuses_the_search_copy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    copy_shop(&repo);
    write(
        &repo,
        "src/main/java/com/shop/Lantern.java",
        "package com.shop;\n\npublic class Lantern {\n    void glow() {\n        String s = \"kumquat marmalade\";\n        System.out.println(s);\n    }\n}\n",
    );
    let (idx, cache) = (tmp.path().join("idx"), tmp.path().join("cache"));
    let team = |args: &[&str]| {
        let o = team_shop(&server, &idx, Some(&cache), args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o
    };
    team(&["index", repo.to_str().unwrap(), "--quiet"]);
    let batch = tmp.path().join("q.jsonl");
    std::fs::write(&batch, r#"{"id": 1, "question": "kumquat marmalade"}"#).unwrap();
    let batch = batch.to_str().unwrap();
    let cites_lantern = |o: &std::process::Output| {
        let answer: serde_json::Value = serde_json::from_str(stdout(o).trim()).unwrap();
        (answer["citations"].as_array().unwrap().iter())
            .any(|c| c.to_string().contains("Lantern.java"))
    };
    let first = team(&["ask", "--batch", batch, "--memory-copy"]);
    assert!(cites_lantern(&first));
    let copies: Vec<std::path::PathBuf> = std::fs::read_dir(cache.join("codemap"))
        .unwrap()
        .flat_map(|scope| std::fs::read_dir(scope.unwrap().path().join("search")).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(copies.len(), 1, "one copy, of the one snapshot: {copies:?}");
    assert!(copies[0].join("meta.json").exists());

    server.delete_documents("chunks", "shop");
    assert!(
        !cites_lantern(&team(&["ask", "--batch", batch])),
        "the server no longer holds the word"
    );
    let second = team(&["ask", "--batch", batch, "--memory-copy"]);
    assert!(cites_lantern(&second), "found in the kept copy");
    assert!(String::from_utf8_lossy(&second.stderr).contains("from the kept copy"));
}
