//! `codemap bot` with `[platforms.slack] connection = "websocket"`, end to end against the
//! Slack stand-in (tests/support/slack_standin.rs, checked against slack_sdk in
//! tests/slack_standin.rs): the bot opens Socket Mode with the app-level token, acks the
//! envelope, answers the question at `chat.postMessage` with citations that resolve in the
//! fixture, moves to a new connection on `disconnect`/`refresh_requested` and answers there
//! too, and stops cleanly on SIGTERM. A refused app token stops it non-zero, naming the key.

mod support;

use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use support::slack_standin::{self as slack, SlackStandin};
use support::*;

fn config(tmp: &Path, repo: &Path, api: &str) -> std::path::PathBuf {
    let entry = format!(
        "[[repositories]]\nname = \"shop\"\nindex_dir = {:?}\n",
        repo.join(".codemap").display().to_string()
    );
    config_for(tmp, free_port(), &entry, api)
}

/// A bot on `port` answering channel C1 and DMs from the repository `entry` describes.
fn config_for(tmp: &Path, port: u16, entry: &str, api: &str) -> std::path::PathBuf {
    let text = format!(
        "listen = \"127.0.0.1:{port}\"\nstate_dir = {:?}\n{entry}\
         [scopes.slack]\nC1 = [\"shop\"]\ndm = [\"shop\"]\n\
         [platforms.slack]\nconnection = \"websocket\"\napp_token_env = \"CODEMAP_TEST_SLACK_APP\"\n\
         bot_token_env = \"CODEMAP_TEST_SLACK_BOT\"\napi_base = {api:?}\n",
        tmp.join("state").display().to_string(),
    );
    let p = tmp.join("bot.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn start_bot(cfg: &Path, app_token: &str) -> Child {
    start_bot_logging(cfg, app_token, "info")
}

/// [`start_bot`] with `CODEMAP_LOG` set to `filter`.
fn start_bot_logging(cfg: &Path, app_token: &str, filter: &str) -> Child {
    codemap()
        .args(["bot", "--config"])
        .arg(cfg)
        .env("CODEMAP_TEST_SLACK_APP", app_token)
        .env("CODEMAP_TEST_SLACK_BOT", slack::BOT_TOKEN)
        .env("RUST_LOG", "info")
        .env("CODEMAP_LOG", filter)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_exit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let end = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < end, "the bot did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn log(child: &mut Child) -> String {
    let mut s = String::new();
    child.stderr.take().unwrap().read_to_string(&mut s).unwrap();
    s
}

/// `path:line` or `path:start-end` citations in a posted message's blocks.
fn citations(post: &Value) -> Vec<(String, u64, u64)> {
    let text: String = post["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b.pointer("/text/text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n");
    text.split(|c: char| c.is_whitespace() || "`|<>*".contains(c))
        .filter_map(|tok| {
            let (path, lines) = tok.rsplit_once(':')?;
            let (s, e) = lines.split_once('-').unwrap_or((lines, lines));
            let (s, e) = (s.parse().ok()?, e.parse().ok()?);
            path.contains('.').then(|| (path.to_string(), s, e))
        })
        .collect()
}

/// Waits for the reply to the question asked in thread `ts` and checks its citations.
fn answered(standin: &SlackStandin, repo: &Path, ts: &str) -> Value {
    assert!(
        standin.wait(Duration::from_secs(60), |s| s
            .posts()
            .iter()
            .any(|p| p["thread_ts"] == ts)),
        "no reply in thread {ts}: {:?}",
        standin.posts()
    );
    let post = standin
        .posts()
        .into_iter()
        .find(|p| p["thread_ts"] == ts)
        .unwrap();
    assert_eq!(post["channel"], "C1");
    let cites = citations(&post);
    assert!(!cites.is_empty(), "no path:line citation in {post}");
    assert_hits_resolve(repo, &cites);
    post
}

#[test]
fn a_question_over_socket_mode_is_answered_with_citations_and_survives_a_refresh() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = indexed_shop(tmp.path());
    let standin = SlackStandin::start();
    let cfg = config(tmp.path(), &repo, &standin.api);
    let mut bot = start_bot(&cfg, slack::APP_TOKEN);

    assert!(
        standin.wait(Duration::from_secs(30), |s| s.live() >= 1),
        "the bot never opened Socket Mode"
    );
    assert!(standin.open_tokens().iter().all(|t| t == slack::APP_TOKEN));
    let ask = slack::app_mention("C1", "1700000000.000100", "who calls deductStock?");
    assert!(standin.send_event("env-1", "Ev1", ask));
    assert!(
        standin.wait(Duration::from_secs(3), |s| s.acked("env-1") == 1),
        "not acked within 3 s: {:?}",
        standin.acks()
    );
    let first = answered(&standin, &repo, "1700000000.000100");
    // The fixture's only call of deductStock is in InventoryController.deduct (line 22).
    assert!(
        first.to_string().contains("InventoryController.deduct"),
        "the caller of deductStock is named: {first}"
    );

    let opens = standin.opens();
    standin.disconnect_all("refresh_requested");
    assert!(
        standin.wait(Duration::from_secs(20), |s| s.opens() > opens
            && s.live() >= 1),
        "no new apps.connections.open after refresh_requested (opens {opens} → {})",
        standin.opens()
    );
    // Wait out the stand-in's 2 s close of the old sockets, so the question goes to a new one.
    std::thread::sleep(Duration::from_millis(2500));
    let ask = slack::app_mention("C1", "1700000000.000200", "where is OrderService?");
    assert!(standin.wait(Duration::from_secs(10), |s| s.send_event(
        "env-2",
        "Ev2",
        ask.clone()
    )));
    answered(&standin, &repo, "1700000000.000200");
    assert_eq!(standin.acked("env-2"), 1);
    assert_eq!(
        standin.posts().len(),
        2,
        "one reply per question: {:?}",
        standin.posts()
    );

    #[cfg(unix)]
    {
        // SAFETY: signalling our own child.
        unsafe {
            libc::kill(bot.id() as i32, libc::SIGTERM);
        }
        let status = wait_exit(&mut bot, Duration::from_secs(20));
        let log = log(&mut bot);
        assert!(status.success(), "{status:?}\n{log}");
        assert!(log.contains("codemap bot stopped"), "{log}");
        assert!(
            !log.contains(slack::APP_TOKEN) && !log.contains(slack::BOT_TOKEN),
            "a token in the log"
        );
        assert!(
            standin.wait(Duration::from_secs(5), |s| s.live() == 0),
            "sockets left open"
        );
    }
    #[cfg(not(unix))]
    bot.kill().unwrap();
}

#[test]
fn a_refused_app_token_stops_the_bot_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = indexed_shop(tmp.path());
    let standin = SlackStandin::start();
    let cfg = config(tmp.path(), &repo, &standin.api);
    let mut bot = start_bot(&cfg, "xapp-1-revoked");
    let status = wait_exit(&mut bot, Duration::from_secs(30));
    let log = log(&mut bot);
    assert!(!status.success(), "{log}");
    assert!(log.contains("platforms.slack.app_token_env"), "{log}");
    assert!(log.contains("invalid_auth"), "{log}");
    assert!(
        !log.contains("xapp-1-revoked"),
        "the token is never logged: {log}"
    );
    assert!(standin.opens() >= 1);
}

