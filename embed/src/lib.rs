//! codemap's vector leg, the heavy half: local embedding models and the vector store beside the
//! index. The query crate holds the [`Embedder`](query::Embedder) trait and the brute-force search
//! ([`DenseVectors`](query::DenseVectors)); this crate keeps candle and the tokenizer out of it.
//!
//! - [`pocket`]: `pocket-encoder`, a small model compiled into the binary (feature `local`);
//! - [`bert`]: any BERT-family sentence-transformers folder (e.g. all-MiniLM-L6-v2) with candle
//!   (feature `local`);
//! - [`spec`]: which embedder a command uses (`pocket`, `minilm:DIR`, `openai`, `none`, `auto`);
//! - [`text`]: what is embedded for a chunk, and its hash (the cache key with the model id);
//! - [`store`]: `<index>/vectors.sqlite`, vectors keyed by (text hash, model id);
//! - [`run`]: `codemap embed`, incremental: only chunks without a vector for the model;
//! - [`leg`]: the current snapshot's vectors of one model loaded into a matrix for `ask`.
//!
//! It never blocks or changes the index: embedding is a separate, resumable step, and queries use
//! whatever vectors exist.

#[cfg(feature = "local")]
pub mod bert;
pub mod leg;
#[cfg(feature = "local")]
pub mod pocket;
pub mod run;
pub mod spec;
pub mod store;
pub mod text;

#[cfg(feature = "local")]
pub use bert::BertEmbedder;
pub use leg::{current_vectors, load_leg};
#[cfg(feature = "local")]
pub use pocket::PocketEmbedder;
pub use run::{RunOptions, RunReport, embed_snapshot};
pub use spec::{EmbedderSpec, Remote};
pub use store::VectorStore;

use std::path::PathBuf;

/// Whether this build can embed on the machine (`pocket`, `minilm:DIR`): the `local` feature,
/// which the `codemap` binary enables with `--features local-embedders`.
pub const LOCAL_MODELS: bool = cfg!(feature = "local");

/// Errors of the vector side.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("vector store {path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(transparent)]
    Index(#[from] indexer::store::StoreError),
    #[error(transparent)]
    Embed(#[from] query::EmbedError),
    #[error("{0}")]
    Spec(String),
    #[error(
        "--embedder {0}: this codemap was built without local models; install it with `cargo install --locked --path . --features local-embedders`, or embed through an OpenAI-compatible endpoint (--embedder openai --embed-url URL)"
    )]
    NotBuilt(String),
}
