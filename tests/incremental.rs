//! Incremental runs, snapshot diffs, exports and `watch`, through the binary.

mod support;
use std::io::BufRead;
use std::time::{Duration, Instant};
use support::*;

#[test]
fn a_rerun_touches_only_what_changed_and_diff_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    for n in ["A", "B", "C"] {
        write(&root, &format!("src/{n}.java"), java_class("p", n, "v1"));
    }
    assert_eq!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .code(),
        Some(0)
    );

    // Edit B's method body, add D, remove C; A is untouched.
    write(&root, "src/B.java", java_class("p", "B", "v2 changed body"));
    write(&root, "src/D.java", java_class("p", "D", "v1"));
    std::fs::remove_file(root.join("src/C.java")).unwrap();
    let o = run(&idx, &["index", root.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (
            v["added"].as_u64(),
            v["changed"].as_u64(),
            v["removed"].as_u64(),
            v["unchanged"].as_u64()
        ),
        (Some(1), Some(1), Some(1), Some(1)),
        "{v}"
    );

    let o = run(&idx, &["diff", "--json"]);
    let d: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(d["files_added"], serde_json::json!(["src/D.java"]));
    assert_eq!(d["files_removed"], serde_json::json!(["src/C.java"]));
    assert_eq!(d["files_changed"], serde_json::json!(["src/B.java"]));
    let changed: Vec<&str> = d["symbols_changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["new"]["qualified_name"].as_str().unwrap())
        .collect();
    assert!(changed.contains(&"p.B.runB"), "{changed:?}");
    assert!(
        !changed.iter().any(|q| q.starts_with("p.A")),
        "A did not change: {changed:?}"
    );

    // An unchanged rerun publishes a snapshot with an empty diff (exit 1: nothing found).
    assert_eq!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(run(&idx, &["diff"]).status.code(), Some(1));
    // Old snapshots stay readable: 1 → 2 still shows C removed.
    let o = run(&idx, &["diff", "1", "2", "--json"]);
    let d: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(d["files_removed"], serde_json::json!(["src/C.java"]));

    // The search sees the new body and not the old one.
    assert!(search(&idx, "changed").iter().any(|h| h.0 == "src/B.java"));
}

#[test]
fn export_symbols_is_jsonl_with_name_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    write(&root, "src/A.java", java_class("p", "A", "x"));
    assert_eq!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .code(),
        Some(0)
    );
    let o = run(&idx, &["export", "symbols"]);
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let run_a = rows
        .iter()
        .find(|r| r["symbol"] == "p.A.runA")
        .expect("method exported");
    assert_eq!(run_a["kind"], "method");
    assert_eq!(run_a["file"], "src/A.java");
    assert_eq!(run_a["line"], 8, "line of the method name");
    assert_eq!(run_a["end_line"], 11);
}

#[test]
fn watch_makes_a_saved_file_searchable_then_commits_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    write(&root, "src/A.java", java_class("p", "A", "before"));
    let mut child = codemap()
        .args([
            "--index-dir",
            idx.to_str().unwrap(),
            "watch",
            root.to_str().unwrap(),
            "--quiet",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = lines.next().unwrap().unwrap();
    assert!(ready.contains("watching"), "{ready}");

    write(&root, "src/A.java", java_class("p", "A", "quixoticzebra"));
    let start = Instant::now();
    let mut found = false;
    while start.elapsed() < Duration::from_secs(15) {
        if search(&idx, "quixoticzebra")
            .iter()
            .any(|h| h.0 == "src/A.java")
        {
            found = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(found, "saved file never became searchable");
    assert!(
        search(&idx, "before").is_empty(),
        "the overlay hides the old version"
    );

    // After the quiet period the change is committed durably: searchable without the watcher.
    let start = Instant::now();
    let mut committed = false;
    while start.elapsed() < Duration::from_secs(15) {
        let o = run(&idx, &["status", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        if v["snapshot"]["generation"].as_u64() >= Some(2) {
            committed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(committed, "no durable commit after the quiet period");
    assert!(
        search(&idx, "quixoticzebra")
            .iter()
            .any(|h| h.0 == "src/A.java")
    );
}

/// A long-lived reader (the bot, `ask` under `watch`) keeps one catalog open while runs commit:
/// its decoded-edge cache must follow the new edges, never serve the old ones.
#[test]
fn a_reader_held_across_runs_sees_the_new_call_graph() {
    use indexer::store::IndexDir;
    use indexer::store::catalog::Catalog;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    let target = "package p;\n\npublic class Target {\n    public static void hit() {}\n}\n";
    let caller = |calls: usize| {
        format!(
            "package p;\n\npublic class Caller {{\n    void go() {{\n{}    }}\n}}\n",
            "        Target.hit();\n".repeat(calls)
        )
    };
    write(&root, "src/Target.java", target);
    write(&root, "src/Caller.java", caller(1));
    assert!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .success()
    );

    let catalog = Catalog::open_read(&IndexDir::new(&idx).catalog()).unwrap();
    let id = "java:p.Target#hit()";
    assert_eq!(catalog.edges_to(id).unwrap().len(), 1);
    assert_eq!(
        catalog.edges_to(id).unwrap().len(),
        1,
        "served from the cache"
    );

    write(&root, "src/Caller.java", caller(3));
    assert!(
        run(&idx, &["index", root.to_str().unwrap(), "--quiet"])
            .status
            .success()
    );
    let lines: Vec<u32> = catalog
        .edges_to(id)
        .unwrap()
        .iter()
        .map(|e| e.line)
        .collect();
    assert_eq!(lines, vec![5, 6, 7], "the same handle reads the new edges");
}

/// The snapshot's counts are what the catalog holds, on a first build (counted while writing)
/// and on a later one (counted from the tables), with a degraded and a skipped file around.
#[test]
fn snapshot_counts_match_the_catalog_on_first_and_later_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    for n in ["A", "B", "C"] {
        write(&root, &format!("src/{n}.java"), java_class("p", n, "v1"));
    }
    write(&root, "src/Broken.java", "class Broken { void m( { ");
    write(&root, "src/blob.bin", "\0\0\0binary");
    // Indexes, then gives the snapshot's counts and the tables' counts.
    let index_and_count = || {
        let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
        assert_eq!(o.status.code(), Some(0));
        let o = run(&idx, &["status", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let snapshot = ["files", "symbols", "chunks"].map(|k| v["snapshot"][k].as_u64());
        let tables = ["files", "symbols", "chunks"].map(|k| v[k].as_u64());
        (snapshot, tables)
    };
    let (snapshot, tables) = index_and_count();
    assert_eq!(snapshot, tables, "first build");
    assert!(tables[1].unwrap() >= 6, "symbols were written: {tables:?}");

    write(&root, "src/D.java", java_class("p", "D", "v1"));
    std::fs::remove_file(root.join("src/A.java")).unwrap();
    let (snapshot, tables) = index_and_count();
    assert_eq!(snapshot, tables, "later build");
}

/// A run states the memory it used at its peak, in the summary line and in `--json`: the
/// figure a memory budget is checked against.
#[test]
fn a_run_reports_its_peak_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    write(&root, "src/A.java", java_class("p", "A", "v1"));
    let o = run(&idx, &["index", root.to_str().unwrap()]);
    let line = String::from_utf8_lossy(&o.stdout).to_string();
    let mib: u64 = line
        .split("; peak memory ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory in {line:?}"));
    assert!(mib >= 1, "{line}");
    write(&root, "src/B.java", java_class("p", "B", "v1"));
    let o = run(&idx, &["index", root.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["peak_memory_mib"].as_u64().is_some_and(|m| m >= 1), "{v}");
}
