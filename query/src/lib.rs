//! codemap's query side: turns a question or a search string into ranked, cited places in the
//! indexed snapshot. Reads the index; never writes it. Knows nothing about chat platforms.
//!
//! `ask` pipeline: [`question`] (intent, identifiers, weighted terms, zh→en glossary, a pasted
//! diff) → [`retrieve`] (exact symbols, BM25 chunks, symbol cards, method bodies, vectors; RRF
//! fusion; structure and provenance boosts) → with a model, [`rerank`] of the best candidates →
//! [`answer::plan`] (callers, chain, trace frames by
//! intent; the symbols a diff changes, placed by [`impact`]; [`graph`] behind a trait) →
//! [`assemble`] (map → chain → key code → one-liners, token budget, [`Level`]) → index-only
//! answer or [`llm`] prose with [`citation`] checks and [`sanitize`]d input and output;
//! [`freshness`] on every answer.

pub mod across;
pub mod answer;
pub mod ask;
pub mod assemble;
pub mod batch;
pub mod calls;
pub mod chain;
pub mod citation;
pub mod embed;
pub mod entry;
pub mod flows;
pub mod freshness;
pub mod fusion;
pub mod graph;
pub mod impact;
pub mod llm;
pub mod model;
mod packed;
pub mod probe;
pub mod question;
pub mod render;
pub mod rerank;
pub mod retrieve;
pub mod sanitize;
pub mod search;
pub mod service;
pub mod signature;
pub mod snapshot;
pub mod summarize;
pub mod summary;
pub mod terms;
pub mod trace;
pub mod view;
pub mod viewdata;

pub use across::{Across, RepoCitation};
pub use answer::{Answer, AnswerMode, Level};
pub use ask::{AskOptions, Asker, ask};
pub use batch::{BatchReport, run_batch};
pub use citation::Citation;
pub use embed::{
    DenseVectors, EmbedError, Embedder, FakeEmbedder, OpenAiEmbedder, ServerVectors, VectorLeg,
};
pub use graph::{CallGraph, EdgeTable, NoGraph, StoredGraph};
pub use llm::{ChatModel, LlmConfig, LlmError, OpenAiChat};
pub use probe::{Probe, ProbeError, probe};
pub use render::render_text;
pub use search::{Hit, HitSource, SearchError, search, search_with_overlay};
pub use service::{
    IndexLocation, MeiliConfig, RepoConfig, RepoStatus, Request, Scope, Service, ServiceError,
};

pub use indexer::bounded;
use indexer::store::StoreError;

/// Several Meilisearch instances searched in one federated request (issue 40, "past one machine").
pub use indexer::store::meilisearch::network as meili_network;

/// Errors of the query side.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
    #[error("reading or writing: {0}")]
    Io(#[from] std::io::Error),
}
