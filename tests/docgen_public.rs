//! Code maps of two public multi-module Spring repositories, checked against the repositories'
//! own files (issue 38): macrozheng/mall at 74eebe06 and linlinjava/litemall at a1ef964a. CI
//! cannot fetch them, so the tests are ignored there and run where a checkout exists:
//!
//! ```sh
//! CODEMAP_MALL=/path/to/mall CODEMAP_LITEMALL=/path/to/litemall \
//!   cargo test --test docgen_public -- --ignored
//! ```
//!
//! What is checked comes from the repositories, not from codemap: each module's purpose is its
//! line in the root README's module tree (mall); the module graph is the graph of `import`
//! lines between the modules' packages; the order write paths named by the controllers
//! (`generateOrder`, `paySuccess`, the `@RabbitListener` queue) lead flows.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use support::git;

/// The repository named by `var`, copied into `tmp` (docgen writes pages), committed, indexed
/// and mapped; `None` when the variable is unset.
fn mapped(var: &str, tmp: &Path) -> Option<PathBuf> {
    let src = PathBuf::from(std::env::var_os(var)?);
    let repo = tmp.join("repo");
    let o = std::process::Command::new("cp")
        .args(["-r", src.to_str().unwrap(), repo.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success());
    for generated in [".codemap", "docs/codemap", ".git"] {
        let _ = std::fs::remove_dir_all(repo.join(generated));
    }
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "checkout"]);
    support::index_and_docgen(&tmp.join("idx"), &repo);
    Some(repo)
}

fn page(repo: &Path, module: &str) -> String {
    std::fs::read_to_string(repo.join(format!("docs/codemap/{module}.md")))
        .unwrap_or_else(|e| panic!("page of {module}: {e}"))
}

/// The modules a page says its module uses (its "Uses:" list).
fn uses(page: &str) -> BTreeSet<String> {
    let Some(at) = page.find("\nUses:\n") else {
        return BTreeSet::new();
    };
    page[at..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("- [") || l.is_empty())
        .filter_map(|l| l.strip_prefix("- [")?.split(']').next())
        .map(str::to_string)
        .collect()
}

/// Each Maven module's other modules its Java files import (package → module by the packages
/// the module's own files declare).
fn import_graph(repo: &Path, modules: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut imports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for m in modules {
        for file in java_files(&repo.join(m)) {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for line in text.lines() {
                let l = line.trim();
                if let Some(p) = l.strip_prefix("package ") {
                    owner.insert(p.trim_end_matches(';').trim().to_string(), m.to_string());
                } else if let Some(i) = l.strip_prefix("import ") {
                    let i = i.trim_start_matches("static ").trim_end_matches(';').trim();
                    imports
                        .entry(m.to_string())
                        .or_default()
                        .push(i.to_string());
                }
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, list) in imports {
        for i in list {
            // The longest declared package the import lies in.
            let used = owner
                .iter()
                .filter(|(p, _)| i.starts_with(&format!("{p}.")))
                .max_by_key(|(p, _)| p.len())
                .map(|(_, o)| o.clone());
            if let Some(u) = used.filter(|u| *u != m) {
                graph.entry(m.clone()).or_default().insert(u);
            }
        }
    }
    graph
}

fn java_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(p);
            }
        }
    }
    out
}

fn assert_graph_is_the_import_graph(repo: &Path, modules: &[&str]) {
    let imports = import_graph(repo, modules);
    for m in modules {
        let want = imports.get(*m).cloned().unwrap_or_default();
        assert_eq!(
            uses(&page(repo, m)),
            want,
            "{m}: the page's uses against its imports"
        );
    }
}

