//! GitHub: list open pulls from the docs branch, then `PATCH` the first or `POST` a new one
//! (<https://docs.github.com/en/rest/pulls/pulls>); the review comment lives in the request's
//! issue comments (<https://docs.github.com/en/rest/issues/comments>).

use super::{
    CommentRef, Host, HostError, PullRef, PullRequest, find_marked, send, send_paged, url,
};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct Pull {
    number: u64,
    html_url: String,
}

fn auth(host: &Host, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    req.bearer_auth(&host.token)
        .header("Accept", "application/vnd.github+json")
        .header("X-GitHub-Api-Version", "2022-11-28")
}

pub(super) async fn open_or_update(host: &Host, pr: &PullRequest) -> Result<PullRef, HostError> {
    let owner = host.project.split('/').next().unwrap_or_default();
    let pulls = format!("/repos/{}/pulls", host.project);
    // `head` must be "owner:branch" for GitHub to filter by it.
    let head = format!("{owner}:{}", pr.head);
    let list = url(
        &host.api,
        &pulls,
        &[("head", &head), ("base", &pr.base), ("state", "open")],
    )?;
    let open: Vec<Pull> = send("GET", list.clone(), auth(host, host.http.get(list))).await?;
    if let Some(p) = open.first() {
        let u = url(&host.api, &format!("{pulls}/{}", p.number), &[])?;
        let body = json!({ "title": pr.title, "body": pr.body });
        let p: Pull = send(
            "PATCH",
            u.clone(),
            auth(host, host.http.patch(u)).json(&body),
        )
        .await?;
        return Ok(PullRef {
            number: p.number,
            url: p.html_url,
            created: false,
        });
    }
    let u = url(&host.api, &pulls, &[])?;
    let body = json!({
        "title": pr.title,
        "head": pr.head,
        "base": pr.base,
        "body": pr.body,
        "maintainer_can_modify": false,
    });
    let p: Pull = send("POST", u.clone(), auth(host, host.http.post(u)).json(&body)).await?;
    Ok(PullRef {
        number: p.number,
        url: p.html_url,
        created: true,
    })
}

#[derive(Deserialize)]
struct Comment {
    id: u64,
    #[serde(default)]
    body: Option<String>,
}

/// `GET /repos/{o}/{r}/issues/{n}/comments` (every page until the marker), then
/// `PATCH /repos/{o}/{r}/issues/comments/{id}` or `POST` to the list.
pub(super) async fn upsert_comment(
    host: &Host,
    number: u64,
    marker: &str,
    body: &str,
) -> Result<CommentRef, HostError> {
    let list = format!("/repos/{}/issues/{number}/comments", host.project);
    let first = url(&host.api, &list, &[("per_page", "100")])?;
    let a = |req| auth(host, req);
    let found = find_marked(host, first, &a, &|c: &Comment| {
        c.body
            .as_deref()
            .is_some_and(|b| b.starts_with(marker))
            .then_some(c.id)
    })
    .await?;
    let payload = json!({ "body": body });
    let (c, created): (Comment, bool) = match found {
        Some(id) => {
            let u = url(
                &host.api,
                &format!("/repos/{}/issues/comments/{id}", host.project),
                &[],
            )?;
            let make = || a(host.http.patch(u.clone())).json(&payload);
            (send_paged(host, "PATCH", &u, &make).await?.0, false)
        }
        None => {
            let u = url(&host.api, &list, &[])?;
            let make = || a(host.http.post(u.clone())).json(&payload);
            (send_paged(host, "POST", &u, &make).await?.0, true)
        }
    };
    Ok(CommentRef { id: c.id, created })
}
