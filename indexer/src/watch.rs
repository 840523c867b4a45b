//! `codemap watch`: keep the index current as files change.
//!
//! Two speeds. A saved file is analysed at once and put in the in-memory [`Overlay`] (searchable
//! in milliseconds, no fsync). Durable commits go through the normal incremental [`pipeline`] on
//! a separate thread, batched: after `quiet` without events or `max_delay` after the first pending
//! change, so a burst of saves costs one commit. Entries leave the overlay once the committed index
//! holds the same content.

use crate::lang;
use crate::model::RepoPath;
use crate::overlay::{Overlay, OverlayFile};
use crate::pipeline::{self, IndexError, IndexOptions, RunSummary};
use crate::store::catalog::Catalog;
use crate::store::{IndexDir, StoreError};
use notify_debouncer_full::notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, new_debouncer};
use std::collections::HashMap;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub index: IndexOptions,
    /// Events for one file closer together than this are merged.
    pub debounce: Duration,
    /// Commit durably after this long without events.
    pub quiet: Duration,
    /// ... or at the latest this long after the first uncommitted change.
    pub max_delay: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            index: IndexOptions::default(),
            debounce: Duration::from_millis(15),
            quiet: Duration::from_secs(1),
            max_delay: Duration::from_secs(10),
        }
    }
}

/// What the watcher reports (for a log line or a test).
#[derive(Debug)]
pub enum WatchEvent {
    /// The initial incremental run finished; the watcher is live.
    Ready(RunSummary),
    /// A file is searchable in the overlay; `latency` runs from the event's arrival.
    Updated { path: RepoPath, latency: Duration },
    /// A durable commit finished.
    Committed(RunSummary),
    /// Something failed; the watcher carries on.
    Error(String),
}

/// Runs until `stop` is set. The overlay is shared with whoever serves queries.
pub fn run(
    root: &Path,
    dir: &IndexDir,
    opts: &WatchOptions,
    overlay: Arc<RwLock<Overlay>>,
    report: &(dyn Fn(WatchEvent) + Sync),
    stop: &AtomicBool,
) -> Result<(), IndexError> {
    let first = pipeline::run(root, dir, &opts.index, &|_| {})?;
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(opts.debounce, Some(opts.debounce / 3), tx)
        .map_err(|e| StoreError::Io(std::io::Error::other(e)))?;
    debouncer
        .watch(root, RecursiveMode::Recursive)
        .map_err(|e| StoreError::Io(std::io::Error::other(e)))?;
    report(WatchEvent::Ready(first));
    let modules = Modules::load(dir)?;

    let (flush_tx, flush_rx) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(|| flusher(root, dir, &opts.index, &overlay, flush_rx, report, stop));
        let mut first_pending: Option<Instant> = None;
        let mut last_event = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Ok(events)) => {
                    let arrived = Instant::now();
                    // Reading a file raises access events; only content and name changes matter.
                    let mut paths: Vec<_> = events
                        .iter()
                        .filter(|e| e.kind.is_create() || e.kind.is_modify() || e.kind.is_remove())
                        .flat_map(|e| e.paths.iter().cloned())
                        .collect();
                    paths.sort();
                    paths.dedup();
                    for abs in paths {
                        let Some(rel) = relevant(root, dir, &abs) else {
                            continue;
                        };
                        let file = analyse_one(&abs, &rel, &modules.of(&rel), &opts.index);
                        let put = overlay
                            .write()
                            .map_err(|_| poisoned())
                            .and_then(|mut o| o.put(rel.clone(), file));
                        match put {
                            Ok(()) => {
                                report(WatchEvent::Updated {
                                    path: rel,
                                    latency: arrived.elapsed(),
                                });
                                first_pending.get_or_insert(arrived);
                                last_event = arrived;
                            }
                            Err(e) => report(WatchEvent::Error(e.to_string())),
                        }
                    }
                }
                Ok(Err(errors)) => {
                    for e in errors {
                        report(WatchEvent::Error(e.to_string()));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if let Some(t) = first_pending
                && (last_event.elapsed() >= opts.quiet || t.elapsed() >= opts.max_delay)
            {
                first_pending = None;
                let _ = flush_tx.send(());
            }
        }
        drop(flush_tx);
    });
    Ok(())
}

