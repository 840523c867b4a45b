//! BM25 over a keyword pool: Meilisearch finds the chunks holding the question's words, but
//! orders them by its own rules (matched words, typos, proximity) over words it splits itself.
//! The embedded index ranks by BM25 over the code analyzer's tokens. Scoring the pool the same
//! way here, with each word's document frequency from Meilisearch's hit counts, makes the two
//! backends rank alike for the chunks both find.
//!
//! Scoring needs each pooled chunk's token counts, not its text: [`ChunkStats`] holds them, and
//! the process keeps them by chunk id ([`remembered`], [`remember`]) so that a question's pool,
//! which overlaps the last questions' pools, is neither sent again nor tokenized again.

use crate::analyzer::code_analyzer;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, RwLock};
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// The searchable fields scored, in order: symbol names, header, text.
pub(super) const FIELDS: usize = 3;
/// The documents' attributes read to score a chunk: its id and the fields scored.
pub(super) const FIELD_NAMES: [&str; FIELDS + 1] = ["chunk_id", "symbols", "header", "text"];

thread_local! {
    // Built once per thread: a pool's re-scoring tokenizes a few thousand fields per question.
    static ANALYZER: RefCell<TextAnalyzer> = RefCell::new(code_analyzer());
}

/// Calls `f` with each token of `text` as the embedded index holds them (whole identifiers,
/// their words, stems), in order. `f` must not tokenize anything itself.
fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    ANALYZER.with(|a| {
        let mut a = a.borrow_mut();
        let mut stream = a.token_stream(text);
        while stream.advance() {
            f(&stream.token().text);
        }
    })
}

/// Tokens of `text` as the embedded index holds them (whole identifiers, their words, stems).
pub(super) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
}

/// A token by a 64-bit hash: a chunk's counts are kept without its token strings. Std's
/// default hasher starts from fixed keys, so a token hashes alike in every thread of the process.
fn key(token: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    token.hash(&mut h);
    h.finish()
}

/// One chunk's fields as BM25 reads them: per field, its length in tokens and each token's
/// count, by token key, sorted.
#[derive(Debug)]
pub(super) struct ChunkStats {
    fields: [FieldStats; FIELDS],
}

#[derive(Debug, Default)]
struct FieldStats {
    len: u32,
    counts: Box<[(u64, u32)]>,
}

impl ChunkStats {
    /// Tokenizes the chunk's fields (symbol names, header, text).
    pub(super) fn of(fields: [&str; FIELDS]) -> ChunkStats {
        ChunkStats {
            fields: fields.map(|text| {
                let mut keys = Vec::new();
                for_each_token(text, |t| keys.push(key(t)));
                let len = keys.len() as u32;
                keys.sort_unstable();
                let mut counts: Vec<(u64, u32)> = Vec::new();
                for k in keys {
                    match counts.last_mut() {
                        Some((last, c)) if *last == k => *c += 1,
                        _ => counts.push((k, 1)),
                    }
                }
                FieldStats {
                    len,
                    counts: counts.into_boxed_slice(),
                }
            }),
        }
    }

    /// Distinct tokens over all fields: what the chunk costs to keep.
    fn size(&self) -> usize {
        self.fields.iter().map(|f| f.counts.len()).sum()
    }
}

/// The weight of each query token by key ([`bm25`]'s `idf`), from weights by token.
pub(super) fn weights(idf: &HashMap<String, f32>) -> Vec<(u64, f32)> {
    idf.iter().map(|(t, w)| (key(t), *w)).collect()
}

/// Scores each chunk by BM25 summed over its fields, as tantivy scores a query over several
/// fields: per field, term frequency against that field's average length over the pool. `idf`
/// holds the weight of each query token ([`weights`]); tokens without one do not count.
pub(super) fn bm25(docs: &[&ChunkStats], idf: &[(u64, f32)]) -> Vec<f32> {
    let n = docs.len().max(1) as f32;
    let mut avg = [0f32; FIELDS];
    for d in docs {
        for (f, s) in d.fields.iter().enumerate() {
            avg[f] += s.len as f32;
        }
    }
    let avg = avg.map(|total| (total / n).max(1.0));
    docs.iter()
        .map(|d| {
            let mut score = 0.0;
            for (f, s) in d.fields.iter().enumerate() {
                let norm = K1 * (1.0 - B + B * s.len as f32 / avg[f]);
                for (k, w) in idf {
                    if let Ok(i) = s.counts.binary_search_by_key(k, |(k, _)| *k) {
                        let c = s.counts[i].1 as f32;
                        score += w * c * (K1 + 1.0) / (c + norm);
                    }
                }
            }
            score
        })
        .collect()
}

