//! The stored call graph (the indexer's resolved edges) behind [`CallGraph`].

use super::{CallGraph, Edge, EdgeKind};
use crate::QueryError;
use indexer::graph::{Edge as Stored, EdgeKind as StoredKind};
use indexer::model::SymbolId;
use indexer::store::IndexRead;

/// Callers and callees read from the index's stored edges (either backend). Only edges between symbols of the
/// snapshot are returned (library members and pseudo endpoints such as routes are left out);
/// callers of a method include calls made through the methods it overrides.
pub struct StoredGraph<'c> {
    catalog: &'c dyn IndexRead,
}

impl<'c> StoredGraph<'c> {
    pub fn new(catalog: &'c dyn IndexRead) -> StoredGraph<'c> {
        StoredGraph { catalog }
    }

    /// Whether the index holds a call graph at all.
    pub fn available(catalog: &dyn IndexRead) -> bool {
        catalog.edge_count().is_ok_and(|n| n > 0)
    }
}

fn kind(e: &Stored) -> EdgeKind {
    match e.kind {
        StoredKind::Call => {
            let mut parts = e.callee_name.rsplit('.');
            let (last, prev) = (parts.next(), parts.next());
            if last == Some("<init>") || (last.is_some() && last == prev) {
                EdgeKind::New
            } else {
                EdgeKind::Call
            }
        }
        StoredKind::Rpc => EdgeKind::Rpc,
        StoredKind::Db => EdgeKind::Db,
        StoredKind::Event => EdgeKind::Event,
        StoredKind::Route => EdgeKind::Route,
        // A constant set as a value is data use, like a key; `between_symbols` keeps these
        // non-flow edges out of the call graph anyway.
        StoredKind::Config | StoredKind::Constant => EdgeKind::Config,
        StoredKind::Inherits => EdgeKind::Inherits,
        StoredKind::Implements => EdgeKind::Implements,
        StoredKind::Overrides => EdgeKind::Overrides,
    }
}

fn convert(e: &Stored, to: &str) -> Edge {
    Edge {
        from: SymbolId(e.caller.clone()),
        to: SymbolId(to.to_string()),
        kind: kind(e),
        path: e.caller_file.clone(),
        line: e.line,
        confidence: e.confidence,
    }
}

fn between_symbols(e: &Stored) -> bool {
    e.kind.is_flow()
        && e.callee.is_some()
        && e.callee_file.is_some()
        && e.caller.starts_with("java:")
}

impl CallGraph for StoredGraph<'_> {
    fn entries(&self, id: &SymbolId) -> Result<Vec<String>, QueryError> {
        let mut out: Vec<String> = self
            .catalog
            .edges_to(&id.0)?
            .iter()
            .filter_map(|e| {
                e.caller
                    .strip_prefix("route:")
                    .or_else(|| e.caller.strip_prefix("schedule:"))
                    .map(str::to_string)
            })
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn callers(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        let mut out: Vec<Edge> = self
            .catalog
            .edges_to(&id.0)?
            .iter()
            .filter(|e| between_symbols(e))
            .map(|e| convert(e, &id.0))
            .collect();
        for sup in self.catalog.edges_from(&id.0)? {
            if sup.kind != StoredKind::Overrides {
                continue;
            }
            let Some(s) = &sup.callee else { continue };
            for e in self.catalog.edges_to(s)? {
                if between_symbols(&e) {
                    let mut c = convert(&e, &id.0);
                    c.confidence = c.confidence.min(0.8);
                    out.push(c);
                }
            }
        }
        out.sort_by(|a, b| {
            b.confidence
                .partial_cmp(&a.confidence)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| (&a.path, a.line, &a.from).cmp(&(&b.path, b.line, &b.from)))
        });
        out.dedup_by(|a, b| a.from == b.from && a.path == b.path && a.line == b.line);
        Ok(out)
    }

    fn callees(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        Ok(self
            .catalog
            .edges_from(&id.0)?
            .iter()
            .filter(|e| between_symbols(e))
            .map(|e| convert(e, e.callee.as_deref().unwrap_or_default()))
            .collect())
    }
}
