//! A warm service whose index folder is rebuilt under it (here: the first run had the call graph
//! turned off, so the next run with it rebuilds the folder) reopens the new index instead of
//! reading the old, deleted one for good, and moves from the text's call sites to the stored
//! graph: whether a snapshot has a graph, and its preloaded edges, belong to one index's
//! generation, never for good.

mod support;

use indexer::model::SymbolId;
use query::{IndexLocation, RepoConfig, Scope, Service};
use support::*;

const CONTROLLER: &str = "package com.shop.web;\n\nimport org.springframework.web.bind.annotation.PostMapping;\nimport org.springframework.web.bind.annotation.RequestMapping;\nimport org.springframework.web.bind.annotation.RestController;\n\n@RestController\n@RequestMapping(\"/api/orders\")\npublic class OrderController {\n    private final OrderService orders = new OrderService();\n\n    /** Places an order. */\n    @PostMapping(\"/place\")\n    public void place(String sku) {\n        orders.placeOrder(sku);\n    }\n}\n";
const SERVICE: &str = "package com.shop.web;\n\npublic class OrderService {\n    /** Books it. */\n    public void placeOrder(String sku) {\n    }\n}\n";

/// The entry points the warm graph knows for `OrderController.place`, and the status's flag.
fn entries(svc: &Service) -> (Vec<String>, bool) {
    let s = Scope::of(["shop"]);
    let entries = svc
        .view(&s, "shop", |v, g| {
            let i = v.named("place")[0];
            g.entries(&SymbolId(v.sym(i).symbol.id.0.clone()))
        })
        .unwrap();
    (entries, svc.status(&s, "shop").unwrap().graph_built)
}

fn index(root: &std::path::Path, skip_graph: bool) {
    let mut cmd = codemap();
    cmd.arg("index").arg(root).arg("--quiet");
    if skip_graph {
        cmd.env("CODEMAP_SKIP_GRAPH", "1");
    }
    let out = cmd.output().expect("codemap runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_rebuilt_index_folder_is_reopened_and_its_graph_used_by_the_same_warm_workers() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    write(&root, "src/com/shop/web/OrderController.java", CONTROLLER);
    write(&root, "src/com/shop/web/OrderService.java", SERVICE);
    index(&root, true);
    let svc = Service::start(
        vec![RepoConfig {
            name: "shop".into(),
            location: IndexLocation::Embedded {
                index_dir: root.join(".codemap"),
                repo_root: Some(root.clone()),
            },
            workers: 2,
            preload: true,
            preload_limit_mb: None,
        }],
        None,
    );
    for _ in 0..3 {
        assert_eq!(entries(&svc), (vec![], false), "no graph: no route known");
    }

    // The next run has the graph on: it rebuilds the folder (new files, generations anew).
    index(&root, false);
    for _ in 0..4 {
        let (routes, built) = entries(&svc);
        assert!(built, "every warm worker reads the rebuilt index");
        assert!(
            routes.iter().any(|r| r.contains("/api/orders/place")),
            "{routes:?}"
        );
    }
}
