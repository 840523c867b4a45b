//! Call-graph neighbourhoods kept between questions, bounded in size: what a long-running reader
//! of a team index (Meilisearch) keeps instead of the whole graph. Each symbol's edges in and out
//! are read with a filtered query the first time a question walks them ([`super::StoredGraph`])
//! and kept here, the least recently used going first once the cache holds its limit of edges.

use crate::bounded::Bounded;
use indexer::graph::Edge as Stored;
use indexer::model::SnapshotKey;
use std::sync::{Arc, Mutex};

/// One endpoint's edges, in the order the index gives them.
pub type Neighbourhood = Arc<Vec<Arc<Stored>>>;

/// The neighbourhoods read from one snapshot, at most `max_edges` edges in all
/// (an endpoint without edges weighs one). `Send + Sync`: a repository's readers share one.
pub struct Adjacency {
    inner: Mutex<Inner>,
}

struct Inner {
    snapshot: Option<SnapshotKey>,
    /// (outgoing, symbol key) → its edges from (outgoing) or to it.
    edges: Bounded<(bool, String), Neighbourhood>,
}

impl Adjacency {
    pub fn new(max_edges: usize) -> Adjacency {
        Adjacency {
            inner: Mutex::new(Inner {
                snapshot: None,
                edges: Bounded::new(max_edges),
            }),
        }
    }

    fn inner(&self, snapshot: SnapshotKey) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock left a map that is still valid.
        let mut g = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Another snapshot: what was kept describes the old graph.
        if g.snapshot != Some(snapshot) {
            g.edges.clear();
            g.snapshot = Some(snapshot);
        }
        g
    }

    /// The edges from (`outgoing`) or to `key` in `snapshot`, if kept.
    pub fn get(&self, snapshot: SnapshotKey, outgoing: bool, key: &str) -> Option<Neighbourhood> {
        self.inner(snapshot)
            .edges
            .get(&(outgoing, key.to_string()))
            .cloned()
    }

    /// Keeps the edges from (`outgoing`) or to `key` read from `snapshot`.
    pub fn put(&self, snapshot: SnapshotKey, outgoing: bool, key: &str, edges: Neighbourhood) {
        let weight = edges.len().max(1);
        self.inner(snapshot)
            .edges
            .insert((outgoing, key.to_string()), edges, weight);
    }

    /// Edges kept now (endpoints without edges count one).
    pub fn weight(&self) -> usize {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .edges
            .weight()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexer::graph::EdgeKind;

    fn at(generation: u64, publish: u64) -> SnapshotKey {
        SnapshotKey {
            generation,
            publish,
        }
    }

    fn edges(caller: &str, n: usize) -> Neighbourhood {
        Arc::new(
            (0..n)
                .map(|i| {
                    Arc::new(Stored {
                        caller_file: "A.java".into(),
                        caller: caller.to_string(),
                        caller_name: caller.to_string(),
                        line: i as u32 + 1,
                        kind: EdgeKind::Call,
                        callee: Some(format!("callee{i}")),
                        callee_name: format!("callee{i}"),
                        callee_file: Some("B.java".into()),
                        callee_line: Some(1),
                        caller_flags: 0,
                        confidence: 1.0,
                        detail: String::new(),
                        site: Default::default(),
                    })
                })
                .collect(),
        )
    }

    #[test]
    fn neighbourhoods_past_the_limit_evict_the_least_recently_walked() {
        let a = Adjacency::new(10);
        a.put(at(1, 0), true, "m1", edges("m1", 4));
        a.put(at(1, 0), true, "m2", edges("m2", 4));
        assert!(a.get(at(1, 0), true, "m1").is_some());
        a.put(at(1, 0), false, "m3", edges("m3", 4));
        assert!(
            a.get(at(1, 0), true, "m2").is_none(),
            "the least recently walked went"
        );
        assert_eq!(a.get(at(1, 0), true, "m1").unwrap().len(), 4);
        assert_eq!(a.get(at(1, 0), false, "m3").unwrap()[0].caller, "m3");
        assert!(
            a.get(at(1, 0), true, "m3").is_none(),
            "callers and callees apart"
        );
        assert!(a.weight() <= 10);
        // An endpoint without edges is kept too, at weight one.
        a.put(at(1, 0), true, "leaf", edges("leaf", 0));
        assert!(a.get(at(1, 0), true, "leaf").is_some_and(|e| e.is_empty()));
        assert_eq!(a.weight(), 9);
    }

    #[test]
    fn another_generation_starts_empty() {
        let a = Adjacency::new(100);
        a.put(at(3, 0), true, "m", edges("m", 2));
        assert!(a.get(at(3, 0), true, "m").is_some());
        assert!(a.get(at(4, 0), true, "m").is_none());
        assert!(
            a.get(at(3, 0), true, "m").is_none(),
            "the old snapshot's edges are gone"
        );
        assert_eq!(a.weight(), 0);
    }

    #[test]
    fn the_same_generation_of_another_publish_starts_empty() {
        let a = Adjacency::new(100);
        a.put(at(1, 7), true, "m", edges("m", 2));
        assert!(a.get(at(1, 8), true, "m").is_none(), "a rebuild swapped in");
        assert!(a.get(at(1, 7), true, "m").is_none());
    }
}
