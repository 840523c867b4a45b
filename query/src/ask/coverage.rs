//! Whether a question is about this repository at all. A question about code that is not here
//! ("where is the JWT validated?" asked of a file library) still gets a ranking, since some of its
//! words are everywhere; what gives it away is that its distinctive words are not. Two shares of
//! the question's word weight (each word weighted by how rare it is) say so: the share no
//! declaration's card (name, doc, path) holds, and the share the repository's text does not
//! hold at all. Pure over the lookups it is given.

use crate::question::{Intent, Question, TermOrigin};
use crate::retrieve::{Ranked, UnitKey};
use crate::view::SnapshotView;

/// How many first places of the ranking are read for [`Coverage::best_place`].
const PLACES: usize = 5;

/// The coverage of a question that [`applies`], over the snapshot and the ranking's first
/// places.
pub fn judge(v: &SnapshotView<'_>, q: &Question, ranked: &[Ranked]) -> Option<Coverage> {
    if !applies(q) {
        return None;
    }
    let top: Vec<usize> = ranked
        .iter()
        .filter_map(|r| match r.key {
            UnitKey::Sym(i) => Some(i),
            UnitKey::Range { .. } => None,
        })
        .take(PLACES)
        .collect();
    let declared = |stem: &str| v.card_postings(stem).is_some();
    let df = |stem: &str| v.card_df(stem);
    let written = |word: &str| v.index.search_chunks(word, 1).is_ok_and(|h| !h.is_empty());
    let idf = |stem: &str| v.idf(stem);
    let placed = |n: usize, stem: &str| {
        v.card_postings(stem)
            .is_some_and(|mut p| p.any(|(sym, _)| sym == top[n]))
    };
    let c = coverage(
        q,
        &Lookups {
            declared: &declared,
            written: &written,
            idf: &idf,
            df: &df,
            cards: v.len(),
            placed: &placed,
            places: top.len(),
        },
    );
    tracing::debug!(?c, "coverage");
    c
}

/// Above this share of weight missing from every declaration's card, nothing matches well.
/// Chosen on bench/eval/offscope/commons-io.jsonl against the commons-io QA set; checked on
/// sets not used to choose it (bench/RESULTS.md, "Questions about code that is not there").
pub const NOT_DECLARED: f32 = 0.5;
/// Above this share of weight missing from the text too, nothing matches well.
pub const NOT_WRITTEN: f32 = 0.3;
/// With most words declared nowhere, the first places must hold at least this share for the
/// match to stand (an answer to a paraphrase still has one place that holds its main words).
pub const BEST_PLACE: f32 = 0.2;

/// What the repository lacks of a question.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// The question's words no declaration's card holds, as written, in question order.
    pub missing: Vec<String>,
    /// Their share of the question's word weight, 0 to 1.
    pub not_declared: f32,
    /// The share of the words the repository's text does not hold either.
    pub not_written: f32,
    /// The largest share one of the first places' cards holds.
    pub best_place: f32,
    /// How this repository holds each judged word: for weighing answers of several
    /// repositories by the same word weights ([`crate::across`]).
    pub held: Held,
}

/// The question's judged words as one repository holds them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Held {
    /// Declarations with a card here.
    pub cards: usize,
    pub words: Vec<WordHeld>,
}

/// One judged word of the question in one repository.
#[derive(Debug, Clone, PartialEq)]
pub struct WordHeld {
    pub stem: String,
    /// The declarations whose card holds it.
    pub cards: u32,
    /// Which of the ranking's first places hold it in their cards (bit n: place n).
    pub places: u8,
}

impl Coverage {
    pub fn weak(&self) -> bool {
        self.not_written > NOT_WRITTEN
            || (self.not_declared > NOT_DECLARED && self.best_place < BEST_PLACE)
    }
}

/// Which questions are judged: those answered by searching. Traces, diffs and graph questions
/// about a named symbol are answered from exact facts, or say themselves that it is unknown.
pub fn applies(q: &Question) -> bool {
    q.frames.is_empty()
        && q.patch.is_empty()
        && matches!(
            q.intent,
            Intent::Locate | Intent::Definition | Intent::Config | Intent::Flow
        )
}

