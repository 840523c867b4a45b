//! The read side of an index, whichever backend holds it: the embedded folder or Meilisearch.
//!
//! Everything the query side, the bot and docgen read goes through [`IndexRead`], so they work
//! unchanged on either backend. One conformance suite (tests/store_conformance.rs) runs every
//! implementation against the same expectations.

use crate::diff::{FileVersion, SymbolVersion};
use crate::graph::Edge;
use crate::model::{RepoPath, Snapshot};
use crate::store::StoreError;
use crate::store::catalog::{ChunkRow, FileRow, SymbolRow};
use std::collections::HashMap;

/// A full-text hit: chunk id, path, backend score (comparable within one result list only).
pub type TextHit = (String, String, f32);

/// Read access to one repository's last published snapshot.
///
/// Contracts common to all methods:
/// - Reads see one published snapshot; never a half-applied run.
/// - A reader is bound to one repository scope; no method returns another repository's data, and
///   the scope is enforced by the backend's query (not by filtering results afterwards).
/// - Unknown names, paths or ids give empty results / `None`, not errors. Errors mean the backend
///   failed (I/O, server down), and say so.
/// - Results are deterministic: the same snapshot and arguments give the same order.
pub trait IndexRead {
    /// The snapshot readers see (`None` before the first run).
    fn last_snapshot(&self) -> Result<Option<Snapshot>, StoreError>;
    /// Files of the snapshot keyed by path.
    fn current_files(&self) -> Result<HashMap<RepoPath, FileRow>, StoreError>;
    /// One file of the snapshot.
    fn file(&self, path: &str) -> Result<Option<FileRow>, StoreError>;
    /// Symbols by simple name (case-insensitive) or by qualified name / qualified suffix
    /// (`Outer.method`, `pkg.Outer#method`), ordered by path then line.
    fn symbols_named(&self, name: &str) -> Result<Vec<SymbolRow>, StoreError>;
    /// Symbols of one file in source order.
    fn symbols_of(&self, path: &str) -> Result<Vec<SymbolRow>, StoreError>;
    /// [`IndexRead::symbols_of`] for several files at once, by path (every asked path is a key).
    fn symbols_of_many(
        &self,
        paths: &[&str],
    ) -> Result<HashMap<String, Vec<SymbolRow>>, StoreError> {
        paths
            .iter()
            .map(|p| Ok((p.to_string(), self.symbols_of(p)?)))
            .collect()
    }
    /// Every symbol, ordered by path then line.
    fn all_symbols(&self) -> Result<Vec<SymbolRow>, StoreError>;
    /// One chunk by id.
    fn chunk(&self, id: &str) -> Result<Option<ChunkRow>, StoreError>;
    /// Chunks of one file in order.
    fn chunks_of(&self, path: &str) -> Result<Vec<ChunkRow>, StoreError>;
    /// [`IndexRead::chunks_of`] for several files at once, by path (every asked path is a key).
    fn chunks_of_many(&self, paths: &[&str]) -> Result<HashMap<String, Vec<ChunkRow>>, StoreError> {
        paths
            .iter()
            .map(|p| Ok((p.to_string(), self.chunks_of(p)?)))
            .collect()
    }
    /// Keyword search over chunks (symbols, header, body), best first, at most `limit`.
    /// Every returned id resolves through [`IndexRead::chunk`].
    fn search_chunks(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError>;
    /// Readies [`IndexRead::search_chunks`] for many questions (a long-lived reader's
    /// preload): a backend that scores search hits itself reads what scoring needs once, so
    /// that each question reads only what is new. The default has nothing to ready.
    fn warm_search(&self) -> Result<(), StoreError> {
        Ok(())
    }

    // The call graph (empty when the index was built without it).
    /// One current symbol by id (`java:pkg.T#m(int)`).
    fn symbol_by_id(&self, id: &str) -> Result<Option<SymbolRow>, StoreError>;
    /// Edges whose use site is in `caller` (a symbol or pseudo id), ordered by use-site file,
    /// then source order; display names filled in.
    fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError>;
    /// Edges pointing at `callee` (a symbol, external or pseudo id), in the same order.
    fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError>;
    /// [`IndexRead::edges_to`] for several callees at once, by callee (every asked id is a key).
    /// A backend that pays a round trip per call answers in one per batch.
    fn edges_to_many(&self, callees: &[&str]) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        callees
            .iter()
            .map(|c| Ok((c.to_string(), self.edges_to(c)?)))
            .collect()
    }
    /// [`IndexRead::edges_from`] for several callers at once, by caller.
    fn edges_from_many(&self, callers: &[&str]) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        callers
            .iter()
            .map(|c| Ok((c.to_string(), self.edges_from(c)?)))
            .collect()
    }
    /// Number of edges in the snapshot.
    fn edge_count(&self) -> Result<u64, StoreError>;
    /// Whether the snapshot's call graph was built: false when the run that made it had the
    /// graph turned off (`CODEMAP_SKIP_GRAPH=1`), so "no edges" means "not looked", not "none".
    fn graph_built(&self) -> Result<bool, StoreError>;
    /// Every edge of the snapshot, ordered by use-site file then source order, display names
    /// filled in; `f` sees each in turn. For whole-graph readers (docgen's code maps) that would
    /// otherwise ask [`IndexRead::edges_from`] once per symbol. An error from `f` stops the walk
    /// and is returned.
    fn for_each_edge(
        &self,
        f: &mut dyn FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
    /// Every edge of the snapshot with its position among its use-site file's edges, in no
    /// particular order: for a reader that orders what it keeps itself, so that a backend need
    /// not hold the whole graph to sort it ([`IndexRead::for_each_edge`]'s order is by
    /// use-site file, then position).
    fn for_each_edge_unordered(
        &self,
        f: &mut dyn FnMut(u32, Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let (mut file, mut ord) = (String::new(), 0u32);
        self.for_each_edge(&mut |e| {
            if e.caller_file == file {
                ord += 1;
            } else {
                file.clone_from(&e.caller_file);
                ord = 0;
            }
            f(ord, e)
        })
    }
    /// The whole snapshot at once: files, every symbol and every edge, all from the same
    /// snapshot (whole-graph readers such as docgen's code maps). The default reads them one
    /// after the other and retries if a run published in between; a backend that can read them
    /// side by side does. `None` before the first run.
    fn whole_snapshot(&self) -> Result<Option<WholeSnapshot>, StoreError> {
        self.whole_snapshot_keeping(&|_| true)
    }
    /// [`IndexRead::whole_snapshot`] with only the edges `keep` accepts held in memory (docgen
    /// leaves out read edges, the most numerous kind, as they stream in).
    fn whole_snapshot_keeping(
        &self,
        keep: &(dyn Fn(&Edge) -> bool + Sync),
    ) -> Result<Option<WholeSnapshot>, StoreError> {
        for _ in 0..READ_RETRIES {
            let Some(snapshot) = self.last_snapshot()? else {
                return Ok(None);
            };
            let files = self.current_files()?;
            let symbols = self.all_symbols()?;
            let mut edges = Vec::new();
            self.for_each_edge(&mut |e| {
                if keep(&e) {
                    edges.push(e);
                }
                Ok(())
            })?;
            if self.last_snapshot()?.map(|s| s.generation) == Some(snapshot.generation) {
                return Ok(Some(WholeSnapshot {
                    snapshot,
                    files,
                    symbols,
                    edges,
                }));
            }
        }
        Err(StoreError::KeptChanging(READ_RETRIES))
    }
    /// Files and symbols as they were at the earlier snapshot `generation`, for snapshot diffs
    /// ([`crate::diff::diff`]). `None` when the backend keeps no history (the default) or holds
    /// no snapshot with that generation.
    fn versions_at(&self, generation: u64) -> Result<Option<SnapshotVersions>, StoreError> {
        let _ = generation;
        Ok(None)
    }
    /// The earlier snapshot `generation` and the snapshot diff from it to the current one.
    /// `None` when the backend keeps no history or holds no snapshot with that generation. The
    /// default reads both snapshots whole through [`IndexRead::versions_at`]; a backend that
    /// knows which files changed in between reads only those (the result is the same).
    fn diff_since(
        &self,
        generation: u64,
    ) -> Result<Option<(Snapshot, crate::diff::SnapshotDiff)>, StoreError> {
        let Some(now) = self.last_snapshot()? else {
            return Ok(None);
        };
        let (Some(old), Some(new)) = (
            self.versions_at(generation)?,
            self.versions_at(now.generation)?,
        ) else {
            return Ok(None);
        };
        let d = crate::diff::diff(
            generation,
            now.generation,
            &old.files,
            &new.files,
            &old.symbols,
            &new.symbols,
        );
        Ok(Some((old.snapshot, d)))
    }
}

/// How often a whole read starts again when an index run publishes while it reads.
const READ_RETRIES: usize = 3;

/// One snapshot read whole ([`IndexRead::whole_snapshot`]).
#[derive(Debug, Clone)]
pub struct WholeSnapshot {
    pub snapshot: Snapshot,
    /// Files keyed by path.
    pub files: HashMap<RepoPath, FileRow>,
    /// Every symbol, ordered by path then line.
    pub symbols: Vec<SymbolRow>,
    /// Every edge, ordered by use-site file then source order, display names filled in.
    pub edges: Vec<Edge>,
}

/// One snapshot's files and symbols as the diff reads them.
#[derive(Debug, Clone)]
pub struct SnapshotVersions {
    pub snapshot: Snapshot,
    pub files: Vec<FileVersion>,
    pub symbols: Vec<SymbolVersion>,
}

impl IndexRead for crate::store::EmbeddedIndex {
    fn last_snapshot(&self) -> Result<Option<Snapshot>, StoreError> {
        self.catalog.last_snapshot()
    }
    fn current_files(&self) -> Result<HashMap<RepoPath, FileRow>, StoreError> {
        self.catalog.current_files()
    }
    fn file(&self, path: &str) -> Result<Option<FileRow>, StoreError> {
        self.catalog.file(path)
    }
    fn symbols_named(&self, name: &str) -> Result<Vec<SymbolRow>, StoreError> {
        self.catalog.symbols_named(name)
    }
    fn symbols_of(&self, path: &str) -> Result<Vec<SymbolRow>, StoreError> {
        self.catalog.symbols_of(path)
    }
    fn all_symbols(&self) -> Result<Vec<SymbolRow>, StoreError> {
        self.catalog.all_symbols()
    }
    fn chunk(&self, id: &str) -> Result<Option<ChunkRow>, StoreError> {
        self.catalog.chunk(id)
    }
    fn chunks_of(&self, path: &str) -> Result<Vec<ChunkRow>, StoreError> {
        self.catalog.chunks_of(path)
    }
    fn search_chunks(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        // Documents the catalog does not know belong to no published snapshot (a killed run).
        // Checked hit by hit (one primary-key lookup each, remembered until the catalog
        // changes), no chunk text read.
        self.known_hits(self.text.search(query, limit)?)
    }
    fn symbol_by_id(&self, id: &str) -> Result<Option<SymbolRow>, StoreError> {
        self.catalog.symbol_by_id(id)
    }
    fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError> {
        self.catalog.edges_from(caller)
    }
    fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        self.catalog.edges_to(callee)
    }
    fn edge_count(&self) -> Result<u64, StoreError> {
        self.catalog.edge_count()
    }
    fn graph_built(&self) -> Result<bool, StoreError> {
        Ok(self.catalog.last_snapshot()?.is_none() || self.catalog.graph_ready()?)
    }
    fn for_each_edge(
        &self,
        f: &mut dyn FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.catalog.for_each_edge(f)
    }
    fn whole_snapshot_keeping(
        &self,
        keep: &(dyn Fn(&Edge) -> bool + Sync),
    ) -> Result<Option<WholeSnapshot>, StoreError> {
        // Edges on a second connection and thread while this one reads files and symbols: the
        // two halves take about the same time on a large index. Each side reads inside its own
        // transaction; a run publishing in between shows as two generations, and the read
        // starts again.
        let path = self.dir.catalog();
        for _ in 0..READ_RETRIES {
            let (mine, theirs) = std::thread::scope(|s| {
                let edges = s.spawn(|| {
                    let second = crate::store::catalog::Catalog::open_read(&path)?;
                    second.in_read_txn(|c| {
                        let generation = c.last_snapshot()?.map(|s| s.generation);
                        let mut edges = Vec::new();
                        c.for_each_edge(|e| {
                            if keep(&e) {
                                edges.push(e);
                            }
                            Ok(())
                        })?;
                        Ok((generation, edges))
                    })
                });
                let mine = self.catalog.in_read_txn(|c| {
                    let Some(snapshot) = c.last_snapshot()? else {
                        return Ok(None);
                    };
                    Ok(Some((snapshot, c.current_files()?, c.all_symbols()?)))
                });
                let theirs = edges
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                (mine, theirs)
            });
            let Some((snapshot, files, symbols)) = mine? else {
                return Ok(None);
            };
            let (generation, edges) = theirs?;
            if generation == Some(snapshot.generation) {
                return Ok(Some(WholeSnapshot {
                    snapshot,
                    files,
                    symbols,
                    edges,
                }));
            }
        }
        Err(StoreError::KeptChanging(READ_RETRIES))
    }
    fn versions_at(&self, generation: u64) -> Result<Option<SnapshotVersions>, StoreError> {
        let Some(snapshot) = self
            .catalog
            .snapshots()?
            .into_iter()
            .find(|s| s.generation == generation)
        else {
            return Ok(None);
        };
        Ok(Some(SnapshotVersions {
            snapshot,
            files: self.catalog.files_at(generation)?,
            symbols: self.catalog.symbols_at(generation)?,
        }))
    }
    fn diff_since(
        &self,
        generation: u64,
    ) -> Result<Option<(Snapshot, crate::diff::SnapshotDiff)>, StoreError> {
        let snapshots = self.catalog.snapshots()?;
        let (Some(now), Some(old)) = (
            snapshots.last(),
            snapshots.iter().find(|s| s.generation == generation),
        ) else {
            return Ok(None);
        };
        // Only the files whose rows began or ended in between can differ.
        let paths = self
            .catalog
            .paths_changed_between(generation, now.generation)?;
        let (old_files, old_symbols) = self.catalog.versions_of_paths(generation, &paths)?;
        let (new_files, new_symbols) = self.catalog.versions_of_paths(now.generation, &paths)?;
        let d = crate::diff::diff(
            generation,
            now.generation,
            &old_files,
            &new_files,
            &old_symbols,
            &new_symbols,
        );
        Ok(Some((old.clone(), d)))
    }
}
