//! Test doubles with real behaviour, for this crate's tests, the benchmark example and fronts'
//! tests (feature `test-support`): a chat sender that records every reply it is given.

use crate::model::{Platform, Question, Reply};
use crate::platform::{ChatSender, DeliveryError};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A reply as the platform received it.
#[derive(Debug, Clone)]
pub struct Delivered {
    pub question: Question,
    pub reply: Reply,
    pub at: Instant,
}

/// Records replies instead of posting them; can be told to fail the next attempts the way a
/// platform does (429 with a wait, a refused payload, a broken connection).
pub struct RecordingSender {
    platform: Platform,
    log: Mutex<Vec<Delivered>>,
    failures: Mutex<VecDeque<DeliveryError>>,
    attempts: AtomicUsize,
    /// How long a delivery takes (a platform's round trip).
    latency: Duration,
    changed: tokio::sync::Notify,
}

impl RecordingSender {
    pub fn new(platform: Platform) -> RecordingSender {
        RecordingSender::with_latency(platform, Duration::ZERO)
    }

    pub fn with_latency(platform: Platform, latency: Duration) -> RecordingSender {
        RecordingSender {
            platform,
            log: Mutex::new(Vec::new()),
            failures: Mutex::new(VecDeque::new()),
            attempts: AtomicUsize::new(0),
            latency,
            changed: tokio::sync::Notify::new(),
        }
    }

    /// The next delivery attempt fails with `e` (queued in order).
    pub fn fail_next(&self, e: DeliveryError) {
        self.failures.lock().expect("not poisoned").push_back(e);
    }

    pub fn delivered(&self) -> Vec<Delivered> {
        self.log.lock().expect("not poisoned").clone()
    }

    /// Delivery attempts, failed ones included.
    pub fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }

    /// Waits until at least `n` replies arrived or `timeout` passed; returns what arrived.
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Delivered> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.changed.notified();
            let got = self.delivered();
            if got.len() >= n {
                return got;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.delivered();
            }
        }
    }
}

impl ChatSender for RecordingSender {
    fn platform(&self) -> Platform {
        self.platform
    }

    fn deliver<'a>(
        &'a self,
        question: &'a Question,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<(), DeliveryError>> + Send + 'a>> {
        Box::pin(async move {
            self.attempts.fetch_add(1, Ordering::SeqCst);
            if !self.latency.is_zero() {
                tokio::time::sleep(self.latency).await;
            }
            if let Some(e) = self.failures.lock().expect("not poisoned").pop_front() {
                return Err(e);
            }
            self.log.lock().expect("not poisoned").push(Delivered {
                question: question.clone(),
                reply: reply.clone(),
                at: Instant::now(),
            });
            self.changed.notify_waiters();
            Ok(())
        })
    }
}
