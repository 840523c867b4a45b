//! Review comments end to end: `docgen serve` with `[repo.review]` takes pull / merge request
//! webhooks (signed by GitHub's own `@octokit/webhooks-methods`, or carrying GitLab's token),
//! fetches the request's head from a local bare repository made from the shop fixture, indexes it
//! and keeps ONE impact comment on the request in a loopback code host that keeps real comment
//! state (a list returns what was posted, pages and all). A second push edits the same comment;
//! a bad signature or token does nothing; a fork's request is read-only input.

mod serve_support;

use serde_json::{Value, json};
use serve_support::*;
use std::path::Path;

const SECRET: &str = "It's a Secret to Everybody";
const ORDER_SERVICE: &str =
    "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";
const INVENTORY: &str =
    "shop-inventory/src/main/java/com/shop/inventory/service/impl/InventoryServiceImpl.java";
const MARKER: &str = "<!-- codemap:impact -->";

fn review_config(api: &str, project: &str, token_env: &str) -> String {
    format!(
        "[repo.review]\napi = \"{api}\"\nproject = \"{project}\"\ntoken_env = \"{token_env}\"\n"
    )
}

fn gh_headers(sig: String) -> Vec<(&'static str, String)> {
    vec![
        ("x-github-event", "pull_request".to_string()),
        ("x-hub-signature-256", sig),
        ("content-type", "application/json".to_string()),
    ]
}

/// A GitHub `pull_request` delivery (the fields GitHub sends that the reviewer reads, and some
/// it must not: the head repository's clone URL).
fn pull_request_payload(
    number: u64,
    action: &str,
    head: &str,
    head_repo: &str,
    clone_url: &str,
) -> String {
    json!({
        "action": action,
        "number": number,
        "pull_request": {
            "number": number,
            "state": "open",
            "draft": false,
            "title": "Cancel refuses paid orders",
            "head": {"label": format!("{}:feature", head_repo.split('/').next().unwrap()), "ref": "feature", "sha": head,
                     "repo": {"full_name": head_repo, "clone_url": clone_url, "fork": head_repo != "acme/shop"}},
            "base": {"label": "acme:main", "ref": "main", "sha": "0000000000000000000000000000000000000000",
                     "repo": {"full_name": "acme/shop", "clone_url": "https://github.test/acme/shop.git"}}
        },
        "repository": {"full_name": "acme/shop"},
        "sender": {"login": "dana"}
    })
    .to_string()
}

/// A GitLab `Merge Request Hook` delivery.
fn merge_request_payload(iid: u64, action: &str, head: &str) -> String {
    json!({
        "object_kind": "merge_request",
        "event_type": "merge_request",
        "user": {"username": "dana"},
        "project": {"id": 42, "path_with_namespace": "acme/shop"},
        "object_attributes": {
            "iid": iid, "action": action, "state": "opened",
            "source_branch": "feature", "target_branch": "main",
            "source_project_id": 42, "target_project_id": 42,
            "last_commit": {"id": head, "message": "change"}
        }
    })
    .to_string()
}

/// Replaces `from` with `to` in `file` of the developer's clone, commits, and returns the commit.
fn commit_change(dev: &Path, file: &str, from: &str, to: &str, message: &str) -> String {
    let p = dev.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{file} has no {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    git(dev, &["add", "-A"]);
    git(dev, &["commit", "-q", "-m", message]);
    git(dev, &["rev-parse", "HEAD"])
}

/// Every `path:line` and `path:start-end` the comment cites lies inside that file at `head`.
fn assert_citations_resolve(bare: &Path, head: &str, body: &str) -> usize {
    let mut checked = 0;
    for span in body.split('`').skip(1).step_by(2) {
        let Some((path, lines)) = span.rsplit_once(':') else {
            continue;
        };
        if !path.contains('/') || path.contains(' ') {
            continue;
        }
        let (s, e) = match lines.split_once('-') {
            Some((s, e)) => (s.parse::<usize>(), e.parse::<usize>()),
            None => (lines.parse::<usize>(), lines.parse::<usize>()),
        };
        let (Ok(s), Ok(e)) = (s, e) else { continue };
        let text = git(bare, &["show", &format!("{head}:{path}")]);
        let n = text.lines().count();
        assert!(
            1 <= s && s <= e && e <= n,
            "{path}:{s}-{e} is outside the file at {head} (1..={n})"
        );
        checked += 1;
    }
    checked
}

/// The line `path:start` names at `head` mentions `name` (the citation points at the declaration).
fn assert_cites(bare: &Path, head: &str, body: &str, symbol: &str, path: &str) {
    let needle = format!("`{symbol}`");
    let line = body
        .lines()
        .find(|l| l.contains(&needle) && l.contains(path))
        .unwrap_or_else(|| panic!("no line cites {symbol} in {path}:\n{body}"));
    let at = line.split(&format!("{path}:")).nth(1).unwrap();
    let start: usize = at
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let text = git(bare, &["show", &format!("{head}:{path}")]);
    let method = symbol.rsplit('.').next().unwrap();
    let near: String = text
        .lines()
        .skip(start - 1)
        .take(4)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        near.contains(method),
        "{path}:{start} at {head} is not {symbol}:\n{near}"
    );
}

