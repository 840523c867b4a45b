//! Per-user rate limits: a token bucket per (platform, workspace, user). Every question gets a
//! reply: within the burst it is answered at once; past it, the next `burst` questions are held
//! and answered as tokens come back (each reserves the next token); past those, the user is
//! told to wait, every time, never met with silence.

use crate::model::{Conversation, Platform};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// What to do with a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Answer,
    /// Over the rate: answer after this wait, when the question's token is back.
    Later {
        after: Duration,
    },
    /// Too many questions held already: reply at once that they must wait this long.
    Refuse {
        wait: Duration,
    },
}

struct Bucket {
    /// Below zero while questions are held: each held one owes a token.
    tokens: f64,
    at: Instant,
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
            });
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.per_sec).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Verdict::Answer
        } else if b.tokens - 1.0 >= -self.burst {
            b.tokens -= 1.0;
            Verdict::Later {
                after: Duration::from_secs_f64(-b.tokens / self.per_sec),
            }
        } else {
            // A hold opens once the balance is back to 1 - burst.
            let short = (1.0 - self.burst) - b.tokens;
            Verdict::Refuse {
                wait: Duration::from_secs_f64((short / self.per_sec).ceil().max(1.0)),
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

    fn secs(v: Verdict) -> u64 {
        match v {
            Verdict::Later { after } => after.as_secs_f64().round() as u64,
            Verdict::Refuse { wait } => wait.as_secs(),
            Verdict::Answer => 0,
        }
    }

    #[test]
    fn past_the_burst_questions_wait_their_turn_then_are_told_every_time() {
        let t0 = Instant::now();
        let mut l = RateLimiter::new(6, 2); // one token per 10 s
        assert_eq!(l.check(&user("a"), t0), Verdict::Answer);
        assert_eq!(l.check(&user("a"), t0), Verdict::Answer);
        // The next two are held: answered in 10 s and 20 s.
        let third = l.check(&user("a"), t0);
        assert!(matches!(third, Verdict::Later { .. }), "{third:?}");
        assert_eq!(secs(third), 10);
        assert_eq!(secs(l.check(&user("a"), t0)), 20);
        // Then every further question is told to wait (no silence), for as long as it takes
        // for a hold to open.
        for _ in 0..3 {
            let v = l.check(&user("a"), t0);
            assert!(matches!(v, Verdict::Refuse { .. }), "{v:?}");
            assert_eq!(secs(v), 10);
        }
        // Another user has their own bucket.
        assert_eq!(l.check(&user("b"), t0), Verdict::Answer);
        // 10 s on, one held question is answered and a hold is free again.
        let t = t0 + Duration::from_secs(10);
        assert_eq!(secs(l.check(&user("a"), t)), 20);
        assert!(matches!(l.check(&user("a"), t), Verdict::Refuse { .. }));
        // Once the holds are paid off and a token is back, questions are answered at once.
        let t = t0 + Duration::from_secs(50);
        assert_eq!(l.check(&user("a"), t), Verdict::Answer);
    }
}
