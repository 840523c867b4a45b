//! Reads of one repository's published snapshot: every request filters on the repo scope
//! inside the query.

use super::docs::{
    ChunkDoc, FileDoc, SnapshotDoc, SymbolDoc, chunk_row, file_row, identifier_terms, sort_symbols,
    symbol_row,
};
use super::{MeiliStore, kept_edges, lists, meili_err, quote, rerank, warm};
use crate::graph::Edge;
use crate::model::{RepoPath, Snapshot, SnapshotKey};
use crate::store::StoreError;
use crate::store::catalog::{ChunkRow, FileRow, SymbolRow};
use crate::store::fulltext::ChunkDoc as TextDoc;
use crate::store::read::{IndexRead, TextHit};
use meilisearch_sdk::DefaultHttpClient;
use meilisearch_sdk::search::{SearchQuery, Selectors};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl IndexRead for MeiliStore {
    /// As read within [`SNAPSHOT_CHECK_FOR`] by this reader: the checks of one question (the
    /// service's, the view's, each search's) cost the server one read.
    fn last_snapshot(&self) -> Result<Option<Snapshot>, StoreError> {
        let mut checked = self
            .snapshot_checked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((at, last)) = &*checked
            && at.elapsed() < SNAPSHOT_CHECK_FOR
        {
            return Ok(last.clone());
        }
        let last = self.last_snapshot_doc()?.map(Snapshot::from);
        *checked = Some((Instant::now(), last.clone()));
        Ok(last)
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

    fn symbols_of_many(
        &self,
        paths: &[&str],
    ) -> Result<HashMap<String, Vec<SymbolRow>>, StoreError> {
        self.rows_by_path(
            "symbols",
            paths,
            |d: &SymbolDoc| (&d.path, d.ord),
            symbol_row,
        )
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

    fn chunks_of_many(&self, paths: &[&str]) -> Result<HashMap<String, Vec<ChunkRow>>, StoreError> {
        self.rows_by_path("chunks", paths, |d: &ChunkDoc| (&d.path, d.ord), chunk_row)
    }

    fn search_chunks(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        // Warm: searched in memory while the snapshot it holds is still the last one.
        if let Some(w) = warm::get(&self.warm_key())
            && self.last_snapshot()?.map(|s| s.key()) == Some(w.snapshot())
        {
            return w.search(query, limit);
        }
        self.keyword_chunks(query, limit)
    }

    fn warm_search(&self) -> Result<(), StoreError> {
        self.warm_text()
    }

    fn symbol_by_id(&self, id: &str) -> Result<Option<SymbolRow>, StoreError> {
        Ok(self
            .fetch_all::<SymbolDoc>("symbols", Some(&format!("sym_id = {}", quote(id))))?
            .into_iter()
            .find_map(symbol_row))
    }

    fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError> {
        let mut by = self.edges_from_many(&[caller])?;
        Ok(by.remove(caller).unwrap_or_default())
    }

    fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        let mut by = self.edges_to_many(&[callee])?;
        Ok(by.remove(callee).unwrap_or_default())
    }

    fn edges_to_many(&self, callees: &[&str]) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        self.edges_by("callee", callees, |e| e.callee.as_deref())
    }

    fn edges_from_many(&self, callers: &[&str]) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        self.edges_by("caller", callers, |e| Some(e.caller.as_str()))
    }

    fn edge_count(&self) -> Result<u64, StoreError> {
        Ok(self.count("edges")? as u64)
    }
    /// A team index publishes the edges of the local run that built it; it keeps no record of
    /// a run without the graph, whose snapshot then reads as one with no edges.
    fn graph_built(&self) -> Result<bool, StoreError> {
        Ok(true)
    }
    fn for_each_edge(
        &self,
        f: &mut dyn FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each_edge(f)
    }

    fn for_each_edge_unordered(
        &self,
        f: &mut dyn FnMut(u32, Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.each_edge_unordered(f)
    }
}

/// How long a read of the server's last snapshot holds ([`IndexRead::last_snapshot`]): what is
/// kept by snapshot (the warm copy, word lists, neighbourhoods) is checked against the server
/// once per question, not on every read, and a publish is read from the server half a second
/// after it at most. What must not mix two snapshots (the copy's build) reads it afresh.
const SNAPSHOT_CHECK_FOR: Duration = Duration::from_millis(500);

impl MeiliStore {
    /// The key of the server's last snapshot, read now.
    fn last_snapshot_key_now(&self) -> Result<Option<SnapshotKey>, StoreError> {
        Ok(self.last_snapshot_doc()?.map(|d| Snapshot::from(d).key()))
    }

    /// The server's last snapshot document of this repository, as published.
    pub(super) fn last_snapshot_doc(&self) -> Result<Option<SnapshotDoc>, StoreError> {
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
        Ok(res.hits.into_iter().next().map(|h| h.result))
    }
}

