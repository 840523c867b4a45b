//! `codemap docgen` end to end: exit 0 when it wrote, 1 when nothing changed, 2 on a bad
//! steering file (named in the message, nothing written).

mod support;
use std::path::Path;
use support::*;

#[test]
fn docgen_exit_codes_follow_what_it_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    let idx = tmp.path().join("idx");
    let o = run(&idx, &["index", root.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let docgen = |extra: &[&str]| {
        let mut args = vec!["--repo", root.to_str().unwrap(), "docgen"];
        args.extend_from_slice(extra);
        run(&idx, &args)
    };

    let first = docgen(&[]);
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(stdout(&first).contains("wrote docs/codemap/shop-order.md"));
    let again = docgen(&[]);
    assert_eq!(again.status.code(), Some(1));
    assert!(stdout(&again).contains("nothing written"));

    // Another folder and README markers through the flags.
    let marked = docgen(&["--out", "maps", "--readme-markers", "--json"]);
    assert_eq!(marked.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&marked.stdout).unwrap();
    let written: Vec<&str> = v["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(written.contains(&"maps/README.md") && written.contains(&"shop-order/README.md"));

    write(
        &root,
        "codemap-docs.toml",
        "skip = [\"shop-gateway\"]\nlinkz = 1\n",
    );
    let bad = docgen(&[]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("codemap-docs.toml") && err.contains("linkz"),
        "{err}"
    );
}

/// Regression: `--out /abs/path` wrote the state file at /abs/path and the pages under
/// `<repo>/abs/path`.
#[test]
fn an_absolute_out_folder_holds_the_pages_and_the_state_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = indexed_shop(tmp.path());
    let docgen = |out: &Path| {
        run(
            &idx,
            &[
                "--repo",
                root.to_str().unwrap(),
                "docgen",
                "--out",
                out.to_str().unwrap(),
            ],
        )
    };
    let out = root.join("site/maps");
    let o = docgen(&out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // shop-order is a module of the fixture's parent pom.
    let pom = std::fs::read_to_string(root.join("pom.xml")).unwrap();
    assert!(pom.contains("<module>shop-order</module>"));
    for f in ["README.md", "shop-order.md", ".state.json"] {
        assert!(out.join(f).is_file(), "{f} is not in {}", out.display());
    }
    let stray = root.join(out.strip_prefix("/").unwrap());
    assert!(!stray.exists(), "pages went to {}", stray.display());
    assert!(stdout(&o).contains("wrote site/maps/shop-order.md"));
    // The same folder given relatively is the same run: nothing to write.
    let again = run(
        &idx,
        &[
            "--repo",
            root.to_str().unwrap(),
            "docgen",
            "--out",
            "site/maps",
        ],
    );
    assert_eq!(again.status.code(), Some(1), "{}", stdout(&again));

    // Outside the repository: refused, named, nothing written anywhere.
    let elsewhere = tmp.path().join("maps");
    let bad = docgen(&elsewhere);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("outside the repository"), "{err}");
    assert!(!elsewhere.exists());
}

/// Regression: `--readme-markers` appended an empty map block to the top-level README for the
/// root module, which has no code (the shop's root is an aggregator pom).
#[test]
fn readme_markers_leave_the_readme_of_a_module_without_code_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    let pom = std::fs::read_to_string(root.join("pom.xml")).unwrap();
    assert!(pom.contains("<packaging>pom</packaging>"));
    let human = "# Shop\n\nA demo shop, one Maven module per service.\n";
    write(&root, "README.md", human);
    let idx = tmp.path().join("idx");
    let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(
        &idx,
        &[
            "--repo",
            root.to_str().unwrap(),
            "docgen",
            "--readme-markers",
            "--json",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let written: Vec<&str> = v["written"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(written.contains(&"shop-order/README.md"), "{written:?}");
    assert!(!written.contains(&"README.md"), "{written:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("README.md")).unwrap(),
        human
    );
    // The global page still lists every module; links resolve (the run checked them).
    let index = std::fs::read_to_string(root.join("docs/codemap/README.md")).unwrap();
    assert!(index.contains("shop-order"), "{index}");
}

/// Maps of a work tree with uncommitted changes say so; once the tree is back at its commit the
/// changed page names the commit alone.
#[test]
fn maps_of_a_dirty_tree_say_the_commit_has_uncommitted_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "base"]);
    let head = git(&root, &["rev-parse", "--short=12", "HEAD"])
        .trim()
        .to_string();
    let service = "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";
    let text = std::fs::read_to_string(root.join(service)).unwrap();
    let at = text.rfind('}').unwrap();
    let edited = format!(
        "{}\n    public int audit() {{\n        return 1;\n    }}\n}}\n",
        &text[..at]
    );
    write(&root, service, edited);
    let idx = tmp.path().join("idx");
    let cycle = || {
        let o = run(&idx, &["index", root.to_str().unwrap(), "--quiet"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let o = run(&idx, &["--repo", root.to_str().unwrap(), "docgen"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let page = |p: &str| std::fs::read_to_string(root.join("docs/codemap").join(p)).unwrap();
    let dirty = format!("commit `{head}` with uncommitted changes");

    cycle();
    assert!(
        page("shop-order.md").contains(&dirty),
        "{}",
        page("shop-order.md")
    );
    assert!(page("README.md").contains(&dirty), "{}", page("README.md"));

    // The edit undone (the maps are left out of the comparison: they are not committed here).
    git(&root, &["checkout", "-q", "--", service]);
    cycle();
    let order = page("shop-order.md");
    assert!(
        order.contains(&format!("commit `{head}` (where")),
        "{order}"
    );
    let header: String = order.lines().take(4).collect();
    assert!(!header.contains("uncommitted"), "{order}");
    // What it is compared with was the dirty tree's map.
    assert!(order.contains(&format!("Since {dirty}:")), "{order}");
}

/// Regression: with no earlier snapshot in the index (a fresh index, as on a CI runner, beside
/// the committed maps), "Changes since the last map" said "No symbol was added or removed". A
/// fresh index numbers its snapshots from 1 again, so without git the map's snapshot 1 and
/// the new snapshot 1 were taken for one and the same.
#[test]
fn a_fresh_index_has_nothing_to_compare_the_last_map_with() {
    for with_git in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("shop");
        copy_shop(&root);
        if with_git {
            git(&root, &["init", "-q"]);
            git(&root, &["add", "."]);
            git(&root, &["commit", "-q", "-m", "base"]);
        }
        let docgen = |idx: &Path| index_and_docgen(idx, &root);
        docgen(&tmp.path().join("idx1"));
        // A snapshot is told apart by its commit, or by when it was indexed (in seconds).
        let t = now();
        while now() == t {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let service = "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java";
        let text = std::fs::read_to_string(root.join(service)).unwrap();
        let edited = text.replace(
            "return; // already paid or cancelled",
            "throw new IllegalStateException(\"not cancellable\");",
        );
        assert_ne!(edited, text);
        write(&root, service, edited);
        if with_git {
            git(&root, &["commit", "-qam", "cancel throws"]);
        }
        docgen(&tmp.path().join("idx2"));
        let page = std::fs::read_to_string(root.join("docs/codemap/shop-order.md")).unwrap();
        let changes = &page[page.find("## Changes since the last map").unwrap()..];
        assert!(
            changes.contains(
                "Nothing to compare with: the index holds no snapshot of the previous map"
            ),
            "git {with_git}: {changes}"
        );
        assert!(
            !changes.contains("No symbol was added or removed"),
            "git {with_git}: {changes}"
        );
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

const DEMO_APP: &str = "package com.shop.demo;\n\nimport org.springframework.boot.SpringApplication;\nimport org.springframework.boot.autoconfigure.SpringBootApplication;\n\n@SpringBootApplication\npublic class DemoApplication {\n    public static void main(String[] args) {\n        SpringApplication.run(DemoApplication.class, args);\n    }\n}\n";

const DEMO_CONTROLLER: &str = "package com.shop.demo.web;\n\nimport org.springframework.web.bind.annotation.*;\n\n@RestController\n@RequestMapping(\"/demo\")\npublic class DemoController {\n    @GetMapping(\"/hello\")\n    public String hello() {\n        return \"hello\";\n    }\n}\n";

/// Regression: a module whose code is classed as example (a `*-demo` module) said "No routes,
/// listeners, schedules, `main` methods or public types found" although it has a controller and
/// a `main`. Its page says where its code is and what it holds.
#[test]
fn an_example_module_says_what_its_code_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    copy_shop(&root);
    let pom = std::fs::read_to_string(root.join("pom.xml")).unwrap();
    write(
        &root,
        "pom.xml",
        pom.replace(
            "<module>shop-mall</module>",
            "<module>shop-mall</module>\n    <module>shop-demo</module>",
        ),
    );
    let order_pom = std::fs::read_to_string(root.join("shop-order/pom.xml")).unwrap();
    write(
        &root,
        "shop-demo/pom.xml",
        order_pom.replace("shop-order", "shop-demo"),
    );
    let java = "shop-demo/src/main/java/com/shop/demo";
    write(&root, &format!("{java}/DemoApplication.java"), DEMO_APP);
    write(
        &root,
        &format!("{java}/web/DemoController.java"),
        DEMO_CONTROLLER,
    );
    let idx = tmp.path().join("idx");
    index_and_docgen(&idx, &root);
    let page = std::fs::read_to_string(root.join("docs/codemap/shop-demo.md")).unwrap();
    let entries = &page[page.find("## Entry points").unwrap()..page.find("## Key flows").unwrap()];
    assert!(!entries.contains("public types found"), "{entries}");
    assert!(
        entries.contains(&format!("example code, 2 files under `{java}/`")),
        "{entries}"
    );
    assert!(
        entries.contains("`GET /demo/hello → DemoController.hello`"),
        "{entries}"
    );
    assert!(entries.contains("`DemoApplication.main`"), "{entries}");
    // A module with production entry points keeps its table.
    let order = std::fs::read_to_string(root.join("docs/codemap/shop-order.md")).unwrap();
    assert!(order.contains("| Kind | Entry | Handler |") && !order.contains("Its\nother code"));
}
