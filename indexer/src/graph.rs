//! The call graph: per-file facts in, resolved edges out.
//!
//! Extraction ([`facts`], filled by `lang/`) sees one file; resolution sees the repository. After
//! every run that changed a file, [`build_each`] rebuilds the whole graph from the facts of all
//! current files, holding only their declarations and one file's whole facts per worker — a type table (project types and a small table of common JDK types,
//! [`jdk`]), receiver typing and overload choice ([`resolve`]), type edges, then framework edges
//! ([`frameworks`]: Spring routes and beans, Feign, Dubbo, MQ, events, MyBatis, config keys).
//! The pipeline stores the edges grouped by the file that holds the use site and rewrites only
//! the files whose edges changed. [`build`] is the same over facts already in memory.
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

pub use each::{Declarations, build_each};
pub use edge::{CallSite, Edge, EdgeKind, SITE_ARGUMENT, SITE_LOCAL, SITE_PARAM, SITE_RETURNED};
pub use facts::{FileFacts, LangFacts};
pub use files::{Declared, Files};

use crate::model::RepoPath;

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
/// of an unresolved callee. (An index run streams the same build over the files'
/// declarations: [`build_each`].)
pub fn build(all: &[(&RepoPath, &FileFacts)]) -> Vec<(String, Vec<Edge>)> {
    let whole = |i: usize| Some(std::borrow::Cow::Borrowed(all[i].1));
    let (paths, facts): (Vec<&RepoPath>, Vec<&FileFacts>) = all.iter().copied().unzip();
    build_each(&paths, Declarations::Borrowed(&facts), &whole, &|f, es| {
        (f, es)
    })
}
