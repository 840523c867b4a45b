//! An [`ImpactReport`] as plain text (a terminal) or Markdown (a review comment, an agent).
//! Every place is written `path:start-end`; Markdown is cut to a size limit at a whole line,
//! with a pointer to the full report.

use super::report::{ChangedDecl, ImpactReport, Reached};

/// GitHub's limit on a comment body is 65,536 characters; leave room for a header.
pub const REVIEW_COMMENT_LIMIT: usize = 65_000;

/// The report for a terminal.
pub fn text(r: &ImpactReport) -> String {
    let mut out = String::new();
    section(&mut out, "changed", r.changes.iter().map(change_line));
    section(&mut out, "callers", r.callers.iter().map(reached_line));
    section(
        &mut out,
        "entry points",
        r.entry_points.iter().map(|e| {
            format!(
                "{}  →  {}  {}:{}-{}",
                e.entry, e.symbol, e.path, e.start_line, e.end_line
            )
        }),
    );
    section(
        &mut out,
        "framework edges",
        r.crossings.iter().map(|c| {
            format!(
                "{:<6} {}  from {}  {}:{}",
                c.kind, c.target, c.from, c.path, c.line
            )
        }),
    );
    section(
        &mut out,
        "modules",
        r.modules.iter().map(|m| {
            format!(
                "{}  changed {}, callers {}, tests {}",
                display_module(&m.module),
                m.changed,
                m.callers,
                m.tests
            )
        }),
    );
    section(&mut out, "tests", r.tests.iter().map(reached_line));
    section(&mut out, "notes", r.notes.iter().cloned());
    if out.is_empty() {
        out.push_str("nothing to report\n");
    }
    out
}

fn section(out: &mut String, title: &str, lines: impl Iterator<Item = String>) {
    let lines: Vec<String> = lines.collect();
    if lines.is_empty() {
        return;
    }
    out.push_str(&format!("{title} ({})\n", lines.len()));
    for l in lines {
        out.push_str("  ");
        out.push_str(&l);
        out.push('\n');
    }
    out.push('\n');
}

fn change_line(c: &ChangedDecl) -> String {
    let via = c
        .via
        .as_deref()
        .map(|v| format!("  via {v}"))
        .unwrap_or_default();
    format!(
        "{} {}  {}  {}:{}-{}{via}",
        c.kind,
        c.symbol,
        c.change.as_str(),
        c.path,
        c.start_line,
        c.end_line
    )
}

fn reached_line(r: &Reached) -> String {
    format!(
        "{}  {}:{}-{}  (depth {}, calls {} at line {})",
        r.symbol, r.path, r.start_line, r.end_line, r.depth, r.calls, r.call_line
    )
}

fn display_module(m: &str) -> &str {
    if m.is_empty() { "(root)" } else { m }
}

