//! GitLab: list opened merge requests from the docs branch, then `PUT` the first or `POST` a new
//! one. <https://docs.gitlab.com/api/merge_requests/>

use super::{Host, HostError, PullRef, PullRequest, send, url};
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

#[cfg(test)]
mod tests {
    #[test]
    fn project_paths_are_encoded_ids_are_not() {
        assert_eq!(super::project_id("group/sub/shop"), "group%2Fsub%2Fshop");
        assert_eq!(super::project_id("42"), "42");
    }
}
