//! The answer model (serialisable, what the CLI, bot and batch mode print) and the per-intent
//! plan ([`plan`]): which units an answer cites, in which order, and the chain it shows.

mod plan;

pub(crate) use plan::args_in_text;
pub use plan::{Plan, plan};

use crate::citation::Citation;
use crate::freshness::Freshness;
use crate::impact::{Change, EntryPoint};
use crate::question::Intent;
use crate::retrieve::UnitKey;
use crate::signature::short_qualified;
use crate::view::SnapshotView;
use serde::{Deserialize, Serialize};

/// How much an answer discloses: names and one-liners, plus signatures and the graph, plus code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Surface,
    #[default]
    Structured,
    Full,
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        match s {
            "surface" => Ok(Level::Surface),
            "structured" => Ok(Level::Structured),
            "full" => Ok(Level::Full),
            _ => Err(format!(
                "unknown level {s:?}; expected surface, structured or full"
            )),
        }
    }
}

/// Who wrote the answer text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerMode {
    /// Composed from the index alone.
    Index,
    /// Prose from an LLM, citations checked.
    Llm,
}

/// A step of a call chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainStep {
    /// Calls below the chain's first step: a step is called by the nearest step above it one
    /// level up.
    pub depth: usize,
    pub symbol: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
}

/// A file of the map, with its module and one line about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MapEntry {
    pub module: String,
    pub path: String,
    pub summary: String,
    /// Symbols of this file the answer cites.
    pub symbols: Vec<String>,
}

/// A symbol a pasted diff changes, as an answer reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedSymbol {
    pub symbol: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub change: crate::impact::ChangeKind,
    /// Lines of the indexed revision the diff touches in it.
    pub lines: Vec<u32>,
}

/// An entry point an answer reports, with the method it enters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryPointRef {
    pub entry: String,
    pub symbol: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
}

/// Code shown in an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snippet {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: Option<String>,
    pub code: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub question: String,
    pub intent: Intent,
    pub level: Level,
    pub mode: AnswerMode,
    /// The answer as prose or a structured summary (plain text, no links).
    pub answer: String,
    /// Checked locations, best first.
    pub citations: Vec<Citation>,
    pub chain: Vec<ChainStep>,
    pub map: Vec<MapEntry>,
    pub snippets: Vec<Snippet>,
    /// One-line summaries of the other relevant places.
    pub related: Vec<String>,
    /// What a pasted diff changes (impact questions with a diff).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<ChangedSymbol>,
    /// Routes, schedules and listeners whose calls reach what the question is about (callers,
    /// impact).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entry_points: Vec<EntryPointRef>,
    /// A pasted stack trace's frames in the index, in trace order (trace questions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<crate::trace::TraceFrameRef>,
    /// Where the trace's deepest exception message is written (trace questions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_site: Option<crate::trace::MessageSiteRef>,
    pub freshness: Freshness,
    /// What the reader should know: fallbacks, removed citations, truncations.
    pub notes: Vec<String>,
    /// The vector leg that took part in recall (model and rows), if one was configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vectors: Option<String>,
    /// The question's words this repository does not hold, when they are most of what it asks:
    /// nothing here matches well, and the citations are only the closest places.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    /// For a question answered by searching: the largest share of its word weight (rarer words
    /// weigh more) that one of the first places holds, 0 to 1. What answers of several
    /// repositories are ordered by ([`crate::across`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<f32>,
    /// The methods a callers or callees question names that this repository does not declare
    /// (its citations are only the closest matches).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<String>,
    /// How this repository holds the question's words, for weighing it against others alike.
    #[serde(skip)]
    pub held: Option<crate::ask::coverage::Held>,
}

/// An answer with nothing in it, for tests to fill.
#[cfg(test)]
pub(crate) fn empty_for_tests() -> Answer {
    Answer {
        question: String::new(),
        intent: crate::question::Intent::Locate,
        level: Level::Structured,
        mode: AnswerMode::Index,
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
        freshness: crate::freshness::describe(None, None, 0),
        notes: vec![],
        vectors: None,
        not_found: vec![],
        matched: None,
        unresolved: vec![],
        held: None,
    }
}

/// "Nothing in shop matches “jwt”, “login”; the closest places follow." The line an answer
/// with [`Answer::not_found`] opens with, naming where it looked.
pub fn not_found_line(missing: &[String], place: &str) -> String {
    let words: Vec<String> = missing.iter().map(|w| format!("“{w}”")).collect();
    format!(
        "Nothing in {place} matches {}; the closest places follow.",
        words.join(", ")
    )
}

/// How an answer reports a change of the plan.
pub fn changed_symbol(v: &SnapshotView<'_>, c: &Change) -> ChangedSymbol {
    let cit = citation_of(v, &UnitKey::Sym(c.sym));
    let mut lines = c.lines.clone();
    lines.sort_unstable();
    ChangedSymbol {
        symbol: cit.symbol.unwrap_or_default(),
        path: cit.path,
        start_line: cit.start_line,
        end_line: cit.end_line,
        change: c.kind,
        lines,
    }
}

/// How an answer reports an entry point of the plan.
pub fn entry_point_ref(v: &SnapshotView<'_>, e: &EntryPoint) -> EntryPointRef {
    let cit = citation_of(v, &UnitKey::Sym(e.handler));
    EntryPointRef {
        entry: e.entry.clone(),
        symbol: cit.symbol.unwrap_or_default(),
        path: cit.path,
        start_line: cit.start_line,
        end_line: cit.end_line,
    }
}

/// A unit as a citation.
pub fn citation_of(v: &SnapshotView<'_>, u: &UnitKey) -> Citation {
    match u {
        UnitKey::Sym(i) => {
            let s = v.sym(*i);
            Citation {
                path: s.path.clone(),
                start_line: s.symbol.start_line,
                end_line: s.symbol.end_line,
                symbol: Some(short_qualified(&s.symbol.qualified_name, &s.path)),
            }
        }
        UnitKey::Range { path, start, end } => Citation {
            path: path.clone(),
            start_line: *start,
            end_line: *end,
            symbol: v
                .enclosing(path, *start, |_| true)
                .map(|i| short_qualified(&v.sym(i).symbol.qualified_name, path)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse() {
        assert_eq!("full".parse::<Level>(), Ok(Level::Full));
        assert!("x".parse::<Level>().is_err());
    }
}
