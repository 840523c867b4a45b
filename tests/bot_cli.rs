//! `codemap bot` as an operator runs it: a bad configuration is refused with the key named, a
//! good one serves `/healthz` over a real index and stops cleanly on SIGTERM.

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use support::*;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

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
            "listen = \"127.0.0.1:{port}\"\nstate_dir = {:?}\n[[repositories]]\nname = \"shop\"\nindex_dir = {:?}\n[[repositories]]\nname = \"gone\"\nindex_dir = {:?}\n[scopes.slack]\nC1 = [\"shop\"]\n",
            tmp.path().join("state").display().to_string(),
            idx.display().to_string(),
            tmp.path().join("nothing/.codemap").display().to_string(),
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
    // One repository has no index: health says so with 503, and names the one that serves.
    assert!(
        health.starts_with("HTTP/1.0 503") || health.starts_with("HTTP/1.1 503"),
        "{health}"
    );
    let body = health.split("\r\n\r\n").nth(1).unwrap();
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["status"], "degraded");
    assert_eq!(v["repositories"][0]["name"], "shop");
    assert_eq!(v["repositories"][0]["ok"], true);
    assert_eq!(v["repositories"][0]["files"], fixture_files());
    assert_eq!(v["repositories"][1]["ok"], false);
    // The reason (a path) stays in the log.
    assert!(!body.contains("nothing/.codemap"));

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
