//! The server's configuration file (TOML): the repositories it serves and, for HTTP, which bearer
//! token sees which of them. Tokens are named by environment variable, never written in the file.
//!
//! ```toml
//! [[repo]]
//! name = "shop"
//! index_dir = "/srv/shop/.codemap"
//!
//! [[token]]
//! env = "CODEMAP_MCP_TOKEN_SHOP"   # the variable holding the token
//! repos = ["shop"]
//! ```

use query::{IndexLocation, RepoConfig};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// Repositories served.
    #[serde(default, rename = "repo")]
    pub repos: Vec<RepoEntry>,
    /// Bearer tokens of the HTTP transport, each with the repositories it may see.
    #[serde(default, rename = "token")]
    pub tokens: Vec<TokenEntry>,
    /// `Host` headers accepted over HTTP besides loopback names (DNS-rebinding guard).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoEntry {
    /// The name tools take as `repo`.
    pub name: String,
    /// The embedded index folder (`<repo>/.codemap`).
    pub index_dir: PathBuf,
    /// The repository's work tree: HEAD for freshness, `docs/codemap/*.md` as resources
    /// (default: the folder holding the index folder).
    pub root: Option<PathBuf>,
    /// Worker threads with a warm reader each.
    #[serde(default = "one")]
    pub workers: usize,
    /// Hold the call graph and text in memory after the first question (about 300 MB per
    /// million lines); `false` reads them per question.
    #[serde(default = "yes")]
    pub preload: bool,
}

fn yes() -> bool {
    true
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenEntry {
    /// Name of the environment variable holding the token.
    pub env: String,
    /// Repositories the token sees.
    pub repos: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    #[error("token {env}: the environment variable is not set or empty")]
    MissingToken { env: String },
    #[error("token {env}: repository {repo:?} is not configured")]
    UnknownRepo { env: String, repo: String },
}

impl McpConfig {
    pub fn load(path: &Path) -> Result<McpConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        McpConfig::parse(&text).map_err(|message| ConfigError::Parse {
            path: path.display().to_string(),
            message,
        })
    }

    pub fn parse(text: &str) -> Result<McpConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// What [`query::Service::start`] takes.
    pub fn repo_configs(&self) -> Vec<RepoConfig> {
        self.repos
            .iter()
            .map(|r| RepoConfig {
                name: r.name.clone(),
                location: IndexLocation::Embedded {
                    index_dir: r.index_dir.clone(),
                    repo_root: r.root.clone(),
                },
                workers: r.workers.max(1),
                preload: r.preload,
                preload_limit_mb: None,
            })
            .collect()
    }

    /// Work trees by repository name (where code maps are looked for).
    pub fn roots(&self) -> Vec<(String, PathBuf)> {
        self.repos
            .iter()
            .filter_map(|r| {
                let root = r
                    .root
                    .clone()
                    .or_else(|| r.index_dir.parent().map(Path::to_path_buf))?;
                Some((r.name.clone(), root))
            })
            .collect()
    }

    /// Each token's secret (read from its variable) with its repositories; fails on an unset
    /// variable or an unknown repository rather than serving a scope nobody meant.
    pub fn token_secrets(&self) -> Result<Vec<(String, Vec<String>)>, ConfigError> {
        let mut out = Vec::new();
        for t in &self.tokens {
            let secret = std::env::var(&t.env)
                .ok()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| ConfigError::MissingToken { env: t.env.clone() })?;
            for r in &t.repos {
                if !self.repos.iter().any(|x| &x.name == r) {
                    return Err(ConfigError::UnknownRepo {
                        env: t.env.clone(),
                        repo: r.clone(),
                    });
                }
            }
            out.push((secret, t.repos.clone()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_repos_and_tokens() {
        let c = McpConfig::parse(
            "[[repo]]\nname = \"shop\"\nindex_dir = \"/x/.codemap\"\n\n[[token]]\nenv = \"T\"\nrepos = [\"shop\"]\n",
        )
        .unwrap();
        assert_eq!(c.repos[0].name, "shop");
        assert_eq!(c.roots(), vec![("shop".to_string(), PathBuf::from("/x"))]);
        assert_eq!(c.tokens[0].repos, vec!["shop"]);
    }

    #[test]
    fn the_deploy_sample_is_valid() {
        let c = McpConfig::parse(include_str!("../../deploy/mcp.toml")).unwrap();
        assert_eq!(
            c.roots(),
            vec![("shop".to_string(), PathBuf::from("/repo"))]
        );
        assert_eq!(c.allowed_hosts, vec!["codemap.internal"]);
        // SAFETY: the sample's variable is read by no other test.
        unsafe { std::env::set_var("CODEMAP_MCP_TOKEN", "s3cret") };
        assert_eq!(
            c.token_secrets().unwrap(),
            vec![("s3cret".to_string(), vec!["shop".to_string()])]
        );
    }

    #[test]
    fn an_unknown_key_is_refused_with_its_name() {
        let e = McpConfig::parse("[[repo]]\nname = \"a\"\nindex_dir = \"/x\"\nworkerz = 2\n")
            .unwrap_err();
        assert!(e.contains("workerz"), "{e}");
    }

    #[test]
    fn a_token_for_an_unknown_repository_is_refused() {
        // SAFETY: the variable name is unique to this test.
        unsafe { std::env::set_var("CODEMAP_MCP_TEST_TOKEN_X", "s3cret") };
        let c = McpConfig::parse(
            "[[repo]]\nname = \"a\"\nindex_dir = \"/x\"\n[[token]]\nenv = \"CODEMAP_MCP_TEST_TOKEN_X\"\nrepos = [\"b\"]\n",
        )
        .unwrap();
        assert!(matches!(
            c.token_secrets(),
            Err(ConfigError::UnknownRepo { .. })
        ));
    }
}
