//! docgen's errors.

use query::model::StoreError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum DocgenError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the index has no snapshot yet; run `codemap index` first")]
    NoSnapshot,
    /// The steering file is malformed or names an unknown key (the message names it).
    #[error("steering file {path}: {message}")]
    Steering { path: PathBuf, message: String },
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    /// Citations that do not resolve in the snapshot: nothing was written.
    #[error("{} citation(s) do not resolve in the snapshot, nothing written: {}", .0.len(), .0.join(", "))]
    BadCitations(Vec<String>),
    /// A rendered page failed the Markdown checks: nothing was written.
    #[error("page {page}: {message}")]
    Markdown { page: String, message: String },
    /// The output folder is not inside the repository's work tree.
    #[error(
        "output folder {0} is outside the repository {1}: the pages link to the code by relative paths and are committed with it; pass a folder inside the repository (relative to it, or absolute under it)"
    )]
    OutsideRepo(PathBuf, PathBuf),
    #[error("state file {path}: {message}")]
    State { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl DocgenError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> DocgenError {
        let path = path.into();
        move |source| DocgenError::Io { path, source }
    }
}
