//! `codemap impact` on the shop fixture (with two test classes added): prepared changes — a
//! signature change, a body change, a deleted method, a changed MyBatis statement, a changed
//! configuration key — each list the callers, entry points, tables and tests they reach.
//! The JSON reports are snapshots; the facts a reviewer relies on are asserted besides.

mod support;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use support::{codemap, copy_shop, git, write};

const INVENTORY: &str =
    "shop-inventory/src/main/java/com/shop/inventory/service/impl/InventoryServiceImpl.java";
const ORDER_SERVICE: &str =
    "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";
const STOCK_XML: &str = "shop-inventory/src/main/resources/mapper/StockMapper.xml";
const ORDER_YML: &str = "shop-order/src/main/resources/application.yml";

const ORDER_TEST: &str = "package com.shop.order.service;\n\nimport com.shop.order.service.impl.OrderServiceImpl;\n\npublic class OrderServiceImplTest {\n    private final OrderServiceImpl service = new OrderServiceImpl();\n\n    public void cancelsAnUnpaidOrder() {\n        service.cancelOrder(1L);\n    }\n}\n";

const INVENTORY_TEST: &str = "package com.shop.inventory;\n\nimport com.shop.common.dto.DeductRequest;\nimport com.shop.inventory.controller.InventoryController;\n\npublic class InventoryControllerTest {\n    private final InventoryController controller = new InventoryController();\n\n    public void deducts() {\n        controller.deduct(new DeductRequest(\"sku-1\", 1, 1L));\n    }\n}\n";

/// The shop fixture with two test classes, committed and indexed in `root/.codemap`.
fn fixture(tmp: &Path) -> (PathBuf, PathBuf) {
    let root = tmp.join("shop");
    copy_shop(&root);
    write(
        &root,
        "shop-order/src/test/java/com/shop/order/service/OrderServiceImplTest.java",
        ORDER_TEST,
    );
    write(
        &root,
        "shop-inventory/src/test/java/com/shop/inventory/InventoryControllerTest.java",
        INVENTORY_TEST,
    );
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let idx = root.join(".codemap");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", "-q"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (root, idx)
}