/// Keys named in one `IN [...]` filter: a batch of lookups is one request, and the filter
/// stays short.
const KEYS_PER_REQUEST: usize = 64;

/// `field IN ["a", "b"]`.
fn any_of(field: &str, keys: &[&str]) -> String {
    let list: Vec<String> = keys.iter().map(|k| quote(k)).collect();
    format!("{field} IN [{}]", list.join(", "))
}

impl MeiliStore {
    /// The documents of index `name` in any of `paths`, grouped by path (every asked path is a
    /// key), each group in file order (`place` gives a document's path and order), as rows.
    fn rows_by_path<D, R>(
        &self,
        name: &str,
        paths: &[&str],
        place: impl Fn(&D) -> (&String, u32),
        row: impl Fn(D) -> Option<R>,
    ) -> Result<HashMap<String, Vec<R>>, StoreError>
    where
        D: serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        let mut docs: HashMap<String, Vec<D>> =
            paths.iter().map(|p| (p.to_string(), Vec::new())).collect();
        for batch in paths.chunks(KEYS_PER_REQUEST) {
            for d in self.fetch_all::<D>(name, Some(&any_of("path", batch)))? {
                if let Some(v) = docs.get_mut(place(&d).0) {
                    v.push(d);
                }
            }
        }
        Ok(docs
            .into_iter()
            .map(|(p, mut v)| {
                v.sort_by_key(|d| place(d).1);
                (p, v.into_iter().filter_map(&row).collect())
            })
            .collect())
    }

    /// Edges whose `field` is one of `keys`, grouped by key, each group in catalog order: the
    /// neighbourhoods kept on the server's last snapshot ([`kept_edges`]), the others read in
    /// batches and kept.
    fn edges_by(
        &self,
        field: &str,
        keys: &[&str],
        key_of: impl Fn(&Edge) -> Option<&str>,
    ) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        let outgoing = field == "caller";
        let (scope, snapshot) = (self.warm_key(), self.last_snapshot()?.map(|s| s.key()));
        let mut out: HashMap<String, Vec<Edge>> = HashMap::with_capacity(keys.len());
        let mut missing: Vec<&str> = Vec::new();
        for &k in keys {
            match snapshot.and_then(|s| kept_edges::get(&scope, s, outgoing, k)) {
                Some(edges) => {
                    out.insert(k.to_string(), edges.as_ref().clone());
                }
                None if !missing.contains(&k) => missing.push(k),
                None => {}
            }
        }
        let mut read: HashMap<String, Vec<Edge>> = missing
            .iter()
            .map(|k| (k.to_string(), Vec::new()))
            .collect();
        for batch in missing.chunks(KEYS_PER_REQUEST) {
            for e in self.edges_where(&any_of(field, batch))? {
                let key = key_of(&e).map(str::to_string);
                if let Some(v) = key.and_then(|k| read.get_mut(&k)) {
                    v.push(e);
                }
            }
        }
        for (k, edges) in read {
            // Kept under the snapshot read before them: a publish landing in between is
            // read from the server from the next check on (half a second at most).
            if let Some(s) = snapshot {
                kept_edges::put(&scope, s, outgoing, &k, Arc::new(edges.clone()));
            }
            out.insert(k, edges);
        }
        Ok(out)
    }
}

/// The customary reciprocal-rank-fusion constant.
const RRF_K: f32 = 60.0;
/// Words of a query searched one by one besides the whole query.
const WORD_QUERIES: usize = 12;
/// Chunk ids named in one search when reading chunks to score.
const IDS_PER_SEARCH: usize = 200;

/// What a warm reader's full-text index holds of a chunk ([`WARM_FIELDS`]).
#[derive(Deserialize)]
struct WarmFields {
    chunk_id: String,
    path: String,
    #[serde(default)]
    symbols: String,
    #[serde(default)]
    header: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    provenance: String,
}
const WARM_FIELDS: [&str; 6] = [
    "chunk_id",
    "path",
    "symbols",
    "header",
    "text",
    "provenance",
];

/// A chunk's searchable fields as scoring reads them ([`rerank::FIELD_NAMES`]).
#[derive(Deserialize)]
struct ScoredFields {
    chunk_id: String,
    #[serde(default)]
    symbols: String,
    #[serde(default)]
    header: String,
    #[serde(default)]
    text: String,
}

