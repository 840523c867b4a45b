//! `docgen serve` end to end over a local bare repository: signed pushes lead to one bot commit on
//! the docs branch and one pull request on a loopback code host; tampered or unsigned deliveries
//! change nothing; the bot's own commits start nothing; a docs branch a human pushed to is left
//! alone. The map generator is the tests' stand-in (see serve_support).

mod serve_support;

use docgen::serve::webhook::github_signature;
use serde_json::json;
use serve_support::*;

const SECRET: &str = "It's a Secret to Everybody";

fn gh_headers(event: &str, sig: String) -> Vec<(&'static str, String)> {
    vec![
        ("x-github-event", event.to_string()),
        ("x-hub-signature-256", sig),
        ("content-type", "application/json".to_string()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn octokit_signed_pushes_keep_one_docs_commit_and_one_pull_request() {
    let (tmp, remote) = setup();
    let main0 = remote.tip("main").unwrap();
    let first = github_push(&main0, "shop: first import");
    let Some(sig) = octokit_sign(SECRET, &first) else {
        return;
    };
    let host = FakeHost::start().await;
    let state = tmp.path().join("state");
    let server = github_server(
        tmp.path(),
        &remote,
        SECRET,
        &pr_config(&host.base, "GH_TOKEN", ""),
        stand_in_generator(),
    )
    .await;

    // A ping (sent when the hook is created) is answered and starts nothing.
    let ping = r#"{"zen":"Keep it logically awesome.","hook_id":1}"#;
    let ping_sig = octokit_sign(SECRET, ping).unwrap();
    assert_eq!(
        server
            .post("/hooks/shop", &gh_headers("ping", ping_sig), ping)
            .await,
        (200, "pong".to_string())
    );

    // The same signature over a tampered body: 401, and nothing is done at all.
    let tampered = first.replace("first import", "first import!");
    let (code, _) = server
        .post("/hooks/shop", &gh_headers("push", sig.clone()), &tampered)
        .await;
    assert_eq!(code, 401);
    let s = server.status().await;
    assert_eq!(s["repos"][0]["jobs_finished"], 0);
    assert_eq!(s["repos"][0]["running"], false);
    assert!(
        !state.join("shop").exists(),
        "a refused delivery touched the state folder"
    );

    // The signed one is accepted at once and the job commits the maps once.
    let (code, _) = server
        .post("/hooks/shop", &gh_headers("push", sig), &first)
        .await;
    assert_eq!(code, 202);
    let st = server.wait_jobs(1).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    let commits = docs_commits(&remote, "codemap/docs");
    assert_eq!(commits.len(), 1, "{commits:?}");
    let (docs1, author, message) = &commits[0];
    assert_eq!(author, BOT_EMAIL);
    assert!(
        message.lines().next().unwrap().contains("[skip ci]"),
        "{message}"
    );
    assert!(
        message.trim_end().ends_with("Codemap-Bot: docgen"),
        "{message}"
    );
    assert_eq!(remote.in_bare(&["rev-parse", "codemap/docs^"]), main0);
    let page = remote.in_bare(&["show", "codemap/docs:docs/codemap/symbols.md"]);
    assert!(page.contains(".java:"), "{page}");
    assert_eq!(remote.tip("main").unwrap(), main0, "main was touched");

    // The pull request: listed first, then opened, against the loopback host.
    let calls = host.calls();
    assert_listed_then_opened(
        &calls,
        "/repos/acme/shop/pulls",
        &[
            ("head", "acme:codemap/docs"),
            ("base", "main"),
            ("state", "open"),
        ],
        &[
            ("head", "codemap/docs"),
            ("base", "main"),
            ("title", "codemap: update code maps"),
        ],
    );
    assert!(calls[1].body["body"].as_str().unwrap().contains(&main0));
    for c in &calls {
        assert_eq!(c.authorization.as_deref(), Some("Bearer ghs_test_token"));
    }
    assert_eq!(st["last"]["pull"]["number"], 1);
    assert_eq!(st["last"]["pull"]["created"], true);

    // A second merge: the docs branch is rebuilt on the new main (still one bot commit) and the
    // same pull request is updated, not a second one opened.
    let main1 = remote.push_code_change("loyaltyPoints");
    let second = github_push(&main1, "add loyaltyPoints");
    let sig2 = octokit_sign(SECRET, &second).unwrap();
    let (code, _) = server
        .post("/hooks/shop", &gh_headers("push", sig2), &second)
        .await;
    assert_eq!(code, 202);
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    let commits = docs_commits(&remote, "codemap/docs");
    assert_eq!(commits.len(), 1, "{commits:?}");
    let docs2 = commits[0].0.clone();
    assert_ne!(&docs2, docs1);
    assert_eq!(remote.in_bare(&["rev-parse", "codemap/docs^"]), main1);
    let page = remote.in_bare(&["show", "codemap/docs:docs/codemap/symbols.md"]);
    assert!(page.contains("loyaltyPoints"), "{page}");
    let calls = host.calls();
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert_eq!(calls[2].method, "GET");
    assert_eq!(
        (calls[3].method.as_str(), calls[3].path.as_str()),
        ("PATCH", "/repos/acme/shop/pulls/1")
    );
    assert!(calls[3].body["body"].as_str().unwrap().contains(&main1));
    assert_eq!(host.pulls().len(), 1);
    assert_eq!(st["last"]["pull"]["created"], false);

    // The pull request is merged by fast-forward: main's head is now the bot's own commit.
    remote.in_bare(&["update-ref", "refs/heads/main", &docs2]);
    let own = github_push(&docs2, &commits[0].2);
    let sig3 = octokit_sign(SECRET, &own).unwrap();
    let (code, text) = server
        .post("/hooks/shop", &gh_headers("push", sig3), &own)
        .await;
    assert_eq!(
        (code, text.as_str()),
        (200, "ignored: the head commit is the bot's own")
    );
    // A delivery without the head commit's message: the job itself recognises the commit.
    let bare = json!({"ref": "refs/heads/main", "after": docs2, "head_commit": null}).to_string();
    let (code, _) = server
        .post(
            "/hooks/shop",
            &gh_headers("push", octokit_sign(SECRET, &bare).unwrap()),
            &bare,
        )
        .await;
    assert_eq!(code, 202);
    let st = server.wait_jobs(3).await;
    assert_eq!(st["last"]["outcome"], "own_commit", "{st}");
    assert_eq!(remote.tip("codemap/docs").unwrap(), docs2, "no new commit");
    assert_eq!(host.calls().len(), 4);

    // A push to the docs branch itself, or to another branch, starts nothing.
    let other = github_push(&docs2, "x").replace("refs/heads/main", "refs/heads/codemap/docs");
    let (code, text) = server
        .post(
            "/hooks/shop",
            &gh_headers("push", octokit_sign(SECRET, &other).unwrap()),
            &other,
        )
        .await;
    assert_eq!(code, 200);
    assert!(
        text.starts_with("ignored: a push to the docs branch"),
        "{text}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docs_branch_a_human_pushed_to_is_left_alone() {
    let (tmp, remote) = setup();
    let server = github_server(tmp.path(), &remote, SECRET, "", stand_in_generator()).await;
    let main0 = remote.tip("main").unwrap();
    let body = github_push(&main0, "import");
    let (code, _) = server
        .post(
            "/hooks/shop",
            &gh_headers("push", github_signature(SECRET, body.as_bytes())),
            &body,
        )
        .await;
    assert_eq!(code, 202);
    assert_eq!(server.wait_jobs(1).await["last"]["outcome"], "committed");

    // A developer edits the generated page on the docs branch and pushes.
    git(&remote.dev, &["fetch", "-q", "origin", "codemap/docs"]);
    git(
        &remote.dev,
        &["checkout", "-q", "-b", "codemap/docs", "FETCH_HEAD"],
    );
    let page = remote.dev.join("docs/codemap/symbols.md");
    std::fs::write(&page, "# Symbols\n\nHand-written notes.\n").unwrap();
    git(&remote.dev, &["commit", "-q", "-am", "docs: my own notes"]);
    git(&remote.dev, &["push", "-q", "origin", "codemap/docs"]);
    let human_tip = remote.tip("codemap/docs").unwrap();
    git(&remote.dev, &["checkout", "-q", "main"]);

    let main1 = remote.push_code_change("giftWrap");
    let body = github_push(&main1, "add giftWrap");
    let (code, _) = server
        .post(
            "/hooks/shop",
            &gh_headers("push", github_signature(SECRET, body.as_bytes())),
            &body,
        )
        .await;
    assert_eq!(code, 202);
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "refused", "{st}");
    let reason = st["last"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("refusing to rewrite codemap/docs: its tip")
            && reason.contains("is not a bot commit (author dana@example.com"),
        "{reason}"
    );
    assert_eq!(remote.tip("codemap/docs").unwrap(), human_tip);
    assert_eq!(remote.tip("main").unwrap(), main1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsigned_wrongly_signed_and_oversized_deliveries_do_nothing() {
    let (tmp, remote) = setup();
    let state = tmp.path().join("state");
    let server = github_server(tmp.path(), &remote, SECRET, "", stand_in_generator()).await;
    let body = github_push(&remote.tip("main").unwrap(), "import");
    let wrong = github_signature("another secret", body.as_bytes());
    assert_eq!(
        server
            .post("/hooks/shop", &gh_headers("push", wrong), &body)
            .await
            .0,
        401
    );
    let unsigned = vec![("x-github-event", "push".to_string())];
    assert_eq!(server.post("/hooks/shop", &unsigned, &body).await.0, 401);
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(70_000));
    let sig = github_signature(SECRET, big.as_bytes());
    assert_eq!(
        server
            .post("/hooks/shop", &gh_headers("push", sig), &big)
            .await
            .0,
        413
    );
    let sig = github_signature(SECRET, b"{}");
    assert_eq!(
        server
            .post("/hooks/nope", &gh_headers("push", sig), "{}")
            .await
            .0,
        404
    );
    let sig = github_signature(SECRET, b"not json");
    assert_eq!(
        server
            .post("/hooks/shop", &gh_headers("push", sig), "not json")
            .await
            .0,
        400
    );
    let health = reqwest::get(format!("{}/healthz", server.base))
        .await
        .unwrap();
    assert_eq!(health.status().as_u16(), 200);
    let s = server.status().await;
    assert_eq!(s["repos"][0]["jobs_finished"], 0);
    assert!(!state.join("shop").exists());
    assert_eq!(remote.tip("codemap/docs"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gitlab_token_is_checked_and_one_merge_request_is_opened() {
    let (tmp, remote) = setup();
    let host = FakeHost::start().await;
    let state = tmp.path().join("state");
    let pr = pr_config(&host.base, "GL_TOKEN", "title = \"Code maps\"\n");
    let server = Running::start(
        &config(&state, &remote.bare, "gitlab", &pr),
        env(&[("HOOK_SECRET", "gl-hook-token"), ("GL_TOKEN", "glpat-test")]),
        stand_in_generator(),
    )
    .await;
    let main0 = remote.tip("main").unwrap();
    let body = json!({
        "object_kind": "push", "event_name": "push", "ref": "refs/heads/main",
        "before": "0000000000000000000000000000000000000001", "after": main0, "checkout_sha": main0,
        "commits": [{"id": main0, "message": "shop: first import\n"}],
        "project": {"path_with_namespace": "acme/shop"}
    })
    .to_string();
    let headers = |token: &str| {
        vec![
            ("x-gitlab-event", "Push Hook".to_string()),
            ("x-gitlab-token", token.to_string()),
        ]
    };
    assert_eq!(
        server
            .post("/hooks/shop", &headers("gl-hook-tokeN"), &body)
            .await
            .0,
        401
    );
    assert_eq!(server.post("/hooks/shop", &headers(""), &body).await.0, 401);
    assert_eq!(server.status().await["repos"][0]["jobs_finished"], 0);
    assert_eq!(
        server
            .post("/hooks/shop", &headers("gl-hook-token"), &body)
            .await
            .0,
        202
    );
    let st = server.wait_jobs(1).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    assert_eq!(docs_commits(&remote, "codemap/docs").len(), 1);

    let calls = host.calls();
    assert_listed_then_opened(
        &calls,
        "/projects/acme%2Fshop/merge_requests",
        &[
            ("source_branch", "codemap/docs"),
            ("target_branch", "main"),
            ("state", "opened"),
        ],
        &[
            ("source_branch", "codemap/docs"),
            ("target_branch", "main"),
            ("title", "Code maps"),
        ],
    );
    for c in &calls {
        assert_eq!(c.private_token.as_deref(), Some("glpat-test"));
        assert_eq!(c.authorization, None);
    }

    // The next merge updates the same merge request.
    let main1 = remote.push_code_change("returnLabel");
    let body = body.replace(&main0, &main1);
    assert_eq!(
        server
            .post("/hooks/shop", &headers("gl-hook-token"), &body)
            .await
            .0,
        202
    );
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    let calls = host.calls();
    assert_eq!(calls.len(), 4, "{calls:?}");
    assert_eq!(
        (calls[3].method.as_str(), calls[3].path.as_str()),
        ("PUT", "/projects/acme%2Fshop/merge_requests/1")
    );
    assert_eq!(host.pulls().len(), 1);
    server.stop().await;
}

/// The real generator, the one `codemap docgen serve` runs (`docgen::serve::code_maps`): a signed
/// push commits the shop's code maps; a new method in one module then rewrites that module's page
/// and the state file, and no other page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_commits_the_real_code_maps_and_a_change_rewrites_only_its_module() {
    let (tmp, remote) = setup();
    let server = github_server(tmp.path(), &remote, SECRET, "", docgen::serve::code_maps()).await;
    let push = |after: String, message: &str| {
        let body = github_push(&after, message);
        let sig = github_signature(SECRET, body.as_bytes());
        (body, sig)
    };
    let (body, sig) = push(remote.tip("main").unwrap(), "import");
    let (code, _) = server
        .post("/hooks/shop", &gh_headers("push", sig), &body)
        .await;
    assert_eq!(code, 202);
    let st = server.wait_jobs(1).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    let docs1 = remote.tip("codemap/docs").unwrap();
    let files = remote.in_bare(&["ls-tree", "-r", "--name-only", &docs1, "docs/codemap"]);
    for f in [
        "docs/codemap/README.md",
        "docs/codemap/.state.json",
        "docs/codemap/shop-order.md",
    ] {
        assert!(files.lines().any(|l| l == f), "{f} missing in {files}");
    }
    let page = remote.in_bare(&["show", &format!("{docs1}:docs/codemap/shop-order.md")]);
    assert!(page.contains("Code map of"), "{page}");
    assert!(page.contains("OrderServiceImpl"), "{page}");

    // One module's file changes: its page and the state are all that is rewritten.
    let changed_file = remote.java_file();
    let rel = changed_file.strip_prefix(&remote.dev).unwrap();
    let module = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy()
        .to_string();
    let (body, sig) = push(remote.push_code_change("giftWrap"), "add giftWrap");
    let (code, _) = server
        .post("/hooks/shop", &gh_headers("push", sig), &body)
        .await;
    assert_eq!(code, 202);
    let st = server.wait_jobs(2).await;
    assert_eq!(st["last"]["outcome"], "committed", "{st}");
    let docs2 = remote.tip("codemap/docs").unwrap();
    let changed = remote.in_bare(&["diff", "--name-only", &docs1, &docs2, "--", "docs/codemap"]);
    let mut changed: Vec<&str> = changed.lines().collect();
    changed.sort();
    assert_eq!(
        changed,
        vec![
            "docs/codemap/.state.json".to_string(),
            format!("docs/codemap/{module}.md")
        ],
        "module {module}"
    );
    server.stop().await;
}
