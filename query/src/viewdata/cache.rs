//! Where view files live: the key of the snapshot an index shows, mapping a file built for it,
//! and writing one (or a vector matrix) atomically while removing what it supersedes.

use super::*;

/// The key of the snapshot `index` shows now; `persist` says whether a view built now may be
/// written (the full-text index is not mid-run).
pub struct Key {
    pub key: String,
    pub persist: bool,
}

/// The key of the snapshot readers see now. `dir` is the index folder (embedded backend).
pub fn current_key(index: &dyn IndexRead, dir: Option<&Path>) -> Result<Key, QueryError> {
    let snap = index.last_snapshot()?;
    let (files, symbols, chunks) = snap
        .as_ref()
        .map(|s| (s.files, s.symbols, s.chunks))
        .unwrap_or_default();
    let counts = format!("format={FORMAT};files={files};symbols={symbols};chunks={chunks}");
    Ok(
        match dir.map(|d| std::fs::read(d.join("text").join("meta.json"))) {
            // The embedded index: its full-text commit says what content it holds.
            Some(Ok(meta)) => Key {
                key: format!("{counts};text={:016x}", fnv64(&meta)),
                persist: meta.windows(5).any(|w| w == b"\"gen="),
            },
            // Another backend (a cache folder of its own): the published snapshot.
            _ => {
                let snap = snap.as_ref();
                Key {
                    key: format!(
                        "{counts};gen={};at={};commit={};publish={}",
                        snap.map(|s| s.generation).unwrap_or(0),
                        snap.map(|s| s.created_at).unwrap_or(0),
                        snap.and_then(|s| s.commit.as_deref()).unwrap_or(""),
                        // A staged rebuild starts generations over: the publish tells it apart.
                        snap.and_then(|s| s.publish_id.as_deref()).unwrap_or("")
                    ),
                    persist: dir.is_some() && snap.is_some(),
                }
            }
        },
    )
}

fn cache_file(dir: &Path, key: &str) -> PathBuf {
    dir.join(CACHE_DIR)
        .join(format!("view-{:016x}.bin", fnv64(key.as_bytes())))
}

/// The view tables for the snapshot `index` shows now: read from `dir`'s cache when it holds them,
/// else built (and written there when possible).
pub fn open(index: &dyn IndexRead, dir: Option<&Path>) -> Result<ViewData, QueryError> {
    let key = current_key(index, dir)?;
    if let Some(dir) = dir {
        let path = cache_file(dir, &key.key);
        if let Some(d) = map_file(&path)
            && d.key == key.key
        {
            return Ok(d);
        }
    }
    let started = std::time::Instant::now();
    let bytes = build(index, &key.key)?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        bytes = bytes.len(),
        "built the snapshot view tables"
    );
    if let (Some(dir), true) = (dir, key.persist) {
        match write_cache_file(&cache_file(dir, &key.key), &bytes, "view-") {
            Ok(()) => {
                if let Some(d) = map_file(&cache_file(dir, &key.key))
                    && d.key == key.key
                {
                    return Ok(d);
                }
            }
            Err(e) => tracing::debug!(error = %e, "view tables not cached"),
        }
    }
    ViewData::parse(Bytes::Owned(bytes))
        .ok_or_else(|| QueryError::Io(std::io::Error::other("built view tables do not parse")))
}

/// Builds and writes the view tables of the current snapshot if `dir` does not hold them yet
/// (e.g. right after an index run, so the first question does not pay for it).
pub fn prepare(index: &dyn IndexRead, dir: &Path) -> Result<(), QueryError> {
    open(index, Some(dir)).map(|_| ())
}

fn map_file(path: &Path) -> Option<ViewData> {
    let f = std::fs::File::open(path).ok()?;
    // Safety: view files are never modified in place (written under a temporary name, then
    // renamed), so the mapping cannot change under us; a replaced or deleted file stays mapped.
    let m = unsafe { memmap2::Mmap::map(&f) }.ok()?;
    ViewData::parse(Bytes::Map(m))
}

/// Writes a file of [`CACHE_DIR`] under a temporary name and renames it to `path`, so readers
/// never see a partial file; then removes the files it supersedes (other `.bin` files whose name
/// starts with `stale_prefix`) and temporary files left by killed writers.
pub fn write_cache_file(path: &Path, bytes: &[u8], stale_prefix: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::write(&tmp, bytes)?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // Superseded files: nobody opens them again (readers that mapped one keep it).
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let old_tmp = name.starts_with(".tmp-")
                && e.metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 600);
            let stale = name.starts_with(stale_prefix) && name.ends_with(".bin");
            if p != path && (stale || old_tmp) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
    Ok(())
}
