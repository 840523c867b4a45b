//! Plain BM25 file ranking, the baseline of bench/buglocal.sh: each case's text goes as is to the
//! index's full-text search (tantivy BM25 over chunks: symbols, header and body, unboosted — the index's
//! own field weights, none of ask's legs, boosts or intent logic), and files are ranked by their
//! best chunk (max over chunks).
//!
//! ```sh
//! cargo run --release -p query --example bm25_files -- INDEX_DIR CASES.jsonl OUT.jsonl [--field query] [--depth 2000]
//! ```
//!
//! CASES.jsonl: one JSON object a line with `id` and the text in `--field` (default `query`, as in
//! shared/eval/buglocal-*.jsonl). OUT.jsonl: `{"id", "files": [ranked paths]}`, what
//! score_buglocal.py reads.

use indexer::store::{EmbeddedIndex, IndexDir, IndexRead};
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let field = opt("--field").unwrap_or_else(|| "query".into());
    let depth: usize = opt("--depth").and_then(|d| d.parse().ok()).unwrap_or(2000);
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            !a.starts_with("--")
                && (*i == 0 || !matches!(args[i - 1].as_str(), "--field" | "--depth"))
        })
        .map(|(_, a)| a)
        .collect();
    let [index_dir, cases, out, ..] = positional.as_slice() else {
        eprintln!(
            "usage: bm25_files INDEX_DIR CASES.jsonl OUT.jsonl [--field query] [--depth 2000]"
        );
        return ExitCode::from(2);
    };
    let run = || -> Result<usize, Box<dyn std::error::Error>> {
        let index = EmbeddedIndex::open(&IndexDir::new(index_dir.as_str()))?;
        let input = std::io::BufReader::new(std::fs::File::open(cases.as_str())?);
        let mut w = BufWriter::new(std::fs::File::create(out.as_str())?);
        let mut n = 0;
        for line in input.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let case: serde_json::Value = serde_json::from_str(&line)?;
            let text = case
                .get(&field)
                .and_then(|t| t.as_str())
                .unwrap_or_default();
            let mut files: Vec<String> = Vec::new();
            for (_, path, _) in index.search_chunks(text, depth)? {
                if !files.contains(&path) {
                    files.push(path);
                }
            }
            let row = serde_json::json!({"id": case.get("id"), "files": files});
            serde_json::to_writer(&mut w, &row)?;
            w.write_all(b"\n")?;
            n += 1;
        }
        w.flush()?;
        Ok(n)
    };
    match run() {
        Ok(n) => {
            eprintln!("ranked files for {n} case(s)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
