//! How the call graph is built, as a stream for repositories whose facts do not fit in memory
//! at once ([`super::build`] is the same over facts already in memory). Besides the type table
//! it holds every file's declarations ([`FileFacts::declarations`]) while the table is built
//! (or decodes them pass by pass: [`Declarations::Decoded`]), then only what other files'
//! resolution reads of them ([`FileFacts::referenced`]), one file's whole facts per worker,
//! and each file's edges encoded until the framework edges, which need every file's, have
//! joined them:
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

/// Every file's declarations as [`build_each`] takes them.
pub enum Declarations<'a> {
    /// Held by the caller and read as they are for the whole build (a build over facts
    /// already in memory).
    Borrowed(&'a [&'a FileFacts]),
    /// Held, and cut down to what other files' resolution reads ([`FileFacts::referenced`])
    /// once the type table is built.
    Owned(Vec<FileFacts>),
    /// Decoded on demand: for each pass of the type table's build, then once more to keep
    /// what other files' resolution reads. For a repository whose declarations do not fit
    /// the run's memory budget: never all in memory at once, at the cost of decoding them
    /// four times.
    Decoded(&'a (dyn Fn(usize) -> Option<FileFacts> + Sync)),
}

/// Builds every edge of the repository ([`super::build`]) and hands each use-site file's
/// edges, in path order, to `each`. `paths` are every file's paths in order, `decls` their
/// declarations (or whole facts); `whole(i)` gives file `i`'s whole facts.
pub fn build_each<'a, T: Send>(
    paths: &[&'a RepoPath],
    decls: Declarations<'a>,
    whole: &(dyn Fn(usize) -> Option<Cow<'a, FileFacts>> + Sync),
    each: &(dyn Fn(String, Vec<Edge>) -> T + Sync),
) -> Vec<T> {
    let n = paths.len();
    let table = match &decls {
        Declarations::Borrowed(b) => {
            types::TypeTable::build(n, &|i| b.get(i).map(|f| Cow::Borrowed(*f)))
        }
        Declarations::Owned(v) => types::TypeTable::build(n, &|i| v.get(i).map(Cow::Borrowed)),
        Declarations::Decoded(f) => types::TypeTable::build(n, &|i| f(i).map(Cow::Owned)),
    };
    tracing::debug!(
        rss_mib = crate::pipeline::mem::resident_mib(),
        "type table built"
    );
    // Other languages' resolvers read whole declarations (Kotlin calls into Java classes):
    // they run before the cut.
    let kept: Vec<FileFacts>;
    let (held, mut early): (Vec<&FileFacts>, Vec<Vec<Edge>>) = match decls {
        Declarations::Borrowed(b) => (b.to_vec(), other_languages(paths, b)),
        Declarations::Owned(v) => {
            let early = other_languages(paths, &v.iter().collect::<Vec<_>>());
            kept = v.into_par_iter().map(FileFacts::referenced).collect();
            (kept.iter().collect(), early)
        }
        Declarations::Decoded(f) => {
            kept = (0..n)
                .into_par_iter()
                .map(|i| f(i).map(FileFacts::referenced).unwrap_or_default())
                .collect();
            let early = if reads_java(&kept) {
                // Held only while they run.
                let whole: Vec<FileFacts> = (0..n)
                    .into_par_iter()
                    .map(|i| f(i).unwrap_or_default())
                    .collect();
                other_languages(paths, &whole.iter().collect::<Vec<_>>())
            } else {
                // The cut keeps other languages' facts whole.
                other_languages(paths, &kept.iter().collect::<Vec<_>>())
            };
            (kept.iter().collect(), early)
        }
    };
    let decls: Vec<(&RepoPath, &FileFacts)> = paths.iter().copied().zip(held).collect();
    let decls = decls.as_slice();
    tracing::debug!(
        rss_mib = crate::pipeline::mem::resident_mib(),
        "declarations cut to what other files read"
    );
    let files = Files::new(decls);
    let index: HashMap<&str, usize> = decls
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.as_str(), i))
        .collect();
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

/// Whether a language whose resolver reads Java declarations has files here.
fn reads_java(files: &[FileFacts]) -> bool {
    let present: std::collections::HashSet<&str> = files
        .iter()
        .filter_map(|f| f.lang.as_ref().map(|l| l.language.as_str()))
        .collect();
    crate::lang::REGISTRY
        .iter()
        .any(|s| s.reads_java && present.contains(s.language.as_str()))
}

