//! What the bot remembers per repository between jobs (and restarts): the last tracked commit it
//! mapped, the docs commit it left on the docs branch, and the request it keeps open. One JSON
//! file, replaced atomically, so a crash leaves the previous state.

use crate::host::PullRef;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoState {
    /// The tracked branch's commit the last finished job looked at.
    pub last_tracked: Option<String>,
    /// The commit the bot last put on the docs branch.
    pub docs_tip: Option<String>,
    /// The pull / merge request the bot keeps open.
    pub pull: Option<PullRef>,
    /// A docs commit was pushed but opening or updating the request failed: retry next job.
    #[serde(default)]
    pub pull_pending: bool,
    /// The docs commit of a push in flight, saved before pushing: if the job dies after the
    /// remote took it but before `docs_tip` was saved, the bot still knows the tip as its own
    /// instead of refusing its own branch forever.
    #[serde(default)]
    pub pushing: Option<String>,
}

/// Where a repository's clone, index and state live under the state folder.
#[derive(Debug, Clone)]
pub struct RepoPaths {
    pub root: PathBuf,
}

impl RepoPaths {
    pub fn new(state_dir: &Path, name: &str) -> RepoPaths {
        RepoPaths {
            root: state_dir.join(name),
        }
    }
    pub fn work(&self) -> PathBuf {
        self.root.join("work")
    }
    pub fn index(&self) -> PathBuf {
        self.root.join("index")
    }
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }
    /// The reviewer's repository (bare; request heads are fetched into `refs/codemap/…`),
    /// beside the docs clone and never shared with it.
    pub fn review_git(&self) -> PathBuf {
        self.root.join("review").join("git")
    }
    /// One request's work tree, index and state.
    pub fn request(&self, number: u64) -> PathBuf {
        self.root.join("review").join(format!("request-{number}"))
    }
}

impl RepoState {
    /// The saved state, or the empty one when there is none yet.
    pub fn load(path: &Path) -> std::io::Result<RepoState> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(RepoState::default()),
            Err(e) => Err(e),
        }
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_round_trips_and_starts_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("state.json");
        assert_eq!(RepoState::load(&p).unwrap(), RepoState::default());
        let s = RepoState {
            last_tracked: Some("a".into()),
            docs_tip: Some("b".into()),
            pull: Some(PullRef {
                number: 3,
                url: "http://x/3".into(),
                created: true,
            }),
            pull_pending: false,
            pushing: None,
        };
        s.save(&p).unwrap();
        assert_eq!(RepoState::load(&p).unwrap(), s);
        std::fs::write(&p, "{").unwrap();
        assert!(
            RepoState::load(&p)
                .unwrap_err()
                .to_string()
                .contains("state.json")
        );
    }
}
