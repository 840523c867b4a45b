//! The embedded index: one folder holding a SQLite catalog, a tantivy full-text index and a
//! writer lock.
//!
//! Layout of the folder (default `<repo>/.codemap/`):
//! - `index.db`  — catalog (files, symbols, chunks, snapshots), see [`catalog`]
//! - `text/`     — tantivy index of chunks, see [`fulltext`]
//! - `lock`      — held (OS advisory lock) by the one process writing the index

pub mod catalog;
pub mod fulltext;
pub mod meilisearch;
pub mod read;

pub use read::{IndexRead, SnapshotVersions, TextHit, WholeSnapshot};

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("index database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("full-text index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("index folder: {0}")]
    Io(#[from] std::io::Error),
    #[error(
        "another codemap process ({holder}) is writing the index in {dir}; wait for it to finish or stop it"
    )]
    Locked { dir: PathBuf, holder: String },
    #[error("no index in {0}; run `codemap index` first")]
    NoIndex(PathBuf),
    #[error(
        "index format {found} is not the expected {expected} (another codemap version wrote it); run `codemap index` to rebuild it"
    )]
    SchemaMismatch { found: String, expected: i64 },
    /// Index runs kept publishing while a reader read the whole snapshot.
    #[error(
        "the index changed {0} times while it was being read whole; run again once the index run is done"
    )]
    KeptChanging(usize),
    /// A server backend failed (message names the backend and its error).
    #[error("{0}")]
    Backend(String),
}

/// Paths inside an index folder.
#[derive(Debug, Clone)]
pub struct IndexDir {
    root: PathBuf,
}

impl IndexDir {
    pub fn new(root: impl Into<PathBuf>) -> IndexDir {
        IndexDir { root: root.into() }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn catalog(&self) -> PathBuf {
        self.root.join("index.db")
    }
    /// Where a first build writes its catalog until it is renamed to [`IndexDir::catalog`].
    pub fn catalog_build(&self) -> PathBuf {
        self.root.join("index.db.build")
    }
    pub fn text(&self) -> PathBuf {
        self.root.join("text")
    }
    pub fn lock(&self) -> PathBuf {
        self.root.join("lock")
    }
    /// Socket of a running `codemap watch`, which serves fresher results than the folder.
    pub fn watch_socket(&self) -> PathBuf {
        self.root.join("watch.sock")
    }
    pub fn exists(&self) -> bool {
        self.catalog().exists()
    }
}

/// Exclusive right to write an index folder, released when dropped or when the process dies
/// (the kernel drops advisory locks), so a stale lock file never blocks anyone.
pub struct WriteLock {
    _file: File,
}

impl WriteLock {
    /// Takes the lock or fails within ~100 ms naming the holder.
    pub fn acquire(dir: &IndexDir) -> Result<WriteLock, StoreError> {
        std::fs::create_dir_all(dir.root())?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.lock())?;
        match try_lock_briefly(&file) {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(StoreError::Locked {
                    dir: dir.root().to_path_buf(),
                    holder: if holder.is_empty() {
                        "unknown pid".into()
                    } else {
                        holder.to_string()
                    },
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(e.into()),
        }
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "pid {}", std::process::id())?;
        file.flush()?;
        Ok(WriteLock { _file: file })
    }
}

/// Tries to take the lock a few times over ~100 ms. A lock just released can still be held for a
/// moment by a copy of its descriptor in a child process this process forked elsewhere (a `git`
/// run) before that child execs and drops it: not a writer, so not worth failing over.
fn try_lock_briefly(file: &File) -> Result<(), std::fs::TryLockError> {
    for _ in 0..4 {
        match file.try_lock() {
            Err(std::fs::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(25))
            }
            other => return other,
        }
    }
    file.try_lock()
}

impl EmbeddedIndex {
    /// The full-text `hits` whose chunk the catalog holds in their file, in order: each pair
    /// checked once and remembered until another connection commits (a killed run's
    /// documents stay in the full-text index and are never known).
    pub(crate) fn known_hits(
        &self,
        hits: Vec<read::TextHit>,
    ) -> Result<Vec<read::TextHit>, StoreError> {
        let version = self.catalog.data_version()?;
        let mut c = self.checked.borrow_mut();
        if c.data_version != Some(version) || c.known.len() >= CheckedHits::MAX {
            c.known.clear();
            c.data_version = Some(version);
            c.in_sync =
                self.text_gen.is_some() && self.text_gen == Some(self.catalog.text_generation()?);
        }
        // The searched commit reconciled the catalog's text generation: every document in it
        // is a chunk the catalog holds (a run that adds or removes chunks moves that
        // generation in the catalog's own transaction).
        if c.in_sync {
            return Ok(hits);
        }
        let mut out = Vec::with_capacity(hits.len());
        for hit in hits {
            let key = CheckedHits::key(&hit.0, &hit.1);
            let known = match c.known.get(&key) {
                Some(&known) => known,
                None => {
                    let known = self.catalog.has_chunk(&hit.0, &hit.1)?;
                    c.known.insert(key, known);
                    known
                }
            };
            if known {
                out.push(hit);
            }
        }
        Ok(out)
    }
}

