//! Real peers over the generated shop pages: every Mermaid block parses with Mermaid's own
//! parser, and every page passes markdownlint-cli2 with the committed config.
//!
//! Peers live in `$CODEMAP_PEERS` (default /work/peers):
//!   npm install --prefix /work/peers mermaid jsdom markdownlint-cli2
//! Without them the tests print `SKIPPED: <why>` and return.

mod support;

use docgen::Options;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn peers() -> PathBuf {
    PathBuf::from(std::env::var("CODEMAP_PEERS").unwrap_or_else(|_| "/work/peers".into()))
}

fn skip(why: &str) {
    indexer::testing::skip("node", why);
}

/// The shop fixture with its generated pages; returns the root and the pages' paths.
fn shop_pages(tmp: &Path) -> (PathBuf, Vec<PathBuf>) {
    let (root, dir) = support::shop(tmp);
    support::generate(&dir, &Options::new(&root));
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs/codemap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    (root, pages)
}

fn node_ok() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn every_mermaid_block_parses_with_mermaid() {
    let peers = peers();
    if !node_ok()
        || !peers.join("node_modules/mermaid").is_dir()
        || !peers.join("node_modules/jsdom").is_dir()
    {
        return skip(
            "node with mermaid and jsdom under $CODEMAP_PEERS (npm install --prefix /work/peers mermaid jsdom)",
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_, pages) = shop_pages(tmp.path());
    let mut blocks: Vec<(String, String)> = Vec::new();
    for p in &pages {
        let text = std::fs::read_to_string(p).unwrap();
        for part in text.split("```mermaid\n").skip(1) {
            let block = &part[..part.find("```").unwrap()];
            blocks.push((p.display().to_string(), block.to_string()));
        }
    }
    assert!(blocks.len() >= 10, "{}", blocks.len());
    // Every step shape, whether or not the shop's flows have one of each kind.
    blocks.push(("every step kind".into(), every_kind_flow()));
    let srcs: Vec<&str> = blocks.iter().map(|b| b.1.as_str()).collect();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/mermaid-parse.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .arg(&peers)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&srcs).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        verdicts.len(),
        blocks.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A broken block must be caught: the parser is really parsing.
    for ((page, block), v) in blocks.iter().zip(&verdicts) {
        assert_eq!(*v, "ok", "{page}:\n{block}");
    }
    let mut child = Command::new("node")
        .arg(&script)
        .arg(&peers)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"["flowchart TD\n    s0[\"a\"] -->\n"]"#)
        .unwrap();
    let bad = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&bad.stdout).starts_with("ERR"));
}

/// A flow with a step of each kind a page can draw, through docgen's own renderer.
fn every_kind_flow() -> String {
    use docgen::model::{Cite, Flow, Hop, Step};
    let kinds = ["method", "sql", "table", "remote", "external"];
    let steps = kinds
        .iter()
        .map(|k| Step {
            name: format!("Shop.{k} \"<x>\""),
            kind: k.to_string(),
            cite: Cite::at("A.java", 1),
            module: (*k == "method").then(|| "shop-order".to_string()),
        })
        .collect();
    let hops = (1..kinds.len())
        .map(|i| Hop {
            from: 0,
            to: i,
            kind: if i == 1 { "db" } else { "call" }.into(),
            site: Cite::at("A.java", 2),
        })
        .collect();
    docgen::mermaid::flow(&Flow {
        entry: "route GET /x".into(),
        steps,
        hops,
        cut: 0,
    })
}

#[test]
fn every_page_passes_markdownlint() {
    let bin = peers().join("node_modules/.bin/markdownlint-cli2");
    if !node_ok() || !bin.exists() {
        return skip(
            "markdownlint-cli2 under $CODEMAP_PEERS (npm install --prefix /work/peers markdownlint-cli2)",
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let (root, pages) = shop_pages(tmp.path());
    let config =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates/codemap/.markdownlint-cli2.jsonc");
    let out = Command::new(&bin)
        .arg("--config")
        .arg(&config)
        .args(pages.iter().map(|p| p.strip_prefix(&root).unwrap()))
        .current_dir(&root)
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        report.contains(&format!("Linting: {} file(s)", pages.len())),
        "{report}"
    );
    assert!(out.status.success(), "{report}");
}
