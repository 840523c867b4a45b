//! One job per repository at a time, later requests coalesced: while a job runs, any number of
//! pushes leave exactly one job waiting behind it (the newest trigger wins). The slot is pure; the
//! worker below drives it with tokio.

use super::job::{self, JobContext, Outcome, Trigger};
use serde::Serialize;
use std::sync::{Arc, Mutex};

/// The scheduling state of one repository.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Slot {
    running: bool,
    pending: Option<Trigger>,
}

/// What [`Slot::offer`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// Idle: start a job with this trigger now.
    Start(Trigger),
    /// A job is running: this one waits behind it (`merged`: it replaced one already waiting).
    Queued { merged: bool },
    /// The server is shutting down.
    Closed,
}

impl Slot {
    pub fn offer(&mut self, t: Trigger) -> Offer {
        if !self.running {
            self.running = true;
            return Offer::Start(t);
        }
        let merged = self.pending.is_some();
        // A push says more than a poll (which commit, from whom); otherwise the newest wins.
        let keep_push = matches!(self.pending, Some(Trigger::Push { .. })) && t == Trigger::Poll;
        if !keep_push {
            self.pending = Some(t);
        }
        Offer::Queued { merged }
    }

    /// The running job ended: the next trigger to run, or `None` (and the slot is idle).
    pub fn finish(&mut self) -> Option<Trigger> {
        let next = self.pending.take();
        self.running = next.is_some();
        next
    }

    /// Drops what is waiting (shutdown).
    pub fn drain(&mut self) -> Option<Trigger> {
        self.pending.take()
    }

    pub fn running(&self) -> bool {
        self.running
    }

    pub fn pending(&self) -> bool {
        self.pending.is_some()
    }
}

/// The last finished job, for `/status` and tests.
#[derive(Debug, Clone, Serialize)]
pub struct JobRecord {
    pub trigger: Trigger,
    /// RFC 3339 time the job ended.
    pub finished_at: String,
    #[serde(flatten)]
    pub result: JobResult,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum JobResult {
    Ok(Outcome),
    Failed {
        outcome: &'static str,
        error: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct RepoStatus {
    pub name: String,
    pub running: bool,
    pub pending: bool,
    pub jobs_finished: u64,
    pub last: Option<JobRecord>,
}

struct Inner {
    slot: Slot,
    closed: bool,
    jobs_finished: u64,
    last: Option<JobRecord>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// The job runner of one repository.
#[derive(Clone)]
pub struct Worker {
    ctx: Arc<JobContext>,
    inner: Arc<Mutex<Inner>>,
}

impl Worker {
    pub fn new(ctx: JobContext) -> Worker {
        Worker {
            ctx: Arc::new(ctx),
            inner: Arc::new(Mutex::new(Inner {
                slot: Slot::default(),
                closed: false,
                jobs_finished: 0,
                last: None,
                task: None,
            })),
        }
    }

    pub fn name(&self) -> &str {
        &self.ctx.repo.name
    }

    /// Asks for a job; returns at once. Must be called inside a tokio runtime.
    pub fn request(&self, t: Trigger) -> Offer {
        let mut inner = self.inner.lock().expect("worker lock");
        if inner.closed {
            return Offer::Closed;
        }
        let offer = inner.slot.offer(t);
        if let Offer::Start(first) = &offer {
            let me = self.clone();
            let first = first.clone();
            inner.task = Some(tokio::spawn(async move { me.drive(first).await }));
        }
        offer
    }

    async fn drive(self, mut trigger: Trigger) {
        loop {
            let result = job::run(self.ctx.clone(), trigger.clone()).await;
            let result = match result {
                Ok(o) => {
                    tracing::info!(repo = %self.name(), trigger = %trigger, outcome = ?o, "job finished");
                    JobResult::Ok(o)
                }
                Err(e) => {
                    tracing::error!(repo = %self.name(), trigger = %trigger, error = %e, "job failed; the docs branch was left as it was");
                    JobResult::Failed {
                        outcome: "failed",
                        error: e.to_string(),
                    }
                }
            };
            let mut inner = self.inner.lock().expect("worker lock");
            inner.jobs_finished += 1;
            inner.last = Some(JobRecord {
                trigger,
                finished_at: chrono::Utc::now().to_rfc3339(),
                result,
            });
            match inner.slot.finish() {
                Some(next) if !inner.closed => trigger = next,
                _ => return,
            }
        }
    }

    pub fn status(&self) -> RepoStatus {
        let inner = self.inner.lock().expect("worker lock");
        RepoStatus {
            name: self.ctx.repo.name.clone(),
            running: inner.slot.running(),
            pending: inner.slot.pending(),
            jobs_finished: inner.jobs_finished,
            last: inner.last.clone(),
        }
    }

    /// Takes no more requests, drops the waiting one and waits for the running job to end.
    pub async fn close(&self) {
        let task = {
            let mut inner = self.inner.lock().expect("worker lock");
            inner.closed = true;
            if let Some(t) = inner.slot.drain() {
                tracing::info!(repo = %self.name(), trigger = %t, "shutting down: dropped a waiting job");
            }
            inner.task.take()
        };
        if let Some(t) = task {
            let _ = t.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(s: &str) -> Trigger {
        Trigger::Push { after: s.into() }
    }

    #[test]
    fn pushes_during_a_job_coalesce_into_exactly_one_more() {
        let mut s = Slot::default();
        assert_eq!(s.offer(push("a")), Offer::Start(push("a")));
        assert_eq!(s.offer(push("b")), Offer::Queued { merged: false });
        assert_eq!(s.offer(push("c")), Offer::Queued { merged: true });
        assert_eq!(s.offer(Trigger::Poll), Offer::Queued { merged: true });
        // The newest push runs next, once; then the slot is idle.
        assert_eq!(s.finish(), Some(push("c")));
        assert!(s.running());
        assert_eq!(s.finish(), None);
        assert!(!s.running());
        assert_eq!(s.offer(Trigger::Poll), Offer::Start(Trigger::Poll));
    }

    #[test]
    fn a_push_replaces_a_waiting_poll() {
        let mut s = Slot::default();
        s.offer(Trigger::Poll);
        s.offer(Trigger::Poll);
        s.offer(push("x"));
        assert_eq!(s.finish(), Some(push("x")));
    }

    #[test]
    fn drain_leaves_nothing_waiting() {
        let mut s = Slot::default();
        s.offer(push("a"));
        s.offer(push("b"));
        assert_eq!(s.drain(), Some(push("b")));
        assert_eq!(s.finish(), None);
    }
}
