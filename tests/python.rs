//! Python end to end through the binary: the pyshop fixture indexed, its symbols, callers
//! across files (imports, re-exports, `self` attributes typed from annotations, `super()`), a
//! pasted traceback located, and the language seam's support matrix.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use support::{git, run, stdout, write};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pyshop")
}

/// `codemap callers NAME --json` on the indexed fixture.
fn callers_json(idx: &Path, repo: &str, name: &str) -> String {
    stdout(&run(idx, &["--repo", repo, "callers", name, "--json"]))
}

/// The fixture copied to `tmp` (no index lands in the source tree) and indexed.
fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let repo = tmp.join("pyshop");
    for rel in [
        "pyproject.toml",
        "src/pyshop/__init__.py",
        "src/pyshop/repo.py",
        "src/pyshop/orders.py",
        "src/pyshop/api.py",
        "src/pyshop/receipts.py",
        "tests/test_orders.py",
    ] {
        write(&repo, rel, std::fs::read(fixture().join(rel)).unwrap());
    }
    let idx = tmp.join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}

#[test]
fn python_symbols_are_indexed_with_their_ranges() {
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
    let pay = find("pyshop.orders.OrderService.pay");
    assert_eq!(pay["file"], "src/pyshop/orders.py");
    assert_eq!(
        (pay["line"].as_u64(), pay["end_line"].as_u64()),
        (Some(26), Some(29))
    );
    assert_eq!(find("pyshop.api.handle_pay")["kind"], "function");
    assert_eq!(find("pyshop.api.service")["kind"], "field");
    assert_eq!(find("pyshop.orders")["kind"], "module");
}

#[test]
fn callers_cross_files_through_imports_attributes_and_super() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let r = repo.to_str().unwrap();
    let callers = |name: &str| callers_json(&idx, r, name);
    let save = callers("pyshop.repo.Repo.save");
    for caller in [
        "pyshop.orders.OrderService.place",
        "pyshop.orders.OrderService.pay",
        "pyshop.repo.AuditedRepo.save",
    ] {
        assert!(save.contains(caller), "{caller} calls Repo.save: {save}");
    }
    // `service = OrderService()` at module level types `service.pay(…)` in a function.
    let pay = callers("pyshop.orders.OrderService.pay");
    assert!(pay.contains("pyshop.api.handle_pay"), "{pay}");
    // The test reaches OrderService through the package's re-export.
    let place = callers("pyshop.orders.OrderService.place");
    assert!(
        place.contains("tests.test_orders.test_pay_twice_fails"),
        "{place}"
    );
}

/// Calls with no call syntax reach `callers`: a property read (also through a name declared
/// with the class but made by a library), and a `with` entering and leaving a manager.
#[test]
fn callers_of_a_property_and_a_context_manager_are_the_code_that_reads_and_enters_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let r = repo.to_str().unwrap();
    let callers = |name: &str| callers_json(&idx, r, name);
    let total = callers("pyshop.receipts.Receipt.total");
    for reader in [
        "pyshop.receipts.print_receipt",
        "pyshop.receipts.current_total",
    ] {
        assert!(
            total.contains(reader),
            "{reader} reads Receipt.total: {total}"
        );
    }
    let answer = stdout(&run(
        &idx,
        &["--repo", r, "ask", "who calls Receipt.total?"],
    ));
    assert!(
        answer.contains("receipts.current_total — src/pyshop/receipts.py:32-33"),
        "{answer}"
    );
    for hook in ["__enter__", "__exit__"] {
        let entered = callers(&format!("pyshop.receipts.Receipt.{hook}"));
        assert!(
            entered.contains("pyshop.receipts.print_receipt"),
            "the with statement runs {hook}: {entered}"
        );
    }
}

