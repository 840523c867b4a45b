//! The index's data as the fronts see it: one named place for the types a front renders or
//! passes back (snapshots and their diffs, symbols, files, call-graph edges, the reader trait
//! and its errors, and how an edge target id is named), so no front names the indexer's modules.
//! Re-exports only; the operations over them are in [`crate::snapshot`], [`crate::flows`] and
//! the rest of this crate.

pub use indexer::diff::{SnapshotDiff, SymbolVersion};
// `callee_name_of`: the display name of a call-graph target id, as the stored edges carry it.
pub use indexer::graph::edge::callee_name_of;
pub use indexer::graph::{Edge, EdgeKind};
pub use indexer::lang::{Described, described_files};
pub use indexer::model::{Language, Provenance, RepoPath, Snapshot, Symbol, SymbolId, SymbolKind};
pub use indexer::node::{NodeId, NodeKind};
pub use indexer::store::{IndexRead, StoreError, WholeSnapshot};
