//! A run killed at any point leaves the previous snapshot answering correctly, and the next run
//! completes (reliability.md §4). Points of the commit protocol are hit exactly with
//! `CODEMAP_CRASH_AT` (the process aborts there); SIGKILLs at random moments cover the rest.

mod support;
use std::path::Path;
use support::*;

fn repo(root: &Path, files: usize, marker: &str) {
    for i in 0..files {
        write(
            root,
            &format!("src/p{}/C{i}.java", i % 7),
            java_class("p", &format!("C{i}"), &format!("{marker} m{i}")),
        );
    }
}

/// The index answers as snapshot `gen` with `marker`: every marker hit resolves, none of `absent`.
fn assert_answers(idx: &Path, root_of_marker: &Path, marker: &str, absent: &str) {
    let o = run(idx, &["status", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "status works: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let hits = search(idx, marker);
    assert!(hits.len() >= 40, "{marker}: only {} hits", hits.len());
    assert_hits_resolve(root_of_marker, &hits);
    assert!(
        search(idx, absent).is_empty(),
        "{absent} must not be visible yet"
    );
}

#[test]
fn killed_at_each_commit_step_the_old_snapshot_still_answers() {
    for point in [
        "after-text-add",
        "after-pending-commit",
        "inside-catalog-transaction",
        "after-catalog-commit",
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("r");
        let snap1 = tmp.path().join("snap1");
        let idx = tmp.path().join("idx");
        repo(&root, 60, "oldmarker");
        repo(&snap1, 60, "oldmarker");
        let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
        assert_eq!(o.status.code(), Some(0));

        // Change every file, then crash the run at `point`.
        repo(&root, 60, "newmarker");
        std::fs::remove_file(root.join("src/p0/C0.java")).unwrap();
        let o = codemap()
            .env("CODEMAP_CRASH_AT", point)
            .args([
                "--index-dir",
                idx.to_str().unwrap(),
                "index",
                root.to_str().unwrap(),
                "--quiet",
            ])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{point}: the run must have crashed");

        if point == "after-catalog-commit" {
            // The new snapshot was published before the crash: it answers, the old one is gone.
            let hits = search(&idx, "newmarker");
            assert!(hits.len() >= 40, "{point}: {}", hits.len());
            assert_hits_resolve(&root, &hits);
            assert!(
                search(&idx, "oldmarker").is_empty(),
                "{point}: stale documents are hidden"
            );
        } else {
            assert_answers(&idx, &snap1, "oldmarker", "newmarker");
        }

        // The next run completes and reconciles.
        let o = run(&idx, &["index", root.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{point}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let hits = search(&idx, "newmarker");
        assert_eq!(
            hits.iter().filter(|h| h.0.ends_with(".java")).count(),
            59,
            "{point}: one hit per live file"
        );
        assert_hits_resolve(&root, &hits);
        assert!(search(&idx, "oldmarker").is_empty(), "{point}");
        // And a further run has nothing left to do.
        let o = run(&idx, &["index", root.to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            (
                v["added"].as_u64(),
                v["changed"].as_u64(),
                v["reconciled"].as_bool()
            ),
            (Some(0), Some(0), Some(false)),
            "{point}"
        );
    }
}

#[test]
fn sigkill_at_random_moments_never_corrupts_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    repo(&root, 400, "basemarker");
    assert_eq!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .code(),
        Some(0)
    );
    for (round, delay_ms) in [5u64, 30, 80, 150, 300, 600].into_iter().enumerate() {
        repo(&root, 400, &format!("basemarker round{round}"));
        let mut child = codemap()
            .args([
                "--index-dir",
                idx.to_str().unwrap(),
                "index",
                root.to_str().unwrap(),
                "--quiet",
            ])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        // Whatever snapshot is visible, it answers, and its citations resolve.
        let hits = search(&idx, "basemarker");
        assert!(hits.len() >= 40, "round {round}: {} hits", hits.len());
        assert_hits_resolve(&root, &hits);
    }
    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        search(&idx, "round5").len(),
        200,
        "the last version of every file is searchable (limit 200)"
    );
}

#[test]
fn a_first_run_killed_after_its_text_commit_leaves_no_duplicates() {
    for point in ["after-pending-commit", "inside-catalog-transaction"] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("r");
        let idx = tmp.path().join("idx");
        repo(&root, 30, "firstmarker");
        let o = codemap()
            .env("CODEMAP_CRASH_AT", point)
            .args(["--index-dir", idx.to_str().unwrap()])
            .args(["index", root.to_str().unwrap(), "--quiet"])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{point}: the run must have crashed");
        // The full-text index holds the killed run's documents; the catalog knows none of them.
        let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{point}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let hits = search(&idx, "firstmarker");
        let mut paths: Vec<&str> = hits.iter().map(|h| h.0.as_str()).collect();
        paths.sort_unstable();
        let total = paths.len();
        paths.dedup();
        assert_eq!((total, paths.len()), (30, 30), "{point}: one hit per file");
    }
}
