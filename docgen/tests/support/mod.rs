//! Shared parts of the generator's tests: fixture copies, a real index of them, one docgen run,
//! the generated pages, and the check that every cited `path:line` exists.
#![allow(dead_code)]

pub mod llm_server;

use docgen::Options;
use indexer::pipeline::{self, IndexOptions};
use indexer::store::{EmbeddedIndex, IndexDir};
use std::path::{Path, PathBuf};

/// Copies a tree (an index folder `.codemap` inside it is left behind).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if e.file_name() == ".codemap" {
            continue;
        }
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// The shop fixture copied under `tmp/shop`, indexed into `tmp/idx`.
pub fn shop(tmp: &Path) -> (PathBuf, IndexDir) {
    let root = tmp.join("shop");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/shop");
    copy_dir(&fixture, &root);
    let dir = IndexDir::new(tmp.join("idx"));
    index(&root, &dir);
    (root, dir)
}

/// An incremental index run of `root` into `dir`.
pub fn index(root: &Path, dir: &IndexDir) {
    pipeline::run(root, dir, &IndexOptions::default(), &|_| {}).expect("index runs");
}

/// One docgen run over the index in `dir`.
pub fn generate(dir: &IndexDir, opts: &Options) -> docgen::Outcome {
    let idx = EmbeddedIndex::open(dir).unwrap();
    docgen::generate(&idx, opts).expect("docgen runs")
}

/// Every generated Markdown file under `root/docs/codemap`, by name.
pub fn pages(root: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root.join("docs/codemap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Checks every `](relative#Lnn)` link of a page: the file exists and has line nn.
/// Returns how many citations were checked.
pub fn assert_citations_resolve(root: &Path, page: &str, text: &str) -> usize {
    let page_dir = Path::new(page).parent().unwrap();
    let mut n = 0;
    for part in text.split("](").skip(1) {
        let target = &part[..part.find(')').unwrap()];
        let Some((path, line)) = target.split_once("#L") else {
            continue;
        };
        let file = root.join(page_dir).join(path);
        let content = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{page}: citation {target} names no file: {e}"));
        let line: usize = line.parse().unwrap();
        assert!(
            line >= 1 && line <= content.lines().count(),
            "{page}: citation {target} is past the end of the file"
        );
        n += 1;
    }
    n
}
