//! The graph stage of a run: after the changed files are analysed and before the catalog commits,
//! rebuild the call graph from the facts of every current file (new facts for analysed files,
//! stored facts for the rest) and work out which use-site files' edges changed. An edit in one
//! file therefore re-resolves the edges of every file that points into it, and only files whose
//! edges actually changed are rewritten.

use crate::graph::{self, Edge, FileFacts};
use crate::model::RepoPath;
use crate::store::StoreError;
use crate::store::catalog::{Catalog, FileUpdate, GraphChanges};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// What the graph stage did, for logs and summaries.
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphStats {
    pub files: usize,
    pub edges: usize,
    pub files_rewritten: usize,
}

/// What the graph stage reads from the catalog: facts of the files not analysed this run and
/// the hash of each use-site file's stored edges.
pub(super) struct Stored {
    facts: Vec<(String, Vec<u8>)>,
    hashes: HashMap<String, String>,
}

pub(super) fn load(
    catalog: &Catalog,
    updates: &[FileUpdate<'_>],
    removed: &[RepoPath],
) -> Result<Stored, StoreError> {
    let replaced: HashSet<&str> = updates
        .iter()
        .map(|u| u.row.path.as_str())
        .chain(removed.iter().map(|p| p.as_str()))
        .collect();
    Ok(Stored {
        facts: catalog.facts_except(&replaced)?,
        hashes: catalog.edge_hashes()?,
    })
}

/// Computes the graph changes of a run (call inside the run's thread pool: decoding and
/// resolution are parallel).
pub(super) fn changes(
    stored: Stored,
    updates: &[FileUpdate<'_>],
    removed: &[RepoPath],
) -> (GraphChanges, GraphStats) {
    let started = std::time::Instant::now();
    let Stored {
        facts: stored,
        hashes: old,
    } = stored;
    let decoded: Vec<(RepoPath, FileFacts)> = stored
        .par_iter()
        .filter_map(|(p, data)| {
            let path = RepoPath::new(p)?;
            match FileFacts::decode(data) {
                Some(f) => Some((path, f)),
                None => {
                    tracing::warn!(path = %p, "stored graph facts unreadable; file left out");
                    None
                }
            }
        })
        .collect();
    let mut inputs: Vec<(&RepoPath, &FileFacts)> = decoded.iter().map(|(p, f)| (p, f)).collect();
    inputs.extend(
        updates
            .iter()
            .filter_map(|u| u.analysis.facts.as_deref().map(|f| (&u.row.path, f))),
    );
    inputs.sort_by(|a, b| a.0.cmp(b.0));
    let decoded_at = started.elapsed();
    let groups = graph::build(&inputs);
    let built_at = started.elapsed();
    let edge_count: usize = groups.iter().map(|g| g.1.len()).sum();
    let hashed: Vec<(String, String, Vec<Edge>)> = groups
        .into_par_iter()
        .map(|(f, es)| {
            let h = hash_edges(&es);
            (f, h, es)
        })
        .collect();
    let mut out = GraphChanges::default();
    let mut present: HashSet<String> = HashSet::with_capacity(hashed.len());
    for (f, hash, es) in hashed {
        if old.get(&f) != Some(&hash) {
            present.insert(f.clone());
            out.edges.push((f, hash, es));
        } else {
            present.insert(f);
        }
    }
    for f in old.keys() {
        if !present.contains(f) {
            out.edges_removed.push(f.clone());
        }
    }
    out.edges_removed.sort();
    out.facts = updates
        .par_iter()
        .filter_map(|u| {
            u.analysis
                .facts
                .as_deref()
                .map(|f| (u.row.path.clone(), f.encode()))
        })
        .collect();
    out.facts_removed = updates
        .iter()
        .filter(|u| u.analysis.facts.is_none())
        .map(|u| u.row.path.clone())
        .chain(removed.iter().cloned())
        .collect();
    tracing::info!(
        files = inputs.len(),
        edges = edge_count,
        rewritten = out.edges.len(),
        decode_ms = decoded_at.as_millis() as u64,
        build_ms = (built_at - decoded_at).as_millis() as u64,
        diff_ms = (started.elapsed() - built_at).as_millis() as u64,
        "call graph"
    );
    let stats = GraphStats {
        files: inputs.len(),
        edges: edge_count,
        files_rewritten: out.edges.len() + out.edges_removed.len(),
    };
    (out, stats)
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
