//! docgen over the e-commerce fixture, end to end: a real index built from tests/fixtures/shop,
//! pages snapshotted, a second run writing nothing, a one-method edit rewriting only its
//! module's page, every citation resolving, README markers keeping human text.

mod support;

use docgen::{Options, OutputMode};
use indexer::store::{EmbeddedIndex, IndexDir};
use std::path::Path;
use support::{assert_citations_resolve, index, pages, shop};

const ORDER_IMPL: &str =
    "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";

fn generate(_root: &Path, dir: &IndexDir, opts: &Options) -> docgen::Outcome {
    support::generate(dir, opts)
}

#[test]
fn shop_pages_snapshot_and_cite_only_real_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, dir) = shop(tmp.path());
    let out = generate(&root, &dir, &Options::new(&root));
    assert!(out.changed);
    let pages = pages(&root);
    let names: Vec<&str> = pages.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "README.md",
            "shop-common.md",
            "shop-coupon.md",
            "shop-gateway.md",
            "shop-inventory.md",
            "shop-mall.md",
            "shop-notify.md",
            "shop-order.md",
            "shop-parent.md",
            "shop-payment.md"
        ]
    );
    let mut cited = 0;
    for (name, text) in &pages {
        cited += assert_citations_resolve(&root, &format!("docs/codemap/{name}"), text);
        insta::assert_snapshot!(format!("shop__{name}"), text);
    }
    assert!(cited > 100, "{cited}");
    // The written list is exactly the pages and the state file.
    let mut expect: Vec<String> = names.iter().map(|n| format!("docs/codemap/{n}")).collect();
    expect.push("docs/codemap/.state.json".into());
    expect.sort();
    assert_eq!(out.written, expect);
}

#[test]
fn a_second_run_writes_nothing_and_an_edit_rewrites_only_its_module() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, dir) = shop(tmp.path());
    let opts = Options::new(&root);
    generate(&root, &dir, &opts);
    let before = pages(&root);
    let state_before = std::fs::read(root.join("docs/codemap/.state.json")).unwrap();

    let again = generate(&root, &dir, &opts);
    assert!(!again.changed, "{again:?}");
    assert!(again.written.is_empty());
    assert_eq!(pages(&root), before);
    assert_eq!(
        std::fs::read(root.join("docs/codemap/.state.json")).unwrap(),
        state_before
    );

    // One method body edited, same line count: only shop-order's page (and the state) change.
    let path = root.join(ORDER_IMPL);
    let src = std::fs::read_to_string(&path).unwrap();
    let edited = src.replace(
        "return orderMapper.selectById(orderId);",
        "return orderId == null ? null : orderMapper.selectById(orderId);",
    );
    assert_ne!(src, edited);
    std::fs::write(&path, edited).unwrap();
    index(&root, &dir);
    let out = generate(&root, &dir, &opts);
    assert_eq!(
        out.written,
        vec!["docs/codemap/.state.json", "docs/codemap/shop-order.md"]
    );
    assert_eq!(out.modules_changed, vec!["shop-order"]);
    let after = pages(&root);
    for ((name, old), (_, new)) in before.iter().zip(&after) {
        assert_eq!(old == new, name != "shop-order.md", "{name}");
    }
    let order = &after.iter().find(|p| p.0 == "shop-order.md").unwrap().1;
    assert!(
        order.contains("- changed `OrderServiceImpl.getOrder` ([OrderServiceImpl.java:90]"),
        "{order}"
    );
    assert_citations_resolve(&root, "docs/codemap/shop-order.md", order);
    // And that is stable too.
    assert!(!generate(&root, &dir, &opts).changed);
}

#[test]
fn readme_markers_keep_the_human_text() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, dir) = shop(tmp.path());
    let human = "# Orders\n\nHand-written intro: orders are never deleted.\n\n<!-- codemap:begin -->\nstale\n<!-- codemap:end -->\n\nFooter by a human, [linking nowhere](no/such/page.md).\n";
    std::fs::write(root.join("shop-order/README.md"), human).unwrap();
    index(&root, &dir);
    let mut opts = Options::new(&root);
    opts.mode = OutputMode::ReadmeMarkers;
    let out = generate(&root, &dir, &opts);
    assert!(out.written.contains(&"shop-order/README.md".to_string()));
    // Re-indexing the written READMEs changes no model: nothing is rewritten.
    index(&root, &dir);
    assert!(!generate(&root, &dir, &opts).changed);
    let text = std::fs::read_to_string(root.join("shop-order/README.md")).unwrap();
    assert!(text.starts_with(
        "# Orders\n\nHand-written intro: orders are never deleted.\n\n<!-- codemap:begin -->\n\n## shop-order\n"
    ));
    // The human's broken link is theirs: kept, and not a reason to stop.
    assert!(text.ends_with(
        "<!-- codemap:end -->\n\nFooter by a human, [linking nowhere](no/such/page.md).\n"
    ));
    assert!(!text.contains("stale"));
    // The README is the purpose now, cited at its line.
    assert!(
        text.contains(
            "Hand-written intro: orders are never deleted. (README, [README.md:3](README.md#L3))"
        ),
        "{text}"
    );
    assert_citations_resolve(&root, "shop-order/README.md", &text);
    // Modules without a README got one with only the block.
    let common = std::fs::read_to_string(root.join("shop-common/README.md")).unwrap();
    assert!(common.starts_with("<!-- codemap:begin -->\n\n## shop-common\n"));
    assert!(!generate(&root, &dir, &opts).changed);
}

#[test]
fn steering_skips_modules_adds_notes_and_names_bad_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, dir) = shop(tmp.path());
    std::fs::write(root.join("ONBOARDING.md"), "# Onboarding\n").unwrap();
    std::fs::write(
        root.join("codemap-docs.toml"),
        "skip = [\"shop-gateway\"]\n[links]\nhost = \"github\"\nbase = \"https://github.com/acme/shop\"\n[notes]\nshop-order = \"Orders are cancelled by the **timeout job**.\"\n[[pages]]\ntitle = \"Onboarding\"\npath = \"ONBOARDING.md\"\nabout = \"start here\"\n",
    )
    .unwrap();
    let opts = Options::new(&root);
    generate(&root, &dir, &opts);
    assert!(!root.join("docs/codemap/shop-gateway.md").exists());
    let order = std::fs::read_to_string(root.join("docs/codemap/shop-order.md")).unwrap();
    assert!(order.contains("## Notes\n\nOrders are cancelled by the **timeout job**.\n"));
    assert!(order.contains("](https://github.com/acme/shop/blob/HEAD/shop-order/src/main/java/com/shop/order/controller/OrderController.java#L18-L22)"), "{order}");
    let index = std::fs::read_to_string(root.join("docs/codemap/README.md")).unwrap();
    assert!(index.contains("- [Onboarding](../../ONBOARDING.md): start here\n"));
    assert!(!index.contains("shop-gateway"));

    std::fs::write(
        root.join("codemap-docs.toml"),
        "[notes]\nshop-order = \"x\"\nlink = 1\n",
    )
    .unwrap();
    let idx = EmbeddedIndex::open(&dir).unwrap();
    let e = docgen::generate(&idx, &opts).unwrap_err().to_string();
    assert!(e.contains("codemap-docs.toml") && e.contains("link"), "{e}");
}
