//! The re-index step a job runs before it reads an index. Writing an index is the indexer's
//! work and docgen reaches indexes only through `query`, so the binary injects it (wiring
//! the indexer's pipeline); tests inject the same pipeline through their own implementation.

use std::path::Path;
use std::sync::Arc;

/// What a re-index published.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Indexed {
    /// Files in the new snapshot.
    pub files: u64,
    /// Files added, changed or removed by this run.
    pub changed: u64,
    pub generation: u64,
    /// The snapshot is of a work tree with uncommitted changes.
    pub dirty: bool,
}

/// Brings an embedded index folder up to date with a work tree.
pub trait Reindex: Send + Sync {
    /// Indexes the work tree `tree` into the index folder `index` incrementally (what the folder
    /// already holds is the starting point; a missing folder is created) and publishes one
    /// snapshot. Idempotent: a second run over an unchanged tree changes nothing. The error is
    /// the indexer's, as text.
    fn index(&self, tree: &Path, index: &Path) -> Result<Indexed, String>;

    /// Runs `f` while no index run writes the folder `index` (its write lock held), so a copy
    /// `f` makes is never half-written. Fails without calling `f` when the lock cannot be had.
    fn locked(
        &self,
        index: &Path,
        f: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Result<(), String>;
}

/// The re-index step the server's jobs share.
pub type Reindexer = Arc<dyn Reindex>;
