//! What `codemap bot --check` proves, and what `codemap bot` proves before anything listens:
//! every credential variable is set, every key parses (the platforms' routers and senders are
//! built exactly as the start builds them), every embedded index opens and belongs to its
//! repository, every Meilisearch repository answers a real request, and one federated search
//! through `[meilisearch_network]`'s `via` reaches every instance on it. Each problem names its
//! config key; a start with any problem is refused, never made partially.

use crate::config::{Config, Connection, RepoEntry};
use crate::inbox::Inbox;
use crate::model::Platform;
use crate::mount;
use query::{Probe, ProbeError};
use std::path::Path;

/// One thing that cannot work, with the config key to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct Problem {
    pub key: String,
    pub message: String,
}

impl Problem {
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// What a check established.
#[derive(Debug, Clone)]
pub struct Proof {
    pub repositories: Vec<RepoProof>,
    pub platforms: Vec<(Platform, Connection)>,
    /// What the federated search over `[meilisearch_network]` reached, when there is one.
    pub network: Option<String>,
}

/// A repository whose index opened and answered.
#[derive(Debug, Clone)]
pub struct RepoProof {
    pub name: String,
    /// `embedded` or `meilisearch`.
    pub backend: &'static str,
    pub generation: u64,
    pub files: u64,
    pub commit: Option<String>,
}

impl Proof {
    /// One line per repository and platform, for `--check`.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.repositories {
            let commit = match &r.commit {
                Some(c) => format!("commit {}", c.chars().take(10).collect::<String>()),
                None => "not a git commit".into(),
            };
            out.push(format!(
                "repository {}: {} index, {} files, snapshot {} at {commit}",
                r.name, r.backend, r.files, r.generation
            ));
        }
        for (p, c) in &self.platforms {
            out.push(format!(
                "platform {}: connection = {:?}, credentials set and keys parsed",
                p.as_str(),
                c.as_str()
            ));
        }
        if self.platforms.is_empty() {
            out.push("no platform is configured: only /healthz will be served".into());
        }
        out.extend(self.network.clone());
        out
    }
}

