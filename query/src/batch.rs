//! Batch mode: `{"id","question"}` JSONL in, `{"id","answer","citations"}` JSONL out (the format
//! the eval scorer reads). A bad line is reported and skipped; it never stops the batch.

use crate::QueryError;
use crate::ask::{AskOptions, Asker};
use crate::citation::Citation;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

#[derive(Debug, Deserialize)]
struct In {
    id: serde_json::Value,
    question: String,
}

#[derive(Debug, Serialize)]
struct Out<'a> {
    id: &'a serde_json::Value,
    answer: &'a str,
    citations: &'a [Citation],
}

/// What a batch run did.
#[derive(Debug, Default, Serialize)]
pub struct BatchReport {
    pub answered: usize,
    /// `(line number, error)` of lines that could not be answered.
    pub failed: Vec<(usize, String)>,
}

/// Answers every question of `input`, writing one JSON line per answered question.
pub fn run_batch(
    asker: &Asker<'_>,
    input: impl BufRead,
    mut output: impl Write,
    opts: &AskOptions<'_>,
) -> Result<BatchReport, QueryError> {
    let mut report = BatchReport::default();
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let item: In = match serde_json::from_str(&line) {
            Ok(i) => i,
            Err(e) => {
                report.failed.push((n + 1, format!("bad JSON: {e}")));
                continue;
            }
        };
        match asker.ask(&item.question, opts) {
            Ok(a) => {
                let out = Out {
                    id: &item.id,
                    answer: &a.answer,
                    citations: &a.citations,
                };
                serde_json::to_writer(&mut output, &out).map_err(std::io::Error::other)?;
                output.write_all(b"\n")?;
                report.answered += 1;
            }
            Err(e) => report.failed.push((n + 1, e.to_string())),
        }
    }
    output.flush()?;
    Ok(report)
}
