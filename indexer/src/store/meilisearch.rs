//! Team mode: the index published to a Meilisearch server, and read back from it.
//!
//! The embedded index stays the indexer's working copy (it plans incremental runs and keeps
//! snapshot history); [`MeiliStore::publish`] pushes the difference between the snapshot the
//! server has and the local one. Readers (bot, docgen, ask) need only the server's URL and a key.
//!
//! Layout: indexes `<prefix>files`, `<prefix>symbols`, `<prefix>chunks`, `<prefix>edges`,
//! `<prefix>edge_files` ([`edges`]) and `<prefix>snapshots`, shared by many repositories; `repo` is filterable and every read filters on it inside the query.
//! Document ids are blake3 hex of (repo, stable key), so upserts are idempotent across runs.
//!
//! Durability: every task is awaited with a bounded wait; a failed task stops the publish with the
//! task's error and the snapshot document, which is what readers see as "last indexed", is only
//! written after every other task succeeded. Re-running after a crash re-sends the same batch
//! (delete-by-path, then add), so it converges without duplicates or orphans.

use crate::diff::FileVersion;
use crate::model::RepoPath;
use crate::store::StoreError;
use crate::store::catalog::Catalog;
use meilisearch_sdk::client::Client;
use meilisearch_sdk::documents::DocumentsQuery;
use meilisearch_sdk::indexes::Index;
use meilisearch_sdk::settings::PrefixSearchSettings;
use meilisearch_sdk::task_info::TaskInfo;
use meilisearch_sdk::tasks::Task;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

mod docs;
mod edges;
mod kept_edges;
mod lists;
pub mod network;
mod read;
mod rerank;
mod settings;
mod vectors;
mod warm;

use docs::SnapshotDoc;
pub use docs::identifier_terms;
use settings::index_specs;
pub use vectors::{EMBEDDER, VectorSync};

/// Every index of a store, under its prefix.
const INDEXES: [&str; 6] = [
    "files",
    "symbols",
    "chunks",
    "edges",
    "edge_files",
    "snapshots",
];

/// Documents per add request: far under the 100 MB payload limit for our document sizes.
const BATCH_DOCS: usize = 1000;
/// Paths per delete-by-filter request.
const BATCH_PATHS: usize = 100;
/// Meilisearch indexes at most 65,535 word positions per attribute; keep well under it.
const MAX_FIELD_WORDS: usize = 60_000;
/// Page size when reading documents back.
const PAGE: usize = 1000;

/// Where and as whom to connect, and under which names.
#[derive(Debug, Clone)]
pub struct MeiliConfig {
    pub url: String,
    pub api_key: Option<String>,
    /// Prefix of the index names (`codemap_` → `codemap_chunks`, …).
    pub prefix: String,
    /// Repository scope: documents carry it, every read filters on it.
    pub repo: String,
    /// Longest wait for one task.
    pub task_timeout: Duration,
    /// Where a warm reader keeps its copy of the snapshot's keyword index, a folder per snapshot
    /// (`warm`); `None`: in memory.
    pub search_dir: Option<std::path::PathBuf>,
}

impl MeiliConfig {
    pub fn new(
        url: impl Into<String>,
        api_key: Option<String>,
        prefix: impl Into<String>,
        repo: impl Into<String>,
    ) -> Self {
        MeiliConfig {
            url: url.into(),
            api_key,
            prefix: prefix.into(),
            repo: repo.into(),
            task_timeout: Duration::from_secs(300),
            search_dir: None,
        }
    }
}

/// What one publish did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublishSummary {
    pub from_generation: u64,
    pub to_generation: u64,
    /// Paths whose documents were replaced or deleted.
    pub paths: usize,
    pub full: bool,
    /// Use-site files whose edges were replaced or deleted.
    pub edge_files: usize,
    pub tasks: usize,
}

/// This repository's documents per index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub files: usize,
    pub symbols: usize,
    pub chunks: usize,
    pub edges: usize,
    pub snapshots: usize,
}

