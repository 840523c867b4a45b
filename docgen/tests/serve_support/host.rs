//! The code host on loopback: GitHub's pulls, issue comments and GitLab's merge requests and
//! notes, with real lists of open requests and comments (so "update the one already open" is
//! tested against state, not a script), recording every call; rate limits answered like the real
//! hosts.

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::routing::{get, patch, put};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One recorded API call.
#[derive(Debug, Clone)]
pub struct Call {
    pub method: String,
    /// The raw path, percent-encoding kept.
    pub path: String,
    pub query: HashMap<String, String>,
    pub authorization: Option<String>,
    pub private_token: Option<String>,
    pub body: Value,
}

#[derive(Default)]
struct HostState {
    calls: Vec<Call>,
    /// Open requests: number, head, base, title, body.
    pulls: Vec<Value>,
    /// Answer the next create call 502 (an outage), then recover.
    fail_next_create: bool,
    /// Comments on requests: id, `where` (the list's path), body. Listed per request, in order.
    comments: Vec<Value>,
    /// Comments per page at most, whatever `per_page` asks (to exercise pagination).
    page_cap: Option<usize>,
    /// Answer the next comment call 429 with `Retry-After: 1`, then recover.
    rate_limit_next: bool,
}

/// A code host on loopback: GitHub's pulls and GitLab's merge requests endpoints, with a real
/// list of open requests (so "update the one already open" is tested against state, not a
/// script), recording every call.
pub struct FakeHost {
    pub base: String,
    state: Arc<Mutex<HostState>>,
}

type Shared = State<Arc<Mutex<HostState>>>;

fn record(
    s: &Shared,
    method: &Method,
    uri: &Uri,
    q: &HashMap<String, String>,
    h: &HeaderMap,
    body: &str,
) {
    let header = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::to_string);
    s.lock().unwrap().calls.push(Call {
        method: method.to_string(),
        path: uri.path().to_string(),
        query: q.clone(),
        authorization: header("authorization"),
        private_token: header("private-token"),
        body: serde_json::from_str(body).unwrap_or(Value::Null),
    });
}

async fn gh_list(
    s: Shared,
    m: Method,
    uri: Uri,
    Query(q): Query<HashMap<String, String>>,
    h: HeaderMap,
) -> axum::Json<Value> {
    record(&s, &m, &uri, &q, &h, "");
    let st = s.lock().unwrap();
    let head = q.get("head").cloned().unwrap_or_default();
    let branch = head
        .split_once(':')
        .map(|(_, b)| b.to_string())
        .unwrap_or(head);
    let found: Vec<Value> = st
        .pulls
        .iter()
        .filter(|p| p["head"] == branch.as_str() && p["base"] == q.get("base").map(String::as_str).unwrap_or(""))
        .map(|p| json!({"number": p["number"], "html_url": format!("https://github.test/pull/{}", p["number"])}))
        .collect();
    axum::Json(Value::Array(found))
}

async fn gh_create(
    s: Shared,
    m: Method,
    uri: Uri,
    h: HeaderMap,
    body: String,
) -> (StatusCode, axum::Json<Value>) {
    record(&s, &m, &uri, &HashMap::new(), &h, &body);
    let v: Value = serde_json::from_str(&body).unwrap();
    let mut st = s.lock().unwrap();
    if std::mem::take(&mut st.fail_next_create) {
        return (
            StatusCode::BAD_GATEWAY,
            axum::Json(json!({"message": "Server Error"})),
        );
    }
    let number = st.pulls.len() as u64 + 1;
    st.pulls.push(json!({"number": number, "head": v["head"], "base": v["base"], "title": v["title"], "body": v["body"]}));
    (
        StatusCode::CREATED,
        axum::Json(
            json!({"number": number, "html_url": format!("https://github.test/pull/{number}")}),
        ),
    )
}

