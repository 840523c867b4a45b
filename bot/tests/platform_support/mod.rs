//! Shared by the platform tests: a loopback HTTP server that records what a sender sent and
//! answers like the platform would, an inbox whose queue the test reads, a router driver, and
//! the python/node peers (skipped with a printed reason when missing).
#![allow(dead_code)]

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, Uri};
use bot::inbox::Inbox;
use bot::model::Question;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tower::ServiceExt;

/// One request the fake platform received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Value,
    pub at: Instant,
}

/// What the fake platform answers: status, headers, JSON body.
pub type Answer = (u16, Vec<(&'static str, String)>, Value);
pub type Responder = dyn Fn(&Recorded, usize) -> Answer + Send + Sync;

pub struct Recorder {
    pub base: String,
    calls: Arc<Mutex<Vec<Recorded>>>,
}

impl Recorder {
    /// Serves on 127.0.0.1; `respond` sees each request and how many came before it.
    pub async fn start(
        respond: impl Fn(&Recorded, usize) -> Answer + Send + Sync + 'static,
    ) -> Recorder {
        let calls: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let respond: Arc<Responder> = Arc::new(respond);
        let c = calls.clone();
        let app = Router::new().fallback(
            move |method: Method, uri: Uri, headers: HeaderMap, body: axum::body::Bytes| {
                let calls = c.clone();
                let respond = respond.clone();
                async move {
                    let rec = Recorded {
                        method: method.to_string(),
                        path: uri.path().to_string(),
                        query: uri.query().map(str::to_string),
                        headers,
                        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                        at: Instant::now(),
                    };
                    let n = {
                        let mut calls = calls.lock().unwrap();
                        calls.push(rec.clone());
                        calls.len() - 1
                    };
                    let (status, headers, body) = respond(&rec, n);
                    let mut resp = axum::response::Response::builder()
                        .status(status)
                        .header("content-type", "application/json");
                    for (k, v) in headers {
                        resp = resp.header(k, v);
                    }
                    resp.body(Body::from(body.to_string())).unwrap()
                }
            },
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Recorder { base, calls }
    }

    pub fn calls(&self) -> Vec<Recorded> {
        self.calls.lock().unwrap().clone()
    }
}

/// An inbox and the receiving end the answer core would drain.
pub fn inbox(capacity: usize) -> (Inbox, tokio::sync::mpsc::Receiver<Question>) {
    let (tx, rx) = tokio::sync::mpsc::channel(capacity);
    (Inbox::new(tx), rx)
}

/// Drives `router` in-process with one POST.
pub async fn post(
    router: &Router,
    path: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let mut req = Request::builder().method("POST").uri(path);
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    let resp = router
        .clone()
        .oneshot(req.body(Body::from(body)).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, headers, bytes.to_vec())
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn peers_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// Runs `tests/peers/<script>` with python (`CODEMAP_PYTHON`, default `python3`), feeding
/// `input` as JSON; `None` (after printing `SKIPPED:`) when python or `module` is missing.
pub fn python(script: &str, module: &str, input: &Value) -> Option<Value> {
    let py = std::env::var("CODEMAP_PYTHON").unwrap_or_else(|_| "python3".into());
    // find_spec, not import: lark_oapi takes seconds to import.
    let probe = Command::new(&py)
        .args(["-c", &format!("import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({module:?}) else 1)")])
        .output();
    match probe {
        Ok(o) if o.status.success() => {}
        _ => {
            indexer::testing::skip(
                "python",
                &format!(
                    "{py} or its module {module} is missing (pip install --break-system-packages -r bot/tests/peers/requirements.txt)"
                ),
            );
            return None;
        }
    }
    Some(run(Command::new(&py).arg(peers_dir().join(script)), input))
}

/// Runs `tests/peers/<script>` with node, `NODE_PATH` = `CODEMAP_NODE_PEERS` (default
/// /work/peers/node_modules); `None` (after printing `SKIPPED:`) when node or `package` is missing.
pub fn node(script: &str, package: &str, input: &Value) -> Option<Value> {
    let modules =
        std::env::var("CODEMAP_NODE_PEERS").unwrap_or_else(|_| "/work/peers/node_modules".into());
    if !std::path::Path::new(&modules).join(package).exists() {
        indexer::testing::skip(
            "node",
            &format!(
                "npm package {package} not found under {modules} (npm install --prefix /work/peers {package})"
            ),
        );
        return None;
    }
    if Command::new("node").arg("--version").output().is_err() {
        indexer::testing::skip("node", "node is not installed");
        return None;
    }
    Some(run(
        Command::new("node")
            .env("NODE_PATH", &modules)
            .arg(peers_dir().join(script)),
        input,
    ))
}

fn run(cmd: &mut Command, input: &Value) -> Value {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("peer starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "peer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "peer printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Every URL in a rendered payload (for "no link the bot did not build").
pub fn urls_in(v: &Value) -> Vec<String> {
    let s = v.to_string();
    let mut out = vec![];
    for scheme in ["https://", "http://"] {
        let mut rest = s.as_str();
        while let Some(i) = rest.find(scheme) {
            let tail = &rest[i..];
            let end = tail
                .find(|c: char| {
                    c == '"' || c == '|' || c == '>' || c == ')' || c.is_whitespace() || c == '\\'
                })
                .unwrap_or(tail.len());
            out.push(tail[..end].to_string());
            rest = &tail[end..];
        }
    }
    out
}