pub struct MeiliStore {
    cfg: MeiliConfig,
    client: Client,
    rt: tokio::runtime::Runtime,
    /// When this reader last read which snapshot is the server's last, and that snapshot
    /// (`read::SNAPSHOT_CHECK_FOR`).
    snapshot_checked:
        std::sync::Mutex<Option<(std::time::Instant, Option<crate::model::Snapshot>)>>,
}

fn meili_err(e: meilisearch_sdk::errors::Error) -> StoreError {
    StoreError::Backend(format!("meilisearch: {e}"))
}

/// A quoted filter value (`"a \"b\""`).
fn quote(v: &str) -> String {
    format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
}

fn doc_id(repo: &str, parts: &[&str]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(repo.as_bytes());
    for p in parts {
        h.update(&[0]);
        h.update(p.as_bytes());
    }
    h.finalize().to_hex()[..40].to_string()
}

impl MeiliStore {
    pub fn connect(cfg: MeiliConfig) -> Result<MeiliStore, StoreError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let client = Client::new(cfg.url.clone(), cfg.api_key.clone()).map_err(meili_err)?;
        Ok(MeiliStore {
            cfg,
            client,
            rt,
            snapshot_checked: std::sync::Mutex::new(None),
        })
    }

    pub fn repo(&self) -> &str {
        &self.cfg.repo
    }

    /// The store, keeping its copy of the keyword index in `dir` ([`MeiliConfig::search_dir`]).
    pub fn with_search_dir(mut self, dir: Option<std::path::PathBuf>) -> MeiliStore {
        self.cfg.search_dir = dir;
        self
    }

    fn index(&self, name: &str) -> Index {
        self.client.index(format!("{}{}", self.cfg.prefix, name))
    }

    fn scope(&self) -> String {
        format!("repo = {}", quote(&self.cfg.repo))
    }

    fn wait(&self, task: TaskInfo) -> Result<(), StoreError> {
        let t = self
            .rt
            .block_on(task.wait_for_completion(
                &self.client,
                Some(Duration::from_millis(20)),
                Some(self.cfg.task_timeout),
            ))
            .map_err(meili_err)?;
        match t {
            Task::Succeeded { .. } => Ok(()),
            Task::Failed { content } => Err(StoreError::Backend(format!(
                "meilisearch task {} failed: {} ({})",
                content.task.uid, content.error.error_message, content.error.error_code
            ))),
            other => Err(StoreError::Backend(format!(
                "meilisearch task {} did not finish in time",
                other.get_uid()
            ))),
        }
    }

    /// Creates the indexes and sets searchable, filterable and sortable attributes and ranking
    /// rules explicitly; an index whose settings already match is left alone (a settings task
    /// makes the server re-index the whole index even when nothing differs: 24 s of a publish
    /// with nothing changed on a 1M-line repository). Idempotent.
    pub fn ensure_settings(&self) -> Result<(), StoreError> {
        for spec in index_specs() {
            let name = spec.name;
            let current = match self.rt.block_on(self.index(name).get_settings()) {
                Ok(s) => Some(s),
                Err(meilisearch_sdk::errors::Error::Meilisearch(e))
                    if e.error_code == meilisearch_sdk::errors::ErrorCode::IndexNotFound =>
                {
                    let uid = format!("{}{}", self.cfg.prefix, name);
                    let task = self
                        .rt
                        .block_on(self.client.create_index(&uid, Some("id")))
                        .map_err(meili_err)?;
                    // Created meanwhile by another publisher is fine; the settings task below
                    // surfaces anything else.
                    let _ = self.wait(task);
                    None
                }
                Err(e) => return Err(meili_err(e)),
            };
            if spec.exact_words {
                let prefix = self.rt.block_on(self.index(name).get_prefix_search()).ok();
                if prefix != Some(PrefixSearchSettings::Disabled) {
                    let task = self
                        .rt
                        .block_on(
                            self.index(name)
                                .set_prefix_search(PrefixSearchSettings::Disabled),
                        )
                        .map_err(meili_err)?;
                    self.wait(task)?;
                }
            }
            if current.as_ref().is_some_and(|c| spec.matches(c)) {
                continue;
            }
            let task = self
                .rt
                .block_on(self.index(name).set_settings(&spec.settings()))
                .map_err(meili_err)?;
            self.wait(task)?;
        }
        Ok(())
    }

    /// This reader's next read asks the server which snapshot is the last one again (after its
    /// own publish or swap, not half a second later).
    fn forget_snapshot(&self) {
        *self
            .snapshot_checked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
    }

    /// Pushes the local catalog's last snapshot to the server: only the files that changed since
    /// the snapshot the server has, or everything when the server's snapshot is unknown locally.
    pub fn publish(&self, catalog: &Catalog) -> Result<PublishSummary, StoreError> {
        self.forget_snapshot();
        let published = self.publish_now(catalog);
        self.forget_snapshot();
        published
    }

    fn publish_now(&self, catalog: &Catalog) -> Result<PublishSummary, StoreError> {
        let Some(local) = catalog.last_snapshot()? else {
            return Ok(PublishSummary::default());
        };
        self.ensure_settings()?;
        let lineage = catalog.lineage()?;
        let remote = self.last_snapshot_doc()?;
        let known: BTreeSet<u64> = catalog.snapshots()?.iter().map(|s| s.generation).collect();
        let mut summary = PublishSummary {
            to_generation: local.generation,
            ..Default::default()
        };
        let plan = plan(remote.as_ref(), &local, lineage.as_deref(), &known);
        let (paths, full): (Vec<String>, bool) = match plan {
            Plan::Current => {
                // Documents are current; the edges are checked anyway (cheap when equal), which
                // also fills them in on a server published before edges were.
                summary.from_generation = local.generation;
                let edges = self.publish_edges(catalog)?;
                summary.edge_files = edges.files;
                summary.tasks = edges.tasks;
                return Ok(summary);
            }
            Plan::Since(generation) => {
                summary.from_generation = generation;
                (
                    changed_paths(
                        &catalog.files_at(generation)?,
                        &catalog.files_at(local.generation)?,
                    ),
                    false,
                )
            }
            Plan::Full => {
                let mut all: Vec<String> = catalog
                    .current_files()?
                    .into_keys()
                    .map(|p| p.to_string())
                    .collect();
                all.sort();
                (all, true)
            }
        };
        summary.full = full;
        summary.paths = paths.len();
        let mut tasks = Vec::new();
        if full {
            for name in ["files", "symbols", "chunks", "edges", "edge_files"] {
                tasks.push(self.delete_where(name, &self.scope())?);
            }
            // Another lineage's later generations would go on reading as the last snapshot.
            let later = format!("{} AND generation > {}", self.scope(), local.generation);
            tasks.push(self.delete_where("snapshots", &later)?);
        }
        let files = catalog.current_files()?;
        for batch in paths.chunks(BATCH_PATHS) {
            if !full {
                let list: Vec<String> = batch.iter().map(|p| quote(p)).collect();
                let filter = format!("{} AND path IN [{}]", self.scope(), list.join(", "));
                for name in ["files", "symbols", "chunks"] {
                    tasks.push(self.delete_where(name, &filter)?);
                }
            }
            let (mut fdocs, mut sdocs, mut cdocs) = (Vec::new(), Vec::new(), Vec::new());
            for p in batch {
                let Some(f) = files.get(
                    &RepoPath::new(p)
                        .ok_or_else(|| StoreError::Backend(format!("bad path {p}")))?,
                ) else {
                    continue; // removed: its documents are deleted above
                };
                fdocs.push(self.file_doc(f));
                let symbols = catalog.symbols_of(p)?;
                for (ord, s) in symbols.iter().enumerate() {
                    sdocs.push(self.symbol_doc(p, ord as u32, &s.symbol));
                }
                for c in catalog.chunks_of(p)? {
                    cdocs.push(self.chunk_doc(&c, &symbols, f.provenance));
                }
            }
            crate::pipeline::crash_point("meili-between-delete-and-add");
            tasks.extend(self.add("files", &fdocs)?);
            tasks.extend(self.add("symbols", &sdocs)?);
            tasks.extend(self.add("chunks", &cdocs)?);
        }
        summary.tasks = tasks.len() + 1;
        for t in tasks {
            self.wait(t)?;
        }
        let edges = self.publish_edges(catalog)?;
        summary.edge_files = edges.files;
        summary.tasks += edges.tasks;
        crate::pipeline::crash_point("meili-before-snapshot");
        // Only now does the server's "last indexed" snapshot move.
        let snap = SnapshotDoc {
            id: doc_id(&self.cfg.repo, &["snapshot", &local.generation.to_string()]),
            repo: self.cfg.repo.clone(),
            generation: local.generation,
            commit: local.commit.clone(),
            dirty: local.dirty,
            created_at: local.created_at,
            files: local.files,
            symbols: local.symbols,
            chunks: local.chunks,
            publish_id: Some(publish_id(&self.cfg.repo, local.generation)),
            lineage,
        };
        for t in self.add("snapshots", &[snap])? {
            self.wait(t)?;
        }
        Ok(summary)
    }

    fn add<T: Serialize + Send + Sync>(
        &self,
        name: &str,
        docs: &[T],
    ) -> Result<Vec<TaskInfo>, StoreError> {
        self.add_sized(name, docs, BATCH_DOCS)
    }

    /// Enqueues `docs` in requests of `per_request` documents; the tasks are not awaited.
    fn add_sized<T: Serialize + Send + Sync>(
        &self,
        name: &str,
        docs: &[T],
        per_request: usize,
    ) -> Result<Vec<TaskInfo>, StoreError> {
        let idx = self.index(name);
        let mut out = Vec::new();
        for batch in docs.chunks(per_request) {
            out.push(
                self.rt
                    .block_on(idx.add_or_replace(batch, Some("id")))
                    .map_err(meili_err)?,
            );
        }
        Ok(out)
    }

    /// All documents of an index matching `filter` (within the repo scope), page by page.
    fn fetch_all<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        name: &str,
        filter: Option<&str>,
    ) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::new();
        self.fetch_pages(name, filter, None, |page| out.extend(page))?;
        Ok(out)
    }

    /// [`MeiliStore::fetch_all`] a page at a time, each document with only `fields` (all when
    /// `None`), so a reader of a whole index never holds all of it.
    fn fetch_pages<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        name: &str,
        filter: Option<&str>,
        fields: Option<&[&str]>,
        mut f: impl FnMut(Vec<T>),
    ) -> Result<(), StoreError> {
        let idx = self.index(name);
        let filter = match filter {
            Some(f) => format!("{} AND ({f})", self.scope()),
            None => self.scope(),
        };
        let mut offset = 0;
        loop {
            let mut q = DocumentsQuery::new(&idx);
            q.with_filter(&filter).with_limit(PAGE).with_offset(offset);
            if let Some(fields) = fields {
                q.with_fields(fields.iter().copied());
            }
            let page = match self.rt.block_on(idx.get_documents_with::<T>(&q)) {
                Ok(page) => page,
                // Published by a version without this index: nothing of it to read.
                Err(meilisearch_sdk::errors::Error::Meilisearch(e))
                    if e.error_code == meilisearch_sdk::errors::ErrorCode::IndexNotFound =>
                {
                    break;
                }
                Err(e) => return Err(meili_err(e)),
            };
            let n = page.results.len();
            f(page.results);
            if n < PAGE {
                break;
            }
            offset += n;
        }
        Ok(())
    }

    /// Counts of this repo's documents per index.
    pub fn counts(&self) -> Result<Counts, StoreError> {
        Ok(Counts {
            files: self.count("files")?,
            symbols: self.count("symbols")?,
            chunks: self.count("chunks")?,
            edges: self.count("edges")?,
            snapshots: self.count("snapshots")?,
        })
    }

    /// Full rebuild, step 1: publishes the whole snapshot into staging indexes
    /// (`<prefix>staging_*`) while readers keep using the live ones. Refused when the live indexes
    /// hold other repositories' documents, since swapping whole indexes would drop those.
    pub fn stage_rebuild(&self, catalog: &Catalog) -> Result<Staged<'_>, StoreError> {
        self.ensure_settings()?;
        for name in INDEXES {
            let idx = self.index(name);
            let filter = format!("repo != {}", quote(&self.cfg.repo));
            let res = self
                .rt
                .block_on(
                    idx.search()
                        .with_filter(&filter)
                        .with_limit(1)
                        .execute::<serde_json::Value>(),
                )
                .map_err(meili_err)?;
            if !res.hits.is_empty() {
                return Err(StoreError::Backend(format!(
                    "the indexes under prefix {:?} also hold other repositories; a swap rebuild needs a prefix of its own                      (publish incrementally instead)",
                    self.cfg.prefix
                )));
            }
        }
        let staging = MeiliStore::connect(MeiliConfig {
            prefix: format!("{}staging_", self.cfg.prefix),
            ..self.cfg.clone()
        })?;
        staging.drop_indexes()?;
        let summary = staging.publish(catalog)?;
        Ok(Staged {
            live: self,
            staging,
            summary,
        })
    }

    /// Deletes this store's indexes (tests use a unique prefix each and clean up).
    pub fn drop_indexes(&self) -> Result<(), StoreError> {
        for name in INDEXES {
            let uid = format!("{}{}", self.cfg.prefix, name);
            if let Ok(t) = self.rt.block_on(self.client.delete_index(&uid)) {
                let _ = self.wait(t);
            }
        }
        Ok(())
    }
}