/// The edges other languages' resolvers give, by file, from every file's declarations.
fn other_languages(paths: &[&RepoPath], decls: &[&FileFacts]) -> Vec<Vec<Edge>> {
    let all: Vec<(&RepoPath, &FileFacts)> =
        paths.iter().copied().zip(decls.iter().copied()).collect();
    let mut early: Vec<Vec<Edge>> = vec![Vec::new(); all.len()];
    for resolve in crate::lang::REGISTRY.iter().filter_map(|s| s.resolve) {
        for (mine, theirs) in early.iter_mut().zip(resolve(&all)) {
            mine.extend(theirs);
        }
    }
    early
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{self, ParseLimits};

    /// Every file of the repository fixtures (Spring, Python, TypeScript, Kotlin calling
    /// Java, Go) with its facts.
    fn fixtures() -> Vec<(RepoPath, FileFacts)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut out = Vec::new();
        let mut stack = ["shop", "pyshop", "tsshop", "ktshop", "goshop"]
            .map(|r| root.join(r))
            .to_vec();
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let rel = p.strip_prefix(&root).unwrap().to_str().unwrap().to_string();
                let path = RepoPath::new(&rel).unwrap();
                let Some(language) = lang::detect(&path) else {
                    continue;
                };
                let src = std::fs::read(&p).unwrap();
                let a = lang::analyze(language, &path, "m", &src, &ParseLimits::default());
                if let Some(f) = a.facts {
                    out.push((path, *f));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// What is kept of other files once the type table is built ([`FileFacts::referenced`])
    /// must be all their resolution reads: the fixtures' framework edges (Feign methods
    /// inherited from an interface's mappings, queue names held by enum constants, injected
    /// beans) and Kotlin's calls into Java give the same graph held whole, cut, or decoded
    /// pass by pass.
    #[test]
    fn the_graph_is_the_same_from_whole_cut_or_decoded_declarations() {
        let files = fixtures();
        let paths: Vec<&RepoPath> = files.iter().map(|(p, _)| p).collect();
        let facts: Vec<&FileFacts> = files.iter().map(|(_, f)| f).collect();
        let whole = |i: usize| Some(Cow::Borrowed(&files[i].1));
        let each = |f: String, es: Vec<Edge>| (f, es);
        let reference = build_each(&paths, Declarations::Borrowed(&facts), &whole, &each);
        let routes = reference.iter().flat_map(|g| &g.1);
        assert!(
            routes
                .clone()
                .any(|e| e.kind == super::super::EdgeKind::Rpc)
                && routes.clone().any(|e| e
                    .callee
                    .as_deref()
                    .is_some_and(|c| c.starts_with("java:"))
                    && e.caller.starts_with("kt:")),
            "the fixtures have Feign and Kotlin → Java edges"
        );
        let decls: Vec<FileFacts> = files
            .iter()
            .map(|(_, f)| f.clone().declarations())
            .collect();
        let cut = build_each(&paths, Declarations::Owned(decls), &whole, &each);
        same(&reference, &cut, "declarations cut after the type table");
        let encoded: Vec<Vec<u8>> = files.iter().map(|(_, f)| f.encode()).collect();
        let decode = |i: usize| FileFacts::decode(&encoded[i]).map(FileFacts::declarations);
        let decoded = build_each(&paths, Declarations::Decoded(&decode), &whole, &each);
        same(&reference, &decoded, "declarations decoded on demand");
    }

    /// Fails naming the edges one build has and the other lacks.
    fn same(reference: &[(String, Vec<Edge>)], other: &[(String, Vec<Edge>)], what: &str) {
        let flat = |g: &[(String, Vec<Edge>)]| -> Vec<String> {
            g.iter()
                .flat_map(|(_, es)| es.iter().map(|e| format!("{e:?}")))
                .collect()
        };
        let (a, b) = (flat(reference), flat(other));
        let lost: Vec<&String> = a.iter().filter(|e| !b.contains(e)).collect();
        let gained: Vec<&String> = b.iter().filter(|e| !a.contains(e)).collect();
        assert!(
            a == b,
            "{what}: {} edges lost, {} gained\nlost: {lost:#?}\ngained: {gained:#?}",
            lost.len(),
            gained.len()
        );
    }
}
