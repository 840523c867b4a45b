//! Shared parts of the serve tests: a bare git repository seeded from the shop fixture, the
//! server started on a free port, and a webhook signer (GitHub's own library when installed).
//! The code host on loopback is in `host.rs`.
#![allow(dead_code)]

mod host;
pub use host::{Call, FakeHost};

use docgen::serve::{Config, GenOutcome, Generate, Indexed, Reindex, Server};
use indexer::store::{IndexDir, IndexRead, WriteLock};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const HUMAN: (&str, &str) = ("Dana Dev", "dana@example.com");
pub const BOT_EMAIL: &str = "docs-bot@example.invalid";

pub fn init() {
    let _ = rustls::crypto::ring::default_provider().install_default();
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

/// A small generator that keeps these tests about serving (jobs, commits, webhooks, pull
/// requests) rather than about the maps (tests/shop.rs; `serve_webhook.rs` runs the real one,
/// `docgen::serve::code_maps`, once). It reads the index it is given and writes one deterministic
/// page listing every indexed symbol with its `path:line`, so any code change changes the page
/// and a re-run changes nothing.
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

/// The re-index step the binary injects (src/cmd/docgen_serve.rs), over the same pipeline.
pub struct Pipeline;

impl Reindex for Pipeline {
    fn index(&self, tree: &Path, index: &Path) -> Result<Indexed, String> {
        let opts = indexer::pipeline::IndexOptions::default();
        let s = indexer::pipeline::run(tree, &IndexDir::new(index), &opts, &|_| {})
            .map_err(|e| e.to_string())?;
        Ok(Indexed {
            files: s.snapshot.files,
            changed: (s.added + s.changed + s.removed) as u64,
            generation: s.snapshot.generation,
            dirty: s.snapshot.dirty,
        })
    }

    fn locked(
        &self,
        index: &Path,
        f: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Result<(), String> {
        let _lock = WriteLock::acquire(&IndexDir::new(index)).map_err(|e| e.to_string())?;
        f().map_err(|e| e.to_string())
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
        let server = Server::bind(resolved, generate, Arc::new(Pipeline))
            .await
            .unwrap();
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
        indexer::testing::skip(
            "node",
            &format!(
                "@octokit/webhooks-methods not installed (npm install --prefix {peers} @octokit/webhooks-methods)"
            ),
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

/// The token the servers started by [`github_server`] read from `GH_TOKEN`.
pub const GH_TOKEN: &str = "ghs_test_token";

/// The server for `remote` (state under `tmp/state`) with GitHub webhooks signed with `secret`,
/// the config's `extra` part (a pull-request or review section reads its token, [`GH_TOKEN`],
/// from the variable `GH_TOKEN`), and `generate`.
pub async fn github_server(
    tmp: &Path,
    remote: &Remote,
    secret: &str,
    extra: &str,
    generate: Generate,
) -> Running {
    Running::start(
        &config(&tmp.join("state"), &remote.bare, "github", extra),
        env(&[("HOOK_SECRET", secret), ("GH_TOKEN", GH_TOKEN)]),
        generate,
    )
    .await
}
