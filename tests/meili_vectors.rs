//! Team mode's vector leg through the binary against a real Meilisearch: `index` publishes,
//! `embed` computes vectors beside the local index and sends only the missing ones, `ask` on the
//! server backend uses them (and says so). Needs `MEILI_URL` (and `MEILI_MASTER_KEY`); says
//! so when skipped.

mod support;
use std::path::Path;
use support::*;

fn meili(idx: &Path, prefix: &str, args: &[&str]) -> std::process::Output {
    codemap()
        .args(["--backend", "meilisearch", "--meili-prefix", prefix])
        .args(["--repo-name", "acme", "--index-dir", idx.to_str().unwrap()])
        .args(args)
        .output()
        .expect("codemap runs")
}

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(o), String::from_utf8_lossy(&o.stderr)))
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn team_mode_sends_vectors_once_and_ask_uses_them() {
    if std::env::var("MEILI_URL").is_err() {
        indexer::testing::skip(
            "meilisearch",
            "team_mode_sends_vectors_once_and_ask_uses_them: MEILI_URL is not set \
             (set MEILI_URL and MEILI_MASTER_KEY to run it against a real server)",
        );
        return;
    }
    if !embed::LOCAL_MODELS {
        indexer::testing::skip(
            "local-embedders",
            "pocket needs the local-embedders feature",
        );
        return;
    }
    let prefix = format!("t{}_mvec_", std::process::id());
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = (tmp.path().join("acme"), tmp.path().join("idx"));
    for (name, doc) in [
        (
            "SessionJanitor",
            "Removes sessions that have been idle longer than the timeout.",
        ),
        (
            "TaxCalculator",
            "Computes the value-added tax owed on an invoice total.",
        ),
        (
            "Thumbnails",
            "Scales a picture down to a small preview image.",
        ),
    ] {
        write(
            &root,
            &format!("src/{name}.java"),
            format!(
                "package acme;\n\n/** {doc} */\npublic class {name} {{\n    public int run(int x) {{\n        return x;\n    }}\n}}\n"
            ),
        );
    }
    let o = meili(&idx, &prefix, &["index", root.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{o:?}");

    let o = meili(
        &idx,
        &prefix,
        &["--json", "embed", "--embedder", "pocket", "--quiet"],
    );
    assert!(o.status.success(), "{o:?}");
    let first = json(&o);
    let chunks = first["chunks"].as_u64().unwrap();
    assert!(chunks >= 3, "{first}");
    assert_eq!(
        first["meilisearch"]["sent"].as_u64(),
        Some(chunks),
        "{first}"
    );
    // Again: nothing to embed, nothing to send.
    let again = json(&meili(
        &idx,
        &prefix,
        &["--json", "embed", "--embedder", "pocket", "--quiet"],
    ));
    assert_eq!(again["meilisearch"]["sent"].as_u64(), Some(0), "{again}");
    assert_eq!(
        again["meilisearch"]["present"].as_u64(),
        Some(chunks),
        "{again}"
    );

    // A paraphrase with no shared identifier: the server's vectors take part and say so.
    let o = meili(
        &idx,
        &prefix,
        &[
            "--repo",
            root.to_str().unwrap(),
            "--json",
            "ask",
            "where do we shrink images for previews?",
        ],
    );
    let a = json(&o);
    assert!(
        a["vectors"]
            .as_str()
            .is_some_and(|v| v.contains("Meilisearch")),
        "{a}"
    );
    assert!(
        a["citations"][0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("Thumbnails.java")),
        "{a}"
    );

    cleanup(&prefix);
}

/// Deletes this test's indexes.
fn cleanup(prefix: &str) {
    use indexer::store::meilisearch::{MeiliConfig, MeiliStore};
    let url = std::env::var("MEILI_URL").unwrap();
    let key = std::env::var("MEILI_MASTER_KEY").ok();
    if let Ok(s) = MeiliStore::connect(MeiliConfig::new(url, key, prefix, "acme")) {
        let _ = s.drop_indexes();
    }
}
