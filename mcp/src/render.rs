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
