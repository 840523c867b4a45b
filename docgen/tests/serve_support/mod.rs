//! Shared parts of the serve tests: a bare git repository seeded from the shop fixture, a code
//! host on loopback that records every API call and keeps pull requests like the real one, the
//! server started on a free port, and a webhook signer (GitHub's own library when installed).
#![allow(dead_code)]

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::routing::{get, patch, put};
use docgen::serve::{Config, GenOutcome, Generate, Server};
use indexer::store::IndexRead;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const HUMAN: (&str, &str) = ("Dana Dev", "dana@example.com");
pub const BOT_EMAIL: &str = "docs-bot@example.invalid";

pub fn init() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

/// Runs git in `dir` as the human developer.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_AUTHOR_NAME", HUMAN.0)
        .env("GIT_AUTHOR_EMAIL", HUMAN.1)
        .env("GIT_COMMITTER_NAME", HUMAN.0)
        .env("GIT_COMMITTER_EMAIL", HUMAN.1)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A bare repository (the "remote") holding the shop fixture on `main`, and a developer's
/// clone of it to make further pushes from.
pub struct Remote {
    pub bare: PathBuf,
    pub dev: PathBuf,
}

impl Remote {
    pub fn new(tmp: &Path) -> Remote {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/shop");
        let bare = tmp.join("shop.git");
        let dev = tmp.join("dev");
        git(
            tmp,
            &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()],
        );
        copy_dir(&fixture, &dev);
        git(&dev, &["init", "-q", "-b", "main"]);
        git(&dev, &["add", "-A"]);
        git(&dev, &["commit", "-q", "-m", "shop: first import"]);
        git(&dev, &["remote", "add", "origin", bare.to_str().unwrap()]);
        git(&dev, &["push", "-q", "origin", "main"]);
        Remote { bare, dev }
    }

    /// A commit on the bare repository's branch (`None`: the branch does not exist).
    pub fn tip(&self, branch: &str) -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&self.bare)
            .args([
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("refs/heads/{branch}^{{commit}}"),
            ])
            .output()
            .unwrap();
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    pub fn in_bare(&self, args: &[&str]) -> String {
        git(&self.bare, args)
    }

    /// The developer appends a method to a Java file of the fixture and pushes `main`.
    pub fn push_code_change(&self, method: &str) -> String {
        let file = self.java_file();
        let text = std::fs::read_to_string(&file).unwrap();
        let at = text.rfind('}').unwrap();
        let changed = format!(
            "{}\n    public int {method}() {{\n        return 42;\n    }}\n}}\n",
            &text[..at]
        );
        std::fs::write(&file, changed).unwrap();
        git(&self.dev, &["add", "-A"]);
        git(&self.dev, &["commit", "-q", "-m", &format!("add {method}")]);
        git(&self.dev, &["push", "-q", "origin", "main"]);
        git(&self.dev, &["rev-parse", "HEAD"])
    }

    /// Some Java file of the fixture (the same one every time).
    pub fn java_file(&self) -> PathBuf {
        let list = git(&self.dev, &["ls-files", "*.java"]);
        let first = list
            .lines()
            .next()
            .expect("the shop fixture has Java files");
        self.dev.join(first)
    }
}

/// STAND-IN GENERATOR, for these tests only: the real `docgen::generate` (built in parallel on
/// another branch) had not landed when these tests were written. It has real behaviour: it reads
/// the index it is given and writes one deterministic page listing every indexed symbol with its
/// `path:line`, so a code change changes the page and a re-run changes nothing.
pub fn stand_in_generator() -> Generate {
    Arc::new(|tree: &Path, read: &dyn IndexRead| {
        let mut rows: Vec<String> = read
            .all_symbols()
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|s| {
                format!(
                    "- `{}:{}` {:?} `{}`",
                    s.path.as_str(),
                    s.symbol.start_line,
                    s.symbol.kind,
                    s.symbol.qualified_name
                )
            })
            .collect();
        rows.sort();
        let page = format!("# Symbols\n\n{}\n", rows.join("\n"));
        let rel = PathBuf::from("docs/codemap/symbols.md");
        let path = tree.join(&rel);
        let before = std::fs::read_to_string(&path).ok();
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, &page).map_err(|e| e.to_string())?;
        Ok(GenOutcome {
            changed: before.as_deref() != Some(page.as_str()),
            files: vec![rel],
        })
    })
}

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

/// A running `docgen serve`.
pub struct Running {
    pub base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    http: reqwest::Client,
}

