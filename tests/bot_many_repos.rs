//! Many repositories, one question (issue 40 point 4), end to end through `codemap bot` over
//! Slack Socket Mode (the stand-in of tests/support/slack_standin.rs): twenty small services,
//! each indexed by `codemap index`, one channel scoped to all of them. A question only one
//! service holds is answered with that service's code first, every citation names its
//! repository and resolves there, and the reply says how many repositories were asked.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;
use support::slack_standin::{self as slack, SlackStandin};
use support::*;

/// (repository, class, method, what the method does): twenty services a team might run.
const SERVICES: [(&str, &str, &str, &str); 20] = [
    (
        "billing",
        "InvoiceCalculator",
        "computeVatTotal",
        "Computes the invoice total with VAT",
    ),
    (
        "shipping",
        "ParcelLabelPrinter",
        "printCourierLabel",
        "Prints the courier label of a parcel",
    ),
    (
        "inventory",
        "StockReservation",
        "reserveWarehouseStock",
        "Reserves warehouse stock for a basket",
    ),
    (
        "payroll",
        "SalaryRun",
        "payMonthlySalaries",
        "Pays the monthly salaries of employees",
    ),
    (
        "auth",
        "PasswordHasher",
        "hashWithBcrypt",
        "Hashes a password with bcrypt",
    ),
    (
        "search",
        "SynonymExpander",
        "expandSynonyms",
        "Expands the synonyms of a search phrase",
    ),
    (
        "notify",
        "EmailDigest",
        "sendWeeklyDigest",
        "Sends the weekly digest email",
    ),
    (
        "reviews",
        "RatingModerator",
        "hideAbusiveRating",
        "Hides an abusive product rating",
    ),
    (
        "catalog",
        "ProductImporter",
        "importSupplierFeed",
        "Imports the supplier product feed",
    ),
    (
        "cart",
        "BasketMerger",
        "mergeGuestBasket",
        "Merges a guest basket into the account basket",
    ),
    (
        "loyalty",
        "PointsLedger",
        "awardBonusPoints",
        "Awards bonus loyalty points",
    ),
    (
        "returns",
        "RefundIssuer",
        "refundReturnedParcel",
        "Refunds a returned parcel",
    ),
    (
        "pricing",
        "CouponEngine",
        "applySeasonalCoupon",
        "Applies a seasonal coupon discount",
    ),
    (
        "fraud",
        "RiskScorer",
        "scoreCardVelocity",
        "Scores the velocity risk of a card",
    ),
    (
        "chat",
        "TypingIndicator",
        "broadcastTyping",
        "Broadcasts that a user is typing",
    ),
    (
        "calendar",
        "AppointmentBooker",
        "bookDentistSlot",
        "Books a dentist appointment slot",
    ),
    (
        "metrics",
        "LatencyHistogram",
        "recordPercentile",
        "Records a latency percentile",
    ),
    (
        "geo",
        "AddressGeocoder",
        "geocodePostcode",
        "Geocodes a postcode to coordinates",
    ),
    (
        "media",
        "ThumbnailResizer",
        "resizeToThumbnail",
        "Resizes an uploaded photo to a thumbnail",
    ),
    (
        "audit",
        "TrailWriter",
        "appendAuditTrail",
        "Appends an entry to the audit trail",
    ),
];

/// One service: its own class, and a health controller every service has (the same names in
/// all twenty), indexed with `codemap index`.
fn service(tmp: &Path, (repo, class, method, doc): (&str, &str, &str, &str)) -> PathBuf {
    let root = tmp.join(repo);
    let pkg = format!("com.acme.{repo}");
    let dir = format!("src/main/java/com/acme/{repo}");
    write(
        &root,
        &format!("{dir}/{class}.java"),
        format!(
            "package {pkg};\n\n/** {doc}. */\npublic class {class} {{\n    /** {doc}. */\n    public int {method}(int input) {{\n        int result = input * 2;\n        return result;\n    }}\n}}\n"
        ),
    );
    write(
        &root,
        &format!("{dir}/HealthController.java"),
        format!(
            "package {pkg};\n\n/** Health of the service. */\npublic class HealthController {{\n    private final {class} worker = new {class}();\n\n    /** Answers the load balancer's probe. */\n    public int ping() {{\n        return worker.{method}(1);\n    }}\n}}\n"
        ),
    );
    let o = codemap()
        .args(["index"])
        .arg(&root)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    root
}

