//! The LLM purpose paragraph against an OpenAI-compatible server on loopback that records what
//! it is sent: one call per module, none when nothing changed, one after a one-module edit;
//! a failing endpoint (or none) leaves the pages exactly as without one; what the model writes
//! loses its unverified locations and links.

mod support;

use docgen::Options;
use std::sync::atomic::Ordering;
use support::llm_server::LlmServer;
use support::{assert_citations_resolve, generate, index, pages, shop};

const ORDER_IMPL: &str =
    "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";

fn init() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn user_prompt(req: &serde_json::Value) -> String {
    req["messages"][1]["content"].as_str().unwrap().to_string()
}

#[test]
fn one_call_per_module_then_none_then_one_for_the_edited_module() {
    init();
    let server = LlmServer::start();
    let tmp = tempfile::tempdir().unwrap();
    let (root, dir) = shop(tmp.path());
    let mut opts = Options::new(&root);
    opts.llm = Some(server.llm());

    let first = generate(&dir, &opts);
    let modules = pages(&root).len() - 1; // the global page has no paragraph
    assert_eq!(modules, 9);
    assert_eq!(server.calls(), modules, "{first:?}");
    // The prompt holds indexed facts, small, never source text.
    {
        let reqs = server.seen.requests.lock().unwrap();
        let order = reqs
            .iter()
            .map(user_prompt)
            .find(|p| p.starts_with("Module: shop-order "))
            .expect("shop-order was asked about");
        assert!(
            order.contains(
                "Entry points: route GET /api/orders/{orderId} handled by OrderController.get"
            ),
            "{order}"
        );
        assert!(order.contains("Tables: t_order; t_order_item."), "{order}");
        assert!(
            !order.contains("orderMapper.selectById(orderId)"),
            "{order}"
        );
        for r in reqs.iter() {
            assert!(user_prompt(r).len() < 4000);
            assert_eq!(r["model"], "test-model");
        }
    }
    let order = std::fs::read_to_string(root.join("docs/codemap/shop-order.md")).unwrap();
    // The paragraph is there, without the model's made-up location and link.
    assert!(
        order.contains("The \\*shop-order\\* module serves the shop (see and the docs). It is reached through its entry points. (summary by an LLM from the facts on this page)"),
        "{order}"
    );
    assert!(!order.contains("999") && !order.contains("example.com"));
    assert_citations_resolve(&root, "docs/codemap/shop-order.md", &order);
    let state = std::fs::read_to_string(root.join("docs/codemap/.state.json")).unwrap();
    assert_eq!(state.matches("\"llm_purpose\"").count(), modules);

    // Nothing changed: the cache answers, nothing is written.
    let again = generate(&dir, &opts);
    assert!(!again.changed, "{again:?}");
    assert_eq!(server.calls(), modules);

    // One module edited: one call, about that module.
    let path = root.join(ORDER_IMPL);
    let src = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        src.replace(
            "return orderMapper.selectById(orderId);",
            "return orderId == null ? null : orderMapper.selectById(orderId);",
        ),
    )
    .unwrap();
    index(&root, &dir);
    let out = generate(&dir, &opts);
    assert_eq!(out.modules_changed, vec!["shop-order"]);
    assert_eq!(server.calls(), modules + 1);
    let last = user_prompt(server.seen.requests.lock().unwrap().last().unwrap());
    assert!(last.starts_with("Module: shop-order "), "{last}");
    assert_eq!(
        out.written,
        vec!["docs/codemap/.state.json", "docs/codemap/shop-order.md"]
    );
}

#[test]
fn a_failing_endpoint_or_none_leaves_the_pages_as_without_one() {
    init();
    let plain_tmp = tempfile::tempdir().unwrap();
    let (plain_root, plain_dir) = shop(plain_tmp.path());
    generate(&plain_dir, &Options::new(&plain_root));
    let plain = pages(&plain_root);

    let server = LlmServer::start();
    server.seen.failing.store(true, Ordering::SeqCst);
    let tmp = tempfile::tempdir().unwrap();
    let (root, dir) = shop(tmp.path());
    let mut opts = Options::new(&root);
    opts.llm = Some(server.llm());
    generate(&dir, &opts);
    assert_eq!(
        server.calls(),
        9,
        "one attempt per module (no retries configured)"
    );
    assert_eq!(pages(&root), plain);
    let state = std::fs::read_to_string(root.join("docs/codemap/.state.json")).unwrap();
    assert!(!state.contains("llm_purpose"));

    // The endpoint is back: the paragraphs come (nothing was cached from the failures).
    server.seen.failing.store(false, Ordering::SeqCst);
    let out = generate(&dir, &opts);
    assert_eq!(server.calls(), 18);
    assert_eq!(out.written.len(), 10, "{:?}", out.written);
    assert!(out.modules_changed.is_empty());

    // No endpoint configured: no paragraph, the pages are the plain ones again.
    opts.llm = None;
    generate(&dir, &opts);
    assert_eq!(pages(&root), plain);
    assert_eq!(server.calls(), 18);
}
