//! The LLM purpose paragraph of a module page: a small prompt built from the module's model
//! (indexed facts only — names, entry points, tables, dependencies, doc one-liners; never source
//! text), a cache key over that prompt and the model's fingerprint, and the cleaning of the
//! answer. Pure; the call itself is [`query::ChatModel`]'s, made by [`crate::generate`].
//!
//! The paragraph is prose about facts the page cites beside it, so it carries no locations of its
//! own: every `path:line` it contains is removed, as are links and invisible characters.

use crate::model::{ModuleModel, clip};
use query::llm::Message;
use serde::{Deserialize, Serialize};

/// Bump when the prompt's wording changes: every cached paragraph is then asked for again.
const PROMPT_VERSION: &str = "docgen-purpose-1";
/// Longest paragraph kept (characters).
const MAX_CHARS: usize = 600;
/// Items listed per kind of fact in the prompt.
const MAX_FACTS: usize = 8;
/// Longest doc one-liner quoted in the prompt (characters).
const MAX_DOC: usize = 160;

const SYSTEM: &str = "You write the opening paragraph of a code map page. From the indexed facts \
about one module of a Java repository, say in two or three plain sentences (at most 80 words) \
what the module is for and how it is used. Use only the facts given; do not guess. No file \
paths, line numbers, links, lists, headings or code.";

/// A cached paragraph, kept in the state file beside the page's fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmPurpose {
    /// [`cache_key`] of the facts the paragraph was written from.
    pub key: String,
    pub text: String,
}

/// The messages asking for a module's paragraph.
pub fn prompt(m: &ModuleModel) -> Vec<Message> {
    vec![Message::system(SYSTEM), Message::user(facts(m))]
}

/// The cache key: the prompt (which holds the facts) and the model's fingerprint, so that the
/// paragraph is asked for again exactly when the module changed.
pub fn cache_key(m: &ModuleModel, messages: &[Message]) -> String {
    let mut h = sha2::Sha256::default();
    for part in [PROMPT_VERSION, &m.fingerprint()]
        .into_iter()
        .chain(messages.iter().map(|x| x.content.as_str()))
    {
        sha2::Digest::update(&mut h, part.as_bytes());
        sha2::Digest::update(&mut h, [0u8]);
    }
    hex::encode(&sha2::Digest::finalize(h)[..12])
}

/// The facts of the prompt, one kind per line, each list capped.
fn facts(m: &ModuleModel) -> String {
    let mut out = Vec::new();
    let root = if m.root.is_empty() {
        "the repository root".to_string()
    } else {
        format!("{}/", m.root)
    };
    out.push(format!(
        "Module: {} (folder {root}; {} code files, {} production).",
        m.name, m.files, m.source_files
    ));
    if let Some(p) = &m.purpose {
        out.push(format!(
            "Its own description ({}): {}",
            p.source,
            clip(&p.text, 400)
        ));
    }
    let list = |label: &str, items: Vec<String>, out: &mut Vec<String>| {
        if items.is_empty() {
            return;
        }
        let more = items.len().saturating_sub(MAX_FACTS);
        let mut s = items
            .into_iter()
            .take(MAX_FACTS)
            .collect::<Vec<_>>()
            .join("; ");
        if more > 0 {
            s.push_str(&format!("; and {more} more"));
        }
        out.push(format!("{label}: {s}."));
    };
    list(
        "Entry points",
        m.entries
            .iter()
            .map(|e| {
                format!(
                    "{} {} handled by {}",
                    format!("{:?}", e.kind).to_lowercase(),
                    e.label,
                    e.handler.name
                )
            })
            .collect(),
        &mut out,
    );
    list(
        "Status enums",
        m.status_enums
            .iter()
            .map(|s| {
                let names: Vec<&str> = s.constants.iter().map(|c| c.name.as_str()).collect();
                format!("{} ({})", short(&s.name), names.join(", "))
            })
            .collect(),
        &mut out,
    );
    list(
        "Tables",
        m.tables.iter().map(|t| t.table.clone()).collect(),
        &mut out,
    );
    list(
        "Uses modules",
        m.deps.uses.iter().map(|l| l.module.clone()).collect(),
        &mut out,
    );
    list(
        "Used by modules",
        m.deps.used_by.iter().map(|l| l.module.clone()).collect(),
        &mut out,
    );
    list(
        "Remote services",
        m.deps.remote.iter().map(|i| i.name.clone()).collect(),
        &mut out,
    );
    list(
        "Topics and events",
        m.deps.topics.iter().map(|i| i.name.clone()).collect(),
        &mut out,
    );
    list(
        "Configuration keys",
        m.deps.config.iter().map(|i| i.name.clone()).collect(),
        &mut out,
    );
    list(
        "Notable types",
        m.types
            .iter()
            .map(|t| {
                if t.doc.is_empty() {
                    format!("{} {}", t.kind, short(&t.name))
                } else {
                    format!("{} {}: {}", t.kind, short(&t.name), clip(&t.doc, MAX_DOC))
                }
            })
            .collect(),
        &mut out,
    );
    out.join("\n")
}

/// The paragraph as a page may show it: one line of plain prose, without locations, links or
/// invisible characters, clipped. `None` when nothing is left.
pub fn clean(answer: &str) -> Option<String> {
    let (text, _) = query::sanitize::strip_invisible(answer);
    let (text, _) = query::sanitize::strip_links(&text, &[]);
    let text = text.replace("[link removed]", "");
    // Locations: the page's checked facts carry them; an unchecked one must not appear.
    let mut kept = String::with_capacity(text.len());
    let mut last = 0;
    for c in query::citation::find_citations(&text) {
        kept.push_str(&text[last..c.span.0]);
        last = c.span.1;
    }
    kept.push_str(&text[last..]);
    // Markdown structure (headings, quotes, bullets, fences) flattened to prose.
    let words: Vec<&str> = kept
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['#', '>', '-', '*', '`'])
                .trim()
        })
        .filter(|l| !l.is_empty())
        .flat_map(|l| l.split_whitespace())
        .filter(|w| !w.chars().all(|c| matches!(c, '`' | '*' | '_' | '#')))
        .collect();
    let mut s = words.join(" ");
    // What a removed location leaves behind: `( )`, `at .`, doubled punctuation.
    for (from, to) in [
        ("( ", "("),
        (" )", ")"),
        ("()", ""),
        (" ,", ","),
        (" .", "."),
        (",.", "."),
    ] {
        while s.contains(from) {
            s = s.replace(from, to);
        }
    }
    let s = clip(s.trim(), MAX_CHARS);
    (s.chars().any(char::is_alphanumeric)).then_some(s)
}

fn short(qname: &str) -> &str {
    qname.rsplit('.').next().unwrap_or(qname)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_links_and_markup_are_removed() {
        let a = "## Orders\n\nTakes orders (see `OrderServiceImpl.java:90` and \
                 shop-order/src/Main.java:3-9) and [pays](https://x.y/z) them.\n- cancels unpaid ones\u{200b}.";
        assert_eq!(
            clean(a).as_deref(),
            Some("Orders Takes orders (see and) and pays them. cancels unpaid ones.")
        );
        assert_eq!(clean("```\n`a.java:1`\n```"), None);
    }

    #[test]
    fn long_answers_are_clipped_at_a_word() {
        let long = "word ".repeat(300);
        let c = clean(&long).unwrap();
        assert!(
            c.chars().count() <= MAX_CHARS + 1 && c.ends_with('…'),
            "{c}"
        );
    }
}
