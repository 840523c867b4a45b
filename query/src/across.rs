//! One question asked of several repositories: each repository answers on its own (at once, in
//! [`Service::ask_across`](crate::Service::ask_across)), and the answers are merged here by
//! codemap's own ranking. Pure.
//!
//! An answer's strength is how much of the question its best place holds: the share of the
//! question's word weight in the card (name, doc, path) of one of its first places. The words are
//! weighed alike in every repository, by how rare they are over all the repositories asked (one
//! repository's own rarity would make a word everywhere in the others count as distinctive
//! there). An answer that lacks the question's distinctive words ([`Answer::not_found`]), does
//! not declare the method a callers question names ([`Answer::unresolved`]) or cites nothing
//! comes after every one that matched. Citations are merged by strength over rank,
//! so a repository that holds the question well gives the first places, and one that holds it
//! half as well gets its best place after the other's second.

use crate::answer::Answer;
use crate::ask::coverage::Held;
use crate::citation::Citation;
use std::collections::HashMap;

/// What several repositories answered to one question.
#[derive(Debug, Clone)]
pub struct Across {
    /// The answers with citations, best first: those that matched the question, then (when none
    /// did) the closest ones.
    pub answered: Vec<(String, Answer)>,
    /// The merged citations, best first, each naming its repository.
    pub citations: Vec<RepoCitation>,
    /// Whether no repository matched the question well: the citations are only the closest
    /// places.
    pub none_matched: bool,
    /// Repositories that answered without matching, in scope order.
    pub unmatched: Vec<String>,
    /// Repositories that could not answer, and why, in scope order.
    pub failed: Vec<(String, String)>,
}

/// A citation and the repository it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoCitation {
    pub repo: String,
    pub citation: Citation,
}

impl Across {
    /// The best answer's repository, if any answered.
    pub fn best(&self) -> Option<&(String, Answer)> {
        self.answered.first()
    }
}

/// How well each answer holds its question: 0 when it cites nothing.
fn strengths(answers: &[(String, Answer)]) -> Vec<f32> {
    let weights = shared_weights(answers);
    answers
        .iter()
        .map(|(_, a)| {
            if a.citations.is_empty() {
                return 0.0;
            }
            let s = match (&a.held, &weights) {
                (Some(h), Some(w)) => best_share(h, w),
                // Graph questions about a named symbol are not judged; a repository that
                // answers them holds the symbol.
                _ => a.matched.unwrap_or(1.0),
            };
            s.max(f32::MIN_POSITIVE)
        })
        .collect()
}

/// Each judged word's weight over all the answers' repositories together (BM25's idf over
/// their declarations' cards); `None` unless every answer with citations was judged.
fn shared_weights(answers: &[(String, Answer)]) -> Option<HashMap<&str, f32>> {
    let mut cards = 0usize;
    let mut df: HashMap<&str, u64> = HashMap::new();
    for (_, a) in answers.iter().filter(|(_, a)| !a.citations.is_empty()) {
        let h = a.held.as_ref()?;
        cards += h.cards;
        for w in &h.words {
            *df.entry(w.stem.as_str()).or_default() += u64::from(w.cards);
        }
    }
    let n = cards.max(1) as f32;
    Some(
        df.into_iter()
            .map(|(stem, d)| {
                let d = d as f32;
                (stem, ((n - d + 0.5) / (d + 0.5) + 1.0).ln())
            })
            .collect(),
    )
}

/// The largest share of the question's weight one of the first places holds.
fn best_share(h: &Held, weight: &HashMap<&str, f32>) -> f32 {
    let w = |stem: &str| weight.get(stem).copied().unwrap_or(0.0);
    let total: f32 = h.words.iter().map(|x| w(&x.stem)).sum();
    if total <= 0.0 {
        return 0.0;
    }
    (0..8)
        .map(|n| {
            h.words
                .iter()
                .filter(|x| x.places & (1 << n) != 0)
                .map(|x| w(&x.stem))
                .sum::<f32>()
        })
        .fold(0.0f32, f32::max)
        / total
}

/// Merges the answers of repositories asked in scope order; `results` keeps that order.
pub fn merge<E: std::fmt::Display>(results: Vec<(String, Result<Answer, E>)>) -> Across {
    let mut failed = Vec::new();
    let mut answers = Vec::new();
    for (repo, r) in results {
        match r {
            Ok(a) => answers.push((repo, a)),
            Err(e) => failed.push((repo, e.to_string())),
        }
    }
    let strength = strengths(&answers);
    let matches = |i: usize| {
        let a = &answers[i].1;
        strength[i] > 0.0 && a.not_found.is_empty() && a.unresolved.is_empty()
    };
    let none_matched = !(0..answers.len()).any(matches);
    let keep: Vec<bool> = (0..answers.len())
        .map(|i| {
            if none_matched {
                strength[i] > 0.0
            } else {
                matches(i)
            }
        })
        .collect();
    let mut answered = Vec::new();
    let mut rest = Vec::new();
    for ((repo, a), (keep, s)) in answers.into_iter().zip(keep.into_iter().zip(strength)) {
        if keep {
            answered.push((s, repo, a));
        } else {
            rest.push(repo);
        }
    }
    // Stable: equal strengths keep scope order.
    answered.sort_by(|a, b| b.0.total_cmp(&a.0));
    let citations = interleave(&answered);
    let answered: Vec<(String, Answer)> = answered.into_iter().map(|(_, r, a)| (r, a)).collect();
    Across {
        citations,
        none_matched,
        unmatched: rest,
        failed,
        answered,
    }
}

