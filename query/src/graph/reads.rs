//! Who reads a field or constant, and what a method reads: the index's `read` edges (one per
//! reading code and field, at its first read), resolved from the tree by the indexer. Field
//! initializers and initializer blocks read as their type.

use super::CallGraph;
use crate::QueryError;
use crate::view::{SnapshotView, SymIdx};
use indexer::graph::EdgeKind;
use indexer::model::SymbolId;

/// The code reading `field`, with the line of its first read, in symbol order.
pub fn readers(v: &SnapshotView<'_>, field: SymIdx) -> Result<Vec<(SymIdx, u32)>, QueryError> {
    let mut out: Vec<(SymIdx, u32)> = v
        .index
        .edges_to(v.id(field))?
        .into_iter()
        .filter(|e| e.kind == EdgeKind::Read)
        .filter_map(|e| Some((v.by_id(&e.caller)?, e.line)))
        .collect();
    out.sort_unstable();
    out.dedup_by_key(|(i, _)| *i);
    Ok(out)
}

/// The fields and constants `reader` reads, with the line of the first read, in line order;
/// from `graph` when it holds reads, else from the index.
pub fn read_by(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    reader: SymIdx,
) -> Result<Vec<(SymIdx, u32)>, QueryError> {
    let id = v.id(reader);
    let read: Vec<(String, u32)> = match graph.reads(&SymbolId(id.to_string()), true)? {
        Some(r) => r,
        None => v
            .index
            .edges_from(id)?
            .into_iter()
            .filter(|e| e.kind == EdgeKind::Read)
            .filter_map(|e| Some((e.callee?, e.line)))
            .collect(),
    };
    let mut out: Vec<(SymIdx, u32)> = read
        .iter()
        .filter_map(|(field, line)| Some((v.by_id(field)?, *line)))
        .collect();
    out.sort_unstable_by_key(|&(i, line)| (line, i));
    Ok(out)
}
