//! `codemap embed`: vectors for the chunks of the current snapshot that have none for the
//! embedder's model. Incremental by construction — a chunk whose embedded text is already stored
//! (unchanged, or only moved) costs a lookup, not a model call — and resumable: each batch is
//! committed, so a stopped run keeps what it finished and the next one continues.

use crate::Error;
use crate::store::{NewVector, VectorStore};
use crate::text::{chunk_text, text_hash};
use indexer::store::catalog::Catalog;
use query::Embedder;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Texts per model call and per committed transaction.
    pub batch: usize,
    /// Embed at most this many texts in this run (the rest waits for the next).
    pub limit: Option<usize>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            batch: 32,
            limit: None,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RunReport {
    pub model: String,
    /// Chunks in the current snapshot.
    pub chunks: usize,
    /// Chunks that had a vector of this model before the run.
    pub had: usize,
    /// Chunks given a vector already stored for the same text (moved or duplicated code).
    pub reused: usize,
    /// Texts embedded by the model in this run.
    pub embedded: usize,
    /// Chunks still without a vector (a `--limit` or an error stopped the run).
    pub left: usize,
    /// Stored chunk entries of chunks no longer in the snapshot, removed.
    pub pruned: usize,
    pub secs: f64,
}

/// Embeds what the current snapshot lacks. `progress(done, total)` is called after each batch
/// (texts). An embedder error stops the run after the batches already committed; the error is
/// returned with nothing half-written.
pub fn embed_snapshot(
    catalog: &Catalog,
    store: &mut VectorStore,
    embedder: &dyn Embedder,
    opts: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<RunReport, Error> {
    let started = Instant::now();
    let model = embedder.model_id();
    let current: HashSet<String> = catalog.chunk_ids()?.into_iter().collect();
    let have = store.chunks_with_vectors(&model)?;
    let mut report = RunReport {
        model: model.clone(),
        chunks: current.len(),
        had: current.iter().filter(|id| have.contains(*id)).count(),
        ..RunReport::default()
    };
    let missing: HashSet<&String> = current.iter().filter(|id| !have.contains(*id)).collect();
    if !missing.is_empty() {
        // Texts of the missing chunks, grouped by text so each is embedded once.
        let known = store.hashes(&model)?;
        let mut reused: Vec<(String, String)> = Vec::new();
        let mut todo: HashMap<String, (String, Vec<String>)> = HashMap::new();
        for row in catalog.all_chunks()? {
            if !missing.contains(&row.id) {
                continue;
            }
            let text = chunk_text(&row.chunk.header, &row.chunk.text);
            let hash = text_hash(&text);
            if known.contains(&hash) {
                reused.push((row.id, hash));
            } else {
                todo.entry(hash)
                    .or_insert_with(|| (text, Vec::new()))
                    .1
                    .push(row.id);
            }
        }
        report.reused = reused.len();
        store.write_batch(&model, &[], &reused)?;
        // Similar lengths together: a padded batch costs its longest text.
        let mut todo: Vec<(String, String, Vec<String>)> =
            todo.into_iter().map(|(h, (t, ids))| (h, t, ids)).collect();
        todo.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then_with(|| a.0.cmp(&b.0)));
        let total = opts.limit.map_or(todo.len(), |l| l.min(todo.len()));
        let mut left: usize = todo.iter().map(|t| t.2.len()).sum();
        progress(0, total);
        let mut done = 0;
        for batch in todo[..total].chunks(opts.batch.max(1)) {
            let texts: Vec<String> = batch.iter().map(|t| t.1.clone()).collect();
            let vecs = embedder.embed(&texts)?;
            if vecs.len() != texts.len() {
                return Err(Error::Embed(query::EmbedError::Model(format!(
                    "{model} returned {} vectors for {} texts",
                    vecs.len(),
                    texts.len()
                ))));
            }
            let new: Vec<NewVector<'_>> = batch
                .iter()
                .zip(&vecs)
                .map(|(t, v)| NewVector {
                    text_hash: &t.0,
                    vec: v,
                    chunk_ids: &t.2,
                })
                .collect();
            store.write_batch(&model, &new, &[])?;
            done += batch.len();
            report.embedded += batch.len();
            left -= batch.iter().map(|t| t.2.len()).sum::<usize>();
            progress(done, total);
        }
        report.left = left;
    }
    report.pruned = store.prune(&current)?.0;
    report.secs = started.elapsed().as_secs_f64();
    tracing::info!(?report, "embedding run");
    Ok(report)
}
