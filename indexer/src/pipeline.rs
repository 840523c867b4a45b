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

use crate::genshape;
use crate::lang::{self, ParseLimits};
use crate::model::{FileAnalysis, Provenance, RepoPath, SkipReason, Snapshot};
use crate::module::ModuleMap;
use crate::store::catalog::{Catalog, FileRow, GraphChanges, RunEnd, SymbolRow};
use crate::store::fulltext::{ChunkDoc, FullText, TextWriter};
use crate::store::{IndexDir, StoreError, WriteLock};
use crate::walk::{self, WalkOptions, WalkedFile};
use crate::{git, model::Chunk};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

pub mod budget;
mod graph;
pub mod mem;
mod stream;
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
    /// What the run may hold in memory beyond the type table ([`budget`]).
    pub memory_budget: budget::MemoryBudget,
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

enum Outcome {
    Skipped(SkipReason),
    /// Same content as the stored version: only the mtime moves.
    SameContent,
    New {
        row: Box<FileRow>,
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
    let (catalog, publish_to) = open_catalog(dir, opts.rebuild)?;
    let threads = if opts.threads == 0 {
        rayon::current_num_threads()
    } else {
        opts.threads
    };
    let budget = opts.memory_budget;
    let heap = |threads: usize| budget.text_heap_per_thread(threads);
    let OpenText {
        text,
        mut writer,
        text_gen,
        in_sync,
    } = open_text(&catalog, dir, threads, budget)?;

    let walked = walk::walk(root, &opts.walk)?;
    let current = catalog.current_files()?;
    let paths: Vec<RepoPath> = walked.files.iter().map(|f| f.path.clone()).collect();
    let modules = ModuleMap::detect(root, &paths);

    let (to_read, unchanged, removed) = plan(walked.files, &paths, &current, &modules);
    progress(Progress::Planned {
        to_analyse: to_read.len(),
        unchanged,
    });

    let old_by_file = replaceable_chunks(&catalog, &to_read, &current, &removed)?;
    let old_ids: HashSet<String> = old_by_file.values().flatten().cloned().collect();
    let graph_ready = catalog.graph_ready()?;
    // Stored facts are read before the run's transaction opens (decoded only if needed).
    let graph_stored = (crate::graph::enabled()
        && (!to_read.is_empty() || !removed.is_empty() || !graph_ready))
        .then(|| graph::load(&catalog, &removed))
        .transpose()?;
    // Documents may be added (files to read) or deleted (removed files' chunks).
    if writer.is_none() && (!to_read.is_empty() || !old_ids.is_empty()) {
        writer = Some(text.writer_with_heap(text_threads(threads), heap)?);
    }
    let (commit, dirty) = git::head(root);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .ok();
    let job = stream::CatalogJob {
        files: &to_read,
        current: &current,
        old_ids: &old_ids,
        old_by_file: &old_by_file,
        publish_to,
        end: RunEnd {
            commit,
            dirty,
            created_at: unix_now(),
            removed,
            touched: Vec::new(),
            skipped: Vec::new(),
            text_changed: false,
        },
        walk_skipped: walked.skipped,
    };

    let (snapshot, c, graph_stats) = std::thread::scope(|scope| {
        let (file_tx, file_rx) = std::sync::mpsc::sync_channel(256);
        let (report_tx, report_rx) = std::sync::mpsc::sync_channel(1);
        let (finish_tx, finish_rx) = std::sync::mpsc::sync_channel(1);
        let cat = scope.spawn(move || job.run(catalog, file_rx, report_tx, finish_rx));
        let workers = stream::Workers {
            files: &to_read,
            modules: &modules,
            current: &current,
            walk: &opts.walk,
            limits: &opts.limits,
            old_ids: &old_ids,
            text: writer.as_ref(),
            progress,
            next: Default::default(),
            done: Default::default(),
            failed: Default::default(),
            error: Default::default(),
        };
        // Returns once every file is analysed; the sender goes with it, ending the catalog's input.
        workers.run_all(pool.as_ref(), threads, file_tx);
        tracing::info!(
            files = to_read.len(),
            ms = started.elapsed().as_millis() as u64,
            rss_mib = mem::resident_mib(),
            "walked and analysed"
        );
        progress(Progress::Writing);
        let worker_error = workers.take_error();
        drop(workers);
        if let Some(e) = worker_error {
            return abandon(finish_tx, cat, e);
        }
        let Ok(mut c) = report_rx.recv() else {
            // The catalog thread failed: its error is the run's.
            drop(finish_tx);
            return Err(catalog_stopped(cat));
        };
        // The call graph, re-resolved over all files whenever one changed, is computed on
        // another thread while the full-text index finishes and commits.
        let graph_on = crate::graph::enabled()
            && (c.added + c.changed > 0 || !c.removed.is_empty() || !graph_ready);
        let graph_job = graph_stored.filter(|_| graph_on).map(|stored| {
            let facts = std::mem::take(&mut c.facts);
            let replaced: Vec<RepoPath> = c.analysed.iter().chain(&c.removed).cloned().collect();
            let pool = &pool;
            scope.spawn(move || graph::changes_on(pool.as_ref(), stored, facts, replaced, budget))
        });
        if c.text_changed
            && let Some(w) = writer.as_mut()
            && let Err(e) = commit_pending(w, started)
        {
            if let Some(g) = graph_job {
                let _ = g.join();
            }
            return abandon(finish_tx, cat, e);
        }
        let files_changed = c.added + c.changed > 0 || !c.removed.is_empty();
        let (graph_changes, graph_stats) =
            graph_outcome(graph_job.map(|h| h.join()), files_changed);
        let Some(snapshot) = commit_catalog(finish_tx, graph_changes, started) else {
            return Err(catalog_stopped(cat));
        };
        // Meanwhile the catalog thread checkpoints its WAL (or publishes a first build).
        if let Some(w) = writer.take() {
            let generation = if c.text_changed {
                snapshot.generation
            } else {
                text_gen
            };
            finish_text(w, &c, !in_sync, generation)?;
        }
        checkpointed(cat);
        Ok::<_, IndexError>((snapshot, c, graph_stats))
    })?;

    Ok(RunSummary {
        snapshot,
        added: c.added,
        changed: c.changed,
        removed: c.removed.len(),
        unchanged: unchanged + c.same_content,
        skipped: c.skipped,
        degraded: c.degraded,
        ignored_count: walked.ignored_count,
        reconciled: !in_sync,
        elapsed: started.elapsed(),
        graph: graph_stats,
    })
}

/// The full-text index as a run finds it.
struct OpenText {
    text: FullText,
    /// The writer a reconcile opened (the run goes on with it).
    writer: Option<TextWriter>,
    /// The catalog's text generation.
    text_gen: u64,
    /// Whether the index held what the catalog says, before any reconcile.
    in_sync: bool,
}

/// Opens the full-text index and, when a killed run left it out of step with the catalog,
/// reconciles it.
fn open_text(
    catalog: &Catalog,
    dir: &IndexDir,
    threads: usize,
    budget: budget::MemoryBudget,
) -> Result<OpenText, IndexError> {
    let text = FullText::open(&dir.text())?;
    let text_gen = catalog.text_generation()?;
    let in_sync = text_in_step(catalog, &text, text_gen)?;
    let mut writer = None;
    if !in_sync {
        tracing::info!("full-text index out of step with the catalog (killed run?); reconciling");
        let heap = |threads: usize| budget.text_heap_per_thread(threads);
        let w = writer.insert(text.writer_with_heap(threads, heap)?);
        reconcile(catalog, &text, w)?;
    }
    Ok(OpenText {
        text,
        writer,
        text_gen,
        in_sync,
    })
}

/// Hands the graph's changes to the catalog thread and waits for it to commit the run: the
/// snapshot committed, `None` when the thread stopped first.
fn commit_catalog(
    finish: std::sync::mpsc::SyncSender<stream::Finish>,
    graph_changes: Option<GraphChanges>,
    started: Instant,
) -> Option<Snapshot> {
    let commit_started = Instant::now();
    let (committed_tx, committed_rx) = std::sync::mpsc::sync_channel(1);
    let _ = finish.send((graph_changes, committed_tx));
    let snapshot = committed_rx.recv().ok()?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        commit_ms = commit_started.elapsed().as_millis() as u64,
        "catalog committed"
    );
    crash_point("after-catalog-commit");
    Some(snapshot)
}

