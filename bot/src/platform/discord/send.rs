//! Delivers replies: an interaction's deferred response is edited
//! (`PATCH /webhooks/{app}/{token}/messages/@original`) and overflow goes out as follow-ups
//! (`POST /webhooks/{app}/{token}`); a gateway mention is answered with a reply message
//! (`POST /channels/{id}/messages`, bot token). Requests wait for their rate-limit bucket to
//! refill when the last response said it was empty ([`super::buckets`]); 429s wait out
//! `retry_after`, a global one for every route.

use super::buckets::{Buckets, Limits, Route};
use super::render::render;
use crate::model::{Delivery, Platform, Question, Reply};
use crate::platform::{
    Attempt, ChatSender, ConfigError, DeliveryError, MAX_RATE_LIMIT_WAIT, at, header_secs,
    redact_url, transport, with_rate_limit,
};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

pub struct DiscordSender {
    http: reqwest::Client,
    api_base: String,
    bot_token: Option<String>,
    buckets: std::sync::Mutex<Buckets>,
}

impl DiscordSender {
    /// `api_base` is `https://discord.com/api/v10` in production. The bot token is needed only
    /// for gateway mentions; interactions answer with their own token.
    pub fn new(api_base: &str, bot_token: Option<String>) -> Result<DiscordSender, ConfigError> {
        Ok(DiscordSender {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .map_err(|e| ConfigError {
                    key: "discord",
                    problem: e.to_string(),
                })?,
            api_base: api_base.trim_end_matches('/').to_string(),
            bot_token: bot_token.filter(|t| !t.trim().is_empty()),
            buckets: Default::default(),
        })
    }

    /// Registers `/ask` for `application_id` (`PUT /applications/{id}/commands`, bot token);
    /// a bulk overwrite, so calling it at every start is harmless.
    pub async fn register_commands(&self, application_id: &str) -> Result<(), DeliveryError> {
        if application_id.is_empty() || !application_id.chars().all(|c| c.is_ascii_digit()) {
            return Err(DeliveryError::Refused(format!(
                "odd application id {application_id:?}"
            )));
        }
        let url = format!("{}/applications/{application_id}/commands", self.api_base);
        self.send(
            reqwest::Method::PUT,
            &url,
            &super::interaction::command_definitions(),
        )
        .await
    }

    /// The bot's application id (`GET /oauth2/applications/@me`, bot token), for registering
    /// `/ask` when the configuration names none.
    pub async fn application_id(&self) -> Result<String, DeliveryError> {
        let url = format!("{}/oauth2/applications/@me", self.api_base);
        let token = self
            .bot_token
            .as_deref()
            .ok_or_else(|| DeliveryError::Refused("discord.bot_token is not set".into()))?;
        let resp = self
            .http
            .get(&url)
            .header("authorization", format!("Bot {token}"))
            .send()
            .await
            .map_err(transport)?;
        let status = resp.status();
        if !status.is_success() {
            return Err(DeliveryError::Refused(format!(
                "HTTP {status} from GET {url}"
            )));
        }
        let app: Value = resp.json().await.map_err(transport)?;
        app.get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| DeliveryError::Refused(format!("no application id from GET {url}")))
    }

    async fn send(
        &self,
        method: reqwest::Method,
        url: &str,
        body: &Value,
    ) -> Result<(), DeliveryError> {
        let path = reqwest::Url::parse(url)
            .map(|u| u.path().to_string())
            .unwrap_or_default();
        let route = Route::of(method.as_str(), &path);
        with_rate_limit(|| async {
            // Wait while the route's bucket is empty (or a global limit holds).
            loop {
                let wait = self.buckets().acquire(&route, Instant::now());
                match wait {
                    None => break,
                    Some(after) if after > MAX_RATE_LIMIT_WAIT => {
                        return Err(DeliveryError::RateLimited { after });
                    }
                    Some(after) => tokio::time::sleep(after).await,
                }
            }
            let mut req = self.http.request(method.clone(), url).json(body);
            // The bot token goes to bot routes only; interaction webhooks carry their own token.
            if !url.contains("/webhooks/") {
                let token = self
                    .bot_token
                    .as_deref()
                    .ok_or_else(|| DeliveryError::Refused("discord.bot_token is not set".into()))?;
                req = req.header("authorization", format!("Bot {token}"));
            }
            let resp = req.send().await.map_err(transport)?;
            let status = resp.status();
            let failed = |what: String| at(Some(&format!("{method} {}", redact_url(url))), &what);
            let mut limits = Limits::from_headers(resp.headers());
            if status.as_u16() == 429 {
                let header = header_secs(resp.headers(), "retry-after");
                let body: Value = resp.json().await.unwrap_or(Value::Null);
                let after = body
                    .get("retry_after")
                    .and_then(Value::as_f64)
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
                    .or(header)
                    .unwrap_or(Duration::from_secs(1));
                limits.global |= body.get("global").and_then(Value::as_bool) == Some(true);
                // Other replies on this bucket (or, for a global limit, on any) wait too.
                self.buckets()
                    .limited(&route, &limits, after, Instant::now());
                return Ok(Attempt::Wait(after));
            }
            self.buckets().observe(&route, &limits, Instant::now());
            if status.is_server_error() {
                return Err(DeliveryError::Transport(failed(format!("HTTP {status}"))));
            }
            if !status.is_success() {
                let text = resp.text().await.unwrap_or_default();
                return Err(DeliveryError::Refused(failed(format!(
                    "HTTP {status}: {}",
                    crate::platform::clip(&text, 300)
                ))));
            }
            Ok(Attempt::Done(()))
        })
        .await
    }
}

impl DiscordSender {
    fn buckets(&self) -> std::sync::MutexGuard<'_, Buckets> {
        // A panic while holding the lock left a table that is still valid.
        self.buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ChatSender for DiscordSender {
    fn platform(&self) -> Platform {
        Platform::Discord
    }

    fn deliver<'a>(
        &'a self,
        question: &'a Question,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<(), DeliveryError>> + Send + 'a>> {
        Box::pin(async move {
            let messages = render(reply);
            match &question.delivery {
                Delivery::DiscordInteraction {
                    application_id,
                    token,
                } => {
                    let hook = format!("{}/webhooks/{application_id}/{token}", self.api_base);
                    for (i, m) in messages.iter().enumerate() {
                        if i == 0 {
                            self.send(
                                reqwest::Method::PATCH,
                                &format!("{hook}/messages/@original"),
                                m,
                            )
                            .await?;
                        } else {
                            self.send(reqwest::Method::POST, &hook, m).await?;
                        }
                    }
                    Ok(())
                }
                Delivery::Post => {
                    let c = &question.conversation;
                    let url = format!("{}/channels/{}/messages", self.api_base, c.channel);
                    for (i, m) in messages.iter().enumerate() {
                        let mut m = m.clone();
                        if let (0, Some(id)) = (i, &c.thread) {
                            m["message_reference"] =
                                json!({"message_id": id, "fail_if_not_exists": false});
                        }
                        self.send(reqwest::Method::POST, &url, &m).await?;
                    }
                    Ok(())
                }
                other => Err(DeliveryError::Refused(format!(
                    "not a Discord delivery: {other:?}"
                ))),
            }
        })
    }
}
