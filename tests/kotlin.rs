//! Kotlin end to end through the binary: the ktshop fixture (a Spring service in Kotlin with
//! one Java class) indexed; callers through constructor injection and interfaces, a call into
//! Java, the controller's routes, the Kafka send met with its listener, and a Go client's
//! request met with the Kotlin route it reaches.

mod support;

use std::path::{Path, PathBuf};
use support::{run, stdout, write};

fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ktshop");
    let repo = tmp.join("ktshop");
    for rel in [
        "src/main/kotlin/com/shop/order/Order.kt",
        "src/main/kotlin/com/shop/order/OrderService.kt",
        "src/main/kotlin/com/shop/order/OrderController.kt",
        "src/main/kotlin/com/shop/order/PaidListener.kt",
        "src/main/kotlin/com/shop/util/Audit.kt",
        "src/main/java/com/shop/util/Clock.java",
        "client/main.go",
    ] {
        write(&repo, rel, std::fs::read(fixture.join(rel)).unwrap());
    }
    let idx = tmp.join("idx");
    let o = run(&idx, &["index", repo.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (repo, idx)
}

#[test]
fn kotlin_callers_follow_injection_interfaces_and_java() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let r = repo.to_str().unwrap();
    let callers = |name: &str| stdout(&run(&idx, &["--repo", r, "callers", name, "--json"]));
    let pay = callers("com.shop.order.DefaultOrderService.pay");
    assert!(pay.contains("com.shop.order.OrderController.pay"), "{pay}");
    let now = callers("com.shop.util.Clock.now");
    for caller in ["com.shop.order.Order.stamp", "com.shop.util.Audit.record"] {
        assert!(
            now.contains(caller),
            "{caller} calls the Java Clock.now: {now}"
        );
    }
    // From the handler down: the service behind the interface, the repository, the listener.
    let o = run(
        &idx,
        &[
            "--repo",
            r,
            "callees",
            "com.shop.order.OrderController.pay",
            "--depth",
            "3",
        ],
    );
    let out = stdout(&o);
    for callee in [
        "com.shop.order.MemoryOrderRepo.save",
        "com.shop.order.Order.markPaid",
        "com.shop.order.PaidListener.onPaid",
    ] {
        assert!(out.contains(callee), "the handler reaches {callee}: {out}");
    }
}

#[test]
fn kotlin_routes_schedules_and_a_go_client_meet() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    let routes = support::exported_edges(&idx, &repo, "route");
    for (route, handler) in [
        (
            "route:POST /api/orders/{id}/pay",
            "com.shop.order.OrderController.pay",
        ),
        (
            "route:GET /api/orders/{id}",
            "com.shop.order.OrderController.show",
        ),
    ] {
        assert!(
            support::has_edge(&routes, route, handler),
            "{route}: {routes:?}"
        );
    }
    let events = support::exported_edges(&idx, &repo, "event");
    assert!(
        support::has_edge(
            &events,
            "schedule:cron=0 * * * * ?",
            "com.shop.order.PaidListener.sweep"
        ),
        "{events:?}"
    );
    assert!(
        events.iter().any(
            |e| e["callee_symbol"] == "com.shop.order.PaidListener.onPaid"
                && e["detail"] == "kafka topic=order-paid"
        ),
        "{events:?}"
    );
    let rpc = support::exported_edges(&idx, &repo, "rpc");
    assert!(
        support::has_edge(
            &rpc,
            "client.payOrder",
            "com.shop.order.OrderController.pay"
        ),
        "{rpc:?}"
    );
}

#[test]
fn a_jvm_stack_trace_through_kotlin_code_points_at_its_functions() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, idx) = indexed(tmp.path());
    // A top-level function runs in the `OrderKt` class the index has no type for: it is found
    // in `Order.kt` of the package's directory; the methods by their class.
    let question = "Why does paying fail?\n\
        java.lang.IllegalStateException: order 7 is PAID\n\
        \tat com.shop.order.OrderKt.describe(Order.kt:38)\n\
        \tat com.shop.order.DefaultOrderService.pay(OrderService.kt:19)\n\
        \tat com.shop.order.OrderController.pay(OrderController.kt:15)\n\
        \tat java.base/java.lang.Thread.run(Thread.java:833)\n";
    let o = run(
        &idx,
        &["--repo", repo.to_str().unwrap(), "ask", question, "--json"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Each frame placed, in trace order, holding the trace's line; the JDK's frame is not
    // in the repository.
    let frames: Vec<String> = v["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["inside"], true, "{f}");
            format!("{}:{}", f["path"].as_str().unwrap(), f["start_line"])
        })
        .collect();
    assert_eq!(
        frames,
        [
            "src/main/kotlin/com/shop/order/Order.kt:38",
            "src/main/kotlin/com/shop/order/OrderService.kt:17",
            "src/main/kotlin/com/shop/order/OrderController.kt:12",
        ]
    );
}
