//! `search` and `symbol`.

use super::{Outcome, open_reader, print_json, read_target};
use crate::cli::Backend;
use crate::cli::Global;
use anyhow::Result;

pub fn search(g: &Global, q: &str, limit: usize) -> Result<Outcome> {
    let watcher = match g.backend {
        Backend::Embedded => super::watch::ask_watcher(&read_target(g)?, q, limit),
        Backend::Meilisearch => None,
    };
    let hits = match watcher {
        Some(hits) => hits?,
        None => query::search(open_reader(g)?.as_ref(), q, limit)?,
    };
    if g.json {
        print_json(&hits)?;
    } else {
        for h in &hits {
            let sym = h.symbol.as_deref().unwrap_or("");
            println!(
                "{}:{}-{}  {}  {}",
                h.path, h.start_line, h.end_line, sym, h.preview
            );
        }
    }
    Ok(if hits.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

pub fn symbol(g: &Global, name: &str) -> Result<Outcome> {
    let rows = open_reader(g)?.symbols_named(name)?;
    if g.json {
        let v: Vec<_> = rows
            .iter()
            .map(|r| serde_json::json!({
                "path": r.path, "start_line": r.symbol.start_line, "end_line": r.symbol.end_line,
                "name_line": r.symbol.name_line, "kind": r.symbol.kind, "qualified_name": r.symbol.qualified_name,
                "signature": r.symbol.signature, "doc": r.symbol.doc, "id": r.symbol.id,
            }))
            .collect();
        print_json(&v)?;
    } else {
        for r in &rows {
            let s = &r.symbol;
            println!(
                "{}:{}-{}  {} {}  {}",
                r.path,
                s.start_line,
                s.end_line,
                s.kind.as_str(),
                s.qualified_name,
                s.signature
            );
        }
    }
    Ok(if rows.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}
