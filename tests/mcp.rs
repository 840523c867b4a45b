//! `codemap mcp` driven by the official MCP Python SDK client (tests/peers/mcp_client.py) over
//! stdio and over streamable HTTP, on an index of the shop fixture: the tools are listed, search,
//! callers, impact and read (every level) answer with citations that resolve in the fixture,
//! malformed arguments come back as tool errors, a repository outside the token's scope reads as
//! missing, and a wrong bearer token is refused with 401.
//!
//! Needs `pip install mcp`; prints `SKIPPED:` and passes when the SDK is missing.

mod support;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use support::{codemap, copy_shop, git, write};

const ORDER_SERVICE: &str =
    "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";

fn peer_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/mcp_client.py")
}

/// Whether the SDK imports (run outside the repository: its `mcp/` folder would shadow it).
fn sdk_available(cwd: &Path) -> bool {
    Command::new("python3")
        .current_dir(cwd)
        .args(["-c", "import mcp.client.stdio, mcp.client.streamable_http"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The shop fixture committed and indexed in `root/.codemap`, a code map in docs/codemap, and a
/// diff of a body change to `OrderServiceImpl.cancelOrder` written to `root/../change.diff`.
fn setup(tmp: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let root = tmp.join("shop");
    copy_shop(&root);
    write(
        &root,
        "docs/codemap/shop-order.md",
        "# shop-order\n\nOrders: create, pay, cancel.\n",
    );
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let idx = root.join(".codemap");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", "-q"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(root.join(ORDER_SERVICE)).unwrap();
    let edited = text.replace(
        "return; // already paid or cancelled",
        "throw new IllegalStateException(\"not cancellable\");",
    );
    assert_ne!(edited, text);
    std::fs::write(root.join(ORDER_SERVICE), edited).unwrap();
    let diff = git(&root, &["diff"]);
    git(&root, &["checkout", "-q", "--", "."]);
    let diff_file = tmp.join("change.diff");
    std::fs::write(&diff_file, diff).unwrap();
    (root, idx, diff_file)
}

fn run_peer(cwd: &Path, args: &[&str]) -> Value {
    let o = Command::new("python3")
        .current_dir(cwd)
        .arg(peer_script())
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        o.status.success(),
        "peer {args:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "peer printed no JSON ({e}):\n{}",
            String::from_utf8_lossy(&o.stdout)
        )
    })
}

fn call<'a>(out: &'a Value, key: &str) -> &'a Value {
    let c = &out["calls"][key];
    assert!(c["protocol_error"].is_null(), "{key}: protocol error {c}");
    c
}

fn ok_text<'a>(out: &'a Value, key: &str) -> &'a str {
    let c = call(out, key);
    assert_eq!(c["is_error"], false, "{key}: {c}");
    c["text"].as_str().unwrap()
}

/// Every `path:start-end` the text cites lies inside that file of the fixture.
fn assert_citations_resolve(root: &Path, text: &str) -> usize {
    let mut n = 0;
    for word in text.split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ')') {
        let Some((path, range)) = word.rsplit_once(':') else {
            continue;
        };
        let Some((s, e)) = range.trim_end_matches(',').split_once('-') else {
            continue;
        };
        let (Ok(s), Ok(e)) = (s.parse::<usize>(), e.parse::<usize>()) else {
            continue;
        };
        if !path.contains('/') {
            continue;
        }
        let file = std::fs::read_to_string(root.join(path))
            .unwrap_or_else(|_| panic!("cited file {path} exists"));
        let lines = file.lines().count();
        assert!(
            1 <= s && s <= e && e <= lines,
            "{word}: outside 1..={lines}"
        );
        n += 1;
    }
    n
}

