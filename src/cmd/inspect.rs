//! `status`, `dump`, `export`, `diff`: what the index holds.

use super::{Outcome, open_index, print_json};
use crate::cli::{DumpWhat, ExportWhat, Global};
use anyhow::{Result, bail};
use indexer::diff;
use indexer::store::IndexRead;
use std::collections::BTreeMap;
use std::io::Write;

/// Where the zh→en dictionary is and how many entries it has, or why Chinese questions are
/// searched as written.
fn chinese_dictionary() -> (Option<String>, Result<usize, String>) {
    use query::question::zh;
    let installed = zh::installed();
    let state = match installed {
        zh::Installed::Loaded { dict, .. } => Ok(dict.len()),
        zh::Installed::Broken(why) => Err(why.clone()),
    };
    (installed.source(), state)
}

pub fn status(g: &Global, verbose: bool) -> Result<Outcome> {
    let idx = open_index(g)?;
    let snap = idx.catalog.last_snapshot()?;
    let (files, symbols, chunks) = idx.catalog.counts()?;
    let skipped = idx.catalog.skipped()?;
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, r, _) in &skipped {
        *reasons.entry(r.as_str()).or_default() += 1;
    }
    let current = idx.catalog.current_files()?;
    let mut listed: Vec<_> = current.values().collect();
    listed.sort_by(|a, b| a.path.cmp(&b.path));
    let degraded: Vec<_> = listed.iter().filter(|f| f.degraded.is_some()).collect();
    let graph = if idx.graph_built()? {
        Some(idx.edge_count()?)
    } else {
        None
    };
    let (zh_path, zh) = chinese_dictionary();
    if g.json {
        print_json(&serde_json::json!({
            "index_dir": idx.dir.root(),
            "snapshot": snap,
            "files": files, "symbols": symbols, "chunks": chunks,
            "skipped": reasons,
            "degraded": degraded.len(),
            "call_graph": { "built": graph.is_some(), "edges": graph },
            "chinese_dictionary": {
                "path": query::question::zh::dictionary_path(),
                "source": zh_path,
                "entries": zh.as_ref().ok(),
                "error": zh.as_ref().err(),
            },
            "skipped_files": if verbose { serde_json::to_value(&skipped)? } else { serde_json::Value::Null },
            "indexed_files": if verbose {
                serde_json::to_value(listed.iter().map(|f| serde_json::json!({
                    "path": f.path, "language": f.language, "provenance": f.provenance,
                    "module": f.module, "lines": f.lines, "degraded": f.degraded,
                    "generated_because": f.gen_reason,
                })).collect::<Vec<_>>())?
            } else { serde_json::Value::Null },
        }))?;
        return Ok(Outcome::Done);
    }
    println!("index: {}", idx.dir.root().display());
    match &snap {
        Some(s) => println!(
            "snapshot {} at {}{} ({} ago)",
            s.generation,
            s.commit
                .as_deref()
                .map(|c| &c[..c.len().min(12)])
                .unwrap_or("no commit"),
            if s.dirty {
                " + uncommitted changes"
            } else {
                ""
            },
            age(s.created_at)
        ),
        None => println!("no snapshot yet"),
    }
    println!("{files} files, {symbols} symbols, {chunks} chunks");
    match graph {
        Some(edges) => println!("call graph: {edges} edges"),
        None => println!("call graph: not built (CODEMAP_SKIP_GRAPH=1 was set)"),
    }
    match (&zh, &zh_path) {
        (Ok(entries), Some(p)) => {
            println!("Chinese questions: translated with {p} ({entries} headwords)")
        }
        (Err(why), _) => println!("Chinese questions: searched as written ({why})"),
        (Ok(_), None) => {}
    }
    if !degraded.is_empty() {
        println!(
            "{} files indexed as text only (parse abandoned)",
            degraded.len()
        );
    }
    if reasons.is_empty() {
        println!("nothing skipped");
    } else {
        let parts: Vec<String> = reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
        println!("skipped: {}", parts.join(", "));
    }
    if verbose {
        for f in &listed {
            let mut note = f
                .degraded
                .as_deref()
                .map(|d| format!("  [text only: {d}]"))
                .unwrap_or_default();
            if let Some(why) = &f.gen_reason {
                note.push_str(&format!("  [{why}]"));
            }
            println!(
                "  {}  {} {} {}{}",
                f.path,
                f.language.as_str(),
                f.provenance.as_str(),
                f.module,
                note
            );
        }
        for (p, _, detail) in &skipped {
            println!("  skipped {p}: {detail}");
        }
    } else if !skipped.is_empty() {
        println!("(-v lists files and skip reasons)");
    }
    Ok(Outcome::Done)
}

