//! Replies through Feishu's open API: a tenant_access_token fetched with the app's id and secret
//! and refreshed before it expires, then `/open-apis/im/v1/messages/{id}/reply`. Rate limits
//! (HTTP 429 or code 99991400) wait out `x-ogw-ratelimit-reset`.

use super::render::{create_body, reply_body};
use crate::model::{Delivery, Platform, Question, Reply};
use crate::platform::{
    Attempt, ChatSender, ConfigError, DeliveryError, at, header_secs, redact_url, transport,
    with_rate_limit,
};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

const RATE_LIMITED: i64 = 99991400;
/// Codes that mean the tenant token is invalid or expired: fetch a new one and try once more.
const TOKEN_INVALID: [i64; 3] = [99991661, 99991663, 99991668];

struct Token {
    value: String,
    refresh_at: Instant,
}

pub struct FeishuSender {
    http: reqwest::Client,
    api_base: String,
    app_id: String,
    app_secret: String,
    token: tokio::sync::Mutex<Option<Token>>,
    pace: crate::platform::Pacer,
}

/// When to fetch a fresh token: Feishu hands out a new one once less than 30 minutes remain,
/// so refresh then (or halfway, for short-lived tokens).
pub fn refresh_after(expire_secs: u64) -> Duration {
    Duration::from_secs(expire_secs.saturating_sub((expire_secs / 2).min(1800)))
}

impl FeishuSender {
    /// `api_base` is `https://open.feishu.cn` (or `https://open.larksuite.com`).
    pub fn new(
        api_base: &str,
        app_id: &str,
        app_secret: &str,
    ) -> Result<FeishuSender, ConfigError> {
        if app_id.trim().is_empty() {
            return Err(ConfigError {
                key: "feishu.app_id",
                problem: "is empty".into(),
            });
        }
        if app_secret.trim().is_empty() {
            return Err(ConfigError {
                key: "feishu.app_secret",
                problem: "is empty".into(),
            });
        }
        Ok(FeishuSender {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(20))
                .build()
                .map_err(|e| ConfigError {
                    key: "feishu",
                    problem: e.to_string(),
                })?,
            api_base: api_base.trim_end_matches('/').to_string(),
            app_id: app_id.to_string(),
            app_secret: app_secret.to_string(),
            token: tokio::sync::Mutex::new(None),
            // Five messages per second per chat, shared by all bots in a group.
            pace: crate::platform::Pacer::new(Duration::from_millis(200)),
        })
    }

    /// The current tenant token, fetched when missing or due.
    async fn tenant_token(&self, force: bool) -> Result<String, DeliveryError> {
        let mut slot = self.token.lock().await;
        if let Some(t) = slot
            .as_ref()
            .filter(|t| !force && Instant::now() < t.refresh_at)
        {
            return Ok(t.value.clone());
        }
        let url = format!(
            "{}/open-apis/auth/v3/tenant_access_token/internal",
            self.api_base
        );
        let body = json!({"app_id": self.app_id, "app_secret": self.app_secret});
        let v: Value = with_rate_limit(|| async {
            let resp = self
                .http
                .post(&url)
                .json(&body)
                .send()
                .await
                .map_err(transport)?;
            classify(resp).await
        })
        .await?;
        let value = v
            .get("tenant_access_token")
            .and_then(Value::as_str)
            .ok_or_else(|| DeliveryError::Refused("no tenant_access_token in the answer".into()))?
            .to_string();
        let expire = v.get("expire").and_then(Value::as_u64).unwrap_or(7200);
        *slot = Some(Token {
            value: value.clone(),
            refresh_at: Instant::now() + refresh_after(expire),
        });
        Ok(value)
    }

    async fn send(&self, url: &str, body: &Value) -> Result<(), DeliveryError> {
        let mut token = self.tenant_token(false).await?;
        for attempt in 0..2 {
            let result = with_rate_limit(|| async {
                let resp = self
                    .http
                    .post(url)
                    .bearer_auth(&token)
                    .json(body)
                    .send()
                    .await
                    .map_err(transport)?;
                classify(resp).await
            })
            .await;
            match result {
                Err(DeliveryError::Refused(msg))
                    if attempt == 0
                        && TOKEN_INVALID
                            .iter()
                            .any(|c| msg.contains(&format!(", code {c}:"))) =>
                {
                    token = self.tenant_token(true).await?;
                }
                other => return other.map(|_| ()),
            }
        }
        unreachable!("the second attempt returns")
    }
}

/// Feishu's answer: 429 / 99991400 → wait; `code != 0` → refused; else the JSON.
async fn classify(resp: reqwest::Response) -> Result<Attempt<Value>, DeliveryError> {
    let status = resp.status();
    let url = redact_url(resp.url().as_str());
    let failed = |what: String| at(Some(&url), &what);
    let wait =
        header_secs(resp.headers(), "x-ogw-ratelimit-reset").unwrap_or(Duration::from_secs(1));
    if status.as_u16() == 429 {
        return Ok(Attempt::Wait(wait));
    }
    if status.is_server_error() {
        return Err(DeliveryError::Transport(failed(format!("HTTP {status}"))));
    }
    let v: Value = resp.json().await.map_err(|e| {
        DeliveryError::Refused(failed(format!("HTTP {status}, body not JSON: {e}")))
    })?;
    match v.get("code").and_then(Value::as_i64) {
        Some(0) => Ok(Attempt::Done(v)),
        Some(RATE_LIMITED) => Ok(Attempt::Wait(wait)),
        Some(code) => Err(DeliveryError::Refused(failed(format!(
            "HTTP {status}, code {code}: {}",
            v.get("msg").and_then(Value::as_str).unwrap_or_default()
        )))),
        None => Err(DeliveryError::Refused(failed(format!(
            "HTTP {status} without a code"
        )))),
    }
}

fn id_ok(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl ChatSender for FeishuSender {
    fn platform(&self) -> Platform {
        Platform::Feishu
    }

    fn deliver<'a>(
        &'a self,
        question: &'a Question,
        reply: &'a Reply,
    ) -> Pin<Box<dyn Future<Output = Result<(), DeliveryError>> + Send + 'a>> {
        Box::pin(async move {
            self.pace.wait(&question.conversation.channel).await;
            match &question.delivery {
                Delivery::FeishuReply(message_id) => {
                    if !id_ok(message_id) {
                        return Err(DeliveryError::Refused(format!(
                            "odd message id {message_id:?}"
                        )));
                    }
                    let url = format!(
                        "{}/open-apis/im/v1/messages/{message_id}/reply",
                        self.api_base
                    );
                    self.send(&url, &reply_body(reply, &question.event_id))
                        .await
                }
                Delivery::Post => {
                    let url = format!(
                        "{}/open-apis/im/v1/messages?receive_id_type=chat_id",
                        self.api_base
                    );
                    let body =
                        create_body(reply, &question.conversation.channel, &question.event_id);
                    self.send(&url, &body).await
                }
                other => Err(DeliveryError::Refused(format!(
                    "not a Feishu delivery: {other:?}"
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_refresh_before_they_expire() {
        assert_eq!(refresh_after(7200), Duration::from_secs(5400));
        assert_eq!(refresh_after(2), Duration::from_secs(1));
        assert_eq!(refresh_after(0), Duration::ZERO);
    }
}
