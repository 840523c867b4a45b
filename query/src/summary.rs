//! The summary tree: one line per method and per file, made from doc comments, else from the
//! LLM summaries `codemap summarize` cached ([`crate::summarize`]), else from signatures; used
//! by the map and for the "rest" of an answer.

use crate::signature::short_qualified;
use crate::view::{SnapshotView, SymIdx};
use indexer::model::SymbolKind;

/// One line about a symbol: its first doc sentence, else its declaration head.
pub fn symbol_line(view: &SnapshotView<'_>, i: SymIdx) -> String {
    let s = view.sym(i);
    let name = short_qualified(&s.symbol.qualified_name, &s.path);
    match s
        .symbol
        .doc
        .as_deref()
        .map(first_sentence)
        .filter(|d| !d.is_empty())
    {
        Some(doc) => format!("{name} — {doc}"),
        None => match view.llm_summary(&crate::summarize::symbol_key(&s.symbol.body_hash)) {
            Some(sum) if !s.symbol.body_hash.is_empty() => format!("{name} — {sum}"),
            _ => format!("{name} — {}", clip(&s.symbol.signature, 140)),
        },
    }
}

/// One line about a file: its main type's doc sentence (or kind and size), and how many
/// methods it has.
pub fn file_line(view: &SnapshotView<'_>, path: &str) -> String {
    let syms = view.in_file(path);
    let stem = crate::signature::file_stem(path);
    let main = syms
        .clone()
        .find(|&i| view.kind(i).is_type() && view.name(i) == stem)
        .or_else(|| syms.clone().find(|&i| view.kind(i).is_type()));
    let methods = syms.filter(|&i| view.kind(i) == SymbolKind::Method).count();
    match main {
        Some(t) => {
            let s = &view.sym(t).symbol;
            let what = s
                .doc
                .as_deref()
                .map(first_sentence)
                .filter(|d| !d.is_empty())
                .or_else(|| {
                    let hash = view.file_hash(path)?;
                    view.llm_summary(&crate::summarize::file_key(&hash))
                })
                .unwrap_or_else(|| format!("{} {}", s.kind.as_str(), s.name));
            format!("{what} ({methods} methods)")
        }
        None => format!("{} lines", view.line_count(path).unwrap_or(0)),
    }
}

/// The first sentence of a doc comment, tags and markup removed.
pub fn first_sentence(doc: &str) -> String {
    let mut s = String::new();
    let mut in_tag = false;
    for c in doc.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            '{' | '}' => {}
            _ => s.push(c),
        }
    }
    let s = s
        .replace("@code ", "")
        .replace("@link ", "")
        .replace("@linkplain ", "");
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = s.find(". ").map(|p| p + 1).unwrap_or(s.len());
    clip(&s[..end], 160)
}

pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_drops_markup() {
        assert_eq!(
            first_sentence("Gets the {@code extension} of a <b>file</b>. More text."),
            "Gets the extension of a file."
        );
        assert_eq!(clip("abcdef", 3), "abc…");
    }
}
