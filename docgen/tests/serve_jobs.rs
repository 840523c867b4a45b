//! How jobs are scheduled and how they fail: pushes during a job coalesce into one more job, the
//! cron poll regenerates when the branch moved, and a job that fails (in the generator, or at a
//! push the remote rejects) leaves the remote's branches as they were and is retried cleanly.

mod serve_support;

use docgen::serve::webhook::github_signature;
use docgen::serve::{GenOutcome, Generate};
use indexer::store::IndexRead;
use serve_support::*;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const SECRET: &str = "s3cret";

fn headers(body: &str) -> Vec<(&'static str, String)> {
    vec![
        ("x-github-event", "push".to_string()),
        (
            "x-hub-signature-256",
            github_signature(SECRET, body.as_bytes()),
        ),
    ]
}

/// The stand-in generator, with a hook run before it (to slow it down or make it fail).
fn wrapped(
    before: impl Fn(usize) -> Result<(), String> + Send + Sync + 'static,
) -> (Generate, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let inner = stand_in_generator();
    let counter = calls.clone();
    let g: Generate = Arc::new(
        move |tree: &Path, read: &dyn IndexRead| -> Result<GenOutcome, String> {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            before(n)?;
            inner(tree, read)
        },
    );
    (g, calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pushes_during_a_job_coalesce_into_exactly_one_more_job() {
    let (tmp, remote) = setup();
    let (generate, calls) = wrapped(|_| {
        std::thread::sleep(Duration::from_millis(1500));
        Ok(())
    });
    let server = github_server(tmp.path(), &remote, SECRET, "", generate).await;
    let body = github_push(&remote.tip("main").unwrap(), "import");
    let mut answers = Vec::new();
    for _ in 0..4 {
        answers.push(server.post("/hooks/shop", &headers(&body), &body).await);
    }
    assert_eq!(answers[0], (202, "job started".to_string()));
    for a in &answers[1..] {
        assert_eq!(a, &(202, "queued behind the running job".to_string()));
    }
    let st = server.wait_jobs(2).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let st2 = server.status().await;
    assert_eq!(st2["repos"][0]["jobs_finished"], 2, "{st2}");
    // The follow-up job found the branch where the first left it.
    assert_eq!(st["last"]["outcome"], "unmoved", "{st}");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(docs_commits(&remote, "codemap/docs").len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cron_poll_regenerates_only_when_the_branch_moved() {
    let (tmp, remote) = setup();
    let cfg = config(&tmp.path().join("state"), &remote.bare, "github", "").replace(
        "webhook_secret_env = \"HOOK_SECRET\"\n",
        "cron = \"* * * * * *\"\n",
    );
    let (generate, calls) = wrapped(|_| Ok(()));
    let server = Running::start(&cfg, env(&[]), generate).await;
    // The first poll commits the maps (later polls may already have run when we look).
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while remote.tip("codemap/docs").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            server.status().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let first = remote.tip("codemap/docs").unwrap();
    // Polls while nothing moves change nothing.
    let st = server.wait_jobs(3).await;
    assert_eq!(st["last"]["outcome"], "unmoved", "{st}");
    assert_eq!(st["last"]["trigger"]["kind"], "poll");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(docs_commits(&remote, "codemap/docs").len(), 1);
    assert_eq!(remote.tip("codemap/docs").unwrap(), first);
    // A merge is picked up by the next poll.
    let main1 = remote.push_code_change("storeCredit");
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while remote.tip("codemap/docs").unwrap() == first {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            server.status().await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(remote.in_bare(&["rev-parse", "codemap/docs^"]), main1);
    let page = remote.in_bare(&["show", "codemap/docs:docs/codemap/symbols.md"]);
    assert!(page.contains("storeCredit"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_generator_changes_nothing_and_the_redelivery_succeeds() {
    let (tmp, remote) = setup();
    let host = FakeHost::start().await;
    let pr = pr_config(&host.base, "GH_TOKEN", "");
    let (generate, _) = wrapped(|n| {
        if n == 0 {
            Err("template `module.hbs`: missing field `purpose`".into())
        } else {
            Ok(())
        }
    });
    let server = github_server(tmp.path(), &remote, SECRET, &pr, generate).await;
    let body = github_push(&remote.tip("main").unwrap(), "import");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(1).await;
    assert_eq!(st["last"]["outcome"], "failed", "{st}");
    assert_eq!(
        st["last"]["error"],
        "generating the maps failed: template `module.hbs`: missing field `purpose`"
    );
    assert_eq!(remote.tip("codemap/docs"), None);
    assert!(host.calls().is_empty());
    // The same delivery again: the failed job was not recorded as done.
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    assert_eq!(docs_commits(&remote, "codemap/docs").len(), 1);
    assert_eq!(host.pulls().len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_the_remote_rejects_leaves_the_docs_branch_and_the_bots_state_as_they_were() {
    let (tmp, remote) = setup();
    let server = github_server(tmp.path(), &remote, SECRET, "", stand_in_generator()).await;
    let body = github_push(&remote.tip("main").unwrap(), "import");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    assert_eq!(server.wait_jobs(1).await["last"]["outcome"], "committed");
    let docs1 = remote.tip("codemap/docs").unwrap();

    // The remote protects its branches: the bot's update of the docs branch is rejected.
    remote.in_bare(&["config", "receive.denyNonFastForwards", "true"]);
    let main1 = remote.push_code_change("priceMatch");
    let body = github_push(&main1, "add priceMatch");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "failed", "{st}");
    assert!(
        st["last"]["error"].as_str().unwrap().contains("git push"),
        "{st}"
    );
    assert_eq!(remote.tip("codemap/docs").unwrap(), docs1);
    assert_eq!(remote.tip("main").unwrap(), main1);

    // Protection lifted, the re-delivery goes through: the failed job left no state behind that
    // would make the bot distrust its own branch.
    remote.in_bare(&["config", "receive.denyNonFastForwards", "false"]);
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(3).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    assert_eq!(remote.in_bare(&["rev-parse", "codemap/docs^"]), main1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_waits_for_the_running_job_and_drops_the_waiting_one() {
    let (tmp, remote) = setup();
    let (generate, calls) = wrapped(|_| {
        std::thread::sleep(Duration::from_millis(3000));
        Ok(())
    });
    let server = github_server(tmp.path(), &remote, SECRET, "", generate).await;
    let main0 = remote.tip("main").unwrap();
    let body = github_push(&main0, "import");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    // Wait until the job is inside the generator; then a merge arrives and waits behind it.
    while calls.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let main1 = remote.push_code_change("layaway");
    let body = github_push(&main1, "add layaway");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.1,
        "queued behind the running job"
    );
    server.stop().await;
    // The running job finished its commit before the server returned; the waiting one never ran
    // (the next push or poll brings it back).
    assert_eq!(docs_commits(&remote, "codemap/docs").len(), 1);
    assert_eq!(remote.in_bare(&["rev-parse", "codemap/docs^"]), main0);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_pull_request_call_is_retried_without_a_new_commit() {
    let (tmp, remote) = setup();
    let host = FakeHost::start().await;
    host.fail_next_create();
    let pr = pr_config(&host.base, "GH_TOKEN", "");
    let server = github_server(tmp.path(), &remote, SECRET, &pr, stand_in_generator()).await;
    let body = github_push(&remote.tip("main").unwrap(), "import");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(1).await;
    assert_eq!(st["last"]["outcome"], "failed", "{st}");
    let docs = remote.tip("codemap/docs").unwrap();
    let error = st["last"]["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!(
            "docs commit {docs} is on the docs branch, but the pull request call failed"
        )) && error.contains("answered 502"),
        "{error}"
    );
    assert!(host.pulls().is_empty());
    // The re-delivery opens the request for the commit already pushed, and commits nothing new.
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "pull_retried", "{st}");
    assert_eq!(st["last"]["docs_commit"], docs.as_str());
    assert_eq!(remote.tip("codemap/docs").unwrap(), docs);
    assert_eq!(host.pulls().len(), 1);
    // And then the bot is at rest.
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    assert_eq!(server.wait_jobs(3).await["last"]["outcome"], "unmoved");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merge_that_changes_no_map_leaves_the_docs_branch_alone() {
    let (tmp, remote) = setup();
    let (generate, calls) = wrapped(|_| Ok(()));
    let server = github_server(tmp.path(), &remote, SECRET, "", generate).await;
    let body = github_push(&remote.tip("main").unwrap(), "import");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    assert_eq!(server.wait_jobs(1).await["last"]["outcome"], "committed");
    let docs1 = remote.tip("codemap/docs").unwrap();

    // A merge that touches no symbol: the generator, given last time's page, writes nothing.
    std::fs::write(remote.dev.join("NOTES.txt"), "release notes\n").unwrap();
    git(&remote.dev, &["add", "NOTES.txt"]);
    git(&remote.dev, &["commit", "-q", "-m", "notes"]);
    git(&remote.dev, &["push", "-q", "origin", "main"]);
    let main1 = remote.tip("main").unwrap();
    let body = github_push(&main1, "notes");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "no_change", "{st}");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(remote.tip("codemap/docs").unwrap(), docs1);

    // A merge that does change a symbol: the docs commit is rebuilt on it.
    let main2 = remote.push_code_change("bundleDeal");
    let body = github_push(&main2, "add bundleDeal");
    assert_eq!(
        server.post("/hooks/shop", &headers(&body), &body).await.0,
        202
    );
    assert_eq!(server.wait_jobs(3).await["last"]["outcome"], "committed");
    assert_eq!(remote.in_bare(&["rev-parse", "codemap/docs^"]), main2);
    assert_eq!(docs_commits(&remote, "codemap/docs").len(), 1);
    server.stop().await;
}

/// A docs-branch job never commits maps of a dirty tree: here a clean filter in the bot's clone
/// makes the fresh checkout differ from its commit. The job fails naming what to do, the docs
/// branch stays where it was, and the generator is not called. The filtered file is not the one
/// the merge changes, so the checkout leaves it alone and only a comparison of contents (not of
/// file times, which depend on how fast the checkout ran) can see it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_with_uncommitted_changes_is_refused_and_commits_nothing() {
    let (tmp, remote) = setup();
    let changed = remote.java_file();
    let untouched = git(&remote.dev, &["ls-files", "*.java"])
        .lines()
        .map(|f| remote.dev.join(f))
        .find(|f| *f != changed && std::fs::read_to_string(f).unwrap().contains("return"))
        .expect("a second Java file with a return");
    let pattern = untouched.strip_prefix(&remote.dev).unwrap().display();
    std::fs::write(
        remote.dev.join(".gitattributes"),
        format!("{pattern} filter=rewrite\n"),
    )
    .unwrap();
    git(&remote.dev, &["add", ".gitattributes"]);
    git(&remote.dev, &["commit", "-q", "-m", "attributes"]);
    git(&remote.dev, &["push", "-q", "origin", "main"]);
    let (generate, calls) = wrapped(|_| Ok(()));
    let server = github_server(tmp.path(), &remote, SECRET, "", generate).await;
    let body = github_push(&remote.tip("main").unwrap(), "attributes");
    server.post("/hooks/shop", &headers(&body), &body).await;
    assert_eq!(server.wait_jobs(1).await["last"]["outcome"], "committed");
    let docs1 = remote.tip("codemap/docs").unwrap();

    // What git stores for a .java file is no longer what the checkout holds. The clone's index is
    // written again a clock tick after its files, so git trusts their times from here on.
    let work = tmp.path().join("state/shop/work");
    std::thread::sleep(Duration::from_millis(50));
    git(&work, &["update-index", "--refresh", "--force-write-index"]);
    git(
        &work,
        &["config", "filter.rewrite.clean", "sed s/return/RETURN/"],
    );
    git(&work, &["config", "filter.rewrite.smudge", "cat"]);
    let main1 = remote.push_code_change("giftWrap");
    let body = github_push(&main1, "add giftWrap");
    server.post("/hooks/shop", &headers(&body), &body).await;
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "failed", "{st}");
    let err = st["last"]["error"].as_str().unwrap();
    assert!(
        err.contains(&format!("checkout of {}", &main1[..12]))
            && err.contains("uncommitted changes")
            && err.contains("nothing was committed")
            && err.contains(".gitattributes"),
        "{err}"
    );
    assert_eq!(remote.tip("codemap/docs").unwrap(), docs1);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    server.stop().await;
}
