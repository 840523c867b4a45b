//! The little the indexer asks git: which commit is checked out, and whether the tree is dirty.
//! Shells out to `git` (present wherever a repository is); no repository → `(None, false)`.

use std::path::Path;
use std::process::Command;

/// `(HEAD commit, work tree has uncommitted changes to tracked files)`.
pub fn head(root: &Path) -> (Option<String>, bool) {
    let Some(commit) = run(root, &["rev-parse", "--verify", "--quiet", "HEAD"]) else {
        return (None, false);
    };
    let dirty = run(root, &["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|s| !s.is_empty());
    (Some(commit), dirty)
}

fn run(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_repository_means_no_commit() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(head(tmp.path()), (None, false));
    }

    #[test]
    fn reads_head_and_dirtiness() {
        let tmp = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(tmp.path())
                .args(args)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(tmp.path().join("a.txt"), "one\n").unwrap();
        git(&["add", "."]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "x",
        ]);
        let (commit, dirty) = head(tmp.path());
        assert_eq!(commit.unwrap().len(), 40);
        assert!(!dirty);
        std::fs::write(tmp.path().join("a.txt"), "two\n").unwrap();
        assert!(head(tmp.path()).1);
    }
}
