//! codemap's MCP server: the index as tools for AI coding agents (`search`, `definition`,
//! `callers`, `callees`, `path`, `ask`, `impact`, `trace`, `repo_map`, and `read` at three levels
//! of disclosure), and docgen's code maps as resources. Over stdio, or streamable HTTP where a
//! bearer token maps to a repository scope.
//!
//! A front over [`query::Service`] only: it never opens an index itself, and every call runs
//! inside the caller's [`query::Scope`] (a repository outside it reads like a missing one). Bad
//! arguments come back as tool errors (`isError`, rmcp 3.11 does this for arguments that miss
//! the schema), never as protocol errors or a crash.

mod config;
mod disclose;
mod http;
mod params;
mod render;
mod server;

pub use config::{ConfigError, McpConfig, RepoEntry, TokenEntry};
pub use http::{Tokens, serve_http};
pub use server::{CodemapMcp, block_on, serve_stdio};

/// Errors of starting or running the server.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("binding {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("serving MCP: {0}")]
    Protocol(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
