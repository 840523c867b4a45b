//! A snapshot's whole call graph held in memory, by endpoint: what a long-running service keeps
//! warm so that a question's walk reads no edge from the index (each read decodes a file's edges
//! on the embedded index, and is a round trip on Meilisearch).

use crate::QueryError;
use indexer::graph::Edge as Stored;
use indexer::model::SnapshotKey;
use indexer::store::{IndexRead, StoreError};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Reads that saw a run publish in between are tried again this many times.
const READ_RETRIES: usize = 3;

/// Every edge of one snapshot, found by caller and by callee key the way
/// [`IndexRead::edges_from`] and [`IndexRead::edges_to`] find them, in the same order.
pub struct EdgeTable {
    snapshot: SnapshotKey,
    /// Shared with the questions that read them: handing one out costs a count, not a copy.
    edges: Vec<Arc<Stored>>,
    to: FxHashMap<Box<str>, Vec<u32>>,
    from: FxHashMap<Box<str>, Vec<u32>>,
}

impl EdgeTable {
    /// The graph of the snapshot `index` shows now, read whole; `None` before the first run.
    /// A run that publishes during the read makes it start over: a table never mixes two
    /// snapshots.
    pub fn read(index: &dyn IndexRead) -> Result<Option<EdgeTable>, QueryError> {
        for _ in 0..READ_RETRIES {
            let Some(before) = index.last_snapshot()? else {
                return Ok(None);
            };
            let mut edges = Vec::new();
            index.for_each_edge(&mut |e| {
                edges.push(e);
                Ok(())
            })?;
            if index.last_snapshot()?.map(|s| s.key()) == Some(before.key()) {
                return Ok(Some(EdgeTable::new(before.key(), edges)));
            }
        }
        Err(StoreError::KeptChanging(READ_RETRIES).into())
    }

    /// A table over `edges` (ordered by use-site file, then source order, as
    /// [`IndexRead::for_each_edge`] gives them).
    pub fn new(snapshot: SnapshotKey, edges: Vec<Stored>) -> EdgeTable {
        let mut to: FxHashMap<Box<str>, Vec<u32>> = FxHashMap::default();
        let mut from: FxHashMap<Box<str>, Vec<u32>> = FxHashMap::default();
        for (i, e) in edges.iter().enumerate() {
            let i = i as u32;
            match &e.callee {
                Some(c) => push(&mut to, c, i),
                None => push(&mut to, &format!("?{}", e.callee_name), i),
            }
            push(&mut from, &e.caller, i);
        }
        EdgeTable {
            snapshot,
            edges: edges.into_iter().map(Arc::new).collect(),
            to,
            from,
        }
    }

    /// The snapshot the table was read from.
    pub fn snapshot(&self) -> SnapshotKey {
        self.snapshot
    }

    /// Number of edges.
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// What [`IndexRead::edges_to`] gives for `callee`.
    pub fn edges_to(&self, callee: &str) -> Vec<Arc<Stored>> {
        self.pick(self.to.get(callee))
    }

    /// What [`IndexRead::edges_from`] gives for `caller`.
    pub fn edges_from(&self, caller: &str) -> Vec<Arc<Stored>> {
        self.pick(self.from.get(caller))
    }

    fn pick(&self, at: Option<&Vec<u32>>) -> Vec<Arc<Stored>> {
        at.map(|ix| ix.iter().map(|&i| self.edges[i as usize].clone()).collect())
            .unwrap_or_default()
    }
}

fn push(map: &mut FxHashMap<Box<str>, Vec<u32>>, key: &str, i: u32) {
    match map.get_mut(key) {
        Some(v) => v.push(i),
        None => {
            map.insert(key.into(), vec![i]);
        }
    }
}
