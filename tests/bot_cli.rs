//! `codemap bot` as an operator runs it: a bad configuration is refused with the key named, a
//! good one serves `/healthz` over a real index and stops cleanly on SIGTERM.

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::*;

fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    Some(out)
}

fn write_config(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("bot.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_bad_configuration_is_refused_with_the_key_path() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = write_config(
        tmp.path(),
        "[[repositories]]\nname = \"shop\"\nindex_dir = \"/nowhere\"\n[scopes.slack]\nC123 = [\"shp\"]\n",
    );
    let o = codemap()
        .args(["bot", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("scopes.slack.C123: unknown repository \"shp\""),
        "{err}"
    );

    // A credential named but not set is named too, and nothing starts.
    let cfg = write_config(
        tmp.path(),
        "[[repositories]]\nname = \"shop\"\nindex_dir = \"/nowhere\"\n[platforms.slack]\nsigning_secret_env = \"CODEMAP_TEST_NO_SUCH_SECRET\"\nbot_token_env = \"CODEMAP_TEST_NO_SUCH_TOKEN\"\n",
    );
    let o = codemap()
        .args(["bot", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("platforms.slack.signing_secret_env: the environment variable CODEMAP_TEST_NO_SUCH_SECRET is not set"),
        "{err}"
    );
}

#[test]
fn the_bot_serves_health_over_a_real_index_and_stops_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    copy_shop(&repo);
    let idx = repo.join(".codemap");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .arg("index")
        .arg(&repo)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let port = free_port();
    let cfg = write_config(
        tmp.path(),
        &format!(
            "listen = \"127.0.0.1:{port}\"\nstate_dir = {:?}\n[[repositories]]\nname = \"shop\"\nindex_dir = {:?}\n[scopes.slack]\nC1 = [\"shop\"]\n",
            tmp.path().join("state").display().to_string(),
            idx.display().to_string(),
        ),
    );
    let mut child = codemap()
        .args(["bot", "--config"])
        .arg(&cfg)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let health = loop {
        if let Some(r) = get(port, "/healthz") {
            break r;
        }
        assert!(Instant::now() < deadline, "the bot did not listen");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        health.starts_with("HTTP/1.0 200") || health.starts_with("HTTP/1.1 200"),
        "{health}"
    );
    let body = health.split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["repositories"][0]["name"], "shop");
    assert_eq!(v["repositories"][0]["ok"], true);
    assert_eq!(v["repositories"][0]["files"], fixture_files());
    // No question yet: nothing is held in memory.
    assert_eq!(v["repositories"][0]["preloaded"], false, "{v}");

    #[cfg(unix)]
    {
        // SAFETY: sending a signal to our own child process.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "the bot did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "{status:?}");
        let mut log = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut log)
            .unwrap();
        assert!(log.contains("codemap bot stopped"), "{log}");
        assert!(tmp.path().join("state/events.sqlite").exists());
    }
    #[cfg(not(unix))]
    child.kill().unwrap();
}

/// RFC 8032's first Ed25519 test key: a public key as Discord's portal shows it.
const DISCORD_KEY_HEX: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

/// Every platform over HTTP, with its secrets in `CODEMAP_T_*` variables ([`secrets`]).
const ALL_PLATFORMS: &str = "[platforms.slack]\nsigning_secret_env = \"CODEMAP_T_SLACK_SIGNING\"\nbot_token_env = \"CODEMAP_T_SLACK_BOT\"\n[platforms.discord]\npublic_key_env = \"CODEMAP_T_DISCORD_KEY\"\napplication_id_env = \"CODEMAP_T_DISCORD_APP\"\nbot_token_env = \"CODEMAP_T_DISCORD_BOT\"\n[platforms.feishu]\napp_id_env = \"CODEMAP_T_FEISHU_ID\"\napp_secret_env = \"CODEMAP_T_FEISHU_SECRET\"\nverification_token_env = \"CODEMAP_T_FEISHU_TOKEN\"\nencrypt_key_env = \"CODEMAP_T_FEISHU_ENCRYPT\"\n";

fn secrets() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "CODEMAP_T_SLACK_SIGNING",
            "8f3a9c0d1e2b4f5a6b7c8d9e0f1a2b3c",
        ),
        ("CODEMAP_T_SLACK_BOT", "xoxb-1-2-abc"),
        ("CODEMAP_T_DISCORD_KEY", DISCORD_KEY_HEX),
        ("CODEMAP_T_DISCORD_APP", "1100"),
        ("CODEMAP_T_DISCORD_BOT", "bot-token"),
        ("CODEMAP_T_FEISHU_ID", "cli_9f5343c580712544"),
        ("CODEMAP_T_FEISHU_SECRET", "app-secret"),
        ("CODEMAP_T_FEISHU_TOKEN", "vtoken-8Hw2"),
        ("CODEMAP_T_FEISHU_ENCRYPT", "kSs3Mq2lZxVb4QhE9Jt7"),
    ]
}

