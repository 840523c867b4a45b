//! Chat platforms: each adapter verifies and parses its inbound payloads into [`Question`]s for the
//! [`Inbox`], and delivers [`Reply`]s in its own format and limits.
//!
//! # What the core mounts
//!
//! | Platform | Inbound | Outbound |
//! |---|---|---|
//! | Slack | [`slack::router`]`(`[`slack::SlackConfig`]`, Inbox)`: `POST /slack/events`, `POST /slack/commands`; or Socket Mode: [`slack::socket::listen`] | [`slack::SlackSender::new`]`(bot_token, api_base, hooks_base)` |
//! | Discord | [`discord::router`]`(`[`discord::DiscordConfig`]`, Inbox)`: `POST /discord/interactions`; or the gateway: [`discord::gateway::run`] | [`discord::DiscordSender::new`]`(api_base, bot_token)`; `/ask` via [`discord::DiscordSender::register_commands`] |
//! | Feishu | [`feishu::router`]`(`[`feishu::FeishuConfig`]`, Inbox)`: `POST /feishu/events` | [`feishu::FeishuSender::new`]`(api_base, app_id, app_secret)` |
//!
//! Routers answer within milliseconds: size cap (1 MiB), signature / token, replay window,
//! challenge, parse, [`Inbox::submit`], ack. `Accepted` and `Duplicate` ack 200 (a retry needs no
//! second answer); `Refused` answers 503 where the platform redelivers (Slack events, Feishu;
//! Socket Mode leaves the envelope unacknowledged) and an ephemeral "busy" note where it does not
//! (Slack slash commands, Discord interactions). Bad signatures, tokens or stale timestamps get
//! 401, payloads that cannot be parsed 400, bodies over 1 MiB 413; nothing is submitted for any.
//!
//! Senders render from a [`Reply`] only: the only links are [`crate::model::CodeLink`] URLs (and
//! only `http(s)` ones without markup characters), other URLs in text are defanged, mass mentions
//! are neutralised, errors are told by class with the reference id. Posts to one conversation
//! are paced (Slack 1/s per channel, Feishu 5/s per chat) and 429s are waited out
//! (`Retry-After`, `retry_after`, `x-ogw-ratelimit-reset`) up to three times before
//! [`DeliveryError::RateLimited`] is returned.

pub mod discord;
pub mod feishu;
pub mod slack;

use crate::inbox::{Inbox, Submitted};
use crate::model::{ErrorClass, HelpReply, Question, Reply};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Largest inbound body a router reads.
pub const MAX_BODY: usize = 1 << 20;
/// Replay window for signed requests (Slack's rule, applied to all three).
pub const REPLAY_WINDOW_SECS: i64 = 5 * 60;
/// How many 429s a sender waits out before giving up on one request.
const RATE_LIMIT_RETRIES: usize = 3;
/// Longest a sender sleeps for one 429; a longer wait is returned to the caller.
pub(crate) const MAX_RATE_LIMIT_WAIT: Duration = Duration::from_secs(30);

/// Why a reply could not be delivered.
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// The platform said to wait (429 / rate-limit code); retried by the caller after `after`.
    #[error("rate limited; retry after {after:?}")]
    RateLimited { after: Duration },
    /// The platform refused the payload or the credentials.
    #[error("the platform refused the reply: {0}")]
    Refused(String),
    /// Network or server failure.
    #[error("delivering the reply failed: {0}")]
    Transport(String),
}

/// A platform setting that cannot work (bad key, empty secret).
#[derive(Debug, thiserror::Error)]
#[error("{key}: {problem}")]
pub struct ConfigError {
    pub key: &'static str,
    pub problem: String,
}

/// Sends replies to one platform's Web API (base URL configurable, so tests point it at a
/// loopback server that records what it was sent).
pub trait ChatSender: Send + Sync {
    fn platform(&self) -> crate::model::Platform;
    /// Delivers `reply` for `question` (thread, response URL or interaction as the question's
    /// [`crate::model::Delivery`] says), split or trimmed to the platform's limits. A 429 is
    /// waited out up to three times; not idempotent (a retry after `Transport` may post twice).
    fn deliver<'a>(
        &'a self,
        question: &'a Question,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<(), DeliveryError>> + Send + 'a>>;
}

