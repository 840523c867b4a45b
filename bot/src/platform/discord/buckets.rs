//! Discord's rate-limit buckets, kept ahead of time instead of learned from 429s. Every response
//! says which bucket its route belongs to (`X-RateLimit-Bucket`), how many requests it has left
//! (`X-RateLimit-Remaining`) and when it refills (`X-RateLimit-Reset-After`); a route's bucket is
//! further split by its major parameter (the channel, or the webhook). A request to a bucket with
//! nothing left waits for the refill, and a global 429 holds every route. Pure: the sender passes
//! the clock in.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A request's route as Discord groups it: the route (`POST /channels/{id}/messages`) and the
/// major parameter (the channel id, or the webhook's application and token).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Route {
    pub route: String,
    pub major: String,
}

impl Route {
    /// The route of `method` on `path` (below the API base): ids in the path become `{id}`, and
    /// the first one after `channels`, `guilds` or `webhooks` (with a webhook's token) is the
    /// major parameter.
    pub fn of(method: &str, path: &str) -> Route {
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let mut route = vec![method.to_string()];
        let mut major = String::new();
        let mut i = 0;
        while i < parts.len() {
            let p = parts[i];
            let is_id = !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
            if is_id && major.is_empty() && i > 0 {
                let owner = parts[i - 1];
                if matches!(owner, "channels" | "guilds" | "webhooks") {
                    major = format!("{owner}/{p}");
                    // A webhook's token is part of its major parameter, and never kept verbatim
                    // in the route.
                    if owner == "webhooks" && i + 1 < parts.len() {
                        major.push('/');
                        major.push_str(&short_hash(parts[i + 1]));
                        route.push("{id}".into());
                        route.push("{token}".into());
                        i += 2;
                        continue;
                    }
                }
            }
            route.push(if is_id { "{id}".into() } else { p.to_string() });
            i += 1;
        }
        Route {
            route: route.join(" "),
            major,
        }
    }
}

/// A webhook token stands in the major parameter by a hash: the table never holds secrets.
fn short_hash(token: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    token.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// What a response said about its bucket.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    pub bucket: Option<String>,
    pub remaining: Option<u32>,
    pub reset_after: Option<Duration>,
    /// A 429 that holds every route (`X-RateLimit-Global`, or `"global": true`).
    pub global: bool,
}

impl Limits {
    /// Reads the `X-RateLimit-*` headers.
    pub fn from_headers(h: &reqwest::header::HeaderMap) -> Limits {
        let text = |k: &str| h.get(k).and_then(|v| v.to_str().ok()).map(str::trim);
        Limits {
            bucket: text("x-ratelimit-bucket")
                .filter(|b| !b.is_empty() && b.len() <= 128)
                .map(str::to_string),
            remaining: text("x-ratelimit-remaining").and_then(|v| v.parse().ok()),
            reset_after: text("x-ratelimit-reset-after")
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64),
            global: text("x-ratelimit-global").is_some_and(|v| v.eq_ignore_ascii_case("true")),
        }
    }
}

/// The longest a bucket's refill is believed: a broken header never parks a route for long.
const MAX_RESET: Duration = Duration::from_secs(60);
/// Buckets kept at most; then the table starts over (a bot runs for months).
const MAX_BUCKETS: usize = 10_000;

#[derive(Debug, Clone)]
struct State {
    remaining: u32,
    reset_at: Instant,
}

/// The buckets seen so far.
#[derive(Debug, Default)]
pub struct Buckets {
    /// Route → bucket id, as the responses said.
    bucket_of: HashMap<String, String>,
    /// (bucket id, major parameter) → what is left.
    state: HashMap<(String, String), State>,
    global_until: Option<Instant>,
}

impl Buckets {
    /// How long a request to `route` must wait before it goes (`None`: go now). When it may go,
    /// one request of its bucket is counted as taken, so that concurrent senders share what is
    /// left instead of all spending the last one.
    pub fn acquire(&mut self, route: &Route, now: Instant) -> Option<Duration> {
        if let Some(until) = self.global_until {
            if now < until {
                return Some(until - now);
            }
            self.global_until = None;
        }
        let key = self.key(route)?;
        let s = self.state.get_mut(&key)?;
        if now >= s.reset_at {
            // Refilled; the next response says by how much.
            self.state.remove(&key);
            return None;
        }
        if s.remaining == 0 {
            return Some(s.reset_at - now);
        }
        s.remaining -= 1;
        None
    }

    /// Takes in what a response to `route` said.
    pub fn observe(&mut self, route: &Route, limits: &Limits, now: Instant) {
        if let Some(b) = &limits.bucket {
            if self.bucket_of.len() >= MAX_BUCKETS || self.state.len() >= MAX_BUCKETS {
                self.bucket_of.clear();
                self.state.clear();
            }
            self.bucket_of.insert(route.route.clone(), b.clone());
        }
        if let (Some(key), Some(remaining), Some(after)) =
            (self.key(route), limits.remaining, limits.reset_after)
        {
            self.state.insert(
                key,
                State {
                    remaining,
                    reset_at: now + after.min(MAX_RESET),
                },
            );
        }
    }