impl MeiliStore {
    /// Keyword search over chunks. Meilisearch ranks by its own rules and, for a long question,
    /// drops words from the end of the query until something matches, so chunks holding the
    /// question's rarer words can miss the list. One request (multi-search) asks the whole query
    /// and each word alone, for chunk ids only, so the pool covers the question's words the way
    /// BM25's any-word match does; a list an earlier question got on the same snapshot (a word
    /// asked again) is not asked again ([`lists`]). The pool is then scored by BM25 ([`rerank`]) from each
    /// chunk's token counts, kept in memory by chunk id (read once, and only for chunks not
    /// seen before), each word's idf from its hit count; Meilisearch's orders, fused by
    /// reciprocal rank, break ties.
    fn keyword_chunks(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        let whole = format!("{query} {}", identifier_terms(query));
        let mut words: Vec<String> = Vec::new();
        for w in query.split_whitespace() {
            let w = w.to_lowercase();
            if !words.contains(&w) && words.len() < WORD_QUERIES {
                words.push(w);
            }
        }
        // Half the whole query's list per word: as good on the parity sets as the full list,
        // at half the server's work (bench/RESULTS.md, "Team mode parity").
        let per_word = (limit / 2).max(20);
        // The first search has no text: its hit count is the number of chunks in scope.
        let mut searches: Vec<(String, usize)> = vec![(String::new(), 0), (whole, limit)];
        searches.extend(
            words
                .iter()
                .map(|w| (format!("{w} {}", identifier_terms(w)), per_word)),
        );
        let mut lists = self.search_lists(&searches)?.into_iter();
        let total = lists.next().map(|l| l.total).unwrap_or(0).max(1) as f32;
        // The pool: every chunk any of the searches found, with Meilisearch's own orders fused
        // by RRF as the tie-break.
        let mut pool: HashMap<String, (f32, String)> = HashMap::new();
        let mut add = |hits: &[(String, String)]| {
            for (rank, (id, path)) in hits.iter().enumerate() {
                let e = pool.entry(id.clone()).or_insert((0.0, path.clone()));
                e.0 += 1.0 / (RRF_K + rank as f32 + 1.0);
            }
        };
        if let Some(whole) = lists.next() {
            add(&whole.hits);
        }
        // Each word's weight (its idf from its hit count) goes to the tokens the embedded
        // index makes of it; a token two words share takes the lower weight.
        let mut idf: HashMap<String, f32> = HashMap::new();
        for (w, r) in words.iter().zip(lists) {
            let weight = rerank::idf(r.total, total);
            for t in rerank::tokens(w) {
                let e = idf.entry(t).or_insert(weight);
                *e = e.min(weight);
            }
            add(&r.hits);
        }
        let pool: Vec<(String, f32, String)> =
            pool.into_iter().map(|(id, (f, p))| (id, f, p)).collect();
        let ids: Vec<&str> = pool.iter().map(|(id, _, _)| id.as_str()).collect();
        let stats = self.chunk_stats(&ids)?;
        // A chunk that could not be read went between the search and the read (a run
        // published meanwhile): it is no longer in the snapshot, so it is no hit.
        let (pool, stats): (Vec<_>, Vec<_>) = pool
            .into_iter()
            .zip(stats)
            .filter_map(|(p, s)| Some((p, s?)))
            .unzip();
        let refs: Vec<&rerank::ChunkStats> = stats.iter().map(|s| s.as_ref()).collect();
        let scores = rerank::bm25(&refs, &rerank::weights(&idf));
        let mut out: Vec<(TextHit, f32)> = pool
            .into_iter()
            .zip(scores)
            .map(|((id, fused, path), s)| ((id, path, s), fused))
            .collect();
        out.sort_by(|a, b| {
            (b.0.2.total_cmp(&a.0.2))
                .then_with(|| b.1.total_cmp(&a.1))
                .then_with(|| a.0.0.cmp(&b.0.0))
        });
        out.truncate(limit);
        Ok(out.into_iter().map(|(h, _)| h).collect())
    }

    /// The hits of each of `searches` (query, limit; the query `""` with limit 0 counts the
    /// scope's chunks) on the snapshot the server shows now: lists kept from earlier questions
    /// ([`lists`]), the others asked in one multi-search (none when all are kept) and kept.
    fn search_lists(
        &self,
        searches: &[(String, usize)],
    ) -> Result<Vec<Arc<lists::List>>, StoreError> {
        #[derive(Deserialize)]
        struct Hit {
            chunk_id: String,
            path: String,
        }
        const ATTRS: [&str; 2] = ["chunk_id", "path"];
        let snapshot = self
            .last_snapshot()?
            .map(|s| s.key())
            .unwrap_or(SnapshotKey {
                generation: 0,
                publish: 0,
            });
        let scope = self.warm_key();
        let mut out = lists::get(&scope, snapshot, searches);
        let missing: Vec<usize> = (0..searches.len()).filter(|&i| out[i].is_none()).collect();
        if !missing.is_empty() {
            let idx = self.index("chunks");
            let filter = self.scope();
            let mut multi = self.client.multi_search();
            for &i in &missing {
                let (text, limit) = &searches[i];
                let mut q = idx.search();
                q.with_filter(&filter).with_limit(*limit);
                if !text.is_empty() {
                    q.with_query(text)
                        .with_attributes_to_retrieve(Selectors::Some(&ATTRS));
                }
                multi.with_search_query(q);
            }
            let res = self
                .rt
                .block_on(multi.execute::<Hit>())
                .map_err(meili_err)?;
            for (&i, r) in missing.iter().zip(res.results) {
                let list = Arc::new(lists::List {
                    total: r.estimated_total_hits.or(r.total_hits).unwrap_or(0),
                    hits: r
                        .hits
                        .into_iter()
                        .map(|h| (h.result.chunk_id, h.result.path))
                        .collect(),
                });
                lists::put(&scope, snapshot, &searches[i], list.clone());
                out[i] = Some(list);
            }
        }
        Ok(out
            .into_iter()
            .map(|l| l.expect("every list kept or read"))
            .collect())
    }

