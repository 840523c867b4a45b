//! One question asked of several repositories: each repository answers on its own (at once, in
//! [`Service::ask_across`](crate::Service::ask_across)), and the answers are merged here by
//! codemap's own ranking. Pure.
//!
//! An answer's strength is how much of the question its best place holds
//! ([`Answer::matched`]); an answer that lacks the question's distinctive words
//! ([`Answer::not_found`]) or cites nothing comes after every one that matched. Citations are
//! merged by strength over rank, so a repository that holds the question well gives the first
//! places, and one that holds it half as well gets its best place after the other's second.

use crate::answer::Answer;
use crate::citation::Citation;

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

/// How well an answer holds its question: 0 when it cites nothing.
fn strength(a: &Answer) -> f32 {
    if a.citations.is_empty() {
        0.0
    } else {
        // Graph questions about a named symbol are not judged; a repository that answers them
        // holds the symbol.
        a.matched.unwrap_or(1.0).max(f32::MIN_POSITIVE)
    }
}

fn matches(a: &Answer) -> bool {
    strength(a) > 0.0 && a.not_found.is_empty()
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
    let none_matched = !answers.iter().any(|(_, a)| matches(a));
    let (mut answered, rest): (Vec<_>, Vec<_>) = answers.into_iter().partition(|(_, a)| {
        if none_matched {
            strength(a) > 0.0
        } else {
            matches(a)
        }
    });
    // Stable: equal strengths keep scope order.
    answered.sort_by(|(_, a), (_, b)| strength(b).total_cmp(&strength(a)));
    let citations = interleave(&answered);
    Across {
        citations,
        none_matched,
        unmatched: rest.into_iter().map(|(r, _)| r).collect(),
        failed,
        answered,
    }
}

/// The answers' citations by strength over rank (1 for a repository's first place, 1/2 for its
/// second, …), ties in the answers' order; a place cited twice in one repository once.
fn interleave(answered: &[(String, Answer)]) -> Vec<RepoCitation> {
    let mut scored: Vec<(f32, usize, usize, RepoCitation)> = Vec::new();
    for (n, (repo, a)) in answered.iter().enumerate() {
        let s = strength(a);
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
    fn equal_strengths_keep_scope_order() {
        let x = merge::<String>(vec![
            ("a".into(), Ok(answer(&["A1", "A2"], None, &[]))),
            ("b".into(), Ok(answer(&["B1"], None, &[]))),
        ]);
        assert_eq!(labels(&x), ["a:A1", "b:B1", "a:A2"]);
    }
}