async fn gh_update(
    s: Shared,
    m: Method,
    uri: Uri,
    UrlPath((_o, _r, n)): UrlPath<(String, String, u64)>,
    h: HeaderMap,
    body: String,
) -> axum::Json<Value> {
    record(&s, &m, &uri, &HashMap::new(), &h, &body);
    let v: Value = serde_json::from_str(&body).unwrap();
    let mut st = s.lock().unwrap();
    let p = st.pulls.iter_mut().find(|p| p["number"] == n).unwrap();
    p["title"] = v["title"].clone();
    p["body"] = v["body"].clone();
    axum::Json(json!({"number": n, "html_url": format!("https://github.test/pull/{n}")}))
}

async fn gl_list(
    s: Shared,
    m: Method,
    uri: Uri,
    Query(q): Query<HashMap<String, String>>,
    h: HeaderMap,
) -> axum::Json<Value> {
    record(&s, &m, &uri, &q, &h, "");
    let st = s.lock().unwrap();
    let found: Vec<Value> = st
        .pulls
        .iter()
        .filter(|p| Some(p["head"].as_str().unwrap_or("")) == q.get("source_branch").map(String::as_str))
        .map(|p| json!({"iid": p["number"], "web_url": format!("https://gitlab.test/mr/{}", p["number"])}))
        .collect();
    axum::Json(Value::Array(found))
}

async fn gl_create(
    s: Shared,
    m: Method,
    uri: Uri,
    h: HeaderMap,
    body: String,
) -> (StatusCode, axum::Json<Value>) {
    record(&s, &m, &uri, &HashMap::new(), &h, &body);
    let v: Value = serde_json::from_str(&body).unwrap();
    let mut st = s.lock().unwrap();
    let n = st.pulls.len() as u64 + 1;
    st.pulls.push(json!({"number": n, "head": v["source_branch"], "base": v["target_branch"], "title": v["title"], "body": v["description"]}));
    (
        StatusCode::CREATED,
        axum::Json(json!({"iid": n, "web_url": format!("https://gitlab.test/mr/{n}")})),
    )
}

async fn gl_update(
    s: Shared,
    m: Method,
    uri: Uri,
    UrlPath((_id, n)): UrlPath<(String, u64)>,
    h: HeaderMap,
    body: String,
) -> axum::Json<Value> {
    record(&s, &m, &uri, &HashMap::new(), &h, &body);
    let v: Value = serde_json::from_str(&body).unwrap();
    let mut st = s.lock().unwrap();
    let p = st.pulls.iter_mut().find(|p| p["number"] == n).unwrap();
    p["title"] = v["title"].clone();
    p["body"] = v["description"].clone();
    axum::Json(json!({"iid": n, "web_url": format!("https://gitlab.test/mr/{n}")}))
}

fn limited(st: &mut HostState) -> Option<axum::response::Response> {
    use axum::response::IntoResponse;
    std::mem::take(&mut st.rate_limit_next).then(|| {
        (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "1")],
            axum::Json(json!({"message": "API rate limit exceeded"})),
        )
            .into_response()
    })
}

/// GitHub's issue comments and GitLab's notes: a list (paged, with a `Link` to the next page) and
/// a create.
async fn comments_list(
    s: Shared,
    m: Method,
    uri: Uri,
    Query(q): Query<HashMap<String, String>>,
    h: HeaderMap,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    record(&s, &m, &uri, &q, &h, "");
    let mut st = s.lock().unwrap();
    if let Some(r) = limited(&mut st) {
        return r;
    }
    let list = uri.path().to_string();
    let per_page: usize = q.get("per_page").and_then(|v| v.parse().ok()).unwrap_or(30);
    let per_page = per_page.min(st.page_cap.unwrap_or(100));
    let page: usize = q.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
    let all: Vec<Value> = st
        .comments
        .iter()
        .filter(|c| c["where"] == list.as_str())
        .map(|c| json!({"id": c["id"], "body": c["body"], "system": false, "user": {"login": c["login"]}}))
        .collect();
    let items: Vec<Value> = all
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .cloned()
        .collect();
    let mut resp = axum::Json(Value::Array(items)).into_response();
    if page * per_page < all.len() {
        let host = h
            .get("host")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("127.0.0.1")
            .to_string();
        let mut next: Vec<String> = q
            .iter()
            .filter(|(k, _)| k.as_str() != "page")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        next.push(format!("page={}", page + 1));
        let link = format!(
            "<http://{host}{list}?{}>; rel=\"next\", <http://{host}{list}?page=1>; rel=\"first\"",
            next.join("&")
        );
        resp.headers_mut().insert("link", link.parse().unwrap());
    }
    resp
}

