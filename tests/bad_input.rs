//! Bad input never stops a run and loses nothing else (reliability.md §5).

mod support;
use support::*;

#[test]
fn a_repo_full_of_bad_files_still_indexes_the_good_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let idx = tmp.path().join("idx");
    write(
        &root,
        "src/Good.java",
        java_class("a", "Good", "goodmarker"),
    );
    // 5 MiB file: over the 1 MiB cap.
    write(&root, "src/Huge.java", "// x\n".repeat(5 * 1024 * 1024 / 5));
    // Binary content with a source extension.
    write(
        &root,
        "src/Blob.java",
        [0u8, 1, 2, 3, 0, 255, 254].repeat(100),
    );
    // Invalid UTF-8 inside a comment; the method after it must keep its real line.
    let mut bad = b"package a;\n// caf\xe9 \xff\xfe broken\npublic class Latin {\n".to_vec();
    bad.extend_from_slice(b"\n\n    void afterBroken() {}\n}\n");
    write(&root, "src/Latin.java", bad);
    // 10,000-deep nesting.
    let deep = format!(
        "class Deep {{\n  void f() {{\n{}{}  }}\n}}\n",
        "{\n".repeat(10_000),
        "}\n".repeat(10_000)
    );
    write(&root, "src/Deep.java", deep);
    // A secret.
    write(
        &root,
        ".env",
        "AWS_SECRET_ACCESS_KEY=AKIAFAKEFAKEFAKEFAKE\n",
    );
    write(
        &root,
        "conf/server.pem",
        "-----BEGIN PRIVATE KEY-----\nfake\n-----END PRIVATE KEY-----\n",
    );
    // Symlink loop and a symlink out of the root.
    std::os::unix::fs::symlink(root.join("src"), root.join("src/loop")).unwrap();
    let outside = tmp.path().join("outside.java");
    std::fs::write(&outside, "class Outside { void leakedSecretMethod() {} }").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("src/Escape.java")).unwrap();

    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let status = run(&idx, &["status", "-v", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let skipped = v["skipped_files"].as_array().unwrap();
    let reason = |p: &str| {
        skipped
            .iter()
            .find(|s| s[0] == p)
            .map(|s| s[1].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert_eq!(reason("src/Huge.java"), "too_large");
    assert_eq!(reason("src/Blob.java"), "binary");
    assert_eq!(reason(".env"), "secret");
    assert_eq!(reason("conf/server.pem"), "secret");
    assert_eq!(reason("src/Escape.java"), "symlink_outside_root");

    // The good file and the invalid-UTF-8 file are searchable, with real line numbers.
    let hits = search(&idx, "goodmarker");
    assert!(hits.iter().any(|h| h.0 == "src/Good.java"), "{hits:?}");
    let sym = run(&idx, &["symbol", "afterBroken", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&sym.stdout).unwrap();
    assert_eq!(v[0]["path"], "src/Latin.java");
    assert_eq!(
        v[0]["start_line"], 6,
        "line numbers count the original bytes"
    );
    // The deep file degraded to text but is still indexed.
    let files = v_files(&idx);
    assert!(
        files
            .iter()
            .any(|(p, d)| p == "src/Deep.java" && d.is_some()),
        "{files:?}"
    );
    // Nothing from outside the root, nothing from the secret.
    assert!(search(&idx, "leakedSecretMethod").is_empty());
    assert!(search(&idx, "AKIAFAKEFAKEFAKEFAKE").is_empty());
    assert_hits_resolve(&root, &search(&idx, "Good Latin Deep"));
}

fn v_files(idx: &std::path::Path) -> Vec<(String, Option<String>)> {
    let status = run(idx, &["status", "-v", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    v["indexed_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["degraded"].as_str().map(String::from),
            )
        })
        .collect()
}

#[test]
fn an_empty_repo_exits_1_and_explains() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("empty");
    std::fs::create_dir_all(&root).unwrap();
    let o = run(
        &tmp.path().join("idx"),
        &["index", root.to_str().unwrap(), "--quiet"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("0 files indexed"), "{}", stdout(&o));
}

#[test]
fn a_repo_hidden_by_gitignore_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    write(&root, ".gitignore", "*.java\n");
    write(&root, "A.java", java_class("a", "A", "m"));
    let o = run(
        &tmp.path().join("idx"),
        &["index", root.to_str().unwrap(), "--quiet"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("excluded by .gitignore"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_missing_root_is_an_error_with_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(
        &tmp.path().join("idx"),
        &["index", tmp.path().join("nope").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not found"));
}

#[test]
fn a_file_rewritten_during_the_run_is_indexed_consistently_and_caught_up_next_run() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("r");
    let idx = tmp.path().join("idx");
    for i in 0..200 {
        write(
            &root,
            &format!("src/F{i}.java"),
            java_class("a", &format!("F{i}"), "filler"),
        );
    }
    let hot = write(&root, "src/Hot.java", java_class("a", "Hot", "version0"));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let hot = hot.clone();
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                // Different lengths each time, so a torn read would show up as broken symbols.
                let body = java_class("a", "Hot", &format!("version{n} {}", "x".repeat(n % 50)));
                std::fs::write(&hot, body).unwrap();
            }
            n
        })
    };
    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let n = writer.join().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(n > 0);
    // Nothing else was lost to the churn.
    assert!(search(&idx, "filler").len() >= 50);
    // The next run sees the final content, even if it has the mtime and size the first run saw.
    let last = std::fs::read_to_string(&hot).unwrap();
    let marker = last
        .lines()
        .find(|l| l.contains("// version"))
        .unwrap()
        .trim()
        .trim_start_matches("// ");
    let marker = marker.split_whitespace().next().unwrap().to_string();
    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    let hits = search(&idx, &marker);
    assert!(
        hits.iter().any(|h| h.0 == "src/Hot.java"),
        "{marker}: {hits:?}"
    );
}

/// `codemap export symbols | head -1`: the reader hangs up early; codemap ends quietly (killed
/// by SIGPIPE, as Unix tools are) instead of panicking with a "Broken pipe" backtrace.
#[cfg(unix)]
#[test]
fn a_reader_that_hangs_up_early_ends_the_command_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let idx = tmp.path().join("idx");
    for i in 0..400 {
        write(
            &root,
            &format!("src/C{i}.java"),
            java_class("a", &format!("C{i}"), "m"),
        );
    }
    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{o:?}");
    let mut child = codemap()
        .args(["--index-dir", idx.to_str().unwrap(), "export", "symbols"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then dropped: hung up
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(first.starts_with(b"{"), "JSONL came out first");
    assert!(!err.contains("panicked"), "{err}");
    const SIGPIPE: i32 = 13; // Linux and the BSDs
    assert_eq!(status.signal(), Some(SIGPIPE), "{status:?} {err}");
}

/// A Chinese dictionary that is missing or is not CC-CEDICT: the question is still answered, with
/// its Chinese searched as written, and the answer names the file and what is wrong with it.
#[test]
fn a_broken_chinese_dictionary_is_named_in_the_answer_not_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let idx = tmp.path().join("idx");
    write(
        &root,
        "src/Order.java",
        "package a;\n\n/** 订单的取消 */\npublic class Order {\n    void cancel() {}\n}\n",
    );
    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{o:?}");
    let not_a_dictionary = write(tmp.path(), "cedict_ts.u8", "hello\nworld\n");
    let missing = tmp.path().join("absent.u8");
    for (dict, says) in [
        (&not_a_dictionary, "is not a CC-CEDICT file"),
        (&missing, "cannot read the Chinese dictionary"),
    ] {
        let o = codemap()
            .env("CODEMAP_CEDICT", dict)
            .arg("--index-dir")
            .arg(&idx)
            .args(["ask", "--json", "订单在哪里取消"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let notes = a["notes"].to_string();
        assert!(notes.contains(says), "{notes}");
        assert!(notes.contains(&dict.display().to_string()), "{notes}");
        assert!(
            a["citations"].to_string().contains("src/Order.java"),
            "{}",
            a["citations"]
        );
        // `status` says the same, for whoever runs the bot.
        let o = codemap()
            .env("CODEMAP_CEDICT", dict)
            .arg("--index-dir")
            .arg(&idx)
            .arg("status")
            .output()
            .unwrap();
        let out = stdout(&o);
        assert!(o.status.success(), "{o:?}");
        assert!(
            out.contains("Chinese questions: searched as written") && out.contains(says),
            "{out}"
        );
    }
}
