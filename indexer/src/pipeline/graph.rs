//! The graph stage of a run: after the changed files are analysed and before the catalog commits,
//! rebuild the call graph from the facts of every current file (new facts for analysed files,
//! stored facts for the rest) and work out which use-site files' edges changed. An edit in one
//! file therefore re-resolves the edges of every file that points into it, and only files whose
//! edges actually changed are rewritten.

use super::budget::MemoryBudget;
use crate::graph::{self, Declarations, Edge, FileFacts};
use crate::model::RepoPath;
use crate::store::StoreError;
use crate::store::catalog::{Catalog, EdgeFile, GraphChanges};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// What the graph stage did, for logs and summaries.
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphStats {
    pub files: usize,
    pub edges: usize,
    pub files_rewritten: usize,
}

/// What the graph stage reads from the catalog: stored facts (encoded) and the hash of each
/// use-site file's stored edges. Read before the run's transaction opens.
pub(super) struct Stored {
    facts: Vec<(String, Vec<u8>)>,
    hashes: HashMap<String, String>,
}

pub(super) fn load(catalog: &Catalog, removed: &[RepoPath]) -> Result<Stored, StoreError> {
    let skip: HashSet<&str> = removed.iter().map(|p| p.as_str()).collect();
    Ok(Stored {
        facts: catalog.facts_except(&skip)?,
        hashes: catalog.edge_hashes()?,
    })
}

/// [`changes`] for the paths `replaced`, on `pool` when there is one (the run's own threads).
pub(super) fn changes_on(
    pool: Option<&rayon::ThreadPool>,
    stored: Stored,
    fresh: Vec<(RepoPath, Vec<u8>)>,
    replaced: Vec<RepoPath>,
    budget: MemoryBudget,
) -> (GraphChanges, GraphStats) {
    let replaced: HashSet<&str> = replaced.iter().map(|p| p.as_str()).collect();
    let stage = || changes(stored, fresh, &replaced, budget);
    match pool {
        Some(pool) => pool.install(stage),
        None => stage(),
    }
}

/// Computes the graph changes of a run (call inside the run's thread pool: decoding and
/// resolution are parallel). `fresh` holds the encoded facts of the files analysed this run;
/// stored facts of every path in `replaced` (analysed, skipped or removed this run) are left
/// out. Streams ([`graph::build_each`]): every file's declarations are decoded, its whole facts
/// only while it is resolved, and each file's edges are hashed and encoded as they come.
pub(super) fn changes(
    stored: Stored,
    fresh: Vec<(RepoPath, Vec<u8>)>,
    replaced: &HashSet<&str>,
    budget: MemoryBudget,
) -> (GraphChanges, GraphStats) {
    let started = std::time::Instant::now();
    let Stored {
        facts: stored,
        hashes: old,
    } = stored;
    let mut inputs: Vec<(RepoPath, Vec<u8>)> = stored
        .into_iter()
        .filter(|(p, _)| !replaced.contains(p.as_str()))
        .filter_map(|(p, data)| Some((RepoPath::new(&p)?, data)))
        .chain(fresh)
        .collect();
    inputs.sort_by(|a, b| a.0.cmp(&b.0));
    let encoded: u64 = inputs.iter().map(|(_, d)| d.len() as u64).sum();
    let hold = budget.holds_declarations(encoded);
    let decls = if hold {
        let decoded: Vec<Option<FileFacts>> = (0..inputs.len())
            .into_par_iter()
            .map(|i| {
                let d = declarations_of(&inputs, i);
                if d.is_none() {
                    unreadable(&inputs[i].0);
                }
                d
            })
            .collect();
        let (kept, decls): (Vec<(RepoPath, Vec<u8>)>, Vec<FileFacts>) = inputs
            .into_iter()
            .zip(decoded)
            .filter_map(|(i, d)| Some((i, d?)))
            .unzip();
        inputs = kept;
        Some(decls)
    } else {
        // Decoded on demand: an unreadable file then has no declarations and no edges.
        None
    };
    tracing::debug!(
        encoded_kib = encoded >> 10,
        held = hold,
        rss_mib = super::mem::resident_mib(),
        "graph declarations decoded"
    );
    let decoded_at = started.elapsed();
    let paths: Vec<&RepoPath> = inputs.iter().map(|(p, _)| p).collect();
    // Read once per file whichever way the declarations are: where a decoding failure is told.
    let whole = |i: usize| {
        let f = FileFacts::decode(&inputs[i].1).map(std::borrow::Cow::Owned);
        if f.is_none() && !hold {
            unreadable(&inputs[i].0);
        }
        f
    };
    let on_demand = |i: usize| declarations_of(&inputs, i);
    let decls = match decls {
        Some(d) => Declarations::Owned(d),
        None => Declarations::Decoded(&on_demand),
    };
    // Hashed, and encoded when changed, as each file's edges come: the catalog transaction
    // only inserts.
    let hashed: Vec<(String, usize, Option<EdgeFile>)> =
        graph::build_each(&paths, decls, &whole, &|f, es| {
            let h = hash_edges(&es);
            let n = es.len();
            if old.get(&f) == Some(&h) {
                (f, n, None)
            } else {
                (f.clone(), n, Some(EdgeFile::new(f, h, &es)))
            }
        });
    let built_at = started.elapsed();
    let edge_count: usize = hashed.iter().map(|h| h.1).sum();
    let mut out = GraphChanges::default();
    let mut present: HashSet<String> = HashSet::with_capacity(hashed.len());
    for (f, _, changed) in hashed {
        present.insert(f);
        out.edges.extend(changed);
    }
    for f in old.keys() {
        if !present.contains(f) {
            out.edges_removed.push(f.clone());
        }
    }
    out.edges_removed.sort();
    tracing::info!(
        files = paths.len(),
        edges = edge_count,
        rewritten = out.edges.len(),
        decode_ms = decoded_at.as_millis() as u64,
        build_ms = (built_at - decoded_at).as_millis() as u64,
        rss_mib = super::mem::resident_mib(),
        "call graph"
    );
    let stats = GraphStats {
        files: paths.len(),
        edges: edge_count,
        files_rewritten: out.edges.len() + out.edges_removed.len(),
    };
    (out, stats)
}

/// The declarations of input `i` (`None` when its facts cannot be read).
fn declarations_of(inputs: &[(RepoPath, Vec<u8>)], i: usize) -> Option<FileFacts> {
    FileFacts::decode(&inputs[i].1).map(FileFacts::declarations)
}

fn unreadable(path: &RepoPath) {
    tracing::warn!(path = %path, "stored graph facts unreadable; file left out");
}

/// A content hash of one file's edges (they arrive in a deterministic order): their fields
/// written into one buffer, hashed once.
fn hash_edges(edges: &[Edge]) -> String {
    let mut buf: Vec<u8> = Vec::with_capacity(edges.len() * 128);
    for e in edges {
        for s in [
            e.caller.as_str(),
            e.kind.as_str(),
            e.callee.as_deref().unwrap_or("\u{0}"),
            e.callee_name.as_str(),
            e.callee_file.as_deref().unwrap_or("\u{0}"),
            e.detail.as_str(),
        ] {
            buf.extend_from_slice(s.as_bytes());
            buf.push(0xff);
        }
        buf.extend_from_slice(&e.line.to_le_bytes());
        buf.push(e.caller_flags);
        buf.extend_from_slice(&e.callee_line.unwrap_or(0).to_le_bytes());
        buf.extend_from_slice(&e.confidence.to_le_bytes());
    }
    blake3::hash(&buf).to_hex()[..24].to_string()
}
