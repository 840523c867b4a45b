//! Push and request webhooks, as pure functions over headers and the raw body: is it authentic,
//! and what does it ask for. GitHub signs the raw body (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`); GitLab
//! sends the shared token back (`X-Gitlab-Token`). Both comparisons are constant-time.

use crate::host::HostKind;
use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// What a verified delivery asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// GitHub's `ping` (sent when a hook is created) and GitLab test hooks that are not pushes.
    Ping,
    Push(Push),
    /// A pull request (GitHub) or merge request (GitLab) was opened, pushed to, reopened, …
    Request(RequestHook),
    /// Any other event type, answered 200 and ignored.
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Push {
    /// Full ref, `refs/heads/main`.
    pub git_ref: String,
    /// The commit the branch points to after the push.
    pub after: String,
    /// The branch was deleted (after = zeros).
    pub deleted: bool,
    /// The message of the head commit, when the payload carries it.
    pub head_message: Option<String>,
}

/// What a request webhook says, as far as the review needs it. Everything here is the sender's
/// claim about the request; the job fetches the head by the request's number from the
/// configured remote, never from a URL in the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHook {
    /// GitHub's `number`, GitLab's `iid`.
    pub number: u64,
    /// `opened`, `synchronize`, … (GitHub); `open`, `update`, … (GitLab); empty when absent.
    pub action: String,
    /// The head commit when the hook was sent.
    pub head_sha: String,
    /// The branch the request goes into.
    pub base_branch: String,
    /// The repository the request is filed against: `full_name` (GitHub); the project's
    /// `path_with_namespace` and numeric id (GitLab).
    pub base_project: String,
    pub base_project_id: Option<u64>,
    /// The head lives in another repository (a fork).
    pub fork: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("missing signature header {0}")]
    Missing(&'static str),
    #[error("signature does not match")]
    Mismatch,
    #[error("malformed payload: {0}")]
    Malformed(String),
}