/// The HTTP status a router acks a verified payload with.
pub(crate) fn ack_status(inbox: &Inbox, question: Question) -> axum::http::StatusCode {
    let event = question.event_id.clone();
    match inbox.submit(question) {
        Submitted::Accepted => axum::http::StatusCode::OK,
        Submitted::Duplicate => {
            tracing::debug!(event, "duplicate delivery acknowledged");
            axum::http::StatusCode::OK
        }
        Submitted::Refused => {
            tracing::warn!(
                event,
                "inbox refused a question; asking the platform to retry"
            );
            axum::http::StatusCode::SERVICE_UNAVAILABLE
        }
    }
}

pub(crate) fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Whether a signed timestamp (unix seconds, as text) lies within the replay window of `now`.
pub(crate) fn fresh(timestamp: &str, now: i64) -> bool {
    timestamp
        .trim()
        .parse::<i64>()
        .is_ok_and(|ts| (now - ts).abs() <= REPLAY_WINDOW_SECS)
}

/// Mass and role mentions made inert with a zero-width space after the `@`/`!`, so quoted code
/// or an answer can never ping a channel.
pub(crate) fn neutralise(text: &str) -> String {
    const ZW: &str = "\u{200B}";
    let mut out = text.to_string();
    for word in ["everyone", "here", "channel"] {
        out = replace_ascii_ci(&out, &format!("@{word}"), &format!("@{ZW}{word}"));
        out = replace_ascii_ci(&out, &format!("<!{word}"), &format!("<!{ZW}{word}"));
    }
    out = out.replace("<@&", &format!("<@{ZW}&"));
    out = out.replace("<!subteam", &format!("<!{ZW}subteam"));
    // Feishu's `<at user_id="all">` and `@all`.
    out = out.replace("<at ", &format!("<{ZW}at "));
    out = replace_ascii_ci(&out, "@all", &format!("@{ZW}all"));
    out
}

fn replace_ascii_ci(text: &str, needle: &str, with: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in lower.match_indices(needle) {
        out.push_str(&text[last..i]);
        out.push_str(with);
        last = i + needle.len();
    }
    out.push_str(&text[last..]);
    out
}

/// URLs in free text lose their scheme separator (`https[:]//x`), so no chat turns them into a
/// link or a preview: the only links in a reply are the code links the bot built.
pub(crate) fn defang(text: &str) -> String {
    text.replace("://", "[:]//")
}

/// Free text made safe for any chat: mentions neutralised, URLs defanged.
pub(crate) fn plain(text: &str) -> String {
    defang(&neutralise(text))
}

/// A code-link URL fit to render as a link: http(s) and no character that could close or extend
/// the platform's link markup.
pub(crate) fn safe_url(url: Option<&str>) -> Option<&str> {
    let url = url?;
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    let clean = !url
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "<>|\"`()[]{}\\".contains(c));
    (scheme_ok && clean).then_some(url)
}

/// Cuts `text` to at most `max` characters, ending in `…` when it had to cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The headline and body every platform shows for an error, by class.
pub(crate) fn error_text(
    class: ErrorClass,
    message: &str,
    reference: Option<&str>,
) -> (String, String) {
    let message = plain(message);
    let reference = reference.map(plain);
    match class {
        ErrorClass::User => ("I could not use that question".into(), message),
        ErrorClass::NotFound => ("Nothing found".into(), message),
        ErrorClass::Unavailable => (
            "The index is unavailable right now".into(),
            format!("{message} Please try again in a minute."),
        ),
        ErrorClass::Internal => (
            "Something went wrong on my side".into(),
            match reference {
                Some(r) => format!("Reference: {r} (the details are in the bot's log)."),
                None => "The details are in the bot's log.".into(),
            },
        ),
    }
}

/// The lines of a help reply, platform-neutral.
pub(crate) fn help_lines(help: &HelpReply) -> (String, Vec<String>) {
    let repos = if help.repos.is_empty() {
        "No repository is open to this conversation yet; ask an admin to add it to the bot's scopes."
            .to_string()
    } else {
        format!(
            "I answer questions about: {}.",
            plain(&help.repos.join(", "))
        )
    };
    let examples = help.examples.iter().map(|e| plain(e)).collect();
    (repos, examples)
}

