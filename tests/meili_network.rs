//! Past one machine: two real Meilisearch instances joined by the `network` feature, a
//! repository published to each by the `codemap` binary, and one federated search through the
//! first reaching both (indexer's store/meilisearch/network.rs).
//!
//! Needs two servers: `MEILI_URL` (instance a, the one asked) and `MEILI_URL_2` (instance b),
//! with `MEILI_MASTER_KEY` (and `MEILI_MASTER_KEY_2` when b's differs). On loopback both must
//! be started with `--experimental-allowed-ip-networks 127.0.0.0/8`: by default Meilisearch
//! refuses to send a remote search to a private or loopback address ("Rejected IP").

mod support;
use indexer::store::meilisearch::network::{
    self, ChunkQuery, Endpoint, FederatedHits, NetworkError, Remote, Target,
};
use std::collections::BTreeMap;
use std::path::Path;
use support::*;

/// The tests change the instances' network: one at a time.
static NETWORK: std::sync::Mutex<()> = std::sync::Mutex::new(());

struct Two {
    a: Endpoint,
    b: Endpoint,
    prefix: String,
}

impl Two {
    fn from_env(test: &str) -> Option<Two> {
        let (Ok(a), Ok(b)) = (std::env::var("MEILI_URL"), std::env::var("MEILI_URL_2")) else {
            indexer::testing::skip(
                "meilisearch",
                &format!(
                    "{test}: MEILI_URL and MEILI_URL_2 are not both set (two servers started with --experimental-allowed-ip-networks 127.0.0.0/8)"
                ),
            );
            return None;
        };
        let key = std::env::var("MEILI_MASTER_KEY").ok();
        let key_b = std::env::var("MEILI_MASTER_KEY_2").ok().or(key.clone());
        Some(Two {
            a: Endpoint { url: a, key },
            b: Endpoint { url: b, key: key_b },
            prefix: format!("t{}_net_", std::process::id()),
        })
    }

    /// Indexes `repo` and publishes it as `name` to the instance `to`, through the binary.
    fn publish(&self, to: &Endpoint, repo: &Path, name: &str) {
        let o = codemap()
            .arg("--index-dir")
            .arg(repo.join(".codemap"))
            .args(["--backend", "meilisearch", "--meili-url", &to.url])
            .args(["--meili-key-env", "CODEMAP_TEST_NET_KEY"])
            .args(["--meili-prefix", &self.prefix, "--repo-name", name])
            .args(["index", repo.to_str().unwrap(), "--quiet"])
            .env("CODEMAP_TEST_NET_KEY", to.key.clone().unwrap_or_default())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }

    /// The network {a, b} with b at `b_url`, set on a (and on b, which must allow remote
    /// searches too).
    fn join(&self, b_url: &str) {
        let remote = |e: &Endpoint, url: &str| Remote {
            url: url.to_string(),
            search_key: e.key.clone().unwrap_or_default(),
        };
        let remotes: BTreeMap<String, Remote> = [
            ("a".to_string(), remote(&self.a, &self.a.url)),
            ("b".to_string(), remote(&self.b, b_url)),
        ]
        .into();
        let names = network::configure(&self.a, "a", &remotes).expect("a joins");
        assert_eq!(names, ["a", "b"]);
        network::configure(&self.b, "b", &remotes).expect("b joins");
    }

    fn chunks(&self, target: Target, repo: &str, text: &str, wanted: usize) -> ChunkQuery {
        ChunkQuery::repository(target, &self.prefix, repo, text, wanted)
    }
}

impl Drop for Two {
    fn drop(&mut self) {
        for (e, repo) in [(&self.a, "shop"), (&self.b, "pyshop")] {
            let cfg = indexer::store::meilisearch::MeiliConfig::new(
                &e.url,
                e.key.clone(),
                &self.prefix,
                repo,
            );
            if let Ok(s) = indexer::store::meilisearch::MeiliStore::connect(cfg) {
                let _ = s.drop_indexes();
            }
        }
    }
}

/// Every hit of `list` names a file of `repo` with the extension `ext`.
fn all_in(list: &[network::ChunkHit], repo: &Path, ext: &str) {
    for h in list {
        assert!(h.path.ends_with(ext), "{} is not a {ext} file", h.path);
        assert!(
            repo.join(&h.path).is_file(),
            "{} is not in {}",
            h.path,
            repo.display()
        );
    }
}

fn paths(h: &FederatedHits, i: usize) -> Vec<&str> {
    h.per_query[i].iter().map(|h| h.path.as_str()).collect()
}

