//! Fixture repositories indexed for real, and a bot core running over them with recording
//! senders.

#![allow(dead_code)]

use bot::model::{Conversation, Delivery, Platform, Question, Reply};
use bot::testing::RecordingSender;
use bot::{Config, Core, Running};
use indexer::pipeline::{self, IndexOptions};
use indexer::store::IndexDir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

pub fn shop_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/shop")
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

/// Commits the tree when git is present, so the index records a commit and links are built.
fn git_commit(root: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    git(&["init", "-q"])?;
    git(&["add", "-A"])?;
    git(&["commit", "-qm", "fixture"])?;
    let out = git(&["rev-parse", "HEAD"])?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A repository copied into `root`, committed and indexed into `root/.codemap`.
pub struct Repo {
    pub root: PathBuf,
    pub index: PathBuf,
    pub commit: Option<String>,
}

pub fn index(root: &Path) -> Repo {
    let commit = git_commit(root);
    let dir = IndexDir::new(root.join(".codemap"));
    pipeline::run(root, &dir, &IndexOptions::default(), &|_| {}).expect("the fixture indexes");
    Repo {
        root: root.to_path_buf(),
        index: root.join(".codemap"),
        commit,
    }
}

pub fn shop(tmp: &Path) -> Repo {
    let root = tmp.join("shop");
    copy_dir(&shop_fixture(), &root);
    index(&root)
}

/// A second small Java repository whose names overlap the shop's (a `deductStock` of its own),
/// so a scope leak would show in the citations.
pub fn billing(tmp: &Path) -> Repo {
    let root = tmp.join("billing");
    let files = [
        (
            "src/main/java/com/billing/Ledger.java",
            "package com.billing;\n\n/** The ledger of stock bought on credit. */\npublic class Ledger {\n    private int held;\n\n    /** Deducts stock from the credit ledger. */\n    public void deductStock(String sku, int qty) {\n        held -= qty;\n    }\n}\n",
        ),
        (
            "src/main/java/com/billing/InvoiceService.java",
            "package com.billing;\n\n/** Invoices. */\npublic class InvoiceService {\n    private final Ledger ledger = new Ledger();\n\n    /** Bills a sale and deducts the stock on credit. */\n    public void billSale(String sku, int qty) {\n        ledger.deductStock(sku, qty);\n    }\n}\n",
        ),
    ];
    for (p, text) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    index(&root)
}

/// A configuration over the given repositories (`name`, repo) with `extra` TOML appended.
pub fn config(repos: &[(&str, &Repo)], extra: &str) -> Config {
    let mut text = String::new();
    for (name, r) in repos {
        text.push_str(&format!(
            "[[repositories]]\nname = \"{name}\"\nindex_dir = {:?}\nlink = {{ kind = \"github\", base = \"https://github.com/acme/{name}\" }}\n\n",
            r.index.display().to_string()
        ));
    }
    text.push_str(extra);
    Config::parse(&text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A real Meilisearch server from `MEILI_URL` (and `MEILI_MASTER_KEY`), with index names of this
/// test's own (`t<pid>_<n>_`), so parallel tests and runs never see each other's documents.
pub struct Meili {
    pub url: String,
    pub key: Option<String>,
    pub prefix: String,
}

impl Meili {
    /// `None` (after saying `SKIPPED: <test>: …` on stderr) when no server is configured.
    pub fn from_env(test: &str) -> Option<Meili> {
        let Ok(url) = std::env::var("MEILI_URL") else {
            indexer::testing::skip(
                "meilisearch",
                &format!(
                    "{test}: MEILI_URL is not set (set MEILI_URL and MEILI_MASTER_KEY to run it against a real Meilisearch server)"
                ),
            );
            return None;
        };
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(Meili {
            url,
            key: std::env::var("MEILI_MASTER_KEY").ok(),
            prefix: format!("t{}_{n}_bot_", std::process::id()),
        })
    }

    /// Publishes `repo`'s embedded index to the server under repository name `name`, as
    /// `codemap index --backend meilisearch` does; the store is for dropping the indexes after.
    pub fn publish(&self, repo: &Repo, name: &str) -> indexer::store::meilisearch::MeiliStore {
        use indexer::store::meilisearch::{MeiliConfig, MeiliStore};
        let store = MeiliStore::connect(MeiliConfig::new(
            &self.url,
            self.key.clone(),
            &self.prefix,
            name,
        ))
        .expect("connecting to MEILI_URL");
        let catalog =
            indexer::store::catalog::Catalog::open_read(&IndexDir::new(&repo.index).catalog())
                .unwrap();
        store.publish(&catalog).expect("publishing to Meilisearch");
        store
    }

    /// A configuration over the published repositories `names` (links to github.com/acme/NAME),
    /// with `extra` TOML appended; the key is read from `MEILI_MASTER_KEY`, as an operator would.
    pub fn config(&self, names: &[&str], extra: &str) -> Config {
        let key = match self.key {
            Some(_) => ", key_env = \"MEILI_MASTER_KEY\"",
            None => "",
        };
        let mut text = String::new();
        for name in names {
            text.push_str(&format!(
                "[[repositories]]\nname = \"{name}\"\nmeilisearch = {{ url = {:?}, prefix = {:?}{key} }}\nlink = {{ kind = \"github\", base = \"https://github.com/acme/{name}\" }}\n\n",
                self.url, self.prefix
            ));
        }
        text.push_str(extra);
        Config::parse(&text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
    }
}

/// A running core with a recording Slack sender.
pub struct Bot {
    pub running: Running,
    pub slack: Arc<RecordingSender>,
    pub core: Arc<Core>,
}

pub fn start(config: Config, dedupe: Arc<bot::dedupe::Dedupe>) -> Bot {
    let config = Arc::new(config);
    let service = Arc::new(query::Service::start(config.service_repos(), None));
    let core = Arc::new(Core::new(config, service));
    let slack = Arc::new(RecordingSender::new(Platform::Slack));
    let running = Running::start(
        core.clone(),
        vec![slack.clone() as Arc<dyn bot::platform::ChatSender>],
        dedupe,
    );
    Bot {
        running,
        slack,
        core,
    }
}

pub fn memory_dedupe() -> Arc<bot::dedupe::Dedupe> {
    Arc::new(bot::dedupe::Dedupe::in_memory(
        Duration::from_secs(8 * 3600),
        10_000,
    ))
}

pub fn question(
    channel: &str,
    thread: Option<&str>,
    user: &str,
    event: &str,
    text: &str,
) -> Question {
    Question {
        conversation: Conversation {
            platform: Platform::Slack,
            workspace: "T1".into(),
            channel: channel.into(),
            thread: thread.map(String::from),
            user: user.into(),
            direct: false,
        },
        text: text.into(),
        event_id: event.into(),
        delivery: Delivery::Post,
    }
}

pub const WAIT: Duration = Duration::from_secs(60);

/// The answer of a reply, or a panic naming what came instead.
pub fn answer(r: &Reply) -> &bot::model::AnswerReply {
    match r {
        Reply::Answer(a) => a,
        other => panic!("expected an answer, got {other:?}"),
    }
}

/// The cited symbols of an answer.
pub fn symbols(a: &bot::model::AnswerReply) -> Vec<String> {
    a.citations
        .iter()
        .filter_map(|c| c.symbol.clone())
        .collect()
}

/// Every citation and chain step names a file of `repo` and lines inside it; every link points
/// at the repository's host at the indexed commit.
/// Checks an answer across repositories: every citation is labelled `repo · path:lines`, names a
/// repository of `repos` and resolves (and links) in it; the chain is the best repository's.
/// Returns the repositories cited, sorted, each once.
pub fn assert_resolves_across(a: &bot::model::AnswerReply, repos: &[(&str, &Repo)]) -> Vec<String> {
    let mut cited = Vec::new();
    for c in &a.citations {
        let (name, label) = c.label.split_once(" · ").expect("repo · path:lines");
        let repo = repos
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} is not a repository of the scope"))
            .1;
        let one = bot::model::AnswerReply {
            repo: name.to_string(),
            summary: String::new(),
            chain: vec![],
            citations: vec![bot::model::CodeLink {
                label: label.to_string(),
                ..c.clone()
            }],
            notes: vec![],
            freshness: String::new(),
        };
        assert_resolves(&one, repo, name);
        cited.push(name.to_string());
    }
    let best = a.repo.split(' ').next().unwrap();
    if let Some((_, repo)) = repos.iter().find(|(n, _)| *n == best) {
        let chain = bot::model::AnswerReply {
            citations: vec![],
            ..a.clone()
        };
        assert_resolves(&chain, repo, best);
    }
    cited.sort();
    cited.dedup();
    cited
}

pub fn assert_resolves(a: &bot::model::AnswerReply, repo: &Repo, name: &str) {
    let links = a.citations.iter().chain(a.chain.iter().map(|c| &c.link));
    for c in links {
        let (path, lines) = c.label.rsplit_once(':').expect("path:lines");
        let (start, end) = match lines.split_once('-') {
            Some((s, e)) => (s.parse::<usize>().unwrap(), e.parse::<usize>().unwrap()),
            None => (lines.parse().unwrap(), lines.parse().unwrap()),
        };
        let text = std::fs::read_to_string(repo.root.join(path))
            .unwrap_or_else(|_| panic!("cited {path} is not a file of {name}"));
        let n = text.lines().count();
        assert!(
            1 <= start && start <= end && end <= n,
            "{} outside 1..={n}",
            c.label
        );
        match (&repo.commit, &c.url) {
            (Some(commit), Some(url)) => assert_eq!(
                url,
                &format!(
                    "https://github.com/acme/{name}/blob/{commit}/{path}#L{start}{}",
                    if start == end {
                        String::new()
                    } else {
                        format!("-L{end}")
                    }
                )
            ),
            (Some(_), None) => panic!("{} has no link though the index has a commit", c.label),
            (None, url) => assert_eq!(url, &None),
        }
    }
}