#[test]
fn flask_routes_reach_their_handlers_under_blueprint_prefixes() {
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
        "route:POST /api/orders/{oid}/pay -> pyshop.api.pay_view",
        "route:GET /api/orders/{oid} -> pyshop.api.show_view",
    ] {
        assert!(routes.iter().any(|r| r == want), "{want} in {routes:?}");
    }
    // A client call with a literal URL meets the route that serves it.
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
    assert!(
        rpc.iter()
            .any(|e| e["caller_symbol"] == "pyshop.api.pay_remotely"
                && e["callee_symbol"] == "pyshop.api.pay_view"
                && e["detail"] == "http POST /api/orders/{}/pay"),
        "{rpc:?}"
    );
    // The route's handler flows into the service: callees follow it.
    let o = run(
        &idx,
        &[
            "--repo",
            repo.to_str().unwrap(),
            "callees",
            "pyshop.api.pay_view",
            "--depth",
            "3",
        ],
    );
    let out = stdout(&o);
    assert!(out.contains("pyshop.orders.Order.mark_paid"), "{out}");
}

#[test]
fn a_pasted_traceback_points_at_the_raising_function() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let question = "What does this mean?\n\
        Traceback (most recent call last):\n  \
          File \"/srv/pyshop/src/pyshop/api.py\", line 9, in handle_pay\n    \
            return service.pay(oid).status\n  \
          File \"/srv/pyshop/src/pyshop/orders.py\", line 28, in pay\n    \
            order.mark_paid()\n  \
          File \"/srv/pyshop/src/pyshop/orders.py\", line 14, in mark_paid\n    \
            raise ValueError(\"order is not awaiting payment\")\n\
        ValueError: order is not awaiting payment\n";
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
        cites.iter().any(|c| c == "src/pyshop/orders.py:12"),
        "mark_paid (lines 12-15) is cited: {cites:?}"
    );
}

#[test]
fn code_maps_of_a_python_package_name_its_routes_types_and_purpose() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "pyshop"]);
    support::index_and_docgen(&idx, &repo);
    // One module: the package pyproject.toml declares, named by it.
    let page = std::fs::read_to_string(repo.join("docs/codemap/pyshop.md")).unwrap();
    assert!(
        page.contains("A small order service"),
        "purpose from pyproject.toml: {page}"
    );
    for want in [
        "`POST /api/orders/{oid}/pay`",
        "`GET /api/orders/{oid}`",
        "`pyshop.repo.Repo` (class",
        "Keeps orders by id.",
    ] {
        assert!(page.contains(want), "{want} on the page: {page}");
    }
}

#[test]
fn a_python_client_meets_the_java_controller_it_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = support::shop_with(
        tmp.path(),
        "tools/orders_report.py",
        "import requests\n\
         \n\
         BASE = \"http://order-service:8080\"\n\
         \n\
         def fetch(order_id):\n    return requests.get(f\"{BASE}/api/orders/{order_id}\").json()\n\
         \n\
         def cancel(order_id):\n    return requests.post(BASE + \"/api/orders/\" + str(order_id) + \"/cancel\")\n",
    );
    let rpc = support::exported_edges(&idx, &repo, "rpc");
    let linked = |caller: &str, callee: &str| support::has_edge(&rpc, caller, callee);
    assert!(
        linked(
            "tools.orders_report.fetch",
            "com.shop.order.controller.OrderController.get"
        ),
        "{rpc:?}"
    );
    assert!(
        linked(
            "tools.orders_report.cancel",
            "com.shop.order.controller.OrderController.cancel"
        ),
        "{rpc:?}"
    );
    // And the Java side sees its Python caller.
    let callers = stdout(&run(
        &idx,
        &[
            "--repo",
            repo.to_str().unwrap(),
            "callers",
            "OrderController.get",
        ],
    ));
    assert!(callers.contains("tools.orders_report.fetch"), "{callers}");
}

#[test]
fn a_traceback_of_an_attribute_of_none_from_another_version_names_the_call_made_on_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    // Line 44 is past `pay` (lines 26-29) here: the call the message names is shown instead.
    let question = "Traceback (most recent call last):\n  \
          File \"/srv/pyshop/src/pyshop/orders.py\", line 44, in pay\n    \
            order.mark_paid()\n\
        AttributeError: 'NoneType' object has no attribute 'mark_paid'\n";
    let o = run(&idx, &["--repo", repo.to_str().unwrap(), "ask", question]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(
        out.contains("It calls mark_paid() at line 28:\n    28 | order.mark_paid()"),
        "{out}"
    );
}