impl Running {
    pub async fn start(config: &str, env: HashMap<String, String>, generate: Generate) -> Running {
        let resolved = Config::parse(config)
            .unwrap()
            .resolve(&|k| env.get(k).cloned())
            .unwrap();
        let server = Server::bind(resolved, generate).await.unwrap();
        let base = format!("http://{}", server.local_addr());
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            server
                .run(async {
                    let _ = rx.await;
                })
                .await
                .unwrap()
        });
        Running {
            base,
            stop: Some(tx),
            task: Some(task),
            http: reqwest::Client::new(),
        }
    }

    pub async fn post(&self, path: &str, headers: &[(&str, String)], body: &str) -> (u16, String) {
        let mut req = self
            .http
            .post(format!("{}{path}", self.base))
            .body(body.to_string());
        for (k, v) in headers {
            req = req.header(*k, v);
        }
        let started = Instant::now();
        let resp = req.send().await.unwrap();
        let code = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        // The webhook answers at once; the job runs in the background.
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "webhook took {:?}",
            started.elapsed()
        );
        (code, text)
    }

    pub async fn status(&self) -> Value {
        self.http
            .get(format!("{}/status", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// Waits until the repository has finished `n` reviews and none runs; its review status then.
    pub async fn wait_reviews(&self, n: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let s = self.status().await;
            let r = &s["reviews"][0];
            if r["reviews_finished"].as_u64().unwrap_or(0) >= n
                && r["running"].as_array().is_some_and(|a| a.is_empty())
            {
                return r.clone();
            }
            assert!(Instant::now() < deadline, "reviews did not finish: {s}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the repository has finished `n` jobs and is idle; its status then.
    pub async fn wait_jobs(&self, n: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let s = self.status().await;
            let r = &s["repos"][0];
            if r["jobs_finished"].as_u64().unwrap() >= n && r["running"] == false {
                return r.clone();
            }
            assert!(Instant::now() < deadline, "jobs did not finish: {s}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            t.await.unwrap();
        }
    }
}

/// The config of one repository served from the bare `remote`.
pub fn config(state: &Path, remote: &Path, host: &str, extra: &str) -> String {
    format!(
        r#"
[server]
listen = "127.0.0.1:0"
state_dir = "{}"
max_body_bytes = 65536

[bot]
name = "Docs Bot"
email = "{BOT_EMAIL}"

[[repo]]
name = "shop"
remote = "{}"
host = "{host}"
webhook_secret_env = "HOOK_SECRET"
push = true
{extra}
"#,
        state.display(),
        remote.display()
    )
}

pub fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A GitHub push payload for `main` at `after`.
pub fn github_push(after: &str, message: &str) -> String {
    json!({
        "ref": "refs/heads/main",
        "before": "0000000000000000000000000000000000000001",
        "after": after,
        "created": false,
        "deleted": false,
        "forced": false,
        "repository": {"full_name": "acme/shop", "default_branch": "main"},
        "pusher": {"name": "dana", "email": HUMAN.1},
        "head_commit": {"id": after, "message": message, "author": {"name": HUMAN.0, "email": HUMAN.1}},
        "commits": [{"id": after, "message": message}]
    })
    .to_string()
}

/// Signs with GitHub's own library (`@octokit/webhooks-methods`, run by node); `None`, after
/// saying SKIPPED on stderr, when node or the package is missing.
pub fn octokit_sign(secret: &str, payload: &str) -> Option<String> {
    use std::io::Write;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sign-webhook.mjs");
    let peers = std::env::var("CODEMAP_PEERS").unwrap_or_else(|_| "/work/peers".into());
    let skipped = || {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: @octokit/webhooks-methods not installed (npm install --prefix {peers} @octokit/webhooks-methods)"
        );
    };
    if !Path::new(&peers)
        .join("node_modules/@octokit/webhooks-methods/package.json")
        .exists()
    {
        skipped();
        return None;
    }
    let Ok(mut child) = Command::new("node")
        .arg(script)
        .env("WEBHOOK_SECRET", secret)
        .env("CODEMAP_PEERS", &peers)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
    else {
        skipped();
        return None;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "octokit signer: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// Commits on the docs branch that are not on main, newest first: (sha, author email, message).
pub fn docs_commits(remote: &Remote, docs: &str) -> Vec<(String, String, String)> {
    let range = format!("main..{docs}");
    let out = remote.in_bare(&["log", "--format=%H%x00%ae%x00%B%x01", &range]);
    out.split('\u{1}')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|c| {
            let mut p = c.splitn(3, '\0');
            (
                p.next().unwrap().to_string(),
                p.next().unwrap().to_string(),
                p.next().unwrap().to_string(),
            )
        })
        .collect()
}

/// The `[repo.pull_request]` section for the fake host at `api`, with the token in `token_env`
/// and any `extra` keys.
pub fn pr_config(api: &str, token_env: &str, extra: &str) -> String {
    format!(
        "[repo.pull_request]\napi = \"{api}\"\nproject = \"acme/shop\"\ntoken_env = \"{token_env}\"\n{extra}"
    )
}

/// Asserts the host saw exactly two calls: a list at `path` with the `query` pairs, then a
/// create at the same path whose JSON body has the `body` pairs.
pub fn assert_listed_then_opened(
    calls: &[Call],
    path: &str,
    query: &[(&str, &str)],
    body: &[(&str, &str)],
) {
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        (calls[0].method.as_str(), calls[0].path.as_str()),
        ("GET", path)
    );
    for (k, v) in query {
        assert_eq!(calls[0].query[*k], *v, "list query {k}");
    }
    assert_eq!(
        (calls[1].method.as_str(), calls[1].path.as_str()),
        ("POST", path)
    );
    for (k, v) in body {
        assert_eq!(calls[1].body[*k], *v, "create body {k}");
    }
}

/// The common start of a test: the TLS provider, a scratch folder, and the remote seeded from the
/// shop fixture in it.
pub fn setup() -> (tempfile::TempDir, Remote) {
    init();
    let tmp = tempfile::tempdir().unwrap();
    let remote = Remote::new(tmp.path());
    (tmp, remote)
}

/// The server for `remote` (state under `tmp/state`) with GitHub webhooks signed with `secret`,
/// the config's `extra` part (a pull-request section reads its token from `GH_TOKEN`), and
/// `generate`.
pub async fn github_server(
    tmp: &Path,
    remote: &Remote,
    secret: &str,
    extra: &str,
    generate: Generate,
) -> Running {
    Running::start(
        &config(&tmp.join("state"), &remote.bare, "github", extra),
        env(&[("HOOK_SECRET", secret), ("GH_TOKEN", "t")]),
        generate,
    )
    .await
}
