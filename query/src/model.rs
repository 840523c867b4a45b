//! The index's data as the fronts see it: one named place for the types a front renders or
//! passes back (snapshots and their diffs, symbols, files, call-graph edges, the reader trait
//! and its errors), so no front names the indexer's modules. Types only; the operations over
//! them are in [`crate::snapshot`], [`crate::flows`] and the rest of this crate.

pub use indexer::diff::{SnapshotDiff, SymbolVersion};
pub use indexer::graph::{Edge, EdgeKind};
pub use indexer::model::{Language, Provenance, RepoPath, Snapshot, Symbol, SymbolId, SymbolKind};
pub use indexer::store::{IndexRead, StoreError, WholeSnapshot};

/// Display name of a call-graph target id (`java:pkg.T#m(..)` → `pkg.T.m`); a call to a type
/// id is a call of its implicit constructor (`pkg.T.T`). The same name the stored edges carry.
pub fn callee_name_of(id: &str, kind: EdgeKind) -> String {
    indexer::graph::edge::callee_name_of(id, kind)
}
