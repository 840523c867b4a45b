//! Batch `ask` over an index, for evaluation and CI:
//!
//! ```sh
//! cargo run -p query --example ask_batch -- INDEX_DIR IN.jsonl OUT.jsonl [--level surface|structured|full]
//! python3 shared/eval/score.py shared/eval/qa-public.jsonl OUT.jsonl
//! ```
//!
//! Reads `{"id","question"}` lines, writes `{"id","answer","citations"}` lines. Index-only (no LLM).

use indexer::store::{EmbeddedIndex, IndexDir};
use query::{AskOptions, Asker, Level, run_batch};
use std::io::{BufReader, BufWriter};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let level = args
        .iter()
        .position(|a| a == "--level")
        .and_then(|i| args.get(i + 1))
        .map(|l| l.parse::<Level>())
        .transpose();
    let (Ok(level), [index_dir, input, output, ..]) = (level, positional.as_slice()) else {
        eprintln!(
            "usage: ask_batch INDEX_DIR IN.jsonl OUT.jsonl [--level surface|structured|full]"
        );
        return ExitCode::from(2);
    };
    let run = || -> Result<query::BatchReport, Box<dyn std::error::Error>> {
        let index = EmbeddedIndex::open(&IndexDir::new(index_dir.as_str()))?;
        let asker = Asker::new(&index)?;
        let stored = query::StoredGraph::new(&index);
        let opts = AskOptions {
            level: level.unwrap_or_default(),
            graph: std::env::var_os("ASK_STORED_GRAPH").map(|_| &stored as &dyn query::CallGraph),
            ..AskOptions::default()
        };
        let input = BufReader::new(std::fs::File::open(input.as_str())?);
        let output = BufWriter::new(std::fs::File::create(output.as_str())?);
        Ok(run_batch(&asker, input, output, &opts)?)
    };
    match run() {
        Ok(report) => {
            eprintln!(
                "answered {} question(s), {} failed",
                report.answered,
                report.failed.len()
            );
            for (line, err) in &report.failed {
                eprintln!("  line {line}: {err}");
            }
            if report.failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
