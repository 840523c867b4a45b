//! A map bounded in total weight that lets the least recently used entries go: what a
//! long-running reader keeps of the index (file text, call-graph neighbourhoods, a team index's
//! search lists) between questions without its memory growing with the repository.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// Entries with a weight each (lines, edges: the caller's unit), at most `limit` in total.
/// Reading an entry ([`Bounded::get`]) makes it the most recently used; an insert that would go
/// over the limit first drops the least recently used entries until it fits.
pub struct Bounded<K, V> {
    limit: usize,
    used: usize,
    /// Increases with every use: an entry's last use orders the evictions.
    tick: u64,
    map: HashMap<K, Entry<V>>,
    /// Last use → key, oldest first.
    order: BTreeMap<u64, K>,
}

struct Entry<V> {
    value: V,
    weight: usize,
    used_at: u64,
}

impl<K: Hash + Eq + Clone, V> Bounded<K, V> {
    /// An empty map holding at most `limit` weight.
    pub fn new(limit: usize) -> Bounded<K, V> {
        Bounded {
            limit,
            used: 0,
            tick: 0,
            map: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    /// The value under `key`, now the most recently used.
    pub fn get<Q>(&mut self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.tick += 1;
        let e = self.map.get_mut(key)?;
        let k = self
            .order
            .remove(&e.used_at)
            .expect("every entry is in the order");
        e.used_at = self.tick;
        self.order.insert(self.tick, k);
        Some(&e.value)
    }

    /// Whether `key` is held (its use is not recorded).
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.contains_key(key)
    }

    /// Keeps `value` under `key` with its `weight`, replacing what was there, after dropping
    /// the least recently used entries it would not fit beside. A value heavier than the whole
    /// limit is not kept (nor does it empty the map).
    pub fn insert(&mut self, key: K, value: V, weight: usize) {
        self.remove(&key);
        if weight > self.limit {
            return;
        }
        while self.used + weight > self.limit {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(e) = self.map.remove(&oldest) {
                self.used -= e.weight;
            }
        }
        self.tick += 1;
        self.used += weight;
        self.order.insert(self.tick, key.clone());
        self.map.insert(
            key,
            Entry {
                value,
                weight,
                used_at: self.tick,
            },
        );
    }

    /// Holds at most `limit` from now on, dropping the least recently used entries over it.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
        while self.used > self.limit {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(e) = self.map.remove(&oldest) {
                self.used -= e.weight;
            }
        }
    }

    fn remove(&mut self, key: &K) {
        if let Some(e) = self.map.remove(key) {
            self.order.remove(&e.used_at);
            self.used -= e.weight;
        }
    }

    /// Drops every entry.
    pub fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
        self.used = 0;
    }

    /// The weight held now (never over [`Bounded::limit`]).
    pub fn weight(&self) -> usize {
        self.used
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insert_over_the_limit_evicts_the_least_recently_used() {
        let mut c: Bounded<&str, u32> = Bounded::new(10);
        c.insert("a", 1, 4);
        c.insert("b", 2, 4);
        assert_eq!(c.weight(), 8);
        // `a` read: `b` is now the oldest.
        assert_eq!(c.get("a"), Some(&1));
        c.insert("c", 3, 4);
        assert!(c.contains_key("a"));
        assert!(!c.contains_key("b"), "the least recently used goes first");
        assert!(c.contains_key("c"));
        assert_eq!(c.weight(), 8);
        // Exactly at the limit: nothing goes.
        c.insert("d", 4, 2);
        assert_eq!((c.len(), c.weight()), (3, 10));
        // One more unit: the oldest (`a`, read before `c` and `d` were put) goes.
        c.insert("e", 5, 1);
        assert!(!c.contains_key("a"));
        assert_eq!(c.weight(), 7);
    }

    #[test]
    fn a_value_heavier_than_the_limit_is_not_kept_and_empties_nothing() {
        let mut c: Bounded<String, u32> = Bounded::new(5);
        c.insert("small".into(), 1, 3);
        c.insert("huge".into(), 2, 6);
        assert!(!c.contains_key("huge"));
        assert_eq!(c.get("small"), Some(&1));
        assert_eq!(c.weight(), 3);
    }

    #[test]
    fn a_lower_limit_lets_the_least_recently_used_go_until_it_fits() {
        let mut c: Bounded<u32, u32> = Bounded::new(10);
        for k in 0..5 {
            c.insert(k, k, 2);
        }
        c.get(&0);
        c.set_limit(5);
        assert_eq!(c.limit(), 5);
        assert_eq!(c.weight(), 4, "two entries of 2 fit in 5");
        assert!(c.contains_key(&0), "read last: kept");
        assert!(c.contains_key(&4), "put last: kept");
        assert!(!(1..4).any(|k| c.contains_key(&k)));
        c.insert(9, 9, 2);
        assert!(!c.contains_key(&4), "the new limit holds for later inserts");
        assert!(c.contains_key(&0) && c.contains_key(&9));
    }

    #[test]
    fn replacing_a_key_counts_its_new_weight_only() {
        let mut c: Bounded<u32, &str> = Bounded::new(6);
        c.insert(1, "x", 5);
        c.insert(1, "y", 2);
        assert_eq!((c.len(), c.weight()), (1, 2));
        assert_eq!(c.get(&1), Some(&"y"));
        c.insert(2, "z", 4);
        assert_eq!((c.len(), c.weight()), (2, 6));
        c.clear();
        assert!(c.is_empty());
        assert_eq!(c.weight(), 0);
    }
}
