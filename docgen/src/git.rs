//! The `git` CLI, as the docs bot uses it: one repository folder, an explicit author and committer
//! (never the machine's global identity), no prompts, no hooks, no signing. An adapter: it runs
//! commands and reports their failures; the decisions live in `serve::policy`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("could not run git: {0}")]
    Spawn(#[from] std::io::Error),
    #[error("`git {args}` failed ({status}): {stderr}")]
    Failed {
        args: String,
        status: String,
        stderr: String,
    },
}

/// Who the bot commits as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

/// A commit's author and message, as the safety checks read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub sha: String,
    pub author_email: String,
    pub message: String,
}

/// One repository folder (a work tree, or the folder a clone goes into).
#[derive(Debug, Clone)]
pub struct Git {
    dir: PathBuf,
    identity: Identity,
}

impl Git {
    pub fn new(dir: impl Into<PathBuf>, identity: Identity) -> Git {
        Git {
            dir: dir.into(),
            identity,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `git clone --no-checkout remote dir` (the parent of `dir` must exist).
    pub fn clone_from(remote: &str, dir: &Path, identity: Identity) -> Result<Git, GitError> {
        let parent = dir.parent().unwrap_or(Path::new("."));
        let git = Git::new(parent, identity);
        git.run([
            OsStr::new("clone"),
            OsStr::new("--quiet"),
            OsStr::new("--no-checkout"),
            OsStr::new(remote),
            dir.as_os_str(),
        ])?;
        Ok(Git::new(dir, git.identity))
    }

    /// Runs `git <args>` in the folder; stdout, trimmed, on success.
    pub fn run<I, S>(&self, args: I) -> Result<String, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        Ok(self.run_raw(args)?.trim().to_string())
    }

    /// Runs `git <args>` in the folder; stdout as it is (a diff keeps its last line) on success.
    pub fn run_raw<I, S>(&self, args: I) -> Result<String, GitError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<_> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.dir)
            // No hooks, no signing, no pager, whatever the machine's configuration says.
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "commit.gpgsign=false",
            ])
            // A stalled transfer fails after a minute instead of holding the job slot forever.
            .args([
                "-c",
                "http.lowSpeedLimit=1000",
                "-c",
                "http.lowSpeedTime=60",
            ])
            .args(&args)
            .env("GIT_AUTHOR_NAME", &self.identity.name)
            .env("GIT_AUTHOR_EMAIL", &self.identity.email)
            .env("GIT_COMMITTER_NAME", &self.identity.name)
            .env("GIT_COMMITTER_EMAIL", &self.identity.email)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_PAGER", "cat")
            .env(
                "GIT_SSH_COMMAND",
                std::env::var("GIT_SSH_COMMAND")
                    .unwrap_or_else(|_| "ssh -o BatchMode=yes -o ConnectTimeout=30".into()),
            )
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()?;
        if !out.status.success() {
            return Err(GitError::Failed {
                args: redact(
                    &args
                        .iter()
                        .map(|a| a.to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                status: out.status.to_string(),
                stderr: redact(String::from_utf8_lossy(&out.stderr).trim()),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The commit a ref or revision names, `None` when it does not exist.
    pub fn resolve(&self, rev: &str) -> Result<Option<String>, GitError> {
        let spec = format!("{rev}^{{commit}}");
        match self.run(["rev-parse", "--verify", "--quiet", spec.as_str()]) {
            Ok(sha) => Ok(Some(sha)),
            Err(GitError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn commit_info(&self, rev: &str) -> Result<CommitInfo, GitError> {
        // NUL-separated so a message with any text splits cleanly.
        let out = self.run(["show", "-s", "--format=%H%x00%ae%x00%B", rev])?;
        let mut parts = out.splitn(3, '\0');
        Ok(CommitInfo {
            sha: parts.next().unwrap_or_default().to_string(),
            author_email: parts.next().unwrap_or_default().to_string(),
            message: parts.next().unwrap_or_default().to_string(),
        })
    }

    /// The tree object of a commit.
    pub fn tree_of(&self, rev: &str) -> Result<String, GitError> {
        self.run(["rev-parse", &format!("{rev}^{{tree}}")])
    }

    /// Is anything staged (index differs from HEAD)?
    pub fn has_staged_changes(&self) -> Result<bool, GitError> {
        let names = self.run(["diff", "--cached", "--name-only"])?;
        Ok(!names.is_empty())
    }

    /// Sets `refs/heads/<branch>` to `new` only if it still is `old` (`None`: must not exist).
    pub fn update_branch(
        &self,
        branch: &str,
        new: &str,
        old: Option<&str>,
    ) -> Result<(), GitError> {
        let zero = "0".repeat(40);
        let old = old.unwrap_or(&zero);
        self.run(["update-ref", &format!("refs/heads/{branch}"), new, old])
            .map(|_| ())
    }
}

/// Hides credentials written into URLs (`https://user:token@host/…` → `https://***@host/…`): a
/// remote URL may carry a token, and errors end up in logs and `/status`.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || c == '/' || c == '\'' || c == '"')
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(at) => {
                out.push_str("***");
                rest = &tail[at..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot() -> Identity {
        Identity {
            name: "bot".into(),
            email: "bot@example.invalid".into(),
        }
    }

    #[test]
    fn commits_carry_the_explicit_identity_and_refs_resolve() {
        let tmp = tempfile::tempdir().unwrap();
        let git = Git::new(tmp.path(), bot());
        git.run(["init", "-q", "-b", "main"]).unwrap();
        std::fs::write(tmp.path().join("a.txt"), "a\n").unwrap();
        git.run(["add", "-A"]).unwrap();
        assert!(git.has_staged_changes().unwrap());
        git.run(["commit", "-q", "-m", "first\n\nTrailer: x"])
            .unwrap();
        assert!(!git.has_staged_changes().unwrap());
        let head = git.resolve("HEAD").unwrap().unwrap();
        let info = git.commit_info("HEAD").unwrap();
        assert_eq!(info.sha, head);
        assert_eq!(info.author_email, "bot@example.invalid");
        assert!(info.message.contains("Trailer: x"));
        assert_eq!(git.resolve("refs/heads/nope").unwrap(), None);
        assert_eq!(git.tree_of("HEAD").unwrap().len(), 40);
    }

    #[test]
    fn branch_update_is_compare_and_swap() {
        let tmp = tempfile::tempdir().unwrap();
        let git = Git::new(tmp.path(), bot());
        git.run(["init", "-q", "-b", "main"]).unwrap();
        git.run(["commit", "-q", "--allow-empty", "-m", "one"])
            .unwrap();
        let one = git.resolve("HEAD").unwrap().unwrap();
        git.run(["commit", "-q", "--allow-empty", "-m", "two"])
            .unwrap();
        let two = git.resolve("HEAD").unwrap().unwrap();
        git.update_branch("docs", &one, None).unwrap();
        // Creating again fails: the branch exists now.
        assert!(git.update_branch("docs", &two, None).is_err());
        // A stale expectation fails and leaves the branch where it was.
        assert!(git.update_branch("docs", &two, Some(&two)).is_err());
        assert_eq!(git.resolve("refs/heads/docs").unwrap(), Some(one.clone()));
        git.update_branch("docs", &two, Some(&one)).unwrap();
        assert_eq!(git.resolve("refs/heads/docs").unwrap(), Some(two));
    }

    #[test]
    fn credentials_in_urls_are_hidden() {
        assert_eq!(
            redact(
                "fatal: unable to access 'https://x-access-token:ghs_abc@github.com/a/b.git/': 403"
            ),
            "fatal: unable to access 'https://***@github.com/a/b.git/': 403"
        );
        assert_eq!(
            redact("clone https://github.com/a/b.git and ssh://git@host:22/x"),
            "clone https://github.com/a/b.git and ssh://***@host:22/x"
        );
        assert_eq!(redact("no url here"), "no url here");
    }

    #[test]
    fn a_failure_names_the_command_and_the_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let git = Git::new(tmp.path(), bot());
        let err = git.run(["rev-parse", "HEAD"]).unwrap_err().to_string();
        assert!(err.contains("git rev-parse HEAD"), "{err}");
        assert!(err.contains("not a git repository"), "{err}");
    }
}
