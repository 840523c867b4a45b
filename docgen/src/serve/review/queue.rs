//! One review per (repository, request) at a time: while a request's review runs, any number of
//! pushes to it leave exactly one review waiting (the newest head wins). Reviews of different
//! requests run side by side. The slot is pure; the reviewer below drives it with tokio.

use super::job::{self, ReviewContext, ReviewOutcome, ReviewTrigger};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The scheduling state of one request: running, and what waits behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Latest<T> {
    running: bool,
    pending: Option<T>,
}

impl<T> Default for Latest<T> {
    fn default() -> Self {
        Latest {
            running: false,
            pending: None,
        }
    }
}

impl<T: Clone> Latest<T> {
    /// `Some(t)`: idle, start `t` now. `None`: queued behind the running one (replacing any
    /// waiting); the bool says whether one was replaced.
    pub fn offer(&mut self, t: T) -> (Option<T>, bool) {
        if !self.running {
            self.running = true;
            return (Some(t), false);
        }
        let merged = self.pending.replace(t).is_some();
        (None, merged)
    }

    /// The running one ended: the next to run, or `None` (and the slot is idle).
    pub fn finish(&mut self) -> Option<T> {
        let next = self.pending.take();
        self.running = next.is_some();
        next
    }

    pub fn drain(&mut self) -> Option<T> {
        self.pending.take()
    }
}

/// What [`Reviewer::request`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewOffer {
    Start,
    /// Behind the request's running review (`merged`: it replaced one already waiting).
    Queued {
        merged: bool,
    },
    Closed,
}

/// The last finished review, for `/status` and tests.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewRecord {
    pub trigger: ReviewTrigger,
    pub finished_at: String,
    #[serde(flatten)]
    pub result: ReviewResult,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ReviewResult {
    Ok(ReviewOutcome),
    Failed {
        outcome: &'static str,
        error: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct ReviewStatus {
    pub name: String,
    /// Requests with a review running.
    pub running: Vec<u64>,
    pub reviews_finished: u64,
    pub last: Option<ReviewRecord>,
}

struct Inner {
    slots: BTreeMap<u64, Latest<ReviewTrigger>>,
    closed: bool,
    finished: u64,
    last: Option<ReviewRecord>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// The review runner of one repository.
#[derive(Clone)]
pub struct Reviewer {
    ctx: Arc<ReviewContext>,
    inner: Arc<Mutex<Inner>>,
}

impl Reviewer {
    pub fn new(ctx: ReviewContext) -> Reviewer {
        Reviewer {
            ctx: Arc::new(ctx),
            inner: Arc::new(Mutex::new(Inner {
                slots: BTreeMap::new(),
                closed: false,
                finished: 0,
                last: None,
                tasks: Vec::new(),
            })),
        }
    }

    /// The project comments go to (what a hook's base repository must be).
    pub fn project(&self) -> &str {
        &self.ctx.settings.project
    }

    /// Asks for a review; returns at once. Must be called inside a tokio runtime.
    pub fn request(&self, t: ReviewTrigger) -> ReviewOffer {
        let mut inner = self.inner.lock().expect("reviewer lock");
        if inner.closed {
            return ReviewOffer::Closed;
        }
        let (start, merged) = inner.slots.entry(t.number).or_default().offer(t.clone());
        match start {
            Some(first) => {
                let me = self.clone();
                inner.tasks.retain(|h| !h.is_finished());
                inner
                    .tasks
                    .push(tokio::spawn(async move { me.drive(first).await }));
                ReviewOffer::Start
            }
            None => ReviewOffer::Queued { merged },
        }
    }

    async fn drive(self, mut t: ReviewTrigger) {
        loop {
            let result = match job::run(self.ctx.clone(), t.clone()).await {
                Ok(o) => {
                    tracing::info!(repo = %self.ctx.repo.name, trigger = %t, outcome = ?o, "review finished");
                    ReviewResult::Ok(o)
                }
                Err(e) => {
                    tracing::error!(repo = %self.ctx.repo.name, trigger = %t, error = %e, "review failed");
                    ReviewResult::Failed {
                        outcome: "failed",
                        error: e.to_string(),
                    }
                }
            };
            let mut inner = self.inner.lock().expect("reviewer lock");
            inner.finished += 1;
            inner.last = Some(ReviewRecord {
                trigger: t.clone(),
                finished_at: chrono::Utc::now().to_rfc3339(),
                result,
            });
            let number = t.number;
            let slot = inner.slots.entry(number).or_default();
            match slot.finish() {
                Some(next) if !inner.closed => t = next,
                _ => {
                    inner.slots.remove(&number);
                    return;
                }
            }
        }
    }

    pub fn status(&self) -> ReviewStatus {
        let inner = self.inner.lock().expect("reviewer lock");
        ReviewStatus {
            name: self.ctx.repo.name.clone(),
            running: inner.slots.keys().copied().collect(),
            reviews_finished: inner.finished,
            last: inner.last.clone(),
        }
    }

    /// Takes no more requests, drops waiting reviews and waits for the running ones.
    pub async fn close(&self) {
        let tasks = {
            let mut inner = self.inner.lock().expect("reviewer lock");
            inner.closed = true;
            for s in inner.slots.values_mut() {
                s.drain();
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

    #[test]
    fn pushes_to_a_request_under_review_coalesce_into_one_more() {
        let mut s = Latest::default();
        assert_eq!(s.offer("a"), (Some("a"), false));
        assert_eq!(s.offer("b"), (None, false));
        assert_eq!(s.offer("c"), (None, true));
        assert_eq!(s.finish(), Some("c"));
        assert_eq!(s.finish(), None);
        assert_eq!(s.offer("d"), (Some("d"), false));
        assert_eq!(s.drain(), None);
    }
}