/// The answers' citations by strength over rank (1 for a repository's first place, 1/2 for its
/// second, …), ties in the answers' order; a place cited twice in one repository once.
fn interleave(answered: &[(f32, String, Answer)]) -> Vec<RepoCitation> {
    let mut scored: Vec<(f32, usize, usize, RepoCitation)> = Vec::new();
    for (n, (s, repo, a)) in answered.iter().enumerate() {
        let s = *s;
        for (rank, c) in a.citations.iter().enumerate() {
            scored.push((
                s / (rank as f32 + 1.0),
                n,
                rank,
                RepoCitation {
                    repo: repo.clone(),
                    citation: c.clone(),
                },
            ));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.into_iter().map(|(_, _, _, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(paths: &[&str], matched: Option<f32>, not_found: &[&str]) -> Answer {
        let mut a = crate::answer::empty_for_tests();
        a.citations = paths
            .iter()
            .map(|p| Citation {
                path: p.to_string(),
                start_line: 1,
                end_line: 2,
                symbol: None,
            })
            .collect();
        a.matched = matched;
        a.not_found = not_found.iter().map(|w| w.to_string()).collect();
        a
    }

    fn labels(x: &Across) -> Vec<String> {
        x.citations
            .iter()
            .map(|c| format!("{}:{}", c.repo, c.citation.path))
            .collect()
    }

    #[test]
    fn the_repository_that_holds_the_question_gives_the_first_places() {
        let x = merge::<String>(vec![
            ("web".into(), Ok(answer(&["W1", "W2"], Some(0.3), &[]))),
            (
                "orders".into(),
                Ok(answer(&["O1", "O2", "O3"], Some(0.8), &[])),
            ),
            ("docs".into(), Ok(answer(&[], Some(0.0), &[]))),
        ]);
        assert_eq!(x.best().unwrap().0, "orders");
        // 0.8, 0.4, 0.3 (web's first), 0.27, 0.15
        assert_eq!(
            labels(&x),
            ["orders:O1", "orders:O2", "web:W1", "orders:O3", "web:W2"]
        );
        assert_eq!(x.unmatched, ["docs"]);
        assert!(!x.none_matched && x.failed.is_empty());
    }

    #[test]
    fn an_answer_lacking_the_questions_words_comes_after_every_match() {
        let x = merge::<String>(vec![
            ("a".into(), Ok(answer(&["A1"], Some(0.9), &["jwt"]))),
            ("b".into(), Ok(answer(&["B1"], Some(0.2), &[]))),
        ]);
        assert_eq!(labels(&x), ["b:B1"]);
        assert_eq!(x.unmatched, ["a"]);
    }

    #[test]
    fn when_nothing_matches_the_closest_places_are_still_given_and_said_to_be_so() {
        let x = merge::<String>(vec![
            ("a".into(), Ok(answer(&["A1"], Some(0.1), &["jwt"]))),
            ("b".into(), Ok(answer(&["B1"], Some(0.4), &["jwt"]))),
            ("c".into(), Ok(answer(&[], None, &[]))),
        ]);
        assert!(x.none_matched);
        assert_eq!(labels(&x), ["b:B1", "a:A1"]);
        assert_eq!(x.unmatched, ["c"]);
    }

    #[test]
    fn a_repository_that_fails_is_named_and_the_others_still_answer() {
        let x = merge(vec![
            (
                "a".into(),
                Err("Meilisearch at http://b:7700 is unreachable"),
            ),
            ("b".into(), Ok(answer(&["B1"], None, &[]))),
        ]);
        assert_eq!(labels(&x), ["b:B1"]);
        assert_eq!(
            x.failed,
            [(
                "a".to_string(),
                "Meilisearch at http://b:7700 is unreachable".to_string()
            )]
        );
    }

    #[test]
    fn a_repository_without_the_named_method_comes_after_the_one_that_declares_it() {
        let mut lang = answer(&["StringUtils.java"], None, &[]);
        lang.unresolved = vec!["Flask.create_url_adapter".into()];
        let x = merge::<String>(vec![
            ("lang".into(), Ok(lang)),
            ("flask".into(), Ok(answer(&["app.py"], None, &[]))),
        ]);
        assert_eq!(labels(&x), ["flask:app.py"]);
        assert_eq!(x.unmatched, ["lang"]);
    }

    #[test]
    fn words_weigh_alike_in_every_repository() {
        use crate::ask::coverage::{Held, WordHeld};
        let word = |stem: &str, cards: u32, places: u8| WordHeld {
            stem: stem.into(),
            cards,
            places,
        };
        // Each first place holds one word of "where is the postcode string parsed?". By its own
        // counts lang's place looks strong (.9); weighed over both repositories, "string" is in
        // a fifth of all cards and "postcode" in three, so geo's place holds more of the question.
        let mut lang = answer(&["StringUtils.java"], Some(0.9), &[]);
        lang.held = Some(Held {
            cards: 10_000,
            words: vec![word("string", 2_000, 1), word("postcod", 0, 0)],
        });
        let mut geo = answer(&["Geocoder.java"], Some(0.5), &[]);
        geo.held = Some(Held {
            cards: 100,
            words: vec![word("string", 1, 0), word("postcod", 3, 1)],
        });
        let x = merge::<String>(vec![("lang".into(), Ok(lang)), ("geo".into(), Ok(geo))]);
        assert_eq!(labels(&x), ["geo:Geocoder.java", "lang:StringUtils.java"]);
    }

    #[test]
    fn equal_strengths_keep_scope_order() {
        let x = merge::<String>(vec![
            ("a".into(), Ok(answer(&["A1", "A2"], None, &[]))),
            ("b".into(), Ok(answer(&["B1"], None, &[]))),
        ]);
        assert_eq!(labels(&x), ["a:A1", "b:B1", "a:A2"]);
    }
}