/// Durable commits, one at a time, then overlay entries the commit covers are dropped.
fn flusher(
    root: &Path,
    dir: &IndexDir,
    opts: &IndexOptions,
    overlay: &RwLock<Overlay>,
    rx: mpsc::Receiver<()>,
    report: &(dyn Fn(WatchEvent) + Sync),
    stop: &AtomicBool,
) {
    while rx.recv().is_ok() {
        while rx.try_recv().is_ok() {}
        let mark = match overlay.read() {
            Ok(o) => o.mark(),
            Err(_) => break,
        };
        let result = pipeline::run(root, dir, opts, &|_| {})
            .map_err(|e| e.to_string())
            .and_then(|summary| {
                let mut o = overlay.write().map_err(|_| poisoned().to_string())?;
                o.settle(mark).map_err(|e| e.to_string())?;
                Ok(summary)
            });
        match result {
            Ok(summary) => report(WatchEvent::Committed(summary)),
            Err(e) => report(WatchEvent::Error(format!(
                "durable commit failed (will retry on the next change): {e}"
            ))),
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
}

fn poisoned() -> StoreError {
    StoreError::Io(std::io::Error::other("overlay lock poisoned by a panic"))
}

/// The repo path of an event's file, if it is one the index would hold: inside the root, outside
/// the index folder, no hidden component, a language we index.
fn relevant(root: &Path, dir: &IndexDir, abs: &Path) -> Option<RepoPath> {
    if abs.starts_with(dir.root()) {
        return None;
    }
    let rel = abs.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_str()?;
                if s.starts_with('.') {
                    return None;
                }
                parts.push(s);
            }
            _ => return None,
        }
    }
    let path = RepoPath::new(&parts.join("/"))?;
    lang::detect(&path)?;
    Some(path)
}

/// Reads and analyses one changed file for the overlay; a file that is gone or would be skipped
/// hides its committed version.
fn analyse_one(abs: &Path, rel: &RepoPath, module: &str, opts: &IndexOptions) -> OverlayFile {
    let Ok(meta) = std::fs::symlink_metadata(abs) else {
        return OverlayFile::Removed;
    };
    if !meta.is_file() {
        return OverlayFile::Removed;
    }
    let walked = crate::walk::WalkedFile {
        path: rel.clone(),
        abs: abs.to_path_buf(),
        size: meta.len(),
        mtime_ns: pipeline::mtime_ns(&meta),
        language: lang::detect(rel).unwrap_or(crate::model::Language::TEXT),
    };
    pipeline::analyse_for_overlay(&walked, module, &opts.walk, &opts.limits)
}

/// Module names for overlay entries: a known file keeps its module, a new file takes that of a
/// file in the same folder (the durable commit recomputes modules properly).
struct Modules {
    by_file: HashMap<RepoPath, String>,
    by_dir: HashMap<String, String>,
}

impl Modules {
    fn load(dir: &IndexDir) -> Result<Modules, StoreError> {
        let files = Catalog::open_read(&dir.catalog())?.current_files()?;
        let mut by_dir = HashMap::new();
        for (p, f) in &files {
            let d = p.as_str().rsplit_once('/').map(|(d, _)| d).unwrap_or("");
            by_dir
                .entry(d.to_string())
                .or_insert_with(|| f.module.clone());
        }
        let by_file = files.into_iter().map(|(p, f)| (p, f.module)).collect();
        Ok(Modules { by_file, by_dir })
    }

    fn of(&self, p: &RepoPath) -> String {
        if let Some(m) = self.by_file.get(p) {
            return m.clone();
        }
        let d = p.as_str().rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        self.by_dir.get(d).cloned().unwrap_or_default()
    }
}