/// A complete snapshot waiting in staging indexes; [`Staged::swap_in`] makes it live atomically.
pub struct Staged<'a> {
    live: &'a MeiliStore,
    staging: MeiliStore,
    pub summary: PublishSummary,
}

impl Staged<'_> {
    /// Swaps all staging indexes with the live ones in one Meilisearch task, then deletes the
    /// old data (now under the staging names).
    pub fn swap_in(self) -> Result<PublishSummary, StoreError> {
        let pairs: Vec<meilisearch_sdk::client::SwapIndexes> = INDEXES
            .iter()
            .map(|n| meilisearch_sdk::client::SwapIndexes {
                indexes: (
                    format!("{}{n}", self.live.cfg.prefix),
                    format!("{}{n}", self.staging.cfg.prefix),
                ),
                rename: None,
            })
            .collect();
        let task = self
            .live
            .rt
            .block_on(self.live.client.swap_indexes(&pairs))
            .map_err(meili_err)?;
        self.live.wait(task)?;
        self.live.forget_snapshot();
        self.staging.drop_indexes()?;
        Ok(self.summary)
    }
}

/// An id no other publish has: readers key what they keep of a snapshot by it, since a
/// staged rebuild starts generations over and a snapshot's time is in seconds.
fn publish_id(repo: &str, generation: u64) -> String {
    doc_id(
        repo,
        &["publish", &generation.to_string(), &super::unique_token()],
    )
}

