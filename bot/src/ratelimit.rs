//! Per-user rate limits: a token bucket per (platform, workspace, user). Over the limit the user
//! is told once; further questions until a token is back are dropped quietly, so a flood does not
//! turn into a flood of refusals.

use crate::model::{Conversation, Platform};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What to do with a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Answer,
    /// Over the limit: reply once that they must wait this long.
    Refuse {
        wait: Duration,
    },
    /// Over the limit and already told.
    Drop,
}

struct Bucket {
    tokens: f64,
    at: Instant,
    told: bool,
}

pub struct RateLimiter {
    per_sec: f64,
    burst: f64,
    buckets: HashMap<(Platform, String, String), Bucket>,
}

/// Buckets kept before idle (full) ones are dropped.
const PRUNE_AT: usize = 10_000;

impl RateLimiter {
    pub fn new(per_minute: u32, burst: u32) -> RateLimiter {
        RateLimiter {
            per_sec: f64::from(per_minute.max(1)) / 60.0,
            burst: f64::from(burst.max(1)),
            buckets: HashMap::new(),
        }
    }

    pub fn check(&mut self, c: &Conversation, now: Instant) -> Verdict {
        if self.buckets.len() >= PRUNE_AT {
            let (per_sec, burst) = (self.per_sec, self.burst);
            self.buckets
                .retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * per_sec < burst);
        }
        let b = self
            .buckets
            .entry((c.platform, c.workspace.clone(), c.user.clone()))
            .or_insert(Bucket {
                tokens: self.burst,
                at: now,
                told: false,
            });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.per_sec).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            b.told = false;
            Verdict::Answer
        } else if b.told {
            Verdict::Drop
        } else {
            b.told = true;
            Verdict::Refuse {
                wait: Duration::from_secs_f64(((1.0 - b.tokens) / self.per_sec).ceil()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(u: &str) -> Conversation {
        Conversation {
            platform: Platform::Slack,
            workspace: "T1".into(),
            channel: "C1".into(),
            thread: None,
            user: u.into(),
            direct: false,
        }
    }

    #[test]
    fn a_burst_then_one_refusal_then_silence_until_a_token_returns() {
        let t0 = Instant::now();
        let mut l = RateLimiter::new(6, 2); // one token per 10 s
        assert_eq!(l.check(&user("a"), t0), Verdict::Answer);
        assert_eq!(l.check(&user("a"), t0), Verdict::Answer);
        assert_eq!(
            l.check(&user("a"), t0),
            Verdict::Refuse {
                wait: Duration::from_secs(10)
            }
        );
        assert_eq!(l.check(&user("a"), t0), Verdict::Drop);
        // Another user has their own bucket.
        assert_eq!(l.check(&user("b"), t0), Verdict::Answer);
        // A token back after 10 s; told again on the next excess.
        let t = t0 + Duration::from_secs(10);
        assert_eq!(l.check(&user("a"), t), Verdict::Answer);
        assert!(matches!(l.check(&user("a"), t), Verdict::Refuse { .. }));
    }
}
