//! codemap's living code maps: one page per module, built from the index, regenerated only
//! where the model changed, every `path:line` checked against the snapshot before anything is
//! written. Reaches the index only through `query`'s public API ([`query::model`],
//! [`query::snapshot`], [`query::flows`]; either backend) and never depends on the indexer;
//! knows nothing about chat. The after-merge side (webhook, cron, git, pull requests) builds on
//! [`generate`].
//!
//! Pipeline: [`facts`] (one read of the snapshot) → [`model`] (pure: purpose, entry points,
//! flows, state, dependencies, types per module) and [`global`] → [`state`] (fingerprints: which
//! models changed) and [`changes`] (what changed, from the snapshot diff) → [`render`]
//! (Handlebars, strict; [`mermaid`]) → [`markdown`] checks → [`write`] (pages or README
//! markers, only files whose bytes differ). The team steers it with [`steering`]. With a chat
//! model configured, [`llm`] adds a cached purpose paragraph per page.

pub mod changes;
mod error;
pub mod facts;
mod generate;
pub mod git;
pub mod global;
pub mod host;
pub mod llm;
pub mod markdown;
pub mod mermaid;
pub mod model;
mod options;
pub mod render;
pub mod review;
pub mod serve;
pub mod state;
pub mod steering;
pub mod write;

pub use error::DocgenError;
pub use options::{Llm, Options, Outcome, OutputMode, out_dir_in};

use query::model::IndexRead;

/// Regenerates the code maps of the repository at `opts.repo_root` from the index `read` holds.
///
/// Contracts:
/// - Reads the index's last published snapshot only through `read`; the steering file
///   (`codemap-docs.toml` at `opts.repo_root`), the state file and existing README files are
///   read from disk.
/// - Writes under `opts.repo_root` only: the global page `<out_dir>/README.md`, one page per
///   module (`<out_dir>/<module>.md`, or the block between the README markers of each module's
///   `README.md`), and the state file (default `<out_dir>/.state.json`). A page whose bytes
///   would not change is not touched; pages of modules that disappeared are removed.
/// - A module's page changes only when its model changed (its symbols — bodies included —,
///   entry points, flows, state, dependencies, or any cited line); it then names the current
///   snapshot commit. An unchanged module's page keeps its bytes and the commit it names.
/// - Before anything is written, every citation is checked against the snapshot (the file is
///   in it and the lines are within the file) and every page's internal links and anchors
///   against the pages and files; a failure writes nothing and returns the error.
/// - [`Outcome::written`] lists repository-relative paths written or removed (the state file
///   included); [`Outcome::changed`] is false exactly when nothing was written (nothing to
///   commit).
/// - Errors: an output folder outside the repository, no snapshot, a bad steering file (naming the key), a template error, a malformed
///   state file, a failed check, or I/O; the index is never modified.
pub fn generate(read: &dyn IndexRead, opts: &Options) -> Result<Outcome, DocgenError> {
    generate::run(read, opts)
}
