//! The stored call graph (the indexer's resolved edges) behind [`CallGraph`].

use super::table::EdgeTable;
use super::{CallGraph, Edge, EdgeKind};
use crate::QueryError;
use indexer::graph::{Edge as Stored, EdgeKind as StoredKind};
use indexer::model::SymbolId;
use indexer::store::IndexRead;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// One endpoint's edges, in the order the index gives them.
type Neighbourhood = Arc<Vec<Arc<Stored>>>;

/// Callers and callees read from the index's stored edges (either backend). Only edges between symbols of the
/// snapshot are returned (library members and pseudo endpoints such as routes are left out);
/// callers of a method include calls made through the methods it overrides.
///
/// One value serves one question: it keeps the edges it read, so a walk that asks the same
/// node twice (its callers, then its entry points) reads it once, and a walk's level can be
/// read in one batch ([`CallGraph::prefetch_callers`]). Given the snapshot's [`EdgeTable`], it
/// reads nothing from the index. (A team index keeps neighbourhoods across questions itself.)
pub struct StoredGraph<'c> {
    catalog: &'c dyn IndexRead,
    table: Option<Arc<EdgeTable>>,
    to: RefCell<HashMap<String, Neighbourhood>>,
    from: RefCell<HashMap<String, Neighbourhood>>,
}

impl<'c> StoredGraph<'c> {
    pub fn new(catalog: &'c dyn IndexRead) -> StoredGraph<'c> {
        StoredGraph {
            catalog,
            table: None,
            to: RefCell::default(),
            from: RefCell::default(),
        }
    }

    /// A graph answering from `table`, which must hold the snapshot `catalog` shows (the
    /// caller checks [`EdgeTable::snapshot`]).
    pub fn with_table(catalog: &'c dyn IndexRead, table: Arc<EdgeTable>) -> StoredGraph<'c> {
        StoredGraph {
            table: Some(table),
            ..StoredGraph::new(catalog)
        }
    }

    fn edges_to(&self, id: &str) -> Result<Neighbourhood, QueryError> {
        memoized(&self.to, id, || match &self.table {
            Some(t) => Ok(Arc::new(t.edges_to(id))),
            None => Ok(Arc::new(shared(self.catalog.edges_to(id)?))),
        })
    }

    fn edges_from(&self, id: &str) -> Result<Neighbourhood, QueryError> {
        memoized(&self.from, id, || match &self.table {
            Some(t) => Ok(Arc::new(t.edges_from(id))),
            None => Ok(Arc::new(shared(self.catalog.edges_from(id)?))),
        })
    }

    /// Reads the edges from (`outgoing`) or to each of `ids` not read yet, in one batch.
    fn read_ahead(&self, ids: &[&str], outgoing: bool) -> Result<(), QueryError> {
        if self.table.is_some() {
            return Ok(());
        }
        let memo = if outgoing { &self.from } else { &self.to };
        let missing: Vec<&str> = {
            let m = memo.borrow();
            let mut out: Vec<&str> = ids
                .iter()
                .copied()
                .filter(|id| !m.contains_key(*id))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        if missing.is_empty() {
            return Ok(());
        }
        let read = if outgoing {
            self.catalog.edges_from_many(&missing)?
        } else {
            self.catalog.edges_to_many(&missing)?
        };
        let mut m = memo.borrow_mut();
        for (k, v) in read {
            m.insert(k, Arc::new(shared(v)));
        }
        Ok(())
    }

    /// Whether the index holds a call graph at all.
    pub fn available(catalog: &dyn IndexRead) -> bool {
        catalog.edge_count().is_ok_and(|n| n > 0)
    }
}

/// `memo[id]`, read with `read` the first time.
fn memoized(
    memo: &RefCell<HashMap<String, Neighbourhood>>,
    id: &str,
    read: impl FnOnce() -> Result<Neighbourhood, QueryError>,
) -> Result<Neighbourhood, QueryError> {
    if let Some(v) = memo.borrow().get(id) {
        return Ok(v.clone());
    }
    let v = read()?;
    memo.borrow_mut().insert(id.to_string(), v.clone());
    Ok(v)
}

fn shared(edges: Vec<Stored>) -> Vec<Arc<Stored>> {
    edges.into_iter().map(Arc::new).collect()
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
        // A constant set as a value and a field read are data use, like a key;
        // `between_symbols` keeps these non-flow edges out of the call graph anyway.
        StoredKind::Config | StoredKind::Constant | StoredKind::Read => EdgeKind::Config,
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
        site: e.site.clone(),
    }
}

fn between_symbols(e: &Stored) -> bool {
    e.kind.is_flow()
        && e.callee.is_some()
        && e.callee_file.is_some()
        && indexer::node::NodeId::parse(&e.caller).is_symbol()
}

impl CallGraph for StoredGraph<'_> {
    fn entries(&self, id: &SymbolId) -> Result<Vec<String>, QueryError> {
        let mut out: Vec<String> = self
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
            .edges_to(&id.0)?
            .iter()
            .filter(|e| between_symbols(e))
            .map(|e| convert(e, &id.0))
            .collect();
        for sup in self.edges_from(&id.0)?.iter() {
            if sup.kind != StoredKind::Overrides {
                continue;
            }
            let Some(s) = &sup.callee else { continue };
            for e in self.edges_to(s)?.iter() {
                if between_symbols(e) {
                    let mut c = convert(e, &id.0);
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

    fn reads(
        &self,
        id: &SymbolId,
        outgoing: bool,
    ) -> Result<Option<Vec<(String, u32)>>, QueryError> {
        Ok(self.table.as_ref().map(|t| t.reads(&id.0, outgoing)))
    }

    fn caller_count(&self, id: &SymbolId, cap: usize) -> Result<usize, QueryError> {
        let Some(t) = &self.table else {
            return Ok(super::distinct_callers(&self.callers(id)?).min(cap));
        };
        let mut seen = rustc_hash::FxHashSet::default();
        t.callers_into(&id.0, &mut seen, cap);
        for sup in t.overridden(&id.0) {
            t.callers_into(sup, &mut seen, cap);
        }
        Ok(seen.len())
    }

    fn prefetch_callers(&self, ids: &[SymbolId]) -> Result<(), QueryError> {
        if self.table.is_some() {
            return Ok(()); // nothing to read ahead
        }
        // Callers take the edges to each id and, through the methods it overrides, to those.
        let ids: Vec<&str> = ids.iter().map(|i| i.0.as_str()).collect();
        self.read_ahead(&ids, true)?;
        let mut targets: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        for id in &ids {
            for sup in self.edges_from(id)?.iter() {
                if sup.kind == StoredKind::Overrides
                    && let Some(s) = &sup.callee
                {
                    targets.push(s.clone());
                }
            }
        }
        let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
        self.read_ahead(&targets, false)
    }

    fn prefetch_callees(&self, ids: &[SymbolId]) -> Result<(), QueryError> {
        let ids: Vec<&str> = ids.iter().map(|i| i.0.as_str()).collect();
        self.read_ahead(&ids, true)
    }

    fn callees(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        Ok(self
            .edges_from(&id.0)?
            .iter()
            .filter(|e| between_symbols(e))
            .map(|e| convert(e, e.callee.as_deref().unwrap_or_default()))
            .collect())
    }
}