/// `sha256=<hex>` of the raw body, as GitHub computes it.
pub fn github_signature(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Checks a delivery's authenticity. `header` reads a request header by (lowercase) name.
pub fn verify(
    kind: HostKind,
    secret: &str,
    header: &dyn Fn(&str) -> Option<String>,
    body: &[u8],
) -> Result<(), Rejection> {
    match kind {
        HostKind::Github => {
            let got =
                header("x-hub-signature-256").ok_or(Rejection::Missing("X-Hub-Signature-256"))?;
            let hex_sig = got.strip_prefix("sha256=").ok_or(Rejection::Mismatch)?;
            let sig = hex::decode(hex_sig.trim()).map_err(|_| Rejection::Mismatch)?;
            let mut mac =
                Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
            mac.update(body);
            // `verify_slice` compares in constant time.
            mac.verify_slice(&sig).map_err(|_| Rejection::Mismatch)
        }
        HostKind::Gitlab => {
            let got = header("x-gitlab-token").ok_or(Rejection::Missing("X-Gitlab-Token"))?;
            // Lengths leak through ct_eq on slices of different lengths; hash both first so the
            // comparison is always over 32 bytes.
            use sha2::Digest;
            let a: [u8; 32] = Sha256::digest(got.as_bytes()).into();
            let b: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
            if bool::from(a.ct_eq(&b)) {
                Ok(())
            } else {
                Err(Rejection::Mismatch)
            }
        }
    }
}

#[derive(Deserialize)]
struct GithubPush {
    #[serde(rename = "ref")]
    git_ref: String,
    after: String,
    #[serde(default)]
    deleted: bool,
    #[serde(default)]
    head_commit: Option<GithubCommit>,
}

#[derive(Deserialize)]
struct GithubCommit {
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct GitlabPush {
    #[serde(rename = "ref")]
    git_ref: String,
    after: String,
    #[serde(default)]
    checkout_sha: Option<String>,
    #[serde(default)]
    commits: Vec<GitlabCommit>,
}

#[derive(Deserialize)]
struct GitlabCommit {
    id: String,
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct GithubPullEvent {
    #[serde(default)]
    action: String,
    number: u64,
    pull_request: GithubPull,
}

#[derive(Deserialize)]
struct GithubPull {
    head: GithubPullEnd,
    base: GithubPullEnd,
}

#[derive(Deserialize)]
struct GithubPullEnd {
    #[serde(rename = "ref", default)]
    git_ref: String,
    sha: String,
    /// Null when the fork was deleted.
    #[serde(default)]
    repo: Option<GithubRepo>,
}

#[derive(Deserialize)]
struct GithubRepo {
    full_name: String,
}

#[derive(Deserialize)]
struct GitlabMergeEvent {
    object_attributes: GitlabMergeAttrs,
    project: GitlabProject,
}

#[derive(Deserialize)]
struct GitlabMergeAttrs {
    iid: u64,
    #[serde(default)]
    action: Option<String>,
    target_branch: String,
    source_project_id: u64,
    target_project_id: u64,
    last_commit: GitlabLastCommit,
}

#[derive(Deserialize)]
struct GitlabLastCommit {
    id: String,
}

#[derive(Deserialize)]
struct GitlabProject {
    id: u64,
    path_with_namespace: String,
}

/// Reads a verified delivery. Call only after [`verify`].
pub fn parse(
    kind: HostKind,
    header: &dyn Fn(&str) -> Option<String>,
    body: &[u8],
) -> Result<Event, Rejection> {
    let malformed = |e: serde_json::Error| Rejection::Malformed(e.to_string());
    match kind {
        HostKind::Github => {
            let event = header("x-github-event").unwrap_or_default();
            match event.as_str() {
                "ping" => Ok(Event::Ping),
                "push" => {
                    let p: GithubPush = serde_json::from_slice(body).map_err(malformed)?;
                    let deleted = p.deleted || is_zero(&p.after);
                    Ok(Event::Push(Push {
                        git_ref: p.git_ref,
                        after: p.after,
                        deleted,
                        head_message: p.head_commit.map(|c| c.message),
                    }))
                }
                "pull_request" => {
                    let e: GithubPullEvent = serde_json::from_slice(body).map_err(malformed)?;
                    let base = e.pull_request.base;
                    let head = e.pull_request.head;
                    let base_project = base.repo.map(|r| r.full_name).unwrap_or_default();
                    let fork = head
                        .repo
                        .as_ref()
                        .is_none_or(|r| !r.full_name.eq_ignore_ascii_case(&base_project));
                    Ok(Event::Request(RequestHook {
                        number: e.number,
                        action: e.action,
                        head_sha: head.sha,
                        base_branch: base.git_ref,
                        base_project,
                        base_project_id: None,
                        fork,
                    }))
                }
                other => Ok(Event::Other(other.to_string())),
            }
        }
        HostKind::Gitlab => {
            let event = header("x-gitlab-event").unwrap_or_default();
            if event == "Merge Request Hook" {
                let e: GitlabMergeEvent = serde_json::from_slice(body).map_err(malformed)?;
                let a = e.object_attributes;
                return Ok(Event::Request(RequestHook {
                    number: a.iid,
                    action: a.action.unwrap_or_default(),
                    head_sha: a.last_commit.id,
                    base_branch: a.target_branch,
                    base_project: e.project.path_with_namespace,
                    base_project_id: Some(e.project.id),
                    fork: a.source_project_id != a.target_project_id,
                }));
            }
            if event != "Push Hook" {
                return Ok(if event.is_empty() {
                    Event::Ping
                } else {
                    Event::Other(event)
                });
            }
            let p: GitlabPush = serde_json::from_slice(body).map_err(malformed)?;
            let head = p.checkout_sha.clone().unwrap_or_else(|| p.after.clone());
            let head_message = p
                .commits
                .iter()
                .find(|c| c.id == head)
                .map(|c| c.message.clone());
            Ok(Event::Push(Push {
                git_ref: p.git_ref,
                deleted: is_zero(&p.after),
                after: p.after,
                head_message,
            }))
        }
    }
}

fn is_zero(sha: &str) -> bool {
    !sha.is_empty() && sha.bytes().all(|b| b == b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn github_documented_example_signature() {
        // The worked example in GitHub's "Validating webhook deliveries".
        assert_eq!(
            github_signature("It's a Secret to Everybody", b"Hello, World!"),
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
        );
    }

    #[test]
    fn github_signature_checks() {
        let body = br#"{"ref":"refs/heads/main"}"#;
        let good = github_signature("k", body);
        let ok = headers(&[("x-hub-signature-256", &good)]);
        assert_eq!(verify(HostKind::Github, "k", &ok, body), Ok(()));
        // Another secret, a tampered body, a bad prefix, no header: all refused.
        assert_eq!(
            verify(HostKind::Github, "other", &ok, body),
            Err(Rejection::Mismatch)
        );
        assert_eq!(
            verify(HostKind::Github, "k", &ok, br#"{"ref":"refs/heads/evil"}"#),
            Err(Rejection::Mismatch)
        );
        let sha1 = headers(&[("x-hub-signature-256", &good.replace("sha256=", "sha1="))]);
        assert_eq!(
            verify(HostKind::Github, "k", &sha1, body),
            Err(Rejection::Mismatch)
        );
        let junk = headers(&[("x-hub-signature-256", "sha256=zz")]);
        assert_eq!(
            verify(HostKind::Github, "k", &junk, body),
            Err(Rejection::Mismatch)
        );
        assert_eq!(
            verify(HostKind::Github, "k", &headers(&[]), body),
            Err(Rejection::Missing("X-Hub-Signature-256"))
        );
    }

    #[test]
    fn gitlab_token_checks() {
        let ok = headers(&[("x-gitlab-token", "tok")]);
        assert_eq!(verify(HostKind::Gitlab, "tok", &ok, b"{}"), Ok(()));
        assert_eq!(
            verify(HostKind::Gitlab, "tok2", &ok, b"{}"),
            Err(Rejection::Mismatch)
        );
        assert_eq!(
            verify(HostKind::Gitlab, "to", &ok, b"{}"),
            Err(Rejection::Mismatch)
        );
        assert_eq!(
            verify(HostKind::Gitlab, "tok", &headers(&[]), b"{}"),
            Err(Rejection::Missing("X-Gitlab-Token"))
        );
    }

    #[test]
    fn github_events() {
        let ping = headers(&[("x-github-event", "ping")]);
        assert_eq!(parse(HostKind::Github, &ping, b"{}"), Ok(Event::Ping));
        let push = headers(&[("x-github-event", "push")]);
        let body = br#"{"ref":"refs/heads/main","before":"a","after":"b1","deleted":false,
            "head_commit":{"id":"b1","message":"fix\n\nCodemap-Bot: docgen"}}"#;
        assert_eq!(
            parse(HostKind::Github, &push, body),
            Ok(Event::Push(Push {
                git_ref: "refs/heads/main".into(),
                after: "b1".into(),
                deleted: false,
                head_message: Some("fix\n\nCodemap-Bot: docgen".into()),
            }))
        );
        let gone = br#"{"ref":"refs/heads/main","after":"0000000000000000000000000000000000000000","head_commit":null}"#;
        let Ok(Event::Push(p)) = parse(HostKind::Github, &push, gone) else {
            panic!()
        };
        assert!(p.deleted);
        assert!(matches!(
            parse(HostKind::Github, &push, b"not json"),
            Err(Rejection::Malformed(_))
        ));
        let issues = headers(&[("x-github-event", "issues")]);
        assert_eq!(
            parse(HostKind::Github, &issues, b"{}"),
            Ok(Event::Other("issues".into()))
        );
    }

    #[test]
    fn request_hooks_say_which_request_and_whether_it_is_a_fork() {
        let gh = headers(&[("x-github-event", "pull_request")]);
        let body = br#"{"action":"synchronize","number":12,"pull_request":{
            "head":{"ref":"f","sha":"abc","repo":{"full_name":"mallory/shop"}},
            "base":{"ref":"main","sha":"def","repo":{"full_name":"acme/shop"}}}}"#;
        assert_eq!(
            parse(HostKind::Github, &gh, body),
            Ok(Event::Request(RequestHook {
                number: 12,
                action: "synchronize".into(),
                head_sha: "abc".into(),
                base_branch: "main".into(),
                base_project: "acme/shop".into(),
                base_project_id: None,
                fork: true,
            }))
        );
        // Same repository: not a fork; a deleted fork (null repo): a fork.
        let same = String::from_utf8_lossy(body).replace("mallory/shop", "acme/shop");
        let Ok(Event::Request(r)) = parse(HostKind::Github, &gh, same.as_bytes()) else {
            panic!()
        };
        assert!(!r.fork);
        let gone = String::from_utf8_lossy(body).replace(r#"{"full_name":"mallory/shop"}"#, "null");
        let Ok(Event::Request(r)) = parse(HostKind::Github, &gh, gone.as_bytes()) else {
            panic!()
        };
        assert!(r.fork);
        assert!(matches!(
            parse(HostKind::Github, &gh, br#"{"action":"opened"}"#),
            Err(Rejection::Malformed(_))
        ));

        let gl = headers(&[("x-gitlab-event", "Merge Request Hook")]);
        let body = br#"{"object_kind":"merge_request","project":{"id":42,"path_with_namespace":"acme/shop"},
            "object_attributes":{"iid":3,"action":"update","target_branch":"main","source_branch":"f",
            "source_project_id":77,"target_project_id":42,"last_commit":{"id":"c0ffee"}}}"#;
        assert_eq!(
            parse(HostKind::Gitlab, &gl, body),
            Ok(Event::Request(RequestHook {
                number: 3,
                action: "update".into(),
                head_sha: "c0ffee".into(),
                base_branch: "main".into(),
                base_project: "acme/shop".into(),
                base_project_id: Some(42),
                fork: true,
            }))
        );
    }

    #[test]
    fn gitlab_push_reads_the_head_commit_message() {
        let push = headers(&[("x-gitlab-event", "Push Hook")]);
        let body = br#"{"object_kind":"push","ref":"refs/heads/main","before":"a","after":"c2",
            "checkout_sha":"c2","commits":[{"id":"c1","message":"one"},{"id":"c2","message":"two"}]}"#;
        let Ok(Event::Push(p)) = parse(HostKind::Gitlab, &push, body) else {
            panic!()
        };
        assert_eq!(p.after, "c2");
        assert_eq!(p.head_message.as_deref(), Some("two"));
        assert!(!p.deleted);
    }
}
