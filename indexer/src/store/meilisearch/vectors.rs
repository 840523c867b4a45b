//! Our chunk vectors in Meilisearch: a `userProvided` embedder on the chunks index, vectors sent
//! as `_vectors`, and nearest-neighbour reads. The vectors are computed locally (the same ones
//! the embedded index uses), so fusion stays ours and identical across backends: Meilisearch
//! returns the vector list, the query side fuses it with RRF.
//!
//! Which chunks already carry a vector of a model is recorded on the chunk document itself
//! (`vector_model`), so it cannot drift: a chunk document replaced because its file changed
//! comes back without both, and the next sync sends its vector again.

use super::{BATCH_DOCS, MeiliStore, doc_id, meili_err, quote};
use crate::store::StoreError;
use crate::store::read::TextHit;
use meilisearch_sdk::documents::DocumentsQuery;
use meilisearch_sdk::settings::{Embedder, EmbedderSource, Settings};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Name of our embedder in the chunks index settings.
pub const EMBEDDER: &str = "codemap";

#[derive(Serialize)]
struct VectorPatch<'a> {
    id: String,
    #[serde(rename = "_vectors")]
    vectors: HashMap<&'static str, &'a [f32]>,
    vector_model: &'a str,
}

#[derive(Deserialize)]
struct ChunkVectorState {
    chunk_id: String,
    #[serde(default)]
    vector_model: Option<String>,
}

/// What a vector sync did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct VectorSync {
    /// Vectors sent now.
    pub sent: usize,
    /// Chunks on the server that already had this model's vector.
    pub present: usize,
    /// Chunks on the server with no local vector yet (embedding still to run).
    pub missing: usize,
}

impl MeiliStore {
    /// Declares the `userProvided` embedder of `dims` dimensions on the chunks index.
    pub fn ensure_embedder(&self, dims: usize) -> Result<(), StoreError> {
        let embedder = Embedder {
            source: EmbedderSource::UserProvided,
            dimensions: Some(dims),
            ..Default::default()
        };
        let settings = Settings::new().with_embedders(HashMap::from([(EMBEDDER, embedder)]));
        let task = self
            .rt
            .block_on(self.index("chunks").set_settings(&settings))
            .map_err(meili_err)?;
        self.wait(task)
    }

    /// Sends the vectors of `model` for the chunks the server holds without one; `local` maps
    /// chunk ids to their vectors (chunks missing from it are counted, not sent). Idempotent.
    pub fn sync_vectors(
        &self,
        model: &str,
        dims: usize,
        local: &HashMap<String, Vec<f32>>,
    ) -> Result<VectorSync, StoreError> {
        // Settings first: `vector_model` must be filterable (servers published by an older
        // codemap lack it).
        self.ensure_settings()?;
        let states = self.chunk_vector_states()?;
        let declared = self
            .rt
            .block_on(self.index("chunks").get_embedders())
            .map_err(meili_err)?
            .contains_key(EMBEDDER);
        if !declared {
            // Chunks published before vectors were (by an older codemap) carry no `_vectors`;
            // Meilisearch refuses the embedder until each opts out explicitly.
            self.opt_out(states.iter().filter(|d| d.vector_model.is_none()))?;
        }
        self.ensure_embedder(dims)?;
        let mut out = VectorSync::default();
        let mut todo: Vec<&str> = Vec::new();
        for d in states {
            if d.vector_model.as_deref() == Some(model) {
                out.present += 1;
            } else if let Some((id, _)) = local.get_key_value(&d.chunk_id) {
                todo.push(id);
            } else {
                out.missing += 1;
            }
        }
        todo.sort_unstable();
        let patches: Vec<VectorPatch> = todo
            .iter()
            .filter(|id| local[**id].len() == dims)
            .map(|id| VectorPatch {
                id: doc_id(&self.cfg.repo, &["chunk", id]),
                vectors: HashMap::from([(EMBEDDER, local[*id].as_slice())]),
                vector_model: model,
            })
            .collect();
        out.sent = patches.len();
        for t in self.add_update("chunks", &patches)? {
            self.wait(t)?;
        }
        Ok(out)
    }

    /// Marks chunk documents as having no vector of ours yet (`_vectors.codemap: null`).
    fn opt_out<'d>(
        &self,
        docs: impl Iterator<Item = &'d ChunkVectorState>,
    ) -> Result<(), StoreError> {
        let patches: Vec<serde_json::Value> = docs
            .map(|d| {
                serde_json::json!({
                    "id": doc_id(&self.cfg.repo, &["chunk", &d.chunk_id]),
                    "_vectors": { EMBEDDER: null },
                })
            })
            .collect();
        for t in self.add_update("chunks", &patches)? {
            self.wait(t)?;
        }
        Ok(())
    }

    /// Partial updates of documents (their other fields stay), in batches.
    fn add_update<T: Serialize + Send + Sync>(
        &self,
        name: &str,
        docs: &[T],
    ) -> Result<Vec<meilisearch_sdk::task_info::TaskInfo>, StoreError> {
        let idx = self.index(name);
        docs.chunks(BATCH_DOCS / 2)
            .map(|b| {
                self.rt
                    .block_on(idx.add_or_update(b, Some("id")))
                    .map_err(meili_err)
            })
            .collect()
    }

    /// The chunk id and vector model of every chunk document of this repo (two fields only).
    fn chunk_vector_states(&self) -> Result<Vec<ChunkVectorState>, StoreError> {
        let idx = self.index("chunks");
        let filter = self.scope();
        let mut out: Vec<ChunkVectorState> = Vec::new();
        let mut seen = HashSet::new();
        let mut offset = 0;
        loop {
            let mut q = DocumentsQuery::new(&idx);
            q.with_filter(&filter)
                .with_fields(["chunk_id", "vector_model"])
                .with_limit(super::PAGE)
                .with_offset(offset);
            let page = self
                .rt
                .block_on(idx.get_documents_with::<ChunkVectorState>(&q))
                .map_err(meili_err)?;
            let n = page.results.len();
            out.extend(
                page.results
                    .into_iter()
                    .filter(|d| seen.insert(d.chunk_id.clone())),
            );
            if n < super::PAGE {
                break;
            }
            offset += n;
        }
        Ok(out)
    }

    /// How many of this repo's chunks carry a vector of `model`.
    pub fn vector_count(&self, model: &str) -> Result<usize, StoreError> {
        self.count_where("chunks", Some(&format!("vector_model = {}", quote(model))))
    }

    /// Chunks nearest to `vector` among those holding a vector of `model`, best first.
    pub fn nearest_chunks(
        &self,
        vector: &[f32],
        model: &str,
        limit: usize,
    ) -> Result<Vec<TextHit>, StoreError> {
        let idx = self.index("chunks");
        let filter = format!("{} AND vector_model = {}", self.scope(), quote(model));
        self.chunk_hits(
            idx.search()
                .with_vector(vector)
                .with_hybrid(EMBEDDER, 1.0)
                .with_filter(&filter)
                .with_limit(limit),
        )
    }
}
