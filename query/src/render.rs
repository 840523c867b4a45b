//! Plain-text rendering of an [`Answer`] for a terminal. No links: paths and lines only.

use crate::answer::{Answer, AnswerMode, Level};
use std::fmt::Write;

/// Renders an answer as text: the answer, the chain, citations, the map at structured level and
/// up, related places, notes and freshness.
pub fn render_text(a: &Answer) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", a.answer.trim_end());
    if a.mode == AnswerMode::Llm && !a.chain.is_empty() {
        let _ = writeln!(s, "\nChain:");
        for c in &a.chain {
            let _ = writeln!(
                s,
                "  {}{} — {}:{}-{}",
                "  ".repeat(c.depth),
                c.symbol,
                c.path,
                c.start_line,
                c.end_line
            );
        }
    }
    if !a.citations.is_empty() {
        let _ = writeln!(s, "\nCitations:");
        for (k, c) in a.citations.iter().enumerate() {
            let _ = writeln!(
                s,
                "  {:>2}. {}{}",
                k + 1,
                c.label(),
                c.symbol
                    .as_ref()
                    .map(|x| format!("  {x}"))
                    .unwrap_or_default()
            );
        }
    }
    if a.level != Level::Surface && !a.map.is_empty() {
        let _ = writeln!(s, "\nMap:");
        for m in &a.map {
            let module = if m.module.is_empty() {
                String::new()
            } else {
                format!("[{}] ", m.module)
            };
            let _ = writeln!(s, "  {module}{} — {}", m.path, m.summary);
        }
    }
    if a.level == Level::Full {
        for sn in a.snippets.iter().skip(1) {
            let _ = writeln!(s, "\n{}:{}-{}", sn.path, sn.start_line, sn.end_line);
            for (k, l) in sn.code.lines().enumerate() {
                let _ = writeln!(s, "{:>6}  {}", sn.start_line as usize + k, l);
            }
        }
    }
    if a.level != Level::Surface && !a.related.is_empty() {
        let _ = writeln!(s, "\nAlso relevant:");
        for r in a.related.iter().take(8) {
            let _ = writeln!(s, "  {r}");
        }
    }
    for n in &a.notes {
        let _ = writeln!(s, "\nNote: {n}");
    }
    let _ = writeln!(s, "\n({})", a.freshness.summary);
    s
}
