//! Load on `codemap bot` through each platform's connection, end to end: the binary connects to
//! a loopback stand-in of the platform (tests/support/*_standin.rs, each checked against the
//! platform's official client), questions arrive as the platform sends them (Socket Mode
//! envelopes, gateway MESSAGE_CREATE, Feishu protobuf frames, or signed HTTP callbacks), and the
//! time runs from sending a question to the stand-in recording its reply. Every fifth question
//! is sent again with the same event id, as a platform retry. Prints p50/p95/max, lost and
//! doubled replies and the bot's peak RSS per mode. Run by bench/bot_load.sh --modes.
//!
//! Environment: CODEMAP_BIN (required); BOT_LOAD_INDEX (an index folder; BOT_LOAD_ROOT its work
//! tree) or BOT_LOAD_MEILI_URL with BOT_LOAD_MEILI_REPO and BOT_LOAD_MEILI_KEY_ENV; BOT_LOAD_QUESTIONS
//! (a file, one question a line, `#` comments; required); BOT_MODES (comma-separated modes,
//! default all six); BOT_LOAD_N (50); BOT_MODES_CHANNELS (50: one question a channel, so that the
//! platforms' own per-channel pacing, Slack's one message a second, is not what is measured);
//! BOT_LOAD_WORKERS (4); BOT_LOAD_CONCURRENCY (8).

#[path = "../tests/support/discord_standin.rs"]
mod discord_standin;
#[path = "../tests/support/feishu_standin.rs"]
mod feishu_standin;
#[path = "../tests/support/slack_standin.rs"]
mod slack_standin;

use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MODES: [&str; 6] = [
    "slack-websocket",
    "slack-http",
    "discord-websocket",
    "discord-http",
    "feishu-websocket",
    "feishu-http",
];
const SLACK_SIGNING: &str = "8f742231b10e8888abcd99yyyzzz85a5";
const FEISHU_APP_ID: &str = "cli_a5f2d1c0e4b8d00b";
const FEISHU_SECRET: &str = "VfZk3s9QbT1mN7xW2yR8pL4c";
const FEISHU_ENCRYPT: &str = "kudryavtsev-load-encrypt-key";
const FEISHU_TOKEN: &str = "v-load-verification-token";
const DISCORD_TOKEN: &str = "discord-load-bot-token";
/// A fixed test key: the bench signs interactions as Discord would.
const DISCORD_SEED: [u8; 32] = [7; 32];

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A platform stand-in and how to put a question to it and read the replies back.
enum Standin {
    Slack(slack_standin::SlackStandin),
    Discord(discord_standin::DiscordStandin),
    Feishu(feishu_standin::Standin),
}

struct Mode {
    name: &'static str,
    standin: Standin,
    /// The bot's listen address (`http://127.0.0.1:PORT`).
    bot: String,
    http: reqwest::Client,
    rt: Arc<tokio::runtime::Runtime>,
}

impl Mode {
    fn start(name: &'static str, rt: &Arc<tokio::runtime::Runtime>) -> Mode {
        let standin = match name.split('-').next().unwrap() {
            "slack" => Standin::Slack(slack_standin::SlackStandin::start()),
            "discord" => Standin::Discord(rt.block_on(discord_standin::DiscordStandin::start(
                discord_standin::Options::new(DISCORD_TOKEN),
            ))),
            _ => Standin::Feishu(rt.block_on(feishu_standin::Standin::start(
                feishu_standin::Options::fast(FEISHU_APP_ID, FEISHU_SECRET),
            ))),
        };
        Mode {
            name,
            standin,
            bot: format!("127.0.0.1:{}", free_port()),
            http: reqwest::Client::new(),
            rt: rt.clone(),
        }
    }

    fn websocket(&self) -> bool {
        self.name.ends_with("websocket")
    }

