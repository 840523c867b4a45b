//! Builds the call graph of a source tree in memory and prints its edges as JSONL, the format
//! `codemap export edges` writes, without an index (fast iteration on resolution):
//!
//! ```sh
//! cargo run --release -p indexer --example graph_edges -- /work/corpora/commons-io-2.11.0 > /tmp/e.jsonl
//! python3 /work/shared/eval/score_callgraph.py /work/shared/eval/callgraph-commons-io.jsonl /tmp/e.jsonl
//! ```
//!
//! `--all-kinds` adds the type edges (inherits, implements, overrides); timings go to stderr.

use indexer::RepoPath;
use indexer::graph::{self, FileFacts};
use indexer::lang::{self, ParseLimits};
use rayon::prelude::*;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let all_kinds = args.iter().any(|a| a == "--all-kinds");
    args.retain(|a| a != "--all-kinds");
    let [root] = &args[..] else {
        anyhow::bail!("usage: graph_edges [--all-kinds] <source root>");
    };
    let root = PathBuf::from(root);
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Some(rel) = path
                .strip_prefix(&root)
                .ok()
                .and_then(|p| RepoPath::new(&p.to_string_lossy()))
                && let Some(language) = lang::detect(&rel)
            {
                files.push((path, rel, language));
            }
        }
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    let t0 = Instant::now();
    let limits = ParseLimits::default();
    let analysed: Vec<(RepoPath, Option<Box<FileFacts>>)> = files
        .par_iter()
        .map(|(abs, rel, language)| {
            let src = std::fs::read(abs).unwrap_or_default();
            let a = lang::analyze(*language, rel, "corpus", &src, &limits);
            (rel.clone(), a.facts)
        })
        .collect();
    let t1 = Instant::now();
    let inputs: Vec<(&RepoPath, &FileFacts)> = analysed
        .iter()
        .filter_map(|(p, f)| f.as_deref().map(|f| (p, f)))
        .collect();
    // `GRAPH_REPEAT=n` builds the graph n times (profiling resolution alone).
    let repeat: usize = std::env::var("GRAPH_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut groups = graph::build(&inputs);
    for _ in 1..repeat {
        groups = graph::build(&inputs);
    }
    let mut edges: Vec<graph::Edge> = groups.into_iter().flat_map(|g| g.1).collect();
    let t2 = Instant::now();
    eprintln!(
        "{} files, {} edges; analyse {:.2}s, resolve {:.2}s",
        inputs.len(),
        edges.len(),
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64()
    );
    if std::env::var_os("GRAPH_QUIET").is_some() {
        return Ok(());
    }
    let mut w = BufWriter::new(std::io::stdout().lock());
    for e in &mut edges {
        if !all_kinds && !e.kind.is_flow() {
            continue;
        }
        e.normalize_names();
        let rec = serde_json::json!({
            "caller_file": e.caller_file, "caller_symbol": e.caller_name,
            "callee_file": e.callee_file, "callee_symbol": e.callee_name,
            "line": e.line, "kind": e.kind.as_str(), "confidence": e.confidence,
        });
        writeln!(w, "{rec}")?;
    }
    w.flush()?;
    Ok(())
}
