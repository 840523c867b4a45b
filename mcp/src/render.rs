//! Query results as cited text for an agent: one place per line, `path:start-end` first.
//! Reads spans from the index where a result carries only a line.

use indexer::store::IndexRead;
use query::QueryError;
use query::calls::{Hop, Node};
use query::search::Hit;
use std::fmt::Write;

pub fn hits(hits: &[Hit]) -> String {
    if hits.is_empty() {
        return "no matches".into();
    }
    let mut out = String::new();
    for h in hits {
        let _ = writeln!(
            out,
            "{}:{}-{}  {}  {}",
            h.path,
            h.start_line,
            h.end_line,
            h.symbol.as_deref().unwrap_or(""),
            h.preview.trim()
        );
    }
    out
}

/// A node's declaration as `path:start-end`, when it is a symbol of the index.
pub fn node_place(r: &dyn IndexRead, n: &Node) -> Result<String, QueryError> {
    if let Some(row) = r.symbol_by_id(&n.id)? {
        return Ok(format!(
            "{}:{}-{}",
            row.path, row.symbol.start_line, row.symbol.end_line
        ));
    }
    Ok(match (&n.path, n.line) {
        (Some(p), Some(l)) => format!("{p}:{l}-{l}"),
        _ => "(outside the indexed code)".into(),
    })
}

/// Callers (`up`) or callees as an indented list under each target: the other end's
/// declaration and the use site, both cited.
pub fn hops(
    r: &dyn IndexRead,
    what: &str,
    targets: &[Node],
    hops: &[Hop],
    up: bool,
) -> Result<String, QueryError> {
    let mut out = String::new();
    for t in targets {
        let _ = writeln!(out, "{what} of {}  {}", t.name, node_place(r, t)?);
    }
    if hops.is_empty() {
        out.push_str("  (none)\n");
        return Ok(out);
    }
    for h in hops {
        let other = if up { &h.from } else { &h.to };
        let arrow = if up { "←" } else { "→" };
        let via = h
            .via
            .as_deref()
            .map(|v| format!("  via {v}"))
            .unwrap_or_default();
        let detail = if h.detail.is_empty() {
            String::new()
        } else {
            format!("  [{}]", h.detail)
        };
        let _ = writeln!(
            out,
            "{}{arrow} {}  {}  (use at {}:{}-{}, {}, depth {}){via}{detail}",
            "  ".repeat(h.depth),
            other.name,
            node_place(r, other)?,
            h.path,
            h.line,
            h.line,
            h.kind.as_str(),
            h.depth
        );
    }
    Ok(out)
}

/// Call chains, each hop with its use site.
pub fn chains(r: &dyn IndexRead, chains: &[Vec<Hop>]) -> Result<String, QueryError> {
    let mut out = String::new();
    for (k, chain) in chains.iter().enumerate() {
        let _ = writeln!(out, "chain {} ({} hops)", k + 1, chain.len());
        if let Some(first) = chain.first() {
            let _ = writeln!(
                out,
                "  {}  {}",
                first.from.name,
                node_place(r, &first.from)?
            );
        }
        for h in chain {
            let _ = writeln!(
                out,
                "    → {}  {}  (use at {}:{}-{}, {})",
                h.to.name,
                node_place(r, &h.to)?,
                h.path,
                h.line,
                h.line,
                h.kind.as_str()
            );
        }
    }
    Ok(out)
}

/// Definitions by name: place, kind, qualified name, signature and doc sentence.
pub fn definitions(r: &dyn IndexRead, name: &str) -> Result<(String, usize), QueryError> {
    let rows = r.symbols_named(name.trim())?;
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| r.symbol.kind != indexer::SymbolKind::Package)
        .collect();
    let mut out = String::new();
    for row in &rows {
        let s = &row.symbol;
        let _ = writeln!(
            out,
            "{}:{}-{}  {} {}",
            row.path,
            s.start_line,
            s.end_line,
            s.kind.as_str(),
            s.qualified_name
        );
        let _ = writeln!(out, "  {}", s.signature.trim());
        if let Some(d) = s.doc.as_deref().map(query::summary::first_sentence)
            && !d.is_empty()
        {
            let _ = writeln!(out, "  // {d}");
        }
    }
    Ok((out, rows.len()))
}

/// A module's entry points, then each key flow: its steps numbered, each after the first with
/// the hops into it (`← 1 call at path:line`), and what the caps left out.
pub fn flows(module: &str, m: &query::flows::ModuleFlows) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "entry points of {module} ({}):", m.entries.len());
    for e in &m.entries {
        let _ = writeln!(
            out,
            "- {} {} → {}  {}",
            e.kind.word(),
            e.label,
            e.name,
            e.place
        );
    }
    if m.flows.is_empty() {
        out.push_str("\nno flows: no entry point reaches other code\n");
    }
    for f in &m.flows {
        let _ = writeln!(out, "\nflow: {}", f.entry);
        for (i, step) in f.steps.iter().enumerate() {
            let outside = step
                .module
                .as_deref()
                .map(|m| format!(" [{m}]"))
                .unwrap_or_default();
            let _ = write!(
                out,
                "  {}. {} ({}){outside}  {}",
                i + 1,
                step.name,
                step.kind.as_str(),
                step.place
            );
            let into: Vec<String> = f
                .hops
                .iter()
                .filter(|h| h.to == i && h.from != i)
                .map(|h| format!("{} {} at {}", h.from + 1, h.kind.as_str(), h.site))
                .collect();
            if !into.is_empty() {
                let _ = write!(out, "  ← {}", into.join("; "));
            }
            out.push('\n');
        }
        if f.cut > 0 {
            let _ = writeln!(
                out,
                "  ({} calls left out by the depth and size caps)",
                f.cut
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use query::flows::{EntryKind, EntryPoint, Flow, Hop, ModuleFlows, Place, Step, StepKind};
    use query::model::EdgeKind;

    #[test]
    fn a_flow_lists_its_steps_with_the_calls_into_them() {
        let step = |name: &str, kind, place| Step {
            name: name.into(),
            kind,
            place,
            module: None,
            writes: false,
        };
        let m = ModuleFlows {
            entries: vec![EntryPoint {
                kind: EntryKind::Route,
                label: "GET /x".into(),
                name: "C.get".into(),
                place: Place::new("a/C.java", 10, 20),
                id: "java:a.C#get()".into(),
                doc: None,
            }],
            flows: vec![Flow {
                entry: "route GET /x".into(),
                steps: vec![
                    step("C.get", StepKind::Method, Place::new("a/C.java", 10, 20)),
                    step("t_x", StepKind::Table, Place::at("a/C.java", 12)),
                ],
                hops: vec![Hop {
                    from: 0,
                    to: 1,
                    kind: EdgeKind::Db,
                    site: Place::at("a/C.java", 12),
                }],
                cut: 2,
            }],
        };
        assert_eq!(
            flows("a", &m),
            "entry points of a (1):\n\
             - route GET /x → C.get  a/C.java:10-20\n\
             \nflow: route GET /x\n\
             \x20 1. C.get (method)  a/C.java:10-20\n\
             \x20 2. t_x (table)  a/C.java:12  ← 1 db at a/C.java:12\n\
             \x20 (2 calls left out by the depth and size caps)\n"
        );
    }
}
