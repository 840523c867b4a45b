//! The vector leg of `ask`: the current snapshot's vectors of one model, read from the store into
//! one contiguous matrix (once per process; kept as a flat file for the next process, see
//! [`cache`]), searched exactly.

mod cache;

use crate::Error;
use crate::store::VectorStore;
use indexer::store::catalog::Catalog;
use query::{DenseVectors, Embedder};
use std::collections::HashSet;
use std::path::Path;

/// Vectors of `embedder`'s model for the chunks of the snapshot `catalog` shows, or `None` when
/// the index folder `dir` holds none. Returns the leg and how many of the snapshot's chunks it
/// covers (a partial `codemap embed` leaves some without).
pub fn load_leg(
    dir: &Path,
    catalog: &Catalog,
    embedder: Box<dyn Embedder>,
) -> Result<Option<(DenseVectors, usize)>, Error> {
    let Some(store) = VectorStore::open_read(dir)? else {
        return Ok(None);
    };
    let chunk_ids = catalog.chunk_ids()?;
    let model = embedder.model_id();
    let cached = cache::path(dir, &model, &chunk_ids);
    if let Some((ids, matrix)) = cache::read(&cached, embedder.dim()) {
        // `read` checked the sizes against the model's dimension.
        let dense = DenseVectors::from_rows(embedder, ids, matrix).filter(|d| !d.is_empty());
        return Ok(dense.map(|d| (d, chunk_ids.len())));
    }
    let current: HashSet<String> = chunk_ids.into_iter().collect();
    let mut dense = DenseVectors::new(embedder);
    let mut wrong_dim = 0usize;
    store.for_each(
        &model,
        |id| current.contains(id),
        |id, v| {
            if !dense.push(id, v) {
                wrong_dim += 1;
            }
        },
    )?;
    if wrong_dim > 0 {
        tracing::warn!(
            wrong_dim,
            model,
            "stored vectors of another dimension ignored"
        );
    }
    let (ids, matrix) = dense.rows();
    cache::write(&cached, &model, dense.dim(), ids, matrix);
    if dense.is_empty() {
        return Ok(None);
    }
    Ok(Some((dense, current.len())))
}

/// Whether the store in `dir` has vectors of `model` (without loading any model).
pub fn has_vectors(dir: &Path, model: &str) -> Result<bool, Error> {
    Ok(match VectorStore::open_read(dir)? {
        Some(s) => s.models()?.iter().any(|(m, n)| m == model && *n > 0),
        None => false,
    })
}

/// Vectors of `model` for the chunks of the snapshot `catalog` shows, by chunk id (what team
/// mode sends to Meilisearch). Empty when the store in `dir` holds none.
pub fn current_vectors(
    dir: &Path,
    catalog: &Catalog,
    model: &str,
) -> Result<std::collections::HashMap<String, Vec<f32>>, Error> {
    let mut out = std::collections::HashMap::new();
    let Some(store) = VectorStore::open_read(dir)? else {
        return Ok(out);
    };
    let current: HashSet<String> = catalog.chunk_ids()?.into_iter().collect();
    store.for_each(
        model,
        |id| current.contains(id),
        |id, v| {
            out.insert(id, v.to_vec());
        },
    )?;
    Ok(out)
}
