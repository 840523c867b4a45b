//! The query side's two structural invariants (docs/ARCHITECTURE.md, issue 23 item 4):
//! "the query side never parses Java" and "the view format never depends on ranking". Both hold:
//! the lists of what is left are empty, and a test fails when code adds to them (the lists were
//! ratchets while the work of docs/research/one-java-parser.md went on).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The query side's lexical Java scanners (their definitions and calls), by name. Parameter
/// types and names, return and field types, whether a body has a statement, where it opens and
/// a type's supertypes, string literals and thrown types are symbol facts the indexer stores
/// (`Symbol::params`, `value_type`, `has_body`, `body_line`, `supertypes`, `literals`,
/// `thrown`), the lines calling a method are call edges, and who reads a field or constant is
/// a read edge; their scanners are gone (the literal, key-site, thrown-type, call-line and
/// reader lookups that stayed read those facts). Splitting
/// a call's arguments is left only for code the question pastes ([`QUESTION_TEXT`]).
const SCANNERS: &[&str] = &[
    "mask_comments_and_strings",
    "call_sites(",
    "local_types(",
    "supertypes(",
    "has_body_text(",
    "field_decl_type(",
    "arg_type(",
    "qualifier_is_direct(",
    "readers_of_field(",
    "header_end(",
    "LexicalGraph",
    // What a call site's line said (the former chain/site.rs): its receiver, its role, its
    // arguments, the names a method assigns, the constants it names, and whether a body throws;
    // now `CallSite` on call edges, read edges and `Symbol::thrown`.
    "receiver_words(",
    "call_role(",
    "call_args(",
    "assigned_locals(",
    "constant_words(",
    "\"throw\")",
];

/// Where the question's own text is read (pasted calls, stack traces, diffs): not indexed Java,
/// so not scanned for the names above.
const QUESTION_TEXT: &str = "question/";

/// What is left of them: (file under query/src, scanner, occurrences).
const SCANNING_LEFT: &[(&str, &str, usize)] = &[];

/// Modules whose lists and weights are ranking: the view must not read them.
const RANKING: &[&str] = &[
    "crate::retrieve",
    "crate::question",
    "crate::fusion",
    "crate::chain",
    "crate::answer",
    "crate::ask",
    "crate::impact",
];

/// What the view still reads from them: (file, path, occurrences).
const VIEW_READS_LEFT: &[(&str, &str, usize)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every .rs file under `dir`, as (path relative to query/src with `/`, text).
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p
                .strip_prefix(src())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

fn all_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    sources(&src(), &mut out);
    assert!(
        out.len() > 40,
        "query/src not found from {}",
        src().display()
    );
    out
}

/// Occurrences of `pattern` in `text` that start a word (`call_args(` is not in
/// `pasted_call_args(`).
fn word_matches(text: &str, pattern: &str) -> usize {
    text.match_indices(pattern)
        .filter(|(at, _)| {
            !text[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .count()
}

/// Occurrences of each pattern per file, against the list of what is left.
fn ratchet(found: BTreeMap<(String, String), usize>, left: &[(&str, &str, usize)], what: &str) {
    let expected: BTreeMap<(String, String), usize> = left
        .iter()
        .map(|&(f, t, n)| ((f.to_string(), t.to_string()), n))
        .collect();
    let added: Vec<_> = found
        .iter()
        .filter(|(k, n)| expected.get(*k).is_none_or(|e| *n > e))
        .collect();
    let removed: Vec<_> = expected
        .iter()
        .filter(|(k, n)| found.get(*k).is_none_or(|f| f < n))
        .collect();
    assert!(
        added.is_empty(),
        "{what} grew (new occurrences, (file, name) → count): {added:?}"
    );
    assert!(
        removed.is_empty(),
        "{what} shrank: lower the list in query/tests/invariants.rs to match ({removed:?} → {:?})",
        removed
            .iter()
            .map(|(k, _)| found.get(*k).copied().unwrap_or(0))
            .collect::<Vec<_>>()
    );
}

#[test]
fn the_query_side_scans_java_text_only_where_the_shrinking_list_says() {
    let mut found = BTreeMap::new();
    for (file, text) in all_sources() {
        if file.starts_with(QUESTION_TEXT) {
            continue;
        }
        for t in SCANNERS {
            let n = word_matches(&text, t);
            if n > 0 {
                found.insert((file.clone(), t.to_string()), n);
            }
        }
    }
    ratchet(found, SCANNING_LEFT, "lexical Java scanning in query/src");
}

#[test]
fn the_query_side_has_no_java_parser_of_its_own() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    assert!(
        !manifest.contains("tree-sitter"),
        "query must read facts from the index, not parse: {manifest}"
    );
    for (file, text) in all_sources() {
        for banned in ["tree_sitter", "lang::java", "tree_sitter_java"] {
            assert!(!text.contains(banned), "{file} uses {banned}");
        }
    }
}

#[test]
fn the_view_reads_ranking_modules_only_where_the_shrinking_list_says() {
    let mut found = BTreeMap::new();
    for (file, text) in all_sources() {
        if !file.starts_with("viewdata") {
            continue;
        }
        for m in RANKING {
            // Each full path that starts with a ranking module, e.g. crate::retrieve::has_body_text.
            for (at, _) in text.match_indices(m) {
                let path: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                *found.entry((file.clone(), path)).or_insert(0) += 1;
            }
        }
    }
    ratchet(
        found,
        VIEW_READS_LEFT,
        "the view's reads of ranking modules",
    );
}