fn age(created_at: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(created_at);
    let s = (now - created_at).max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

pub fn dump(g: &Global, what: DumpWhat, file: &str) -> Result<Outcome> {
    let idx = open_index(g)?;
    let path = file.trim_start_matches("./");
    if idx.catalog.file(path)?.is_none() {
        bail!(
            "{path} is not in the index (paths are relative to the repository root; `codemap status -v` lists them)"
        );
    }
    match what {
        DumpWhat::Chunks => {
            let chunks = idx.catalog.chunks_of(path)?;
            if g.json {
                let v: Vec<_> = chunks
                    .iter()
                    .map(|c| serde_json::json!({
                        "id": c.id, "start_line": c.chunk.start_line, "end_line": c.chunk.end_line,
                        "symbol": c.chunk.symbol, "header": c.chunk.header, "text": c.chunk.text,
                    }))
                    .collect();
                print_json(&v)?;
            } else {
                for c in &chunks {
                    println!(
                        "── {}:{}-{}  {}",
                        path,
                        c.chunk.start_line,
                        c.chunk.end_line,
                        c.chunk.symbol.as_ref().map(|s| s.0.as_str()).unwrap_or("")
                    );
                    println!("{}", c.chunk.header);
                    println!("{}", c.chunk.text);
                }
            }
        }
        DumpWhat::Symbols => {
            let symbols = idx.catalog.symbols_of(path)?;
            if g.json {
                print_json(&symbols.iter().map(|s| &s.symbol).collect::<Vec<_>>())?;
            } else {
                for s in &symbols {
                    let s = &s.symbol;
                    println!(
                        "{:>5}-{:<5} {:<11} {}  {}",
                        s.start_line,
                        s.end_line,
                        s.kind.as_str(),
                        s.qualified_name,
                        s.signature
                    );
                }
            }
        }
    }
    Ok(Outcome::Done)
}

pub fn export(g: &Global, what: ExportWhat) -> Result<Outcome> {
    let idx = open_index(g)?;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    match what {
        ExportWhat::Edges => return super::graph::export_edges(g, &[]),
        ExportWhat::Symbols => {
            for r in idx.catalog.all_symbols()? {
                let s = &r.symbol;
                let line = serde_json::json!({
                    "file": r.path, "symbol": s.qualified_name, "kind": s.kind.as_str(),
                    "line": s.name_line, "end_line": s.end_line, "start_line": s.start_line, "id": s.id,
                });
                writeln!(out, "{line}")?;
            }
        }
    }
    out.flush()?;
    Ok(Outcome::Done)
}

pub fn diff(g: &Global, from: Option<u64>, to: Option<u64>) -> Result<Outcome> {
    let idx = open_index(g)?;
    let snaps = idx.catalog.snapshots()?;
    let Some(last) = snaps.last() else {
        bail!("the index has no snapshot yet")
    };
    let to = to.unwrap_or(last.generation);
    let from = from.unwrap_or(to.saturating_sub(1));
    for gen_ in [from, to] {
        if gen_ != 0 && !snaps.iter().any(|s| s.generation == gen_) {
            bail!(
                "no snapshot {gen_}; snapshots run from 1 to {}",
                last.generation
            );
        }
    }
    let d = diff::diff(
        from,
        to,
        &idx.catalog.files_at(from)?,
        &idx.catalog.files_at(to)?,
        &idx.catalog.symbols_at(from)?,
        &idx.catalog.symbols_at(to)?,
    );
    if g.json {
        print_json(&d)?;
    } else {
        println!("snapshot {from} → {to}");
        for f in &d.files_added {
            println!("+ {f}");
        }
        for f in &d.files_removed {
            println!("- {f}");
        }
        for f in &d.files_changed {
            println!("~ {f}");
        }
        for s in &d.symbols_added {
            println!(
                "  + {} {} {}:{}",
                s.kind, s.qualified_name, s.path, s.start_line
            );
        }
        for s in &d.symbols_removed {
            println!(
                "  - {} {} {}:{}",
                s.kind, s.qualified_name, s.path, s.start_line
            );
        }
        for c in &d.symbols_changed {
            println!(
                "  ~ {} {} {}:{}",
                c.new.kind, c.new.qualified_name, c.new.path, c.new.start_line
            );
        }
        if d.is_empty() {
            println!("no changes");
        }
    }
    Ok(if d.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}