/// The report as Markdown of at most `limit` characters: whole lines are dropped from the end
/// and a last line says how many, and where the rest is (`more`).
pub fn markdown(r: &ImpactReport, limit: usize, more: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let breaking = r
        .changes
        .iter()
        .filter(|c| {
            matches!(
                c.change,
                super::ChangeKind::Removed | super::ChangeKind::Declaration
            )
        })
        .count();
    lines.push("### Impact of this change".into());
    lines.push(String::new());
    lines.push(format!(
        "{} declarations changed ({} signature or removal, {} body), {} callers, {} entry points, {} tests reach it.",
        r.changes.len(),
        breaking,
        r.changes.len() - breaking,
        r.callers.len(),
        r.entry_points.len(),
        r.tests.len()
    ));
    if !r.changes.is_empty() {
        lines.push(String::new());
        lines.push("#### Changed".into());
        lines.push(String::new());
        lines.push("| declaration | change | where |".into());
        lines.push("|---|---|---|".into());
        for c in &r.changes {
            let via = c
                .via
                .as_deref()
                .map(|v| format!(" (via `{}`)", cell(v)))
                .unwrap_or_default();
            lines.push(format!(
                "| `{}` {} | {}{via} | `{}:{}-{}` |",
                cell(&c.symbol),
                c.kind,
                c.change.as_str(),
                c.path,
                c.start_line,
                c.end_line
            ));
        }
    }
    if !r.entry_points.is_empty() {
        lines.push(String::new());
        lines.push("#### Entry points reached".into());
        lines.push(String::new());
        for e in &r.entry_points {
            lines.push(format!(
                "- `{}` → `{}` `{}:{}-{}`",
                cell(&e.entry),
                e.symbol,
                e.path,
                e.start_line,
                e.end_line
            ));
        }
    }
    if !r.crossings.is_empty() {
        lines.push(String::new());
        lines.push("#### Tables, topics, remote calls and keys".into());
        lines.push(String::new());
        for c in &r.crossings {
            lines.push(format!(
                "- {} `{}` from `{}` `{}:{}`",
                c.kind,
                cell(&c.target),
                c.from,
                c.path,
                c.line
            ));
        }
    }
    if !r.modules.is_empty() {
        lines.push(String::new());
        lines.push("#### Modules".into());
        lines.push(String::new());
        lines.push("| module | changed | callers | tests |".into());
        lines.push("|---|---|---|---|".into());
        for m in &r.modules {
            lines.push(format!(
                "| {} | {} | {} | {} |",
                display_module(&m.module),
                m.changed,
                m.callers,
                m.tests
            ));
        }
    }
    for (title, xs) in [("Callers", &r.callers), ("Tests that reach it", &r.tests)] {
        if xs.is_empty() {
            continue;
        }
        lines.push(String::new());
        lines.push(format!("#### {title}"));
        lines.push(String::new());
        for x in xs {
            // Breadth first, so depth is stated rather than shown by nesting.
            lines.push(format!(
                "- `{}` `{}:{}-{}` (depth {}, calls `{}`)",
                x.symbol, x.path, x.start_line, x.end_line, x.depth, x.calls
            ));
        }
    }
    if !r.notes.is_empty() {
        lines.push(String::new());
        lines.push("#### Notes".into());
        lines.push(String::new());
        lines.extend(r.notes.iter().map(|n| format!("- {n}")));
    }
    fit(lines, limit, more)
}

/// Joins `lines`, dropping whole lines from the end until the text and a pointer line fit.
fn fit(lines: Vec<String>, limit: usize, more: &str) -> String {
    let total: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
    if total <= limit {
        return lines.join("\n") + "\n";
    }
    let mut out = String::new();
    let mut used = 0;
    let mut kept = 0;
    // Room for the pointer line.
    let reserve = 120 + more.chars().count();
    for l in &lines {
        let n = l.chars().count() + 1;
        if used + n + reserve > limit {
            break;
        }
        out.push_str(l);
        out.push('\n');
        used += n;
        kept += 1;
    }
    out.push_str(&format!(
        "\n… {} more lines not shown; {more}\n",
        lines.len() - kept
    ));
    out
}

/// Text safe inside a Markdown table cell or code span.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impact::report::Reached;

    fn caller(i: usize) -> Reached {
        Reached {
            symbol: format!("Caller{i}.run"),
            path: format!("src/Caller{i}.java"),
            start_line: 3,
            end_line: 9,
            depth: 1 + i % 3,
            calls: "Target.go".into(),
            call_line: 5,
            module: "app".into(),
        }
    }

    #[test]
    fn markdown_fits_a_review_comment_and_says_what_was_cut() {
        let r = ImpactReport {
            callers: (0..5000).map(caller).collect(),
            ..Default::default()
        };
        let md = markdown(&r, REVIEW_COMMENT_LIMIT, "run `codemap impact` for all");
        assert!(md.chars().count() <= REVIEW_COMMENT_LIMIT, "{}", md.len());
        assert!(md.contains("more lines not shown; run `codemap impact` for all"));
        assert!(md.contains("`src/Caller0.java:3-9`"));
    }

    #[test]
    fn a_small_report_is_whole() {
        let r = ImpactReport {
            callers: (0..3).map(caller).collect(),
            ..Default::default()
        };
        let md = markdown(&r, REVIEW_COMMENT_LIMIT, "x");
        assert!(!md.contains("not shown"));
        assert_eq!(md.matches("`src/Caller").count(), 3);
    }

    #[test]
    fn text_names_every_section_with_places() {
        let r = ImpactReport {
            callers: vec![caller(0)],
            notes: vec!["n".into()],
            ..Default::default()
        };
        let t = text(&r);
        assert!(
            t.contains("callers (1)\n  Caller0.run  src/Caller0.java:3-9  (depth 1"),
            "{t}"
        );
        assert!(t.contains("notes (1)"));
    }
}
