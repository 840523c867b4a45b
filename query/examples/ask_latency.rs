//! Latency of `ask` (index-only: understand, retrieve, plan, assemble) over many questions in one
//! process, for bench/ask.sh:
//!
//! ```sh
//! cargo run --release -p query --example ask_latency -- INDEX_DIR QUESTIONS.txt [--passes N] [--verbose] [--graph auto|stored|lexical]
//! ```
//!
//! `--graph auto` (the default) answers as `codemap ask` does: with the index's stored call graph
//! when it has one, else the lexical graph read from the snapshot.
//!
//! QUESTIONS.txt: one question a line; blank lines and lines starting with `#` are skipped.
//! Opens the index and builds the [`Asker`] (timed: "open"), answers one warm-up question that is
//! not in the set, then answers every question `--passes` times (default 1) and prints p50, p95
//! and max of pass 1 (each question seen for the first time by this process) and, with more passes,
//! of the later ones. Machine-readable lines start with `RESULT `.

use indexer::store::{EmbeddedIndex, IndexDir};
use query::{AskOptions, Asker, CallGraph, StoredGraph};
use std::process::ExitCode;
use std::time::Instant;

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with("--")
                && (*i == 0 || !matches!(args[i - 1].as_str(), "--passes" | "--graph"))
        })
        .map(|(_, a)| a)
        .collect();
    let passes: usize = args
        .iter()
        .position(|a| a == "--passes")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1);
    let verbose = args.iter().any(|a| a == "--verbose");
    let graph_choice = args
        .iter()
        .position(|a| a == "--graph")
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
        .unwrap_or("auto");
    let [index_dir, questions, ..] = positional.as_slice() else {
        eprintln!("usage: ask_latency INDEX_DIR QUESTIONS.txt [--passes N] [--verbose]");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(questions.as_str()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("reading {questions}: {e}");
            return ExitCode::from(2);
        }
    };
    let qs: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let t0 = Instant::now();
    let index = match EmbeddedIndex::open(&IndexDir::new(index_dir.as_str())) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("opening {index_dir}: {e}");
            return ExitCode::from(2);
        }
    };
    let asker = match Asker::new(&index) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("loading the snapshot: {e}");
            return ExitCode::from(2);
        }
    };
    let stored = StoredGraph::new(&index);
    let use_stored = match graph_choice {
        "stored" => true,
        "lexical" => false,
        _ => StoredGraph::available(&index),
    };
    let open_ms = t0.elapsed().as_secs_f64() * 1e3;
    let opts = AskOptions {
        graph: use_stored.then_some(&stored as &dyn CallGraph),
        ..AskOptions::default()
    };
    let t1 = Instant::now();
    if let Err(e) = asker.ask("where is the main entry point?", &opts) {
        eprintln!("warm-up question failed: {e}");
        return ExitCode::from(1);
    }
    let warmup_ms = t1.elapsed().as_secs_f64() * 1e3;
    println!(
        "open + view: {open_ms:.1} ms; warm-up question: {warmup_ms:.1} ms; {} questions, {passes} pass(es); {} call graph",
        qs.len(),
        if use_stored { "stored" } else { "lexical" }
    );
    let mut failed = 0;
    for pass in 1..=passes {
        let mut times: Vec<(f64, &str, usize)> = Vec::new();
        for q in &qs {
            let t = Instant::now();
            let cited = match asker.ask(q, &opts) {
                Ok(a) => a.citations.len(),
                Err(e) => {
                    eprintln!("failed: {q}: {e}");
                    failed += 1;
                    0
                }
            };
            times.push((t.elapsed().as_secs_f64() * 1e3, q, cited));
        }
        if verbose && pass == 1 {
            for (ms, q, n) in &times {
                println!("  {ms:8.1} ms  {n:>2} cit  {q}");
            }
        }
        let mut sorted: Vec<f64> = times.iter().map(|t| t.0).collect();
        sorted.sort_by(f64::total_cmp);
        let (p50, p95, max) = (pct(&sorted, 50.0), pct(&sorted, 95.0), pct(&sorted, 100.0));
        let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
        println!(
            "pass {pass}: p50 {p50:.1} ms  p95 {p95:.1} ms  max {max:.1} ms  mean {mean:.1} ms"
        );
        println!("RESULT pass={pass} p50_ms={p50:.2} p95_ms={p95:.2} max_ms={max:.2}");
        let mut slow = times.clone();
        slow.sort_by(|a, b| b.0.total_cmp(&a.0));
        if pass == 1 {
            println!("  slowest:");
            for (ms, q, _) in slow.iter().take(5) {
                println!("  {ms:8.1} ms  {q}");
            }
        }
    }
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