    /// The `[scopes.*]` and `[platforms.*]` sections of the bot's config, and its environment.
    fn config(&self, channels: &[String]) -> (String, Vec<(&'static str, String)>) {
        let connection = if self.websocket() {
            "websocket"
        } else {
            "http"
        };
        let scopes: String = channels
            .iter()
            .map(|c| format!("{c:?} = [\"r\"]\n"))
            .collect();
        match &self.standin {
            Standin::Slack(s) => (
                format!(
                    "[scopes.slack]\n{scopes}[platforms.slack]\nconnection = \"{connection}\"\n\
                     app_token_env = \"LOAD_SLACK_APP\"\nbot_token_env = \"LOAD_SLACK_BOT\"\n\
                     signing_secret_env = \"LOAD_SLACK_SIGNING\"\napi_base = {:?}\n",
                    s.api
                ),
                vec![
                    ("LOAD_SLACK_APP", slack_standin::APP_TOKEN.into()),
                    ("LOAD_SLACK_BOT", slack_standin::BOT_TOKEN.into()),
                    ("LOAD_SLACK_SIGNING", SLACK_SIGNING.into()),
                ],
            ),
            Standin::Discord(d) => {
                let key = ed25519_dalek::SigningKey::from_bytes(&DISCORD_SEED);
                (
                    format!(
                        "[scopes.discord]\n\"{}\" = [\"r\"]\n[platforms.discord]\nconnection = \"{connection}\"\n\
                         bot_token_env = \"LOAD_DISCORD_TOKEN\"\npublic_key_env = \"LOAD_DISCORD_KEY\"\n\
                         application_id_env = \"LOAD_DISCORD_APP\"\napi_base = {:?}\n",
                        discord_standin::GUILD,
                        d.api_base
                    ),
                    vec![
                        ("LOAD_DISCORD_TOKEN", DISCORD_TOKEN.into()),
                        (
                            "LOAD_DISCORD_KEY",
                            hex::encode(key.verifying_key().to_bytes()),
                        ),
                        ("LOAD_DISCORD_APP", discord_standin::APPLICATION.into()),
                    ],
                )
            }
            Standin::Feishu(f) => (
                format!(
                    "[scopes.feishu]\n{scopes}[platforms.feishu]\nconnection = \"{connection}\"\n\
                     app_id_env = \"LOAD_FEISHU_ID\"\napp_secret_env = \"LOAD_FEISHU_SECRET\"\n\
                     verification_token_env = \"LOAD_FEISHU_TOKEN\"\nencrypt_key_env = \"LOAD_FEISHU_ENCRYPT\"\n\
                     api_base = {:?}\n",
                    f.base
                ),
                vec![
                    ("LOAD_FEISHU_ID", FEISHU_APP_ID.into()),
                    ("LOAD_FEISHU_SECRET", FEISHU_SECRET.into()),
                    ("LOAD_FEISHU_TOKEN", FEISHU_TOKEN.into()),
                    ("LOAD_FEISHU_ENCRYPT", FEISHU_ENCRYPT.into()),
                ],
            ),
        }
    }

    /// Sends question `i` from `channel` as the platform would in this mode, and returns the key
    /// its reply carries. Sending the same `i` again is a platform retry: the same event or
    /// message id.
    fn ask(&self, i: usize, channel: &str, text: &str) -> String {
        let ts = format!("1700000000.{:06}", i + 1);
        let event_id = format!("EvLoad{i}");
        let message_id = format!("om_load_{i}");
        match (&self.standin, self.websocket()) {
            (Standin::Slack(s), true) => {
                let event = slack_standin::app_mention(channel, &ts, text);
                if !s.send_event(&format!("env-{i}"), &event_id, event) {
                    eprintln!("{}: no live socket for question {i}", self.name);
                }
                ts
            }
            (Standin::Slack(_), false) => {
                let event = slack_standin::app_mention(channel, &ts, text);
                let body = slack_standin::events_api("", &event_id, event)["payload"].to_string();
                let now = unix_now().to_string();
                let sig = bot::platform::slack::verify::sign(
                    SLACK_SIGNING.as_bytes(),
                    &now,
                    body.as_bytes(),
                );
                let headers = [
                    ("x-slack-request-timestamp", now),
                    ("x-slack-signature", sig),
                ];
                self.post("/slack/events", &headers, body);
                ts
            }
            (Standin::Discord(d), true) => {
                let id = format!("11900000{i:011}");
                d.message_with_id(&id, channel, true, true, text);
                id
            }
            (Standin::Discord(_), false) => {
                use ed25519_dalek::Signer;
                let token = format!("aW50ZXJhY3Rpb24t{i}");
                let body = interaction(i, channel, &token, text);
                let now = unix_now().to_string();
                let key = ed25519_dalek::SigningKey::from_bytes(&DISCORD_SEED);
                let sig = key.sign(format!("{now}{body}").as_bytes());
                let headers = [
                    ("x-signature-ed25519", hex::encode(sig.to_bytes())),
                    ("x-signature-timestamp", now),
                ];
                self.post("/discord/interactions", &headers, body);
                token
            }
            (Standin::Feishu(f), true) => {
                f.send_event(
                    &feishu_standin::message_event(&event_id, &message_id, channel, text),
                    1,
                );
                message_id
            }
            (Standin::Feishu(_), false) => {
                use bot::platform::feishu::crypto;
                let mut event =
                    feishu_standin::message_event(&event_id, &message_id, channel, text);
                event["header"]["token"] = json!(FEISHU_TOKEN);
                let sealed =
                    crypto::encrypt(FEISHU_ENCRYPT, [i as u8; 16], event.to_string().as_bytes());
                let body = json!({ "encrypt": sealed }).to_string();
                let (now, nonce) = (unix_now().to_string(), format!("n{i}"));
                let sig = crypto::signature(&now, &nonce, FEISHU_ENCRYPT, body.as_bytes());
                let headers = [
                    ("x-lark-request-timestamp", now),
                    ("x-lark-request-nonce", nonce),
                    ("x-lark-signature", sig),
                ];
                self.post("/feishu/events", &headers, body);
                message_id
            }
        }
    }

    /// The key of every reply the stand-in recorded, once per reply.
    fn replies(&self) -> Vec<String> {
        match &self.standin {
            Standin::Slack(s) => s
                .posts()
                .iter()
                .filter_map(|p| p["thread_ts"].as_str().map(String::from))
                .collect(),
            Standin::Discord(d) => d
                .rest()
                .iter()
                .filter_map(|r| {
                    if let Some(id) = r.body.pointer("/message_reference/message_id") {
                        return id.as_str().map(String::from);
                    }
                    let token = r.path.split("/webhooks/").nth(1)?.split('/').nth(1)?;
                    (r.method == "PATCH").then(|| token.to_string())
                })
                .collect(),
            Standin::Feishu(f) => f
                .log()
                .messages
                .iter()
                .filter_map(|m| {
                    let id = m.path.strip_prefix("/open-apis/im/v1/messages/")?;
                    id.strip_suffix("/reply").map(String::from)
                })
                .collect(),
        }
    }

    /// Whether the bot is up: `/healthz` answers 200 only when every repository is loaded and
    /// every platform link is connected.
    fn ready(&self) -> bool {
        self.health().is_some()
    }

    /// Whether every repository holds its snapshot in memory (the preload the first question
    /// starts): the load is measured on a warm bot, as `bot_load` measures it.
    fn preloaded(&self) -> bool {
        self.health().is_some_and(|h| {
            h["repositories"]
                .as_array()
                .is_some_and(|r| r.iter().all(|r| r["preloaded"] == true))
        })
    }

    /// `/healthz`'s body when it answers 200.
    fn health(&self) -> Option<serde_json::Value> {
        let url = format!("http://{}/healthz", self.bot);
        self.rt.block_on(async {
            let r = self.http.get(url).send().await.ok()?;
            if !r.status().is_success() {
                return None;
            }
            r.json().await.ok()
        })
    }

    fn post(&self, path: &str, headers: &[(&str, String)], body: String) {
        let url = format!("http://{}{path}", self.bot);
        let mut req = self
            .http
            .post(&url)
            .header("content-type", "application/json")
            .body(body);
        for (k, v) in headers {
            req = req.header(*k, v);
        }
        match self.rt.block_on(req.send()) {
            Ok(r) if r.status().is_success() => {}
            Ok(r) => eprintln!("POST {url}: {}", r.status()),
            Err(e) => eprintln!("POST {url}: {e}"),
        }
    }
}

fn interaction(i: usize, channel: &str, token: &str, text: &str) -> String {
    json!({
        "id": format!("11800000{i:011}"), "application_id": discord_standin::APPLICATION, "type": 2,
        "token": token, "version": 1, "guild_id": discord_standin::GUILD,
        "channel_id": channel, "locale": "en-US",
        "member": {"user": {"id": format!("11400000{i:011}"), "username": "ann"}, "roles": [], "permissions": "0"},
        "data": {"id": "1130000000000000000", "name": "ask", "type": 1,
                 "options": [{"name": "question", "type": 3, "value": text}]}
    })
    .to_string()
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The repository section every mode shares.
fn repository() -> String {
    let workers = env("BOT_LOAD_WORKERS", 4);
    match (
        std::env::var("BOT_LOAD_INDEX"),
        std::env::var("BOT_LOAD_MEILI_URL"),
    ) {
        (_, Ok(url)) => format!(
            "[[repositories]]\nname = \"r\"\nworkers = {workers}\n[repositories.meilisearch]\nurl = {url:?}\nrepo = {:?}\n{}",
            std::env::var("BOT_LOAD_MEILI_REPO").expect("BOT_LOAD_MEILI_REPO"),
            std::env::var("BOT_LOAD_MEILI_KEY_ENV")
                .map(|k| format!("key_env = {k:?}\n"))
                .unwrap_or_default(),
        ),
        (Ok(dir), _) => {
            let dir = PathBuf::from(dir);
            let root = std::env::var("BOT_LOAD_ROOT")
                .map(PathBuf::from)
                .unwrap_or_else(|_| dir.parent().unwrap().to_path_buf());
            format!(
                "[[repositories]]\nname = \"r\"\nworkers = {workers}\nindex_dir = {:?}\nrepo_root = {:?}\n",
                dir.display().to_string(),
                root.display().to_string()
            )
        }
        _ => panic!("set BOT_LOAD_INDEX or BOT_LOAD_MEILI_URL"),
    }
}

fn start_bot(mode: &Mode, tmp: &Path, channels: &[String]) -> Child {
    let (platform, vars) = mode.config(channels);
    // Rate limits out of the way: one asker sends every question here.
    let text = format!(
        "listen = {:?}\nstate_dir = {:?}\n[limits]\nquestions_per_minute = 100000\nburst = 100000\nconcurrency = {}\n{}{platform}",
        mode.bot,
        tmp.join(format!("state-{}", mode.name))
            .display()
            .to_string(),
        env("BOT_LOAD_CONCURRENCY", 8),
        repository(),
    );
    let cfg = tmp.join(format!("{}.toml", mode.name));
    std::fs::write(&cfg, text).unwrap();
    let bin = std::env::var("CODEMAP_BIN").expect("CODEMAP_BIN: the codemap binary");
    let log = std::fs::File::create(tmp.join(format!("{}.log", mode.name))).unwrap();
    Command::new(bin)
        .args(["bot", "--config"])
        .arg(&cfg)
        .envs(vars)
        .env("NO_PROXY", "127.0.0.1,localhost")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("codemap bot starts")
}

fn peak_rss_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            let l = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            l.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n => sorted[((n as f64 * p).ceil() as usize).clamp(1, n) - 1].as_secs_f64() * 1000.0,
    }
}