/// A read-only view of the index's last committed snapshot.
pub struct EmbeddedIndex {
    pub dir: IndexDir,
    pub catalog: catalog::Catalog,
    pub text: fulltext::FullText,
    /// Search hits already checked against the catalog (read.rs, `search_chunks`).
    checked: std::cell::RefCell<CheckedHits>,
    /// The text generation the searched full-text commit reconciled (`gen=N`), if it did.
    text_gen: Option<u64>,
}

/// Which (chunk id, path) pairs of full-text hits the catalog holds, remembered while no other
/// connection commits: a warm reader's searches return the same large files' chunks question
/// after question, and a lookup each was a tenth of an answer's CPU.
#[derive(Default)]
struct CheckedHits {
    data_version: Option<i64>,
    /// Whether the full-text commit searched is in step with the catalog at `data_version`.
    in_sync: bool,
    known: std::collections::HashMap<u64, bool>,
}

impl CheckedHits {
    /// Bounds the memory of a reader that sees every chunk of a very large index.
    const MAX: usize = 1 << 20;

    fn key(id: &str, path: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (id, path).hash(&mut h);
        h.finish()
    }
}

impl EmbeddedIndex {
    pub fn open(dir: &IndexDir) -> Result<EmbeddedIndex, StoreError> {
        if !dir.exists() {
            return Err(StoreError::NoIndex(dir.root().to_path_buf()));
        }
        let catalog = catalog::Catalog::open_read(&dir.catalog())?;
        let text = fulltext::FullText::open(&dir.text())?;
        let text_gen = text
            .searched_payload()?
            .and_then(|p| p.strip_prefix("gen=")?.parse().ok());
        Ok(EmbeddedIndex {
            dir: dir.clone(),
            catalog,
            text,
            checked: Default::default(),
            text_gen,
        })
    }
}

/// A token no other call makes, in this process or another: a hash of the time in nanoseconds,
/// the process id and a counter (hex, 32 characters).
pub(crate) fn unique_token() -> String {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut h = blake3::Hasher::new();
    h.update(&nanos.to_le_bytes());
    h.update(&std::process::id().to_le_bytes());
    h.update(&n.to_le_bytes());
    h.finalize().to_hex()[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_fails_at_once_with_the_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = IndexDir::new(tmp.path().join(".codemap"));
        let first = WriteLock::acquire(&dir).unwrap();
        let err = WriteLock::acquire(&dir)
            .err()
            .expect("second lock must fail");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        drop(first);
        WriteLock::acquire(&dir).expect("lock is free again after drop");
    }

    #[test]
    fn a_warm_reader_checks_search_hits_again_after_the_catalog_changes() {
        use crate::store::read::IndexRead;
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/Zebra.java"),
            "class Zebra {\n  void stripes() { int zebracount = 1; }\n}\n",
        )
        .unwrap();
        let dir = IndexDir::new(tmp.path().join("idx"));
        crate::pipeline::run(&root, &dir, &Default::default(), &|_| {}).unwrap();
        let reader = EmbeddedIndex::open(&dir).unwrap();
        let hits = reader.search_chunks("zebracount", 10).unwrap();
        assert_eq!(hits.len(), 1, "{hits:?}");
        let id = hits[0].0.clone();

        // The reader searches a full-text commit in step with the catalog.
        assert!(reader.text_gen.is_some());
        assert_eq!(
            reader.text_gen,
            Some(reader.catalog.text_generation().unwrap())
        );

        // Another connection commits: the chunk leaves the catalog and the text generation
        // moves on (as in a run whose old documents stayed in the full-text index), then the
        // chunk comes back.
        let other = rusqlite::Connection::open(dir.catalog()).unwrap();
        let row: (String, i64, i64, i64, Option<String>, String, i64, i64) = other
            .query_row(
                "SELECT file, ord, start_line, end_line, symbol, header, start_byte, end_byte \
                 FROM chunks WHERE id = ?1",
                [&id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                    ))
                },
            )
            .unwrap();
        other
            .execute_batch(&format!(
                "BEGIN; DELETE FROM chunks WHERE id = '{id}'; \
                 UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'text_gen'; COMMIT;"
            ))
            .unwrap();
        assert!(
            reader.search_chunks("zebracount", 10).unwrap().is_empty(),
            "a hit the catalog no longer holds is not returned by a reader that saw it before"
        );
        other
            .execute(
                "INSERT INTO chunks(id, file, ord, start_line, end_line, symbol, header, \
                 start_byte, end_byte) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                rusqlite::params![id, row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7],
            )
            .unwrap();
        let again = reader.search_chunks("zebracount", 10).unwrap();
        assert_eq!(again.len(), 1, "published again, found again: {again:?}");
        assert_eq!(again[0].0, id);
    }
}
