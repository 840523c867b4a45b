//! The vector leg through the binary: `codemap embed`, `ask` using (and reporting) the vectors,
//! exact identifiers still first, and a killed embedding run.

mod support;
use std::time::{Duration, Instant};
use support::*;

fn class(name: &str, method: &str, doc: &str) -> String {
    format!(
        "package com.acme;\n\n/** {name}. */\npublic class {name} {{\n\n    /**\n     * {doc}\n     */\n    public Object {method}(Object in) {{\n        return in;\n    }}\n}}\n"
    )
}

fn fixture(root: &std::path::Path) {
    for (n, m, d) in [
        (
            "SessionJanitor",
            "purgeExpiredSessions",
            "Removes sessions that have been idle longer than the timeout.",
        ),
        (
            "TaxCalculator",
            "taxFor",
            "Computes the value-added tax owed on an invoice total.",
        ),
        (
            "WelcomeMailer",
            "greet",
            "Sends a welcome email to a customer who just signed up.",
        ),
        (
            "Thumbnails",
            "shrink",
            "Scales a picture down to a small preview image.",
        ),
    ] {
        write(
            root,
            &format!("src/main/java/com/acme/{n}.java"),
            class(n, m, d),
        );
    }
}

/// The fixture indexed in a temporary folder: (the folder, the index).
fn indexed_fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = (tmp.path().join("r"), tmp.path().join("idx"));
    fixture(&root);
    assert!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .success()
    );
    (tmp, idx)
}

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(o), String::from_utf8_lossy(&o.stderr)))
}

#[test]
fn embed_is_incremental_and_ask_uses_and_reports_the_vectors() {
    if !embed::LOCAL_MODELS {
        indexer::testing::skip(
            "local-embedders",
            "pocket needs the local-embedders feature (cargo test --workspace has it)",
        );
        return;
    }
    let (_tmp, idx) = indexed_fixture();

    // No vectors yet: ask answers without the leg and says nothing about vectors.
    let a = json(&run(&idx, &["--json", "ask", "clean up stale logins"]));
    assert!(a.get("vectors").is_none(), "{a}");

    let r = json(&run(&idx, &["--json", "embed"]));
    let chunks = r["chunks"].as_u64().unwrap();
    assert!(chunks >= 4);
    assert_eq!(
        r["embedded"].as_u64().unwrap() + r["reused"].as_u64().unwrap(),
        chunks
    );
    assert!(
        r["model"].as_str().unwrap().starts_with("pocket-encoder/"),
        "{r}"
    );
    let again = json(&run(&idx, &["--json", "embed"]));
    assert_eq!(
        (again["embedded"].as_u64(), again["had"].as_u64()),
        (Some(0), Some(chunks))
    );

    // The default (auto) picks the stored pocket vectors up; the paraphrase finds its method.
    let a = json(&run(&idx, &["--json", "ask", "clean up stale logins"]));
    assert!(
        a["vectors"]
            .as_str()
            .unwrap()
            .starts_with("pocket-encoder/"),
        "{a}"
    );
    assert_eq!(
        a["citations"][0]["path"], "src/main/java/com/acme/SessionJanitor.java",
        "{a}"
    );
    let off = json(&run(
        &idx,
        &[
            "--json",
            "ask",
            "--embedder",
            "none",
            "clean up stale logins",
        ],
    ));
    assert!(off.get("vectors").is_none(), "{off}");

    // A named identifier stays first although the rest of the question paraphrases another method.
    let a = json(&run(
        &idx,
        &[
            "--json",
            "ask",
            "does taxFor clean up stale logins that were idle too long",
        ],
    ));
    assert_eq!(
        a["citations"][0]["path"], "src/main/java/com/acme/TaxCalculator.java",
        "{a}"
    );
}

#[test]
fn a_killed_embed_run_leaves_a_readable_store_and_the_next_run_finishes() {
    if !embed::LOCAL_MODELS {
        indexer::testing::skip(
            "local-embedders",
            "pocket needs the local-embedders feature (cargo test --workspace has it)",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = (tmp.path().join("r"), tmp.path().join("idx"));
    for i in 0..80 {
        write(
            &root,
            &format!("src/main/java/com/acme/C{i}.java"),
            class(
                &format!("C{i}"),
                &format!("work{i}"),
                &format!("Does job number {i} of the nightly batch."),
            ),
        );
    }
    assert!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .success()
    );
    let mut child = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["embed", "--batch", "1", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once the store exists (mid-run on any machine this test runs on, or just after).
    let started = Instant::now();
    while !idx.join("vectors.sqlite").exists() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();

    let a = run(
        &idx,
        &["--json", "ask", "--embedder", "pocket", "nightly job 7"],
    );
    assert_ne!(
        a.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&a.stderr)
    );
    let r = json(&run(&idx, &["--json", "embed"]));
    assert_eq!(r["left"].as_u64(), Some(0), "{r}");
    let total = r["chunks"].as_u64().unwrap();
    assert_eq!(
        r["had"].as_u64().unwrap()
            + r["embedded"].as_u64().unwrap()
            + r["reused"].as_u64().unwrap(),
        total,
        "{r}"
    );
}

/// A local model the build cannot run fails with the way out, and `ask` (auto) answers without a
/// vector leg until vectors exist. In a lean build (no local-embedders, as a default install) the
/// way out names the feature; with local models, a folder without a model names what is missing.
/// .ci/run runs it both ways (`cargo test --workspace --no-default-features --test vectors lean`).
#[test]
fn lean_or_not_a_missing_local_model_says_how_to_get_one_and_ask_answers_without_vectors() {
    let (tmp, idx) = indexed_fixture();
    let a = json(&run(
        &idx,
        &["--json", "ask", "who computes the tax on an invoice"],
    ));
    assert!(a.get("vectors").is_none(), "{a}");
    assert_eq!(
        a["citations"][0]["path"], "src/main/java/com/acme/TaxCalculator.java",
        "{a}"
    );
    let no_model = tmp.path().join("no-model");
    let minilm = format!("minilm:{}", no_model.display());
    let mut refused = vec![vec!["embed", "--embedder", minilm.as_str()]];
    if !embed::LOCAL_MODELS {
        refused.push(vec!["embed"]);
        refused.push(vec!["ask", "--embedder", "pocket", "who computes the tax"]);
    }
    for args in &refused {
        let o = run(&idx, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        if embed::LOCAL_MODELS {
            assert!(err.contains("config.json"), "{args:?}: {err}");
        } else {
            assert!(
                err.contains("--features local-embedders") && err.contains("--embedder openai"),
                "{args:?}: {err}"
            );
        }
    }
}
