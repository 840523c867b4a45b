//! Which snapshot an answer used and whether the repository has moved on since.

use indexer::model::Snapshot;
use serde::Serialize;
use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Freshness {
    pub generation: u64,
    /// Commit the snapshot was taken at, if the root is a git work tree.
    pub commit: Option<String>,
    /// The work tree had uncommitted changes when indexed.
    pub dirty: bool,
    /// Unix seconds.
    pub indexed_at: i64,
    pub age_secs: i64,
    /// HEAD of the repository now, when known.
    pub head: Option<String>,
    /// HEAD differs from the indexed commit.
    pub head_moved: Option<bool>,
    /// One line for humans: "indexed at 1a2b3c4 (3 h ago); HEAD unchanged".
    pub summary: String,
}

/// HEAD of the git work tree at `root`, if any. Shells out to `git rev-parse`.
pub fn git_head(root: &Path) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--verify", "--quiet", "HEAD"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// Describes a snapshot's freshness at time `now` given the repository's current HEAD.
pub fn describe(snapshot: Option<&Snapshot>, head: Option<String>, now: i64) -> Freshness {
    let Some(s) = snapshot else {
        return Freshness {
            generation: 0,
            commit: None,
            dirty: false,
            indexed_at: 0,
            age_secs: 0,
            head,
            head_moved: None,
            summary: "no snapshot: the index is empty; run `codemap index`".into(),
        };
    };
    let age = (now - s.created_at).max(0);
    let short = |c: &str| c.chars().take(10).collect::<String>();
    let mut summary = match &s.commit {
        Some(c) => format!(
            "indexed at {}{} ({})",
            short(c),
            if s.dirty { "+dirty" } else { "" },
            age_text(age)
        ),
        None => format!("indexed {} (not a git commit)", age_text(age)),
    };
    let head_moved = match (&s.commit, &head) {
        (Some(c), Some(h)) => Some(c != h),
        _ => None,
    };
    match (head_moved, &head) {
        (Some(true), Some(h)) => summary.push_str(&format!(
            "; HEAD has moved to {} since, re-index for fresh results",
            short(h)
        )),
        (Some(false), _) => summary.push_str("; HEAD unchanged"),
        _ => {}
    }
    Freshness {
        generation: s.generation,
        commit: s.commit.clone(),
        dirty: s.dirty,
        indexed_at: s.created_at,
        age_secs: age,
        head,
        head_moved,
        summary,
    }
}

/// `45 s ago`, `12 min ago`, `3 h ago`, `2 d ago`.
pub fn age_text(secs: i64) -> String {
    match secs {
        s if s < 60 => format!("{s} s ago"),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3600),
        s => format!("{} d ago", s / 86_400),
    }
}

pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(commit: Option<&str>) -> Snapshot {
        Snapshot {
            generation: 3,
            commit: commit.map(String::from),
            dirty: false,
            created_at: 1000,
            files: 1,
            symbols: 1,
            chunks: 1,
            publish_id: None,
        }
    }

    #[test]
    fn says_when_head_moved() {
        let f = describe(
            Some(&snap(Some("aaaaaaaaaaaa"))),
            Some("bbbbbbbbbbbb".into()),
            1000 + 7200,
        );
        assert_eq!(f.head_moved, Some(true));
        assert_eq!(
            f.summary,
            "indexed at aaaaaaaaaa (2 h ago); HEAD has moved to bbbbbbbbbb since, re-index for fresh results"
        );
        let f = describe(Some(&snap(Some("aaaa"))), Some("aaaa".into()), 1030);
        assert_eq!(f.summary, "indexed at aaaa (30 s ago); HEAD unchanged");
        let f = describe(Some(&snap(None)), None, 1000 + 3 * 86_400);
        assert_eq!(f.summary, "indexed 3 d ago (not a git commit)");
    }

    #[test]
    fn no_repository_no_head() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(git_head(tmp.path()), None);
    }
}