/// Replaces `from` with `to` in `file`, takes `git diff`, and puts the file back.
fn diff_of(root: &Path, file: &str, from: &str, to: &str) -> String {
    let p = root.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{file} has no {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    let diff = git(root, &["diff"]);
    git(root, &["checkout", "-q", "--", "."]);
    diff
}

/// `codemap impact --format FORMAT` with the diff on standard input.
fn impact(idx: &Path, diff: &str, format: &str) -> String {
    let mut child = codemap()
        .arg("--index-dir")
        .arg(idx)
        .args(["impact", "--format", format])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(diff.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn report(idx: &Path, diff: &str) -> Value {
    serde_json::from_str(&impact(idx, diff, "json")).unwrap()
}

fn names(r: &Value, field: &str, key: &str) -> Vec<String> {
    r[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap().to_string())
        .collect()
}

fn has_entry(r: &Value, entry: &str) -> bool {
    names(r, "entry_points", "entry")
        .iter()
        .any(|e| e.contains(entry))
}

fn has_table(r: &Value, table: &str) -> bool {
    r["crossings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["kind"] == "db" && c["target"].as_str().unwrap().starts_with(table))
}

/// Every place the report cites lies inside its file.
fn assert_places_resolve(root: &Path, r: &Value) {
    for field in ["changes", "callers", "entry_points", "tests"] {
        for x in r[field].as_array().unwrap() {
            let path = x["path"].as_str().unwrap();
            let lines = std::fs::read_to_string(root.join(path))
                .unwrap()
                .lines()
                .count() as u64;
            let (s, e) = (
                x["start_line"].as_u64().unwrap(),
                x["end_line"].as_u64().unwrap(),
            );
            assert!(
                1 <= s && s <= e && e <= lines,
                "{path}:{s}-{e} outside 1..={lines}"
            );
        }
    }
}

#[test]
fn a_signature_change_breaks_its_callers_up_to_the_routes_and_the_remote_client() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    let diff = diff_of(
        &root,
        INVENTORY,
        "public boolean deductStock(String skuId, int quantity) {",
        "public boolean deductStock(String skuId, int quantity, Long orderId) {",
    );
    let r = report(&idx, &diff);
    assert_places_resolve(&root, &r);
    assert_eq!(
        r["changes"][0]["symbol"],
        "InventoryServiceImpl.deductStock"
    );
    assert_eq!(r["changes"][0]["change"], "declaration");
    let callers = names(&r, "callers", "symbol");
    assert!(
        callers.contains(&"InventoryController.deduct".to_string()),
        "{callers:?}"
    );
    // Across the Feign client into the order service.
    assert!(
        callers.contains(&"InventoryClient.deduct".to_string()),
        "{callers:?}"
    );
    assert!(
        callers.contains(&"OrderServiceImpl.createOrder".to_string()),
        "{callers:?}"
    );
    assert!(has_entry(&r, "POST /api/inventory/deduct"), "{r:#}");
    assert!(has_entry(&r, "POST /api/orders"), "{r:#}");
    assert!(has_table(&r, "table:t_stock"), "{r:#}");
    assert_eq!(
        names(&r, "tests", "symbol"),
        ["InventoryControllerTest.deducts"]
    );
    insta::assert_json_snapshot!("signature_change", r);
}

#[test]
fn a_body_change_reaches_the_route_the_listener_and_the_job() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    let diff = diff_of(
        &root,
        ORDER_SERVICE,
        "return; // already paid or cancelled",
        "throw new IllegalStateException(\"not cancellable\");",
    );
    let r = report(&idx, &diff);
    assert_places_resolve(&root, &r);
    assert_eq!(r["changes"][0]["symbol"], "OrderServiceImpl.cancelOrder");
    assert_eq!(r["changes"][0]["change"], "body");
    let callers = names(&r, "callers", "symbol");
    for c in [
        "OrderController.cancel",
        "OrderCancelListener.onCancel",
        "OrderServiceImpl.closeExpiredOrders",
    ] {
        assert!(callers.contains(&c.to_string()), "{c} not in {callers:?}");
    }
    assert!(has_entry(&r, "POST /api/orders/{orderId}/cancel"), "{r:#}");
    assert!(has_entry(&r, "RabbitListener"), "{r:#}");
    assert!(has_entry(&r, "cron=0 */5 * * * ?"), "{r:#}");
    assert!(has_table(&r, "table:t_order"), "{r:#}");
    assert_eq!(
        names(&r, "tests", "symbol"),
        ["OrderServiceImplTest.cancelsAnUnpaidOrder"]
    );
    insta::assert_json_snapshot!("body_change", r);
}

#[test]
fn a_deleted_method_lists_what_called_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    let diff = diff_of(
        &root,
        INVENTORY,
        "    @Override\n    public void releaseStock(String skuId, int quantity) {\n        stockMapper.release(skuId, quantity);\n        kafkaTemplate.send(\"inventory-audit\", skuId, \"released\");\n    }\n",
        "",
    );
    let r = report(&idx, &diff);
    assert_places_resolve(&root, &r);
    assert_eq!(
        r["changes"][0]["symbol"],
        "InventoryServiceImpl.releaseStock"
    );
    assert_eq!(r["changes"][0]["change"], "removed");
    let callers = names(&r, "callers", "symbol");
    assert!(
        callers.contains(&"InventoryController.release".to_string()),
        "{callers:?}"
    );
    assert!(has_entry(&r, "POST /api/inventory/release"), "{r:#}");
    assert!(has_table(&r, "table:t_stock"), "{r:#}");
    // The audit topic it sends to is crossed.
    let mq: Vec<&str> = r["crossings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "mq")
        .map(|c| c["target"].as_str().unwrap())
        .collect();
    assert!(
        mq.iter().any(|t| t.contains("LowStockListener.onAudit")),
        "{mq:?}"
    );
    insta::assert_json_snapshot!("deleted_method", r);
}

#[test]
fn a_changed_mybatis_statement_changes_its_mapper_method_and_reaches_its_callers() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    let diff = diff_of(
        &root,
        STOCK_XML,
        "SET available = available - #{quantity}",
        "SET available = available - #{quantity}, version = version + 1",
    );
    let r = report(&idx, &diff);
    assert_places_resolve(&root, &r);
    assert_eq!(r["changes"][0]["symbol"], "StockMapper.deduct");
    assert!(
        r["changes"][0]["via"]
            .as_str()
            .unwrap()
            .starts_with("mybatis:com.shop.inventory.mapper.StockMapper.deduct (shop-inventory/src/main/resources/mapper/StockMapper.xml:5)"),
        "{r:#}"
    );
    let callers = names(&r, "callers", "symbol");
    assert!(
        callers.contains(&"InventoryServiceImpl.deductStock".to_string()),
        "{callers:?}"
    );
    assert!(
        callers.contains(&"InventoryController.deduct".to_string()),
        "{callers:?}"
    );
    assert!(has_entry(&r, "POST /api/inventory/deduct"), "{r:#}");
    assert!(has_table(&r, "table:t_stock"), "{r:#}");
    assert_eq!(
        names(&r, "tests", "symbol"),
        ["InventoryControllerTest.deducts"]
    );
    insta::assert_json_snapshot!("mybatis_statement", r);
}

#[test]
fn a_changed_config_key_changes_the_code_reading_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    let diff = diff_of(
        &root,
        ORDER_YML,
        "timeout-minutes: 30",
        "timeout-minutes: 45",
    );
    let r = report(&idx, &diff);
    assert_places_resolve(&root, &r);
    let changed = names(&r, "changes", "symbol");
    for c in [
        "OrderProperties.timeoutMinutes",
        "OrderServiceImpl.timeoutMinutes",
        "OrderServiceImpl.createOrder",
        "OrderServiceImpl.closeExpiredOrders",
    ] {
        assert!(changed.contains(&c.to_string()), "{c} not in {changed:?}");
    }
    assert!(
        r["changes"].as_array().unwrap().iter().all(|c| c["via"]
            .as_str()
            .unwrap()
            .starts_with("config:shop.order.timeout-minutes")),
        "{r:#}"
    );
    assert!(has_entry(&r, "POST /api/orders"), "{r:#}");
    assert!(has_entry(&r, "cron=0 */5 * * * ?"), "{r:#}");
    insta::assert_json_snapshot!("config_key", r);
}

