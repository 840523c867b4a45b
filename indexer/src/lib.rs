//! codemap's indexer: a repository → files → parse → symbols and chunks → an embedded store.
//!
//! It walks a work tree (gitignore-aware, safe on bad input), parses each supported language with
//! tree-sitter, cuts AST-aware chunks with contextual headers, and writes them incrementally into
//! one index folder (SQLite for structure, tantivy for full text). Every run is a snapshot; two
//! snapshots can be diffed. Secrets in the files read are masked before anything is stored
//! ([`secrets`]). It knows nothing about chat, docs or LLMs.

pub mod analyzer;
pub mod bounded;
pub mod chunk;
pub mod diff;
pub mod genshape;
pub mod git;
pub mod graph;
pub mod lang;
pub mod model;
pub mod module;
pub mod node;
pub mod overlay;
pub mod pipeline;
pub mod secrets;
pub mod store;
#[doc(hidden)]
pub mod testing;
pub mod walk;
pub mod watch;

pub use model::{
    Chunk, FileAnalysis, Language, Provenance, RepoPath, SkipReason, Snapshot, Symbol, SymbolId,
    SymbolKind,
};