/// Team mode: a bot over a repository published to Meilisearch with `preload = false` answers
/// without copying the snapshot (the server searches: no chunk copy, no preload), and cites what
/// a bot with the default (the copy, within `preload_limit_mb`) cites, question by question.
#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_team_bot_searches_on_the_server_without_a_copy_and_cites_what_a_warm_one_cites() {
    // Dropped at the end: removes the indexes under this test's prefix.
    let Some(server) = Server::from_env("bot_server_search") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (repo, entry) = published_shop(&server, tmp.path());
    let questions = [
        "who calls deductStock?",
        "where does the order status change?",
        "库存在哪里扣减?",
        "how is a payment refunded?",
    ];
    let on_server = ask_team_bot(
        &tmp.path().join("server"),
        &repo,
        &entry("preload = false\n"),
        &questions,
        false,
    );
    let warm = ask_team_bot(
        &tmp.path().join("warm"),
        &repo,
        // The default: the copy, the snapshot being within `preload_limit_mb`.
        &entry(""),
        &questions,
        true,
    );
    let copied = |log: &str| log.contains("keyword search warm");
    assert!(
        !copied(&on_server.1),
        "no copy with preload = false: {}",
        on_server.1
    );
    assert!(!on_server.1.contains("preloaded"), "{}", on_server.1);
    assert!(copied(&warm.1), "the copy by default: {}", warm.1);
    // The server scores Meilisearch's pool by BM25, the copy the whole snapshot: close
    // candidates can swap places (bench/RESULTS.md, "Team mode parity"), the first five cited
    // places are the same.
    for (q, (a, b)) in questions.iter().zip(on_server.0.iter().zip(&warm.0)) {
        assert_eq!(first_five(a), first_five(b), "{q}");
    }
}

