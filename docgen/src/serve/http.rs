//! The HTTP face: `POST /hooks/<repo>` (push and request webhooks), `GET /healthz`,
//! `GET /status`. A delivery is verified before anything else is read; an accepted push or
//! request is only queued, so the answer goes back at once and the job runs in the background.

use super::config::Repo;
use super::job::Trigger;
use super::policy::{self, PushDecision, RequestDecision};
use super::queue::{Offer, Queue, Task};
use super::webhook::{self, Event};
use crate::host::HostKind;
use crate::review::ReviewTrigger;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One repository as the webhook sees it.
pub struct Hook {
    pub repo: Repo,
    pub kind: HostKind,
    pub secret: Option<String>,
    /// The project review comments go to (what a request hook's base repository must be),
    /// when `[repo.review]` is set.
    pub review_project: Option<String>,
}

pub struct AppState {
    pub hooks: BTreeMap<String, Hook>,
    pub bot: super::config::Bot,
    pub queue: Queue,
}

pub fn router(state: Arc<AppState>, max_body: usize) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route("/status", get(status))
        .route("/hooks/{name}", post(hook))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

async fn status(State(app): State<Arc<AppState>>) -> Json<serde_json::Value> {
    let repos: Vec<_> = app.hooks.keys().map(|n| app.queue.docs_status(n)).collect();
    let reviews: Vec<_> = app
        .hooks
        .iter()
        .filter(|(_, h)| h.review_project.is_some())
        .map(|(n, _)| app.queue.review_status(n))
        .collect();
    Json(serde_json::json!({ "repos": repos, "reviews": reviews }))
}

fn text(code: StatusCode, msg: impl Into<String>) -> Response {
    (code, msg.into()).into_response()
}

async fn hook(
    State(app): State<Arc<AppState>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(h) = app.hooks.get(&name) else {
        return text(StatusCode::NOT_FOUND, "no such repository");
    };
    let Some(secret) = &h.secret else {
        return text(
            StatusCode::NOT_FOUND,
            "no webhook configured for this repository",
        );
    };
    let header = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    if let Err(why) = webhook::verify(h.kind, secret, &header, &body) {
        tracing::warn!(repo = %name, reason = %why, "webhook refused");
        return text(StatusCode::UNAUTHORIZED, "bad signature");
    }
    let event = match webhook::parse(h.kind, &header, &body) {
        Ok(e) => e,
        Err(why) => {
            tracing::warn!(repo = %name, reason = %why, "webhook payload unreadable");
            return text(StatusCode::BAD_REQUEST, why.to_string());
        }
    };
    let push = match event {
        Event::Ping => return text(StatusCode::OK, "pong"),
        Event::Other(kind) => {
            tracing::debug!(repo = %name, event = %kind, "event ignored");
            return text(StatusCode::OK, format!("ignored: {kind} event"));
        }
        Event::Push(p) => p,
        Event::Request(r) => return request(&app.queue, &name, h, &r),
    };
    match policy::on_push(&push, &h.repo.branch, &h.repo.docs_branch, &app.bot) {
        PushDecision::Ignore(why) => {
            tracing::info!(repo = %name, git_ref = %push.git_ref, after = %push.after, "push ignored: {why}");
            text(StatusCode::OK, format!("ignored: {why}"))
        }
        PushDecision::Run { after } => {
            let offer = app.queue.request(
                &name,
                Task::Docs(Trigger::Push {
                    after: after.clone(),
                }),
            );
            tracing::info!(repo = %name, %after, offer = ?offer, "push accepted");
            match offer {
                Offer::Start => text(StatusCode::ACCEPTED, "job started"),
                Offer::Queued { .. } => text(StatusCode::ACCEPTED, "queued behind the running job"),
                Offer::Closed => text(StatusCode::SERVICE_UNAVAILABLE, "shutting down"),
            }
        }
    }
}

/// A verified pull / merge request webhook: queue a review, or say why not.
fn request(queue: &Queue, name: &str, h: &Hook, r: &webhook::RequestHook) -> Response {
    let Some(project) = &h.review_project else {
        tracing::info!(repo = %name, request = r.number, "request event ignored: reviews are off");
        return text(
            StatusCode::OK,
            "ignored: reviews are off for this repository",
        );
    };
    match policy::on_request(r, h.kind, project) {
        RequestDecision::Ignore(why) => {
            tracing::info!(repo = %name, request = r.number, action = %r.action, "request ignored: {why}");
            text(StatusCode::OK, format!("ignored: {why}"))
        }
        RequestDecision::Close { number } => {
            let offer = queue.request(name, Task::Review(ReviewTrigger::close(number)));
            tracing::info!(repo = %name, request = number, offer = ?offer, "request closed");
            match offer {
                Offer::Closed => text(StatusCode::SERVICE_UNAVAILABLE, "shutting down"),
                _ => text(
                    StatusCode::ACCEPTED,
                    "clean-up of the request's review queued",
                ),
            }
        }
        RequestDecision::Run {
            number,
            head_sha,
            base_branch,
            fork,
        } => {
            let trigger = ReviewTrigger {
                number,
                head_sha: head_sha.clone(),
                base_branch,
                fork,
                closed: false,
            };
            let offer = queue.request(name, Task::Review(trigger));
            tracing::info!(repo = %name, request = number, head = %head_sha, fork, offer = ?offer, "request accepted");
            match offer {
                Offer::Start => text(StatusCode::ACCEPTED, "review started"),
                Offer::Queued { .. } => text(
                    StatusCode::ACCEPTED,
                    "queued behind the request's running review",
                ),
                Offer::Closed => text(StatusCode::SERVICE_UNAVAILABLE, "shutting down"),
            }
        }
    }
}
