//! docgen reaches an index only through `query`'s public API (docs/ARCHITECTURE.md, issue 38
//! point 6): its sources name no `indexer` path, and its manifest lists `indexer` for tests
//! only (the binary injects re-indexing, `serve::Reindex`). A new import fails here; it goes
//! through `query::model`, `query::snapshot`, `query::flows` or another query operation.

use std::path::Path;

/// `(file, line number, line)` of every line under `dir` that reaches into the indexer.
fn indexer_uses(dir: &Path, root: &Path, out: &mut Vec<(String, usize, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            indexer_uses(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            for (n, line) in std::fs::read_to_string(&p).unwrap().lines().enumerate() {
                if names_the_indexer(line) {
                    out.push((rel.clone(), n + 1, line.trim().to_string()));
                }
            }
        }
    }
}

/// A path into the indexer crate: `indexer::…`, `use indexer`, `extern crate indexer`.
fn names_the_indexer(line: &str) -> bool {
    let code = line.trim_start();
    code.contains("indexer::")
        || code.starts_with("use indexer")
        || code.starts_with("pub use indexer")
        || code.contains("crate indexer")
}

#[test]
fn docgen_sources_name_no_indexer_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    indexer_uses(&src, &src, &mut found);
    assert!(
        found.is_empty(),
        "docgen/src reaches into the indexer; go through query's public API instead:\n{}",
        found
            .iter()
            .map(|(f, n, l)| format!("  {f}:{n}: {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_scan_sees_each_form_of_import() {
    assert!(names_the_indexer("use indexer::store::IndexRead;"));
    assert!(names_the_indexer("    let d = indexer::diff::diff(a, b);"));
    assert!(names_the_indexer("use indexer;"));
    assert!(names_the_indexer("pub use indexer as store;"));
    assert!(!names_the_indexer("use query::model::IndexRead;"));
    assert!(!names_the_indexer("// the reindexer is injected"));
}

#[test]
fn docgen_depends_on_the_indexer_for_tests_only() {
    let manifest: toml::Table =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
    let deps = |section: &str| {
        manifest
            .get(section)
            .and_then(|t| t.as_table())
            .is_some_and(|t| t.contains_key("indexer"))
    };
    assert!(
        !deps("dependencies") && !deps("build-dependencies"),
        "docgen/Cargo.toml lists indexer as a normal dependency; docgen reaches indexes through query"
    );
    assert!(
        deps("dev-dependencies"),
        "the manifest's shape changed: this test reads nothing"
    );
}
