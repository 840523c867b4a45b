//! The middle of a run as one stream: worker threads analyse files and hand each one's chunk
//! documents to the full-text writer at once, while a catalog thread writes the analysed files
//! into the run's open SQLite transaction. Parsing, full-text indexing and catalog writing thus
//! overlap instead of following each other, and a file's text and trees are dropped as soon as
//! it is written (only its call-graph facts are kept for the graph stage).
//!
//! The commit protocol is untouched: the catalog thread commits only when told to, after the
//! full-text `pending` commit ([`CatalogJob::finish`]).

use super::{Outcome, RACY_WINDOW_NS, analyse_file, symbol_names, unix_now_ns};
use crate::lang::ParseLimits;
use crate::model::{RepoPath, SkipReason, Snapshot};
use crate::module::ModuleMap;
use crate::store::StoreError;
use crate::store::catalog::{Catalog, FileRow, FileUpdate, GraphChanges, RunEnd};
use crate::store::fulltext::{ChunkDoc, TextWriter};
use crate::walk::{WalkOptions, WalkedFile};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};

/// One analysed file on its way to the catalog thread (`idx` into the files to read).
pub(super) struct Analysed {
    idx: usize,
    outcome: Outcome,
    /// Encoded call-graph facts (encoded on the worker, stored with the file).
    facts: Option<Vec<u8>>,
}

/// What the workers share.
pub(super) struct Workers<'a> {
    pub files: &'a [WalkedFile],
    pub modules: &'a ModuleMap,
    pub current: &'a HashMap<RepoPath, FileRow>,
    pub walk: &'a WalkOptions,
    pub limits: &'a ParseLimits,
    /// Chunk ids the full-text index already holds for the files being replaced.
    pub old_ids: &'a HashSet<String>,
    pub text: Option<&'a TextWriter>,
    pub progress: &'a (dyn Fn(super::Progress) + Sync),
    pub next: AtomicUsize,
    pub done: AtomicUsize,
    pub failed: AtomicBool,
    pub error: Mutex<Option<StoreError>>,
}

impl Workers<'_> {
    /// Runs `threads` workers in `pool` (or one on this thread without a pool) until every
    /// file is analysed, each sending to `out`.
    pub fn run_all(
        &self,
        pool: Option<&rayon::ThreadPool>,
        threads: usize,
        out: SyncSender<Analysed>,
    ) {
        let analyse = || {
            rayon::scope(|s| {
                for _ in 0..threads {
                    let tx = out.clone();
                    s.spawn(move |_| self.work(tx));
                }
            })
        };
        match pool {
            Some(pool) => pool.install(analyse),
            None => self.work(out.clone()),
        }
    }

    /// One worker: takes files in order (so the catalog thread's reorder buffer stays small)
    /// until none is left or something failed.
    pub fn work(&self, out: SyncSender<Analysed>) {
        let total = self.files.len();
        while !self.failed.load(Ordering::Relaxed) {
            let idx = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(w) = self.files.get(idx) else { break };
            let module = self.modules.module_of(&w.path);
            let outcome =
                analyse_file(w, module, self.current.get(&w.path), self.walk, self.limits);
            let mut facts = None;
            let mut outcome = outcome;
            if let Outcome::New {
                row,
                analysis,
                chunk_ids,
                ..
            } = &mut outcome
            {
                if let Err(e) = self.add_text(row, analysis, chunk_ids) {
                    self.fail(e);
                    break;
                }
                // Only the encoding travels on: the decoded facts are freed here.
                facts = analysis.facts.take().map(|f| f.encode());
            }
            let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(64) || n == total {
                (self.progress)(super::Progress::Analysed { done: n, total });
            }
            if out
                .send(Analysed {
                    idx,
                    outcome,
                    facts,
                })
                .is_err()
            {
                // The catalog thread stopped (its error is reported when it is joined).
                self.failed.store(true, Ordering::Relaxed);
                break;
            }
        }
    }

    fn add_text(
        &self,
        row: &FileRow,
        analysis: &crate::model::FileAnalysis,
        chunk_ids: &[String],
    ) -> Result<(), StoreError> {
        let Some(w) = self.text else { return Ok(()) };
        for (c, id) in analysis.chunks.iter().zip(chunk_ids) {
            if self.old_ids.contains(id) {
                continue;
            }
            let names = symbol_names(c, analysis.symbols.iter());
            w.add(&ChunkDoc {
                id,
                path: row.path.as_str(),
                symbols: &names,
                header: &c.header,
                body: &c.text,
                provenance: row.provenance.as_str(),
            })?;
        }
        Ok(())
    }

    fn fail(&self, e: StoreError) {
        self.failed.store(true, Ordering::Relaxed);
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        slot.get_or_insert(e);
    }

    /// The first error a worker met, if any.
    pub fn take_error(&self) -> Option<StoreError> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// What the catalog thread learned from the stream, reported before it waits for the commit.
#[derive(Default)]
pub(super) struct Collected {
    pub added: usize,
    pub changed: usize,
    /// Files read whose content had not changed.
    pub same_content: usize,
    pub degraded: Vec<(RepoPath, String)>,
    /// Every skipped file of the run (walk and analysis), by path.
    pub skipped: Vec<(RepoPath, SkipReason)>,
    /// Removed files, including current files skipped this run.
    pub removed: Vec<RepoPath>,
    /// Paths analysed this run (their stored facts are superseded).
    pub analysed: Vec<RepoPath>,
    /// Call-graph facts of the analysed files, encoded ([`crate::graph::FileFacts::encode`]): a tenth of
    /// their decoded size, so a large repository's fit in memory until the graph stage.
    pub facts: Vec<(RepoPath, Vec<u8>)>,
    /// Chunk ids that are gone (delete from the full-text index after the commit).
    pub gone: Vec<String>,
    pub text_changed: bool,
}

