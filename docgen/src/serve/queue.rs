//! The server's one job queue. A job is a repository's code maps or the review of one request;
//! its key is (kind, repository, request). One job per key runs at a time: while it runs, any
//! number of requests for the key leave exactly one job waiting behind it (a newer one takes
//! its place, except that a poll never displaces a waiting push). Jobs of different keys run
//! side by side. [`Slots`] is pure; [`Queue`] drives it with tokio.

use super::job::{Outcome, Trigger};
use crate::review::{ReviewOutcome, ReviewTrigger};
use serde::Serialize;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

/// A job the server runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Task {
    /// Regenerate a repository's code maps and commit them on its docs branch.
    Docs(Trigger),
    /// Review one pull / merge request.
    Review(ReviewTrigger),
}

impl Task {
    /// Whether this task, arriving while `waiting` waits, takes its place: a push says more
    /// than a poll (which commit, from whom); otherwise the newest wins.
    fn displaces(&self, waiting: &Task) -> bool {
        !(matches!(waiting, Task::Docs(Trigger::Push { .. }))
            && matches!(self, Task::Docs(Trigger::Poll)))
    }
}

impl std::fmt::Display for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Task::Docs(t) => t.fmt(f),
            Task::Review(t) => t.fmt(f),
        }
    }
}

/// The kinds of job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Docs,
    Review,
}

/// What coalesces: one docs job per repository, one review per (repository, request).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub kind: Kind,
    pub repo: String,
    /// The request under review (`None` for a docs job).
    pub request: Option<u64>,
}

impl Key {
    pub fn of(repo: &str, t: &Task) -> Key {
        let (kind, request) = match t {
            Task::Docs(_) => (Kind::Docs, None),
            Task::Review(r) => (Kind::Review, Some(r.number)),
        };
        Key {
            kind,
            repo: repo.to_string(),
            request,
        }
    }
}

/// What [`Queue::request`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Nothing ran for the key: the job starts now.
    Start,
    /// Behind the key's running job (`merged`: it displaced one already waiting, or was
    /// dropped for a waiting push).
    Queued { merged: bool },
    /// The server is shutting down.
    Closed,
}

/// The scheduling state of every key: running, and what waits behind it. A key is present
/// only while a job of it runs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Slots {
    slots: BTreeMap<Key, Option<Task>>,
}

impl Slots {
    /// `Some(t)`: the key was idle, start `t` now. `None`: queued behind the running job.
    pub fn offer(&mut self, key: Key, t: Task) -> (Option<Task>, bool) {
        match self.slots.get_mut(&key) {
            None => {
                self.slots.insert(key, None);
                (Some(t), false)
            }
            Some(pending) => {
                let merged = pending.is_some();
                if pending.as_ref().is_none_or(|w| t.displaces(w)) {
                    *pending = Some(t);
                }
                (None, merged)
            }
        }
    }

    /// The key's running job ended: the next to run, or `None` (and the key is idle).
    pub fn finish(&mut self, key: &Key) -> Option<Task> {
        let next = self.slots.get_mut(key).and_then(Option::take);
        if next.is_none() {
            self.slots.remove(key);
        }
        next
    }

    /// Drops every waiting job (shutdown); the running ones stay running.
    pub fn drain(&mut self) -> Vec<(Key, Task)> {
        self.slots
            .iter_mut()
            .filter_map(|(k, p)| p.take().map(|t| (k.clone(), t)))
            .collect()
    }

    pub fn running(&self, key: &Key) -> bool {
        self.slots.contains_key(key)
    }

    pub fn pending(&self, key: &Key) -> bool {
        self.slots.get(key).is_some_and(Option::is_some)
    }

    /// Keys with a job running.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.slots.keys()
    }
}

/// How a job ended.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Finished {
    Docs(Outcome),
    Review(ReviewOutcome),
    Failed {
        outcome: &'static str,
        error: String,
    },
}

/// The last finished job of a kind and repository, for `/status` and tests.
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub trigger: Task,
    /// RFC 3339 time the job ended.
    pub finished_at: String,
    #[serde(flatten)]
    pub result: Finished,
}

/// A repository's code-map jobs.
#[derive(Debug, Clone, Serialize)]
pub struct RepoStatus {
    pub name: String,
    pub running: bool,
    pub pending: bool,
    pub jobs_finished: u64,
    pub last: Option<Record>,
}

/// A repository's reviews.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewStatus {
    pub name: String,
    /// Requests with a review running.
    pub running: Vec<u64>,
    pub reviews_finished: u64,
    pub last: Option<Record>,
}

/// Runs one job to its end (the server's dispatch over the kinds).
pub type Run =
    Arc<dyn Fn(Key, Task) -> Pin<Box<dyn Future<Output = Finished> + Send>> + Send + Sync>;

#[derive(Default)]
struct Tally {
    finished: u64,
    last: Option<Record>,
}

struct Inner {
    slots: Slots,
    closed: bool,
    /// By kind and repository.
    tallies: BTreeMap<(Kind, String), Tally>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// The server's job runner.
#[derive(Clone)]
pub struct Queue {
    run: Run,
    inner: Arc<Mutex<Inner>>,
}

impl Queue {
    pub fn new(run: Run) -> Queue {
        Queue {
            run,
            inner: Arc::new(Mutex::new(Inner {
                slots: Slots::default(),
                closed: false,
                tallies: BTreeMap::new(),
                tasks: Vec::new(),
            })),
        }
    }

