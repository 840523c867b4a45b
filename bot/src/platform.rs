//! Chat platforms: each adapter verifies and parses its inbound payloads into [`Question`]s for the
//! [`crate::inbox::Inbox`], and delivers [`Reply`]s in its own format and limits.
//!
//! (Skeleton: the platform adapters own this file and `platform/*.rs`.)

use crate::model::{Question, Reply};
use std::future::Future;
use std::pin::Pin;

/// Why a reply could not be delivered.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// The platform said to wait (429 / rate-limit code); retried by the caller after `after`.
    #[error("rate limited; retry after {after:?}")]
    RateLimited { after: std::time::Duration },
    /// The platform refused the payload or the credentials.
    #[error("the platform refused the reply: {0}")]
    Refused(String),
    /// Network or server failure.
    #[error("delivering the reply failed: {0}")]
    Transport(String),
}

/// Sends replies to one platform's Web API (base URL configurable, so tests point it at a
/// loopback server that records what it was sent).
pub trait ChatSender: Send + Sync {
    fn platform(&self) -> crate::model::Platform;
    /// Delivers `reply` for `question` (thread, response URL or interaction as the question's
    /// [`crate::model::Delivery`] says), split or trimmed to the platform's limits.
    fn deliver<'a>(
        &'a self,
        question: &'a Question,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<(), DeliveryError>> + Send + 'a>>;
}