async fn comments_create(
    s: Shared,
    m: Method,
    uri: Uri,
    h: HeaderMap,
    body: String,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    record(&s, &m, &uri, &HashMap::new(), &h, &body);
    let v: Value = serde_json::from_str(&body).unwrap();
    let mut st = s.lock().unwrap();
    if let Some(r) = limited(&mut st) {
        return r;
    }
    let id = 1000 + st.comments.len() as u64;
    st.comments
        .push(json!({"id": id, "where": uri.path(), "body": v["body"], "login": "codemap-bot"}));
    (
        StatusCode::CREATED,
        axum::Json(json!({"id": id, "body": v["body"]})),
    )
        .into_response()
}

async fn comment_edit(
    s: Shared,
    m: Method,
    uri: Uri,
    h: HeaderMap,
    body: String,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    record(&s, &m, &uri, &HashMap::new(), &h, &body);
    let v: Value = serde_json::from_str(&body).unwrap();
    let id: u64 = uri.path().rsplit('/').next().unwrap().parse().unwrap();
    let mut st = s.lock().unwrap();
    if let Some(r) = limited(&mut st) {
        return r;
    }
    match st.comments.iter_mut().find(|c| c["id"] == id) {
        Some(c) => {
            c["body"] = v["body"].clone();
            axum::Json(json!({"id": id, "body": v["body"]})).into_response()
        }
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"message": "Not Found"})),
        )
            .into_response(),
    }
}

impl FakeHost {
    pub async fn start() -> FakeHost {
        let state = Arc::new(Mutex::new(HostState::default()));
        let app = Router::new()
            .route("/repos/{o}/{r}/pulls", get(gh_list).post(gh_create))
            .route("/repos/{o}/{r}/pulls/{n}", patch(gh_update))
            .route(
                "/projects/{id}/merge_requests",
                get(gl_list).post(gl_create),
            )
            .route("/projects/{id}/merge_requests/{n}", put(gl_update))
            .route(
                "/repos/{o}/{r}/issues/{n}/comments",
                get(comments_list).post(comments_create),
            )
            .route("/repos/{o}/{r}/issues/comments/{id}", patch(comment_edit))
            .route(
                "/projects/{id}/merge_requests/{n}/notes",
                get(comments_list).post(comments_create),
            )
            .route(
                "/projects/{id}/merge_requests/{n}/notes/{note}",
                put(comment_edit),
            )
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeHost { base, state }
    }

    pub fn calls(&self) -> Vec<Call> {
        self.state.lock().unwrap().calls.clone()
    }

    pub fn fail_next_create(&self) {
        self.state.lock().unwrap().fail_next_create = true;
    }

    pub fn pulls(&self) -> Vec<Value> {
        self.state.lock().unwrap().pulls.clone()
    }

    /// Comments on requests, in the order they were posted: id, `where` (the list's path), body.
    pub fn comments(&self) -> Vec<Value> {
        self.state.lock().unwrap().comments.clone()
    }

    /// A comment someone else wrote on the list at `path`.
    pub fn add_comment(&self, path: &str, login: &str, body: &str) {
        let mut st = self.state.lock().unwrap();
        let id = 1000 + st.comments.len() as u64;
        st.comments
            .push(json!({"id": id, "where": path, "body": body, "login": login}));
    }

    pub fn set_page_cap(&self, n: usize) {
        self.state.lock().unwrap().page_cap = Some(n);
    }

    pub fn rate_limit_next(&self) {
        self.state.lock().unwrap().rate_limit_next = true;
    }
}