/// What every transport must show.
fn check_session(root: &Path, out: &Value) {
    let tools: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for t in [
        "search",
        "definition",
        "callers",
        "callees",
        "path",
        "ask",
        "impact",
        "trace",
        "repo_map",
        "flows",
        "read",
    ] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    // The read tool's schema names the three levels.
    let schema = out["read_schema"].to_string();
    for level in ["surface", "structured", "full"] {
        assert!(schema.contains(level), "{schema}");
    }

    let search = ok_text(out, "search");
    assert!(
        search.contains("InventoryServiceImpl.java:24-36"),
        "{search}"
    );
    assert!(assert_citations_resolve(root, search) > 0);

    let callers = ok_text(out, "callers");
    assert!(callers.contains("InventoryController.deduct"), "{callers}");
    assert!(assert_citations_resolve(root, callers) > 0);

    let impact = ok_text(out, "impact");
    assert!(
        impact.contains("`OrderServiceImpl.cancelOrder` method | body changed"),
        "{impact}"
    );
    assert!(
        impact.contains("POST /api/orders/{orderId}/cancel"),
        "{impact}"
    );
    assert!(
        impact.contains("OrderTimeoutJob.closeExpiredOrders"),
        "{impact}"
    );
    assert!(assert_citations_resolve(root, impact) > 0);

    // Surface: names and one-liners, no code, no graph.
    let surface = ok_text(out, "read_surface");
    assert!(
        surface.contains("OrderServiceImpl.cancelOrder — "),
        "{surface}"
    );
    assert!(!surface.contains("callers ("), "{surface}");
    assert!(!surface.contains("orderMapper.updateStatus"), "{surface}");
    // Structured: the signature with callers and callees, no body.
    let structured = ok_text(out, "read_structured");
    assert!(
        structured.contains("public void cancelOrder(Long orderId)"),
        "{structured}"
    );
    assert!(
        structured.contains("← OrderController.cancel"),
        "{structured}"
    );
    assert!(structured.contains("→ "), "{structured}");
    assert!(
        !structured.contains("already paid or cancelled"),
        "{structured}"
    );
    // Full: the code, numbered as in the file.
    let full = ok_text(out, "read_full");
    assert!(
        full.contains("    99              return; // already paid or cancelled"),
        "{full}"
    );
    let cut = ok_text(out, "read_full_small_budget");
    assert!(cut.contains("cut at the token budget"), "{cut}");
    assert!(cut.len() < 1000, "{}", cut.len());
    for key in ["read_surface", "read_structured", "read_full", "repo_map"] {
        assert!(
            assert_citations_resolve(root, ok_text(out, key)) > 0,
            "{key}"
        );
    }
    let map = ok_text(out, "repo_map");
    assert!(map.contains("- shop-order: "), "{map}");
    // A module's entry points and key flows, as docgen's map of it draws them.
    let flows = ok_text(out, "flows");
    assert!(
        flows.contains("- route POST /api/orders/{orderId}/cancel → OrderController.cancel"),
        "{flows}"
    );
    assert!(
        flows.contains("flow: route POST /api/orders/{orderId}/cancel"),
        "{flows}"
    );
    assert!(
        flows.contains("OrderServiceImpl.cancelOrder (method)"),
        "{flows}"
    );
    assert!(assert_citations_resolve(root, flows) > 0);
    let callees = ok_text(out, "callees");
    assert!(
        callees.contains("→ com.shop.order.mapper.OrderMapper.updateStatus"),
        "{callees}"
    );
    let path = ok_text(out, "path");
    assert!(path.contains("chain 1"), "{path}");
    assert!(path.contains("table:t_order"), "{path}");
    let ask = ok_text(out, "ask");
    assert!(ask.contains("OrderController.cancel"), "{ask}");
    let trace = ok_text(out, "trace");
    assert!(trace.contains("OrderServiceImpl.java:"), "{trace}");
    for key in ["callees", "path", "ask", "trace"] {
        assert!(
            assert_citations_resolve(root, ok_text(out, key)) > 0,
            "{key}"
        );
    }
    let def = ok_text(out, "definition");
    assert!(def.contains("OrderController.java:35-39"), "{def}");

    // Malformed arguments: tool errors that say what is wrong.
    for (key, says) in [
        ("bad_type", "invalid type"),
        ("missing_field", "missing field `symbol`"),
        ("bad_level", "unknown variant `everything`"),
        ("unknown_field", "unknown field `limt`"),
        ("not_a_diff", "not a unified diff"),
        ("other_repo", "no repository named \"secret\""),
        ("flows_unknown_module", "no module named \"shop-nowhere\""),
    ] {
        let c = call(out, key);
        assert_eq!(c["is_error"], true, "{key}: {c}");
        assert!(c["text"].as_str().unwrap().contains(says), "{key}: {c}");
    }

    // The code map is a resource; the other repository's is not listed.
    let resources: Vec<&str> = out["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(resources.len(), 1, "{resources:?}");
    assert!(
        resources[0].ends_with("/docs/codemap/shop-order.md"),
        "{resources:?}"
    );
    assert!(
        out["resource_text"]
            .as_str()
            .unwrap()
            .contains("Orders: create, pay, cancel.")
    );
}

#[test]
fn the_python_sdk_drives_codemap_mcp_over_stdio() {
    let tmp = tempfile::tempdir().unwrap();
    if !sdk_available(tmp.path()) {
        indexer::testing::skip(
            "python",
            "the MCP Python SDK is not installed (pip install mcp)",
        );
        return;
    }
    let (root, idx, diff) = setup(tmp.path());
    let bin = env!("CARGO_BIN_EXE_codemap");
    let out = run_peer(
        tmp.path(),
        &[
            "stdio",
            bin,
            diff.to_str().unwrap(),
            "--",
            "--index-dir",
            idx.to_str().unwrap(),
            "mcp",
        ],
    );
    check_session(&root, &out);
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `codemap mcp --http 127.0.0.1:0 ARGS` and returns it with its URL.
fn start_http(args: &[&str], env: &[(&str, &str)]) -> (Server, String) {
    let mut cmd = codemap();
    cmd.args(["mcp", "--http", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut server = Server(child);
    let mut lines = BufReader::new(stderr).lines();
    let mut log = Vec::new();
    let url = loop {
        match lines.next() {
            Some(Ok(l)) => {
                if let Some(u) = l.split("listening on ").nth(1) {
                    break u.trim().to_string();
                }
                log.push(l);
            }
            _ => {
                let _ = server.0.wait();
                panic!(
                    "codemap mcp --http ended before listening:\n{}",
                    log.join("\n")
                );
            }
        }
    };
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (server, url)
}

/// The status code of a raw POST to the endpoint with `auth` as the Authorization header.
fn raw_status(url: &str, auth: Option<&str>) -> u16 {
    let hostport = url.trim_start_matches("http://").split('/').next().unwrap();
    let mut s = std::net::TcpStream::connect(hostport).unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let auth = auth
        .map(|a| format!("Authorization: {a}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {hostport}\r\n{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut resp = String::new();
    let _ = s.read_to_string(&mut resp);
    resp.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_python_sdk_drives_codemap_mcp_over_http_inside_the_tokens_scope() {
    let tmp = tempfile::tempdir().unwrap();
    if !sdk_available(tmp.path()) {
        indexer::testing::skip(
            "python",
            "the MCP Python SDK is not installed (pip install mcp)",
        );
        return;
    }
    let (root, idx, diff) = setup(tmp.path());
    // A second repository the shop token may not see, with a code map of its own.
    let secret_root = tmp.path().join("secret");
    write(&secret_root, "docs/codemap/secret.md", "# secret\n");
    let config = tmp.path().join("mcp.toml");
    std::fs::write(
        &config,
        format!(
            "[[repo]]\nname = \"shop\"\nindex_dir = {idx:?}\nroot = {root:?}\n\n\
             [[repo]]\nname = \"secret\"\nindex_dir = {idx:?}\nroot = {secret_root:?}\n\n\
             [[token]]\nenv = \"CODEMAP_TEST_MCP_SHOP\"\nrepos = [\"shop\"]\n\n\
             [[token]]\nenv = \"CODEMAP_TEST_MCP_ALL\"\nrepos = [\"shop\", \"secret\"]\n"
        ),
    )
    .unwrap();
    let (_server, url) = start_http(
        &["--repo-config", config.to_str().unwrap()],
        &[
            ("CODEMAP_TEST_MCP_SHOP", "shop-token-1"),
            ("CODEMAP_TEST_MCP_ALL", "all-token-2"),
        ],
    );

    let out = run_peer(
        tmp.path(),
        &["http", &url, diff.to_str().unwrap(), "shop-token-1"],
    );
    check_session(&root, &out);

    // Refused before anything is parsed: no token, a wrong one, another scheme.
    assert_eq!(raw_status(&url, None), 401);
    assert_eq!(raw_status(&url, Some("Bearer shop-token-2")), 401);
    assert_eq!(raw_status(&url, Some("Basic shop-token-1")), 401);
    let refused = run_peer(tmp.path(), &["refused", &url, "not-a-token"]);
    assert_eq!(refused["connected"], false, "{refused}");
    // The other token's scope holds the second repository; this one's does not.
    let args = r#"{"query": "cancel", "repo": "secret"}"#;
    let all = run_peer(tmp.path(), &["call", &url, "all-token-2", "search", args]);
    assert_eq!(all["is_error"], false, "{all}");
    assert!(
        all["text"]
            .as_str()
            .unwrap()
            .contains("OrderController.java:"),
        "{all}"
    );
    let shop = run_peer(tmp.path(), &["call", &url, "shop-token-1", "search", args]);
    assert_eq!(shop["is_error"], true, "{shop}");
    // The right token passes the same gate.
    assert_ne!(raw_status(&url, Some("Bearer shop-token-1")), 401);
}

/// Regression: with `--index-dir` outside the repository, `codemap mcp` took the index folder's
/// parent for the repository (its name and work tree), so the code maps under `--repo` were
/// not served. A raw JSON-RPC exchange over stdio, no SDK needed.
#[test]
fn an_index_outside_the_repository_serves_the_repository_named_by_repo() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    let idx = tmp.path().join("indexes/shop-idx");
    let cm = |args: &[&str]| {
        let o = codemap()
            .arg("--index-dir")
            .arg(&idx)
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    cm(&["index", "-q", root.to_str().unwrap()]);
    cm(&["--repo", root.to_str().unwrap(), "docgen"]);
    assert!(root.join("docs/codemap/shop-order.md").is_file());

    let mut child = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["--repo", root.to_str().unwrap(), "mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for msg in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{}}"#,
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let listed = loop {
        let line = lines.next().expect("a reply to resources/list").unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == 2 {
            break v;
        }
    };
    drop(stdin);
    let _ = child.wait();
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert!(
        uris.contains(&"codemap://shop/docs/codemap/shop-order.md"),
        "{uris:?}"
    );
}
