//! The call graph end to end: the `shop` fixture (a multi-module Spring e-commerce repository)
//! indexed by the binary, its edges of every kind checked by hand and snapshotted whole, graph
//! queries over it, and incremental re-resolution after an edit.

mod support;
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::*;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shop")
}

fn index(root: &Path, idx: &Path) {
    let o = run(idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn edges(idx: &Path, kind: &str) -> Vec<Value> {
    let o = run(idx, &["export", "edges", "--kind", kind]);
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `kind caller_file:line caller -> callee` with package prefixes shortened.
fn short(e: &Value) -> String {
    let s = |v: &Value| v.as_str().unwrap_or("").replace("com.shop.", "");
    format!(
        "{} {}:{} {} -> {}",
        e["kind"].as_str().unwrap(),
        e["caller_file"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap(),
        e["line"],
        s(&e["caller_symbol"]),
        s(&e["callee_symbol"])
    )
}

fn assert_has(all: &[String], want: &str) {
    assert!(
        all.iter().any(|e| e == want),
        "missing edge: {want}\n-- edges of that kind:\n{}",
        all.iter()
            .filter(|e| e.split(' ').next() == want.split(' ').next())
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn shop_fixture_edges_of_every_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    index(&fixture(), &idx);
    let all: Vec<String> = edges(&idx, "all").iter().map(short).collect();
    let expect = [
        // Routes: class + method mappings; `@RequestMapping(method = POST)`.
        "route OrderController.java:18 route:POST /api/orders -> order.controller.OrderController.create",
        "route OrderController.java:25 route:POST /api/orders/{orderId}/pay -> order.controller.OrderController.pay",
        "route OrderController.java:35 route:POST /api/orders/{orderId}/cancel -> order.controller.OrderController.cancel",
        "route PaymentController.java:25 route:POST /api/payments/callback -> payment.controller.PaymentController.callback",
        // Injected beans (field, `@Resource`, constructor injection) → the one implementation.
        "call OrderController.java:20 order.controller.OrderController.create -> order.service.OrderService.createOrder",
        "call OrderController.java:20 order.controller.OrderController.create -> order.service.impl.OrderServiceImpl.createOrder",
        "call InventoryController.java:22 inventory.controller.InventoryController.deduct -> inventory.service.impl.InventoryServiceImpl.deductStock",
        "call PaymentService.java:33 payment.service.PaymentService.handleCallback -> payment.service.RsaSignatureVerifier.verify",
        // Feign → the controller serving the path; Dubbo → the @DubboService.
        "rpc InventoryClient.java:13 order.client.InventoryClient.deduct -> inventory.controller.InventoryController.deduct",
        "rpc InventoryClient.java:16 order.client.InventoryClient.release -> inventory.controller.InventoryController.release",
        "rpc PaymentClient.java:13 order.client.PaymentClient.pay -> payment.controller.PaymentController.pay",
        "rpc OrderServiceImpl.java:64 order.service.impl.OrderServiceImpl.createOrder -> coupon.service.CouponServiceImpl.useCoupon",
        // An API interface shared by the controller (implements) and the client (extends).
        "route CouponController.java:16 route:GET /api/coupons/{couponId}/discount -> coupon.controller.CouponController.discountOf",
        "rpc CouponQueryApi.java:9 common.api.CouponQueryApi.discountOf -> coupon.controller.CouponController.discountOf",
        "call CouponPreview.java:17 order.service.CouponPreview.preview -> common.api.CouponQueryApi.discountOf",
        // RabbitMQ delayed cancel: delay exchange → delay queue (no consumer) → dead letter →
        // cancel queue → listener; Kafka; RocketMQ with a tag; Spring events (both styles).
        "event OrderServiceImpl.java:70 order.service.impl.OrderServiceImpl.createOrder -> order.mq.OrderCancelListener.onCancel",
        "event InventoryServiceImpl.java:33 inventory.service.impl.InventoryServiceImpl.deductStock -> notify.listener.LowStockListener.onLowStock",
        "event PaymentService.java:38 payment.service.PaymentService.handleCallback -> notify.listener.PaymentResultListener.onMessage",
        // A listener whose topic is a `${..}` placeholder, resolved from its module's config.
        "event InventoryServiceImpl.java:41 inventory.service.impl.InventoryServiceImpl.releaseStock -> notify.listener.LowStockListener.onAudit",
        "event OrderServiceImpl.java:86 order.service.impl.OrderServiceImpl.pay -> order.listener.OrderPaidListener.onOrderPaid",
        "event OrderServiceImpl.java:86 order.service.impl.OrderServiceImpl.pay -> notify.listener.OrderPaidSmsListener.onApplicationEvent",
        "event OrderTimeoutJob.java:15 schedule:cron=0 */5 * * * ? -> order.job.OrderTimeoutJob.closeExpiredOrders",
        // MyBatis: mapper method → XML statement → tables; annotation SQL (constants resolved).
        "db OrderMapper.java:11 order.mapper.OrderMapper.insert -> mybatis:order.mapper.OrderMapper.insert",
        "db OrderMapper.xml:6 mybatis:order.mapper.OrderMapper.insert -> table:t_order",
        "db OrderMapper.xml:13 mybatis:order.mapper.OrderMapper.selectById -> table:t_order_item",
        "db OrderMapper.java:20 order.mapper.OrderMapper.countByUser -> table:t_order",
        "db StockMapper.xml:6 mybatis:inventory.mapper.StockMapper.deduct -> table:t_stock",
        "db CouponMapper.java:16 coupon.mapper.CouponMapper.markUsed -> table:t_coupon",
        "db PaymentMapper.java:13 payment.mapper.PaymentMapper.markPaid -> table:t_payment",
        // Config: @Value on a field and a constructor parameter, @ConfigurationProperties,
        // Environment.getProperty.
        "config OrderServiceImpl.java:50 order.service.impl.OrderServiceImpl.timeoutMinutes -> config:shop.order.timeout-minutes",
        "config OrderProperties.java:10 order.config.OrderProperties.timeoutMinutes -> config:shop.order.timeout-minutes",
        "config PaymentService.java:20 payment.service.PaymentService.PaymentService -> config:shop.payment.callback-secret",
        "config AliyunSmsSender.java:16 notify.sender.AliyunSmsSender.send -> config:shop.notify.sms-template",
        "config AuthFilter.java:15 gateway.filter.AuthFilter.skipPaths -> config:gateway.auth.skip-paths",
        // Type edges.
        "implements InventoryServiceImpl.java:13 inventory.service.impl.InventoryServiceImpl -> inventory.service.InventoryService",
        "overrides InventoryServiceImpl.java:25 inventory.service.impl.InventoryServiceImpl.deductStock -> inventory.service.InventoryService.deductStock",
        "inherits OrderPaidEvent.java:6 common.event.OrderPaidEvent -> org.springframework.context.ApplicationEvent",
    ];
    for want in expect {
        assert_has(&all, want);
    }
    // A Feign client field has no implementation in the repository: no bean dispatch.
    assert!(
        !all.iter()
            .any(|e| e.starts_with("call CouponPreview.java:17") && e.contains("CouponController")),
        "{all:#?}"
    );
    // The config edge points at the key's line in the module's own application.yml.
    let config = edges(&idx, "config");
    let timeout = config
        .iter()
        .find(|e| {
            e["callee_symbol"] == "config:shop.order.timeout-minutes"
                && e["caller_file"]
                    .as_str()
                    .unwrap()
                    .ends_with("OrderServiceImpl.java")
        })
        .unwrap();
    assert_eq!(
        timeout["callee_file"],
        "shop-order/src/main/resources/application.yml"
    );
    assert_eq!(timeout["callee_line"], 12);
}

#[test]
fn shop_fixture_edges_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    index(&fixture(), &idx);
    let mut out = String::new();
    for e in edges(&idx, "all") {
        let callee_at = match (e["callee_file"].as_str(), e["callee_line"].as_u64()) {
            (Some(f), Some(l)) => format!(" @ {f}:{l}"),
            _ => String::new(),
        };
        let conf = e["confidence"].as_f64().unwrap();
        let detail = e["detail"].as_str().unwrap();
        out.push_str(&format!(
            "{:<10} {}:{} {} -> {}{}{}{}\n",
            e["kind"].as_str().unwrap(),
            e["caller_file"].as_str().unwrap(),
            e["line"],
            e["caller_symbol"].as_str().unwrap(),
            e["callee_symbol"].as_str().unwrap(),
            callee_at,
            if conf < 1.0 {
                format!(" ({conf:.1})")
            } else {
                String::new()
            },
            if detail.is_empty() {
                String::new()
            } else {
                format!(" [{detail}]")
            },
        ));
    }
    insta::assert_snapshot!("shop_edges", out);
}

#[test]
fn callers_callees_and_paths_cross_services() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    index(&fixture(), &idx);

    // Who calls deductStock? The controller (through the interface, and the bean directly),
    // then the Feign client, then the order service: three levels across two services.
    let o = run(
        &idx,
        &[
            "callers",
            "InventoryServiceImpl.deductStock",
            "--depth",
            "3",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let hops: Vec<(u64, String, String)> = v["callers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["depth"].as_u64().unwrap(),
                h["from"]["name"].as_str().unwrap().replace("com.shop.", ""),
                format!("{}:{}", h["path"].as_str().unwrap(), h["line"]),
            )
        })
        .collect();
    let has = |d: u64, name: &str| hops.iter().any(|h| h.0 == d && h.1.starts_with(name));
    assert!(
        has(1, "inventory.controller.InventoryController.deduct"),
        "{hops:#?}"
    );
    assert!(has(2, "order.client.InventoryClient.deduct"), "{hops:#?}");
    assert!(
        has(3, "order.service.impl.OrderServiceImpl.createOrder"),
        "{hops:#?}"
    );
    assert!(hops.iter().any(|h| h.2
        == "shop-inventory/src/main/java/com/shop/inventory/controller/InventoryController.java:22"));

    // What happens after the order is paid: callees of pay, two levels.
    let o = run(&idx, &["callees", "OrderServiceImpl.pay", "--depth", "2"]);
    let text = stdout(&o);
    for want in [
        "com.shop.order.client.PaymentClient.pay",
        "com.shop.payment.controller.PaymentController.pay",
        "com.shop.order.listener.OrderPaidListener.onOrderPaid",
        "com.shop.notify.listener.OrderPaidSmsListener.onApplicationEvent",
    ] {
        assert!(text.contains(want), "{want} not in:\n{text}");
    }

    // A chain from the HTTP route to the SMS sender, through Feign, the controller, the bean and
    // the Kafka listener; shortest first.
    let o = run(
        &idx,
        &[
            "path",
            "route:POST /api/orders",
            "AliyunSmsSender.send",
            "--json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let chains = v["chains"].as_array().unwrap();
    assert!(!chains.is_empty());
    let lens: Vec<usize> = chains.iter().map(|c| c.as_array().unwrap().len()).collect();
    assert!(lens.windows(2).all(|w| w[0] <= w[1]), "{lens:?}");
    let first: Vec<String> = chains[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["to"]["name"].as_str().unwrap().replace("com.shop.", ""))
        .collect();
    assert!(
        first
            .iter()
            .any(|n| n.starts_with("notify.listener.LowStockListener.onLowStock")),
        "{first:#?}"
    );
    // Every hop cites a use site that exists.
    for c in chains {
        for h in c.as_array().unwrap() {
            let path = fixture().join(h["path"].as_str().unwrap());
            let lines = std::fs::read_to_string(&path).unwrap().lines().count() as u64;
            assert!(h["line"].as_u64().unwrap() <= lines);
        }
    }

    // Callers of a table and of a config key.
    let o = run(&idx, &["callers", "table:t_stock", "--depth", "3"]);
    assert!(
        stdout(&o).contains("InventoryServiceImpl.deductStock"),
        "{}",
        stdout(&o)
    );
    let o = run(&idx, &["callers", "shop.order.timeout-minutes"]);
    assert!(
        stdout(&o).contains("OrderProperties.timeoutMinutes"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn an_edit_in_one_file_reresolves_callers_in_another() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    let idx = tmp.path().join("idx");
    copy_shop(&root);
    index(&root, &idx);
    let callers = |name: &str| -> String { stdout(&run(&idx, &["callers", name, "--json"])) };
    assert!(callers("InventoryServiceImpl.releaseStock").contains("InventoryController.release"));

    // 1. The caller's file changes: release() now calls deductStock instead of releaseStock.
    let ctl = "shop-inventory/src/main/java/com/shop/inventory/controller/InventoryController.java";
    let src = std::fs::read_to_string(root.join(ctl)).unwrap();
    write(
        &root,
        ctl,
        src.replace(
            "inventoryService.releaseStock(request.getSkuId(), request.getQuantity());",
            "inventoryService.deductStock(request.getSkuId(), -request.getQuantity());",
        ),
    );
    index(&root, &idx);
    let release_callers = callers("InventoryServiceImpl.releaseStock");
    assert!(
        !release_callers.contains("InventoryController.release"),
        "{release_callers}"
    );
    assert!(callers("InventoryServiceImpl.deductStock").contains("InventoryController.release"));

    // 2. The callee's file changes, the callers' file does not: lines move in the
    //    implementation, then its method is renamed. The controller's edges follow both.
    let callee_line = |idx: &Path| -> u64 {
        edges(idx, "call")
            .iter()
            .find(|e| {
                e["caller_symbol"]
                    .as_str()
                    .unwrap()
                    .ends_with("InventoryController.deduct")
                    && e["callee_symbol"]
                        .as_str()
                        .unwrap()
                        .ends_with("InventoryServiceImpl.deductStock")
            })
            .map(|e| e["callee_line"].as_u64().unwrap())
            .unwrap_or(0)
    };
    let before = callee_line(&idx);
    let imp =
        "shop-inventory/src/main/java/com/shop/inventory/service/impl/InventoryServiceImpl.java";
    let src = std::fs::read_to_string(root.join(imp)).unwrap();
    write(
        &root,
        imp,
        src.replacen("@Service", "// 库存\n// stock\n@Service", 1),
    );
    index(&root, &idx);
    assert_eq!(callee_line(&idx), before + 2);
    for f in [
        "shop-inventory/src/main/java/com/shop/inventory/service/InventoryService.java",
        imp,
    ] {
        let src = std::fs::read_to_string(root.join(f)).unwrap();
        write(&root, f, src.replace("deductStock(", "tryDeductStock("));
    }
    index(&root, &idx);
    let o = run(
        &idx,
        &["callers", "InventoryServiceImpl.tryDeductStock", "--json"],
    );
    assert!(
        !stdout(&o).contains("InventoryController"),
        "{}",
        stdout(&o)
    );
    // The controller still names `deductStock`, which no longer exists: unresolved, by name.
    let unresolved: Vec<Value> = edges(&idx, "call")
        .into_iter()
        .filter(|e| {
            e["caller_symbol"]
                .as_str()
                .unwrap()
                .ends_with("InventoryController.deduct")
                && e["callee_symbol"] == "deductStock"
        })
        .collect();
    assert_eq!(unresolved.len(), 1, "{unresolved:?}");
    assert!(unresolved[0]["callee_file"].is_null());
    assert!(unresolved[0]["confidence"].as_f64().unwrap() < 0.5);
    let old = run(&idx, &["callers", "InventoryServiceImpl.deductStock"]);
    assert_ne!(old.status.code(), Some(0), "{}", stdout(&old));

    // 3. A rerun with no change leaves the graph as it is.
    let before = edges(&idx, "all").len();
    index(&root, &idx);
    assert_eq!(edges(&idx, "all").len(), before);
}

#[test]
fn an_index_built_without_the_graph_says_so_instead_of_answering_none() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let o = codemap()
        .env("CODEMAP_SKIP_GRAPH", "1")
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", fixture().to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&run(&idx, &["status"])).contains("call graph: not built"));

    for args in [
        &["callers", "InventoryServiceImpl.deductStock"][..],
        &["callees", "OrderService.placeOrder"][..],
        &[
            "path",
            "OrderController",
            "InventoryServiceImpl.deductStock",
        ][..],
        &["export", "edges"][..],
    ] {
        let o = run(&idx, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("without its call graph"), "{args:?}: {err}");
    }
    // `ask` still answers from the rest of the index (no graph, no chain), citing real lines.
    let o = run(&idx, &["--json", "ask", "where is the stock deducted?"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cited: Vec<&str> = a["citations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["path"].as_str())
        .collect();
    assert!(
        cited
            .iter()
            .any(|p| p.ends_with("InventoryServiceImpl.java")),
        "{a}"
    );
    for p in &cited {
        assert!(fixture().join(p).is_file(), "{p}");
    }

    // The next run with the graph on builds it, and the same question is answered.
    index(&fixture(), &idx);
    let status = stdout(&run(&idx, &["status", "--json"]));
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["call_graph"]["built"], true);
    assert!(v["call_graph"]["edges"].as_u64().unwrap() > 0);
    let o = run(
        &idx,
        &["callers", "InventoryServiceImpl.deductStock", "--json"],
    );
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!v["callers"].as_array().unwrap().is_empty());
}
