//! The query side's [`Answer`] as a platform-free [`AnswerReply`]: the short answer trimmed, the
//! chain, at most N citations as links built from the repository's template at the indexed
//! commit, the freshness line. All text neutralised.

use crate::links::LinkTemplate;
use crate::model::{AnswerReply, ChainLine, CodeLink};
use crate::neutralise::neutralise;
use query::{Across, Answer, Citation};
use std::collections::HashMap;

/// The short answer's length at most, in characters (platforms split or trim further).
pub const SUMMARY_CHARS: usize = 1_500;
/// Chain steps shown at most.
pub const CHAIN_STEPS: usize = 12;

/// How an answer becomes a reply.
pub struct Compose<'a> {
    pub repo: &'a str,
    pub link: &'a LinkTemplate,
    /// Citations at most.
    pub citations: usize,
    /// Said before the answer's own notes (which repository answered, what "that" meant).
    pub notes: Vec<String>,
}

impl Compose<'_> {
    pub fn reply(self, a: &Answer) -> AnswerReply {
        // Links point at the indexed commit; an index of uncommitted changes has lines no
        // commit holds, so it gets labels only.
        let commit = a.freshness.commit.as_deref().filter(|_| !a.freshness.dirty);
        let link = |path: &str, start: u32, end: u32, symbol: Option<&str>| CodeLink {
            label: neutralise(&label(path, start, end)),
            url: commit.and_then(|c| self.link.url(c, path, start, end)),
            symbol: symbol.map(neutralise),
        };
        let citations = a
            .citations
            .iter()
            .take(self.citations)
            .map(|c: &Citation| link(&c.path, c.start_line, c.end_line, c.symbol.as_deref()))
            .collect();
        let chain = a
            .chain
            .iter()
            .take(CHAIN_STEPS)
            .map(|s| ChainLine {
                depth: s.depth,
                symbol: neutralise(&s.symbol),
                link: link(&s.path, s.start_line, s.end_line, Some(&s.symbol)),
            })
            .collect();
        let mut notes = self.notes;
        if a.freshness.dirty && !matches!(self.link, LinkTemplate::Plain) {
            notes.push("the index holds uncommitted changes, so citations are not linked".into());
        }
        if a.citations.len() > self.citations {
            notes.push(format!(
                "{} more places not shown; ask a narrower question or use `codemap ask`",
                a.citations.len() - self.citations
            ));
        }
        notes.extend(a.notes.iter().cloned());
        // The query side says "this repository"; a channel may see several, so name it.
        let summary = if a.not_found.is_empty() {
            a.answer.clone()
        } else {
            a.answer.replacen(
                &query::answer::not_found_line(&a.not_found, "this repository"),
                &query::answer::not_found_line(&a.not_found, self.repo),
                1,
            )
        };
        AnswerReply {
            repo: self.repo.to_string(),
            summary: neutralise(&trim(&summary, SUMMARY_CHARS)),
            chain,
            citations,
            notes: notes.iter().map(|n| neutralise(n)).collect(),
            freshness: neutralise(&a.freshness.summary),
        }
    }
}

/// How the answers of several repositories become one reply: the best answer's summary and
/// chain, the merged citations each linked with its own repository's template at its own indexed
/// commit and labelled with the repository's name, and notes on the repositories that matched
/// nothing or could not be searched.
pub struct ComposeAcross<'a> {
    /// Each repository's link template.
    pub link: &'a dyn Fn(&str) -> LinkTemplate,
    /// Citations at most.
    pub citations: usize,
}

impl ComposeAcross<'_> {
    /// `None` when no repository answered.
    pub fn reply(self, x: &Across) -> Option<AnswerReply> {
        let (best, answer) = x.best()?;
        let commits: HashMap<&str, Option<&str>> = x
            .answered
            .iter()
            .map(|(r, a)| {
                let f = &a.freshness;
                (r.as_str(), f.commit.as_deref().filter(|_| !f.dirty))
            })
            .collect();
        let mut notes = across_notes(x);
        if x.citations.len() > self.citations {
            notes.push(format!(
                "{} more places not shown; ask a narrower question or name a repository (repo:NAME)",
                x.citations.len() - self.citations
            ));
        }
        // The best answer's own citations are replaced by the merged ones below.
        let mut reply = Compose {
            repo: best,
            link: &(self.link)(best),
            citations: usize::MAX,
            notes,
        }
        .reply(answer);
        reply.repo = if x.answered.len() > 1 {
            format!("{best} (+{} more)", x.answered.len() - 1)
        } else {
            best.clone()
        };
        if x.none_matched {
            let names: Vec<&str> = x
                .answered
                .iter()
                .map(|(r, _)| r.as_str())
                .chain(x.unmatched.iter().map(String::as_str))
                .collect();
            let place = format!("any of {}", names.join(", "));
            reply.summary = reply.summary.replacen(
                &query::answer::not_found_line(&answer.not_found, best),
                &neutralise(&query::answer::not_found_line(&answer.not_found, &place)),
                1,
            );
        }
        reply.citations = x
            .citations
            .iter()
            .take(self.citations)
            .map(|rc| {
                let c = &rc.citation;
                let commit = commits.get(rc.repo.as_str()).copied().flatten();
                CodeLink {
                    label: neutralise(&format!(
                        "{} · {}",
                        rc.repo,
                        label(&c.path, c.start_line, c.end_line)
                    )),
                    url: commit.and_then(|k| {
                        (self.link)(&rc.repo).url(k, &c.path, c.start_line, c.end_line)
                    }),
                    symbol: c.symbol.as_deref().map(neutralise),
                }
            })
            .collect();
        Some(reply)
    }
}

