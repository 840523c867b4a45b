//! `codemap mcp`: the index as MCP tools for coding agents, over stdio (default) or streamable
//! HTTP with bearer tokens mapped to repository scopes.

use super::{Outcome, read_target, repo_name};
use crate::cli::{Backend, Global, McpArgs};
use anyhow::{Context, Result, bail};
use mcp::{CodemapMcp, McpConfig, RepoEntry, TokenEntry, Tokens};
use query::{Scope, Service};
use std::sync::Arc;

pub fn mcp(g: &Global, a: &McpArgs) -> Result<Outcome> {
    let mut config = match &a.repo_config {
        Some(path) => McpConfig::load(path)?,
        None => single_repo(g)?,
    };
    if let Some(env) = &a.token_env {
        // The token named on the command line sees every configured repository.
        config.tokens.push(TokenEntry {
            env: env.clone(),
            repos: config.repos.iter().map(|r| r.name.clone()).collect(),
        });
    }
    if config.repos.is_empty() {
        bail!("the configuration names no repository ([[repo]] with name and index_dir)");
    }
    let service = Arc::new(Service::start(config.repo_configs(), None));
    let roots = config.roots();
    match &a.http {
        None => {
            let all = Scope::of(config.repos.iter().map(|r| r.name.clone()));
            let server = CodemapMcp::new(service, all, roots);
            mcp::block_on(mcp::serve_stdio(server))?;
        }
        Some(addr) => {
            let tokens = config.token_secrets()?;
            if tokens.is_empty() {
                bail!(
                    "--http needs a bearer token: --token-env NAME (a variable holding it), or [[token]] entries in --repo-config"
                );
            }
            mcp::block_on(mcp::serve_http(
                service,
                roots,
                Tokens(tokens),
                addr,
                config.allowed_hosts.clone(),
                |bound| eprintln!("codemap mcp: listening on http://{bound}/mcp"),
            ))?;
        }
    }
    Ok(Outcome::Done)
}

/// The one repository the global flags point at: `--repo` when given (the index may live
/// anywhere), else the folder holding the index; named like that folder.
fn single_repo(g: &Global) -> Result<McpConfig> {
    if g.backend == Backend::Meilisearch {
        bail!("codemap mcp serves embedded indexes; use --repo-config for several repositories");
    }
    let dir = read_target(g)?;
    let root = match &g.repo {
        Some(r) => r
            .canonicalize()
            .with_context(|| format!("repository {} not found", r.display()))?,
        None => dir
            .root()
            .parent()
            .map(|p| p.to_path_buf())
            .context("the index folder has no parent folder; pass --repo")?,
    };
    let name = g.repo_name.clone().unwrap_or_else(|| repo_name(&root));
    Ok(McpConfig {
        repos: vec![RepoEntry {
            name,
            index_dir: dir.root().to_path_buf(),
            root: Some(root),
            workers: 2,
            preload: true,
        }],
        ..McpConfig::default()
    })
}
