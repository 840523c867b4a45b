//! `git diff | codemap ask -` on a real git repository: the working-tree change is placed in
//! the indexed commit and answered with the changed method, its callers, its tests and the
//! entry points (routes, schedules, listeners) whose calls reach it.

mod support;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use support::{codemap, copy_shop, git, write};

const PRICES: &str = "package shop;\n\n/** Prices carts. */\npublic class Prices {\n    /** The total in cents, discount applied. */\n    public long total(long cents, int percentOff) {\n        long off = cents * percentOff / 100;\n        return cents - off;\n    }\n}\n";

const CHECKOUT: &str = "package shop;\n\npublic class Checkout {\n    private final Prices prices = new Prices();\n\n    public long pay(long cents) {\n        return prices.total(cents, 10);\n    }\n}\n";

const TEST: &str = "package shop;\n\npublic class PricesTest {\n    public void tenPercent() {\n        assert new Prices().total(1000, 10) == 900;\n    }\n}\n";

/// Commits `root`, indexes it into `root/.codemap`, and returns the index folder.
fn commit_and_index(root: &Path) -> PathBuf {
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "base"]);
    let idx = root.join(".codemap");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", "-q"])
        .arg(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    idx
}

/// `git diff | codemap --json ask -` with `question` before the diff.
fn ask_diff(root: &Path, idx: &Path, question: &str) -> serde_json::Value {
    let diff = git(root, &["diff"]);
    assert!(diff.contains("@@ -"), "{diff}");
    let mut child = codemap()
        .arg("--index-dir")
        .arg(idx)
        .args(["--json", "ask", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{question}\n{diff}").as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// (entry, handler symbol) pairs of an answer's entry points.
fn entries(a: &serde_json::Value) -> Vec<(String, String)> {
    a["entry_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["entry"].as_str().unwrap().to_string(),
                e["symbol"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_diff_names_the_routes_schedules_and_listeners_that_reach_the_change() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    copy_shop(root);
    let idx = commit_and_index(root);
    let file = "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let edited = text.replace(
        "return; // already paid or cancelled",
        "throw new IllegalStateException(\"not cancellable\");",
    );
    assert_ne!(edited, text);
    write(root, file, edited);
    let a = ask_diff(root, &idx, "这个改动会影响哪些接口？");
    assert_eq!(a["intent"], "impact");
    assert_eq!(
        a["changes"][0]["symbol"], "OrderServiceImpl.cancelOrder",
        "{a:#}"
    );
    let entries = entries(&a);
    let has = |entry: &str, symbol: &str| {
        entries
            .iter()
            .any(|(e, s)| e.contains(entry) && s == symbol)
    };
    assert!(
        has(
            "POST /api/orders/{orderId}/cancel",
            "OrderController.cancel"
        ),
        "{entries:?}"
    );
    assert!(
        has("cron=0 */5 * * * ?", "OrderTimeoutJob.closeExpiredOrders"),
        "{entries:?}"
    );
    assert!(
        has("@RabbitListener", "OrderCancelListener.onCancel"),
        "{entries:?}"
    );
    // Nothing that does not reach cancelOrder.
    assert!(
        !entries.iter().any(|(_, s)| s == "OrderController.pay"),
        "{entries:?}"
    );
    let text = a["answer"].as_str().unwrap();
    assert!(text.contains("Entry points that reach it:"), "{text}");
}

#[test]
fn a_working_tree_diff_piped_into_ask_names_the_change_its_callers_and_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "src/main/java/shop/Prices.java", PRICES);
    write(root, "src/main/java/shop/Checkout.java", CHECKOUT);
    write(root, "src/test/java/shop/PricesTest.java", TEST);
    let idx = commit_and_index(root);

    // Round down instead of truncating: a body change in Prices.total.
    write(
        root,
        "src/main/java/shop/Prices.java",
        PRICES.replace(
            "long off = cents * percentOff / 100;",
            "long off = Math.round(cents * percentOff / 100.0);",
        ),
    );
    let a = ask_diff(root, &idx, "what does this break?");
    assert_eq!(a["intent"], "impact");
    let changes = a["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{a:#}");
    assert_eq!(changes[0]["symbol"], "Prices.total");
    assert_eq!(changes[0]["change"], "body");
    assert_eq!(changes[0]["lines"], serde_json::json!([7]));
    let cited: Vec<&str> = a["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["symbol"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        cited,
        ["Prices.total", "Checkout.pay", "PricesTest.tenPercent"],
        "{a:#}"
    );
    let text = a["answer"].as_str().unwrap();
    assert!(
        text.contains("Callers whose behaviour may change:\n- Checkout.pay"),
        "{text}"
    );
    assert!(
        text.contains("Tests that reach it:\n- PricesTest.tenPercent"),
        "{text}"
    );
}

/// A named change ("what is the impact of changing X?", "who calls X?") lists its entry points
/// too, across a Feign call between services; a Feign client's mapping is the remote endpoint,
/// not an entry.
#[test]
fn impact_of_a_named_method_reaches_routes_across_services() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    copy_shop(root);
    let idx = commit_and_index(root);
    for (question, intent) in [
        (
            "what is the impact of changing InventoryServiceImpl.deductStock?",
            "impact",
        ),
        ("who calls deductStock?", "callers"),
    ] {
        let o = codemap()
            .arg("--index-dir")
            .arg(&idx)
            .args(["--json", "ask", question])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(a["intent"], intent);
        assert_eq!(
            entries(&a),
            [
                (
                    "POST /api/inventory/deduct".to_string(),
                    "InventoryController.deduct".to_string()
                ),
                (
                    "POST /api/orders".to_string(),
                    "OrderController.create".to_string()
                )
            ],
            "{question}: {a:#}"
        );
    }
}
