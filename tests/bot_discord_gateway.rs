//! `codemap bot` on the Discord gateway (`connection = "websocket"`), end to end against the
//! loopback Discord (support/discord_standin.rs, checked against discord.py in
//! tests/discord_standin.rs): the bot finds the gateway through `GET {api_base}/gateway/bot`,
//! identifies, registers `/ask`, answers an @mention in a channel, a thread and a DM with a reply
//! whose citations resolve in the indexed fixture, follows op 7 RECONNECT with a RESUME, and
//! exits non-zero, naming the config key, when its token is refused.

#[path = "support/discord_standin.rs"]
mod discord_standin;
mod support;

use discord_standin::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use support::*;

const TOKEN_VAR: &str = "CODEMAP_TEST_DISCORD_TOKEN";
const TOKEN: &str = "standin-token";
const DM_CHANNEL: &str = "1180000000000000000";

fn config(tmp: &Path, idx: &Path, api_base: &str) -> PathBuf {
    let text = format!(
        "listen = \"127.0.0.1:{}\"\nstate_dir = {:?}\n\
         [[repositories]]\nname = \"shop\"\nindex_dir = {:?}\n\
         [scopes.discord]\n\"{GUILD}\" = [\"shop\"]\ndm = [\"shop\"]\n\
         [platforms.discord]\nconnection = \"websocket\"\nbot_token_env = \"{TOKEN_VAR}\"\napi_base = \"{api_base}\"\n",
        free_port(),
        tmp.join("state").display().to_string(),
        idx.display().to_string(),
    );
    let p = tmp.join("bot.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn start_bot(cfg: &Path, token: &str, log: &Path) -> Child {
    codemap()
        .args(["bot", "--config"])
        .arg(cfg)
        .env(TOKEN_VAR, token)
        .env("RUST_LOG", "info")
        .stderr(std::fs::File::create(log).unwrap())
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// Every `path:line` cited in backticks or link text; asserts each resolves in `root`.
fn assert_citations_resolve(root: &Path, content: &str) -> usize {
    let mut n = 0;
    for token in content.split(['`', '[', ']']) {
        let Some((path, line)) = token.rsplit_once(':') else {
            continue;
        };
        let first = line.split('-').next().unwrap_or_default();
        let Ok(line) = first.parse::<usize>() else {
            continue;
        };
        if !path.contains('/') || path.contains(' ') {
            continue;
        }
        let text = std::fs::read_to_string(root.join(path))
            .unwrap_or_else(|_| panic!("cited file {path} exists in the fixture"));
        assert!(
            line >= 1 && line <= text.lines().count(),
            "{path}:{line} outside the file"
        );
        n += 1;
    }
    n
}

/// The replies posted to `channel` (POST /channels/{id}/messages).
fn posts(s: &DiscordStandin, channel: &str) -> Vec<Value> {
    let path = format!("/api/v10/channels/{channel}/messages");
    s.rest()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path == path)
        .map(|r| {
            assert_eq!(r.authorization.as_deref(), Some("Bot standin-token"));
            r.body
        })
        .collect()
}

/// Asks with an @mention (or in a DM) and returns the first reply posted for it.
fn ask(
    rt: &tokio::runtime::Runtime,
    s: &DiscordStandin,
    channel: &str,
    guild: bool,
    q: &str,
) -> Value {
    let before = posts(s, channel).len();
    let id = s.message(channel, guild, guild, q);
    rt.block_on(s.wait(60, "the bot's reply", |s| posts(s, channel).len() > before));
    let reply = posts(s, channel)[before].clone();
    assert_eq!(
        reply["message_reference"]["message_id"], id,
        "the reply answers the question's message: {reply}"
    );
    reply
}

fn stop(mut child: Child) -> std::process::ExitStatus {
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    wait_exit(&mut child, 20)
}

fn wait_exit(child: &mut Child, secs: u64) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the bot did not exit within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn mentions_are_answered_with_citations_across_a_reconnect() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed_shop(tmp.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let s = rt.block_on(DiscordStandin::start(Options::new(TOKEN)));
    let cfg = config(tmp.path(), &idx, &s.api_base);
    let log = tmp.path().join("bot.log");
    let child = start_bot(&cfg, TOKEN, &log);
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();

    rt.block_on(s.wait(60, "READY", |s| s.live()));
    let identify = &s.sent_op(2)[0];
    assert_eq!(identify.payload["d"]["token"], format!("Bot {TOKEN}"));
    assert_eq!(
        identify.payload["d"]["intents"],
        (1 << 9) | (1 << 12),
        "GUILD_MESSAGES | DIRECT_MESSAGES, no privileged intent"
    );
    assert!(
        s.rest().iter().any(|r| r.path == "/api/v10/gateway/bot"),
        "the WebSocket URL comes from GET /gateway/bot"
    );

    // `/ask` registered for READY's application.
    let commands = format!("/api/v10/applications/{APPLICATION}/commands");
    rt.block_on(s.wait(20, "PUT commands", |s| {
        s.rest()
            .iter()
            .any(|r| r.method == "PUT" && r.path == commands)
    }));
    let put = s.rest().into_iter().find(|r| r.path == commands).unwrap();
    assert_eq!(put.body[0]["name"], "ask", "{}", put.body);

    let reply = ask(&rt, &s, CHANNEL, true, "who calls deductStock?");
    let content = reply["content"].as_str().unwrap();
    assert!(content.contains("deductStock"), "{content}");
    assert!(
        assert_citations_resolve(&repo, content) > 0,
        "no citation: {content}"
    );

    // Op 7: the bot resumes its session on a new connection, at READY's resume_gateway_url.
    let heartbeats = s.sent_op(1).len();
    s.reconnect();
    rt.block_on(s.wait(30, "the RESUME", |s| s.live()));
    let resume = &s.sent_op(6)[0];
    assert_eq!(resume.connection, 1);
    assert!(resume.target.starts_with("/resume"), "{}", resume.target);
    assert_eq!(resume.payload["d"]["session_id"], "standin-session-1");
    assert_eq!(s.sent_op(2).len(), 1, "resumed, not identified again");

    // A mention in a thread is answered in the thread; a DM in the DM.
    let reply = ask(&rt, &s, THREAD, true, "where is the Order class defined?");
    let content = reply["content"].as_str().unwrap();
    assert!(
        assert_citations_resolve(&repo, content) > 0,
        "no citation: {content}"
    );
    let reply = ask(&rt, &s, DM_CHANNEL, false, "who calls deductStock?");
    assert!(assert_citations_resolve(&repo, reply["content"].as_str().unwrap()) > 0);
    // Heartbeats went on across the reconnect.
    rt.block_on(s.wait(10, "heartbeats", |s| s.sent_op(1).len() > heartbeats));

    let status = stop(child);
    let log = log_text();
    assert!(status.success(), "{status:?}\n{log}");
    assert!(log.contains("Discord commands registered"), "{log}");
    assert!(log.contains("Discord gateway session resumed"), "{log}");
    assert!(!log.contains(TOKEN), "the token stays out of the log");
}

/// A refused token stops the bot (exit 2) with the config key named: over the Web API (401 at
/// `GET /gateway/bot`) and at IDENTIFY (close code 4004).
#[test]
fn a_refused_token_stops_the_bot_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, idx) = indexed_shop(tmp.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    for rest_checks_token in [true, false] {
        let mut o = Options::new(TOKEN);
        o.rest_checks_token = rest_checks_token;
        let s = rt.block_on(DiscordStandin::start(o));
        let cfg = config(tmp.path(), &idx, &s.api_base);
        let log = tmp.path().join("refused.log");
        let mut child = start_bot(&cfg, "not-the-token", &log);
        let status = wait_exit(&mut child, 60);
        let log = std::fs::read_to_string(&log).unwrap();
        assert_eq!(status.code(), Some(2), "{log}");
        assert!(log.contains("platforms.discord.bot_token_env"), "{log}");
        let how = if rest_checks_token { "401" } else { "4004" };
        assert!(log.contains(how), "{log}");
        if !rest_checks_token {
            assert_eq!(s.closes(), vec![4004]);
        }
        assert!(
            !log.contains("not-the-token"),
            "the token stays out of the log"
        );
    }
}

