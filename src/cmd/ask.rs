//! `codemap ask`: one question, or a batch file of them.

use super::{Outcome, open_reader, print_json, read_target};
use crate::cli::{AskArgs, Backend, Global};
use anyhow::{Context, Result};
use query::graph::StoredGraph;
use query::{AskOptions, Asker, CallGraph, ChatModel, Level, LlmConfig, OpenAiChat, VectorLeg};
use std::io::{BufReader, Write};

pub fn ask(g: &Global, a: &AskArgs) -> Result<Outcome> {
    let reader = open_reader(g)?;
    // The tables the answers are ranked from are derived once per snapshot and kept in the
    // embedded index folder, or (Meilisearch) in the user's cache folder.
    let (repo_root, index_dir) = match g.backend {
        Backend::Embedded => {
            let dir = read_target(g)?;
            (
                dir.root().parent().map(|p| p.to_path_buf()),
                Some(dir.root().to_path_buf()),
            )
        }
        Backend::Meilisearch => (g.repo.clone(), meili_cache_dir(g)),
    };
    let asker =
        Asker::with_cache(reader.as_ref(), repo_root, index_dir).context("loading the snapshot")?;
    let llm = match &a.llm_url {
        Some(url) => Some(
            OpenAiChat::new(LlmConfig {
                base_url: url.clone(),
                model: a.llm_model.clone(),
                api_key_env: std::env::var(&a.llm_key_env)
                    .is_ok()
                    .then(|| a.llm_key_env.clone()),
                timeout_secs: a.llm_timeout,
                retries: 2,
                max_tokens: 1200,
            })
            .context("configuring the LLM endpoint")?,
        ),
        None => None,
    };
    let level: Level = a.level.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    // The stored call graph when the index has one (embedded backend); else `ask` reads call
    // sites from the snapshot text.
    let embedded = match g.backend {
        Backend::Embedded => Some(super::open_index(g)?),
        Backend::Meilisearch => None,
    };
    let stored = embedded
        .as_ref()
        .filter(|i| StoredGraph::available(&i.catalog))
        .map(|i| StoredGraph::new(&i.catalog));
    // Vectors live beside the embedded index only.
    let vectors = match &embedded {
        Some(i) => super::embed::vector_leg(&a.embedder, i.dir.root(), &i.catalog)?,
        None => None,
    };
    let opts = AskOptions {
        level,
        limit: a.limit,
        token_budget: a.budget,
        llm: llm.as_ref().map(|l| l as &dyn ChatModel),
        graph: stored.as_ref().map(|s| s as &dyn CallGraph),
        vectors: vectors.as_ref().map(|v| v as &dyn VectorLeg),
        ..Default::default()
    };
    if let Some(path) = &a.batch {
        let input =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let report = query::run_batch(&asker, BufReader::new(input), &mut out, &opts)?;
        out.flush()?;
        for (line, err) in &report.failed {
            eprintln!("{}:{line}: {err}", path.display());
        }
        eprintln!(
            "answered {} questions, {} lines failed",
            report.answered,
            report.failed.len()
        );
        return Ok(if report.answered == 0 {
            Outcome::NothingFound
        } else {
            Outcome::Done
        });
    }
    let question = a.question.as_deref().unwrap_or_default();
    let answer = asker.ask(question, &opts)?;
    if g.json {
        print_json(&answer)?;
    } else {
        print!("{}", query::render_text(&answer));
    }
    Ok(if answer.citations.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// `$XDG_CACHE_HOME/codemap/meili-<scope>` (else `~/.cache/...`): where `ask` keeps the view tables
/// of a Meilisearch-backed repository (server, prefix and repository scope).
fn meili_cache_dir(g: &Global) -> Option<std::path::PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))?;
    let repo = match &g.repo_name {
        Some(r) => r.clone(),
        None => super::repo_name(
            &g.repo
                .clone()
                .unwrap_or_else(|| std::path::PathBuf::from("."))
                .canonicalize()
                .ok()?,
        ),
    };
    let scope = format!(
        "{}|{}|{}",
        g.meili_url.as_deref().unwrap_or(""),
        g.meili_prefix,
        repo
    );
    Some(base.join("codemap").join(format!(
        "meili-{:016x}",
        query::viewdata::fnv64(scope.as_bytes())
    )))
}
