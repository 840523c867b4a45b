//! Call-graph access for answers: callers and callees of a symbol.
//!
//! [`CallGraph`] is the seam where the indexer's stored call graph plugs in ([`StoredGraph`]);
//! an index without edges gets [`NoGraph`], which answers nothing.

pub mod hierarchy;
pub mod reads;
pub mod stored;
pub mod table;

pub use stored::StoredGraph;
pub use table::{EdgeTable, walked};

use crate::QueryError;
use indexer::graph::CallSite;
use indexer::model::SymbolId;
use serde::Serialize;

/// What kind of use an edge records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    Call,
    New,
    Rpc,
    Db,
    Event,
    Inherits,
    Implements,
    Overrides,
    Route,
    Config,
}

/// `from` uses `to` at `path:line`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edge {
    pub from: SymbolId,
    pub to: SymbolId,
    pub kind: EdgeKind,
    /// Use site.
    pub path: String,
    pub line: u32,
    /// 1.0 when the callee is certain (same type, named type); lower for name-only matches.
    pub confidence: f32,
    /// A call: its receiver chain and what its site hands on (see [`CallSite`]).
    #[serde(skip)]
    pub site: CallSite,
}

/// Callers and callees of symbols in one snapshot.
///
/// Contract: edges name symbols of the same snapshot the caller reads; results are deterministic
/// (same input, same order); an unknown id yields an empty list, not an error.
pub trait CallGraph {
    /// Edges whose `to` is `id`, most confident first.
    fn callers(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError>;
    /// Edges whose `from` is `id`, in source order of the use sites.
    fn callees(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError>;
    /// How many distinct symbols call `id` (the `from` of [`CallGraph::callers`]), counted up
    /// to `cap`: asking "more than 50?" of a method called from everywhere need not make its
    /// thousands of edges.
    fn caller_count(&self, id: &SymbolId, cap: usize) -> Result<usize, QueryError> {
        Ok(distinct_callers(&self.callers(id)?).min(cap))
    }
    /// The project fields `id` reads (`outgoing`) or the code reading field `id`, as the other
    /// end's id and the line of the read; `None` when this graph does not hold reads (ask the
    /// index, [`reads`]).
    fn reads(
        &self,
        id: &SymbolId,
        outgoing: bool,
    ) -> Result<Option<Vec<(String, u32)>>, QueryError> {
        let _ = (id, outgoing);
        Ok(None)
    }
    /// Where calls from outside enter `id`: routes (`POST /api/orders`) and schedules
    /// (`cron=0 */5 * * * ?`) a graph with framework edges knows; none by default.
    fn entries(&self, id: &SymbolId) -> Result<Vec<String>, QueryError> {
        let _ = id;
        Ok(Vec::new())
    }
    /// Reads ahead what [`CallGraph::callers`] and [`CallGraph::entries`] will ask of `ids`
    /// (one level of a walk), in as few round trips as the backend allows. Nothing by default.
    fn prefetch_callers(&self, ids: &[SymbolId]) -> Result<(), QueryError> {
        let _ = ids;
        Ok(())
    }
    /// The same for [`CallGraph::callees`].
    fn prefetch_callees(&self, ids: &[SymbolId]) -> Result<(), QueryError> {
        let _ = ids;
        Ok(())
    }
}

/// The number of distinct callers among `edges`.
pub(crate) fn distinct_callers(edges: &[Edge]) -> usize {
    let mut from: Vec<&str> = edges.iter().map(|e| e.from.0.as_str()).collect();
    from.sort_unstable();
    from.dedup();
    from.len()
}

/// A graph with no edges: answers still work, without expansion.
pub struct NoGraph;

impl CallGraph for NoGraph {
    fn callers(&self, _: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        Ok(Vec::new())
    }
    fn callees(&self, _: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        Ok(Vec::new())
    }
}