/// What a publish sends ([`plan`]).
#[derive(Debug, PartialEq, Eq)]
enum Plan {
    /// The server holds the local snapshot already.
    Current,
    /// The files changed since this generation of the local catalog, which the server holds.
    Since(u64),
    /// Every file, after deleting what the server holds of the repository.
    Full,
}

/// What to send so that the server holds `local`: a difference only from a snapshot of the same
/// catalog lineage that the catalog still has. A generation of another lineage (a fresh index
/// folder on a CI runner, a rebuild) or of none (published before lineages) may name other
/// files under the same number, and commits do not tell them apart either (a dirty tree, a
/// change in how codemap reads code), so anything else is published whole.
fn plan(
    remote: Option<&SnapshotDoc>,
    local: &crate::model::Snapshot,
    lineage: Option<&str>,
    known: &BTreeSet<u64>,
) -> Plan {
    let Some(r) = remote else {
        return Plan::Full;
    };
    if lineage.is_none() || r.lineage.as_deref() != lineage {
        return Plan::Full;
    }
    if r.generation == local.generation {
        Plan::Current
    } else if known.contains(&r.generation) {
        Plan::Since(r.generation)
    } else {
        Plan::Full
    }
}

/// Paths added, changed or removed between two file lists.
fn changed_paths(old: &[FileVersion], new: &[FileVersion]) -> Vec<String> {
    let old_m: HashMap<&str, &str> = old
        .iter()
        .map(|f| (f.path.as_str(), f.hash.as_str()))
        .collect();
    let new_m: HashMap<&str, &str> = new
        .iter()
        .map(|f| (f.path.as_str(), f.hash.as_str()))
        .collect();
    let mut out: BTreeSet<String> = BTreeSet::new();
    for (p, h) in &new_m {
        if old_m.get(p) != Some(h) {
            out.insert(p.to_string());
        }
    }
    for p in old_m.keys() {
        if !new_m.contains_key(p) {
            out.insert(p.to_string());
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::docs::cap_words;
    use super::*;

    #[test]
    fn ids_are_valid_for_meilisearch_and_stable() {
        let a = doc_id("repo-a", &["chunk", "x/y.java"]);
        assert_eq!(a, doc_id("repo-a", &["chunk", "x/y.java"]));
        assert_ne!(a, doc_id("repo-b", &["chunk", "x/y.java"]));
        assert!(
            a.len() <= 511
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }

    #[test]
    fn every_publish_gets_an_id_of_its_own() {
        let ids: BTreeSet<String> = (0..1000).map(|_| publish_id("r", 1)).collect();
        assert_eq!(ids.len(), 1000);
    }

    fn published(generation: u64, lineage: Option<&str>) -> SnapshotDoc {
        SnapshotDoc {
            id: doc_id("r", &["snapshot", &generation.to_string()]),
            repo: "r".into(),
            generation,
            commit: Some("c0ffee".into()),
            dirty: false,
            created_at: 1,
            files: 1,
            symbols: 1,
            chunks: 1,
            publish_id: None,
            lineage: lineage.map(str::to_string),
        }
    }

    #[test]
    fn a_publish_sends_a_difference_only_from_a_snapshot_of_its_own_lineage() {
        let local = crate::model::Snapshot::from(published(3, None));
        let known: BTreeSet<u64> = [1, 2, 3].into();
        let mine = Some("L1");
        let plan_of = |doc: Option<SnapshotDoc>| plan(doc.as_ref(), &local, mine, &known);
        assert_eq!(plan_of(None), Plan::Full);
        assert_eq!(plan_of(Some(published(3, mine))), Plan::Current);
        assert_eq!(plan_of(Some(published(2, mine))), Plan::Since(2));
        // The catalog no longer has the generation the server holds.
        assert_eq!(plan_of(Some(published(0, mine))), Plan::Full);
        // Same generation and commit from another catalog (a fresh folder, a rebuild), or from a
        // publish made before lineages: the numbers say nothing about the files.
        assert_eq!(plan_of(Some(published(3, Some("L2")))), Plan::Full);
        assert_eq!(plan_of(Some(published(2, Some("L2")))), Plan::Full);
        assert_eq!(plan_of(Some(published(3, None))), Plan::Full);
        assert_eq!(
            plan(Some(&published(3, None)), &local, None, &known),
            Plan::Full
        );
    }

    #[test]
    fn filters_quote_user_text() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
    }

    #[test]
    fn long_fields_are_capped_below_the_word_limit() {
        let long = "w ".repeat(MAX_FIELD_WORDS + 100);
        assert!(cap_words(&long).split_whitespace().count() <= MAX_FIELD_WORDS);
        assert_eq!(cap_words("short text"), "short text");
    }

    #[test]
    fn identifier_terms_split_code_names() {
        assert_eq!(
            identifier_terms("call getExtension(fileName)").trim(),
            "get extension file name"
        );
    }

    #[test]
    fn changed_paths_cover_add_change_remove() {
        let f = |p: &str, h: &str| FileVersion {
            path: p.into(),
            hash: h.into(),
        };
        let got = changed_paths(
            &[f("a", "1"), f("b", "1"), f("c", "1")],
            &[f("a", "1"), f("b", "2"), f("d", "1")],
        );
        assert_eq!(got, vec!["b", "c", "d"]);
    }
}
