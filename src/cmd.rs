//! One module per command family; this file resolves where the index is and dispatches.

mod index;
mod inspect;
mod search;
mod watch;

use crate::cli::{Cli, Command, Global};
use anyhow::{Context, Result};
use indexer::store::{EmbeddedIndex, IndexDir};
use std::path::{Path, PathBuf};

/// How a command ended, for the exit code.
pub enum Outcome {
    Done,
    NothingFound,
}

pub fn run(cli: Cli) -> Result<Outcome> {
    let g = &cli.global;
    match cli.command {
        Command::Index(a) => index::index(g, &a),
        Command::Watch(a) => watch::watch(g, &a),
        Command::Status { verbose } => inspect::status(g, verbose),
        Command::Search { query, limit } => search::search(g, &query, limit),
        Command::Symbol { name } => search::symbol(g, &name),
        Command::Dump { what, file } => inspect::dump(g, what, &file),
        Command::Export { what } => inspect::export(g, what),
        Command::Diff { from, to } => inspect::diff(g, from, to),
    }
}

/// The repository root and index folder for a command that writes (`index`, `watch`).
fn write_target(g: &Global, path: Option<&Path>) -> Result<(PathBuf, IndexDir)> {
    let root = path
        .map(Path::to_path_buf)
        .or_else(|| g.repo.clone())
        .unwrap_or_else(|| PathBuf::from("."));
    let root = root
        .canonicalize()
        .with_context(|| format!("repository root {} not found", root.display()))?;
    let dir = g.index_dir.clone().unwrap_or_else(|| root.join(".codemap"));
    Ok((root, IndexDir::new(dir)))
}

/// The index folder a read command uses: `--index-dir`, else `.codemap` in `--repo` or the
/// nearest directory upwards from the current one that has one.
fn read_target(g: &Global) -> Result<IndexDir> {
    if let Some(d) = &g.index_dir {
        return Ok(IndexDir::new(d));
    }
    let start = g.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let start = start
        .canonicalize()
        .with_context(|| format!("repository {} not found", start.display()))?;
    for dir in start.ancestors() {
        let candidate = IndexDir::new(dir.join(".codemap"));
        if candidate.exists() {
            return Ok(candidate);
        }
    }
    anyhow::bail!(
        "no index found in {} or its parents; run `codemap index` there first (or pass --index-dir)",
        start.display()
    )
}

fn open_index(g: &Global) -> Result<EmbeddedIndex> {
    let dir = read_target(g)?;
    EmbeddedIndex::open(&dir)
        .with_context(|| format!("opening the index in {}", dir.root().display()))
}

fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}