/// `codemap bot --check` over `text` with the secrets set except `unset`, plus `extra` variables.
fn check(dir: &Path, text: &str, unset: &[&str], extra: &[(&str, &str)]) -> std::process::Output {
    let cfg = write_config(dir, text);
    let mut c = codemap();
    c.args(["bot", "--check", "--config"]).arg(&cfg);
    for (k, v) in secrets() {
        if !unset.contains(&k) {
            c.env(k, v);
        }
    }
    for (k, v) in extra {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn repo_entry(name: &str, idx: &Path) -> String {
    format!(
        "[[repositories]]\nname = \"{name}\"\nindex_dir = {:?}\n",
        idx.display().to_string()
    )
}

#[test]
fn check_proves_the_configuration_or_names_the_key_that_cannot_work() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, idx) = indexed_shop(tmp.path());
    let good = format!("{}{ALL_PLATFORMS}", repo_entry("shop", &idx));

    // All holds: what was proved is printed, exit 0.
    let o = check(tmp.path(), &good, &[], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains(&format!(
            "repository shop: embedded index, {} files",
            fixture_files()
        )),
        "{out}"
    );
    for p in ["slack", "discord", "feishu"] {
        assert!(
            out.contains(&format!("platform {p}: connection = \"http\"")),
            "{out}"
        );
    }

    let refused = |o: &std::process::Output, want: &str| {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "missing {want:?} in {err}");
        assert!(
            o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    };
    // An index folder that does not exist.
    let gone = tmp.path().join("nothing/.codemap");
    let o = check(
        tmp.path(),
        &format!("{}{ALL_PLATFORMS}", repo_entry("shop", &gone)),
        &[],
        &[],
    );
    refused(
        &o,
        &format!(
            "repositories[0].index_dir: {} does not exist",
            gone.display()
        ),
    );
    // An index of another repository.
    let other = tmp.path().join("other");
    write(&other, "lib/Other.java", "class Other {}");
    let text = format!(
        "{}repo_root = {:?}\n{ALL_PLATFORMS}",
        repo_entry("shop", &idx),
        other.display().to_string()
    );
    let o = check(tmp.path(), &text, &[], &[]);
    refused(&o, "repositories[0].repo_root: ");
    refused(&o, "is not the repository this index was built from");
    // A Discord public key in base64 (as some tools print it) instead of hex.
    let o = check(
        tmp.path(),
        &good,
        &[],
        &[(
            "CODEMAP_T_DISCORD_KEY",
            "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
        )],
    );
    refused(
        &o,
        "platforms.discord.public_key_env: the value of CODEMAP_T_DISCORD_KEY: not hex",
    );
    // The Feishu encrypt key's variable is not set.
    let o = check(tmp.path(), &good, &["CODEMAP_T_FEISHU_ENCRYPT"], &[]);
    refused(
        &o,
        "platforms.feishu.encrypt_key_env: the environment variable CODEMAP_T_FEISHU_ENCRYPT is not set",
    );
    // A Meilisearch server that does not answer.
    let port = free_port();
    let text = format!(
        "[[repositories]]\nname = \"shop\"\nmeilisearch = {{ url = \"http://127.0.0.1:{port}\" }}\n"
    );
    let o = check(tmp.path(), &text, &[], &[]);
    refused(
        &o,
        &format!("repositories[0].meilisearch.url: http://127.0.0.1:{port} does not answer"),
    );

    // The start makes the same proof: refused, nothing listens.
    let listen = free_port();
    let cfg = write_config(
        tmp.path(),
        &format!("listen = \"127.0.0.1:{listen}\"\n{good}"),
    );
    let mut c = codemap();
    c.args(["bot", "--config"]).arg(&cfg);
    for (k, v) in secrets() {
        if k != "CODEMAP_T_FEISHU_ENCRYPT" {
            c.env(k, v);
        }
    }
    let o = c.output().unwrap();
    refused(
        &o,
        "platforms.feishu.encrypt_key_env: the environment variable CODEMAP_T_FEISHU_ENCRYPT is not set",
    );
    assert!(get(listen, "/healthz").is_none());
}

