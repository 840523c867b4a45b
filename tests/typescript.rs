//! TypeScript and JavaScript end to end through the binary: the tsshop fixture indexed (`.ts`,
//! `.js` and a Vue component), its symbols with their ranges, callers across files (imports, an
//! `@/` alias, an `index` re-export, parameter properties typed by an interface, `super`),
//! Express routes reaching their handlers, and a pasted Node stack trace located.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{run, stdout, write};

const FILES: &[&str] = &[
    "package.json",
    "tsconfig.json",
    "src/models/order.ts",
    "src/repo.ts",
    "src/services/orders.ts",
    "src/services/index.ts",
    "src/api/routes.ts",
    "src/web/client.js",
    "src/components/PayButton.vue",
    "tests/orders.test.ts",
];

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tsshop")
}

/// The fixture copied to `tmp` (no index lands in the source tree) and indexed.
fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let repo = tmp.join("tsshop");
    for rel in FILES {
        write(&repo, rel, std::fs::read(fixture().join(rel)).unwrap());
    }
    let idx = tmp.join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}

#[test]
fn typescript_javascript_and_vue_symbols_are_indexed_with_their_ranges() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let syms = support::jsonl(&run(
        &idx,
        &["--repo", repo.to_str().unwrap(), "export", "symbols"],
    ));
    let find = |q: &str| {
        syms.iter()
            .find(|s| s["symbol"] == q)
            .unwrap_or_else(|| panic!("no symbol {q}"))
    };
    let pay = find("services.orders.OrderService.pay");
    assert_eq!(pay["file"], "src/services/orders.ts");
    assert_eq!(pay["id"], "ts:services.orders.OrderService.pay");
    assert_eq!(
        (pay["line"].as_u64(), pay["end_line"].as_u64()),
        (Some(13), Some(18))
    );
    assert_eq!(find("repo.Store")["kind"], "interface");
    assert_eq!(find("api.routes.service")["kind"], "field");
    assert_eq!(find("api.routes.handlePay")["kind"], "function");
    assert_eq!(find("web.client.payOrder")["id"], "js:web.client.payOrder");
    let vue = find("components.PayButton.pay");
    assert_eq!(vue["file"], "src/components/PayButton.vue");
    assert_eq!(vue["line"].as_u64(), Some(10), "the script keeps its lines");
}

#[test]
fn callers_cross_files_through_imports_aliases_and_interfaces() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let r = repo.to_str().unwrap();
    let callers = |name: &str| stdout(&run(&idx, &["--repo", r, "callers", name, "--json"]));
    // `this.store.save` on a `Store` runs the implementations.
    let save = callers("repo.Repo.save");
    for caller in [
        "services.orders.OrderService.place",
        "services.orders.OrderService.pay",
        "repo.AuditedRepo.save",
    ] {
        assert!(save.contains(caller), "{caller} calls Repo.save: {save}");
    }
    // `service = new OrderService(…)` at module level types `service.pay(…)`; the import goes
    // through the `@/` alias and `services/index.ts`.
    let pay = callers("services.orders.OrderService.pay");
    assert!(pay.contains("api.routes.handlePay"), "{pay}");
    assert!(pay.contains("orders.test.testPayTwiceFails"), "{pay}");
    let mark = callers("models.order.Order.markPaid");
    assert!(mark.contains("services.orders.OrderService.pay"), "{mark}");
    // The Vue component's script calls the JavaScript client.
    let client = callers("web.client.payOrder");
    assert!(client.contains("components.PayButton.pay"), "{client}");
}

#[test]
fn express_routes_reach_their_handlers() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let edges = support::jsonl(&run(
        &idx,
        &[
            "--repo",
            repo.to_str().unwrap(),
            "export",
            "edges",
            "--kind",
            "route",
        ],
    ));
    let routes: Vec<String> = edges
        .iter()
        .map(|e| {
            format!(
                "{} -> {}",
                e["caller_symbol"].as_str().unwrap(),
                e["callee_symbol"].as_str().unwrap()
            )
        })
        .collect();
    for want in [
        "route:GET /orders/{id} -> api.routes.showOrder",
        "route:POST /orders/{id}/pay -> api.routes",
    ] {
        assert!(routes.iter().any(|r| r == want), "{want} in {routes:?}");
    }
}

#[test]
fn a_pasted_node_stack_trace_points_at_the_throwing_method() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let question = "Why does paying fail?\n\
        Error: order is not awaiting payment\n    \
            at Order.markPaid (/srv/tsshop/src/models/order.ts:10:13)\n    \
            at OrderService.pay (/srv/tsshop/src/services/orders.ts:15:11)\n    \
            at handlePay (/srv/tsshop/src/api/routes.ts:9:18)\n";
    let o = run(
        &idx,
        &["--repo", repo.to_str().unwrap(), "ask", question, "--json"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let cites: Vec<String> = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}:{}", c["path"].as_str().unwrap(), c["start_line"]))
        .collect();
    assert!(
        cites.iter().any(|c| c == "src/models/order.ts:8"),
        "markPaid (lines 8-13) is cited: {cites:?}"
    );
}

#[test]
fn front_end_requests_meet_the_routes_that_serve_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let rpc = support::jsonl(&run(
        &idx,
        &[
            "--repo",
            repo.to_str().unwrap(),
            "export",
            "edges",
            "--kind",
            "rpc",
        ],
    ));
    let linked = |caller: &str, callee: &str| {
        rpc.iter()
            .any(|e| e["caller_symbol"] == caller && e["callee_symbol"] == callee)
    };
    // `${BASE}/orders/${id}` with BASE the `/api` base path meets Express's `/orders/:id`.
    assert!(
        linked("web.client.loadOrder", "api.routes.showOrder"),
        "{rpc:?}"
    );
}

