//! Messages kept in resource bundles (Tomcat's `LocalStrings.properties`, Spring's
//! `messages.properties`): the code names only the key (`sm.getString("standardContext.startFailed",
//! name)`), so a question that repeats the logged text finds no string literal holding it. The
//! text is matched against the bundles' values instead, and the methods naming a matched key as a
//! string literal are what the question is after.

use super::{Retriever, UnitKey, message};
use crate::QueryError;
use crate::question::Question;
use crate::view::{SnapshotView, SymIdx};
use indexer::lang::config::properties;
use indexer::model::SymbolKind;

/// Bundle keys looked up in the code, best matching first.
const BUNDLE_KEYS: usize = 3;
/// Full-text hits read per key when looking for the code that names it.
const KEY_HITS: usize = 40;
/// Folder names of a bundle's path added to the search for its keys' users.
const FOLDER_WORDS: usize = 2;
/// Files beside a bundle read at most when looking for its keys' users.
const FOLDER_FILES: usize = 200;
/// Words in a row a phrase of the question has when bundles are searched for it.
const PHRASE_WORDS: usize = 4;
/// Phrases of the question searched at most.
const PHRASES: usize = 24;
/// Full-text hits read for the question's phrases.
const PHRASE_HITS: usize = 40;

/// The bundle entry whose message a method writes: shown beside the method in an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleHit {
    pub key: String,
    pub value: String,
    pub path: String,
    pub line: u32,
}

/// The question's runs of [`PHRASE_WORDS`] words as one full-text query of phrases (those of
/// stop words only left out): any text repeating four of its words verbatim matches.
pub(super) fn phrase_query(text: &str) -> String {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for w in words.windows(PHRASE_WORDS) {
        if w.iter().all(|x| crate::question::is_stop(x)) {
            continue;
        }
        let p = format!("\"{}\"", w.join(" "));
        if !out.contains(&p) {
            out.push(p);
        }
        if out.len() == PHRASES {
            break;
        }
    }
    out.join(" ")
}

/// How well a bundle value repeats the question: the question's stems (in order) that the value
/// holds in a row, if the run is a message (four words, or the whole of a value of three).
pub(super) fn repeated_run<'q>(question: &'q [String], value: &str) -> Option<&'q [String]> {
    let stems = message::literal_stems(value);
    let run = message::longest_run(question, &stems);
    (run.len() > message::MESSAGE_RUN
        || (run.len() == message::MESSAGE_RUN && stems.len() == run.len()))
    .then_some(run)
}

/// Whether a file is a bundle: a `.properties` file (a Spring `application.properties` too: its
/// values are no sentences, so they match no message).
pub(crate) fn is_bundle(path: &str) -> bool {
    path.ends_with(".properties")
}

/// The lines of code that name `key` as a string literal (the indexer's literals): (path, line). A bundle serves the code
/// beside it (Tomcat keeps one per package), so lines in `bundle`'s folder come first: those the
/// full-text index finds (the key's words as a phrase, and the folder's words), else those of
/// the folder's files read in full (a key of common words, `stream.closed`, can stay out of the
/// hits), else the hits elsewhere (a Spring `messages.properties` sits in `resources/`).
pub(crate) fn key_sites(
    v: &SnapshotView<'_>,
    key: &str,
    bundle: &str,
) -> Result<Vec<(String, u32)>, QueryError> {
    let folder = folder_of(bundle);
    let words = key.replace(|c: char| !(c.is_alphanumeric() || c == '_'), " ");
    let folder_words: Vec<&str> = bundle.rsplit('/').skip(1).take(FOLDER_WORDS).collect();
    let query = format!("\"{}\" {}", words.trim(), folder_words.join(" "));
    let mut found: Vec<(String, u32)> = Vec::new();
    for (id, _, _) in v.index.search_chunks(&query, KEY_HITS)? {
        let Some((path, start, end)) = v.chunk_span(&id)? else {
            continue;
        };
        if is_bundle(&path) {
            continue;
        }
        for lit in v.literals_in(&path, start, end) {
            if lit.text == key && !found.iter().any(|(p, l)| *p == path && *l == lit.line) {
                found.push((path.clone(), lit.line));
            }
        }
    }
    let (beside, elsewhere): (Vec<_>, Vec<_>) =
        found.into_iter().partition(|(p, _)| folder_of(p) == folder);
    if !beside.is_empty() {
        return Ok(beside);
    }
    let mut read = Vec::new();
    let files: Vec<&str> = v
        .paths()
        .filter(|p| folder_of(p) == folder && !is_bundle(p))
        .take(FOLDER_FILES)
        .collect();
    // One request for the folder's symbol rows, which hold its literals.
    v.prefetch_syms(&files)?;
    for path in files {
        for lit in v.literals_in(path, 1, u32::MAX) {
            if lit.text == key && !read.iter().any(|(p, l)| p == path && *l == lit.line) {
                read.push((path.to_string(), lit.line));
            }
        }
    }
    Ok(if read.is_empty() { elsewhere } else { read })
}

