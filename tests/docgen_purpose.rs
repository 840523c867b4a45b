//! `codemap docgen` says what each module is for in the repository's own words (issue 38): the
//! module's README, the root README's line about it (a tree, a table row, a list item), the
//! build file's description when it says more than the name, and never authoring boilerplate.
//! The expected texts are read back from the files the test writes, not from codemap's output.

mod support;
use support::*;

/// The text after `sep` on the line of `file` that contains `marker`, and that line's number.
fn said(file: &str, marker: &str, sep: &str) -> (String, usize) {
    let (i, line) = file
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(marker))
        .unwrap_or_else(|| panic!("{marker} not in {file}"));
    let text = line.split_once(sep).unwrap().1;
    (text.trim().trim_end_matches('|').trim().to_string(), i + 1)
}

#[test]
fn each_module_page_states_the_purpose_the_repository_gives_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    let readme = "# shop\n\n> 1. **Demo**: see the wiki.\n\nAn online shop in modules.\n\n```\nshop\n├── shop-order -- 订单下单与取消\n└── shop-order-admin -- not a module here\n```\n\n| Module | What it does |\n| --- | --- |\n| [`shop-payment`](shop-payment/) | Payment callbacks from the gateway |\n\n- **shop-coupon**: coupon rules and redemption\n";
    write(&root, "README.md", readme);
    write(
        &root,
        "shop-mall/README.md",
        "# shop-mall\n\nThe storefront API the mobile app calls.\n",
    );
    let pom = |name: &str, description: &str| {
        let path = root.join(name).join("pom.xml");
        let text = std::fs::read_to_string(&path).unwrap().replace(
            &format!("<artifactId>{name}</artifactId>"),
            &format!("<artifactId>{name}</artifactId>\n  <description>{description}</description>"),
        );
        std::fs::write(&path, text).unwrap();
    };
    write(
        &root,
        "doc/modules.md",
        "# Modules\n\n## 3.1 shop-gateway\n\nSee 4.2.\n\n## 4.2 shop-gateway\n\nRoutes every request to the services behind it.\n",
    );
    pom("shop-inventory", "Stock levels and deductions");
    pom("shop-notify", "shop-notify project for shop");
    let sender = root.join("shop-notify/src/main/java/com/shop/notify/sender/SmsSender.java");
    let text = std::fs::read_to_string(&sender).unwrap();
    let documented = text.replacen(
        "public interface SmsSender",
        "/**\n * Sends text messages to customers.\n * Created by macro on 2018/8/27.\n */\npublic interface SmsSender",
        1,
    );
    assert_ne!(text, documented, "the fixture's SmsSender changed");
    std::fs::write(&sender, documented).unwrap();

    let idx = tmp.path().join("idx");
    index_and_docgen(&idx, &root);
    let page =
        |m: &str| std::fs::read_to_string(root.join(format!("docs/codemap/{m}.md"))).unwrap();

    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for (module, sep) in [
        ("shop-order", "--"),
        ("shop-payment", ") |"),
        ("shop-coupon", "**:"),
    ] {
        let (text, line) = said(&readme, module, sep);
        let want = format!("{text} (root README, [README.md:{line}]");
        assert!(
            page(module).contains(&want),
            "{module}: no {want:?} in\n{}",
            page(module)
        );
    }
    let own = std::fs::read_to_string(root.join("shop-mall/README.md")).unwrap();
    let para = own.lines().nth(2).unwrap();
    assert!(
        page("shop-mall").contains(&format!("{para} (README, ")),
        "{}",
        page("shop-mall")
    );
    let (desc, line) = said(
        &std::fs::read_to_string(root.join("shop-inventory/pom.xml")).unwrap(),
        "<description>",
        "<description>",
    );
    let desc = desc.trim_end_matches("</description>");
    assert!(
        page("shop-inventory").contains(&format!("{desc} (build file, [pom.xml:{line}]")),
        "{}",
        page("shop-inventory")
    );
    // A section of the documentation folder headed by the module's name; a cross-reference
    // ("See 4.2.") is not a description.
    let doc = std::fs::read_to_string(root.join("doc/modules.md")).unwrap();
    let (at, para) = doc
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("Routes"))
        .unwrap();
    let want = format!("{para} (docs, [modules.md:{}]", at + 1);
    assert!(
        page("shop-gateway").contains(&want),
        "{want:?} not in {}",
        page("shop-gateway")
    );
    // A description that only repeats the name is passed over for the code's own docs, with
    // the authoring line left out.
    let notify = page("shop-notify");
    assert!(!notify.contains("project for shop"), "{notify}");
    assert!(
        notify.contains("Sends text messages to customers."),
        "{notify}"
    );
    for m in [
        "shop-order",
        "shop-payment",
        "shop-coupon",
        "shop-mall",
        "shop-notify",
    ] {
        assert!(
            !page(m).contains("Created by"),
            "{m}: boilerplate in\n{}",
            page(m)
        );
    }
}