#[test]
#[ignore = "needs a checkout of macrozheng/mall (74eebe06) in CODEMAP_MALL"]
fn mall_maps_match_its_readme_and_its_imports() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(repo) = mapped("CODEMAP_MALL", tmp.path()) else {
        panic!("set CODEMAP_MALL to a checkout of macrozheng/mall at 74eebe06");
    };
    let modules = [
        "mall-admin",
        "mall-common",
        "mall-demo",
        "mall-mbg",
        "mall-portal",
        "mall-search",
        "mall-security",
    ];
    // Purposes: the README's module tree, `├── mall-mbg -- MyBatisGenerator生成的…`.
    let readme = std::fs::read_to_string(repo.join("README.md")).unwrap();
    let mut described = 0;
    for line in readme.lines() {
        let l = line.trim_start_matches(['├', '└', '─', '│', ' ']);
        if let Some((name, about)) = l.split_once(" -- ")
            && modules.contains(&name.trim())
        {
            let p = page(&repo, name.trim());
            assert!(p.contains(about.trim()), "{name}: purpose {about:?}");
            described += 1;
        }
    }
    assert_eq!(
        described,
        modules.len(),
        "every module is in the README's tree"
    );
    assert_graph_is_the_import_graph(&repo, &modules);
    // Flows: the order placement and payment callback routes, and the cancel queue's listener.
    let portal = page(&repo, "mall-portal");
    let flows = &portal[portal.find("## Key flows").unwrap()..];
    for want in [
        "POST /order/generateOrder",
        "POST /order/paySuccess",
        "mall.order.cancel",
    ] {
        assert!(flows.contains(want), "mall-portal's flows lead with {want}");
    }
    // The payment callback's flow reaches the mapper call its service method makes.
    let service = std::fs::read_to_string(repo.join(
        "mall-portal/src/main/java/com/macro/mall/portal/service/impl/OmsPortalOrderServiceImpl.java",
    ))
    .unwrap();
    let body = &service[service.find("public Integer paySuccess").unwrap()..];
    let body = &body[..body.find("\n    }").unwrap()];
    let mapper_call = body
        .split("orderMapper.")
        .nth(1)
        .and_then(|r| r.split('(').next())
        .unwrap();
    let pay_flow = &flows[flows.find("POST /order/paySuccess").unwrap()..];
    let pay_flow = &pay_flow[..pay_flow.find("\n### ").unwrap_or(pay_flow.len())];
    assert!(
        pay_flow.contains(mapper_call),
        "the paySuccess flow reaches orderMapper.{mapper_call}"
    );
    // The cancel queue on both sides: the class that sends through the enum-held exchange (to
    // the TTL queue that dead-letters into it) and the class listening on it.
    let sender = class_with(&repo.join("mall-portal"), "convertAndSend(QueueEnum.");
    let receiver = class_with(
        &repo.join("mall-portal"),
        "@RabbitListener(queues = \"mall.order.cancel\")",
    );
    let topics = &portal[portal.find("## Topics and events").unwrap()..];
    let cancel = topics
        .lines()
        .find(|l| l.contains("→ queue mall.order.cancel`"))
        .expect("the cancel queue is listed");
    assert!(
        cancel.contains(&format!("sent by `{sender}.")),
        "sent by {sender}: {cancel}"
    );
    assert!(
        cancel.contains(&format!("listened by `{receiver}.")),
        "listened by {receiver}: {cancel}"
    );
    // A first run says it has nothing to compare with.
    assert!(portal.contains("First map of this module"));
}

/// The simple name of the one Java class under `dir` whose source contains `text`.
fn class_with(dir: &Path, text: &str) -> String {
    let hits: Vec<PathBuf> = java_files(dir)
        .into_iter()
        .filter(|f| std::fs::read_to_string(f).is_ok_and(|s| s.contains(text)))
        .collect();
    assert_eq!(hits.len(), 1, "one class contains {text}: {hits:?}");
    hits[0].file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
#[ignore = "needs a checkout of linlinjava/litemall (a1ef964a) in CODEMAP_LITEMALL"]
fn litemall_maps_match_its_imports_and_write_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(repo) = mapped("CODEMAP_LITEMALL", tmp.path()) else {
        panic!("set CODEMAP_LITEMALL to a checkout of linlinjava/litemall at a1ef964a");
    };
    let modules = [
        "litemall-admin-api",
        "litemall-core",
        "litemall-db",
        "litemall-wx-api",
    ];
    assert_graph_is_the_import_graph(&repo, &modules);
    // The order submission and the payment notification are routes of the wx controller.
    let wx = page(&repo, "litemall-wx-api");
    let flows = &wx[wx.find("## Key flows").unwrap()..];
    for want in ["/wx/order/submit", "/wx/order/pay-notify"] {
        assert!(
            flows.contains(want),
            "litemall-wx-api's flows include {want}"
        );
    }
    // An uncommitted edit: the maps say so, and compare with the committed tree's.
    let head = git(&repo, &["rev-parse", "--short=12", "HEAD"])
        .trim()
        .to_string();
    let mut files = java_files(&repo.join("litemall-db/src/main"));
    files.sort();
    let file = files
        .into_iter()
        .find(|f| std::fs::read_to_string(f).is_ok_and(|s| s.contains("public class ")))
        .expect("a production class in litemall-db");
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.rfind('}').unwrap();
    let edited = format!(
        "{}\n    public int auditCount() {{\n        return 1;\n    }}\n}}\n",
        &text[..at]
    );
    std::fs::write(&file, edited).unwrap();
    support::index_and_docgen(&tmp.path().join("idx"), &repo);
    let db = page(&repo, "litemall-db");
    let dirty = format!("commit `{head}` with uncommitted changes");
    assert!(db.contains(&dirty), "the dirty tree is stated");
    assert!(db.contains("auditCount"), "the edit is among the changes");
    assert!(!db.contains("First map of this module"));
}
