//! `codemap ask`: one question, or a batch file of them.

use super::{Outcome, open_reader, print_json, read_target};
use crate::cli::{AskArgs, Backend, Global, LlmArgs};
use anyhow::{Context, Result};
use query::graph::StoredGraph;
use query::{AskOptions, Asker, CallGraph, ChatModel, Level, LlmConfig, OpenAiChat, VectorLeg};
use std::io::{BufReader, Write};

pub fn ask(g: &Global, a: &AskArgs) -> Result<Outcome> {
    if a.list_rules {
        print_rules(g.json);
        return Ok(Outcome::Done);
    }
    let rules = query::retrieve::RuleSet::parse(&a.rules).context("--rules")?;
    let (repo_root, index_dir) = query_dirs(g)?;
    let reader: Box<dyn indexer::store::IndexRead> = match g.backend {
        // The batch's copy of the keyword index goes beside the view tables.
        Backend::Meilisearch if a.memory_copy => Box::new(
            super::meili_published(g)?
                .with_search_dir(index_dir.as_ref().map(|d| d.join("search"))),
        ),
        _ => open_reader(g)?,
    };
    let asker =
        Asker::with_cache(reader.as_ref(), repo_root, index_dir).context("loading the snapshot")?;
    let llm = a
        .llm
        .llm_url
        .as_ref()
        .map(|url| chat(url, &a.llm, 1200))
        .transpose()?;
    let level: Level = a.level.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    // The stored call graph when the index has one (either backend); else `ask` reads call
    // sites from the snapshot text.
    let stored = StoredGraph::available(reader.as_ref()).then(|| StoredGraph::new(reader.as_ref()));
    // Vectors: beside the embedded index, or on the server in team mode.
    let server = match g.backend {
        Backend::Meilisearch => Some(super::meili_published(g)?),
        Backend::Embedded => None,
    };
    let vectors: Option<Box<dyn VectorLeg + '_>> = match &server {
        None => {
            let idx = super::open_index(g)?;
            super::embed::vector_leg(&a.embedder, idx.dir.root(), &idx.catalog)?
                .map(|v| Box::new(v) as Box<dyn VectorLeg>)
        }
        Some(store) => {
            super::embed::server_leg(&a.embedder, store)?.map(|v| Box::new(v) as Box<dyn VectorLeg>)
        }
    };
    let opts = AskOptions {
        level,
        limit: a.limit,
        token_budget: a.budget,
        llm: llm.as_ref().map(|l| l as &dyn ChatModel),
        llm_rerank: !a.no_rerank,
        graph: stored.as_ref().map(|s| s as &dyn CallGraph),
        vectors: vectors.as_deref(),
        rules,
        ..Default::default()
    };
    if let Some(path) = &a.batch {
        let input =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        // A team index is searched on the server, unless asked to copy its chunks into a
        // search in memory first (read once, for a long batch on a server far away).
        if a.memory_copy {
            reader
                .warm_search()
                .context("reading the snapshot's chunks for keyword search")?;
        }
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
    let question = match a.question.as_deref() {
        // `git diff | codemap ask -`, or a long question in a file.
        Some("-") => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .context("reading the question from standard input")?;
            text
        }
        q => q.unwrap_or_default().to_string(),
    };
    let answer = asker.ask(&question, &opts)?;
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

/// The repository root (for freshness) and the folder of the query side's derived files: the
/// view tables, derived once per snapshot, and the LLM summaries. The embedded index folder, or
/// (Meilisearch) a folder in the user's cache.
pub(super) fn query_dirs(
    g: &Global,
) -> Result<(Option<std::path::PathBuf>, Option<std::path::PathBuf>)> {
    Ok(match g.backend {
        Backend::Embedded => {
            let dir = read_target(g)?;
            (
                dir.root().parent().map(|p| p.to_path_buf()),
                Some(dir.root().to_path_buf()),
            )
        }
        Backend::Meilisearch => (g.repo.clone(), meili_cache_dir(g)),
    })
}

/// A chat client from the `--llm-*` flags.
pub(super) fn chat(url: &str, a: &LlmArgs, max_tokens: u32) -> Result<OpenAiChat> {
    OpenAiChat::new(LlmConfig {
        base_url: url.to_string(),
        model: a.llm_model.clone(),
        api_key_env: std::env::var(&a.llm_key_env)
            .is_ok()
            .then(|| a.llm_key_env.clone()),
        timeout_secs: a.llm_timeout,
        retries: 2,
        max_tokens,
    })
    .context("configuring the LLM endpoint")
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

/// `codemap ask --list-rules`: the ranking rules in the order they run.
fn print_rules(json: bool) {
    use query::retrieve::rules::{Stage, Weight};
    for r in query::retrieve::rules::all() {
        let (stage, weight) = match r.stage {
            Stage::Pin => ("pin", String::new()),
            Stage::Leg(Weight::Fixed(w)) => ("leg", format!("{w}")),
            Stage::Leg(Weight::Embedder) => ("leg", "embedder".to_string()),
            Stage::Factor => ("factor", String::new()),
            Stage::Lift => ("lift", String::new()),
        };
        if json {
            println!(
                "{}",
                serde_json::json!({"name": r.name, "stage": stage, "weight": weight,
                    "reads": r.reads, "changes": r.changes})
            );
        } else {
            println!("{}\t{stage}\t{weight}\t{}\t{}", r.name, r.reads, r.changes);
        }
    }
}
