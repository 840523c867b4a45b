//! `codemap watch`, and the local socket through which `codemap search` sees its overlay.
//!
//! The watcher serves one JSON line per connection on `<index>/watch.sock`:
//! request `{"query": "...", "limit": N}`, response `{"hits": [...]}` or `{"error": "..."}`.

use super::{Outcome, write_target};
use crate::cli::{Global, IndexArgs};
use anyhow::{Context, Result, bail};
use indexer::overlay::Overlay;
use indexer::store::{EmbeddedIndex, IndexDir};
use indexer::watch::{self, WatchEvent, WatchOptions};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, RwLock, mpsc};
use std::time::Duration;

#[derive(Serialize, Deserialize)]
struct Request {
    query: String,
    limit: usize,
}

#[derive(Serialize, Deserialize)]
struct Response {
    #[serde(default)]
    hits: Vec<query::Hit>,
    #[serde(default)]
    error: Option<String>,
}

pub fn watch(g: &Global, a: &IndexArgs) -> Result<Outcome> {
    let (root, dir) = write_target(g, a.path.as_deref())?;
    let listener = bind(&dir)?;
    let overlay = Arc::new(RwLock::new(Overlay::new()?));
    let opts = WatchOptions {
        index: super::index::options(a),
        ..Default::default()
    };
    let stop = AtomicBool::new(false);
    let (ready_tx, ready_rx) = mpsc::channel::<()>();
    let quiet = a.quiet;
    let report = move |e: WatchEvent| match e {
        WatchEvent::Ready(s) => {
            println!(
                "watching {} ({} files indexed, snapshot {})",
                root_display(&s),
                s.snapshot.files,
                s.snapshot.generation
            );
            let _ = std::io::stdout().flush();
            let _ = ready_tx.send(());
        }
        WatchEvent::Updated { path, latency } if !quiet => {
            println!("updated {path} ({:.1} ms)", latency.as_secs_f64() * 1000.0)
        }
        WatchEvent::Committed(s) if !quiet => println!(
            "committed snapshot {} ({} changed, {} added, {} removed)",
            s.snapshot.generation, s.changed, s.added, s.removed
        ),
        WatchEvent::Error(e) => eprintln!("watch: {e}"),
        _ => {}
    };
    std::thread::scope(|s| {
        let overlay_for_server = overlay.clone();
        let dir_for_server = dir.clone();
        s.spawn(move || {
            if ready_rx.recv().is_ok() {
                serve(listener, &dir_for_server, &overlay_for_server);
            }
        });
        watch::run(&root, &dir, &opts, overlay, &report, &stop)
            .with_context(|| format!("watching {}", root.display()))
    })?;
    Ok(Outcome::Done)
}

fn root_display(s: &indexer::pipeline::RunSummary) -> String {
    format!("{} files", s.snapshot.files + s.skipped.len() as u64)
}

/// Binds the socket; a live socket means another watcher, a dead one is stale and replaced.
fn bind(dir: &IndexDir) -> Result<UnixListener> {
    std::fs::create_dir_all(dir.root())?;
    let path = dir.watch_socket();
    if path.exists() {
        if UnixStream::connect(&path).is_ok() {
            bail!(
                "another `codemap watch` is already serving {}",
                dir.root().display()
            );
        }
        std::fs::remove_file(&path)
            .with_context(|| format!("removing stale {}", path.display()))?;
    }
    UnixListener::bind(&path).with_context(|| format!("binding {}", path.display()))
}

fn serve(listener: UnixListener, dir: &IndexDir, overlay: &RwLock<Overlay>) {
    let index = match EmbeddedIndex::open(dir) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("watch: cannot serve queries: {e}");
            return;
        }
    };
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let response = answer(&index, overlay, &stream).unwrap_or_else(|e| Response {
            hits: vec![],
            error: Some(format!("{e:#}")),
        });
        let mut stream = stream;
        if let Ok(line) = serde_json::to_string(&response) {
            let _ = writeln!(stream, "{line}");
        }
    }
}

fn answer(
    index: &EmbeddedIndex,
    overlay: &RwLock<Overlay>,
    stream: &UnixStream,
) -> Result<Response> {
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line)?;
    let req: Request = serde_json::from_str(&line).context("bad request")?;
    index.text.reload()?;
    let o = overlay
        .read()
        .map_err(|_| anyhow::anyhow!("overlay unavailable"))?;
    let hits = query::search_with_overlay(index, Some(&o), &req.query, req.limit)?;
    Ok(Response { hits, error: None })
}

/// Asks a running watcher, if there is one. `None` means: search the folder directly.
pub fn ask_watcher(dir: &IndexDir, q: &str, limit: usize) -> Option<Result<Vec<query::Hit>>> {
    let mut stream = UnixStream::connect(dir.watch_socket()).ok()?;
    let io = (|| -> Result<Response> {
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        let req = serde_json::to_string(&Request {
            query: q.to_string(),
            limit,
        })?;
        writeln!(stream, "{req}")?;
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line)?;
        Ok(serde_json::from_str(&line)?)
    })();
    Some(io.and_then(|r| match r.error {
        Some(e) => bail!("watcher: {e}"),
        None => Ok(r.hits),
    }))
}
