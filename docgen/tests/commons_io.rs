//! docgen over commons-io 2.11.0 (a one-module library): pages snapshotted, a second run
//! writing nothing, a one-method edit rewriting only its page, every citation resolving.
//! Runs when `CODEMAP_QA_CORPUS` names the unpacked source (`.ci/run` sets it); otherwise it
//! says it was skipped.

mod support;

use docgen::Options;
use indexer::pipeline::{self, IndexOptions};
use indexer::store::{EmbeddedIndex, IndexDir};
use std::path::Path;
use support::{assert_citations_resolve as citations_resolve, copy_dir};

#[test]
fn commons_io_maps_are_stable_and_cite_real_lines() {
    let Ok(corpus) = std::env::var("CODEMAP_QA_CORPUS") else {
        indexer::testing::skip(
            "qa-corpus",
            "commons_io_maps_are_stable_and_cite_real_lines: CODEMAP_QA_CORPUS is not set (.ci/run unpacks commons-io 2.11.0 and sets it)",
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("commons-io");
    copy_dir(Path::new(&corpus), &root);
    let dir = IndexDir::new(tmp.path().join("idx"));
    let index = || pipeline::run(&root, &dir, &IndexOptions::default(), &|_| {}).unwrap();
    index();
    let opts = Options::new(&root);
    let run = || docgen::generate(&EmbeddedIndex::open(&dir).unwrap(), &opts).unwrap();
    let first = run();
    assert_eq!(
        first.written,
        vec![
            "docs/codemap/.state.json",
            "docs/codemap/README.md",
            "docs/codemap/commons-io.md"
        ]
    );
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let page = read("docs/codemap/commons-io.md");
    let index_page = read("docs/codemap/README.md");
    assert!(citations_resolve(&root, "docs/codemap/commons-io.md", &page) > 20);
    insta::assert_snapshot!("commons_io__commons-io.md", page);
    insta::assert_snapshot!("commons_io__README.md", index_page);

    assert!(!run().changed);

    let file = root.join("src/main/java/org/apache/commons/io/FilenameUtils.java");
    let src = std::fs::read_to_string(&file).unwrap();
    let edited = src.replacen(
        "        return fileName.substring(index + 1);\n    }\n\n    /**\n     * Special handling for NTFS ADS",
        "        return fileName.substring(index + 1).intern();\n    }\n\n    /**\n     * Special handling for NTFS ADS",
        1,
    );
    assert_ne!(src, edited);
    std::fs::write(&file, edited).unwrap();
    index();
    let out = run();
    assert_eq!(
        out.written,
        vec!["docs/codemap/.state.json", "docs/codemap/commons-io.md"]
    );
    let page = read("docs/codemap/commons-io.md");
    assert!(
        page.contains("- changed `FilenameUtils.getExtension` ("),
        "{page}"
    );
    assert_eq!(read("docs/codemap/README.md"), index_page);
    citations_resolve(&root, "docs/codemap/commons-io.md", &page);
}
