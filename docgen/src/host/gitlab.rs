//! GitLab: list opened merge requests from the docs branch, then `PUT` the first or `POST` a new
//! one (<https://docs.gitlab.com/api/merge_requests/>); the review comment is a merge request
//! note (<https://docs.gitlab.com/api/notes/>).

use super::{
    CommentRef, Host, HostError, PullRef, PullRequest, find_marked, send, send_paged, url,
};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize)]
struct MergeRequest {
    iid: u64,
    web_url: String,
}

/// A project path ("group/sub/project") goes into the URL percent-encoded; a numeric id as is.
fn project_id(project: &str) -> String {
    let mut out = String::new();
    for b in project.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(super) async fn open_or_update(host: &Host, pr: &PullRequest) -> Result<PullRef, HostError> {
    let mrs = format!("/projects/{}/merge_requests", project_id(&host.project));
    let list = url(
        &host.api,
        &mrs,
        &[
            ("source_branch", &pr.head),
            ("target_branch", &pr.base),
            ("state", "opened"),
        ],
    )?;
    let token = |req: reqwest::RequestBuilder| req.header("PRIVATE-TOKEN", &host.token);
    let open: Vec<MergeRequest> = send("GET", list.clone(), token(host.http.get(list))).await?;
    if let Some(mr) = open.first() {
        let u = url(&host.api, &format!("{mrs}/{}", mr.iid), &[])?;
        let body = json!({ "title": pr.title, "description": pr.body });
        let mr: MergeRequest = send("PUT", u.clone(), token(host.http.put(u)).json(&body)).await?;
        return Ok(PullRef {
            number: mr.iid,
            url: mr.web_url,
            created: false,
        });
    }
    let u = url(&host.api, &mrs, &[])?;
    let body = json!({
        "source_branch": pr.head,
        "target_branch": pr.base,
        "title": pr.title,
        "description": pr.body,
    });
    let mr: MergeRequest = send("POST", u.clone(), token(host.http.post(u)).json(&body)).await?;
    Ok(PullRef {
        number: mr.iid,
        url: mr.web_url,
        created: true,
    })
}

#[derive(Deserialize)]
struct Note {
    id: u64,
    #[serde(default)]
    body: String,
    /// Notes GitLab writes itself ("added 1 commit").
    #[serde(default)]
    system: bool,
}

/// `GET /projects/:id/merge_requests/:iid/notes` (every page until the marker), then
/// `PUT …/notes/:note_id` or `POST` to the list.
pub(super) async fn upsert_comment(
    host: &Host,
    iid: u64,
    marker: &str,
    body: &str,
) -> Result<CommentRef, HostError> {
    let list = format!(
        "/projects/{}/merge_requests/{iid}/notes",
        project_id(&host.project)
    );
    let first = url(
        &host.api,
        &list,
        &[
            ("per_page", "100"),
            ("sort", "asc"),
            ("order_by", "created_at"),
        ],
    )?;
    let token = |req: reqwest::RequestBuilder| req.header("PRIVATE-TOKEN", &host.token);
    let found = find_marked(host, first, &token, &|n: &Note| {
        (!n.system && n.body.starts_with(marker)).then_some(n.id)
    })
    .await?;
    let payload = json!({ "body": body });
    let (n, created): (Note, bool) = match found {
        Some(id) => {
            let u = url(&host.api, &format!("{list}/{id}"), &[])?;
            let make = || token(host.http.put(u.clone())).json(&payload);
            (send_paged(host, "PUT", &u, &make).await?.0, false)
        }
        None => {
            let u = url(&host.api, &list, &[])?;
            let make = || token(host.http.post(u.clone())).json(&payload);
            (send_paged(host, "POST", &u, &make).await?.0, true)
        }
    };
    Ok(CommentRef { id: n.id, created })
}

#[cfg(test)]
mod tests {
    #[test]
    fn project_paths_are_encoded_ids_are_not() {
        assert_eq!(super::project_id("group/sub/shop"), "group%2Fsub%2Fshop");
        assert_eq!(super::project_id("42"), "42");
    }
}
