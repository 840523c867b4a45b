//! How the call graph is built, as a stream for repositories whose facts do not fit in memory
//! at once ([`super::build`] is the same over facts already in memory). Besides the type table it holds the declarations of every file
//! ([`FileFacts::declarations`]), one file's whole facts per worker, and each file's edges
//! encoded until the framework edges, which need every file's, have joined them:
//!
//! 1. the type table from the declarations; other languages' and the type edges, by file;
//! 2. each file resolved with its whole facts (decoded on demand), its edges encoded;
//! 3. framework edges from what every file's resolution collected;
//! 4. each file's edges decoded, joined by its framework edges, requests linked to routes,
//!    ordered and handed to `each`.
//!
//! Within a file the edges are joined in one order (its calls, other languages', type edges,
//! framework edges) before they are sorted, so that ties sort the same on every run.

use super::http::Routes;
use super::resolve;
use super::{Edge, FileFacts, Files, frameworks, types};
use crate::model::RepoPath;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// One file's edges between the stages.
struct Resolved {
    /// lz4 of bincode: the edges so far.
    edges: Vec<u8>,
    /// Its route edges (requests are linked against every file's routes).
    routes: Vec<Edge>,
}

/// Builds every edge of the repository ([`super::build`]) and hands each use-site file's
/// edges, in path order, to `each`. `decls` are every file's declarations in path order
/// (or whole facts); `whole(i)` gives file `i`'s whole facts.
pub fn build_each<'a, T: Send>(
    decls: &[(&RepoPath, &'a FileFacts)],
    whole: &(dyn Fn(usize) -> Option<Cow<'a, FileFacts>> + Sync),
    each: &(dyn Fn(String, Vec<Edge>) -> T + Sync),
) -> Vec<T> {
    let files = Files::new(decls);
    let index: HashMap<&str, usize> = decls
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.as_str(), i))
        .collect();
    let table = types::TypeTable::build(files);
    tracing::debug!(
        rss_mib = crate::pipeline::mem::resident_mib(),
        "type table built"
    );
    let mut early: Vec<Vec<Edge>> = vec![Vec::new(); decls.len()];
    for resolve in crate::lang::REGISTRY.iter().filter_map(|s| s.resolve) {
        for (mine, theirs) in early.iter_mut().zip(resolve(decls)) {
            mine.extend(theirs);
        }
    }
    let mut stray: Vec<Edge> = Vec::new();
    for e in types::type_edges(&table, files) {
        match index.get(e.caller_file.as_str()) {
            Some(&i) => early[i].push(e),
            None => stray.push(e),
        }
    }
    let (resolved, fw): (Vec<Resolved>, Vec<frameworks::FileFw>) = early
        .into_par_iter()
        .enumerate()
        .map(|(i, early)| resolve_file(&table, files, i, whole(i), early))
        .unzip();
    tracing::debug!(
        rss_mib = crate::pipeline::mem::resident_mib(),
        "calls resolved"
    );
    let mut late: Vec<Vec<Edge>> = vec![Vec::new(); decls.len()];
    for e in frameworks::link(&table, files, &fw) {
        match index.get(e.caller_file.as_str()) {
            Some(&i) => late[i].push(e),
            None => stray.push(e),
        }
    }
    drop(fw);
    std::thread::spawn(move || drop(table));
    let groups = Groups::new(decls, resolved, late, stray);
    let routes = groups.routes();
    groups
        .0
        .into_par_iter()
        .filter_map(|g| {
            let (file, mut edges) = g.edges(&routes);
            if edges.is_empty() {
                return None;
            }
            for e in edges.iter_mut() {
                e.caller_name.clear();
                if e.callee.is_some() {
                    e.callee_name.clear();
                }
            }
            edges.sort_by(Edge::order_in_file);
            edges.dedup();
            Some(each(file, edges))
        })
        .collect()
}

/// Stage 2 for file `i`: its calls resolved with its whole facts, then the edges that came
/// before (other languages', type edges) in the order [`super::build`] joins them.
fn resolve_file(
    table: &types::TypeTable,
    files: Files<'_>,
    i: usize,
    own: Option<Cow<'_, FileFacts>>,
    early: Vec<Edge>,
) -> (Resolved, frameworks::FileFw) {
    let own = own.as_deref();
    let (mut edges, fw) = match own.and_then(|f| f.java.as_ref().map(|j| (f, j))) {
        Some((f, j)) => resolve::resolve_file(table, files.with_own(i, f), i as u32, j),
        None => (Vec::new(), frameworks::FileFw::default()),
    };
    edges.extend(early);
    for e in edges.iter_mut() {
        // Names derive from ids; cleared now so that the encoding is small.
        e.caller_name.clear();
        if e.callee.is_some() {
            e.callee_name.clear();
        }
    }
    let resolved = Resolved {
        routes: edges
            .iter()
            .filter(|e| e.kind == super::EdgeKind::Route)
            .cloned()
            .collect(),
        edges: encode(&edges),
    };
    (resolved, fw)
}

/// The use-site files of the build in path order: the input files and those only framework
/// or type edges name.
struct Groups(Vec<Group>);

struct Group {
    file: String,
    resolved: Option<Resolved>,
    late: Vec<Edge>,
}

impl Groups {
    fn new(
        decls: &[(&RepoPath, &FileFacts)],
        resolved: Vec<Resolved>,
        late: Vec<Vec<Edge>>,
        stray: Vec<Edge>,
    ) -> Groups {
        let mut out: Vec<Group> = decls
            .iter()
            .zip(resolved.into_iter().zip(late))
            .map(|((p, _), (r, late))| Group {
                file: p.to_string(),
                resolved: Some(r),
                late,
            })
            .collect();
        let mut strays: Vec<Group> = Vec::new();
        for e in stray {
            match strays.iter_mut().find(|g| g.file == e.caller_file) {
                Some(g) => g.late.push(e),
                None => strays.push(Group {
                    file: e.caller_file.clone(),
                    resolved: None,
                    late: vec![e],
                }),
            }
        }
        out.extend(strays);
        out.sort_by(|a, b| a.file.cmp(&b.file));
        Groups(out)
    }

    /// Every route, in the order [`http::link`] meets them.
    fn routes(&self) -> Routes {
        let mut routes = Routes::default();
        for g in &self.0 {
            let early = g.resolved.iter().flat_map(|r| &r.routes);
            for e in early.chain(&g.late) {
                routes.add(e);
            }
        }
        routes
    }
}

impl Group {
    /// The file and its edges, joined and linked.
    fn edges(self, routes: &Routes) -> (String, Vec<Edge>) {
        let mut edges = self.resolved.map(|r| decode(&r.edges)).unwrap_or_default();
        edges.extend(self.late);
        if !routes.is_empty() {
            routes.link(&mut edges);
        }
        (self.file, edges)
    }
}

fn encode(edges: &[Edge]) -> Vec<u8> {
    lz4_flex::compress_prepend_size(&bincode::serialize(edges).unwrap_or_default())
}

fn decode(data: &[u8]) -> Vec<Edge> {
    lz4_flex::decompress_size_prepended(data)
        .ok()
        .and_then(|raw| bincode::deserialize(&raw).ok())
        .unwrap_or_default()
}
