//! `git diff | codemap ask -` on a real git repository: the working-tree change is placed in
//! the indexed commit and answered with the changed method, its callers and its tests.

mod support;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use support::{codemap, write};

fn git(root: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const PRICES: &str = "package shop;\n\n/** Prices carts. */\npublic class Prices {\n    /** The total in cents, discount applied. */\n    public long total(long cents, int percentOff) {\n        long off = cents * percentOff / 100;\n        return cents - off;\n    }\n}\n";

const CHECKOUT: &str = "package shop;\n\npublic class Checkout {\n    private final Prices prices = new Prices();\n\n    public long pay(long cents) {\n        return prices.total(cents, 10);\n    }\n}\n";

const TEST: &str = "package shop;\n\npublic class PricesTest {\n    public void tenPercent() {\n        assert new Prices().total(1000, 10) == 900;\n    }\n}\n";

#[test]
fn a_working_tree_diff_piped_into_ask_names_the_change_its_callers_and_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "src/main/java/shop/Prices.java", PRICES);
    write(root, "src/main/java/shop/Checkout.java", CHECKOUT);
    write(root, "src/test/java/shop/PricesTest.java", TEST);
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "prices"]);
    let idx = root.join(".codemap");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", "-q"])
        .arg(root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // Round down instead of truncating: a body change in Prices.total.
    write(
        root,
        "src/main/java/shop/Prices.java",
        PRICES.replace(
            "long off = cents * percentOff / 100;",
            "long off = Math.round(cents * percentOff / 100.0);",
        ),
    );
    let diff = git(root, &["diff"]);
    assert!(diff.contains("@@ -"), "{diff}");

    let mut child = codemap()
        .arg("--index-dir")
        .arg(&idx)
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
        .write_all(format!("what does this break?\n{diff}").as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
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
