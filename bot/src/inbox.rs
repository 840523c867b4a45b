//! Where verified questions enter the bot: dedupe by event id, then a queue the answer core
//! drains in the background, so platform handlers acknowledge at once.
//!
//! (Skeleton: the answer core owns this file; platform adapters only call [`Inbox::submit`].)

use crate::model::Question;

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

/// The entry of the answer core. Cheap to clone; `submit` never blocks.
#[derive(Clone)]
pub struct Inbox {
    tx: tokio::sync::mpsc::Sender<Question>,
}

impl Inbox {
    pub fn new(tx: tokio::sync::mpsc::Sender<Question>) -> Inbox {
        Inbox { tx }
    }

    pub fn submit(&self, q: Question) -> Submitted {
        match self.tx.try_send(q) {
            Ok(()) => Submitted::Accepted,
            Err(_) => Submitted::Refused,
        }
    }
}