fn config(tmp: &Path, roots: &[(&str, PathBuf)], api: &str) -> PathBuf {
    let mut text = format!(
        "listen = \"127.0.0.1:{}\"\nstate_dir = {:?}\n",
        free_port(),
        tmp.join("state").display().to_string()
    );
    for (name, root) in roots {
        text.push_str(&format!(
            "[[repositories]]\nname = \"{name}\"\nindex_dir = {:?}\nworkers = 1\n",
            root.join(".codemap").display().to_string()
        ));
    }
    let names: Vec<String> = roots.iter().map(|(n, _)| format!("{n:?}")).collect();
    text.push_str(&format!(
        "[scopes.slack]\nC1 = [{}]\n\
         [platforms.slack]\nconnection = \"websocket\"\napp_token_env = \"CODEMAP_TEST_SLACK_APP\"\n\
         bot_token_env = \"CODEMAP_TEST_SLACK_BOT\"\napi_base = {api:?}\n",
        names.join(", ")
    ));
    let p = tmp.join("bot.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn start_bot(cfg: &Path) -> Child {
    codemap()
        .args(["bot", "--config"])
        .arg(cfg)
        .env("CODEMAP_TEST_SLACK_APP", slack::APP_TOKEN)
        .env("CODEMAP_TEST_SLACK_BOT", slack::BOT_TOKEN)
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The reply's text: its sections' and context notes' text joined.
fn text(post: &Value) -> String {
    post["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|b| {
            let notes = b["elements"].as_array().into_iter().flatten();
            b.pointer("/text/text")
                .into_iter()
                .chain(notes.map(|e| &e["text"]))
                .filter_map(Value::as_str)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Stops the bot even when an assertion fails (it holds the test's output open otherwise).
struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `repo · path:start-end` citations, in the order shown.
fn citations(text: &str) -> Vec<(String, String, u64, u64)> {
    text.split('`')
        .filter_map(|tok| {
            let (repo, rest) = tok.split_once(" · ")?;
            let (path, lines) = rest.rsplit_once(':')?;
            let (s, e) = lines.split_once('-').unwrap_or((lines, lines));
            Some((
                repo.to_string(),
                path.to_string(),
                s.parse().ok()?,
                e.parse().ok()?,
            ))
        })
        .collect()
}

fn ask(standin: &SlackStandin, n: usize, question: &str) -> String {
    let ts = format!("1700000000.{n:06}");
    let event = slack::app_mention("C1", &ts, question);
    assert!(standin.send_event(&format!("env-{n}"), &format!("Ev{n}"), event));
    assert!(
        standin.wait(Duration::from_secs(60), |s| s
            .posts()
            .iter()
            .any(|p| p["thread_ts"] == ts.as_str())),
        "no reply to {question:?}: {:?}",
        standin.posts()
    );
    let post = standin
        .posts()
        .into_iter()
        .find(|p| p["thread_ts"] == ts.as_str())
        .unwrap();
    text(&post)
}

#[test]
fn one_channel_over_twenty_repositories_cites_the_repository_that_holds_the_question() {
    let tmp = tempfile::tempdir().unwrap();
    let roots: Vec<(&str, PathBuf)> = SERVICES
        .iter()
        .map(|s| (s.0, service(tmp.path(), *s)))
        .collect();
    let standin = SlackStandin::start();
    let cfg = config(tmp.path(), &roots, &standin.api);
    let _bot = Stop(start_bot(&cfg));
    assert!(
        standin.wait(Duration::from_secs(30), |s| s.live() >= 1),
        "the bot never opened Socket Mode"
    );
    let questions = [
        ("payroll", "where are the monthly salaries paid?"),
        ("shipping", "how is the courier label of a parcel printed?"),
        ("geo", "where is a postcode geocoded?"),
        ("audit", "where is an entry appended to the audit trail?"),
    ];
    for (n, (want, q)) in questions.iter().enumerate() {
        let reply = ask(&standin, n + 1, q);
        let cites = citations(&reply);
        assert!(!cites.is_empty(), "{q}: no citation in {reply}");
        assert_eq!(cites[0].0, *want, "{q}: the first citation\n{reply}");
        for (repo, path, s, e) in &cites {
            let root = &roots.iter().find(|(n, _)| n == repo).unwrap().1;
            assert_hits_resolve(root, &[(path.clone(), *s, *e)]);
        }
        assert!(reply.contains("asked 20 repositories"), "{reply}");
    }
}