/// What a question is judged against: whether a declaration's card holds a stem, whether the
/// text holds a word, and how rare a stem is (a stem held nowhere gets the largest weight).
pub struct Lookups<'a> {
    pub declared: &'a dyn Fn(&str) -> bool,
    pub written: &'a dyn Fn(&str) -> bool,
    pub idf: &'a dyn Fn(&str) -> f32,
    /// How many declarations' cards hold a stem, out of `cards`.
    pub df: &'a dyn Fn(&str) -> u32,
    pub cards: usize,
    /// Whether the card of the ranking's `n`th place holds a stem; `places` of them are read.
    pub placed: &'a dyn Fn(usize, &str) -> bool,
    pub places: usize,
}

/// `None` when the question has no word to judge by.
pub fn coverage(q: &Question, l: &Lookups<'_>) -> Option<Coverage> {
    let mut total = 0.0f32;
    let mut undeclared = 0.0f32;
    let mut unwritten = 0.0f32;
    let mut missing = Vec::new();
    let mut places = vec![0.0f32; l.places];
    let mut words = Vec::new();
    for t in q.terms.iter().filter(|t| {
        matches!(
            t.origin,
            TermOrigin::Word | TermOrigin::Identifier | TermOrigin::Translation
        )
    }) {
        let w = (l.idf)(&t.stem);
        total += w;
        let mut bits = 0u8;
        for (n, held) in places.iter_mut().enumerate() {
            if (l.placed)(n, &t.stem) {
                *held += w;
                bits |= 1 << n.min(7);
            }
        }
        words.push(WordHeld {
            stem: t.stem.clone(),
            cards: (l.df)(&t.stem),
            places: bits,
        });
        if !(l.declared)(&t.stem) {
            undeclared += w;
            missing.push(t.word.clone());
            if !(l.written)(&t.word) {
                unwritten += w;
            }
        }
    }
    (total > 0.0).then(|| Coverage {
        missing,
        not_declared: undeclared / total,
        not_written: unwritten / total,
        best_place: places.iter().fold(0.0f32, |a, b| a.max(*b)) / total,
        held: Held {
            cards: l.cards,
            words,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::question::understand_with;

    /// `cards` are the declared stems, `text` the further words only the text holds.
    fn judge(question: &str, cards: &[&str], text: &[&str]) -> Coverage {
        let q = understand_with(question, None);
        let declared = |stem: &str| cards.contains(&stem);
        let written = |word: &str| text.contains(&word);
        // Rare words weigh more: a word no card holds weighs as much as the rarest.
        let idf = |stem: &str| if cards.contains(&stem) { 1.0 } else { 3.0 };
        coverage(
            &q,
            &Lookups {
                declared: &declared,
                written: &written,
                idf: &idf,
                df: &|stem| u32::from(cards.contains(&stem)),
                cards: 10,
                placed: &|_, stem| cards.contains(&stem),
                places: 1,
            },
        )
        .unwrap()
    }

    #[test]
    fn a_question_whose_distinctive_words_are_nowhere_is_weak() {
        // "jwt" is neither declared nor written: 3 of 5.
        let c = judge(
            "where is the JWT token validated?",
            &["token", "valid"],
            &[],
        );
        assert_eq!(c.missing, ["jwt"]);
        assert!((c.not_written - 0.6).abs() < 1e-6, "{c:?}");
        assert!(c.weak());
        // Written in a comment somewhere but declared nowhere, while a place holds the other
        // words: a paraphrase, not a question about something else.
        let c = judge(
            "where is the JWT token validated?",
            &["token", "valid"],
            &["jwt"],
        );
        assert!((c.not_declared - 0.6).abs() < 1e-6 && c.not_written == 0.0);
        assert!((c.best_place - 0.4).abs() < 1e-6 && !c.weak(), "{c:?}");
        let c = judge(
            "where is the JWT token validated?",
            &["jwt", "token", "valid"],
            &[],
        );
        assert!(c.missing.is_empty() && !c.weak(), "{c:?}");
        // Most of the question declared nowhere, though written here and there, and no place
        // holds the rest.
        let c = judge(
            "how are uploaded images resized into thumbnails?",
            &[],
            &["uploaded", "images", "resized", "thumbnails"],
        );
        assert!(c.weak() && c.not_written == 0.0, "{c:?}");
    }

    #[test]
    fn traces_diffs_and_callers_are_not_judged() {
        assert!(applies(&understand_with(
            "where is the order cancelled?",
            None
        )));
        assert!(!applies(&understand_with("who calls deductStock?", None)));
        let trace = "java.lang.IllegalStateException: x\n\tat a.B.c(B.java:3)";
        assert!(!applies(&understand_with(trace, None)));
    }
}
