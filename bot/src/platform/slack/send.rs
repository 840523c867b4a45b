//! Posts replies with `chat.postMessage` (bot token, in the thread) or to a slash command's
//! `response_url`, at most one message per second per channel, waiting out 429s as
//! `Retry-After` says.

use super::render::{post_message, render, response_url_message};
use crate::model::{Delivery, Platform, Question, Reply};
use crate::platform::{
    Attempt, ChatSender, DeliveryError, at, header_secs, redact_url, transport, with_rate_limit,
};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// Slack's Web API sender.
pub struct SlackSender {
    http: reqwest::Client,
    token: String,
    api_base: String,
    hooks_origin: url::Origin,
    pace: crate::platform::Pacer,
}

impl SlackSender {
    /// `api_base` is `https://slack.com/api` in production; `hooks_base` (`https://hooks.slack.com`)
    /// is the only origin a `response_url` may point at, so a forged payload cannot make the bot
    /// post elsewhere.
    pub fn new(
        bot_token: impl Into<String>,
        api_base: &str,
        hooks_base: &str,
    ) -> Result<SlackSender, crate::platform::ConfigError> {
        let hooks = url::Url::parse(hooks_base).map_err(|e| crate::platform::ConfigError {
            key: "slack.hooks_base",
            problem: e.to_string(),
        })?;
        let token = bot_token.into();
        if token.trim().is_empty() {
            return Err(crate::platform::ConfigError {
                key: "slack.bot_token",
                problem: "is empty".into(),
            });
        }
        Ok(SlackSender {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .map_err(|e| crate::platform::ConfigError {
                    key: "slack",
                    problem: e.to_string(),
                })?,
            token,
            api_base: api_base.trim_end_matches('/').to_string(),
            hooks_origin: hooks.origin(),
            pace: crate::platform::Pacer::new(Duration::from_secs(1)),
        })
    }

    async fn post(&self, url: &str, body: &Value, bearer: bool) -> Result<(), DeliveryError> {
        with_rate_limit(|| async {
            let mut req = self.http.post(url).json(body);
            if bearer {
                req = req.bearer_auth(&self.token);
            }
            let resp = req.send().await.map_err(transport)?;
            let status = resp.status();
            let failed = |what: String| at(Some(&redact_url(url)), &what);
            if status.as_u16() == 429 {
                let after =
                    header_secs(resp.headers(), "retry-after").unwrap_or(Duration::from_secs(1));
                return Ok(Attempt::Wait(after));
            }
            if status.is_server_error() {
                return Err(DeliveryError::Transport(failed(format!("HTTP {status}"))));
            }
            if !status.is_success() {
                let body = resp.text().await.unwrap_or_default();
                return Err(DeliveryError::Refused(failed(format!(
                    "HTTP {status}: {}",
                    crate::platform::clip(&body, 300)
                ))));
            }
            if bearer {
                // Web API methods answer 200 with `ok: false` on failure.
                let v: Value = resp.json().await.map_err(transport)?;
                if v.get("ok").and_then(Value::as_bool) != Some(true) {
                    let err = v
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown error");
                    if err == "ratelimited" {
                        return Ok(Attempt::Wait(Duration::from_secs(1)));
                    }
                    return Err(DeliveryError::Refused(failed(format!(
                        "HTTP {status}, ok: false, error: {err}"
                    ))));
                }
            }
            Ok(Attempt::Done(()))
        })
        .await
    }
}

impl ChatSender for SlackSender {
    fn platform(&self) -> Platform {
        Platform::Slack
    }

    fn deliver<'a>(
        &'a self,
        question: &'a Question,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<(), DeliveryError>> + Send + 'a>> {
        Box::pin(async move {
            let message = render(reply);
            match &question.delivery {
                Delivery::Post => {
                    let c = &question.conversation;
                    let body = post_message(&c.channel, c.thread.as_deref(), &message);
                    self.pace.wait(&c.channel).await;
                    self.post(&format!("{}/chat.postMessage", self.api_base), &body, true)
                        .await
                }
                Delivery::SlackResponseUrl(url) => {
                    let parsed = url::Url::parse(url)
                        .map_err(|e| DeliveryError::Refused(format!("response_url: {e}")))?;
                    if parsed.origin() != self.hooks_origin {
                        return Err(DeliveryError::Refused(
                            "response_url is not on Slack's hooks host".into(),
                        ));
                    }
                    self.pace.wait(&question.conversation.channel).await;
                    self.post(url, &response_url_message(&message), false).await
                }
                other => Err(DeliveryError::Refused(format!(
                    "not a Slack delivery: {other:?}"
                ))),
            }
        })
    }
}