/// What one attempt at a Web API call came back with.
pub(crate) enum Attempt<T> {
    Done(T),
    /// 429 or a rate-limit code: wait this long, then try again.
    Wait(Duration),
}

/// Runs `call` until it is not rate limited, sleeping as the platform asked, at most
/// [`RATE_LIMIT_RETRIES`] times and never longer than [`MAX_RATE_LIMIT_WAIT`] at once.
pub(crate) async fn with_rate_limit<T, F, Fut>(mut call: F) -> Result<T, DeliveryError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Attempt<T>, DeliveryError>>,
{
    let mut waits = 0;
    loop {
        match call().await? {
            Attempt::Done(v) => return Ok(v),
            Attempt::Wait(after) if waits < RATE_LIMIT_RETRIES && after <= MAX_RATE_LIMIT_WAIT => {
                waits += 1;
                tracing::info!(?after, waits, "rate limited; waiting as the platform asked");
                tokio::time::sleep(after).await;
            }
            Attempt::Wait(after) => return Err(DeliveryError::RateLimited { after }),
        }
    }
}

/// Spaces posts to one conversation: Slack allows about one message per second per channel,
/// Feishu five per second per chat. Waits are handed out in order, so a burst drains evenly.
pub(crate) struct Pacer {
    interval: Duration,
    next: std::sync::Mutex<std::collections::HashMap<String, tokio::time::Instant>>,
}

impl Pacer {
    pub(crate) fn new(interval: Duration) -> Pacer {
        Pacer {
            interval,
            next: Default::default(),
        }
    }

