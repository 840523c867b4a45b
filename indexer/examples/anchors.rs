//! Reference workloads that `bench/index.sh` compares `codemap index` against (the "tv" anchor of
//! perf-anchors.md): plain tree-sitter parsing and a plain tantivy BM25 index of the same files.
//!
//! ```sh
//! cargo run --release -p indexer --example anchors -- parse DIR THREADS
//! cargo run --release -p indexer --example anchors -- tantivy DIR OUT THREADS
//! cargo run --release -p indexer --example anchors -- tantivy-code DIR OUT THREADS
//! ```
//!
//! `parse` reads every `.java` file under DIR into memory, then parses each with tree-sitter-java
//! on THREADS threads (one parser per thread). `tantivy` indexes one document per file (`path`
//! STRING stored, `body` TEXT with the default tokenizer) with THREADS writer threads and a
//! 100 MB budget per thread, then commits. `tantivy-code` is the same with codemap's code analyzer
//! on `body` (identifier splitting, whole identifiers, stemming): not an anchor of the ratio, but
//! what the analyzer the index needs costs on its own.

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tantivy::schema::{STORED, STRING, Schema, TEXT};
use tantivy::{Index, doc};
use tree_sitter::Parser;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["parse", dir, threads] => parse(Path::new(dir), threads.parse()?),
        ["tantivy", dir, out, threads] => {
            tantivy(Path::new(dir), Path::new(out), threads.parse()?, false)
        }
        ["tantivy-code", dir, out, threads] => {
            tantivy(Path::new(dir), Path::new(out), threads.parse()?, true)
        }
        _ => bail!("usage: anchors parse DIR THREADS | anchors tantivy DIR OUT THREADS"),
    }
}

/// Every `.java` file under `dir`, sorted (hidden files and ignore files are not special).
fn java_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .build()
    {
        let entry = entry?;
        if entry.file_type().is_some_and(|t| t.is_file())
            && entry.path().extension().is_some_and(|e| e == "java")
        {
            files.push(entry.into_path());
        }
    }
    files.sort();
    Ok(files)
}

fn parse(dir: &Path, threads: usize) -> Result<()> {
    let start = Instant::now();
    let sources = java_files(dir)?
        .iter()
        .map(|p| std::fs::read(p).with_context(|| format!("reading {}", p.display())))
        .collect::<Result<Vec<_>>>()?;
    let read_s = start.elapsed().as_secs_f64();

    thread_local! {
        static PARSER: RefCell<Parser> = RefCell::new({
            let mut p = Parser::new();
            p.set_language(&tree_sitter_java::LANGUAGE.into()).expect("tree-sitter-java loads");
            p
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let parse_start = Instant::now();
    let with_errors = pool.install(|| {
        sources
            .par_iter()
            .filter(|src| {
                PARSER.with_borrow_mut(|p| {
                    p.parse(src, None).is_none_or(|t| t.root_node().has_error())
                })
            })
            .count()
    });
    let parse_s = parse_start.elapsed().as_secs_f64();
    let bytes: usize = sources.iter().map(Vec::len).sum();
    println!(
        "parse: files={} bytes={bytes} threads={threads} read_s={read_s:.3} parse_s={parse_s:.3} total_s={:.3} files_with_errors={with_errors}",
        sources.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn tantivy(dir: &Path, out: &Path, threads: usize, code: bool) -> Result<()> {
    let start = Instant::now();
    let mut schema = Schema::builder();
    let path_f = schema.add_text_field("path", STRING | STORED);
    let body_f = if code {
        let opts = tantivy::schema::TextOptions::default().set_indexing_options(
            tantivy::schema::TextFieldIndexing::default()
                .set_tokenizer(indexer::analyzer::CODE_TOKENIZER)
                .set_index_option(tantivy::schema::IndexRecordOption::WithFreqsAndPositions),
        );
        schema.add_text_field("body", opts)
    } else {
        schema.add_text_field("body", TEXT)
    };
    std::fs::create_dir_all(out)?;
    let index = Index::create_in_dir(out, schema.build())
        .with_context(|| format!("creating {}", out.display()))?;
    indexer::analyzer::register(&index);
    let mut writer: tantivy::IndexWriter =
        index.writer_with_num_threads(threads, threads * 100_000_000)?;
    let files = java_files(dir)?;
    for path in &files {
        let body = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let rel = path.strip_prefix(dir).unwrap_or(path).to_string_lossy();
        writer.add_document(
            doc!(path_f => rel.as_ref(), body_f => String::from_utf8_lossy(&body).as_ref()),
        )?;
    }
    writer.commit()?;
    writer.wait_merging_threads()?;
    let size: u64 = std::fs::read_dir(out)?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    println!(
        "tantivy: files={} threads={threads} budget_mb={} seconds={:.3} index_bytes={size}",
        files.len(),
        threads * 100,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