/// BM25's idf of a token held by `n` of `total` documents.
pub(super) fn idf(n: usize, total: f32) -> f32 {
    let n = n as f32;
    (1.0 + (total - n + 0.5) / (n + 0.5)).ln()
}

/// Distinct tokens kept over all remembered chunks, at most (16 bytes each: about 32 MB; a
/// team bot searching on the server keeps its memory flat, bench/RESULTS.md "Bot load").
/// Past it the memory starts over: chunks of older snapshots go, the current ones come back
/// as questions pool them.
const MAX_KEPT_TOKENS: usize = 2 << 20;

/// Chunk stats by chunk id, for every reader in the process. A chunk id hashes the chunk's
/// path, lines, header and text, and its symbol names come from those same lines and the
/// header's scope, so an id names the same stats in every snapshot and every repository.
static KEPT: LazyLock<RwLock<Kept>> = LazyLock::new(Default::default);

#[derive(Default)]
struct Kept {
    stats: HashMap<String, Arc<ChunkStats>>,
    tokens: usize,
}

/// The remembered stats of each of `ids`, in order (`None`: not remembered).
pub(super) fn remembered(ids: &[&str]) -> Vec<Option<Arc<ChunkStats>>> {
    let kept = KEPT
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    ids.iter().map(|id| kept.stats.get(*id).cloned()).collect()
}

/// Remembers the stats of chunk `id`; returns them for use.
pub(super) fn remember(id: String, stats: ChunkStats) -> Arc<ChunkStats> {
    let stats = Arc::new(stats);
    let mut kept = KEPT
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if kept.tokens + stats.size() > MAX_KEPT_TOKENS {
        kept.stats.clear();
        kept.tokens = 0;
    }
    kept.tokens += stats.size();
    if let Some(old) = kept.stats.insert(id, stats.clone()) {
        kept.tokens -= old.size();
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(docs: &[[&str; FIELDS]], idf: &HashMap<String, f32>) -> Vec<f32> {
        let stats: Vec<ChunkStats> = docs.iter().map(|d| ChunkStats::of(*d)).collect();
        let refs: Vec<&ChunkStats> = stats.iter().collect();
        bm25(&refs, &weights(idf))
    }

    #[test]
    fn rare_words_and_short_fields_score_higher() {
        let idf: HashMap<String, f32> = [
            ("session".to_string(), idf(500, 1000.0)),
            ("expir".to_string(), idf(10, 1000.0)),
        ]
        .into();
        let docs = [
            ["", "", "void touch(Session session) { session.access(); }"],
            ["", "", "void expire(Session session) { session.expire(); }"],
            ["", "", "int size() { return count; }"],
        ];
        let s = score(&docs, &idf);
        // `expire` is the rare word: the method holding it wins; a method with neither is 0.
        assert!(s[1] > s[0], "{s:?}");
        assert_eq!(s[2], 0.0);
        // Split and stemmed like the embedded index: `expireAll` holds `expir`.
        let s = score(&[["", "", "expireAll()"]], &idf);
        assert!(s[0] > 0.0);
    }

    #[test]
    fn scores_follow_the_bm25_formula_per_field() {
        // One document, so each field's length is the pool's average and the length norm is k1:
        // per field w * c * (k1 + 1) / (c + k1), c counting `order` among the field's tokens.
        let idf: HashMap<String, f32> = [("order".to_string(), 2.0)].into();
        let s = score(&[["order", "", "order pay order ship"]], &idf);
        let part = |text: &str| {
            let c = tokens(text).iter().filter(|t| *t == "order").count() as f32;
            2.0 * c * (K1 + 1.0) / (c + K1)
        };
        assert!(part("order pay order ship") > part("order"));
        let want = part("order") + part("order pay order ship");
        assert!((s[0] - want).abs() < 1e-5, "{s:?} vs {want}");
    }

    #[test]
    fn remembered_stats_come_back_by_id() {
        let id = "rerank-test-chunk-id".to_string();
        assert!(remembered(&[&id])[0].is_none());
        let s = remember(id.clone(), ChunkStats::of(["a", "b", "c d"]));
        let got = remembered(&[&id, "rerank-test-absent"]);
        assert!(Arc::ptr_eq(got[0].as_ref().unwrap(), &s));
        assert!(got[1].is_none());
        assert_eq!(s.size(), 4);
    }

    #[test]
    fn idf_falls_as_more_documents_hold_a_token() {
        assert!(idf(1, 1000.0) > idf(100, 1000.0));
        assert!(idf(999, 1000.0) > 0.0);
    }
}
