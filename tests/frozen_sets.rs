//! The frozen QA sets (bench/eval/frozen/, issue 23) are committed with their SHA-256 in
//! `manifest.tsv` before their first run and never edited: this test fails when a set differs from
//! its recorded digest, when a set in the folder is not in the manifest, or when a set no longer
//! has the shape the issue asks for (25+ questions, every kind, Chinese and English). Issue 39's set
//! on front ends and their back end (`qa-litemall.jsonl`) must also cross the HTTP boundary: 12 or
//! more questions marked `[cross-boundary]`, gold in Java, JavaScript and Vue files.

use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;

const KINDS: [&str; 7] = [
    "locate",
    "definition",
    "callers",
    "flow",
    "config",
    "trace",
    "impact",
];

/// One manifest line: file name, SHA-256 (hex), source (a Debian source package, `pypi:NAME` or
/// `github:OWNER/NAME`), exact version (or commit).
struct Entry {
    file: String,
    sha256: String,
    package: String,
    version: String,
}

fn manifest(dir: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).expect("manifest.tsv");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(
                f.len() >= 5,
                "manifest line needs file, sha256, package, version, folder: {l}"
            );
            Entry {
                file: f[0].to_string(),
                sha256: f[1].to_string(),
                package: f[2].to_string(),
                version: f[3].to_string(),
            }
        })
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every problem of the folder against its manifest: changed, missing or unlisted sets.
fn problems(dir: &Path) -> Vec<String> {
    let entries = manifest(dir);
    let mut out = Vec::new();
    for e in &entries {
        match std::fs::read(dir.join(&e.file)) {
            Ok(bytes) if sha256_hex(&bytes) == e.sha256 => {}
            Ok(_) => out.push(format!(
                "{} differs from its SHA-256 in manifest.tsv",
                e.file
            )),
            Err(err) => out.push(format!("{} is listed but unreadable: {err}", e.file)),
        }
    }
    let listed: BTreeSet<&str> = entries.iter().map(|e| e.file.as_str()).collect();
    for f in std::fs::read_dir(dir).unwrap() {
        let name = f.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".jsonl") && !listed.contains(name.as_str()) {
            out.push(format!("{name} is not in manifest.tsv"));
        }
    }
    out
}

fn frozen_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/eval/frozen")
}

#[test]
fn frozen_sets_match_their_manifest() {
    let dir = frozen_dir();
    let entries = manifest(&dir);
    assert!(
        entries.len() >= 2,
        "issue 23 asks for at least two frozen sets"
    );
    for e in &entries {
        assert!(
            !e.package.is_empty() && e.version.chars().any(|c| c.is_ascii_digit()),
            "{}: the manifest names the source and its exact version or commit",
            e.file
        );
    }
    let p = problems(&dir);
    assert!(p.is_empty(), "frozen sets were edited: {p:?}");
}

#[test]
fn an_edited_or_unlisted_set_is_caught() {
    let tmp = tempfile::tempdir().unwrap();
    for f in std::fs::read_dir(frozen_dir()).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, tmp.path().join(f.file_name().unwrap())).unwrap();
    }
    assert!(problems(tmp.path()).is_empty());

    let first = manifest(tmp.path()).remove(0).file;
    let path = tmp.path().join(&first);
    let mut bytes = std::fs::read(&path).unwrap();
    // One changed digit of a gold line number, the kind of silent edit the manifest is for.
    let at = bytes.iter().position(|b| b.is_ascii_digit()).unwrap();
    bytes[at] = if bytes[at] == b'9' {
        b'8'
    } else {
        bytes[at] + 1
    };
    std::fs::write(&path, &bytes).unwrap();
    std::fs::write(tmp.path().join("qa-extra.jsonl"), "{}\n").unwrap();

    let p = problems(tmp.path());
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(
        p.iter()
            .any(|m| m.starts_with(&first) && m.contains("SHA-256")),
        "{p:?}"
    );
    assert!(p.iter().any(|m| m.starts_with("qa-extra.jsonl")), "{p:?}");
}

#[test]
fn frozen_sets_have_every_kind_in_english_and_chinese() {
    for e in manifest(&frozen_dir()) {
        let text = std::fs::read_to_string(frozen_dir().join(&e.file)).unwrap();
        let qs: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
            .collect();
        assert!(qs.len() >= 25, "{}: {} questions", e.file, qs.len());
        let kinds: BTreeSet<&str> = qs.iter().filter_map(|q| q["kind"].as_str()).collect();
        for k in KINDS {
            assert!(kinds.contains(k), "{}: no {k} question", e.file);
        }
        let chinese = qs
            .iter()
            .filter(|q| {
                q["question"]
                    .as_str()
                    .unwrap()
                    .chars()
                    .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
            })
            .count();
        assert!(
            chinese * 4 >= qs.len() && chinese * 2 <= qs.len(),
            "{}: {chinese} of {} questions in Chinese",
            e.file,
            qs.len()
        );
        for q in &qs {
            let gold = q["gold"].as_array().expect("gold is a list");
            assert!(!gold.is_empty(), "{}: {} has no gold", e.file, q["id"]);
        }
    }
}

#[test]
fn the_front_and_back_end_set_crosses_the_boundary() {
    let text = std::fs::read_to_string(frozen_dir().join("qa-litemall.jsonl")).unwrap();
    let qs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    let cross = qs
        .iter()
        .filter(|q| q["notes"].as_str().unwrap().starts_with("[cross-boundary]"))
        .count();
    assert!(
        cross >= 12,
        "qa-litemall.jsonl: {cross} cross-boundary questions"
    );
    let paths: Vec<&str> = qs
        .iter()
        .flat_map(|q| q["gold"].as_array().unwrap())
        .map(|g| g["path"].as_str().unwrap())
        .collect();
    for ext in [".java", ".js", ".vue"] {
        assert!(
            paths.iter().any(|p| p.ends_with(ext)),
            "qa-litemall.jsonl: no gold in a {ext} file"
        );
    }
}
