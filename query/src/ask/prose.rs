//! The answer without an LLM, written from the plan: the best locations (or callers, callees,
//! frames, what a diff reaches), the chain and a snippet, as plain text with cited lines.

use crate::answer::{Plan, citation_of};
use crate::assemble::Assembled;
use crate::citation::Citation;
use crate::question::{Intent, Question};
use crate::retrieve::UnitKey;
use crate::summary;
use crate::view::{SnapshotView, SymIdx};
use indexer::model::Provenance;

/// The structured answer without an LLM: best locations (or callers, callees, frames), the
/// chain, a snippet.
pub(super) fn index_answer(
    v: &SnapshotView<'_>,
    q: &Question,
    p: &Plan,
    citations: &[Citation],
    a: &Assembled,
) -> String {
    let mut s = String::new();
    let Some(best) = citations.first() else {
        if !q.patch.is_empty() {
            return "The diff touches nothing the index holds: no changed line lies in an indexed declaration.".into();
        }
        return "No indexed code matches this question. Try naming a class or method, or check `codemap status` for what is indexed.".into();
    };
    let name = |c: &Citation| c.symbol.clone().unwrap_or_else(|| c.path.clone());
    let sym_line = |i: SymIdx| {
        let c = citation_of(v, &UnitKey::Sym(i));
        format!("- {} — {}", name(&c), c.label())
    };
    // Overloads are one name: `Foo.bar (3 overloads)`.
    let mut names: Vec<(String, usize)> = Vec::new();
    for &t in &p.targets {
        let n = name(&citation_of(v, &UnitKey::Sym(t)));
        match names.iter_mut().find(|(x, _)| *x == n) {
            Some(x) => x.1 += 1,
            None => names.push((n, 1)),
        }
    }
    let targets = names
        .iter()
        .map(|(n, k)| match k {
            1 => n.clone(),
            _ => format!("{n} ({k} overloads)"),
        })
        .chain(p.library.iter().cloned())
        .collect::<Vec<_>>()
        .join(", ");
    match q.intent {
        Intent::Impact if !q.patch.is_empty() => diff_answer(v, p, &mut s),
        Intent::Callers | Intent::Impact | Intent::Callees
            if !p.targets.is_empty() || !p.library.is_empty() =>
        {
            let (what, none) = match q.intent {
                Intent::Callers => ("Callers of", "No callers of it in the indexed code."),
                Intent::Impact => (
                    "Code affected by a change to",
                    "Nothing in the indexed code calls it.",
                ),
                _ => (
                    "Calls made by",
                    "It calls nothing else in the indexed code.",
                ),
            };
            s.push_str(&format!("{what} {targets}:\n"));
            if p.related.is_empty() {
                s.push_str(none);
                s.push('\n');
            }
            for &c in p.related.iter().take(12) {
                s.push_str(&sym_line(c));
                if let Some((_, t)) = p.via.iter().find(|(x, _)| *x == c) {
                    s.push_str(&format!(
                        " (calls {})",
                        name(&citation_of(v, &UnitKey::Sym(*t)))
                    ));
                }
                s.push('\n');
            }
            entry_lines(v, p, &mut s);
        }
        Intent::Trace if !p.targets.is_empty() => {
            let at = |h: &crate::trace::FrameHit| match (h.line, h.inside) {
                (Some(n), true) => format!(" (line {n})"),
                (Some(n), false) => format!(" (the trace's line {n} is outside it here)"),
                (None, _) => String::new(),
            };
            let mut shown: Option<(SymIdx, u32)> = None;
            if let Some(o) = p.frames.iter().find(|h| h.sym == p.targets[0]) {
                let what = if o.cause > 0 {
                    "The root cause fails in"
                } else {
                    "It fails in"
                };
                s.push_str(&format!("{what} {}{}\n", &sym_line(o.sym)[2..], at(o)));
                if let (Some(n), true) = (o.line, o.inside) {
                    s.push_str(&crate::trace::code_line(v, v.path(o.sym), n));
                    shown = Some((o.sym, n));
                } else if let Some((method, null)) = crate::trace::null_call(&q.text) {
                    // The trace's line is not usable here: the call made on null is.
                    let lines =
                        crate::trace::call_lines(v, o.sym, &method, &null).unwrap_or_default();
                    if let Some(&n) = lines.first() {
                        let on = if null.is_empty() {
                            String::new()
                        } else {
                            format!(" on {null}")
                        };
                        let more = if lines.len() > 1 {
                            format!(" ({} calls of it here)", lines.len())
                        } else {
                            String::new()
                        };
                        s.push_str(&format!("It calls {method}(){on} at line {n}{more}:\n"));
                        s.push_str(&crate::trace::code_line(v, v.path(o.sym), n));
                    }
                }
            }
            if let Some(m) = &p.message_site {
                let c = citation_of(v, &UnitKey::Sym(m.sym));
                let also = match m.others {
                    0 => String::new(),
                    n => format!(
                        " (and {n} other place{} with the same text)",
                        if n == 1 { "" } else { "s" }
                    ),
                };
                let message = crate::trace::shorten(&m.message);
                if shown == Some((m.sym, m.line)) {
                    s.push_str(&format!(
                        "The message \"{message}\" is written on that line{also}\n"
                    ));
                } else {
                    s.push_str(&format!(
                        "The message \"{message}\" is written in {} — {}:{}{also}\n",
                        name(&c),
                        c.path,
                        m.line
                    ));
                    s.push_str(&crate::trace::code_line(v, &c.path, m.line));
                }
            }
            if p.frames.is_empty() {
                s.push_str("No frame of the trace is in the indexed code.\n");
            } else {
                s.push_str("Frames of the trace in the indexed code:\n");
            }
            for h in &p.frames {
                s.push_str(&sym_line(h.sym));
                s.push_str(&at(h));
                s.push('\n');
            }
        }
        Intent::Flow if !a.chain.is_empty() => {
            s.push_str("Call chain:\n");
            for (k, c) in a.chain.iter().enumerate() {
                // Indented under the step that calls it.
                s.push_str(&format!(
                    "{}{}. {} — {}:{}-{}\n",
                    "   ".repeat(c.depth),
                    k + 1,
                    c.symbol,
                    c.path,
                    c.start_line,
                    c.end_line
                ));
            }
        }
        _ => {
            s.push_str(&format!("Best match: {} — {}\n", name(best), best.label()));
            if let Some(i) = v.enclosing(&best.path, best.start_line, |_| true)
                && v.span(i).0 == best.start_line
            {
                let line = summary::symbol_line(v, i);
                let doc = line.split_once(" — ").map(|(_, d)| d).unwrap_or(&line);
                s.push_str(&format!("  {doc}\n"));
            }
            let more: Vec<String> = citations
                .iter()
                .skip(1)
                .take(4)
                .map(|c| format!("- {} — {}", name(c), c.label()))
                .collect();
            if !more.is_empty() {
                s.push_str("Also:\n");
                s.push_str(&more.join("\n"));
                s.push('\n');
            }
        }
    }
    if let Some(sn) = a.snippets.first() {
        let code: Vec<&str> = sn.code.lines().take(8).collect();
        s.push_str(&format!(
            "\n{}:{}\n{}\n",
            sn.path,
            sn.start_line,
            code.join("\n")
        ));
    }
    s
}

