//! Messages: a question that repeats an error or log message in its own words ("I get an error
//! saying no serializer was found") matches the string literal the code builds it from ("No
//! serializer found for class %s") by a run of the same content words in the same order, stop
//! words skipped on both sides.

use crate::question::is_stop;
use crate::terms;

/// Fewest words in a row that make a message match: two are any phrase, three are a message.
pub(super) const MESSAGE_RUN: usize = 3;

/// The stems of a literal's words in order, stop words and format placeholders left out.
pub(super) fn literal_stems(lit: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in lit.split(|c: char| !c.is_alphanumeric()) {
        if w.len() < 2 || is_stop(w) {
            continue;
        }
        terms::with_word_stems(w, |stems| out.extend(stems.iter().cloned()));
    }
    out
}

/// The longest run of `question` (stems in question order) that `literal` holds in a row.
pub(super) fn longest_run<'q>(question: &'q [String], literal: &[String]) -> &'q [String] {
    let mut best = (0usize, 0usize); // (end in question, length)
    let mut prev = vec![0usize; literal.len() + 1];
    for (i, q) in question.iter().enumerate() {
        let mut cur = vec![0usize; literal.len() + 1];
        for (j, l) in literal.iter().enumerate() {
            if q == l {
                cur[j + 1] = prev[j] + 1;
                if cur[j + 1] > best.1 {
                    best = (i + 1, cur[j + 1]);
                }
            }
        }
        prev = cur;
    }
    &question[best.0 - best.1..best.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| terms::stem(w)).collect()
    }

    #[test]
    fn a_message_in_the_questions_words_matches_its_literal() {
        let q = stems(&[
            "serialize",
            "object",
            "error",
            "saying",
            "no",
            "serializer",
            "found",
        ]);
        let lit = literal_stems("No serializer found for class %s and no properties discovered");
        assert_eq!(
            longest_run(&q, &lit),
            &stems(&["no", "serializer", "found"])[..]
        );
        assert!(longest_run(&q, &literal_stems("unexpected token")).is_empty());
    }
}
