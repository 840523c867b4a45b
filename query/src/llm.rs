//! Chat models: the [`ChatModel`] trait and its OpenAI-compatible implementation
//! (`POST {base_url}/chat/completions`), with a timeout, bounded retries on 429/5xx/transport
//! errors, and errors that say what to do.
//!
//! Blocking (reqwest's blocking client): call it from a plain thread, not from inside an async
//! runtime (use `spawn_blocking` there).

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(c: impl Into<String>) -> Message {
        Message {
            role: "system".into(),
            content: c.into(),
        }
    }
    pub fn user(c: impl Into<String>) -> Message {
        Message {
            role: "user".into(),
            content: c.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("LLM endpoint {url} unreachable: {detail}")]
    Unavailable { url: String, detail: String },
    #[error("LLM endpoint {url} timed out after {secs:.1} s")]
    Timeout { url: String, secs: f64 },
    #[error("LLM endpoint {url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("LLM endpoint {url} sent a response that is not a chat completion: {detail}")]
    BadResponse { url: String, detail: String },
    #[error("the LLM API key variable {0} is not set; export it or remove the key setting")]
    MissingKey(String),
}

/// Where and how to reach an OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    /// Base URL up to and including the version segment, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Model name sent with each request.
    pub model: String,
    /// Name of the environment variable holding the API key (none for local servers).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Per-request timeout in seconds.
    #[serde(default = "default_timeout")]
    pub timeout_secs: f64,
    /// Extra attempts after a transport error, a 429 or a 5xx.
    #[serde(default = "default_retries")]
    pub retries: u32,
    /// Upper bound of the answer's length.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

fn default_timeout() -> f64 {
    60.0
}
fn default_retries() -> u32 {
    2
}
fn default_max_tokens() -> u32 {
    800
}

impl LlmConfig {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> LlmConfig {
        LlmConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            timeout_secs: default_timeout(),
            retries: default_retries(),
            max_tokens: default_max_tokens(),
        }
    }
}

/// A chat model.
pub trait ChatModel {
    /// The assistant's reply to `messages`. Errors are final (retries already spent).
    fn complete(&self, messages: &[Message]) -> Result<String, LlmError>;
    /// Short description for logs and answers (`model @ host`).
    fn describe(&self) -> String;
}

/// An OpenAI-compatible `/chat/completions` endpoint.
pub struct OpenAiChat {
    cfg: LlmConfig,
    key: Option<String>,
    client: reqwest::blocking::Client,
}

impl OpenAiChat {
    /// Reads the key from its environment variable now, so a missing key fails before a question.
    pub fn new(cfg: LlmConfig) -> Result<OpenAiChat, LlmError> {
        let key = match &cfg.api_key_env {
            Some(var) => Some(std::env::var(var).map_err(|_| LlmError::MissingKey(var.clone()))?),
            None => None,
        };
        let client = http_client(cfg.timeout_secs).map_err(|e| LlmError::Unavailable {
            url: cfg.base_url.clone(),
            detail: e.to_string(),
        })?;
        Ok(OpenAiChat { cfg, key, client })
    }

    fn url(&self) -> String {
        format!(
            "{}/chat/completions",
            self.cfg.base_url.trim_end_matches('/')
        )
    }
}

pub(crate) fn http_client(timeout_secs: f64) -> reqwest::Result<reqwest::blocking::Client> {
    let t = Duration::from_secs_f64(timeout_secs.max(0.05));
    reqwest::blocking::Client::builder()
        .timeout(t)
        .connect_timeout(t.min(Duration::from_secs(10)))
        .build()
}

#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
}
#[derive(Deserialize)]
struct Choice {
    message: Message,
}

impl ChatModel for OpenAiChat {
    fn complete(&self, messages: &[Message]) -> Result<String, LlmError> {
        let url = self.url();
        let body = serde_json::json!({
            "model": self.cfg.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self.cfg.max_tokens,
        });
        let text = post_json(
            &self.client,
            &url,
            self.key.as_deref(),
            &body,
            self.cfg.retries,
            self.cfg.timeout_secs,
        )?;
        let parsed: ChatResponse =
            serde_json::from_str(&text).map_err(|e| LlmError::BadResponse {
                url: url.clone(),
                detail: e.to_string(),
            })?;
        parsed
            .choices
            .into_iter()
            .next()
            .map(|c| strip_reasoning(&c.message.content).to_string())
            .ok_or(LlmError::BadResponse {
                url,
                detail: "no choices".into(),
            })
    }

    fn describe(&self) -> String {
        format!("{} @ {}", self.cfg.model, self.cfg.base_url)
    }
}

/// The reply without the reasoning a thinking model writes before it (`<think>…</think>`, as
/// local servers return DeepSeek-R1 or Qwen3): callers read the answer, and the reasoning may
/// quote candidates and paths it then rejects. A reply cut off inside its reasoning is empty.
pub fn strip_reasoning(reply: &str) -> &str {
    let mut rest = reply.trim_start();
    for (open, close) in [("<think>", "</think>"), ("<thinking>", "</thinking>")] {
        if let Some(inner) = rest.strip_prefix(open) {
            rest = match inner.find(close) {
                Some(end) => inner[end + close.len()..].trim_start(),
                None => "",
            };
        }
    }
    rest
}

/// POSTs JSON with retries on transport errors, 429 and 5xx; returns the response body.
pub(crate) fn post_json(
    client: &reqwest::blocking::Client,
    url: &str,
    key: Option<&str>,
    body: &serde_json::Value,
    retries: u32,
    timeout_secs: f64,
) -> Result<String, LlmError> {
    let mut attempt = 0;
    loop {
        let mut req = client.post(url).json(body);
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        let err = match req.send() {
            Ok(resp) => {
                let status = resp.status();
                let text = resp.text().unwrap_or_default();
                if status.is_success() {
                    return Ok(text);
                }
                let e = LlmError::Status {
                    url: url.to_string(),
                    status: status.as_u16(),
                    body: text.chars().take(300).collect(),
                };
                if !(status.as_u16() == 429 || status.is_server_error()) {
                    return Err(e);
                }
                e
            }
            Err(e) if e.is_timeout() => LlmError::Timeout {
                url: url.to_string(),
                secs: timeout_secs,
            },
            Err(e) => LlmError::Unavailable {
                url: url.to_string(),
                detail: error_chain(&e),
            },
        };
        if attempt >= retries {
            return Err(err);
        }
        attempt += 1;
        tracing::warn!(%url, attempt, error = %err, "retrying LLM request");
        std::thread::sleep(Duration::from_millis((200u64 << attempt.min(4)).min(2000)));
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::strip_reasoning;

    #[test]
    fn a_thinking_models_reasoning_is_not_the_reply() {
        assert_eq!(strip_reasoning("<think>\nmaybe 3?\n</think>\n\n2 5"), "2 5");
        assert_eq!(strip_reasoning("  <thinking>a</thinking>Answer"), "Answer");
        // Cut off while thinking: nothing was answered.
        assert_eq!(strip_reasoning("<think>the candidates are"), "");
        // A reply that merely mentions the tag keeps it.
        assert_eq!(
            strip_reasoning("Use <think> tags sparingly."),
            "Use <think> tags sparingly."
        );
        assert_eq!(strip_reasoning("plain"), "plain");
    }
}
