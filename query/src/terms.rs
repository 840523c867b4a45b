//! Words as the index sees them: the indexer's code analyzer (identifier split, lowercasing,
//! English stemming, CJK unigrams and bigrams) applied on the query side, so a question word and
//! an indexed word agree exactly.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use tantivy::tokenizer::{TextAnalyzer, TokenStream};

thread_local! {
    static ANALYZER: RefCell<TextAnalyzer> = RefCell::new(indexer::analyzer::code_analyzer());
    static STEMS: RefCell<FxHashMap<String, String>> = RefCell::default();
    static WORD_STEMS: RefCell<FxHashMap<String, Box<[String]>>> = RefCell::default();
}

/// Calls `f` with the stems of one word of text (`getPrefixLength` → `get`, `prefix`, `length`;
/// what [`identifier_stems`] gives), memoised per word. `f` must not stem anything itself.
pub fn with_word_stems<R>(word: &str, f: impl FnOnce(&[String]) -> R) -> R {
    // Body scores stem every word of every candidate: one lookup per word once it is known.
    WORD_STEMS.with(|m| {
        if let Some(stems) = m.borrow().get(word) {
            return f(stems);
        }
        let stems: Box<[String]> = identifier_stems(word).into_boxed_slice();
        let r = f(&stems);
        let mut m = m.borrow_mut();
        if m.len() > 200_000 {
            m.clear();
        }
        m.insert(word.to_string(), stems);
        r
    })
}

/// Every token the index would hold for `text`, in order (whole identifiers and their words).
pub fn analyze(text: &str) -> Vec<String> {
    ANALYZER.with(|a| {
        let mut a = a.borrow_mut();
        let mut stream = a.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    })
}

/// The stem of one plain word (`created` → `creat`); the word itself when the analyzer yields
/// nothing for it.
pub fn stem(word: &str) -> String {
    if let Some(s) = STEMS.with(|m| m.borrow().get(word).cloned()) {
        return s;
    }
    let s = analyze(word)
        .into_iter()
        .next()
        .unwrap_or_else(|| word.to_lowercase());
    STEMS.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 200_000 {
            m.clear();
        }
        m.insert(word.to_string(), s.clone());
    });
    s
}

/// Stemmed words of an identifier (`getPrefixLength` → `get`, `prefix`, `length`), without the
/// whole-identifier token.
pub fn identifier_stems(ident: &str) -> Vec<String> {
    indexer::analyzer::split_identifier(ident)
        .iter()
        .map(|w| stem(w))
        .collect()
}

/// Whether `c` is a CJK ideograph, kana or Hangul syllable.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Rough token count of `text` for budgets (4 bytes of code per token, CJK one per character).
pub fn approx_tokens(text: &str) -> usize {
    let cjk = text.chars().filter(|c| is_cjk(*c)).count();
    let other = text.len().saturating_sub(cjk * 3);
    cjk + other.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyze_splits_and_stems_like_the_index() {
        let t = analyze("getExtension files");
        assert!(t.contains(&"get".to_string()), "{t:?}");
        assert!(t.contains(&"extens".to_string()), "{t:?}");
        assert!(t.contains(&"file".to_string()), "{t:?}");
        assert_eq!(stem("created"), stem("create"));
        assert_eq!(
            identifier_stems("getPrefixLength"),
            vec!["get", "prefix", "length"]
        );
    }

    #[test]
    fn token_estimate_counts_cjk_per_character() {
        assert_eq!(approx_tokens("abcd"), 1);
        assert_eq!(approx_tokens("订单"), 2);
    }
}
