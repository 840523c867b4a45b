//! Which snapshot an answer used and whether the repository has moved on since.

use indexer::model::Snapshot;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

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

/// How long a read of HEAD is reused: a bot answering fifty questions at once reads it once, not
/// fifty times (each read is a `git` process), and a move still shows within a second.
const HEAD_TTL: Duration = Duration::from_secs(1);

/// [`git_head`], read at most once per [`HEAD_TTL`] per work tree in this process.
pub fn current_head(root: &Path) -> Option<String> {
    static HEADS: LazyLock<Mutex<Heads>> = LazyLock::new(Mutex::default);
    let heads = || {
        HEADS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let now = Instant::now();
    if let Some(head) = heads().fresh(root, now) {
        return head;
    }
    let head = git_head(root);
    heads().put(root, now, head.clone());
    head
}

/// HEAD of each work tree, with when it was read.
#[derive(Default)]
struct Heads(HashMap<PathBuf, (Instant, Option<String>)>);

impl Heads {
    /// What was read of `root`'s HEAD less than [`HEAD_TTL`] before `now`.
    fn fresh(&self, root: &Path, now: Instant) -> Option<Option<String>> {
        let (at, head) = self.0.get(root)?;
        (now.saturating_duration_since(*at) < HEAD_TTL).then(|| head.clone())
    }

    fn put(&mut self, root: &Path, at: Instant, head: Option<String>) {
        self.0.insert(root.to_path_buf(), (at, head));
    }
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
        assert_eq!(current_head(tmp.path()), None);
    }

    #[test]
    fn a_head_read_is_reused_for_a_second_per_work_tree() {
        let mut heads = Heads::default();
        let (a, b) = (Path::new("/repo/a"), Path::new("/repo/b"));
        let t0 = Instant::now();
        assert_eq!(heads.fresh(a, t0), None, "nothing read yet");
        heads.put(a, t0, Some("aaaa".into()));
        heads.put(b, t0, None);
        let soon = t0 + HEAD_TTL / 2;
        assert_eq!(heads.fresh(a, soon), Some(Some("aaaa".into())));
        assert_eq!(
            heads.fresh(b, soon),
            Some(None),
            "no repository is kept too"
        );
        assert_eq!(
            heads.fresh(a, t0 + HEAD_TTL),
            None,
            "read again after a second"
        );
        heads.put(a, t0 + HEAD_TTL, Some("bbbb".into()));
        assert_eq!(heads.fresh(a, t0 + HEAD_TTL), Some(Some("bbbb".into())));
    }
}
