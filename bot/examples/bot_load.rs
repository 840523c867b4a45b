//! Load on the bot's answer core: concurrent questions from several channels through the inbox,
//! answered over a real index and delivered to a recording sender. Prints p50/p95 from submit to
//! delivered, lost and duplicated replies, and peak RSS. Run by bench/bot_load.sh.
//!
//! Environment: BOT_LOAD_INDEX (index folder, required), BOT_LOAD_QUESTIONS (a file, one question
//! a line, `#` comments; required: bench/questions-shop.txt for the shop fixture), BOT_LOAD_N (50),
//! BOT_LOAD_CHANNELS (10), BOT_LOAD_WORKERS (query worker threads, 4), BOT_LOAD_CONCURRENCY
//! (questions in flight, 8), BOT_LOAD_RATE (arrivals per second, evenly spaced; 0 = all at once,
//! the default), BOT_LOAD_MEILI_URL + BOT_LOAD_MEILI_REPO (+ BOT_LOAD_MEILI_KEY_ENV,
//! BOT_LOAD_MEILI_PREFIX) for the Meilisearch backend instead of the index folder,
//! BOT_LOAD_SERVER_PID (that server's process id, on this machine: its CPU during the load).
//! BOT_LOAD_INDEXES (`name=folder,name=folder,…`) instead: several repositories, every channel
//! scoped to all of them, so each question is asked of all at once (issue 40 point 4; workers
//! are per repository, default 1 then). A question line `repo<TAB>question` names the repository
//! that holds it: the load then counts the answers whose first citation is from it
//! (BOT_LOAD_MISSES=1 prints the others on stderr). BOT_LOAD_ANSWERS=<file> writes each question
//! with its replies, sorted, so that two builds' answers can be compared.

use bot::model::{Conversation, Delivery, Platform, Question, Reply};
use bot::testing::{Delivered, RecordingSender};
use bot::{Config, Core, Running, Submitted};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The allocator `codemap bot` runs on (src/main.rs, built the same way): the answer path
/// allocates on four threads at once, and glibc's malloc alone took a sixth of its CPU here.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(f64::NAN)
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64() * 1000.0
}

fn question(channel: usize, user: usize, event: &str, text: &str) -> Question {
    Question {
        conversation: Conversation {
            platform: Platform::Slack,
            workspace: "TLOAD".into(),
            channel: format!("C{channel}"),
            thread: Some(event.to_string()),
            user: format!("U{user}"),
            direct: false,
        },
        text: text.into(),
        event_id: event.into(),
        delivery: Delivery::Post,
    }
}