/// Team mode across a restart: a bot keeps its copy of the keyword index under its state
/// folder, and the next start on the same snapshot opens that copy instead of reading every
/// chunk from the server again, and cites what it cited before.
#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn a_restarted_team_bot_opens_the_search_copy_it_kept_and_cites_the_same() {
    let Some(server) = Server::from_env("bot_kept_copy") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (repo, entry) = published_shop(&server, tmp.path());
    let questions = ["who calls deductStock?", "库存在哪里扣减?"];
    let dir = tmp.path().join("bot");
    let first = ask_team_bot(&dir, &repo, &entry(""), &questions, true);
    let kept = dir.join("state/views/shop/search");
    let snapshots: Vec<String> = std::fs::read_dir(&kept)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", kept.display(), first.1))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        snapshots.len() == 1 && snapshots[0].starts_with("snapshot-"),
        "one kept copy, of the snapshot: {snapshots:?}"
    );
    assert!(first.1.contains("keyword search warm"), "{}", first.1);
    assert!(!first.1.contains("from the kept copy"), "{}", first.1);
    let again = ask_team_bot(&dir, &repo, &entry(""), &questions, true);
    assert!(
        again.1.contains("keyword search warm from the kept copy"),
        "the restart opens the kept copy: {}",
        again.1
    );
    assert_eq!(first.0, again.0, "the same citations after the restart");
    assert!(first.0.iter().all(|c| !c.is_empty()), "{:?}", first.0);
}

/// The shop indexed and published under `server`'s prefix as `shop`: its source folder, and
/// the bot config's repository entry with `extra` lines.
fn published_shop(
    server: &Server,
    tmp: &Path,
) -> (std::path::PathBuf, impl Fn(&str) -> String + use<>) {
    let (repo, idx) = indexed_shop(tmp);
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args([
            "--backend",
            "meilisearch",
            "--meili-prefix",
            server.prefix(),
        ])
        .args(["--repo-name", "shop", "index"])
        .arg(&repo)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let url = std::env::var("MEILI_URL").unwrap();
    let key = if std::env::var("MEILI_MASTER_KEY").is_ok() {
        ", key_env = \"MEILI_MASTER_KEY\""
    } else {
        ""
    };
    let prefix = server.prefix().to_string();
    let entry = move |extra: &str| {
        format!(
            "[[repositories]]\nname = \"shop\"\nmeilisearch = {{ url = {url:?}, prefix = {prefix:?}{key} }}\n{extra}"
        )
    };
    (repo, entry)
}

/// A cited place: path, first and last line.
type Cited = (String, u64, u64);

/// The first five distinct places of a reply's citations, sorted.
fn first_five(cites: &[Cited]) -> Vec<Cited> {
    let mut out: Vec<Cited> = Vec::new();
    for c in cites {
        if out.len() < 5 && !out.contains(c) {
            out.push(c.clone());
        }
    }
    out.sort();
    out
}

/// Starts a bot over the team index `entry` names, asks `questions` one by one (after a first
/// question and, when `wait_preload`, the repository's preload), and returns each answer's
/// citations and the bot's log.
fn ask_team_bot(
    dir: &Path,
    repo: &Path,
    entry: &str,
    questions: &[&str],
    wait_preload: bool,
) -> (Vec<Vec<Cited>>, String) {
    std::fs::create_dir_all(dir).unwrap();
    let standin = SlackStandin::start();
    let port = free_port();
    let cfg = config_for(dir, port, entry, &standin.api);
    let mut bot = start_bot_logging(&cfg, slack::APP_TOKEN, "info,indexer=debug");
    assert!(
        standin.wait(Duration::from_secs(30), |s| s.live() >= 1),
        "the bot never opened Socket Mode"
    );
    // Event ids unique in the process: a restarted bot remembers the ones it answered.
    static EVENTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let ask = |q: &str| {
        let n = EVENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let ts = format!("1700000000.{n:06}");
        let ev = slack::app_mention("C1", &ts, q);
        assert!(standin.send_event(&format!("env-{n}"), &format!("Ev{n}"), ev));
        citations(&answered(&standin, repo, &ts))
    };
    ask(questions[0]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while wait_preload && !preloaded(port) {
        assert!(Instant::now() < deadline, "not preloaded within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let cites = questions.iter().map(|q| ask(q)).collect();
    #[cfg(unix)]
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(bot.id() as i32, libc::SIGTERM);
    }
    #[cfg(not(unix))]
    bot.kill().unwrap();
    wait_exit(&mut bot, Duration::from_secs(20));
    (cites, log(&mut bot))
}

/// Whether the bot's `/healthz` reports its repository preloaded.
fn preloaded(port: u16) -> bool {
    use std::io::Write;
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = write!(s, "GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n");
    let mut r = String::new();
    let _ = s.read_to_string(&mut r);
    r.split("\r\n\r\n")
        .nth(1)
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
        .is_some_and(|v| v["repositories"][0]["preloaded"] == true)
}
