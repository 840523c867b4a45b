//! `codemap impact`: what a diff changes and what that reaches (callers, entry points, tests,
//! modules, tables, topics and keys), as text, JSON or a review comment in Markdown.

use super::{Outcome, open_reader, print_json};
use crate::cli::{Global, ImpactArgs, ImpactFormat};
use anyhow::{Context, Result, bail};
use query::graph::{NoGraph, StoredGraph};
use query::impact::render;
use query::impact::report::{ReportOptions, report};
use query::{Asker, CallGraph};
use std::io::Read;
use std::path::Path;

pub fn impact(g: &Global, a: &ImpactArgs) -> Result<Outcome> {
    let reader = open_reader(g)?;
    let (repo_root, index_dir) = super::ask::query_dirs(g)?;
    let diff = diff_text(a, repo_root.as_deref())?;
    let asker =
        Asker::with_cache(reader.as_ref(), repo_root, index_dir).context("loading the snapshot")?;
    let view = asker.view()?;
    let stored = StoredGraph::available(reader.as_ref()).then(|| StoredGraph::new(reader.as_ref()));
    let graph: &dyn CallGraph = match &stored {
        Some(s) => s,
        None => &NoGraph,
    };
    let opts = ReportOptions {
        depth: a.depth,
        ..ReportOptions::default()
    };
    let r = report(&view, graph, &diff, &opts)?;
    let format = if g.json { ImpactFormat::Json } else { a.format };
    match format {
        ImpactFormat::Json => print_json(&r)?,
        ImpactFormat::Text => print!("{}", render::text(&r)),
        ImpactFormat::Markdown => print!(
            "{}",
            render::markdown(
                &r,
                render::REVIEW_COMMENT_LIMIT,
                "run `codemap impact` locally for the full report"
            )
        ),
    }
    Ok(if r.changes.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// The diff: a file, standard input, or `git diff A..B` in the repository.
fn diff_text(a: &ImpactArgs, repo_root: Option<&Path>) -> Result<String> {
    if let Some(range) = &a.git {
        let root = repo_root.context("--git needs the repository folder (--repo)")?;
        let o = std::process::Command::new("git")
            .current_dir(root)
            .args(["diff", "--no-color", "--no-ext-diff", range])
            .output()
            .context("running git")?;
        if !o.status.success() {
            bail!(
                "git diff {range} failed in {}: {}",
                root.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            );
        }
        return Ok(String::from_utf8_lossy(&o.stdout).into_owned());
    }
    match a.diff.as_deref() {
        None | Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading the diff from standard input")?;
            Ok(text)
        }
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("reading the diff {path}"))
        }
    }
}
