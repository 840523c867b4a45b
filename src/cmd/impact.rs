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
    let indexed = reader.last_snapshot()?.and_then(|s| s.commit);
    let (diff, side) = match &a.git {
        Some(range) => {
            // The work tree git runs in: --repo when given (the index may live elsewhere).
            let root = g.repo.clone().or(repo_root.clone());
            let root = root.context("--git needs the repository folder (--repo)")?;
            git_diff(&root, range, indexed.as_deref())?
        }
        None => (diff_text(a)?, Side::Old),
    };
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
    let r = match side {
        Side::Old => r,
        Side::New { deleted } => r.seen_from_head(&deleted),
    };
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

/// Which side of the diff the index holds.
enum Side {
    /// The old side: the diff reads forwards.
    Old,
    /// The new side: the diff was taken backwards (so its old side is the indexed revision, and
    /// every line cited is one of it); `deleted` lists the files the forward diff deletes.
    New { deleted: Vec<String> },
}

/// `git diff` of a range, taken so that its old side is the revision the index holds: forwards
/// from an index at the range's start, backwards from one at its end. An index at neither end
/// is an error naming both; a single revision, or an index outside git, diffs as given.
fn git_diff(root: &Path, range: &str, indexed: Option<&str>) -> Result<(String, Side)> {
    let git = |args: &[&str]| -> Result<String> {
        let o = std::process::Command::new("git")
            .current_dir(root)
            .args(args)
            .output()
            .context("running git")?;
        if !o.status.success() {
            bail!(
                "git {} failed in {}: {}",
                args.join(" "),
                root.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let diff = |from: &str, to: &str| git(&["diff", "--no-color", "--no-ext-diff", from, to]);
    let (Some((from, to, merge_base)), Some(indexed)) = (split_range(range), indexed) else {
        return Ok((
            git(&["diff", "--no-color", "--no-ext-diff", range])?,
            Side::Old,
        ));
    };
    let commit = |rev: &str| -> Result<String> {
        Ok(
            git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")])?
                .trim()
                .to_string(),
        )
    };
    let head = commit(to)?;
    let base = if merge_base {
        git(&["merge-base", from, to])?.trim().to_string()
    } else {
        commit(from)?
    };
    if indexed == base {
        return Ok((diff(&base, &head)?, Side::Old));
    }
    if indexed == head {
        let deleted = git(&["diff", "--name-only", "-z", "--diff-filter=D", &base, &head])?
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        return Ok((diff(&head, &base)?, Side::New { deleted }));
    }
    bail!(
        "the index is at commit {}, neither end of {range} ({} .. {}): index the repository at {from} or at {to} \
         (`git checkout {to} && codemap index`), or diff from the indexed commit (`--git {}..{to}`)",
        short(indexed),
        short(&base),
        short(&head),
        short(indexed),
    )
}

/// `A..B` → (A, B, false), `A...B` → (A, B, true: from their merge base); an empty end is
/// `HEAD`. `None` for a single revision.
fn split_range(range: &str) -> Option<(&str, &str, bool)> {
    let (from, to, merge_base) = match range.split_once("...") {
        Some((f, t)) => (f, t, true),
        None => {
            let (f, t) = range.split_once("..")?;
            (f, t, false)
        }
    };
    Some((or_head(from), or_head(to), merge_base))
}

fn or_head(rev: &str) -> &str {
    if rev.is_empty() { "HEAD" } else { rev }
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// The diff: a file, or standard input.
fn diff_text(a: &ImpactArgs) -> Result<String> {
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

#[cfg(test)]
mod tests {
    use super::split_range;

    #[test]
    fn ranges_split_into_their_ends() {
        assert_eq!(split_range("main..HEAD"), Some(("main", "HEAD", false)));
        assert_eq!(split_range("main...topic"), Some(("main", "topic", true)));
        assert_eq!(split_range("HEAD~1.."), Some(("HEAD~1", "HEAD", false)));
        assert_eq!(split_range("v1.2"), None);
    }
}