/// "What does this diff break?": what it changes, who calls that, and which tests reach it.
fn diff_answer(v: &SnapshotView<'_>, p: &Plan, s: &mut String) {
    if p.changes.is_empty() {
        s.push_str("The diff changes no declaration the index holds (see the notes).\n");
        return;
    }
    let files: std::collections::HashSet<&str> = p.changes.iter().map(|c| v.path(c.sym)).collect();
    let changed: Vec<String> = p
        .changes
        .iter()
        .map(|c| format!("{} ({})", sym_item(v, c.sym), c.kind.as_str()))
        .collect();
    section(
        s,
        &format!(
            "The diff changes {} declaration{} in {} file{}:",
            p.changes.len(),
            if p.changes.len() == 1 { "" } else { "s" },
            files.len(),
            if files.len() == 1 { "" } else { "s" },
        ),
        &changed,
        12,
    );
    let (direct, further) = p.related.split_at(p.direct.min(p.related.len()));
    let (breaking, other) = direct.split_at(p.breaking.min(direct.len()));
    let is_test = |i: SymIdx| v.provenance_of(i) == Provenance::Test;
    let items = |xs: &[SymIdx], tests: bool| -> Vec<String> {
        xs.iter()
            .filter(|&&i| is_test(i) == tests)
            .map(|&i| sym_item(v, i))
            .collect()
    };
    let (breaking, other) = (items(breaking, false), items(other, false));
    if breaking.is_empty() && other.is_empty() {
        s.push_str(if direct.iter().any(|&i| is_test(i)) {
            "Only tests call it.\n"
        } else {
            "Nothing else in the indexed code calls it.\n"
        });
    }
    section(
        s,
        "Callers to update (a declaration they use changes or goes away):",
        &breaking,
        12,
    );
    section(s, "Callers whose behaviour may change:", &other, 12);
    section(s, "One call further up:", &items(further, false), 8);
    entry_lines(v, p, s);
    section(s, "Tests that reach it:", &items(&p.related, true), 8);
}

/// The plan's entry points: `- POST /api/orders → OrderController.create — path:18-22`.
fn entry_lines(v: &SnapshotView<'_>, p: &Plan, s: &mut String) {
    let entries: Vec<String> = p
        .entries
        .iter()
        .map(|e| format!("{} → {}", e.entry, sym_item(v, e.handler)))
        .collect();
    section(s, "Entry points that reach it:", &entries, 8);
}

/// `Foo.bar — path:start-end`.
fn sym_item(v: &SnapshotView<'_>, i: SymIdx) -> String {
    let c = citation_of(v, &UnitKey::Sym(i));
    format!(
        "{} — {}",
        c.symbol.clone().unwrap_or_else(|| c.path.clone()),
        c.label()
    )
}

/// A titled list of at most `shown` items, then "… and N more"; nothing when `items` is empty.
fn section(s: &mut String, title: &str, items: &[String], shown: usize) {
    if items.is_empty() {
        return;
    }
    s.push_str(title);
    s.push('\n');
    for item in items.iter().take(shown) {
        s.push_str(&format!("- {item}\n"));
    }
    if items.len() > shown {
        s.push_str(&format!("- … and {} more\n", items.len() - shown));
    }
}
