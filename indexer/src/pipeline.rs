//! One index run: walk → plan against the last snapshot → analyse changed files in parallel →
//! write full text and catalog → publish the snapshot.
//!
//! Ordering is what makes a killed run harmless:
//! 1. new chunk documents are added to tantivy and committed (payload `pending`): invisible,
//!    because readers only show chunks the catalog knows;
//! 2. the catalog applies the whole run in one SQLite transaction: this is the moment the new
//!    snapshot becomes visible;
//! 3. documents of chunks that no longer exist are deleted and committed (payload `gen=N`).
//!
//! A run killed anywhere leaves either the old or the new snapshot readable; the next run sees a
//! payload that does not match the catalog's text generation and reconciles the two.

use crate::lang::{self, ParseLimits};
use crate::model::{FileAnalysis, RepoPath, SkipReason, Snapshot};
use crate::module::ModuleMap;
use crate::store::catalog::{Catalog, FileRow, FileUpdate, RunChanges, SymbolRow};
use crate::store::fulltext::{ChunkDoc, FullText, TextWriter};
use crate::store::{IndexDir, StoreError, WriteLock};
use crate::walk::{self, WalkOptions, WalkedFile};
use crate::{git, model::Chunk};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

mod graph;
pub use graph::GraphStats;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Walk(#[from] walk::WalkError),
}

#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    pub walk: WalkOptions,
    pub limits: ParseLimits,
    /// Worker threads for parsing (0 = all cores).
    pub threads: usize,
    /// Drop the existing index and build from scratch.
    pub rebuild: bool,
}

/// Progress events for a progress bar; cheap to ignore.
#[derive(Debug, Clone, Copy)]
pub enum Progress {
    Planned { to_analyse: usize, unchanged: usize },
    Analysed { done: usize, total: usize },
    Writing,
}

#[derive(Debug, Clone)]
pub struct RunSummary {
    pub snapshot: Snapshot,
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    pub unchanged: usize,
    pub skipped: Vec<(RepoPath, SkipReason)>,
    /// Files indexed as text only because structural parsing failed (path, reason).
    pub degraded: Vec<(RepoPath, String)>,
    pub ignored_count: u64,
    pub reconciled: bool,
    pub elapsed: Duration,
    /// What the call-graph stage did (`None` when it did not run: nothing changed).
    pub graph: Option<GraphStats>,
}

/// A file whose content was (re)read this run.
struct Analysed {
    walked: WalkedFile,
    outcome: Outcome,
}

enum Outcome {
    Skipped(SkipReason),
    /// Same content as the stored version: only the mtime moves.
    SameContent,
    New {
        row: FileRow,
        analysis: Box<FileAnalysis>,
        chunk_ids: Vec<String>,
        /// zstd of the bytes read (compressed here, on the parallel workers).
        content: Vec<u8>,
    },
}

