//! Where verified questions enter the bot: dedupe by (platform, workspace, event id), then a
//! bounded queue the dispatcher drains in the background, so platform handlers acknowledge at
//! once. Platform adapters only call [`Inbox::submit`].

use crate::dedupe::Dedupe;
use crate::model::Question;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// What became of a submitted question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    /// Queued; it will be answered once.
    Accepted,
    /// Its event id was seen before (a platform retry); nothing more happens.
    Duplicate,
    /// The queue is full or shutting down; the platform should be told to retry later.
    Refused,
}

/// The entry of the answer core. Cheap to clone; `submit` never waits for an answer (one short
/// SQLite statement at most).
#[derive(Clone)]
pub struct Inbox {
    tx: mpsc::Sender<Question>,
    dedupe: Arc<Dedupe>,
    open: Arc<AtomicBool>,
}

impl Inbox {
    /// An inbox with an in-process event-id memory (24 h, 100,000 ids): for tests and fronts
    /// without a state folder. The server uses [`Inbox::with_dedupe`] with a file.
    pub fn new(tx: mpsc::Sender<Question>) -> Inbox {
        Inbox::with_dedupe(
            tx,
            Arc::new(Dedupe::in_memory(Duration::from_secs(24 * 3600), 100_000)),
        )
    }

    pub fn with_dedupe(tx: mpsc::Sender<Question>, dedupe: Arc<Dedupe>) -> Inbox {
        Inbox {
            tx,
            dedupe,
            open: Arc::new(AtomicBool::new(true)),
        }
    }

    pub fn submit(&self, q: Question) -> Submitted {
        if !self.open.load(Ordering::Acquire) {
            return Submitted::Refused;
        }
        let (platform, workspace, event) = (
            q.conversation.platform,
            q.conversation.workspace.clone(),
            q.event_id.clone(),
        );
        if !self
            .dedupe
            .first_time(platform, &workspace, &event, query::freshness::unix_now())
        {
            tracing::debug!(platform = platform.as_str(), %workspace, %event, "duplicate event");
            return Submitted::Duplicate;
        }
        match self.tx.try_send(q) {
            Ok(()) => Submitted::Accepted,
            Err(e) => {
                // Not queued: the platform's retry of this event must get through.
                self.dedupe.forget(platform, &workspace, &event);
                let why = match e {
                    mpsc::error::TrySendError::Full(_) => "queue full",
                    mpsc::error::TrySendError::Closed(_) => "shutting down",
                };
                tracing::warn!(platform = platform.as_str(), %event, why, "question refused");
                Submitted::Refused
            }
        }
    }

    /// From now on every submit is refused (shutdown); what is queued is still answered.
    pub fn close(&self) {
        self.open.store(false, Ordering::Release);
    }

    /// Questions waiting in the queue.
    pub fn queued(&self) -> usize {
        self.tx.max_capacity() - self.tx.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Conversation, Delivery, Platform};

    fn q(event: &str) -> Question {
        Question {
            conversation: Conversation {
                platform: Platform::Slack,
                workspace: "T1".into(),
                channel: "C1".into(),
                thread: None,
                user: "U1".into(),
                direct: false,
            },
            text: "who calls deductStock?".into(),
            event_id: event.into(),
            delivery: Delivery::Post,
        }
    }

    #[test]
    fn retries_are_duplicates_and_a_full_queue_refuses_without_remembering() {
        let (tx, mut rx) = mpsc::channel(1);
        let inbox = Inbox::new(tx);
        assert_eq!(inbox.submit(q("e1")), Submitted::Accepted);
        assert_eq!(inbox.submit(q("e1")), Submitted::Duplicate);
        assert_eq!(inbox.queued(), 1);
        // Full: refused, and its retry is not taken for a duplicate.
        assert_eq!(inbox.submit(q("e2")), Submitted::Refused);
        assert_eq!(rx.try_recv().unwrap().event_id, "e1");
        assert_eq!(inbox.submit(q("e2")), Submitted::Accepted);
        // Closed: refused, nothing remembered.
        let _ = rx.try_recv();
        inbox.close();
        assert_eq!(inbox.submit(q("e3")), Submitted::Refused);
        assert!(rx.try_recv().is_err());
    }
}