/// Proves `config` can work, or returns every problem at once. Blocking (reads indexes, calls
/// Meilisearch); call it outside an async runtime.
pub fn prove(config: &Config) -> Result<Proof, Vec<Problem>> {
    let mut problems = secrets(config);
    let mut later = |found: Vec<Problem>| {
        // An unset variable already explains why its key does not parse.
        for p in found {
            if !problems.iter().any(|q| q.key == p.key) {
                problems.push(p);
            }
        }
    };
    let (tx, _rx) = tokio::sync::mpsc::channel(1);
    if let Err(p) = mount::routes(config, &Inbox::new(tx)) {
        later(p);
    }
    if let Err(p) = mount::senders(config) {
        later(p);
    }
    let mut repositories = Vec::new();
    for (i, r) in config.repositories.iter().enumerate() {
        match repository(&format!("repositories[{i}]"), r) {
            Ok(p) => repositories.push(p),
            Err(p) => problems.push(p),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Proof {
        repositories,
        platforms: platforms(config),
        network: crate::network::prove(config)?,
    })
}

/// The configured platforms and their connection modes.
pub fn platforms(config: &Config) -> Vec<(Platform, Connection)> {
    let p = &config.platforms;
    [
        p.slack.as_ref().map(|s| (Platform::Slack, s.connection)),
        p.discord
            .as_ref()
            .map(|d| (Platform::Discord, d.connection)),
        p.feishu.as_ref().map(|f| (Platform::Feishu, f.connection)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Every credential variable the configuration names (per connection mode) must be set.
pub fn secrets(config: &Config) -> Vec<Problem> {
    let mut vars: Vec<(String, &str)> = config
        .platforms
        .needed()
        .into_iter()
        .filter_map(|n| n.var.map(|v| (n.key.to_string(), v)))
        .collect();
    for (i, r) in config.repositories.iter().enumerate() {
        if let Some(k) = r.meilisearch.as_ref().and_then(|m| m.key_env.as_deref()) {
            vars.push((format!("repositories[{i}].meilisearch.key_env"), k));
        }
    }
    if let Some(n) = &config.meilisearch_network {
        for (name, r) in &n.remotes {
            if let Some(k) = &r.search_key_env {
                vars.push((
                    format!("meilisearch_network.remotes.{name}.search_key_env"),
                    k,
                ));
            }
        }
    }
    vars.into_iter()
        .filter(|(_, var)| {
            std::env::var(var)
                .map(|v| v.trim().is_empty())
                .unwrap_or(true)
        })
        .map(|(key, var)| Problem::new(key, format!("the environment variable {var} is not set")))
        .collect()
}

fn repository(at: &str, r: &RepoEntry) -> Result<RepoProof, Problem> {
    let location = r
        .location()
        .ok_or_else(|| Problem::new(at, "no index_dir and no meilisearch"))?;
    let embedded = matches!(location, query::IndexLocation::Embedded { .. });
    let index_key = match embedded {
        true => format!("{at}.index_dir"),
        false => format!("{at}.meilisearch.url"),
    };
    let found = query::probe(&location).map_err(|e| {
        let key = match e {
            ProbeError::Unpublished { .. } => format!("{at}.meilisearch.repo"),
            _ => index_key.clone(),
        };
        Problem::new(key, e.to_string())
    })?;
    // An embedded index kept inside its repository needs no `repo_root`; a Meilisearch one is
    // only compared with a work tree the configuration names.
    let root = match (&r.repo_root, &r.index_dir) {
        (Some(root), _) => Some((format!("{at}.repo_root"), root.clone(), true)),
        (None, Some(dir)) if embedded => dir
            .parent()
            .map(|p| (index_key.clone(), p.to_path_buf(), false)),
        _ => None,
    };
    if let Some((key, root, named)) = root {
        belongs(&root, &found).map_err(|m| match named {
            true => Problem::new(&key, m),
            false => Problem::new(
                &key,
                format!("{m} (the index folder's parent; set repo_root to the repository's work tree if the index lives apart from it)"),
            ),
        })?;
    }
    Ok(RepoProof {
        name: r.name.clone(),
        backend: if embedded { "embedded" } else { "meilisearch" },
        generation: found.generation,
        files: found.files,
        commit: found.commit,
    })
}

/// Whether the index was built from the work tree at `root`: the folder exists, the snapshot's
/// commit (if it recorded one) is in the root's git history, and some indexed files are there.
fn belongs(root: &Path, found: &Probe) -> Result<(), String> {
    let shown = root.display();
    if !root.is_dir() {
        return Err(format!("the repository folder {shown} does not exist"));
    }
    if let Some(commit) = &found.commit
        && commit_known(root, commit) == Some(false)
    {
        return Err(format!(
            "{shown} is not the repository this index was built from: its commit {} is not in {shown}'s history",
            commit.chars().take(10).collect::<String>()
        ));
    }
    if let Some(first) = found.sample.first()
        && !found.sample.iter().any(|p| root.join(p).exists())
    {
        return Err(format!(
            "{shown} is not the repository this index was built from: none of its files (such as {first}) is there"
        ));
    }
    Ok(())
}

/// Whether `commit` exists in the git repository at `root`; `None` when `root` is not a git
/// work tree (or git is missing), which leaves the file sample to decide.
fn commit_known(root: &Path, commit: &str) -> Option<bool> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
    };
    let inside = git(&["rev-parse", "--is-inside-work-tree"])?;
    if !inside.status.success() {
        return None;
    }
    let found = git(&["cat-file", "-e", &format!("{commit}^{{commit}}")])?;
    Some(found.status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(commit: Option<&str>, sample: &[&str]) -> Probe {
        Probe {
            generation: 2,
            commit: commit.map(String::from),
            files: 2,
            sample: sample.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn another_work_tree_is_told_apart_by_its_files() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("src")).unwrap();
        std::fs::write(tmp.path().join("src/A.java"), "class A {}").unwrap();
        let indexed = snap(None, &["src/A.java", "src/B.java"]);
        assert_eq!(belongs(tmp.path(), &indexed), Ok(()));
        let other = snap(None, &["lib/Z.java"]);
        let e = belongs(tmp.path(), &other).unwrap_err();
        assert!(e.contains("none of its files (such as lib/Z.java)"), "{e}");
        let e = belongs(&tmp.path().join("gone"), &indexed).unwrap_err();
        assert!(e.contains("does not exist"), "{e}");
    }

    #[test]
    fn a_commit_missing_from_the_work_tree_is_another_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .current_dir(tmp.path())
                .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
                .args(args)
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false);
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(tmp.path().join("A.java"), "class A {}").unwrap();
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "one"]);
        let head = query::freshness::git_head(tmp.path()).unwrap();
        assert_eq!(belongs(tmp.path(), &snap(Some(&head), &["A.java"])), Ok(()));
        let e = belongs(
            tmp.path(),
            &snap(
                Some("0123456789abcdef0123456789abcdef01234567"),
                &["A.java"],
            ),
        )
        .unwrap_err();
        assert!(e.contains("its commit 0123456789 is not in"), "{e}");
    }

    #[test]
    fn unset_variables_are_named_by_key_never_by_value() {
        let text = r#"
[[repositories]]
name = "shop"
index_dir = "/x"
[platforms.feishu]
app_id_env = "CODEMAP_TEST_UNSET_FEISHU_ID"
app_secret_env = "CODEMAP_TEST_UNSET_FEISHU_SECRET"
verification_token_env = "PATH"
encrypt_key_env = "CODEMAP_TEST_UNSET_FEISHU_ENCRYPT"
"#;
        let c = Config::parse(text, "bot.toml").unwrap();
        let lines: Vec<String> = secrets(&c).iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "platforms.feishu.app_id_env: the environment variable CODEMAP_TEST_UNSET_FEISHU_ID is not set",
                "platforms.feishu.app_secret_env: the environment variable CODEMAP_TEST_UNSET_FEISHU_SECRET is not set",
                "platforms.feishu.encrypt_key_env: the environment variable CODEMAP_TEST_UNSET_FEISHU_ENCRYPT is not set",
            ]
        );
    }

    #[test]
    fn an_unset_network_search_key_is_named_by_its_key() {
        let text = r#"
[[repositories]]
name = "shop"
meilisearch = { url = "http://127.0.0.1:7701", remote = "a" }
[meilisearch_network]
via = "a"
remotes.a = { url = "http://127.0.0.1:7701", search_key_env = "CODEMAP_TEST_UNSET_NET_A" }
"#;
        let c = Config::parse(text, "bot.toml").unwrap();
        let lines: Vec<String> = secrets(&c).iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "meilisearch_network.remotes.a.search_key_env: the environment variable CODEMAP_TEST_UNSET_NET_A is not set"
            ]
        );
    }
}