/// Runs one incremental index of `root` into `dir`.
pub fn run(
    root: &Path,
    dir: &IndexDir,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<RunSummary, IndexError> {
    let started = Instant::now();
    let _lock = WriteLock::acquire(dir)?;
    if opts.rebuild {
        remove_index_files(dir)?;
    }
    let mut catalog = match Catalog::open(&dir.catalog()) {
        Err(StoreError::SchemaMismatch { .. }) => {
            tracing::warn!("index format changed; rebuilding {}", dir.root().display());
            remove_index_files(dir)?;
            Catalog::open(&dir.catalog())?
        }
        other => other?,
    };
    // An index built with the graph turned off has no facts for its unchanged files.
    if crate::graph::enabled() && catalog.last_snapshot()?.is_some() && !catalog.graph_ready()? {
        tracing::warn!(
            "index has no call graph; rebuilding {}",
            dir.root().display()
        );
        drop(catalog);
        remove_index_files(dir)?;
        catalog = Catalog::open(&dir.catalog())?;
    }
    let text = FullText::open(&dir.text())?;
    let text_gen = catalog.text_generation()?;
    let in_sync = text.payload()?.as_deref() == Some(format!("gen={text_gen}").as_str())
        || (text_gen == 0 && catalog.last_snapshot()?.is_none());
    let mut writer: Option<TextWriter> = None;
    let threads = if opts.threads == 0 {
        rayon::current_num_threads()
    } else {
        opts.threads
    };
    if !in_sync {
        tracing::info!("full-text index out of step with the catalog (killed run?); reconciling");
        let w = writer.insert(text.writer(threads)?);
        reconcile(&catalog, &text, w)?;
    }

    let walked = walk::walk(root, &opts.walk)?;
    let current = catalog.current_files()?;
    let paths: Vec<RepoPath> = walked.files.iter().map(|f| f.path.clone()).collect();
    let modules = ModuleMap::detect(root, &paths);

    let mut to_read = Vec::new();
    let mut unchanged = 0usize;
    for f in walked.files {
        let module = modules.module_of(&f.path);
        match current.get(&f.path) {
            Some(prev)
                if prev.mtime_ns == f.mtime_ns && prev.size == f.size && prev.module == module =>
            {
                unchanged += 1
            }
            _ => to_read.push(f),
        }
    }
    let seen: HashSet<&RepoPath> = paths.iter().collect();
    let removed: Vec<RepoPath> = {
        let mut r: Vec<RepoPath> = current
            .keys()
            .filter(|p| !seen.contains(p))
            .cloned()
            .collect();
        r.sort();
        r
    };
    progress(Progress::Planned {
        to_analyse: to_read.len(),
        unchanged,
    });

    let total = to_read.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let analyse = || -> Vec<Analysed> {
        to_read
            .into_par_iter()
            .map(|w| {
                let module = modules.module_of(&w.path).to_string();
                let outcome =
                    analyse_file(&w, &module, current.get(&w.path), &opts.walk, &opts.limits);
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if n.is_multiple_of(64) || n == total {
                    progress(Progress::Analysed { done: n, total });
                }
                Analysed { walked: w, outcome }
            })
            .collect()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .ok();
    let analysed = match &pool {
        Some(pool) => pool.install(analyse),
        None => analyse(),
    };
    tracing::info!(
        files = analysed.len(),
        ms = started.elapsed().as_millis() as u64,
        "walked and analysed"
    );
    progress(Progress::Writing);
    tracing::debug!(ms = started.elapsed().as_millis() as u64, "analysed");

    let mut skipped: Vec<(RepoPath, SkipReason)> = walked.skipped;
    let mut updates = Vec::new();
    let mut touched = Vec::new();
    let mut removed = removed;
    let (mut added, mut changed) = (0, 0);
    let mut degraded = Vec::new();
    for a in &analysed {
        match &a.outcome {
            Outcome::Skipped(reason) => {
                skipped.push((a.walked.path.clone(), reason.clone()));
                if current.contains_key(&a.walked.path) {
                    removed.push(a.walked.path.clone());
                }
            }
            Outcome::SameContent => {
                let racy = unix_now_ns().saturating_sub(a.walked.mtime_ns) < RACY_WINDOW_NS;
                touched.push((
                    a.walked.path.clone(),
                    if racy { 0 } else { a.walked.mtime_ns },
                ));
                unchanged += 1;
            }
            Outcome::New {
                row,
                analysis,
                chunk_ids,
                content,
            } => {
                if current.contains_key(&row.path) {
                    changed += 1
                } else {
                    added += 1
                }
                if let Some(reason) = &analysis.degraded {
                    degraded.push((row.path.clone(), reason.clone()));
                }
                updates.push(FileUpdate {
                    row: row.clone(),
                    analysis,
                    chunk_ids: chunk_ids.clone(),
                    content: content.clone(),
                });
            }
        }
    }
    skipped.sort_by(|a, b| a.0.cmp(&b.0));

    // Chunk documents to add (new ids) and, after the catalog commit, to delete (gone ids).
    let replaced: Vec<&str> = updates
        .iter()
        .map(|u| u.row.path.as_str())
        .chain(removed.iter().map(|p| p.as_str()))
        .collect();
    let old_ids: HashSet<String> = catalog.chunk_ids_of(&replaced)?.into_iter().collect();
    let new_ids: HashSet<&str> = updates
        .iter()
        .flat_map(|u| u.chunk_ids.iter().map(|s| s.as_str()))
        .collect();
    let gone: Vec<&String> = old_ids
        .iter()
        .filter(|id| !new_ids.contains(id.as_str()))
        .collect();
    let text_changed = !gone.is_empty() || new_ids.iter().any(|id| !old_ids.contains(*id));

    // The call graph, re-resolved over all files whenever one changed. It is computed on
    // another thread while the full-text index takes the new chunks (its commit waits on I/O).
    let graph_input = if crate::graph::enabled()
        && (!updates.is_empty() || !removed.is_empty() || !catalog.graph_ready()?)
    {
        Some(graph::load(&catalog, &updates, &removed)?)
    } else {
        None
    };
    let (text_result, graph_out) = std::thread::scope(|scope| {
        let job = graph_input.map(|stored| {
            let (updates, removed, pool) = (&updates, &removed, &pool);
            scope.spawn(move || {
                let stage = || graph::changes(stored, updates, removed);
                match pool {
                    Some(pool) => pool.install(stage),
                    None => stage(),
                }
            })
        });
        let text_result = (|| -> Result<(), IndexError> {
            if text_changed {
                let w = match writer.as_mut() {
                    Some(w) => w,
                    None => writer.insert(text.writer(threads)?),
                };
                for u in &updates {
                    let symbols = u.analysis.symbols.as_slice();
                    for (c, id) in u.analysis.chunks.iter().zip(&u.chunk_ids) {
                        if old_ids.contains(id) {
                            continue;
                        }
                        let names = symbol_names(c, symbols.iter());
                        w.add(&ChunkDoc {
                            id,
                            path: u.row.path.as_str(),
                            symbols: &names,
                            header: &c.header,
                            body: &c.text,
                            provenance: u.row.provenance.as_str(),
                        })?;
                    }
                }
                crash_point("after-text-add");
                w.commit("pending")?;
                tracing::debug!(
                    ms = started.elapsed().as_millis() as u64,
                    "full text committed"
                );
                crash_point("after-pending-commit");
            }
            Ok(())
        })();
        (text_result, job.map(|h| h.join()))
    });
    text_result?;
    let (graph_changes, graph_stats) = match graph_out {
        None if !crate::graph::enabled() && (!updates.is_empty() || !removed.is_empty()) => (
            Some(crate::store::catalog::GraphChanges {
                stale: true,
                ..Default::default()
            }),
            None,
        ),
        Some(Ok((changes, stats))) => (Some(changes), Some(stats)),
        // A bug in resolution must not cost the run: the stored graph stays as it was.
        Some(Err(_)) => {
            tracing::error!("call graph resolution panicked; edges left as they were");
            (None, None)
        }
        None => (None, None),
    };

    let (commit, dirty) = git::head(root);
    let skipped_rows = skipped
        .iter()
        .map(|(p, r)| (p.clone(), r.label().to_string(), r.to_string()))
        .collect();
    let apply_started = Instant::now();
    let snapshot = catalog.apply(&RunChanges {
        commit,
        dirty,
        created_at: unix_now(),
        updated: updates,
        removed: removed.clone(),
        touched,
        skipped: skipped_rows,
        text_changed,
        graph: graph_changes,
    })?;

    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "catalog committed"
    );
    tracing::info!(
        ms = apply_started.elapsed().as_millis() as u64,
        "catalog transaction"
    );
    crash_point("after-catalog-commit");
    if let Some(mut w) = writer {
        for id in gone {
            w.delete_id(id);
        }
        w.commit(&format!("gen={}", catalog.text_generation()?))?;
        w.finish()?;
    }

    Ok(RunSummary {
        snapshot,
        added,
        changed,
        removed: removed.len(),
        unchanged,
        skipped,
        degraded,
        ignored_count: walked.ignored_count,
        reconciled: !in_sync,
        elapsed: started.elapsed(),
        graph: graph_stats,
    })
}

/// Analyses one changed file for the watch overlay (no comparison with the stored version).
pub(crate) fn analyse_for_overlay(
    w: &WalkedFile,
    module: &str,
    wopts: &WalkOptions,
    limits: &ParseLimits,
) -> crate::overlay::OverlayFile {
    match analyse_file(w, module, None, wopts, limits) {
        Outcome::New {
            row,
            analysis,
            chunk_ids,
            ..
        } => {
            let analysis = *analysis;
            crate::overlay::OverlayFile::Changed {
                provenance: row.provenance,
                chunks: chunk_ids.into_iter().zip(analysis.chunks).collect(),
                symbols: analysis.symbols,
            }
        }
        Outcome::Skipped(_) | Outcome::SameContent => crate::overlay::OverlayFile::Removed,
    }
}

/// Reads, classifies, hashes and (when the content is new) analyses one file.
fn analyse_file(
    w: &WalkedFile,
    module: &str,
    prev: Option<&FileRow>,
    wopts: &WalkOptions,
    limits: &ParseLimits,
) -> Outcome {
    let bytes = match std::fs::read(&w.abs) {
        Ok(b) => b,
        Err(e) => {
            return Outcome::Skipped(SkipReason::Unreadable {
                error: e.to_string(),
            });
        }
    };
    // The file may have grown since the walk measured it.
    if bytes.len() as u64 > wopts.max_file_size {
        return Outcome::Skipped(SkipReason::TooLarge {
            size: bytes.len() as u64,
            cap: wopts.max_file_size,
        });
    }
    let provenance = match walk::classify_content(&w.path, &bytes) {
        Ok(p) => p,
        Err(reason) => return Outcome::Skipped(reason),
    };
    let hash = blake3::hash(&bytes).to_hex().to_string();
    if let Some(prev) = prev
        && prev.hash == hash
        && prev.module == module
        && prev.provenance == provenance
    {
        return Outcome::SameContent;
    }
    let analysis = lang::analyze(w.language, &w.path, module, &bytes, limits);
    let chunk_ids = analysis
        .chunks
        .iter()
        .map(|c| chunk_id(&w.path, c))
        .collect();
    // A file rewritten while we read it, or so recently that another write could share its
    // mtime (clocks tick coarsely; git calls this "racily clean"), gets mtime 0 so that the next
    // run compares its content instead of trusting the mtime.
    let racy = unix_now_ns().saturating_sub(w.mtime_ns) < RACY_WINDOW_NS;
    let mtime_ns = match std::fs::metadata(&w.abs).ok().map(|m| mtime_ns(&m)) {
        Some(m) if m == w.mtime_ns && !racy => w.mtime_ns,
        _ => 0,
    };
    let lines = bytecount_lines(&bytes);
    Outcome::New {
        row: FileRow {
            path: w.path.clone(),
            language: w.language,
            hash,
            size: bytes.len() as u64,
            mtime_ns,
            lines,
            module: module.to_string(),
            provenance,
            degraded: analysis.degraded.clone(),
        },
        analysis: Box::new(analysis),
        chunk_ids,
        content: crate::store::catalog::compress(&bytes),
    }
}

/// Modification time in nanoseconds since the epoch (0 when the platform has none).
pub fn mtime_ns(m: &std::fs::Metadata) -> i64 {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn bytecount_lines(bytes: &[u8]) -> u32 {
    let n = bytes.iter().filter(|&&b| b == b'\n').count();
    (n + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))) as u32
}

