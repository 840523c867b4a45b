//! Helpers shared by the end-to-end tests: fixture repositories and running the binary.

#![allow(dead_code)]

pub mod slack_standin;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn codemap() -> Command {
    Command::new(env!("CARGO_BIN_EXE_codemap"))
}

/// Runs `codemap ARGS` with the index in `idx`, returning the output.
pub fn run(idx: &Path, args: &[&str]) -> Output {
    codemap()
        .arg("--index-dir")
        .arg(idx)
        .args(args)
        .output()
        .expect("codemap runs")
}

/// `codemap index ROOT` into `idx`, then `codemap --repo ROOT docgen`: both must succeed and
/// docgen must write (exit 0).
pub fn index_and_docgen(idx: &Path, root: &Path) {
    let o = run(idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(idx, &["--repo", root.to_str().unwrap(), "docgen"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

/// A small Java class with a method whose body carries `marker`.
pub fn java_class(pkg: &str, name: &str, marker: &str) -> String {
    format!(
        "package {pkg};\n\n/** {name} does things. */\npublic class {name} {{\n    private int count;\n\n    /** Runs it. */\n    public void run{name}(int times) {{\n        // {marker}\n        count += times;\n    }}\n}}\n"
    )
}

/// Parsed `search --json` hits: (path, start_line, end_line).
pub fn search(idx: &Path, q: &str) -> Vec<(String, u64, u64)> {
    let o = run(idx, &["search", q, "--json", "-n", "200"]);
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or(serde_json::Value::Array(vec![]));
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|h| {
                    (
                        h["path"].as_str().unwrap_or_default().to_string(),
                        h["start_line"].as_u64().unwrap_or(0),
                        h["end_line"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Every hit's range must lie inside its file as it is on disk (citations are facts).
pub fn assert_hits_resolve(root: &Path, hits: &[(String, u64, u64)]) {
    for (p, s, e) in hits {
        let bytes = std::fs::read(root.join(p)).unwrap_or_else(|_| panic!("cited file {p} exists"));
        let lines = bytes.split(|&b| b == b'\n').count() as u64;
        assert!(
            *s >= 1 && s <= e && *e <= lines,
            "{p}:{s}-{e} outside 1..={lines}"
        );
    }
}

/// Copies the shop fixture (a Spring multi-module repository) to `to`, so a test may edit it
/// and no index lands in the source tree.
pub fn copy_shop(to: &Path) {
    copy_fixture("shop", to);
}

/// Copies the fixture `tests/fixtures/<name>` to `to`.
pub fn copy_fixture(name: &str, to: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(&src).unwrap().to_str().unwrap().to_string();
                write(to, &rel, std::fs::read(&p).unwrap());
            }
        }
    }
}

/// Runs git in `root` with a fixed identity; panics with git's stderr when it fails.
pub fn git(root: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A Meilisearch store on a unique prefix, dropped at the end; `None` (after saying so) when no
/// server is configured.
pub struct Server {
    url: String,
    key: Option<String>,
    prefix: String,
}

impl Server {
    pub fn from_env(test: &str) -> Option<Server> {
        let Ok(url) = std::env::var("MEILI_URL") else {
            indexer::testing::skip(
                "meilisearch",
                &format!(
                    "{test}: MEILI_URL is not set (set MEILI_URL and MEILI_MASTER_KEY to run it against a real server)"
                ),
            );
            return None;
        };
        let prefix = format!(
            "t{}_{}_",
            std::process::id(),
            test.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        Some(Server {
            url,
            key: std::env::var("MEILI_MASTER_KEY").ok(),
            prefix,
        })
    }
    /// The index-name prefix of this test's indexes (`--meili-prefix`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
    pub fn store(&self, repo: &str) -> indexer::store::meilisearch::MeiliStore {
        indexer::store::meilisearch::MeiliStore::connect(
            indexer::store::meilisearch::MeiliConfig::new(
                &self.url,
                self.key.clone(),
                &self.prefix,
                repo,
            ),
        )
        .unwrap()
    }
}

impl Server {
    /// Deletes repository `repo`'s documents of index `index` (`edges`, `chunks`) behind its
    /// readers' backs, and waits for the server to have done it.
    pub fn delete_documents(&self, index: &str, repo: &str) {
        let (url, key) = (&self.url, self.key.clone().unwrap_or_default());
        tokio::runtime::Runtime::new().unwrap().block_on(async {
            let http = reqwest::Client::new();
            let task: serde_json::Value = http
                .post(format!(
                    "{url}/indexes/{}{index}/documents/delete",
                    self.prefix
                ))
                .bearer_auth(&key)
                .json(&serde_json::json!({ "filter": format!("repo = \"{repo}\"") }))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let uid = task["taskUid"].as_u64().unwrap();
            for _ in 0..600 {
                let t: serde_json::Value = http
                    .get(format!("{url}/tasks/{uid}"))
                    .bearer_auth(&key)
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                match t["status"].as_str() {
                    Some("succeeded") => return,
                    Some("failed" | "canceled") => panic!("{t}"),
                    _ => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
                }
            }
            panic!("task {uid} did not finish");
        });
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.store("cleanup").drop_indexes();
    }
}

/// A port nothing listens on now (for a server the test starts).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The shop fixture copied to `tmp/shop` and indexed; returns (repository, index folder).
pub fn indexed_shop(tmp: &Path) -> (PathBuf, PathBuf) {
    let repo = tmp.join("shop");
    copy_shop(&repo);
    let idx = repo.join(".codemap");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", repo.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}

/// A command's stdout read as JSON lines; panics with its stderr when it failed.
pub fn jsonl(o: &Output) -> Vec<serde_json::Value> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `codemap export edges --kind KIND` of the repository indexed in `idx`.
pub fn exported_edges(idx: &Path, repo: &Path, kind: &str) -> Vec<serde_json::Value> {
    jsonl(&run(
        idx,
        &[
            "--repo",
            repo.to_str().unwrap(),
            "export",
            "edges",
            "--kind",
            kind,
        ],
    ))
}

/// Whether `edges` hold one from `caller` to `callee` (display names).
pub fn has_edge(edges: &[serde_json::Value], caller: &str, callee: &str) -> bool {
    edges
        .iter()
        .any(|e| e["caller_symbol"] == caller && e["callee_symbol"] == callee)
}

/// The shop fixture with one more file, `rel`, indexed: (repository, index folder).
pub fn shop_with(tmp: &Path, rel: &str, content: &str) -> (PathBuf, PathBuf) {
    let repo = tmp.join("shop");
    copy_shop(&repo);
    write(&repo, rel, content);
    let idx = tmp.join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}