/// Waits for `keys` to be replied to, noting when each reply was first seen.
fn collect(
    mode: &Mode,
    sent: &HashMap<String, Instant>,
    limit: Duration,
) -> HashMap<String, Duration> {
    let end = Instant::now() + limit;
    let mut seen = HashMap::new();
    while seen.len() < sent.len() && Instant::now() < end {
        let now = Instant::now();
        for k in mode.replies() {
            if let Some(t0) = sent.get(&k) {
                seen.entry(k).or_insert_with(|| now - *t0);
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    seen
}

struct Row {
    mode: &'static str,
    cold_ms: f64,
    latencies: Vec<Duration>,
    total: Duration,
    lost: usize,
    doubled: usize,
    rss_mb: f64,
}

fn run(mode: Mode, tmp: &Path, questions: &[String], n: usize, channels: usize) -> Row {
    // One channel more for the cold question, so no platform pacing holds the first of the load.
    let ids: Vec<String> = (0..=channels)
        .map(|c| match mode.standin {
            Standin::Slack(_) => format!("C{c:04}"),
            Standin::Discord(_) => format!("11500000{c:011}"),
            Standin::Feishu(_) => format!("oc_load_{c:04}"),
        })
        .collect();
    let mut bot = start_bot(&mode, tmp, &ids);
    let up = Instant::now() + Duration::from_secs(120);
    while !mode.ready() {
        assert!(
            Instant::now() < up,
            "{}: the bot never became ready",
            mode.name
        );
        assert!(
            bot.try_wait().unwrap().is_none(),
            "{}: the bot exited",
            mode.name
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The first answer opens the index's tables: the cold start, measured apart.
    let warm = 1_000_000;
    let t0 = Instant::now();
    let key = mode.ask(warm, &ids[channels], &questions[0]);
    let cold = collect(&mode, &HashMap::from([(key, t0)]), Duration::from_secs(120));
    let cold_ms = cold
        .values()
        .next()
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0);
    let warm_by = Instant::now() + Duration::from_secs(120);
    while !mode.preloaded() && Instant::now() < warm_by {
        std::thread::sleep(Duration::from_millis(50));
    }

    let start = Instant::now();
    let mut sent = HashMap::new();
    for i in 0..n {
        let t = Instant::now();
        let key = mode.ask(i, &ids[i % channels], &questions[i % questions.len()]);
        sent.insert(key, t);
        if i % 5 == 4 {
            mode.ask(i, &ids[i % channels], &questions[i % questions.len()]);
        }
    }
    let seen = collect(&mode, &sent, Duration::from_secs(120));
    let total = start.elapsed();
    // Late doubles: a retry answered after the first reply.
    std::thread::sleep(Duration::from_secs(2));
    let mut counts: HashMap<String, usize> = HashMap::new();
    for k in mode.replies() {
        *counts.entry(k).or_default() += 1;
    }
    let doubled = sent
        .keys()
        .filter(|k| counts.get(*k).copied().unwrap_or(0) > 1)
        .count();
    let rss_mb = peak_rss_mb(bot.id());
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(bot.id() as i32, libc::SIGTERM);
    }
    let _ = bot.wait();
    let mut latencies: Vec<Duration> = seen.values().copied().collect();
    latencies.sort();
    Row {
        mode: mode.name,
        cold_ms,
        lost: n - seen.len(),
        latencies,
        total,
        doubled,
        rss_mb,
    }
}

fn main() {
    let file =
        std::env::var("BOT_LOAD_QUESTIONS").expect("BOT_LOAD_QUESTIONS: a file of questions");
    let questions: Vec<String> = std::fs::read_to_string(&file)
        .expect("the questions file reads")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert!(!questions.is_empty(), "{file} holds no question");
    let n = env("BOT_LOAD_N", 50);
    let channels = env("BOT_MODES_CHANNELS", 50).max(1);
    let modes: Vec<&'static str> = match std::env::var("BOT_MODES") {
        Ok(list) => list
            .split(',')
            .map(|m| {
                *MODES
                    .iter()
                    .find(|k| **k == m.trim())
                    .unwrap_or_else(|| panic!("unknown mode {m}; one of {MODES:?}"))
            })
            .collect(),
        Err(_) => MODES.to_vec(),
    };
    let rt = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap(),
    );
    let tmp = tempfile::tempdir().unwrap();
    println!(
        "{n} questions at once from {channels} channels, every fifth sent twice; time from sending to the stand-in recording the reply"
    );
    println!(
        "{:<18} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5} {:>7} {:>8}",
        "mode", "cold ms", "p50 ms", "p95 ms", "max ms", "all s", "lost", "doubled", "RSS MB"
    );
    let mut bad = false;
    for name in modes {
        let row = run(Mode::start(name, &rt), tmp.path(), &questions, n, channels);
        let l = &row.latencies;
        println!(
            "{:<18} {:>8.0} {:>8.0} {:>8.0} {:>8.0} {:>8.2} {:>5} {:>7} {:>8.0}",
            row.mode,
            row.cold_ms,
            pct(l, 0.50),
            pct(l, 0.95),
            pct(l, 1.0),
            row.total.as_secs_f64(),
            row.lost,
            row.doubled,
            row.rss_mb
        );
        bad |= row.lost > 0 || row.doubled > 0;
        if row.lost > 0 {
            eprintln!(
                "{}: the bot's log is {}",
                row.mode,
                tmp.path().join(format!("{}.log", row.mode)).display()
            );
        }
    }
    if bad {
        // Keep the logs for a look.
        let kept = tmp.keep();
        eprintln!("replies were lost or doubled; logs in {}", kept.display());
        std::process::exit(1);
    }
}
