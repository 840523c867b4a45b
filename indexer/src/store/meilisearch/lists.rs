//! Keyword search lists kept between questions. A question's keyword search on the server is
//! one multi-search of the whole question and each of its words alone ([`super::read`]); the
//! words repeat across questions (a team asks about the same code in the same words), and a
//! word's list is the same for every question on one snapshot. Lists are kept here by
//! repository scope, snapshot ([`SnapshotKey`]: a generation of one publish), query and limit, and a question asks the server only
//! for the lists not kept; the least recently used go first once [`MAX_KEPT_HITS`] hits are kept.

use crate::bounded::Bounded;
use crate::model::SnapshotKey;
use std::sync::{Arc, LazyLock, Mutex};

/// Hits kept over all lists, at most (a chunk id and a path each: about 40 MB).
const MAX_KEPT_HITS: usize = 200_000;

/// One search's hits (chunk id, path), best first, and how many chunks matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct List {
    pub hits: Vec<(String, String)>,
    pub total: usize,
}

/// (scope, snapshot, query, limit): the query `""` with limit 0 counts the scope's chunks.
type Key = (String, SnapshotKey, String, usize);

static KEPT: LazyLock<Mutex<Bounded<Key, Arc<List>>>> =
    LazyLock::new(|| Mutex::new(Bounded::new(MAX_KEPT_HITS)));

fn kept() -> std::sync::MutexGuard<'static, Bounded<Key, Arc<List>>> {
    // A panic while holding the lock left a map that is still valid.
    KEPT.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The kept list of each of `searches` (query, limit) in scope `scope` on `snapshot`.
pub(super) fn get(
    scope: &str,
    snapshot: SnapshotKey,
    searches: &[(String, usize)],
) -> Vec<Option<Arc<List>>> {
    let mut k = kept();
    searches
        .iter()
        .map(|(q, limit)| {
            k.get(&(scope.to_string(), snapshot, q.clone(), *limit))
                .cloned()
        })
        .collect()
}

/// Keeps the list of search (query, limit) in scope `scope` on `snapshot`.
pub(super) fn put(scope: &str, snapshot: SnapshotKey, search: &(String, usize), list: Arc<List>) {
    let weight = list.hits.len() + 1;
    kept().insert(
        (scope.to_string(), snapshot, search.0.clone(), search.1),
        list,
        weight,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_kept_per_scope_snapshot_query_and_limit() {
        let at = |generation, publish| SnapshotKey {
            generation,
            publish,
        };
        let scope = "lists-test\0scope";
        let s = vec![("order".to_string(), 40), ("status".to_string(), 40)];
        assert!(get(scope, at(1, 1), &s).iter().all(Option::is_none));
        let l = Arc::new(List {
            hits: vec![("c1".into(), "A.java".into())],
            total: 7,
        });
        put(scope, at(1, 1), &s[0], l.clone());
        let got = get(scope, at(1, 1), &s);
        assert_eq!(got[0].as_deref(), Some(&*l));
        assert!(got[1].is_none());
        assert!(get(scope, at(2, 1), &s)[0].is_none(), "another generation");
        assert!(
            get(scope, at(1, 2), &s)[0].is_none(),
            "the same generation of another publish (a rebuild swapped in)"
        );
        assert!(
            get(scope, at(1, 1), &[("order".to_string(), 20)])[0].is_none(),
            "another limit"
        );
        assert!(
            get("lists-test\0other", at(1, 1), &s)[0].is_none(),
            "another scope"
        );
    }
}