#[test]
fn git_ranges_and_review_comments() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    let p = root.join(ORDER_SERVICE);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace(
            "return; // already paid or cancelled",
            "throw new IllegalStateException(\"not cancellable\");",
        ),
    )
    .unwrap();
    git(&root, &["commit", "-qam", "cancel throws"]);
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["impact", "--git", "HEAD~1..HEAD", "--format", "markdown"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8(o.stdout).unwrap();
    assert!(md.starts_with("### Impact of this change"), "{md}");
    assert!(
        md.contains("| `OrderServiceImpl.cancelOrder` method | body changed |"),
        "{md}"
    );
    assert!(md.len() <= 65_000);
    insta::assert_snapshot!("body_change_markdown", md);

    // A diff that touches nothing indexed: exit 1 and a note, not an error.
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["impact", "--diff", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("no unified diff found"));
}

/// Regression: `impact --git A..B` with the index at B said every hunk "does not match the
/// indexed revision". From an index at either end it reads the same change, citing lines of
/// the indexed commit; at neither end it says which revision to index.
#[test]
fn a_git_range_reads_from_an_index_at_either_end() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = fixture(tmp.path());
    const AUDIT: &str = "shop-order/src/main/java/com/shop/order/service/OrderAudit.java";
    let p = root.join(ORDER_SERVICE);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(
        &p,
        text.replace(
            "return; // already paid or cancelled",
            "throw new IllegalStateException(\"not cancellable\");",
        ),
    )
    .unwrap();
    write(
        &root,
        AUDIT,
        support::java_class("com.shop.order.service", "OrderAudit", "audit"),
    );
    git(&root, &["add", "."]);
    git(&root, &["commit", "-qm", "cancel throws, audit"]);
    let range = |range: &str| {
        codemap()
            .arg("--index-dir")
            .arg(&idx)
            .args([
                "--repo",
                root.to_str().unwrap(),
                "impact",
                "--json",
                "--git",
                range,
            ])
            .output()
            .unwrap()
    };
    let changes = |r: &Value| -> Vec<(String, String)> {
        r["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["symbol"].as_str().unwrap().into(),
                    c["change"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let cancel = (
        "OrderServiceImpl.cancelOrder".to_string(),
        "body".to_string(),
    );

    // Index at the start (as committed by the fixture): the diff reads forwards.
    let o = range("HEAD~1..HEAD");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let at_start: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(changes(&at_start).contains(&cancel), "{at_start:#}");

    // Index at the end: the same change, and the new class reads as added.
    let reindex = || {
        let o = codemap()
            .arg("--index-dir")
            .arg(&idx)
            .args(["index", "-q"])
            .arg(&root)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    reindex();
    let o = range("HEAD~1..HEAD");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let at_end: Value = serde_json::from_slice(&o.stdout).unwrap();
    let got = changes(&at_end);
    assert!(got.contains(&cancel), "{at_end:#}");
    assert!(
        got.contains(&("OrderAudit".to_string(), "added".to_string())),
        "{got:?}"
    );
    assert!(
        !at_end["notes"].to_string().contains("does not match"),
        "{at_end:#}"
    );
    assert_places_resolve(&root, &at_end);

    // At neither end: an error naming the revisions to index.
    git(&root, &["commit", "-q", "--allow-empty", "-m", "later"]);
    reindex();
    let o = range("HEAD~2..HEAD~1");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("neither end of HEAD~2..HEAD~1") && err.contains("at HEAD~2 or at HEAD~1"),
        "{err}"
    );
}
