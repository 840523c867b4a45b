//! The call graph: per-file facts in, resolved edges out.
//!
//! Extraction ([`facts`], filled by `lang/`) sees one file; resolution sees the repository. After
//! every run that changed a file, [`build`] rebuilds the whole graph in memory from the facts of
//! all current files — a type table (project types and a small table of common JDK types,
//! [`jdk`]), receiver typing and overload choice ([`resolve`]), type edges, then framework edges
//! ([`frameworks`]: Spring routes and beans, Feign, Dubbo, MQ, events, MyBatis, config keys).
//! The pipeline stores the edges grouped by the file that holds the use site and rewrites only
//! the files whose edges changed.
//!
//! Pure: no I/O, no store. What an edge means is documented on [`Edge`].

pub mod edge;
pub mod facts;
pub mod frameworks;
pub mod jdk;
pub mod resolve;
pub mod types;

pub use edge::{Edge, EdgeKind};
pub use facts::FileFacts;

use crate::model::RepoPath;
use rayon::prelude::*;

/// Whether the graph is built (`CODEMAP_SKIP_GRAPH=1` turns extraction and resolution off, to
/// measure what they cost; the index then has no edges).
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("CODEMAP_SKIP_GRAPH")
            .map(|v| v.is_empty() || v == "0")
            .unwrap_or(true)
    })
}

/// Builds every edge of the repository from the facts of all its files, grouped by use-site
/// file. Deterministic: files in path order, edges in [`Edge::order_in_file`] order. Display
/// names are left empty (they derive from the ids, [`Edge::normalize_names`]), except the name
/// of an unresolved callee.
pub fn build(files: &[(&RepoPath, &FileFacts)]) -> Vec<(String, Vec<Edge>)> {
    let table = types::TypeTable::build(files);
    let (mut edges, fw) = resolve::resolve_all(&table, files);
    edges.extend(types::type_edges(&table, files));
    edges.extend(frameworks::link(&table, files, &fw));
    let mut by_file: std::collections::HashMap<String, Vec<Edge>> =
        std::collections::HashMap::new();
    for mut e in edges {
        e.caller_name.clear();
        if e.callee.is_some() {
            e.callee_name.clear();
        }
        match by_file.get_mut(e.caller_file.as_str()) {
            Some(v) => v.push(e),
            None => {
                by_file.insert(e.caller_file.clone(), vec![e]);
            }
        }
    }
    let mut groups: Vec<(String, Vec<Edge>)> = by_file.into_iter().collect();
    groups.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    groups.par_iter_mut().for_each(|(_, g)| {
        g.sort_by(Edge::order_in_file);
        g.dedup();
    });
    groups
}