#[test]
fn a_typescript_client_meets_the_java_controller_it_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = support::shop_with(
        tmp.path(),
        "web/src/api/orders.ts",
        "import axios from \"axios\";\n\
         \n\
         export function getOrder(orderId: number) {\n  return axios.get(`/api/orders/${orderId}`);\n}\n\
         \n\
         export const payOrder = (orderId: number) =>\n  axios.post(\"/api/orders/\" + orderId + \"/pay\");\n",
    );
    assert_meets_the_shop(&idx, &repo, "api.orders.getOrder", "api.orders.payOrder");
}

/// `get` and `pay` reach the shop's `OrderController.get` and `.pay` over HTTP, and `callers
/// OrderController.pay` names `pay`.
fn assert_meets_the_shop(idx: &Path, repo: &Path, get: &str, pay: &str) {
    let rpc = support::exported_edges(idx, repo, "rpc");
    for (caller, callee) in [(get, "get"), (pay, "pay")] {
        let callee = format!("com.shop.order.controller.OrderController.{callee}");
        assert!(
            support::has_edge(&rpc, caller, &callee),
            "{caller} -> {callee}: {rpc:?}"
        );
    }
    let callers = stdout(&run(
        idx,
        &[
            "--repo",
            repo.to_str().unwrap(),
            "callers",
            "OrderController.pay",
        ],
    ));
    assert!(callers.contains(pay), "{callers}");
}

/// A WeChat mini program beside the Java back end: its pages call a request wrapper with URLs
/// that another module exports, and `callers` of the controller method names the page.
#[test]
fn a_mini_program_page_meets_the_java_controller_through_its_request_wrapper() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    support::copy_shop(&repo);
    write(
        &repo,
        "miniapp/config/api.js",
        "var ApiRoot = 'http://localhost:8080/api/';\n\
         module.exports = {\n  OrderDetail: ApiRoot + 'orders/',\n  OrderPay: ApiRoot + 'orders/',\n};\n",
    );
    write(
        &repo,
        "miniapp/utils/util.js",
        "function request(url, data = {}, method = 'GET') {\n  return new Promise(function (resolve, reject) {\n    wx.request({ url: url, data: data, method: method, success: resolve, fail: reject });\n  });\n}\n\
         module.exports = { request: request };\n",
    );
    write(
        &repo,
        "miniapp/pages/order/order.js",
        "var util = require('../../utils/util.js');\nvar api = require('../../config/api.js');\n\
         function load(id) {\n  return util.request(api.OrderDetail + id);\n}\n\
         function pay(id) {\n  return util.request(api.OrderPay + id + '/pay', {}, 'POST');\n}\n\
         module.exports = { load: load, pay: pay };\n",
    );
    let idx = tmp.path().join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_meets_the_shop(
        &idx,
        &repo,
        "miniapp.pages.order.order.load",
        "miniapp.pages.order.order.pay",
    );
}

/// A workspace member imported by its package name, through its package.json `exports` (a
/// `source` condition before the built files, which are not in the repository), whatever the
/// member's folder is called: the call reaches the member's source.
#[test]
fn a_workspace_package_is_imported_by_its_name_and_exports() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("mono");
    let files: &[(&str, &str)] = &[
        (
            "libs/fmt/package.json",
            r#"{ "name": "@acme/format", "exports": {
  ".": { "types": "./dist/index.d.ts", "source": "./src/index.ts", "default": "./dist/index.js" },
  "./money": { "source": "./src/money.ts", "default": "./dist/money.js" } } }"#,
        ),
        (
            "libs/fmt/src/money.ts",
            "export function formatPrice(cents: number): string {\n  return (cents / 100).toFixed(2);\n}\n",
        ),
        (
            "libs/fmt/src/index.ts",
            "export { formatPrice } from \"./money\";\n",
        ),
        (
            "apps/web/package.json",
            r#"{ "name": "web", "dependencies": { "@acme/format": "workspace:*" } }"#,
        ),
        (
            "apps/web/src/cart.ts",
            "import { formatPrice } from \"@acme/format/money\";\n\nexport function cartTotal(cents: number) {\n  return formatPrice(cents);\n}\n",
        ),
        (
            "apps/web/src/checkout.ts",
            "import { formatPrice } from \"@acme/format\";\n\nexport function checkoutLabel(cents: number) {\n  return \"Pay \" + formatPrice(cents);\n}\n",
        ),
    ];
    for (rel, text) in files {
        write(&repo, rel, text.as_bytes());
    }
    let idx = tmp.path().join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let callers = stdout(&run(
        &idx,
        &["--repo", repo.to_str().unwrap(), "callers", "formatPrice"],
    ));
    assert!(callers.contains("cartTotal"), "subpath export: {callers}");
    assert!(
        callers.contains("checkoutLabel"),
        "the package's root: {callers}"
    );
}

#[test]
fn a_property_read_on_undefined_from_another_version_names_the_call_made_on_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    // Line 40 is past `pay` (lines 13-18) here: the call the message names is shown instead.
    let question = "TypeError: Cannot read properties of undefined (reading 'markPaid')\n    \
            at OrderService.pay (/srv/tsshop/src/services/orders.ts:40:11)\n";
    let o = run(&idx, &["--repo", repo.to_str().unwrap(), "ask", question]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(
        out.contains("It calls markPaid() at line 15:\n    15 | order.markPaid();"),
        "{out}"
    );
}
