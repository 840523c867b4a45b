//! Reciprocal rank fusion of ranked lists, with protected exact hits.
//!
//! Each leg contributes `weight / (k + rank)` for every item it ranks (rank from 1). Items that an
//! exact identifier lookup found are placed above every fused item, in their own order, so a near
//! miss from the text or vector legs can never outrank the thing the asker named.

use std::collections::HashMap;
use std::hash::Hash;

/// The customary RRF constant.
pub const RRF_K: f32 = 60.0;

/// One ranked list and how much it counts.
pub struct Leg<K> {
    pub name: &'static str,
    pub weight: f32,
    pub items: Vec<K>,
}

/// Fused score of every item in any leg, best first. Ties break on first appearance (legs in the
/// given order), so the output is deterministic.
pub fn rrf<K: Clone + Eq + Hash>(legs: &[Leg<K>], k: f32) -> Vec<(K, f32)> {
    let mut scores: HashMap<K, (f32, usize)> = HashMap::new();
    let mut order = 0usize;
    for leg in legs {
        for (i, item) in leg.items.iter().enumerate() {
            let add = leg.weight / (k + (i + 1) as f32);
            let e = scores.entry(item.clone()).or_insert_with(|| {
                order += 1;
                (0.0, order)
            });
            e.0 += add;
        }
    }
    let mut out: Vec<(K, f32, usize)> = scores.into_iter().map(|(k, (s, o))| (k, s, o)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(k, s, _)| (k, s)).collect()
}

/// `exact` first (deduplicated, in order), then `fused` without them.
pub fn protect_exact<K: Clone + Eq + Hash>(exact: &[K], fused: Vec<(K, f32)>) -> Vec<K> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for e in exact {
        if seen.insert(e.clone()) {
            out.push(e.clone());
        }
    }
    for (k, _) in fused {
        if seen.insert(k.clone()) {
            out.push(k);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_ranked_high_in_several_legs_win() {
        let legs = vec![
            Leg {
                name: "bm25",
                weight: 1.0,
                items: vec!["a", "b", "c"],
            },
            Leg {
                name: "vec",
                weight: 1.0,
                items: vec!["d", "b", "c"],
            },
        ];
        let fused = rrf(&legs, RRF_K);
        let order: Vec<&str> = fused.iter().map(|(k, _)| *k).collect();
        assert_eq!(order[0], "b");
        assert_eq!(order.len(), 4);
    }

    #[test]
    fn exact_hits_cannot_lose_to_near_misses() {
        let legs = vec![
            Leg {
                name: "bm25",
                weight: 1.0,
                items: vec!["near1", "near2", "exact"],
            },
            Leg {
                name: "vec",
                weight: 1.0,
                items: vec!["near1", "near2"],
            },
        ];
        let out = protect_exact(&["exact"], rrf(&legs, RRF_K));
        assert_eq!(out, vec!["exact", "near1", "near2"]);
    }

    #[test]
    fn ties_break_deterministically() {
        let legs = vec![
            Leg {
                name: "a",
                weight: 1.0,
                items: vec!["x"],
            },
            Leg {
                name: "b",
                weight: 1.0,
                items: vec!["y"],
            },
        ];
        for _ in 0..5 {
            let order: Vec<&str> = rrf(&legs, RRF_K).into_iter().map(|(k, _)| k).collect();
            assert_eq!(order, vec!["x", "y"]);
        }
    }
}
