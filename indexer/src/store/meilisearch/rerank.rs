//! BM25 over a keyword pool: Meilisearch finds the chunks holding the question's words, but
//! orders them by its own rules (matched words, typos, proximity) over words it splits itself.
//! The embedded index ranks by BM25 over the code analyzer's tokens. Scoring the pool the same
//! way here, with each word's document frequency from Meilisearch's hit counts, makes the two
//! backends rank alike for the chunks both find.

use crate::analyzer::code_analyzer;
use std::cell::RefCell;
use std::collections::HashMap;
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

const K1: f32 = 1.2;
const B: f32 = 0.75;

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

/// Scores each document (its searchable fields' texts) by BM25 summed over fields, as tantivy
/// scores a query over several fields: per field, term frequency against that field's average
/// length over the pool. `idf` holds the weight of each query token; tokens without one do
/// not count.
pub(super) fn bm25(docs: &[Vec<&str>], idf: &HashMap<String, f32>) -> Vec<f32> {
    let fields = docs.iter().map(Vec::len).max().unwrap_or(0);
    // Per document and field: length, and the frequency of each query token.
    let mut stats: Vec<Vec<(usize, HashMap<&str, u32>)>> = Vec::with_capacity(docs.len());
    let mut total_len = vec![0usize; fields];
    for d in docs {
        let mut per_field = Vec::with_capacity(fields);
        for (f, text) in d.iter().enumerate() {
            let mut len = 0usize;
            let mut tf: HashMap<&str, u32> = HashMap::new();
            for_each_token(text, |t| {
                len += 1;
                if let Some((k, _)) = idf.get_key_value(t) {
                    *tf.entry(k.as_str()).or_default() += 1;
                }
            });
            total_len[f] += len;
            per_field.push((len, tf));
        }
        stats.push(per_field);
    }
    let n = docs.len().max(1) as f32;
    let avg: Vec<f32> = total_len.iter().map(|&l| (l as f32 / n).max(1.0)).collect();
    stats
        .iter()
        .map(|per_field| {
            let mut score = 0.0;
            for (f, (len, tf)) in per_field.iter().enumerate() {
                let norm = K1 * (1.0 - B + B * *len as f32 / avg[f]);
                for (t, &c) in tf {
                    let c = c as f32;
                    score += idf[*t] * c * (K1 + 1.0) / (c + norm);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_words_and_short_fields_score_higher() {
        let idf: HashMap<String, f32> = [
            ("session".to_string(), idf(500, 1000.0)),
            ("expir".to_string(), idf(10, 1000.0)),
        ]
        .into();
        let docs = vec![
            vec!["", "void touch(Session session) { session.access(); }"],
            vec!["", "void expire(Session session) { session.expire(); }"],
            vec!["", "int size() { return count; }"],
        ];
        let s = bm25(&docs, &idf);
        // `expire` is the rare word: the method holding it wins; a method with neither is 0.
        assert!(s[1] > s[0], "{s:?}");
        assert_eq!(s[2], 0.0);
        // Split and stemmed like the embedded index: `expireAll` holds `expir`.
        let s = bm25(&[vec!["", "expireAll()"]], &idf);
        assert!(s[0] > 0.0);
    }

    #[test]
    fn idf_falls_as_more_documents_hold_a_token() {
        assert!(idf(1, 1000.0) > idf(100, 1000.0));
        assert!(idf(999, 1000.0) > 0.0);
    }
}