/// Which repositories gave the citations, which matched nothing, and which could not be read
/// (the reason goes to the log, not the channel).
fn across_notes(x: &Across) -> Vec<String> {
    let mut notes = Vec::new();
    let asked = x.answered.len() + x.unmatched.len() + x.failed.len();
    let from: Vec<&str> = x.answered.iter().map(|(r, _)| r.as_str()).collect();
    notes.push(format!(
        "asked {asked} repositories; citations from {}",
        from.join(", ")
    ));
    if !x.unmatched.is_empty() && !x.none_matched {
        notes.push(format!("nothing matched in {}", x.unmatched.join(", ")));
    }
    if !x.failed.is_empty() {
        for (repo, why) in &x.failed {
            tracing::warn!(%repo, reason = %why, "repository left out of an answer across repositories");
        }
        let names: Vec<&str> = x.failed.iter().map(|(r, _)| r.as_str()).collect();
        notes.push(format!(
            "partial answer: {} could not be searched right now and {} left out",
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" }
        ));
    }
    notes
}

/// The symbol a follow-up's "that" means: the first cited one.
pub fn top_symbol(a: &Answer) -> Option<String> {
    a.citations.iter().find_map(|c| c.symbol.clone())
}

fn label(path: &str, start: u32, end: u32) -> String {
    if start == end {
        format!("{path}:{start}")
    } else {
        format!("{path}:{start}-{end}")
    }
}