/// Content-derived chunk id: an unchanged chunk keeps its id across runs, so it is not rewritten.
pub fn chunk_id(path: &RepoPath, c: &Chunk) -> String {
    let mut h = blake3::Hasher::new();
    h.update(path.as_str().as_bytes());
    h.update(&c.start_line.to_le_bytes());
    h.update(&c.end_line.to_le_bytes());
    h.update(c.header.as_bytes());
    h.update(c.text.as_bytes());
    h.finalize().to_hex()[..24].to_string()
}

/// Names searched with a boost: symbols declared inside the chunk and the one covering it.
pub fn symbol_names<'a>(
    c: &Chunk,
    symbols: impl Iterator<Item = &'a crate::model::Symbol>,
) -> String {
    let mut names = String::new();
    for s in symbols {
        let declared_here = s.name_line >= c.start_line && s.name_line <= c.end_line;
        let covering = c.symbol.as_ref() == Some(&s.id);
        if declared_here || covering {
            if !names.is_empty() {
                names.push(' ');
            }
            names.push_str(&s.name);
        }
    }
    names
}

/// Makes the full-text index hold exactly the catalog's chunks.
fn reconcile(catalog: &Catalog, text: &FullText, w: &mut TextWriter) -> Result<(), StoreError> {
    text.reload()?;
    let in_text: HashSet<String> = text.all_ids()?.into_iter().collect();
    let chunks = catalog.all_chunks()?;
    let in_catalog: HashSet<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
    for id in &in_text {
        if !in_catalog.contains(id.as_str()) {
            w.delete_id(id);
        }
    }
    let files = catalog.current_files()?;
    let mut symbols_by_file: HashMap<String, Vec<SymbolRow>> = HashMap::new();
    for c in chunks.iter().filter(|c| !in_text.contains(&c.id)) {
        let p = c.path.as_str();
        if !symbols_by_file.contains_key(p) {
            symbols_by_file.insert(p.to_string(), catalog.symbols_of(p)?);
        }
        let names = symbol_names(&c.chunk, symbols_by_file[p].iter().map(|s| &s.symbol));
        let prov = files.get(&c.path).map(|f| f.provenance).unwrap_or_default();
        w.add(&ChunkDoc {
            id: &c.id,
            path: p,
            symbols: &names,
            header: &c.chunk.header,
            body: &c.chunk.text,
            provenance: prov.as_str(),
        })?;
    }
    w.commit(&format!("gen={}", catalog.text_generation()?))?;
    Ok(())
}

/// Test hook: `CODEMAP_CRASH_AT=<point>` aborts the process there, like a power cut or SIGKILL,
/// so the crash-safety tests can stop a run at each step of the commit protocol.
pub(crate) fn crash_point(name: &str) {
    static AT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if AT
        .get_or_init(|| std::env::var("CODEMAP_CRASH_AT").ok())
        .as_deref()
        == Some(name)
    {
        std::process::abort();
    }
}

fn remove_index_files(dir: &IndexDir) -> Result<(), StoreError> {
    for suffix in ["", "-wal", "-shm"] {
        let p = dir.root().join(format!("index.db{suffix}"));
        if p.exists() {
            std::fs::remove_file(p)?;
        }
    }
    if dir.text().exists() {
        std::fs::remove_dir_all(dir.text())?;
    }
    Ok(())
}

/// Files modified less than this before being read are re-checked by content next run.
const RACY_WINDOW_NS: i64 = 2_000_000_000;

fn unix_now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