/// `BOT_LOAD_INDEXES`: (name, index folder) of each repository, none when unset.
fn named_indexes() -> Vec<(String, String)> {
    std::env::var("BOT_LOAD_INDEXES")
        .map(|v| {
            v.split(',')
                .filter(|e| !e.is_empty())
                .map(|e| {
                    let (name, dir) = e.split_once('=').expect("BOT_LOAD_INDEXES: name=folder,…");
                    (name.to_string(), dir.to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `BOT_LOAD_QUESTIONS`: each question, with the repository that holds it when the line says.
fn read_questions() -> Vec<(Option<String>, String)> {
    let p = std::env::var("BOT_LOAD_QUESTIONS").expect(
        "BOT_LOAD_QUESTIONS: a file of questions (bench/questions-shop.txt for the shop fixture)",
    );
    std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("BOT_LOAD_QUESTIONS {p}: {e}"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((repo, q)) => (Some(repo.to_string()), q.trim().to_string()),
            None => (None, l.to_string()),
        })
        .collect()
}

/// (name, location line) of each repository: the named indexes, else one called `bench` on
/// Meilisearch (`BOT_LOAD_MEILI_URL`) or in an index folder (`BOT_LOAD_INDEX`).
fn repositories(many: Vec<(String, String)>) -> Vec<(String, String)> {
    if !many.is_empty() {
        return many
            .into_iter()
            .map(|(name, dir)| (name, format!("index_dir = {dir:?}")))
            .collect();
    }
    let location = match (
        std::env::var("BOT_LOAD_MEILI_URL"),
        std::env::var("BOT_LOAD_INDEX"),
    ) {
        (Ok(url), _) => {
            let repo = std::env::var("BOT_LOAD_MEILI_REPO").expect("BOT_LOAD_MEILI_REPO");
            let opt = |var: &str, key: &str| {
                std::env::var(var)
                    .map(|v| format!(", {key} = {v:?}"))
                    .unwrap_or_default()
            };
            // cache_dir: where the view tables are kept across runs (a second run is a restart).
            format!(
                "meilisearch = {{ url = {url:?}, repo = {repo:?}{}{}{} }}",
                opt("BOT_LOAD_MEILI_KEY_ENV", "key_env"),
                opt("BOT_LOAD_MEILI_PREFIX", "prefix"),
                opt("BOT_LOAD_MEILI_CACHE_DIR", "cache_dir")
            )
        }
        (_, Ok(idx)) => format!("index_dir = {idx:?}"),
        _ => panic!("set BOT_LOAD_INDEX (an index folder), BOT_LOAD_INDEXES or BOT_LOAD_MEILI_URL"),
    };
    vec![("bench".to_string(), location)]
}

/// The bot's configuration: the repositories, every channel scoped to all of them, limits that
/// never refuse the load.
fn config_text(
    repos: &[(String, String)],
    workers: usize,
    channels: usize,
    n: usize,
    concurrency: usize,
) -> String {
    // Unset: the bot's default (an embedded index preloaded, a team index searched on the server).
    let preload_key = std::env::var("BOT_LOAD_PRELOAD")
        .map(|v| format!("preload = {}\n", v != "0"))
        .unwrap_or_default();
    let mut text = String::new();
    for (name, location) in repos {
        text.push_str(&format!(
            "[[repositories]]\nname = {name:?}\n{location}\nworkers = {workers}\n{preload_key}\n"
        ));
    }
    let names: Vec<String> = repos.iter().map(|(n, _)| format!("{n:?}")).collect();
    text.push_str("[scopes.slack]\n");
    for c in 0..channels {
        text.push_str(&format!("C{c} = [{}]\n", names.join(", ")));
    }
    text.push_str(&format!(
        "[limits]\nquestions_per_minute = 100000\nburst = 100000\nqueue = {}\nconcurrency = {concurrency}\n",
        (n * 2).max(64)
    ));
    text
}

/// As `codemap bot` sets it for a team index (src/main.rs, `team_index_allocator`): freed memory
/// goes back to the system after 10 ms (`mi_option_purge_delay`, 15 in mimalloc.h).
fn team_index_allocator() {
    if std::env::var_os("BOT_LOAD_MEILI_URL").is_some()
        && std::env::var_os("MIMALLOC_PURGE_DELAY").is_none()
    {
        // SAFETY: sets one integer option; mimalloc reads options atomically.
        unsafe { libmimalloc_sys::mi_option_set(15, 10) };
    }
}

/// One question per warm reader opens its view (not counted): how long the first answers took,
/// and how many were delivered.
async fn warm_up(
    running: &Running,
    sender: &RecordingSender,
    workers: usize,
    questions: &[String],
) -> (Duration, usize) {
    let cold = Instant::now();
    for w in 0..workers {
        let text = &questions[w % questions.len()];
        running
            .inbox
            .submit(question(0, 9999, &format!("warm{w}"), text));
    }
    sender.wait_for(workers, Duration::from_secs(600)).await;
    (cold.elapsed(), sender.delivered().len())
}

/// Waits for every repository's background preload (graph, rows and text in memory), so the
/// load starts after it: how long that took.
async fn await_preload(service: &Arc<query::Service>, repos: &[(String, String)]) -> Duration {
    let preloading = Instant::now();
    let scope = query::Scope::of(repos.iter().map(|(n, _)| n.clone()));
    for (name, _) in repos {
        while preloading.elapsed() < Duration::from_secs(600) {
            let (s, sc, name) = (service.clone(), scope.clone(), name.clone());
            let done = tokio::task::spawn_blocking(move || s.status(&sc, &name))
                .await
                .ok()
                .and_then(Result::ok)
                .is_some_and(|st| st.preloaded);
            if done {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    preloading.elapsed()
}

/// The questions as submitted: when each accepted event went in, and how many were refused.
struct Load {
    submitted: HashMap<String, Instant>,
    refused: usize,
    started: Instant,
}

/// `n` questions from `channels` channels, all at once or `rate` a second.
async fn submit_load(
    running: &Running,
    questions: &[String],
    n: usize,
    channels: usize,
    rate: usize,
) -> Load {
    let mut load = Load {
        submitted: HashMap::new(),
        refused: 0,
        started: Instant::now(),
    };
    for i in 0..n {
        if rate > 0 {
            let due = load.started + Duration::from_secs_f64(i as f64 / rate as f64);
            tokio::time::sleep_until(due.into()).await;
        }
        let ev = format!("Ev{i}");
        let q = question(i % channels, i, &ev, &questions[i % questions.len()]);
        let at = Instant::now();
        match running.inbox.submit(q) {
            Submitted::Accepted => {
                load.submitted.insert(ev, at);
            }
            _ => load.refused += 1,
        }
    }
    load
}

/// Every fifth question re-sent with the same event id, as a platform retry would: how many
/// the inbox accepted (want 0).
fn resend_retries(running: &Running, questions: &[String], n: usize, channels: usize) -> usize {
    (0..n)
        .step_by(5)
        .filter(|&i| {
            let ev = format!("Ev{i}");
            let q = question(i % channels, i, &ev, &questions[i % questions.len()]);
            running.inbox.submit(q) == Submitted::Accepted
        })
        .count()
}

/// What the load's replies came to.
#[derive(Default)]
struct Tally {
    /// Submit to delivery, sorted.
    latencies: Vec<Duration>,
    answers: usize,
    errors: usize,
    /// Answers to questions whose repository is said, and those cited from it first.
    placed: usize,
    right: usize,
    lost: usize,
    duplicated: usize,
}

fn tally(
    delivered: &[Delivered],
    submitted: &HashMap<String, Instant>,
    asked: &[(Option<String>, String)],
    several: bool,
) -> Tally {
    let mut t = Tally::default();
    let mut per_event: HashMap<String, usize> = HashMap::new();
    for d in delivered {
        let ev = d.question.event_id.clone();
        *per_event.entry(ev.clone()).or_default() += 1;
        if let Some(at) = submitted.get(&ev) {
            t.latencies.push(d.at.duration_since(*at));
        }
        let want = ev
            .strip_prefix("Ev")
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| asked[i % asked.len()].0.as_deref());
        match &d.reply {
            Reply::Answer(a) => {
                t.answers += 1;
                if let Some(want) = want {
                    t.placed += 1;
                    let from = first_repository(a, several);
                    t.right += usize::from(from == Some(want));
                    if from != Some(want) && std::env::var_os("BOT_LOAD_MISSES").is_some() {
                        eprintln!("miss: want {want}, first {from:?}: {}", d.question.text);
                    }
                }
            }
            _ => t.errors += 1,
        }
    }
    t.latencies.sort();
    t.lost = submitted
        .keys()
        .filter(|e| !per_event.contains_key(*e))
        .count();
    t.duplicated = per_event.values().filter(|&&c| c > 1).count();
    t
}

/// Every question asked with each distinct reply it got (JSON), one line each, sorted.
fn write_answers(path: &str, delivered: &[Delivered]) {
    let mut lines: Vec<String> = delivered
        .iter()
        .map(|d| {
            let reply = serde_json::to_string(&d.reply).unwrap_or_default();
            format!("{}\t{reply}", d.question.text)
        })
        .collect();
    lines.sort();
    lines.dedup();
    std::fs::write(path, lines.join("\n") + "\n").unwrap_or_else(|e| panic!("writing {path}: {e}"));
}

/// CPU seconds of this process and of the search server, when it runs here.
fn cpu_now(server: Option<&str>) -> (Option<f64>, Option<f64>) {
    (cpu_seconds("self"), server.and_then(cpu_seconds))
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("CODEMAP_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_timer(tracing_subscriber::fmt::time::uptime())
            .init();
    }
    let n = env("BOT_LOAD_N", 50);
    let channels = env("BOT_LOAD_CHANNELS", 10).max(1);
    let many = named_indexes();
    let workers = env("BOT_LOAD_WORKERS", if many.is_empty() { 4 } else { 1 });
    let concurrency = env("BOT_LOAD_CONCURRENCY", 8);
    let rate = env("BOT_LOAD_RATE", 0);
    // The search server's process, when it runs on this machine: its CPU during the load.
    let server = std::env::var("BOT_LOAD_SERVER_PID").ok();
    let asked = read_questions();
    let questions: Vec<String> = asked.iter().map(|(_, q)| q.clone()).collect();
    let repos = repositories(many);
    team_index_allocator();
    let text = config_text(&repos, workers, channels, n, concurrency);
    let config = Arc::new(Config::parse(&text, "bot_load").unwrap_or_else(|e| panic!("{e}")));
    let preload = config.service_repos()[0].preload;
    let service = Arc::new(query::Service::start(config.service_repos(), None));
    let core = Arc::new(Core::new(config, service.clone()));
    let sender = Arc::new(RecordingSender::new(Platform::Slack));
    let dedupe = Arc::new(bot::dedupe::Dedupe::in_memory(
        Duration::from_secs(8 * 3600),
        100_000,
    ));
    let running = Running::start(
        core,
        vec![sender.clone() as Arc<dyn bot::platform::ChatSender>],
        dedupe,
    );

    let (cold, warm_count) = warm_up(&running, &sender, workers.max(1), &questions).await;
    let preloading = match preload {
        true => Some(await_preload(&service, &repos).await),
        false => None,
    };
    let load = submit_load(&running, &questions, n, channels, rate).await;
    let cpu_before = cpu_now(server.as_deref());
    let retries_accepted = resend_retries(&running, &questions, n, channels);
    sender
        .wait_for(warm_count + load.submitted.len(), Duration::from_secs(600))
        .await;
    let wall = load.started.elapsed();
    let cpu_after = cpu_now(server.as_deref());
    // Anything late or doubled would arrive now.
    tokio::time::sleep(Duration::from_millis(300)).await;
    running.shutdown().await;
    let delivered = sender.delivered();
    if let Ok(path) = std::env::var("BOT_LOAD_ANSWERS") {
        write_answers(&path, &delivered);
    }
    let t = tally(
        &delivered[warm_count.min(delivered.len())..],
        &load.submitted,
        &asked,
        repos.len() > 1,
    );

    let arrivals = match rate {
        0 => "all at once".to_string(),
        r => format!("{r}/s evenly spaced"),
    };
    println!(
        "bot load: {n} questions from {channels} channels ({arrivals}), {} repositories, {workers} query workers each, {concurrency} in flight",
        repos.len()
    );
    println!(
        "  cold start (first {} answers): {:.0} ms",
        workers.max(1),
        cold.as_secs_f64() * 1000.0
    );
    if let Some(preloading) = preloading {
        println!(
            "  preload (graph, rows and text in memory) done {:.0} ms after that",
            preloading.as_secs_f64() * 1000.0
        );
    }
    let lat = &t.latencies;
    println!(
        "  submit -> delivered: p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms; all {n} in {:.0} ms ({:.1} answers/s)",
        pct(lat, 0.50),
        pct(lat, 0.95),
        pct(lat, 1.0),
        wall.as_secs_f64() * 1000.0,
        lat.len() as f64 / wall.as_secs_f64()
    );
    let per_answer = |before: Option<f64>, after: Option<f64>| {
        Some((after? - before?) * 1000.0 / lat.len().max(1) as f64)
    };
    if let Some(bot) = per_answer(cpu_before.0, cpu_after.0) {
        let server = per_answer(cpu_before.1, cpu_after.1)
            .map(|ms| format!(", server {ms:.1} ms"))
            .unwrap_or_default();
        println!("  CPU per answer during the load: this process {bot:.1} ms{server}");
    }
    println!(
        "  replies: {} answers, {} errors; lost {}, duplicated {}, refused {}, retries accepted {retries_accepted} (want 0)",
        t.answers, t.errors, t.lost, t.duplicated, load.refused
    );
    if t.placed > 0 {
        println!(
            "  first citation from the repository that holds the question: {} of {} answers ({} repositories asked each time)",
            t.right,
            t.placed,
            repos.len()
        );
    }
    println!("  peak RSS: {:.0} MB", peak_rss_mb());
    if t.lost > 0 || t.duplicated > 0 || retries_accepted > 0 {
        std::process::exit(1);
    }
}

/// The repository of an answer's first citation: named in its label (`repo · path:lines`) when
/// several were asked, else the one repository.
fn first_repository(a: &bot::model::AnswerReply, several: bool) -> Option<&str> {
    let first = a.citations.first()?;
    if several {
        first.label.split_once(" · ").map(|(r, _)| r)
    } else {
        Some("bench")
    }
}

/// CPU time (user + system) of process `pid` (`self` for this one) so far, in seconds; Linux
/// only (`None` elsewhere, or when the process is gone).
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // USER_HZ is 100 on every Linux this runs on.
    Some(ticks / 100.0)
}