/// The go-ahead to commit: the graph changes, and where to send the committed snapshot.
pub(super) type Finish = (Option<GraphChanges>, SyncSender<Snapshot>);

/// The catalog thread's inputs.
pub(super) struct CatalogJob<'a> {
    /// Where a first build's catalog goes once committed ([`Catalog::publish`]); `None` for a
    /// catalog that is already in place (its WAL is checkpointed instead).
    pub publish_to: Option<std::path::PathBuf>,
    pub files: &'a [WalkedFile],
    pub current: &'a HashMap<RepoPath, FileRow>,
    pub old_ids: &'a HashSet<String>,
    /// The same ids by file: those of replaced or removed files that do not come back are gone
    /// (a file read again with the same content keeps its chunks).
    pub old_by_file: &'a HashMap<String, Vec<String>>,
    /// The run's end as far as it is known before analysis (removed files, walk's skips).
    pub end: RunEnd,
    pub walk_skipped: Vec<(RepoPath, SkipReason)>,
}

impl CatalogJob<'_> {
    /// Writes the stream into one transaction, reports what it saw on `report`, then waits on
    /// `finish` for the graph changes, commits, sends the snapshot on `committed` once it is
    /// visible and checkpoints the WAL (or publishes a first build). A closed `finish` rolls
    /// the run back.
    pub fn run(
        self,
        mut catalog: Catalog,
        input: Receiver<Analysed>,
        report: SyncSender<Collected>,
        finish: Receiver<Finish>,
    ) -> Result<(), StoreError> {
        let CatalogJob {
            publish_to,
            files,
            current,
            old_ids,
            old_by_file,
            mut end,
            walk_skipped,
        } = self;
        let mut tx = catalog.begin_run()?;
        let mut c = Collected {
            skipped: walk_skipped,
            removed: std::mem::take(&mut end.removed),
            ..Default::default()
        };
        let mut new_ids: HashSet<String> = HashSet::new();
        // Files arrive roughly in order; they are written in order (deterministic rowids).
        let mut pending: BTreeMap<usize, Analysed> = BTreeMap::new();
        let mut next = 0usize;
        let mut write = |a: Analysed, c: &mut Collected| -> Result<(), StoreError> {
            let w = &files[a.idx];
            match a.outcome {
                Outcome::Skipped(reason) => {
                    if current.contains_key(&w.path) {
                        c.removed.push(w.path.clone());
                    }
                    c.skipped.push((w.path.clone(), reason));
                }
                Outcome::SameContent => {
                    let racy = unix_now_ns().saturating_sub(w.mtime_ns) < RACY_WINDOW_NS;
                    end.touched
                        .push((w.path.clone(), if racy { 0 } else { w.mtime_ns }));
                    c.same_content += 1;
                }
                Outcome::New {
                    row,
                    analysis,
                    chunk_ids,
                    content,
                } => {
                    if current.contains_key(&row.path) {
                        c.changed += 1
                    } else {
                        c.added += 1
                    }
                    if let Some(reason) = &analysis.degraded {
                        c.degraded.push((row.path.clone(), reason.clone()));
                    }
                    tx.put_file(&FileUpdate {
                        row: &row,
                        analysis: &analysis,
                        chunk_ids: &chunk_ids,
                        content: &content,
                        facts: a.facts.as_deref(),
                    })?;
                    if let Some(f) = a.facts {
                        c.facts.push((row.path.clone(), f));
                    }
                    new_ids.extend(chunk_ids);
                    c.analysed.push(row.path);
                }
            }
            Ok(())
        };
        for a in input {
            pending.insert(a.idx, a);
            while let Some(a) = pending.remove(&next) {
                write(a, &mut c)?;
                next += 1;
            }
        }
        // Left over only when a worker stopped early; the run is then abandoned anyway.
        for (_, a) in std::mem::take(&mut pending) {
            write(a, &mut c)?;
        }
        c.gone = c
            .analysed
            .iter()
            .chain(&c.removed)
            .filter_map(|p| old_by_file.get(p.as_str()))
            .flatten()
            .filter(|id| !new_ids.contains(*id))
            .cloned()
            .collect();
        c.text_changed = !c.gone.is_empty() || new_ids.iter().any(|id| !old_ids.contains(id));
        c.skipped.sort_by(|a, b| a.0.cmp(&b.0));
        c.removed.sort();
        end.removed = c.removed.clone();
        end.skipped = c
            .skipped
            .iter()
            .map(|(p, r)| (p.clone(), r.label().to_string(), r.to_string()))
            .collect();
        end.text_changed = c.text_changed;
        // Reported before the run is closed, so the graph and the full-text commit overlap
        // closing (the snapshot row and, on a fresh build, the secondary indexes).
        if report.send(c).is_err() {
            return Err(StoreError::Backend("index run abandoned".into()));
        }
        let closing = std::time::Instant::now();
        tx.close(&end)?;
        tracing::debug!(
            ms = closing.elapsed().as_millis() as u64,
            "catalog stream written and closed"
        );
        let Ok((graph, committed)) = finish.recv() else {
            return Err(StoreError::Backend("index run abandoned".into()));
        };
        let snapshot = tx.commit(graph.as_ref())?;
        match publish_to {
            Some(dest) => {
                catalog.publish(&dest)?;
                let _ = committed.send(snapshot);
                Ok(())
            }
            None => {
                let _ = committed.send(snapshot);
                catalog.checkpoint()
            }
        }
    }
}