/// At most `max` characters, cut at the last line break that keeps at least half, with `…`.
fn trim(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut = text
        .char_indices()
        .nth(max)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    let head = &text[..cut];
    let head = match head.rfind('\n') {
        Some(nl) if nl >= cut / 2 => &head[..nl],
        _ => head,
    };
    format!("{}\n…", head.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use query::answer::ChainStep;

    fn answer(commit: Option<&str>, dirty: bool, n: usize, text: &str) -> Answer {
        let mut a = empty();
        a.answer = text.into();
        a.freshness.commit = commit.map(String::from);
        a.freshness.dirty = dirty;
        a.freshness.summary = "indexed at 0123456789 (3 h ago); HEAD unchanged".into();
        a.citations = (0..n)
            .map(|i| Citation {
                path: format!("src/A{i}.java"),
                start_line: 10 + i as u32,
                end_line: 20 + i as u32,
                symbol: Some(format!("A{i}.run")),
            })
            .collect();
        a.chain = vec![ChainStep {
            depth: 0,
            symbol: "A0.run".into(),
            path: "src/A0.java".into(),
            start_line: 10,
            end_line: 20,
        }];
        a
    }

    fn empty() -> Answer {
        Answer {
            question: String::new(),
            intent: query::question::Intent::Callers,
            level: query::Level::Structured,
            mode: query::AnswerMode::Index,
            answer: String::new(),
            citations: vec![],
            chain: vec![],
            map: vec![],
            snippets: vec![],
            related: vec![],
            changes: vec![],
            entry_points: vec![],
            frames: vec![],
            message_site: None,
            freshness: query::freshness::describe(None, None, 0),
            notes: vec![],
            vectors: None,
            not_found: vec![],
            matched: None,
            unresolved: vec![],
            held: None,
        }
    }

    fn across(answers: Vec<(&str, Answer)>, failed: &[&str]) -> Across {
        let mut results: Vec<(String, Result<Answer, String>)> = answers
            .into_iter()
            .map(|(r, a)| (r.to_string(), Ok(a)))
            .collect();
        results.extend(
            failed
                .iter()
                .map(|r| (r.to_string(), Err("unreachable".to_string()))),
        );
        query::across::merge(results)
    }

    fn by_repo(repo: &str) -> LinkTemplate {
        LinkTemplate::Github {
            base: format!("https://github.com/acme/{repo}"),
        }
    }

    #[test]
    fn answers_across_repositories_name_and_link_each_citation_in_its_own_repository() {
        const D: &str = "fedcba9876543210fedcba9876543210fedcba98";
        let mut shop = answer(Some(C), false, 2, "shop's answer");
        shop.matched = Some(0.8);
        let mut web = answer(Some(D), false, 1, "web's answer");
        web.matched = Some(0.5);
        let x = across(vec![("web", web), ("shop", shop)], &["docs"]);
        let r = ComposeAcross {
            link: &by_repo,
            citations: 2,
        }
        .reply(&x)
        .unwrap();
        assert_eq!(r.repo, "shop (+1 more)");
        assert_eq!(r.summary, "shop's answer");
        let got: Vec<(&str, Option<&str>)> = r
            .citations
            .iter()
            .map(|c| (c.label.as_str(), c.url.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "shop · src/A0.java:10-20",
                    Some(
                        format!("https://github.com/acme/shop/blob/{C}/src/A0.java#L10-L20")
                            .as_str()
                    )
                ),
                (
                    "web · src/A0.java:10-20",
                    Some(
                        format!("https://github.com/acme/web/blob/{D}/src/A0.java#L10-L20")
                            .as_str()
                    )
                ),
            ]
        );
        assert_eq!(
            r.notes[..3],
            [
                "asked 3 repositories; citations from shop, web",
                "partial answer: docs could not be searched right now and is left out",
                "1 more places not shown; ask a narrower question or name a repository (repo:NAME)",
            ]
        );
    }

    #[test]
    fn when_no_repository_matches_the_reply_says_where_it_looked() {
        let mut a = answer(Some(C), false, 1, "");
        a.not_found = vec!["jwt".into()];
        a.answer = format!(
            "{}\n\nA0.run …",
            query::answer::not_found_line(&a.not_found, "this repository")
        );
        let x = across(vec![("shop", a), ("web", empty())], &[]);
        let r = ComposeAcross {
            link: &by_repo,
            citations: 5,
        }
        .reply(&x)
        .unwrap();
        assert!(
            r.summary.starts_with(
                "Nothing in any of shop, web matches “jwt”; the closest places follow."
            ),
            "{}",
            r.summary
        );
        assert_eq!(r.citations[0].label, "shop · src/A0.java:10-20");
        assert!(
            ComposeAcross {
                link: &by_repo,
                citations: 5
            }
            .reply(&across(vec![("web", empty())], &["docs"]))
            .is_none()
        );
    }

    #[test]
    fn an_answer_that_matches_nothing_well_names_the_repository() {
        let mut a = answer(Some(C), false, 2, "");
        a.not_found = vec!["jwt".into(), "login".into()];
        a.answer = format!(
            "{}\n\nA0.run …",
            query::answer::not_found_line(&a.not_found, "this repository")
        );
        let r = Compose {
            repo: "shop",
            link: &gh(),
            citations: 5,
            notes: vec![],
        }
        .reply(&a);
        assert!(
            r.summary
                .starts_with("Nothing in shop matches “jwt”, “login”; the closest places follow."),
            "{}",
            r.summary
        );
        assert_eq!(r.citations.len(), 2, "the closest places are still shown");
    }

    const C: &str = "0123456789abcdef0123456789abcdef01234567";

    fn gh() -> LinkTemplate {
        LinkTemplate::Github {
            base: "https://github.com/acme/shop".into(),
        }
    }

    #[test]
    fn citations_are_capped_and_linked_at_the_indexed_commit() {
        let t = gh();
        let r = Compose {
            repo: "shop",
            link: &t,
            citations: 3,
            notes: vec!["answered from shop".into()],
        }
        .reply(&answer(Some(C), false, 5, "Callers of A0.run: …"));
        assert_eq!(r.citations.len(), 3);
        assert_eq!(r.citations[0].label, "src/A0.java:10-20");
        assert_eq!(
            r.citations[0].url.as_deref(),
            Some(format!("https://github.com/acme/shop/blob/{C}/src/A0.java#L10-L20").as_str())
        );
        assert_eq!(r.chain[0].link.url, r.citations[0].url);
        assert_eq!(r.notes[0], "answered from shop");
        assert!(r.notes[1].starts_with("2 more places not shown"));
        assert_eq!(
            r.freshness,
            "indexed at 0123456789 (3 h ago); HEAD unchanged"
        );
    }

    #[test]
    fn no_commit_or_a_dirty_index_gives_labels_only() {
        let t = gh();
        let compose = |commit, dirty| {
            Compose {
                repo: "shop",
                link: &t,
                citations: 5,
                notes: vec![],
            }
            .reply(&answer(commit, dirty, 2, "x"))
        };
        let r = compose(None, false);
        assert!(r.citations.iter().all(|c| c.url.is_none()));
        let r = compose(Some(C), true);
        assert!(r.citations.iter().all(|c| c.url.is_none()));
        assert!(r.notes[0].contains("uncommitted"));
    }

    #[test]
    fn the_summary_is_trimmed_and_neutralised() {
        let long = format!(
            "Callers of A: @everyone see https://evil.com\n{}",
            "line of text\n".repeat(400)
        );
        let r = Compose {
            repo: "shop",
            link: &LinkTemplate::Plain,
            citations: 5,
            notes: vec![],
        }
        .reply(&answer(None, false, 1, &long));
        assert!(r.summary.chars().count() <= SUMMARY_CHARS + 2);
        assert!(r.summary.ends_with("line of text\n…"));
        assert!(!r.summary.contains("@everyone") && !r.summary.contains("https://"));
    }

    #[test]
    fn the_top_symbol_is_the_first_cited() {
        assert_eq!(
            top_symbol(&answer(None, false, 2, "")).as_deref(),
            Some("A0.run")
        );
        assert_eq!(top_symbol(&answer(None, false, 0, "")), None);
    }
}