    /// Asks for a job of `repo`; returns at once. Must be called inside a tokio runtime.
    pub fn request(&self, repo: &str, t: Task) -> Offer {
        let mut inner = self.inner.lock().expect("queue lock");
        if inner.closed {
            return Offer::Closed;
        }
        let key = Key::of(repo, &t);
        match inner.slots.offer(key.clone(), t) {
            (Some(first), _) => {
                let me = self.clone();
                inner.tasks.retain(|h| !h.is_finished());
                inner
                    .tasks
                    .push(tokio::spawn(async move { me.drive(key, first).await }));
                Offer::Start
            }
            (None, merged) => Offer::Queued { merged },
        }
    }

    async fn drive(self, key: Key, mut task: Task) {
        loop {
            let result = (self.run)(key.clone(), task.clone()).await;
            let mut inner = self.inner.lock().expect("queue lock");
            let tally = inner
                .tallies
                .entry((key.kind, key.repo.clone()))
                .or_default();
            tally.finished += 1;
            tally.last = Some(Record {
                trigger: task,
                finished_at: chrono::Utc::now().to_rfc3339(),
                result,
            });
            match inner.slots.finish(&key) {
                Some(next) if !inner.closed => task = next,
                _ => return,
            }
        }
    }

    /// The code-map jobs of `repo`.
    pub fn docs_status(&self, repo: &str) -> RepoStatus {
        let inner = self.inner.lock().expect("queue lock");
        let key = Key::of(repo, &Task::Docs(Trigger::Poll));
        let tally = inner.tallies.get(&(Kind::Docs, repo.to_string()));
        RepoStatus {
            name: repo.to_string(),
            running: inner.slots.running(&key),
            pending: inner.slots.pending(&key),
            jobs_finished: tally.map_or(0, |t| t.finished),
            last: tally.and_then(|t| t.last.clone()),
        }
    }

    /// The reviews of `repo`'s requests.
    pub fn review_status(&self, repo: &str) -> ReviewStatus {
        let inner = self.inner.lock().expect("queue lock");
        let tally = inner.tallies.get(&(Kind::Review, repo.to_string()));
        ReviewStatus {
            name: repo.to_string(),
            running: inner
                .slots
                .keys()
                .filter(|k| k.kind == Kind::Review && k.repo == repo)
                .filter_map(|k| k.request)
                .collect(),
            reviews_finished: tally.map_or(0, |t| t.finished),
            last: tally.and_then(|t| t.last.clone()),
        }
    }

    /// Takes no more requests, drops the waiting jobs and waits for the running ones.
    pub async fn close(&self) {
        let tasks = {
            let mut inner = self.inner.lock().expect("queue lock");
            inner.closed = true;
            for (key, t) in inner.slots.drain() {
                tracing::info!(repo = %key.repo, trigger = %t, "shutting down: dropped a waiting job");
            }
            std::mem::take(&mut inner.tasks)
        };
        for t in tasks {
            let _ = t.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(s: &str) -> Task {
        Task::Docs(Trigger::Push { after: s.into() })
    }

    fn poll() -> Task {
        Task::Docs(Trigger::Poll)
    }

    fn review(number: u64, head: &str) -> Task {
        Task::Review(ReviewTrigger {
            number,
            head_sha: head.into(),
            base_branch: "main".into(),
            fork: false,
            closed: false,
        })
    }

    fn key(t: &Task) -> Key {
        Key::of("shop", t)
    }

    #[test]
    fn a_burst_for_one_key_leaves_one_job_behind_the_running_one() {
        let mut s = Slots::default();
        let k = key(&push("a"));
        assert_eq!(s.offer(k.clone(), push("a")), (Some(push("a")), false));
        for (i, c) in ["b", "c", "d", "e", "f"].iter().enumerate() {
            assert_eq!(s.offer(k.clone(), push(c)), (None, i > 0));
        }
        assert_eq!(s.offer(k.clone(), poll()), (None, true));
        // The newest push runs next, once; then the key is idle.
        assert_eq!(s.finish(&k), Some(push("f")));
        assert!(s.running(&k) && !s.pending(&k));
        assert_eq!(s.finish(&k), None);
        assert!(!s.running(&k));
        assert_eq!(s.offer(k.clone(), poll()), (Some(poll()), false));
    }

    #[test]
    fn a_push_displaces_a_waiting_poll_and_not_the_other_way_round() {
        let mut s = Slots::default();
        let k = key(&poll());
        s.offer(k.clone(), poll());
        s.offer(k.clone(), poll());
        s.offer(k.clone(), push("x"));
        s.offer(k.clone(), poll());
        assert_eq!(s.finish(&k), Some(push("x")));
    }

    #[test]
    fn reviews_coalesce_per_request_and_beside_the_docs_job() {
        let mut s = Slots::default();
        let (docs, r1, r2) = (key(&poll()), key(&review(1, "a")), key(&review(2, "a")));
        assert!(s.offer(docs.clone(), poll()).0.is_some());
        assert!(s.offer(r1.clone(), review(1, "a")).0.is_some());
        assert!(s.offer(r2.clone(), review(2, "a")).0.is_some());
        for head in ["b", "c", "d"] {
            assert!(s.offer(r1.clone(), review(1, head)).0.is_none());
        }
        assert_eq!(s.finish(&r1), Some(review(1, "d")));
        assert_eq!(s.finish(&r1), None);
        assert_eq!(s.finish(&r2), None);
        assert!(s.running(&docs) && !s.pending(&docs));
    }

    #[test]
    fn drain_leaves_nothing_waiting() {
        let mut s = Slots::default();
        let k = key(&push("a"));
        s.offer(k.clone(), push("a"));
        s.offer(k.clone(), push("b"));
        assert_eq!(s.drain(), vec![(k.clone(), push("b"))]);
        assert_eq!(s.finish(&k), None);
    }
}
