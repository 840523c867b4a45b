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

pub mod declarations;
mod each;
pub mod edge;
pub mod facts;
pub mod files;
pub mod frameworks;
pub mod http;
pub mod jdk;
pub mod resolve;
pub mod types;

pub use each::build_each;
pub use edge::{CallSite, Edge, EdgeKind, SITE_ARGUMENT, SITE_LOCAL, SITE_PARAM, SITE_RETURNED};
pub use facts::{FileFacts, LangFacts};
pub use files::Files;

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
pub fn build(all: &[(&RepoPath, &FileFacts)]) -> Vec<(String, Vec<Edge>)> {
    let files = Files::new(all);
    let table = types::TypeTable::build(files);
    tracing::debug!(
        rss_mib = crate::pipeline::mem::resident_mib(),
        "type table built"
    );
    let (mut per_file, fw) = resolve::resolve_all(&table, files);
    tracing::debug!(
        rss_mib = crate::pipeline::mem::resident_mib(),
        "calls resolved"
    );
    // Every other language resolves its own files' facts.
    for resolve in crate::lang::REGISTRY.iter().filter_map(|s| s.resolve) {
        for (mine, theirs) in per_file.iter_mut().zip(resolve(all)) {
            mine.extend(theirs);
        }
    }
    // Type and framework edges join their use-site file's group.
    let index: std::collections::HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.as_str(), i))
        .collect();
    let mut stray: Vec<Edge> = Vec::new();
    let extra = types::type_edges(&table, files)
        .into_iter()
        .chain(frameworks::link(&table, files, &fw));
    for e in extra {
        match index.get(e.caller_file.as_str()) {
            Some(&i) => per_file[i].push(e),
            None => stray.push(e),
        }
    }
    // The table is large and only needed until here: freed off the critical path.
    std::thread::spawn(move || drop(table));
    let mut groups: Vec<(String, Vec<Edge>)> = files
        .iter()
        .zip(per_file)
        .filter(|(_, es)| !es.is_empty())
        .map(|((p, _), es)| (p.to_string(), es))
        .collect();
    for e in stray {
        match groups.iter_mut().find(|g| g.0 == e.caller_file) {
            Some(g) => g.1.push(e),
            None => groups.push((e.caller_file.clone(), vec![e])),
        }
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    // Requests meet routes across languages once every language's edges are in.
    http::link(&mut groups);
    groups.par_iter_mut().for_each(|(_, g)| {
        for e in g.iter_mut() {
            e.caller_name.clear();
            if e.callee.is_some() {
                e.callee_name.clear();
            }
        }
        g.sort_by(Edge::order_in_file);
        g.dedup();
    });
    groups
}
