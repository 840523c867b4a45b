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
        "index format {found} is not the expected {expected}; it will be rebuilt by `codemap index`"
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
    /// Takes the lock or fails at once naming the holder.
    pub fn acquire(dir: &IndexDir) -> Result<WriteLock, StoreError> {
        std::fs::create_dir_all(dir.root())?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.lock())?;
        match file.try_lock() {
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

/// A read-only view of the index's last committed snapshot.
pub struct EmbeddedIndex {
    pub dir: IndexDir,
    pub catalog: catalog::Catalog,
    pub text: fulltext::FullText,
}

impl EmbeddedIndex {
    pub fn open(dir: &IndexDir) -> Result<EmbeddedIndex, StoreError> {
        if !dir.exists() {
            return Err(StoreError::NoIndex(dir.root().to_path_buf()));
        }
        let catalog = catalog::Catalog::open_read(&dir.catalog())?;
        let text = fulltext::FullText::open(&dir.text())?;
        Ok(EmbeddedIndex {
            dir: dir.clone(),
            catalog,
            text,
        })
    }
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
}