/// `codemap bot register-commands` registers `/ask` for the configured application, or for the
/// token's own (`GET /oauth2/applications/@me`).
#[test]
fn register_commands_puts_ask() {
    let tmp = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let s = rt.block_on(DiscordStandin::start(Options::new(TOKEN)));
    let idx = tmp.path().join("unused/.codemap");
    let cfg = config(tmp.path(), &idx, &s.api_base);
    let o = codemap()
        .args(["bot", "register-commands", "--config"])
        .arg(&cfg)
        .env(TOKEN_VAR, TOKEN)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains(APPLICATION), "{}", stdout(&o));
    let rest = s.rest();
    assert!(
        rest.iter()
            .any(|r| r.path == "/api/v10/oauth2/applications/@me")
    );
    let put = rest
        .iter()
        .find(|r| r.method == "PUT")
        .expect("a PUT of the commands");
    assert_eq!(
        put.path,
        format!("/api/v10/applications/{APPLICATION}/commands")
    );
    assert_eq!(put.body[0]["name"], "ask");
    assert_eq!(put.body[0]["options"][0]["required"], true);

    // A refused token: exit 2, the key named.
    let o = codemap()
        .args(["bot", "register-commands", "--config"])
        .arg(&cfg)
        .env(TOKEN_VAR, "wrong")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("platforms.discord.bot_token_env") && err.contains("401"),
        "{err}"
    );
}