/// Starts `codemap bot` with every platform over HTTP, stderr piped; waits for `/healthz`.
/// The caller stops the child ([`stop`]).
#[allow(clippy::zombie_processes)]
fn start_bot(
    dir: &Path,
    idx: &Path,
    port: u16,
    feishu_api: &str,
    args: &[&str],
) -> (std::process::Child, String) {
    let text = format!(
        "listen = \"127.0.0.1:{port}\"\nstate_dir = {:?}\n{}[scopes.feishu]\noc_1 = [\"shop\"]\n{ALL_PLATFORMS}api_base = {feishu_api:?}\n",
        dir.join("state").display().to_string(),
        repo_entry("shop", idx),
    );
    let cfg = write_config(dir, &text);
    let mut c = codemap();
    c.args(args)
        .args(["bot", "--config"])
        .arg(&cfg)
        .stderr(Stdio::piped());
    for (k, v) in secrets() {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(r) = get(port, "/healthz") {
            return (child, r);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the bot did not listen");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// SIGTERM, then the whole of stderr.
fn stop(mut child: std::process::Child) -> String {
    #[cfg(unix)]
    // SAFETY: sending a signal to our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    #[cfg(not(unix))]
    child.kill().unwrap();
    let status = child.wait().unwrap();
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(status.success() || cfg!(not(unix)), "{status:?}\n{log}");
    log
}

fn post(port: u16, path: &str, body: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn health_shows_platforms_logs_to_a_pipe_are_plain_and_plaintext_feishu_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, idx) = indexed_shop(tmp.path());
    // Feishu's open API: the bot would call it to answer; nothing may reach it.
    let api = TcpListener::bind("127.0.0.1:0").unwrap();
    api.set_nonblocking(true).unwrap();
    let api_base = format!("http://{}", api.local_addr().unwrap());
    let port = free_port();
    let (child, health) = start_bot(tmp.path(), &idx, port, &api_base, &[]);
    assert!(
        health.starts_with("HTTP/1.0 200") || health.starts_with("HTTP/1.1 200"),
        "{health}"
    );
    let v: serde_json::Value =
        serde_json::from_str(health.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(v["status"], "ok");
    assert_eq!(v["repositories"][0]["name"], "shop");
    let platforms: Vec<(String, String, String)> = v["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or_default().to_string();
            (s("platform"), s("connection"), s("state"))
        })
        .collect();
    let want: Vec<(String, String, String)> = ["slack", "discord", "feishu"]
        .iter()
        .map(|p| (p.to_string(), "http".to_string(), "callbacks".to_string()))
        .collect();
    assert_eq!(platforms, want);

    // A plaintext, unsigned Feishu event with the right verification token: refused.
    let event = serde_json::json!({
        "schema": "2.0",
        "header": {"event_id": "ev-plain", "event_type": "im.message.receive_v1", "create_time": "1700000000000",
                   "token": "vtoken-8Hw2", "app_id": "cli_9f5343c580712544", "tenant_key": "t1"},
        "event": {
            "sender": {"sender_id": {"open_id": "ou_1"}, "sender_type": "user", "tenant_key": "t1"},
            "message": {"message_id": "om_1", "root_id": "", "parent_id": "", "create_time": "1700000000000",
                        "chat_id": "oc_1", "chat_type": "p2p", "message_type": "text",
                        "content": serde_json::json!({"text": "who calls deductStock?"}).to_string()}
        }
    });
    let r = post(port, "/feishu/events", &event.to_string());
    assert!(
        r.starts_with("HTTP/1.0 401") || r.starts_with("HTTP/1.1 401"),
        "{r}"
    );
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        matches!(api.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the refused event was answered"
    );

    let log = stop(child);
    assert!(log.contains("Feishu callback refused"), "{log}");
    assert!(log.contains("codemap bot stopped"), "{log}");
    assert!(
        !log.contains("\x1b["),
        "escape codes in a piped log: {log:?}"
    );
}

#[test]
fn json_logs_are_one_object_per_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, idx) = indexed_shop(tmp.path());
    let port = free_port();
    let (child, _) = start_bot(
        tmp.path(),
        &idx,
        port,
        "http://127.0.0.1:9",
        &["--log-format", "json"],
    );
    let log = stop(child);
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 2, "{log}");
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        assert!(v["level"].is_string() && v["fields"].is_object(), "{l}");
    }
    assert!(
        lines.iter().any(|l| l.contains("codemap bot stopped")),
        "{log}"
    );
}

/// Files of the shop fixture (all of them are indexed).
fn fixture_files() -> usize {
    fn walk(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                if p.is_dir() { walk(&p) } else { 1 }
            })
            .sum()
    }
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shop"))
}

#[test]
fn check_proves_a_meilisearch_repository_answers_with_what_it_published() {
    // Dropped at the end: removes the indexes under this test's prefix.
    let Some(_server) = support::Server::from_env("bot_check") else {
        return;
    };
    let url = std::env::var("MEILI_URL").unwrap();
    let prefix = format!("t{}_bot_check_", std::process::id());
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    copy_shop(&repo);
    let o = codemap()
        .arg("--index-dir")
        .arg(repo.join(".codemap"))
        .args(["--backend", "meilisearch", "--meili-prefix", &prefix])
        .args(["--repo-name", "shop", "index"])
        .arg(&repo)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let key = if std::env::var("MEILI_MASTER_KEY").is_ok() {
        ", key_env = \"MEILI_MASTER_KEY\""
    } else {
        ""
    };
    let entry = |repo: &str| {
        format!(
            "[[repositories]]\nname = \"shop\"\nmeilisearch = {{ url = {url:?}, prefix = {prefix:?}, repo = {repo:?}{key} }}\n"
        )
    };
    let o = check(tmp.path(), &entry("shop"), &[], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.contains(&format!(
            "repository shop: meilisearch index, {} files",
            fixture_files()
        )),
        "{out}"
    );
    // A repository name nothing was published under.
    let o = check(tmp.path(), &entry("shopp"), &[], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("repositories[0].meilisearch.repo: ")
            && err.contains("has nothing published for repository \"shopp\""),
        "{err}"
    );
}
