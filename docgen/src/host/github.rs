//! GitHub: list open pulls from the docs branch, then `PATCH` the first or `POST` a new one.
//! <https://docs.github.com/en/rest/pulls/pulls>

use super::{Host, HostError, PullRef, PullRequest, send, url};
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
