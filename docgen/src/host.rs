//! The code host's REST API, for the one pull / merge request the docs bot keeps open from its
//! docs branch. One file per host; both answer the same question: "make sure exactly one open
//! request goes from `head` to `base`, with this title and body".

mod github;
mod gitlab;

use serde::Deserialize;

/// Which code host a repository lives on: the webhook format and the API dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostKind {
    Github,
    Gitlab,
}

impl std::fmt::Display for HostKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HostKind::Github => "github",
            HostKind::Gitlab => "gitlab",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("{method} {url}: {source}")]
    Http {
        method: &'static str,
        url: String,
        source: reqwest::Error,
    },
    #[error("{method} {url} answered {status}: {body}")]
    Status {
        method: &'static str,
        url: String,
        status: u16,
        body: String,
    },
    #[error("bad API base URL {0:?}")]
    BadUrl(String),
}

/// What the bot wants open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    /// The docs branch.
    pub head: String,
    /// The tracked branch.
    pub base: String,
    pub title: String,
    pub body: String,
}

/// The open request after the call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PullRef {
    /// GitHub's `number`, GitLab's `iid`.
    pub number: u64,
    pub url: String,
    /// Opened by this call (false: an existing one was updated).
    pub created: bool,
}

/// A client for one project on one host.
#[derive(Debug, Clone)]
pub struct Host {
    kind: HostKind,
    api: String,
    project: String,
    token: String,
    http: reqwest::Client,
}

impl Host {
    pub fn new(kind: HostKind, api: &str, project: &str, token: &str) -> Host {
        Host {
            kind,
            api: api.trim_end_matches('/').to_string(),
            project: project.to_string(),
            token: token.to_string(),
            http: reqwest::Client::builder()
                .user_agent("codemap-docgen")
                .timeout(std::time::Duration::from_secs(30))
                .build()
                .expect("a client with a user agent and a timeout builds"),
        }
    }

    /// Opens the request, or updates the one already open from `head` to `base`. Idempotent:
    /// calling it twice leaves one request.
    pub async fn open_or_update(&self, pr: &PullRequest) -> Result<PullRef, HostError> {
        match self.kind {
            HostKind::Github => github::open_or_update(self, pr).await,
            HostKind::Gitlab => gitlab::open_or_update(self, pr).await,
        }
    }
}

/// Sends a request and reads a JSON answer, turning a non-2xx status into an error with the body.
async fn send<T: serde::de::DeserializeOwned>(
    method: &'static str,
    url: reqwest::Url,
    req: reqwest::RequestBuilder,
) -> Result<T, HostError> {
    let shown = url.to_string();
    let http = |source| HostError::Http {
        method,
        url: shown.clone(),
        source,
    };
    let resp = req.send().await.map_err(http)?;
    let status = resp.status();
    if !status.is_success() {
        let body = resp.text().await.unwrap_or_default();
        return Err(HostError::Status {
            method,
            url: shown,
            status: status.as_u16(),
            body: body.chars().take(500).collect(),
        });
    }
    resp.json().await.map_err(http)
}

fn url(base: &str, path: &str, query: &[(&str, &str)]) -> Result<reqwest::Url, HostError> {
    let full = format!("{base}{path}");
    if query.is_empty() {
        reqwest::Url::parse(&full)
    } else {
        reqwest::Url::parse_with_params(&full, query)
    }
    .map_err(|_| HostError::BadUrl(full))
}
