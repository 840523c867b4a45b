//! `codemap embed`, and the vector leg `ask` picks (`--embedder`, default auto).

use super::{Outcome, open_index, print_json, read_target};
use crate::cli::{Backend, EmbedArgs, EmbedderArgs, Global};
use anyhow::{Context, Result};
use embed::{EmbedderSpec, Remote, RunOptions, VectorStore};
use indexer::store::catalog::Catalog;
use indicatif::{ProgressBar, ProgressStyle};
use query::{DenseVectors, Embedder};
use std::path::Path;

fn spec(a: &EmbedderArgs) -> Result<EmbedderSpec> {
    a.embedder
        .parse()
        .map_err(|e: String| anyhow::anyhow!(e))
        .context("--embedder (or CODEMAP_EMBEDDER)")
}

fn remote(a: &EmbedderArgs) -> Remote {
    Remote {
        url: a.embed_url.clone(),
        model: a.embed_model.clone(),
        dim: a.embed_dim,
        key_env: std::env::var(&a.embed_key_env)
            .is_ok()
            .then(|| a.embed_key_env.clone()),
        timeout_secs: 60.0,
    }
}

fn open_embedder(s: &EmbedderSpec, a: &EmbedderArgs) -> Result<Box<dyn Embedder>> {
    s.open(&remote(a))
        .with_context(|| format!("loading the embedder `{}`", a.embedder))?
        .context("no embedder named")
}

pub fn embed(g: &Global, a: &EmbedArgs) -> Result<Outcome> {
    // Vectors are computed beside the embedded index, which in team mode is the indexer's
    // working copy; then they are sent to Meilisearch.
    let dir = read_target(g)?;
    let index = open_index(g)?;
    let s = match spec(&a.embedder)? {
        EmbedderSpec::Auto => EmbedderSpec::Pocket,
        EmbedderSpec::None => anyhow::bail!("--embedder none: nothing to embed with"),
        s => s,
    };
    let embedder = open_embedder(&s, &a.embedder)?;
    let mut store = VectorStore::open(dir.root())
        .with_context(|| format!("opening the vector store in {}", dir.root().display()))?;
    let bar = if a.quiet || g.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} embedding [{bar:30}] {pos}/{len} texts ({per_sec}, {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let opts = RunOptions {
        batch: a.batch.max(1),
        limit: a.limit,
    };
    let result = embed::embed_snapshot(
        &index.catalog,
        &mut store,
        embedder.as_ref(),
        &opts,
        &mut |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    let r = result.with_context(|| {
        format!(
            "embedding with {} stopped (batches already written are kept; run `codemap embed` again to continue)",
            embedder.model_id()
        )
    })?;
    let sync = if g.backend == Backend::Meilisearch {
        let vectors = embed::current_vectors(dir.root(), &index.catalog, &r.model)
            .context("reading stored vectors")?;
        let store = super::meili_published(g)?;
        let s = store
            .sync_vectors(&r.model, embedder.dim(), &vectors)
            .context("sending vectors to Meilisearch (run `codemap embed` again to retry)")?;
        Some(s)
    } else {
        None
    };
    if g.json {
        let mut v = serde_json::to_value(&r)?;
        if let Some(s) = &sync {
            v["meilisearch"] =
                serde_json::json!({"sent": s.sent, "present": s.present, "missing": s.missing});
        }
        print_json(&v)?;
    } else {
        if let Some(s) = &sync {
            println!(
                "Meilisearch: {} vectors sent, {} already there, {} chunks still without one",
                s.sent, s.present, s.missing
            );
        }
        let rate = if r.secs > 0.0 {
            r.embedded as f64 / r.secs
        } else {
            0.0
        };
        println!(
            "{} chunks, model {}: {} embedded, {} reused a stored vector, {} already had one; {} left{}; {} stale removed; {:.1} s ({:.1} texts/s)",
            r.chunks,
            r.model,
            r.embedded,
            r.reused,
            r.had,
            r.left,
            if r.left > 0 {
                " (run again to continue)"
            } else {
                ""
            },
            r.pruned,
            r.secs,
            rate
        );
    }
    Ok(Outcome::Done)
}

/// The vector leg for `ask` over the embedded index in `dir`: the named embedder's stored
/// vectors, or with `auto` pocket's when `codemap embed` stored some (and this build has pocket).
/// `None` (and a note on stderr when an embedder was named) when there are none.
pub fn vector_leg(a: &EmbedderArgs, dir: &Path, catalog: &Catalog) -> Result<Option<DenseVectors>> {
    let s = match spec(a)? {
        EmbedderSpec::None => return Ok(None),
        EmbedderSpec::Auto => match EmbedderSpec::auto_model() {
            Some(model) if embed::leg::has_vectors(dir, &model)? => EmbedderSpec::Pocket,
            _ => return Ok(None),
        },
        s => s,
    };
    let embedder = open_embedder(&s, a)?;
    let model = embedder.model_id();
    let started = std::time::Instant::now();
    match embed::load_leg(dir, catalog, embedder).context("reading stored vectors")? {
        Some((leg, chunks)) => {
            let leg = leg.with_weight(s.leg_weight());
            tracing::info!(
                model,
                vectors = leg.len(),
                chunks,
                ms = started.elapsed().as_millis() as u64,
                "vector leg loaded"
            );
            if leg.len() < chunks {
                tracing::info!(
                    "{} of {chunks} chunks have no {model} vector yet; `codemap embed` adds them",
                    chunks - leg.len()
                );
            }
            Ok(Some(leg))
        }
        None => {
            eprintln!(
                "note: no {model} vectors in {}; answering without the vector leg (run `codemap embed --embedder {}` first)",
                dir.display(),
                a.embedder
            );
            Ok(None)
        }
    }
}

/// The vector leg for `ask` in team mode: the named embedder's vectors on the server, or with
/// `auto` pocket's when `codemap embed --backend meilisearch` sent some.
pub fn server_leg<'s>(
    a: &EmbedderArgs,
    store: &'s indexer::store::meilisearch::MeiliStore,
) -> Result<Option<query::ServerVectors<'s>>> {
    let s = match spec(a)? {
        EmbedderSpec::None => return Ok(None),
        EmbedderSpec::Auto => match EmbedderSpec::auto_model() {
            Some(model) if store.vector_count(&model)? > 0 => EmbedderSpec::Pocket,
            _ => return Ok(None),
        },
        s => s,
    };
    let embedder = open_embedder(&s, a)?;
    if store.vector_count(&embedder.model_id())? == 0 {
        eprintln!(
            "note: Meilisearch holds no {} vectors for this repository; answering without the vector leg (run `codemap --backend meilisearch embed --embedder {}` first)",
            embedder.model_id(),
            a.embedder
        );
        return Ok(None);
    }
    Ok(Some(
        query::ServerVectors::new(embedder, store).with_weight(s.leg_weight()),
    ))
}