fn refs(bare: &Path) -> String {
    git(bare, &["for-each-ref", "--format=%(refname) %(objectname)"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_pull_request_gets_one_comment_and_a_second_push_edits_it() {
    init();
    let tmp = tempfile::tempdir().unwrap();
    let remote = Remote::new(tmp.path());
    git(&remote.dev, &["checkout", "-q", "-b", "feature"]);
    let head1 = commit_change(
        &remote.dev,
        ORDER_SERVICE,
        "return; // already paid or cancelled",
        "throw new IllegalStateException(\"not cancellable\");",
        "cancel refuses paid orders",
    );
    git(
        &remote.dev,
        &["push", "-q", "origin", "+HEAD:refs/pull/1/head"],
    );
    let opened = pull_request_payload(1, "opened", &head1, "acme/shop", "unused");
    let Some(sig) = octokit_sign(SECRET, &opened) else {
        return;
    };
    let host = FakeHost::start().await;
    // Someone else's comments first, two per page: the bot's lands on a later page.
    let list = "/repos/acme/shop/issues/1/comments";
    host.add_comment(list, "dana", "Please review");
    host.add_comment(list, "erin", "LGTM once CI passes");
    host.add_comment(
        list,
        "mallory",
        "Quoting the bot: <!-- codemap:impact --> is not its comment",
    );
    host.set_page_cap(2);
    let state = tmp.path().join("state");
    let server = github_server(
        tmp.path(),
        &remote,
        SECRET,
        &review_config(&host.base, "acme/shop", "GH_TOKEN"),
        stand_in_generator(),
    )
    .await;
    let before = refs(&remote.bare);

    // A bad signature: 401, and nothing reaches the code host.
    let bad = octokit_sign("not the secret", &opened).unwrap();
    let (code, _) = server.post("/hooks/shop", &gh_headers(bad), &opened).await;
    assert_eq!(code, 401);
    // An action that brings no code: 200, ignored.
    let labeled = pull_request_payload(1, "labeled", &head1, "acme/shop", "unused");
    let sig_l = octokit_sign(SECRET, &labeled).unwrap();
    let (code, text) = server
        .post("/hooks/shop", &gh_headers(sig_l), &labeled)
        .await;
    assert_eq!((code, text.starts_with("ignored")), (200, true), "{text}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(host.calls().is_empty(), "{:?}", host.calls());
    assert_eq!(server.status().await["reviews"][0]["reviews_finished"], 0);

    // Opened: one comment, posted after reading every page of the list (and a 429 waited out).
    host.rate_limit_next();
    let (code, text) = server.post("/hooks/shop", &gh_headers(sig), &opened).await;
    assert_eq!(code, 202, "{text}");
    let st = server.wait_reviews(1).await;
    assert_eq!(st["last"]["outcome"], "commented", "{st}");
    let comments: Vec<Value> = host
        .comments()
        .into_iter()
        .filter(|c| c["body"].as_str().unwrap().starts_with(MARKER))
        .collect();
    assert_eq!(comments.len(), 1, "{comments:?}");
    assert_eq!(host.comments().len(), 4);
    assert_eq!(comments[0]["where"], list);
    let body = comments[0]["body"].as_str().unwrap().to_string();
    assert!(
        body.contains("| `OrderServiceImpl.cancelOrder` method | body changed |"),
        "{body}"
    );
    for caller in [
        "OrderController.cancel",
        "OrderCancelListener.onCancel",
        "OrderServiceImpl.closeExpiredOrders",
    ] {
        assert!(
            body.contains(&format!("`{caller}`")),
            "{caller} missing:\n{body}"
        );
    }
    assert!(body.contains("POST /api/orders/{orderId}/cancel"), "{body}");
    assert_cites(
        &remote.bare,
        &head1,
        &body,
        "OrderServiceImpl.cancelOrder",
        ORDER_SERVICE,
    );
    assert!(
        assert_citations_resolve(&remote.bare, &head1, &body) >= 5,
        "{body}"
    );
    let calls = host.calls();
    let posts: Vec<_> = calls.iter().filter(|c| c.method == "POST").collect();
    assert_eq!(posts.len(), 1, "{calls:?}");
    assert_eq!(
        posts[0].authorization.as_deref(),
        Some("Bearer ghs_test_token")
    );
    // The 429 was retried, and the list was read to its last page before posting.
    let gets: Vec<_> = calls.iter().filter(|c| c.method == "GET").collect();
    assert!(gets.len() >= 3, "{calls:?}");
    assert_eq!(
        gets.last().unwrap().query.get("page").map(String::as_str),
        Some("2")
    );

    assert_eq!(refs(&remote.bare), before, "the review moved a ref");

    // A second push to the request: the same comment is edited, no second one posted.
    let head2 = commit_change(
        &remote.dev,
        INVENTORY,
        "public boolean deductStock(String skuId, int quantity) {",
        "public boolean deductStock(String skuId, int quantity, Long orderId) {",
        "deduct takes the order",
    );
    git(
        &remote.dev,
        &["push", "-q", "origin", "+HEAD:refs/pull/1/head"],
    );
    // The test itself moved the request's ref; the reviewer must move nothing.
    let before = refs(&remote.bare);
    let sync = pull_request_payload(1, "synchronize", &head2, "acme/shop", "unused");
    let sig2 = octokit_sign(SECRET, &sync).unwrap();
    let (code, _) = server
        .post("/hooks/shop", &gh_headers(sig2.clone()), &sync)
        .await;
    assert_eq!(code, 202);
    let st = server.wait_reviews(2).await;
    assert_eq!(st["last"]["outcome"], "commented", "{st}");
    let calls = host.calls();
    assert_eq!(
        calls.iter().filter(|c| c.method == "POST").count(),
        1,
        "{calls:?}"
    );
    let patches: Vec<_> = calls.iter().filter(|c| c.method == "PATCH").collect();
    assert_eq!(patches.len(), 1, "{calls:?}");
    assert_eq!(
        patches[0].path,
        format!("/repos/acme/shop/issues/comments/{}", comments[0]["id"])
    );
    let now: Vec<Value> = host
        .comments()
        .into_iter()
        .filter(|c| c["body"].as_str().unwrap().starts_with(MARKER))
        .collect();
    assert_eq!(now.len(), 1);
    // The comment that quotes the marker is untouched.
    assert!(
        host.comments()
            .iter()
            .any(|c| c["body"] == "Quoting the bot: <!-- codemap:impact --> is not its comment")
    );
    let body2 = now[0]["body"].as_str().unwrap();
    assert!(
        body2.contains("`InventoryServiceImpl.deductStock` method | declaration changed"),
        "{body2}"
    );
    // A caller of the old signature: no edge reaches the new one at the head, so only the
    // merge base's report finds it; it is cited at the head.
    assert_cites(
        &remote.bare,
        &head2,
        body2,
        "InventoryController.deduct",
        "shop-inventory/src/main/java/com/shop/inventory/controller/InventoryController.java",
    );
    println!("{body2}");
    assert!(body2.contains("`OrderServiceImpl.cancelOrder`"), "{body2}");
    assert_cites(
        &remote.bare,
        &head2,
        body2,
        "InventoryServiceImpl.deductStock",
        INVENTORY,
    );
    assert!(assert_citations_resolve(&remote.bare, &head2, body2) >= 5);

    // The same delivery again (a redelivery): this head's comment is there; nothing is called.
    let n = host.calls().len();
    let (code, _) = server.post("/hooks/shop", &gh_headers(sig2), &sync).await;
    assert_eq!(code, 202);
    let st = server.wait_reviews(3).await;
    assert_eq!(st["last"]["outcome"], "unchanged", "{st}");
    assert_eq!(host.calls().len(), n);

    // Nothing was pushed, no branch made; the docs clone was never touched.
    assert_eq!(refs(&remote.bare), before);
    assert!(!state.join("shop/work").exists());
    assert_eq!(remote.tip("codemap/docs"), None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_request_is_read_only_input() {
    init();
    let tmp = tempfile::tempdir().unwrap();
    let remote = Remote::new(tmp.path());
    // Mallory's fork: a change plus steering that tries to move codemap's output and links.
    git(&remote.dev, &["checkout", "-q", "-b", "fork-feature"]);
    let escape = tmp.path().join("escaped");
    std::fs::write(
        remote.dev.join("codemap-docs.toml"),
        format!(
            "skip = [\"shop-order\"]\n\n[links]\nhost = \"github\"\nbase = \"https://evil.example/x\"\n\n[pages]\nout_dir = \"{}\"\n",
            escape.display()
        ),
    )
    .unwrap();
    let head = commit_change(
        &remote.dev,
        ORDER_SERVICE,
        "return; // already paid or cancelled",
        "throw new IllegalStateException(\"not cancellable\");",
        "fork: cancel refuses paid orders",
    );
    // GitHub keeps a fork's head in the base repository under the request's ref; the fork's own
    // URL in the payload leads nowhere.
    git(
        &remote.dev,
        &["push", "-q", "origin", "+HEAD:refs/pull/2/head"],
    );
    git(&remote.dev, &["checkout", "-q", "main"]);
    let payload = pull_request_payload(
        2,
        "opened",
        &head,
        "mallory/shop",
        tmp.path().join("no-such-fork.git").to_str().unwrap(),
    );
    let Some(sig) = octokit_sign(SECRET, &payload) else {
        return;
    };
    let host = FakeHost::start().await;
    let state = tmp.path().join("state");
    let server = github_server(
        tmp.path(),
        &remote,
        SECRET,
        &review_config(&host.base, "acme/shop", "GH_TOKEN"),
        stand_in_generator(),
    )
    .await;
    let before = refs(&remote.bare);
    let (code, _) = server.post("/hooks/shop", &gh_headers(sig), &payload).await;
    assert_eq!(code, 202);
    let st = server.wait_reviews(1).await;
    assert_eq!(st["last"]["outcome"], "commented", "{st}");
    assert_eq!(st["last"]["trigger"]["fork"], true, "{st}");

    // The comment is on the base repository's request, about the fork's code.
    let calls = host.calls();
    assert!(
        calls
            .iter()
            .all(|c| c.path.starts_with("/repos/acme/shop/issues/2/")),
        "{calls:?}"
    );
    let comments = host.comments();
    assert_eq!(comments.len(), 1);
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.contains("`OrderServiceImpl.cancelOrder`"), "{body}");
    assert!(body.contains("(a fork: read only)"), "{body}");
    // Its steering changed nothing: no link to its host, its skipped module still reported,
    // nothing written where it pointed.
    assert!(!body.contains("evil.example"), "{body}");
    assert!(body.contains("| shop-order |"), "{body}");
    assert!(!escape.exists());
    assert_citations_resolve(&remote.bare, &head, body);
    // Nothing pushed anywhere, no docs branch, no docs clone.
    assert_eq!(refs(&remote.bare), before);
    assert_eq!(remote.tip("codemap/docs"), None);
    assert!(!state.join("shop/work").exists());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gitlab_merge_request_hook_with_the_token_gets_one_note() {
    init();
    let tmp = tempfile::tempdir().unwrap();
    let remote = Remote::new(tmp.path());
    let host = FakeHost::start().await;
    let state = tmp.path().join("state");
    let cfg = config(
        &state,
        &remote.bare,
        "gitlab",
        &review_config(&host.base, "acme/shop", "GL_TOKEN"),
    );
    let server = Running::start(
        &cfg,
        env(&[("HOOK_SECRET", "gl-hook-token"), ("GL_TOKEN", "glpat-test")]),
        stand_in_generator(),
    )
    .await;
    let headers = |token: &str, event: &str| {
        vec![
            ("x-gitlab-event", event.to_string()),
            ("x-gitlab-token", token.to_string()),
            ("content-type", "application/json".to_string()),
        ]
    };
    // The docs job first, so the review's index starts as a copy of the docs index.
    let main0 = remote.tip("main").unwrap();
    let push =
        json!({"object_kind": "push", "ref": "refs/heads/main", "before": "0", "after": main0,
        "checkout_sha": main0, "commits": [{"id": main0, "message": "shop: first import"}]})
        .to_string();
    let (code, _) = server
        .post("/hooks/shop", &headers("gl-hook-token", "Push Hook"), &push)
        .await;
    assert_eq!(code, 202);
    server.wait_jobs(1).await;
    assert!(state.join("shop/index/index.db").exists());

    git(&remote.dev, &["checkout", "-q", "-b", "feature"]);
    let head = commit_change(
        &remote.dev,
        ORDER_SERVICE,
        "return; // already paid or cancelled",
        "throw new IllegalStateException(\"not cancellable\");",
        "cancel refuses paid orders",
    );
    git(
        &remote.dev,
        &["push", "-q", "origin", "+HEAD:refs/merge-requests/3/head"],
    );
    let hook = merge_request_payload(3, "open", &head);

    // A wrong token: 401 and no API call.
    let (code, _) = server
        .post(
            "/hooks/shop",
            &headers("wrong", "Merge Request Hook"),
            &hook,
        )
        .await;
    assert_eq!(code, 401);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(host.calls().is_empty(), "{:?}", host.calls());

    let (code, text) = server
        .post(
            "/hooks/shop",
            &headers("gl-hook-token", "Merge Request Hook"),
            &hook,
        )
        .await;
    assert_eq!(code, 202, "{text}");
    let st = server.wait_reviews(1).await;
    assert_eq!(st["last"]["outcome"], "commented", "{st}");
    let calls = host.calls();
    let posts: Vec<_> = calls.iter().filter(|c| c.method == "POST").collect();
    assert_eq!(posts.len(), 1, "{calls:?}");
    assert_eq!(
        posts[0].path,
        "/projects/acme%2Fshop/merge_requests/3/notes"
    );
    assert_eq!(posts[0].private_token.as_deref(), Some("glpat-test"));
    let body = posts[0].body["body"].as_str().unwrap();
    assert!(body.starts_with(MARKER));
    assert!(body.contains("`OrderController.cancel`"), "{body}");
    assert_cites(
        &remote.bare,
        &head,
        body,
        "OrderServiceImpl.cancelOrder",
        ORDER_SERVICE,
    );
    assert!(assert_citations_resolve(&remote.bare, &head, body) >= 5);

    // An update with a new commit edits the note.
    let head2 = commit_change(
        &remote.dev,
        INVENTORY,
        "public boolean deductStock(String skuId, int quantity) {",
        "public boolean deductStock(String skuId, int quantity, Long orderId) {",
        "deduct takes the order",
    );
    git(
        &remote.dev,
        &["push", "-q", "origin", "+HEAD:refs/merge-requests/3/head"],
    );
    let update = merge_request_payload(3, "update", &head2);
    let (code, _) = server
        .post(
            "/hooks/shop",
            &headers("gl-hook-token", "Merge Request Hook"),
            &update,
        )
        .await;
    assert_eq!(code, 202);
    server.wait_reviews(2).await;
    let calls = host.calls();
    assert_eq!(
        calls.iter().filter(|c| c.method == "POST").count(),
        1,
        "{calls:?}"
    );
    let puts: Vec<_> = calls.iter().filter(|c| c.method == "PUT").collect();
    assert_eq!(puts.len(), 1, "{calls:?}");
    assert_eq!(
        puts[0].path,
        format!(
            "/projects/acme%2Fshop/merge_requests/3/notes/{}",
            host.comments()[0]["id"]
        )
    );
    assert!(
        host.comments()[0]["body"]
            .as_str()
            .unwrap()
            .contains("InventoryServiceImpl.deductStock")
    );
    // Merged: the request's work tree and indexes go; the note stays.
    let request_dir = state.join("shop/review/request-3");
    assert!(request_dir.join("index/index.db").exists());
    let merged = merge_request_payload(3, "merge", &head2);
    let (code, _) = server
        .post(
            "/hooks/shop",
            &headers("gl-hook-token", "Merge Request Hook"),
            &merged,
        )
        .await;
    assert_eq!(code, 202);
    let st = server.wait_reviews(3).await;
    assert_eq!(st["last"]["outcome"], "cleaned", "{st}");
    assert!(!request_dir.exists());
    assert_eq!(host.comments().len(), 1);
    // An action that brings no code is ignored.
    let approved = merge_request_payload(3, "approved", &head2);
    let (code, text) = server
        .post(
            "/hooks/shop",
            &headers("gl-hook-token", "Merge Request Hook"),
            &approved,
        )
        .await;
    assert_eq!((code, text.starts_with("ignored")), (200, true), "{text}");
    server.stop().await;
}