    /// Returns when a post to `key` may go out.
    pub(crate) async fn wait(&self, key: &str) {
        let at = {
            let mut next = self.next.lock().unwrap_or_else(|p| p.into_inner());
            let now = tokio::time::Instant::now();
            if next.len() > 10_000 {
                next.retain(|_, t| *t > now);
            }
            let slot = next.entry(key.to_string()).or_insert(now);
            let at = (*slot).max(now);
            *slot = at + self.interval;
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// Seconds (integer or fractional) from a header, as a wait.
pub(crate) fn header_secs(headers: &reqwest::header::HeaderMap, name: &str) -> Option<Duration> {
    let v = headers
        .get(name)?
        .to_str()
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()?;
    (v.is_finite() && v >= 0.0).then(|| Duration::from_secs_f64(v))
}

/// A request that failed before an answer came: where it went (secrets redacted) and every
/// cause reqwest knows ("error sending request: client error (Connect): tcp connect error:
/// Connection refused").
pub(crate) fn transport(e: reqwest::Error) -> DeliveryError {
    let url = e.url().map(|u| redact_url(u.as_str()));
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        causes.push(s.to_string());
        source = s.source();
    }
    let mut what = e.without_url().to_string();
    for c in causes {
        // Layers often repeat their inner error in their own message.
        if !what.contains(&c) {
            what = format!("{what}: {c}");
        }
    }
    DeliveryError::Transport(at(url.as_deref(), &what))
}

/// `url: what`, the URL already redacted; `what` alone when there is none.
pub(crate) fn at(url: Option<&str>, what: &str) -> String {
    match url {
        Some(u) => format!("{u}: {what}"),
        None => what.to_string(),
    }
}

/// A URL fit for a log: the parts that are credentials are replaced by `[redacted]` (a Slack
/// `response_url`'s last segment, a Discord interaction webhook's token, any user info), and
/// the query is dropped.
pub fn redact_url(url: &str) -> String {
    const GONE: &str = "[redacted]";
    let Ok(mut u) = url::Url::parse(url) else {
        return "(a URL that does not parse)".into();
    };
    let segments: Vec<String> = u
        .path_segments()
        .map(|s| s.map(str::to_string).collect())
        .unwrap_or_default();
    let hook = segments.first().map(String::as_str);
    let redacted: Vec<String> = segments
        .iter()
        .enumerate()
        .map(|(i, seg)| {
            // Discord: /webhooks/{application id}/{token}/…
            let discord = i >= 2 && segments[i - 2] == "webhooks";
            // Slack: /commands|actions|services|workflows/{team}/{id}/{token}
            let slack = i == 3
                && matches!(
                    hook,
                    Some("commands" | "actions" | "services" | "workflows")
                );
            if discord || slack {
                GONE.to_string()
            } else {
                seg.clone()
            }
        })
        .collect();
    if !segments.is_empty() {
        u.set_path(&redacted.join("/"));
    }
    if u.query().is_some() {
        u.set_query(Some(GONE));
    }
    let _ = u.set_username("");
    let _ = u.set_password(None);
    u.to_string().replace("%5Bredacted%5D", GONE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mass_mentions_are_inert_in_every_spelling() {
        let s = neutralise(
            "@everyone @HERE @channel <!channel> <!here> <!everyone> <@&123> <!subteam^S1> <at user_id=\"all\"> @all",
        );
        for bad in [
            "@everyone",
            "@HERE",
            "@channel",
            "<!channel",
            "<!here",
            "<!everyone",
            "<@&",
            "<!subteam",
            "<at ",
            "@all",
        ] {
            assert!(!s.contains(bad), "{bad} survived in {s}");
        }
        assert_eq!(neutralise("plain text"), "plain text");
    }

    #[test]
    fn urls_in_text_are_defanged() {
        assert_eq!(
            defang("see https://evil.example/x?a=1"),
            "see https[:]//evil.example/x?a=1"
        );
    }

    #[test]
    fn only_clean_http_urls_render_as_links() {
        assert_eq!(
            safe_url(Some("https://git.example/a/b#L3")),
            Some("https://git.example/a/b#L3")
        );
        assert_eq!(safe_url(Some("javascript:alert(1)")), None);
        assert_eq!(safe_url(Some("https://x/|<!channel>")), None);
        assert_eq!(safe_url(Some("https://x/a b")), None);
        assert_eq!(safe_url(None), None);
    }

    #[test]
    fn replay_window_is_five_minutes_either_way() {
        assert!(fresh("1000", 1300));
        assert!(!fresh("1000", 1301));
        assert!(!fresh("1301", 1000));
        assert!(!fresh("soon", 1000));
    }

    #[tokio::test]
    async fn pacer_spaces_one_key_and_leaves_others_alone() {
        let p = Pacer::new(Duration::from_millis(150));
        let t0 = std::time::Instant::now();
        p.wait("C1").await;
        p.wait("C2").await;
        assert!(t0.elapsed() < Duration::from_millis(100));
        p.wait("C1").await;
        p.wait("C1").await;
        assert!(t0.elapsed() >= Duration::from_millis(300));
    }

    #[test]
    fn tokens_in_urls_never_reach_the_log() {
        assert_eq!(
            redact_url(
                "https://hooks.slack.com/commands/T1ABC/1234567890/9kFz7qR2xY8wV3nB6mC1dE4a"
            ),
            "https://hooks.slack.com/commands/T1ABC/1234567890/[redacted]"
        );
        assert_eq!(
            redact_url(
                "https://discord.com/api/v10/webhooks/1100/aW50ZXJhY3Rpb246MTIzNDU2Nzg5/messages/@original"
            ),
            "https://discord.com/api/v10/webhooks/1100/[redacted]/messages/@original"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:9/webhooks/1100/tok3n"),
            "http://127.0.0.1:9/webhooks/1100/[redacted]"
        );
        assert_eq!(
            redact_url("https://u:pw@open.feishu.cn/open-apis/im/v1/messages/om_1/reply?x=secret"),
            "https://open.feishu.cn/open-apis/im/v1/messages/om_1/reply?[redacted]"
        );
        assert_eq!(
            redact_url("https://slack.com/api/chat.postMessage"),
            "https://slack.com/api/chat.postMessage"
        );
    }

    #[tokio::test]
    async fn a_failed_request_names_its_url_and_cause_but_not_its_token() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // A port nobody listens on.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/webhooks/1100/s3cr3t-t0ken/messages/@original");
        let e = reqwest::Client::new().patch(&url).send().await.unwrap_err();
        let text = transport(e).to_string();
        assert!(
            text.contains(&format!("http://127.0.0.1:{port}/webhooks/1100/[redacted]/messages/@original: error sending request")),
            "{text}"
        );
        assert!(text.to_lowercase().contains("connect"), "{text}");
        assert!(!text.contains("s3cr3t"), "{text}");
    }

    #[test]
    fn clip_marks_the_cut() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
    }
}