/// The folder part of a path (empty at the root).
fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

impl Retriever<'_, '_> {
    /// Methods naming the key of a bundle message the question repeats, with the match's score
    /// (its words' idf, summed; added to their body scores too, as a literal's is). `found` are
    /// the full-text leg's units: the bundle chunks the question matched are among them.
    pub(super) fn bundle_leg(
        &self,
        q: &Question,
        found: &[UnitKey],
    ) -> Result<Vec<(SymIdx, f32)>, QueryError> {
        let v = self.view;
        let sequence = message::literal_stems(&q.text);
        // A repository without bundles pays nothing (a path scan) for this leg.
        if sequence.len() < message::MESSAGE_RUN || !v.paths().any(is_bundle) {
            return Ok(Vec::new());
        }
        let mut keys: Vec<(BundleHit, f32)> = Vec::new();
        // Bundle chunks: those the full-text leg found, and those holding four of the
        // question's words in a row (common words can keep a bundle out of the first).
        let mut chunks: Vec<(String, u32, u32)> = found
            .iter()
            .filter_map(|u| match u {
                UnitKey::Range { path, start, end } if is_bundle(path) => {
                    Some((path.clone(), *start, *end))
                }
                _ => None,
            })
            .collect();
        let phrases = phrase_query(&q.text);
        if !phrases.is_empty() {
            for (id, path, _) in v.index.search_chunks(&phrases, PHRASE_HITS)? {
                if is_bundle(&path)
                    && let Some(span) = v.chunk_span(&id)?
                    && !chunks.contains(&span)
                {
                    chunks.push(span);
                }
            }
        }
        for (path, start, end) in &chunks {
            for e in properties(&v.text(path, *start, *end)?) {
                let Some(run) = repeated_run(&sequence, &e.value) else {
                    continue;
                };
                let score: f32 = run.iter().map(|s| self.idf(q, s)).sum();
                match keys.iter_mut().find(|(k, _)| k.key == e.key) {
                    Some(k) => k.1 = k.1.max(score),
                    None => keys.push((
                        BundleHit {
                            key: e.key,
                            value: e.value,
                            path: path.clone(),
                            line: start + e.line - 1,
                        },
                        score,
                    )),
                }
            }
        }
        keys.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.key.cmp(&b.0.key)));
        let mut out: Vec<(SymIdx, f32)> = Vec::new();
        for (hit, score) in keys.into_iter().take(BUNDLE_KEYS) {
            for (path, line) in key_sites(v, &hit.key, &hit.path)? {
                let held = |k: SymbolKind| matches!(k, SymbolKind::Field | SymbolKind::Constant);
                let Some(i) = v.enclosing(&path, line, |k| k.is_callable() || held(k)) else {
                    continue;
                };
                // A key kept in a constant (`static final String START_FAILED = "…"`) is named
                // by the methods that read the constant.
                let users = if held(v.kind(i)) {
                    self.readers_of(q, i)?
                } else {
                    vec![(i, line)]
                };
                for (m, at) in users {
                    if !out.iter().any(|(o, _)| *o == m) {
                        let mut memo = self.memo_for(q);
                        memo.focus.entry(m).or_insert(at);
                        memo.bundled.insert(m, (score, hit.clone()));
                        out.push((m, score));
                    }
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phrase_query_holds_each_run_of_four_words() {
        assert_eq!(
            phrase_query("Unable to write to stream, once"),
            "\"Unable to write to\" \"to write to stream\" \"write to stream once\""
        );
        assert_eq!(phrase_query("too short"), "");
    }

    #[test]
    fn a_run_is_a_message_when_long_or_the_whole_value() {
        let q = message::literal_stems(
            "our logs say Context [/shop] startup failed due to previous errors, why",
        );
        let v = "Context [{0}] startup failed due to previous errors";
        assert_eq!(repeated_run(&q, v).map(<[String]>::len), Some(5));
        // Three words in a row are a message only when they are all of it.
        assert!(repeated_run(&q, "Startup failed due").is_some());
        assert!(repeated_run(&q, "Startup failed due to a missing file").is_none());
        assert!(repeated_run(&q, "failed to start associated Engine").is_none());
    }
}
