//! Reads of one repository's published snapshot: every request filters on the repo scope
//! inside the query.

use super::docs::{
    ChunkDoc, FileDoc, SnapshotDoc, SymbolDoc, chunk_row, file_row, identifier_terms, sort_symbols,
    symbol_row,
};
use super::{MeiliStore, meili_err, quote};
use crate::graph::Edge;
use crate::model::{RepoPath, Snapshot};
use crate::store::StoreError;
use crate::store::catalog::{ChunkRow, FileRow, SymbolRow};
use crate::store::read::{IndexRead, TextHit};
use meilisearch_sdk::DefaultHttpClient;
use meilisearch_sdk::search::{SearchQuery, Selectors};
use serde::Deserialize;
use std::collections::HashMap;

impl IndexRead for MeiliStore {
    fn last_snapshot(&self) -> Result<Option<Snapshot>, StoreError> {
        let idx = self.index("snapshots");
        let filter = self.scope();
        let sort = ["generation:desc"];
        let res = self.rt.block_on(
            idx.search()
                .with_filter(&filter)
                .with_sort(&sort)
                .with_limit(1)
                .execute::<SnapshotDoc>(),
        );
        let res = match res {
            Ok(r) => r,
            // No index yet: nothing published.
            Err(meilisearch_sdk::errors::Error::Meilisearch(e))
                if e.error_code == meilisearch_sdk::errors::ErrorCode::IndexNotFound =>
            {
                return Ok(None);
            }
            Err(e) => return Err(meili_err(e)),
        };
        Ok(res.hits.into_iter().next().map(|h| {
            let d = h.result;
            Snapshot {
                generation: d.generation,
                commit: d.commit,
                dirty: d.dirty,
                created_at: d.created_at,
                files: d.files,
                symbols: d.symbols,
                chunks: d.chunks,
            }
        }))
    }

    fn current_files(&self) -> Result<HashMap<RepoPath, FileRow>, StoreError> {
        Ok(self
            .fetch_all::<FileDoc>("files", None)?
            .into_iter()
            .filter_map(file_row)
            .map(|f| (f.path.clone(), f))
            .collect())
    }

    fn file(&self, path: &str) -> Result<Option<FileRow>, StoreError> {
        Ok(self
            .fetch_all::<FileDoc>("files", Some(&format!("path = {}", quote(path))))?
            .into_iter()
            .find_map(file_row))
    }

    fn symbols_named(&self, name: &str) -> Result<Vec<SymbolRow>, StoreError> {
        let q = name.replace('#', ".");
        let simple = q.rsplit('.').next().unwrap_or(&q).to_lowercase();
        let suffix = format!(".{q}");
        let mut out: Vec<SymbolRow> = self
            .fetch_all::<SymbolDoc>("symbols", Some(&format!("name_lc = {}", quote(&simple))))?
            .into_iter()
            .filter_map(symbol_row)
            .filter(|r| {
                !q.contains('.')
                    || r.symbol.qualified_name == q
                    || r.symbol.qualified_name.ends_with(&suffix)
            })
            .collect();
        sort_symbols(&mut out);
        Ok(out)
    }

    fn symbols_of(&self, path: &str) -> Result<Vec<SymbolRow>, StoreError> {
        let mut docs =
            self.fetch_all::<SymbolDoc>("symbols", Some(&format!("path = {}", quote(path))))?;
        docs.sort_by_key(|d| d.ord);
        Ok(docs.into_iter().filter_map(symbol_row).collect())
    }

    fn all_symbols(&self) -> Result<Vec<SymbolRow>, StoreError> {
        let mut docs = self.fetch_all::<SymbolDoc>("symbols", None)?;
        docs.sort_by(|a, b| (&a.path, a.ord).cmp(&(&b.path, b.ord)));
        Ok(docs.into_iter().filter_map(symbol_row).collect())
    }

    fn chunk(&self, id: &str) -> Result<Option<ChunkRow>, StoreError> {
        Ok(self
            .fetch_all::<ChunkDoc>("chunks", Some(&format!("chunk_id = {}", quote(id))))?
            .into_iter()
            .find_map(chunk_row))
    }

    fn chunks_of(&self, path: &str) -> Result<Vec<ChunkRow>, StoreError> {
        let mut docs =
            self.fetch_all::<ChunkDoc>("chunks", Some(&format!("path = {}", quote(path))))?;
        docs.sort_by_key(|d| d.ord);
        Ok(docs.into_iter().filter_map(chunk_row).collect())
    }

    fn search_chunks(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        let idx = self.index("chunks");
        let filter = self.scope();
        let q = format!("{query} {}", identifier_terms(query));
        self.chunk_hits(
            idx.search()
                .with_query(&q)
                .with_filter(&filter)
                .with_limit(limit),
        )
    }

    fn symbol_by_id(&self, id: &str) -> Result<Option<SymbolRow>, StoreError> {
        Ok(self
            .fetch_all::<SymbolDoc>("symbols", Some(&format!("sym_id = {}", quote(id))))?
            .into_iter()
            .find_map(symbol_row))
    }

    fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_where(&format!("caller = {}", quote(caller)))
    }

    fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_where(&format!("callee = {}", quote(callee)))
    }

    fn edge_count(&self) -> Result<u64, StoreError> {
        Ok(self.count("edges")? as u64)
    }
}

impl MeiliStore {
    /// Runs a chunk search set up by the caller (keyword or vector) for chunk ids, paths and
    /// ranking scores.
    pub(super) fn chunk_hits(
        &self,
        q: &mut SearchQuery<'_, DefaultHttpClient>,
    ) -> Result<Vec<TextHit>, StoreError> {
        #[derive(Deserialize)]
        struct Hit {
            chunk_id: String,
            path: String,
        }
        const ATTRS: [&str; 2] = ["chunk_id", "path"];
        let res = self
            .rt
            .block_on(
                q.with_attributes_to_retrieve(Selectors::Some(&ATTRS))
                    .with_show_ranking_score(true)
                    .execute::<Hit>(),
            )
            .map_err(meili_err)?;
        Ok(res
            .hits
            .into_iter()
            .map(|h| {
                let score = h.ranking_score.unwrap_or(0.0) as f32;
                (h.result.chunk_id, h.result.path, score)
            })
            .collect())
    }
}
