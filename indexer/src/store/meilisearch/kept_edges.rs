//! Call-graph neighbourhoods kept between questions. Every read of a symbol's edges in or out
//! (callers, callees, the reads of a field, an impact's walk) is a filtered documents request
//! to the server; a team asks about the same code again and again, and a neighbourhood is the
//! same for every question on one snapshot. Neighbourhoods are kept here by repository scope,
//! snapshot ([`SnapshotKey`]), direction and endpoint for the whole process (a repository's
//! readers share them), the least recently used going first once [`MAX_KEPT_EDGES`] edges are
//! kept.

use crate::bounded::Bounded;
use crate::graph::Edge;
use crate::model::SnapshotKey;
use std::sync::{Arc, LazyLock, Mutex};

/// Edges kept over all neighbourhoods, at most (an edge with its strings is about 250 bytes:
/// about 40 MB; an endpoint without edges weighs one).
pub(super) const MAX_KEPT_EDGES: usize = 150_000;

/// (scope, snapshot, outgoing, endpoint id).
type Key = (String, SnapshotKey, bool, String);

static KEPT: LazyLock<Mutex<Bounded<Key, Arc<Vec<Edge>>>>> =
    LazyLock::new(|| Mutex::new(Bounded::new(MAX_KEPT_EDGES)));

fn kept() -> std::sync::MutexGuard<'static, Bounded<Key, Arc<Vec<Edge>>>> {
    // A panic while holding the lock left a map that is still valid.
    KEPT.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The kept edges from (`outgoing`) or to `id` in scope `scope` on `snapshot`.
pub(super) fn get(
    scope: &str,
    snapshot: SnapshotKey,
    outgoing: bool,
    id: &str,
) -> Option<Arc<Vec<Edge>>> {
    kept()
        .get(&(scope.to_string(), snapshot, outgoing, id.to_string()))
        .cloned()
}

/// Keeps the edges from (`outgoing`) or to `id` in scope `scope` on `snapshot`.
pub(super) fn put(
    scope: &str,
    snapshot: SnapshotKey,
    outgoing: bool,
    id: &str,
    edges: Arc<Vec<Edge>>,
) {
    let weight = edges.len() + 1;
    kept().insert(
        (scope.to_string(), snapshot, outgoing, id.to_string()),
        edges,
        weight,
    );
}
