//! One module per command family; this file resolves where the index is and dispatches.

mod ask;
mod bot;
mod bot_register;
mod docgen;
mod docgen_serve;
mod embed;
mod graph;
mod impact;
mod index;
mod inspect;
mod mcp;
mod search;
mod summarize;
mod watch;

use crate::cli::{Backend, BotAction, Cli, Command, ExportWhat, Global};
use anyhow::{Context, Result};
use indexer::store::meilisearch::{MeiliConfig, MeiliStore};
use indexer::store::{EmbeddedIndex, IndexDir, IndexRead};
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
        Command::Ask(a) => ask::ask(g, &a),
        Command::Summarize(a) => summarize::run(g, &a),
        Command::Embed(a) => embed::embed(g, &a),
        Command::Symbol { name } => search::symbol(g, &name),
        Command::Dump { what, file } => inspect::dump(g, what, &file),
        Command::Export {
            what: ExportWhat::Edges,
            kinds,
        } => graph::export_edges(g, &kinds),
        Command::Export { what, .. } => inspect::export(g, what),
        Command::Callers(a) => graph::callers(g, &a),
        Command::Callees(a) => graph::callees(g, &a),
        Command::Path {
            from,
            to,
            max_depth,
            limit,
        } => graph::path(g, &from, &to, max_depth, limit),
        Command::Diff { from, to } => inspect::diff(g, from, to),
        Command::Docgen(a) => docgen::docgen(g, &a),
        Command::Bot(c) => match (c.action, c.run) {
            (Some(BotAction::RegisterCommands(a)), _) => bot_register::register_commands(&a),
            (None, Some(a)) => bot::bot(&a),
            (None, None) => anyhow::bail!(
                "codemap bot needs --config FILE (or: codemap bot register-commands --config FILE)"
            ),
        },
        Command::Impact(a) => impact::impact(g, &a),
        Command::Mcp(a) => mcp::mcp(g, &a),
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

/// The reader for query commands: the local folder, or the Meilisearch server in team mode.
fn open_reader(g: &Global) -> Result<Box<dyn IndexRead>> {
    match g.backend {
        Backend::Embedded => Ok(Box::new(open_index(g)?)),
        Backend::Meilisearch => Ok(Box::new(meili_published(g)?)),
    }
}

/// The Meilisearch store of the repository scope, which must have a published snapshot: a scope
/// guessed from the wrong folder would otherwise answer every question with "nothing matched".
fn meili_published(g: &Global) -> Result<MeiliStore> {
    let repo = repo_scope(g)?;
    let store = meili(g, &repo)?;
    let published = store
        .last_snapshot()
        .context("reading the published snapshot from Meilisearch")?;
    if published.is_none() {
        anyhow::bail!(
            "Meilisearch has no snapshot published for repository {repo:?} (index prefix {:?}). \
             Pass --repo-name with the name `codemap index --backend meilisearch` published it under \
             (the repository folder's name unless --repo-name was given there), or run from the \
             repository folder.",
            g.meili_prefix
        );
    }
    Ok(store)
}

/// The repository scope of team-mode reads: `--repo-name`, else the repository folder's name.
fn repo_scope(g: &Global) -> Result<String> {
    Ok(match &g.repo_name {
        Some(r) => r.clone(),
        None => {
            let dir = g.repo.clone().unwrap_or_else(|| PathBuf::from("."));
            repo_name(
                &dir.canonicalize()
                    .with_context(|| format!("repository {} not found", dir.display()))?,
            )
        }
    })
}

/// A Meilisearch store for `repo` from the global flags.
fn meili(g: &Global, repo: &str) -> Result<MeiliStore> {
    let url = g
        .meili_url
        .clone()
        .context("--backend meilisearch needs --meili-url URL (or MEILI_URL)")?;
    let key = std::env::var(&g.meili_key_env).ok();
    MeiliStore::connect(MeiliConfig::new(url, key, g.meili_prefix.clone(), repo))
        .context("connecting to Meilisearch")
}

/// The default repository scope: the root folder's name.
fn repo_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".into())
}

fn print_json<T: serde::Serialize>(v: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}