    /// The token counts of each of `ids` (`None`: no such chunk in scope): remembered ones
    /// from memory, the others read (their searchable fields only, one request) and tokenized.
    fn chunk_stats(
        &self,
        ids: &[&str],
    ) -> Result<Vec<Option<Arc<rerank::ChunkStats>>>, StoreError> {
        let mut out = rerank::remembered(ids);
        let missing: Vec<&str> = ids
            .iter()
            .zip(&out)
            .filter(|(_, s)| s.is_none())
            .map(|(id, _)| *id)
            .collect();
        if missing.is_empty() {
            return Ok(out);
        }
        let idx = self.index("chunks");
        let filters: Vec<String> = missing
            .chunks(IDS_PER_SEARCH)
            .map(|batch| format!("{} AND {}", self.scope(), any_of("chunk_id", batch)))
            .collect();
        let mut multi = self.client.multi_search();
        for f in &filters {
            let mut q = idx.search();
            q.with_filter(f)
                .with_limit(IDS_PER_SEARCH)
                .with_attributes_to_retrieve(Selectors::Some(&rerank::FIELD_NAMES));
            multi.with_search_query(q);
        }
        let res = self
            .rt
            .block_on(multi.execute::<ScoredFields>())
            .map_err(meili_err)?;
        let read: HashMap<String, Arc<rerank::ChunkStats>> = res
            .results
            .into_iter()
            .flat_map(|r| r.hits)
            .map(|h| {
                let d = h.result;
                let stats = rerank::ChunkStats::of([&d.symbols, &d.header, &d.text]);
                let stats = rerank::remember(d.chunk_id.clone(), stats);
                (d.chunk_id, stats)
            })
            .collect();
        for (id, s) in ids.iter().zip(out.iter_mut()) {
            if s.is_none() {
                *s = read.get(*id).cloned();
            }
        }
        Ok(out)
    }

    /// Reads every chunk of the last snapshot once (page by page) into a full-text index in
    /// memory ([`warm`]), kept for this scope unless the snapshot changed during the read.
    fn warm_text(&self) -> Result<(), StoreError> {
        let Some(before) = self.last_snapshot_key_now()? else {
            return Ok(());
        };
        let key = self.warm_key();
        if warm::get(&key).is_some_and(|w| w.snapshot() == before) {
            return Ok(());
        }
        let dir = self.cfg.search_dir.as_deref();
        if let Some(copy) = dir.and_then(|d| warm::kept(d, before)) {
            tracing::debug!(repo = %self.cfg.repo, generation = before.generation, "keyword search warm from the kept copy");
            warm::put(key, copy);
            return Ok(());
        }
        let mut builder = warm::Builder::new(dir)?;
        let mut failed = None;
        self.fetch_pages::<WarmFields>("chunks", None, Some(&WARM_FIELDS), |page| {
            for d in page {
                if failed.is_some() {
                    return;
                }
                let doc = TextDoc {
                    id: &d.chunk_id,
                    path: &d.path,
                    symbols: &d.symbols,
                    header: &d.header,
                    body: &d.text,
                    provenance: &d.provenance,
                };
                if let Err(e) = builder.add(&doc) {
                    failed = Some(e);
                }
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        if self.last_snapshot_key_now()? != Some(before) {
            // Published meanwhile: the chunks read may mix two snapshots. Questions search on
            // the server until the next warm-up (the service's preload of the new snapshot).
            return Ok(());
        }
        tracing::debug!(repo = %self.cfg.repo, generation = before.generation, chunks = builder.len(), "keyword search warm");
        warm::put(key, builder.finish(before)?);
        Ok(())
    }

    /// The process-wide key of this reader's repository scope on its server.
    fn warm_key(&self) -> String {
        format!("{}\0{}\0{}", self.cfg.url, self.cfg.prefix, self.cfg.repo)
    }

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