#[test]
#[ignore = "needs two Meilisearch servers: MEILI_URL=… MEILI_URL_2=… [MEILI_MASTER_KEY=…] cargo test --test meili_network -- --include-ignored"]
fn one_federated_search_through_a_reaches_both_instances_and_names_a_stopped_one() {
    let Some(two) = Two::from_env("one_federated_search_through_a_reaches_both_instances") else {
        return;
    };
    let _one = NETWORK.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let shop = tmp.path().join("shop");
    copy_shop(&shop);
    let pyshop = tmp.path().join("pyshop");
    copy_fixture("pyshop", &pyshop);
    two.publish(&two.a, &shop, "shop");
    two.publish(&two.b, &pyshop, "pyshop");
    two.join(&two.b.url);

    // One request through a: shop's chunks on a, pyshop's on b.
    let queries = [
        two.chunks(Target::Local, "shop", "order", 5),
        two.chunks(Target::Remote("b".into()), "pyshop", "order", 5),
    ];
    let got = network::federated_chunks(&two.a, &queries).unwrap();
    assert!(got.failed.is_empty(), "{:?}", got.failed);
    assert!(!got.per_query[0].is_empty() && !got.per_query[1].is_empty());
    assert!(got.per_query.iter().all(|l| l.len() <= 5));
    all_in(&got.per_query[0], &shop, ".java");
    all_in(&got.per_query[1], &pyshop, ".py");

    // One limit for the whole request: shop matches every word of its query, pyshop one word of
    // two (Meilisearch drops the last word), so shop's hits outrank pyshop's and
    // fill it; pyshop's list is asked again and comes back as it is asked alone.
    let crowded = [
        two.chunks(Target::Local, "shop", "order", 3),
        two.chunks(Target::Remote("b".into()), "pyshop", "order qqzzx", 3),
    ];
    let got = network::federated_chunks(&two.a, &crowded).unwrap();
    let alone = network::federated_chunks(&two.a, &crowded[1..]).unwrap();
    assert_eq!(got.requests, 2, "the first list was full and cut pyshop's");
    assert_eq!(got.per_query[0].len(), 3);
    assert_eq!(paths(&got, 1), paths(&alone, 0));
    assert_eq!(got.per_query[1].len(), 3);

    // A remote name a does not know fails the request, naming it.
    let unknown = [two.chunks(Target::Remote("zz".into()), "pyshop", "order", 3)];
    match network::federated_chunks(&two.a, &unknown) {
        Err(NetworkError::Refused { code, message, .. }) => {
            assert_eq!(code, "invalid_multi_search_remote");
            assert!(message.contains("`zz`"), "{message}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }

    // b stopped (a now reaches nothing at b's address): a's hits, and b named as failed.
    two.join(&format!("http://127.0.0.1:{}", free_port()));
    let got = network::federated_chunks(&two.a, &queries).unwrap();
    assert!(!got.per_query[0].is_empty());
    all_in(&got.per_query[0], &shop, ".java");
    assert!(got.per_query[1].is_empty());
    let b = got.failed.get("b").expect("b is named as failed");
    assert_eq!(b.code, "remote_could_not_send_request", "{b:?}");
    assert!(got.query_failed(&queries, 1) && !got.query_failed(&queries, 0));
    assert_eq!(got.requests, 1, "a failed remote is not asked again");

    // The instance asked being down is an error naming it, never a panic.
    let dead = Endpoint {
        url: format!("http://127.0.0.1:{}", free_port()),
        key: None,
    };
    let e = network::federated_chunks(&dead, &queries).unwrap_err();
    assert!(e.to_string().contains(&dead.url), "{e}");
    two.join(&two.b.url);
}

/// The bot configuration of the two instances: shop on a, pyshop on b, asked through a.
fn bot_config(two: &Two) -> String {
    format!(
        r#"
[[repositories]]
name = "shop"
meilisearch = {{ url = "{a}", prefix = "{p}", key_env = "NET_A_KEY", remote = "a" }}

[[repositories]]
name = "pyshop"
meilisearch = {{ url = "{b}", prefix = "{p}", key_env = "NET_B_KEY", remote = "b" }}

[meilisearch_network]
via = "a"
remotes.a = {{ url = "{a}", search_key_env = "NET_A_KEY", admin_key_env = "NET_A_KEY" }}
remotes.b = {{ url = "{b}", search_key_env = "NET_B_KEY", admin_key_env = "NET_B_KEY" }}
"#,
        a = two.a.url,
        b = two.b.url,
        p = two.prefix
    )
}

#[test]
#[ignore = "needs two Meilisearch servers: MEILI_URL=… MEILI_URL_2=… [MEILI_MASTER_KEY=…] cargo test --test meili_network -- --include-ignored"]
fn the_bot_joins_the_network_and_its_check_names_a_stopped_instance() {
    let Some(two) = Two::from_env("the_bot_joins_the_network") else {
        return;
    };
    let _one = NETWORK.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let shop = tmp.path().join("shop");
    copy_shop(&shop);
    let pyshop = tmp.path().join("pyshop");
    copy_fixture("pyshop", &pyshop);
    two.publish(&two.a, &shop, "shop");
    two.publish(&two.b, &pyshop, "pyshop");
    let config = tmp.path().join("bot.toml");
    std::fs::write(&config, bot_config(&two)).unwrap();
    let bot = |flag: &str| {
        codemap()
            .args(["bot", "--config", config.to_str().unwrap(), flag])
            .env("NET_A_KEY", two.a.key.clone().unwrap_or_default())
            .env("NET_B_KEY", two.b.key.clone().unwrap_or_default())
            .output()
            .unwrap()
    };
    let o = bot("--join-network");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(
        out.contains("instance a (") && out.contains("instance b ("),
        "{out}"
    );
    let o = bot("--check");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout(&o).contains("one federated search through a reached a, b (shop, pyshop)"),
        "{}",
        stdout(&o)
    );

    // b stopped, as a sees it: the start is refused, naming b.
    two.join(&format!("http://127.0.0.1:{}", free_port()));
    let o = bot("--check");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("meilisearch_network.remotes.b: searched through a: error sending request (remote_could_not_send_request)"),
        "{err}"
    );
    assert!(
        !err.contains(two.a.key.as_deref().unwrap_or("\u{0}")),
        "no key in errors"
    );
    two.join(&two.b.url);
}

/// A Meilisearch instance this test starts from `MEILI_BIN` and stops.
struct Owned {
    child: std::process::Child,
    url: String,
    _db: tempfile::TempDir,
}

impl Owned {
    fn start(bin: &str, key: &str) -> Owned {
        let db = tempfile::tempdir().unwrap();
        let port = free_port();
        let child = std::process::Command::new(bin)
            .arg("--db-path")
            .arg(db.path().join("data.ms"))
            .args(["--master-key", key, "--no-analytics"])
            .args(["--http-addr", &format!("127.0.0.1:{port}")])
            .args(["--experimental-allowed-ip-networks", "127.0.0.0/8"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("MEILI_BIN starts");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "{bin} did not listen");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Owned {
            child,
            url: format!("http://127.0.0.1:{port}"),
            _db: db,
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Instance a at `a`, an instance b this test starts from `bin`, joined into a network, with
/// the shop fixture published to a and pyshop to b under index names of `tag`.
fn published_with_owned_b(a: String, bin: &str, tag: &str) -> (Two, Owned, tempfile::TempDir) {
    let b_key = "codemap-test-b-0123456789abcdef";
    let b = Owned::start(bin, b_key);
    let two = Two {
        a: Endpoint {
            url: a,
            key: std::env::var("MEILI_MASTER_KEY").ok(),
        },
        b: Endpoint {
            url: b.url.clone(),
            key: Some(b_key.to_string()),
        },
        prefix: format!("t{}_{tag}_", std::process::id()),
    };
    let tmp = tempfile::tempdir().unwrap();
    let shop = tmp.path().join("shop");
    copy_shop(&shop);
    let pyshop = tmp.path().join("pyshop");
    copy_fixture("pyshop", &pyshop);
    two.publish(&two.a, &shop, "shop");
    two.publish(&two.b, &pyshop, "pyshop");
    two.join(&two.b.url);
    (two, b, tmp)
}

#[test]
#[ignore = "needs a Meilisearch server and a Meilisearch binary to start and stop: MEILI_URL=… MEILI_BIN=… [MEILI_MASTER_KEY=…] cargo test --test meili_network -- --include-ignored"]
fn an_instance_really_stopped_is_named_and_the_other_still_answers() {
    let (Ok(a), Ok(bin)) = (std::env::var("MEILI_URL"), std::env::var("MEILI_BIN")) else {
        indexer::testing::skip(
            "meilisearch",
            "an_instance_really_stopped_is_named: MEILI_URL and MEILI_BIN are not both set",
        );
        return;
    };
    let _one = NETWORK.lock().unwrap_or_else(|e| e.into_inner());
    let (two, mut b, _tmp) = published_with_owned_b(a, &bin, "netstop");
    let queries = [
        two.chunks(Target::Local, "shop", "order", 5),
        two.chunks(Target::Remote("b".into()), "pyshop", "order", 5),
    ];
    let both = network::federated_chunks(&two.a, &queries).unwrap();
    assert!(both.failed.is_empty() && both.per_query.iter().all(|l| !l.is_empty()));

    b.stop();
    let got = network::federated_chunks(&two.a, &queries).unwrap();
    assert_eq!(
        got.per_query[0], both.per_query[0],
        "a's hits are unchanged"
    );
    assert!(got.per_query[1].is_empty());
    assert_eq!(
        got.failed.get("b").map(|f| f.code.as_str()),
        Some("remote_could_not_send_request")
    );
}

/// `path:lines` labels of a Slack reply, each with the repository it names (`repo · path:lines`).
fn cited_repos(post: &serde_json::Value) -> Vec<String> {
    let text = post.to_string();
    let mut repos: Vec<String> = text
        .split('`')
        .filter_map(|t| t.split_once(" · ").map(|(r, _)| r.to_string()))
        .filter(|r| !r.contains(' '))
        .collect();
    repos.sort();
    repos.dedup();
    repos
}

/// Through `codemap bot` (Socket Mode, the Slack stand-in) over two repositories on two
/// instances, searched on the servers: a question is answered from both, each citation naming
/// its repository; with one instance stopped the next question is answered from the other, and
/// the reply says which repository was left out.
#[test]
#[ignore = "needs a Meilisearch server and a Meilisearch binary to start and stop: MEILI_URL=… MEILI_BIN=… [MEILI_MASTER_KEY=…] cargo test --test meili_network -- --include-ignored"]
fn a_bot_over_two_instances_answers_from_both_and_says_when_one_is_left_out() {
    use support::slack_standin::{self as slack, SlackStandin};
    let (Ok(a), Ok(bin)) = (std::env::var("MEILI_URL"), std::env::var("MEILI_BIN")) else {
        indexer::testing::skip(
            "meilisearch",
            "a_bot_over_two_instances: MEILI_URL and MEILI_BIN are not both set",
        );
        return;
    };
    let _one = NETWORK.lock().unwrap_or_else(|e| e.into_inner());
    let (two, mut b, tmp) = published_with_owned_b(a, &bin, "netbot");

    let standin = SlackStandin::start();
    let cfg = tmp.path().join("bot.toml");
    let text = format!(
        "listen = \"127.0.0.1:{}\"\nstate_dir = {:?}\n{}\
         [scopes.slack]\nC1 = [\"shop\", \"pyshop\"]\n\
         [platforms.slack]\nconnection = \"websocket\"\napp_token_env = \"NET_SLACK_APP\"\n\
         bot_token_env = \"NET_SLACK_BOT\"\napi_base = {:?}\n",
        free_port(),
        tmp.path().join("state").display().to_string(),
        // Searched on the servers: a stopped instance is noticed, not answered from a copy.
        bot_config(&two)
            .replace("remote = \"a\" }\n", "remote = \"a\" }\npreload = false\n")
            .replace("remote = \"b\" }\n", "remote = \"b\" }\npreload = false\n"),
        standin.api
    );
    std::fs::write(&cfg, text).unwrap();
    let mut bot = codemap()
        .args(["bot", "--config", cfg.to_str().unwrap()])
        .env("NET_A_KEY", two.a.key.clone().unwrap_or_default())
        .env("NET_B_KEY", two.b.key.clone().unwrap_or_default())
        .env("NET_SLACK_APP", slack::APP_TOKEN)
        .env("NET_SLACK_BOT", slack::BOT_TOKEN)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    struct Kill<'a>(&'a mut std::process::Child);
    impl Drop for Kill<'_> {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _bot = Kill(&mut bot);
    assert!(
        standin.wait(std::time::Duration::from_secs(30), |s| s.live() >= 1),
        "the bot never opened Socket Mode"
    );
    let ask = |n: usize, q: &str| {
        let ts = format!("1700000000.{n:06}");
        assert!(standin.send_event(
            &format!("env-{n}"),
            &format!("Ev{n}"),
            slack::app_mention("C1", &ts, q)
        ));
        assert!(
            standin.wait(std::time::Duration::from_secs(60), |s| s
                .posts()
                .iter()
                .any(|p| p["thread_ts"] == ts.as_str())),
            "no reply to {q:?}"
        );
        standin
            .posts()
            .into_iter()
            .find(|p| p["thread_ts"] == ts.as_str())
            .unwrap()
    };
    let both = ask(1, "where is an order placed?");
    assert_eq!(cited_repos(&both), ["pyshop", "shop"], "{both}");

    b.stop();
    let one = ask(2, "how is the stock of a product deducted?");
    assert_eq!(cited_repos(&one), ["shop"], "{one}");
    assert!(
        one.to_string()
            .contains("partial answer: pyshop could not be searched right now and is left out"),
        "{one}"
    );
}