/// Commits the full-text documents a run added, as pending until the catalog commits.
fn commit_pending(w: &mut TextWriter, started: Instant) -> Result<(), StoreError> {
    crash_point("after-text-add");
    w.commit("pending")?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "full text committed"
    );
    crash_point("after-pending-commit");
    Ok(())
}

/// Waits for the catalog thread's checkpoint after the run committed: a failed one is retried
/// by the next run.
fn checkpointed(catalog_thread: std::thread::ScopedJoinHandle<'_, Result<(), StoreError>>) {
    match catalog_thread.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("catalog checkpoint: {e}"),
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// The error of a catalog thread that stopped before the run was committed.
fn catalog_stopped(
    catalog_thread: std::thread::ScopedJoinHandle<'_, Result<(), StoreError>>,
) -> IndexError {
    match catalog_thread.join() {
        Ok(Err(e)) => e.into(),
        Ok(Ok(())) => StoreError::Backend("catalog writer stopped".into()).into(),
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// Whether the full-text index holds what the catalog's text generation `text_gen` says.
fn text_in_step(catalog: &Catalog, text: &FullText, text_gen: u64) -> Result<bool, IndexError> {
    Ok(match text.payload()? {
        Some(payload) => payload == format!("gen={text_gen}"),
        // Nothing committed yet: in step only while the catalog is empty too (a first run
        // killed after its full-text commit leaves documents the catalog never knew).
        None => text_gen == 0 && catalog.last_snapshot()?.is_none(),
    })
}

/// Chunk ids the full-text index holds for the files this run may replace (read again, or
/// removed), by file: their chunks that come back unchanged are not rewritten.
fn replaceable_chunks(
    catalog: &Catalog,
    to_read: &[WalkedFile],
    current: &HashMap<RepoPath, FileRow>,
    removed: &[RepoPath],
) -> Result<HashMap<String, Vec<String>>, IndexError> {
    let replaceable: Vec<&str> = to_read
        .iter()
        .map(|w| &w.path)
        .filter(|p| current.contains_key(*p))
        .chain(removed.iter())
        .map(|p| p.as_str())
        .collect();
    Ok(catalog.chunk_ids_by_file(&replaceable)?)
}

/// What the run commits of the call graph, given how its resolution ended (`None`: not run).
fn graph_outcome(
    joined: Option<std::thread::Result<(GraphChanges, GraphStats)>>,
    files_changed: bool,
) -> (Option<GraphChanges>, Option<GraphStats>) {
    match joined {
        // Files changed with the graph off: the stored edges no longer describe them.
        None if !crate::graph::enabled() && files_changed => (
            Some(GraphChanges {
                stale: true,
                ..Default::default()
            }),
            None,
        ),
        Some(Ok((changes, stats))) => (Some(changes), Some(stats)),
        // A bug in resolution must not cost the run: the stored edges stay as they were.
        Some(Err(_)) => {
            tracing::error!("call graph resolution panicked; edges left as they were");
            (None, None)
        }
        None => (None, None),
    }
}

/// After the catalog's commit: the full-text index drops the chunks that are gone and commits
/// as `generation`, when the run changed text or reconciled it (`reconciled`).
fn finish_text(
    mut w: TextWriter,
    c: &stream::Collected,
    reconciled: bool,
    generation: u64,
) -> Result<(), IndexError> {
    if c.text_changed || reconciled {
        for id in &c.gone {
            w.delete_id(id);
        }
        w.commit(&format!("gen={generation}"))?;
    }
    w.finish()?;
    Ok(())
}

/// Full-text indexing threads for `threads` parse workers. Indexing takes about a quarter of a
/// run's CPU, so one thread keeps up with up to three workers; each more thread also means one
/// more segment, whose term dictionary is built again at the commit (on corpus-1m with two
/// workers, one text thread made the whole run 5% faster than two).
fn text_threads(threads: usize) -> usize {
    threads.div_ceil(3).max(1)
}

/// Ends a run that failed before its catalog commit: the catalog thread rolls back.
fn abandon<T>(
    finish: std::sync::mpsc::SyncSender<stream::Finish>,
    catalog_thread: std::thread::ScopedJoinHandle<'_, Result<(), StoreError>>,
    e: StoreError,
) -> Result<T, IndexError> {
    drop(finish);
    let _ = catalog_thread.join();
    Err(e.into())
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
    // The one gate: everything stored or derived below sees the masked text only. Its hash is
    // the masked text's too, so a file whose secrets are masked anew (an index built before
    // masking) reads as changed, and the stored hash cannot confirm a guessed secret.
    let size = bytes.len() as u64;
    let bytes = crate::secrets::mask(&w.path, &bytes);
    let hash = blake3::hash(&bytes).to_hex().to_string();
    // A stored provenance that a generator shape decided (this file's, or its family's) differs
    // from the marker-and-path one; same content means the same shape, and the family is settled
    // again at the end of every run.
    if let Some(prev) = prev
        && prev.hash == hash
        && prev.module == module
        && prev.language == w.language
        && (prev.provenance == provenance
            || (provenance == Provenance::Source && prev.gen_reason.is_some()))
    {
        return Outcome::SameContent;
    }
    let mut analysis = lang::analyze(w.language, &w.path, module, &bytes, limits);
    // Generator output without a marker, by its shape. A data class's family (a generated model)
    // is decided over the whole snapshot when the run closes (genshape::family); until then, and
    // in the watch overlay, which sees one file at a time, it counts as source.
    let (provenance, gen_reason, shape) = genshape::settle_file(provenance, analysis.shape.take());
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
        row: Box::new(FileRow {
            path: w.path.clone(),
            language: w.language,
            hash,
            size,
            mtime_ns,
            lines,
            module: module.to_string(),
            provenance,
            degraded: analysis.degraded.clone(),
            gen_reason,
            shape,
        }),
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

/// The catalog a run writes into, and where it goes once committed: the existing one, or (on
/// `rebuild`, a format change, or an index without its call graph) a fresh one written aside
/// and published whole by the run ([`Catalog::publish`]).
fn open_catalog(
    dir: &IndexDir,
    rebuild: bool,
) -> Result<(Catalog, Option<std::path::PathBuf>), IndexError> {
    if rebuild {
        remove_index_files(dir)?;
    }
    let existing = if dir.catalog().exists() {
        match Catalog::open(&dir.catalog()) {
            Err(StoreError::SchemaMismatch { .. }) => {
                tracing::warn!("index format changed; rebuilding {}", dir.root().display());
                remove_index_files(dir)?;
                None
            }
            // An index built with the graph turned off has no facts for its unchanged files.
            Ok(c)
                if crate::graph::enabled()
                    && c.last_snapshot()?.is_some()
                    && !c.graph_ready()? =>
            {
                tracing::warn!(
                    "index has no call graph; rebuilding {}",
                    dir.root().display()
                );
                drop(c);
                remove_index_files(dir)?;
                None
            }
            other => Some(other?),
        }
    } else {
        None
    };
    // A first build writes its catalog aside and publishes it whole (Catalog::publish). Any
    // full-text documents present are a killed first build's, which no catalog knows.
    let publish_to = existing.is_none().then(|| dir.catalog());
    let catalog = match existing {
        Some(c) => c,
        None => {
            if dir.text().exists() {
                std::fs::remove_dir_all(dir.text()).map_err(StoreError::from)?;
            }
            Catalog::create_unpublished(&dir.catalog_build())?
        }
    };
    Ok((catalog, publish_to))
}

/// What a run reads again (new, changed or moved files, in walk order), how many files are
/// unchanged, and the current files that are gone (sorted).
fn plan(
    files: Vec<WalkedFile>,
    paths: &[RepoPath],
    current: &HashMap<RepoPath, FileRow>,
    modules: &ModuleMap,
) -> (Vec<WalkedFile>, usize, Vec<RepoPath>) {
    let mut to_read = Vec::new();
    let mut unchanged = 0usize;
    for f in files {
        let module = modules.module_of(&f.path);
        match current.get(&f.path) {
            Some(prev)
                if prev.mtime_ns == f.mtime_ns
                    && prev.size == f.size
                    && prev.module == module
                    // A language added since the file was indexed: analysed again.
                    && prev.language == f.language =>
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
    (to_read, unchanged, removed)
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
    for suffix in ["", "-wal", "-shm", ".build", ".build-journal"] {
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
