//! The code host's REST API, for the one pull / merge request the docs bot keeps open from its
//! docs branch and the one impact comment the reviewer keeps on each request. One file per host;
//! both answer the same questions: "make sure exactly one open request goes from `head` to
//! `base`, with this title and body" and "make sure request N carries exactly one comment with
//! this marker, with this body".

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

/// The comment after the call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommentRef {
    pub id: u64,
    /// Posted by this call (false: the marked one was edited).
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

    /// Edits the first comment of request `number` whose body starts with `marker`, or posts
    /// one. Reads every page of comments until it finds it. `body` must start with the marker,
    /// so calling it again edits the same comment (a comment that merely quotes the marker is
    /// someone else's and left alone).
    pub async fn upsert_comment(
        &self,
        number: u64,
        marker: &str,
        body: &str,
    ) -> Result<CommentRef, HostError> {
        debug_assert!(body.starts_with(marker));
        match self.kind {
            HostKind::Github => github::upsert_comment(self, number, marker, body).await,
            HostKind::Gitlab => gitlab::upsert_comment(self, number, marker, body).await,
        }
    }
}

/// Attempts at one call when the host says "too many requests".
const ATTEMPTS: usize = 4;
/// The longest `Retry-After` waited for; a longer one fails the call (the next push retries).
const MAX_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Sends a request built by `make`, waiting out `429` (and GitHub's secondary limit, `403` with
/// `Retry-After`) up to [`ATTEMPTS`] times; reads a JSON answer and the `Link: <…>; rel="next"`
/// page, which is only followed when it stays under the API base (the token goes with it).
async fn send_paged<T: serde::de::DeserializeOwned>(
    host: &Host,
    method: &'static str,
    url: &reqwest::Url,
    make: &(dyn Fn() -> reqwest::RequestBuilder + Sync),
) -> Result<(T, Option<reqwest::Url>), HostError> {
    let shown = url.to_string();
    let http = |source| HostError::Http {
        method,
        url: shown.clone(),
        source,
    };
    let mut attempt = 1;
    loop {
        let resp = make().send().await.map_err(http)?;
        let status = resp.status();
        let wait = retry_after(resp.headers());
        let limited = status == reqwest::StatusCode::TOO_MANY_REQUESTS
            || (status == reqwest::StatusCode::FORBIDDEN && wait.is_some());
        if limited && attempt < ATTEMPTS {
            let wait = wait.unwrap_or(std::time::Duration::from_secs(1));
            if wait <= MAX_RETRY_AFTER {
                tracing::warn!(%method, url = %shown, ?wait, attempt, "rate limited; waiting");
                tokio::time::sleep(wait).await;
                attempt += 1;
                continue;
            }
        }
        if !status.is_success() {
            let body = resp.text().await.unwrap_or_default();
            return Err(HostError::Status {
                method,
                url: shown,
                status: status.as_u16(),
                body: body.chars().take(500).collect(),
            });
        }
        let next = next_page(resp.headers(), &host.api);
        return Ok((resp.json().await.map_err(http)?, next));
    }
}

/// `Retry-After` in seconds (the form both hosts send).
fn retry_after(h: &reqwest::header::HeaderMap) -> Option<std::time::Duration> {
    let v = h.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    v.trim()
        .parse::<u64>()
        .ok()
        .map(std::time::Duration::from_secs)
}

/// The `rel="next"` target of a `Link` header, if it lies under `api`.
fn next_page(h: &reqwest::header::HeaderMap, api: &str) -> Option<reqwest::Url> {
    let link = h.get(reqwest::header::LINK)?.to_str().ok()?;
    let target = link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        params
            .split(';')
            .any(|p| p.trim().replace(' ', "") == "rel=\"next\"")
            .then(|| url.trim().trim_start_matches('<').trim_end_matches('>'))
    })?;
    let prefix = format!("{api}/");
    if !target.starts_with(&prefix) {
        tracing::warn!(next = %target, "not following a next page outside the API base");
        return None;
    }
    reqwest::Url::parse(target).ok()
}

/// Pages of a comment list read at most (100 comments each).
const MAX_PAGES: usize = 50;

/// Walks the pages of `first` until `found` picks a comment id.
async fn find_marked<C: serde::de::DeserializeOwned>(
    host: &Host,
    first: reqwest::Url,
    auth: &(dyn Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder + Sync),
    found: &(dyn Fn(&C) -> Option<u64> + Sync),
) -> Result<Option<u64>, HostError> {
    let mut page = Some(first);
    let mut read = 0;
    while let Some(u) = page.take() {
        let (items, next): (Vec<C>, _) =
            send_paged(host, "GET", &u, &|| auth(host.http.get(u.clone()))).await?;
        if let Some(id) = items.iter().find_map(found) {
            return Ok(Some(id));
        }
        read += 1;
        if read >= MAX_PAGES {
            tracing::warn!(
                pages = read,
                "no marked comment in the first pages; posting a new one"
            );
            break;
        }
        page = next;
    }
    Ok(None)
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

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};

    fn headers(name: &'static str, v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn the_next_page_is_followed_only_under_the_api_base() {
        let api = "https://api.github.com";
        let link = r#"<https://api.github.com/repositories/1/issues/3/comments?page=2>; rel="next", <https://api.github.com/repositories/1/issues/3/comments?page=5>; rel="last""#;
        assert_eq!(
            next_page(&headers("link", link), api).unwrap().as_str(),
            "https://api.github.com/repositories/1/issues/3/comments?page=2"
        );
        // The last page has no next; a next page elsewhere would take the token with it.
        let last = r#"<https://api.github.com/x?page=1>; rel="first", <https://api.github.com/x?page=4>; rel="prev""#;
        assert_eq!(next_page(&headers("link", last), api), None);
        let away = r#"<https://api.github.com.evil.example/x?page=2>; rel="next""#;
        assert_eq!(next_page(&headers("link", away), api), None);
        assert_eq!(next_page(&HeaderMap::new(), api), None);
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        assert_eq!(
            retry_after(&headers("retry-after", "7")),
            Some(std::time::Duration::from_secs(7))
        );
        assert_eq!(
            retry_after(&headers("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")),
            None
        );
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }
}
