//! The dispatcher: drains the inbox's queue with a bounded number of questions in flight, applies
//! the per-user rate limit (every question gets a reply: answered now, answered when the user's
//! token is back, or told to wait), answers in a blocking task and delivers through the
//! platform's [`ChatSender`], waiting out the platform's rate limits. On stop it answers what is
//! queued or held and returns when every reply is delivered or given up.

use crate::classify;
use crate::core::Core;
use crate::model::{Platform, Question, Reply};
use crate::platform::{ChatSender, DeliveryError};
use crate::ratelimit::{RateLimiter, Verdict};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinSet;

/// Delivery attempts per reply (the first included).
const ATTEMPTS: usize = 4;
/// Longest wait for a rate-limited delivery before giving up on that reply.
const MAX_WAIT: Duration = Duration::from_secs(120);
const OPEN: &str = "the semaphore is never closed";

/// The reply to a question past the user's rate and holds.
fn refusal(wait: Duration) -> Reply {
    classify::user(format!(
        "You are asking faster than I can answer; please wait about {} s and ask again.",
        wait.as_secs().max(1)
    ))
}

/// Waits out a held question's turn; cut short when the bot stops, so it is answered before
/// the process ends.
async fn held(after: Duration, mut stop: watch::Receiver<bool>) {
    tokio::select! {
        () = tokio::time::sleep(after) => {}
        _ = stop.wait_for(|s| *s) => {}
    }
}

/// Tasks still running: finished ones are reaped first, so an answered question is never
/// reported as in flight.
fn unfinished(tasks: &mut JoinSet<()>) -> usize {
    while tasks.try_join_next().is_some() {}
    tasks.len()
}

pub struct Dispatcher {
    core: Arc<Core>,
    senders: HashMap<Platform, Arc<dyn ChatSender>>,
    limiter: Mutex<RateLimiter>,
    concurrency: usize,
}

impl Dispatcher {
    pub fn new(core: Arc<Core>, senders: Vec<Arc<dyn ChatSender>>) -> Dispatcher {
        let l = &core.config().limits;
        let limiter = RateLimiter::new(l.questions_per_minute, l.burst);
        let concurrency = l.concurrency;
        Dispatcher {
            senders: senders.into_iter().map(|s| (s.platform(), s)).collect(),
            limiter: Mutex::new(limiter),
            concurrency,
            core,
        }
    }

    /// Runs until the queue closes or `stop` turns true; then answers what is queued and waits
    /// for every question in flight.
    pub async fn run(
        self: Arc<Self>,
        mut rx: mpsc::Receiver<Question>,
        mut stop: watch::Receiver<bool>,
    ) {
        let slots = Arc::new(Semaphore::new(self.concurrency));
        let mut tasks = JoinSet::new();
        let mut stopping = *stop.borrow();
        loop {
            let next = if stopping {
                // Draining: whatever is queued, without waiting for more.
                rx.try_recv().ok()
            } else {
                tokio::select! {
                    q = rx.recv() => match q {
                        Some(q) => Some(q),
                        None => break,
                    },
                    changed = stop.changed() => {
                        if changed.is_err() || *stop.borrow() {
                            stopping = true;
                            rx.close();
                        }
                        continue;
                    }
                }
            };
            let Some(q) = next else { break };
            let me = self.clone();
            match self.admit(&q) {
                Verdict::Answer => {
                    // Taken before spawning: a busy bot stops draining the queue, so the inbox
                    // refuses and platforms retry, instead of tasks piling up.
                    let permit = slots.clone().acquire_owned().await.expect(OPEN);
                    tasks.spawn(async move {
                        me.answer(q).await;
                        drop(permit);
                    });
                }
                Verdict::Later { after } => {
                    let (slots, stop) = (slots.clone(), stop.clone());
                    tasks.spawn(async move {
                        held(after, stop).await;
                        let permit = slots.acquire_owned().await.expect(OPEN);
                        me.answer(q).await;
                        drop(permit);
                    });
                }
                Verdict::Refuse { wait } => {
                    tasks.spawn(async move { me.deliver(&q, &refusal(wait)).await });
                }
            }
            while tasks.try_join_next().is_some() {}
        }
        let in_flight = unfinished(&mut tasks);
        if in_flight > 0 {
            tracing::info!(in_flight, "waiting for the questions in flight");
        }
        while tasks.join_next().await.is_some() {}
    }

    fn admit(&self, q: &Question) -> Verdict {
        let conv = &q.conversation;
        let verdict = self
            .limiter
            .lock()
            .map(|mut l| l.check(conv, Instant::now()))
            .unwrap_or(Verdict::Answer);
        if verdict != Verdict::Answer {
            tracing::info!(platform = conv.platform.as_str(), user = %conv.user, ?verdict, "rate limited");
        }
        verdict
    }

    async fn answer(&self, q: Question) {
        let core = self.core.clone();
        let q2 = q.clone();
        let reply = match tokio::task::spawn_blocking(move || core.answer(&q2)).await {
            Ok(r) => r,
            Err(e) => classify::internal(&format!("the answering task failed: {e}"), ""),
        };
        self.deliver(&q, &reply).await;
    }

    async fn deliver(&self, q: &Question, reply: &Reply) {
        let platform = q.conversation.platform;
        let Some(sender) = self.senders.get(&platform) else {
            tracing::error!(platform = platform.as_str(), event = %q.event_id, "no sender for the platform; reply dropped");
            return;
        };
        let mut backoff = Duration::from_millis(500);
        for attempt in 1..=ATTEMPTS {
            match sender.deliver(q, reply).await {
                Ok(()) => return,
                Err(DeliveryError::RateLimited { after })
                    if after <= MAX_WAIT && attempt < ATTEMPTS =>
                {
                    tracing::info!(
                        platform = platform.as_str(),
                        ?after,
                        attempt,
                        "rate limited; retrying after the wait"
                    );
                    tokio::time::sleep(after).await;
                }
                Err(DeliveryError::Transport(e)) if attempt < ATTEMPTS => {
                    tracing::warn!(platform = platform.as_str(), error = %e, attempt, "delivery failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff *= 2;
                }
                Err(e) => {
                    tracing::error!(platform = platform.as_str(), event = %q.event_id, error = %e, attempt, "reply not delivered");
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn answered_questions_are_not_counted_in_flight() {
        let mut tasks = JoinSet::new();
        tasks.spawn(async {});
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tasks.spawn(async move {
            let _ = rx.await;
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(unfinished(&mut tasks), 1);
        drop(tx);
    }
}