    /// Takes in a 429: a global one holds every route for `retry_after`, a bucket's one
    /// empties that bucket until then.
    pub fn limited(&mut self, route: &Route, limits: &Limits, retry_after: Duration, now: Instant) {
        let until = now + retry_after.min(MAX_RESET);
        if limits.global {
            self.global_until = Some(self.global_until.map_or(until, |g| g.max(until)));
            return;
        }
        self.observe(route, limits, now);
        if let Some(key) = self.key(route) {
            self.state.insert(
                key,
                State {
                    remaining: 0,
                    reset_at: until,
                },
            );
        }
    }

    fn key(&self, route: &Route) -> Option<(String, String)> {
        let b = self.bucket_of.get(&route.route)?;
        Some((b.clone(), route.major.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(bucket: &str, remaining: u32, after_ms: u64) -> Limits {
        Limits {
            bucket: Some(bucket.into()),
            remaining: Some(remaining),
            reset_after: Some(Duration::from_millis(after_ms)),
            global: false,
        }
    }

    #[test]
    fn routes_group_ids_and_keep_the_major_parameter_without_the_token() {
        let a = Route::of("POST", "/api/v10/channels/111/messages");
        let b = Route::of("POST", "/api/v10/channels/222/messages");
        assert_eq!(a.route, b.route);
        assert_eq!(a.route, "POST api v10 channels {id} messages");
        assert_eq!(
            (a.major.as_str(), b.major.as_str()),
            ("channels/111", "channels/222")
        );
        let w = Route::of(
            "PATCH",
            "/api/v10/webhooks/42/s3cr3t-token/messages/@original",
        );
        assert_eq!(
            w.route,
            "PATCH api v10 webhooks {id} {token} messages @original"
        );
        assert!(w.major.starts_with("webhooks/42/"));
        assert!(!format!("{w:?}").contains("s3cr3t"), "{w:?}");
        let other = Route::of("PATCH", "/api/v10/webhooks/42/another/messages/@original");
        assert_ne!(
            w.major, other.major,
            "each interaction token is its own webhook"
        );
    }

    #[test]
    fn an_empty_bucket_waits_for_its_refill_and_other_channels_do_not() {
        let t0 = Instant::now();
        let mut b = Buckets::default();
        let c1 = Route::of("POST", "/channels/1/messages");
        let c2 = Route::of("POST", "/channels/2/messages");
        assert_eq!(b.acquire(&c1, t0), None, "nothing known: go");
        b.observe(&c1, &limits("msg", 1, 500), t0);
        assert_eq!(b.acquire(&c1, t0), None, "one left: taken");
        assert_eq!(b.acquire(&c1, t0), Some(Duration::from_millis(500)));
        let later = t0 + Duration::from_millis(200);
        assert_eq!(b.acquire(&c1, later), Some(Duration::from_millis(300)));
        assert_eq!(
            b.acquire(&c2, t0),
            None,
            "another channel's bucket is its own"
        );
        assert_eq!(
            b.acquire(&c1, t0 + Duration::from_millis(500)),
            None,
            "refilled"
        );
    }

    #[test]
    fn a_global_429_holds_every_route_and_a_bucket_429_only_its_own() {
        let t0 = Instant::now();
        let mut b = Buckets::default();
        let c1 = Route::of("POST", "/channels/1/messages");
        let c2 = Route::of("POST", "/channels/2/messages");
        b.limited(&c1, &limits("msg", 3, 100), Duration::from_millis(700), t0);
        assert_eq!(b.acquire(&c1, t0), Some(Duration::from_millis(700)));
        assert_eq!(b.acquire(&c2, t0), None);
        let global = Limits {
            global: true,
            ..Limits::default()
        };
        b.limited(&c2, &global, Duration::from_secs(2), t0);
        assert_eq!(b.acquire(&c2, t0), Some(Duration::from_secs(2)));
        let w = Route::of("POST", "/webhooks/9/tok");
        assert_eq!(
            b.acquire(&w, t0 + Duration::from_secs(1)),
            Some(Duration::from_secs(1))
        );
        assert_eq!(b.acquire(&w, t0 + Duration::from_secs(2)), None);
    }

    #[test]
    fn odd_headers_are_ignored_or_capped() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("x-ratelimit-bucket", "abc".parse().unwrap());
        h.insert("x-ratelimit-remaining", "lots".parse().unwrap());
        h.insert("x-ratelimit-reset-after", "-3".parse().unwrap());
        let l = Limits::from_headers(&h);
        assert_eq!((l.remaining, l.reset_after), (None, None));
        let t0 = Instant::now();
        let mut b = Buckets::default();
        let r = Route::of("POST", "/channels/1/messages");
        b.observe(&r, &limits("abc", 0, 3_600_000), t0);
        assert_eq!(
            b.acquire(&r, t0),
            Some(MAX_RESET),
            "an hour's reset is capped"
        );
    }
}
