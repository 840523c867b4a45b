//! "What does this diff break?": a unified diff pasted into `ask` is placed in the indexed code
//! (hunks checked against the indexed text, found again when the lines moved), and the answer
//! lists the changed declarations, their callers (those that must be updated first), one call
//! further up, and the tests that reach them. Nothing outside the indexed revision is cited.

use indexer::store::{EmbeddedIndex, IndexDir};
use query::Asker;
use query::impact::ChangeKind;
use query::question::Intent;
mod support;
use query::{AskOptions, ChatModel};
use std::time::Duration;
use support::{assert_citations_resolve, chat, index_repo, line_of, opts, serve, symbols};

const STOCK: &str = r#"package com.shop.stock;

/** Keeps stock levels per SKU. */
public class StockService {
    private final java.util.Map<String, Integer> levels = new java.util.HashMap<>();

    /** Takes quantity out of stock; fails when not enough is left. */
    public void deductStock(String sku, int qty) {
        int left = levels.getOrDefault(sku, 0) - qty;
        if (left < 0) {
            throw new IllegalStateException("not enough stock for " + sku);
        }
        levels.put(sku, left);
    }

    /** Puts quantity back into stock. */
    public void restoreStock(String sku, int qty) {
        levels.merge(sku, qty, Integer::sum);
    }

    /** The level of a SKU (only tests read it). */
    public int level(String sku) {
        return levels.getOrDefault(sku, 0);
    }
}
"#;

const ORDERS: &str = r#"package com.shop.order;

import com.shop.stock.StockService;

/** Places and cancels orders. */
public class OrderService {
    private final StockService stock;

    public OrderService(StockService stock) {
        this.stock = stock;
    }

    /** Places an order and reserves its stock. */
    public void placeOrder(String sku, int qty) {
        stock.deductStock(sku, qty);
    }

    /** Cancels an order and gives its stock back. */
    public void cancelOrder(String sku, int qty) {
        stock.restoreStock(sku, qty);
    }
}
"#;

const CONTROLLER: &str = r#"package com.shop.order;

/** The HTTP face of orders. */
public class OrderController {
    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    public String create(String sku, int qty) {
        orders.placeOrder(sku, qty);
        return "ok";
    }
}
"#;

const STOCK_TEST: &str = r#"package com.shop.stock;

public class StockServiceTest {
    public void deductsStock() {
        StockService s = new StockService();
        s.restoreStock("a", 2);
        s.deductStock("a", 1);
        assert s.level("a") == 1;
    }
}
"#;

const LEGACY: &str = r#"package com.shop.stock;

/** An old helper nobody should use. */
public class LegacyStock {
    public int level() {
        return 0;
    }
}
"#;

const STOCK_PATH: &str = "src/main/java/com/shop/stock/StockService.java";

/// A one-hunk `git diff` of `path`: replaces `remove` lines from line `at` (1-based) with `add`,
/// with up to two lines of context on each side; `claim` is the old start line the header
/// states (normally the true one).
fn diff(path: &str, old: &str, at: usize, remove: usize, add: &[&str], claim: usize) -> String {
    let lines: Vec<&str> = old.lines().collect();
    let from = at.saturating_sub(2).max(1);
    let to = (at + remove + 1).min(lines.len()); // last context line (1-based, inclusive)
    let mut body = String::new();
    for n in from..at {
        body.push_str(&format!(" {}\n", lines[n - 1]));
    }
    for n in at..at + remove {
        body.push_str(&format!("-{}\n", lines[n - 1]));
    }
    for a in add {
        body.push_str(&format!("+{a}\n"));
    }
    for n in at + remove..=to {
        body.push_str(&format!(" {}\n", lines[n - 1]));
    }
    let old_len = to + 1 - from;
    let new_len = old_len - remove + add.len();
    let start = claim - (at - from);
    format!(
        "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n@@ -{start},{old_len} +{start},{new_len} @@ public class\n{body}"
    )
}

fn fixture() -> (tempfile::TempDir, IndexDir) {
    let root = tempfile::tempdir().unwrap();
    let dir = index_repo(
        root.path(),
        &[
            (STOCK_PATH.into(), STOCK.into()),
            (
                "src/main/java/com/shop/order/OrderService.java".into(),
                ORDERS.into(),
            ),
            (
                "src/main/java/com/shop/order/OrderController.java".into(),
                CONTROLLER.into(),
            ),
            (
                "src/test/java/com/shop/stock/StockServiceTest.java".into(),
                STOCK_TEST.into(),
            ),
            (
                "src/main/java/com/shop/stock/LegacyStock.java".into(),
                LEGACY.into(),
            ),
            (
                "src/main/java/com/shop/order/LegacyStock.java".into(),
                LEGACY.replace("package com.shop.stock;", "package com.shop.order;"),
            ),
        ],
    );
    (root, dir)
}

#[test]
fn a_body_change_lists_callers_further_callers_and_tests() {
    let (root, dir) = fixture();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let at = line_of(STOCK, "if (left < 0)");
    let question = format!(
        "What does this break?\n```diff\n{}```",
        diff(STOCK_PATH, STOCK, at, 1, &["        if (left <= 0) {"], at)
    );
    let a = asker.ask(&question, &opts()).unwrap();
    assert_eq!(a.intent, Intent::Impact);
    assert_eq!(a.changes.len(), 1, "{:?}", a.changes);
    assert_eq!(a.changes[0].symbol, "StockService.deductStock");
    assert_eq!(a.changes[0].change, ChangeKind::Body);
    assert_eq!(a.changes[0].lines, vec![at as u32]);
    let syms = symbols(&a);
    assert_eq!(syms[0], "StockService.deductStock", "{syms:?}");
    assert_eq!(syms[1], "OrderService.placeOrder", "{syms:?}");
    assert!(
        syms.contains(&"OrderController.create".to_string()),
        "{syms:?}"
    );
    assert!(
        syms.contains(&"StockServiceTest.deductsStock".to_string()),
        "{syms:?}"
    );
    assert!(!syms.contains(&"OrderService.cancelOrder".to_string()));
    assert!(
        a.answer.contains("Callers whose behaviour may change"),
        "{}",
        a.answer
    );
    assert!(a.answer.contains("One call further up"), "{}", a.answer);
    assert!(a.answer.contains("Tests that reach it"), "{}", a.answer);
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    assert_citations_resolve(&a, root.path());
}

#[test]
fn a_signature_change_puts_the_callers_to_update_first() {
    let (root, dir) = fixture();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let at = line_of(STOCK, "public void restoreStock");
    let question = diff(
        STOCK_PATH,
        STOCK,
        at,
        1,
        &["    public void restoreStock(String sku, long qty) {"],
        at,
    );
    let a = asker.ask(&question, &opts()).unwrap();
    assert_eq!(a.changes.len(), 1, "{:?}", a.changes);
    assert_eq!(a.changes[0].symbol, "StockService.restoreStock");
    assert_eq!(a.changes[0].change, ChangeKind::Declaration);
    assert!(
        a.answer
            .contains("Callers to update (a declaration they use changes or goes away):\n- OrderService.cancelOrder"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, root.path());

    // A method only tests call: said so, and the tests are listed.
    let at = line_of(STOCK, "return levels.getOrDefault(sku, 0);");
    let question = diff(
        STOCK_PATH,
        STOCK,
        at,
        1,
        &["        return levels.get(sku);"],
        at,
    );
    let a = asker.ask(&question, &opts()).unwrap();
    assert_eq!(a.changes[0].symbol, "StockService.level", "{:?}", a.changes);
    assert!(
        a.answer
            .contains("Only tests call it.\nTests that reach it:\n- StockServiceTest.deductsStock"),
        "{}",
        a.answer
    );
}

#[test]
fn a_diff_against_moved_lines_is_found_again_and_one_that_matches_nothing_is_reported() {
    let (root, dir) = fixture();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let at = line_of(STOCK, "levels.put(sku, left)");
    // The diff was made against a version where these lines sat 3 lower.
    let moved = diff(
        STOCK_PATH,
        STOCK,
        at,
        1,
        &["        levels.put(sku, left - 0);"],
        at + 3,
    );
    let a = asker.ask(&moved, &opts()).unwrap();
    assert_eq!(a.changes.len(), 1, "{:?}", a.changes);
    assert_eq!(a.changes[0].symbol, "StockService.deductStock");
    assert_eq!(a.changes[0].lines, vec![at as u32]);
    assert!(
        a.notes.iter().any(|n| n.contains("was found at line")),
        "{:?}",
        a.notes
    );

    // A hunk whose old lines are not in the indexed file: reported, nothing placed.
    let other = STOCK.replace(
        "levels.put(sku, left);",
        "levels.put(sku, Math.max(0, left));",
    );
    let stale = diff(
        STOCK_PATH,
        &other,
        at,
        1,
        &["        levels.remove(sku);"],
        at,
    );
    let a = asker.ask(&stale, &opts()).unwrap();
    assert!(a.changes.is_empty(), "{:?}", a.changes);
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("does not match the indexed revision")),
        "{:?}",
        a.notes
    );
    assert!(
        a.answer.starts_with("The diff changes no declaration"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, root.path());
}

#[test]
fn deleted_new_comment_only_and_foreign_files() {
    let (root, dir) = fixture();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let legacy = "src/main/java/com/shop/stock/LegacyStock.java";
    let mut text = format!(
        "diff --git a/{legacy} b/{legacy}\ndeleted file mode 100644\n--- a/{legacy}\n+++ /dev/null\n@@ -1,{n} +0,0 @@\n",
        n = LEGACY.lines().count()
    );
    for l in LEGACY.lines() {
        text.push_str(&format!("-{l}\n"));
    }
    text.push_str("diff --git a/src/main/java/com/shop/New.java b/src/main/java/com/shop/New.java\nnew file mode 100644\n--- /dev/null\n+++ b/src/main/java/com/shop/New.java\n@@ -0,0 +1 @@\n+class New {}\n");
    // A comment-only change, from a checkout one folder up (paths carry a prefix).
    let doc = line_of(STOCK, "/** Puts quantity back");
    text.push_str(&diff(
        &format!("shop/{STOCK_PATH}"),
        STOCK,
        doc,
        1,
        &["    /** Puts quantity back into stock (a cancelled order). */"],
        doc,
    ));
    text.push_str("--- a/docs/notes.txt\n+++ b/docs/notes.txt\n@@ -1 +1 @@\n-old\n+new\n");
    // A bare file name two indexed files end with: asked to be named from the root.
    text.push_str("--- a/LegacyStock.java\n+++ b/LegacyStock.java\n@@ -6 +6 @@\n-        return 0;\n+        return 1;\n");
    let a = asker.ask(&text, &opts()).unwrap();
    let removed: Vec<&str> = a
        .changes
        .iter()
        .filter(|c| c.change == ChangeKind::Removed)
        .map(|c| c.symbol.as_str())
        .collect();
    assert_eq!(
        removed,
        ["LegacyStock", "LegacyStock.level"],
        "{:?}",
        a.changes
    );
    assert_eq!(a.changes.len(), 2, "{:?}", a.changes);
    assert!(
        a.notes.iter().any(|n| n.contains("New.java is a new file")),
        "{:?}",
        a.notes
    );
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("docs/notes.txt is not in the index")),
        "{:?}",
        a.notes
    );
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("LegacyStock.java matches 2 indexed files")),
        "{:?}",
        a.notes
    );
    // The comment hunk was placed (no "does not match" note) and changed no declaration.
    assert!(
        !a.notes.iter().any(|n| n.contains("does not match")),
        "{:?}",
        a.notes
    );
    assert_citations_resolve(&a, root.path());
}

/// With an LLM, the model is told what the graph found (changed declarations, callers, further
/// callers), inside the untrusted block; the code alone would not show who calls what.
#[test]
fn the_model_is_given_the_graphs_findings_for_a_diff() {
    let (_root, dir) = fixture();
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let (base, seen) = serve(|body| {
        if body.contains("search keywords") {
            (Duration::ZERO, "deductStock".to_string())
        } else {
            (Duration::ZERO, "It changes stock deduction.".to_string())
        }
    });
    let llm = chat(&base, 5.0, 0);
    let with_llm = AskOptions {
        llm: Some(&llm as &dyn ChatModel),
        ..opts()
    };
    let at = line_of(STOCK, "if (left < 0)");
    let question = diff(STOCK_PATH, STOCK, at, 1, &["        if (left <= 0) {"], at);
    let a = asker.ask(&question, &with_llm).unwrap();
    assert_eq!(a.answer, "It changes stock deduction.");
    let bodies = seen.lock().unwrap().clone();
    let answer_request = bodies
        .iter()
        .find(|b| b.contains("REPOSITORY CONTENT"))
        .expect("an answer request");
    let facts = answer_request
        .split("What the index's call graph says:")
        .nth(1)
        .expect("graph facts in the prompt");
    // Inside the untrusted block, before the code.
    assert!(
        answer_request.find("<<<REPOSITORY CONTENT>>>") < answer_request.find("What the index")
    );
    assert!(facts.contains("StockService.deductStock"), "{facts}");
    assert!(facts.contains("OrderService.placeOrder"), "{facts}");
    assert!(facts.contains("OrderController.create"), "{facts}");

    // A locate question has no graph facts to pass.
    seen.lock().unwrap().clear();
    asker
        .ask("Where is stock taken out for an order?", &with_llm)
        .unwrap();
    let bodies = seen.lock().unwrap().clone();
    assert!(
        bodies
            .iter()
            .filter(|b| b.contains("REPOSITORY CONTENT"))
            .all(|b| !b.contains("What the index's call graph says")),
        "{bodies:?}"
    );
}

/// The walk up to entry points is bounded: a route eight calls and more above a change is
/// found, one further up is not, and the answer says the walk stopped.
#[test]
fn the_walk_to_entry_points_is_bounded_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let chain = |depth: usize| {
        let mut s = String::from(
            "package com.web;\n\nimport org.springframework.web.bind.annotation.GetMapping;\n\npublic class Chain {\n",
        );
        s.push_str(&format!(
            "    @GetMapping(\"/top\")\n    public void top() {{\n        m{depth}();\n    }}\n"
        ));
        for k in (1..=depth).rev() {
            s.push_str(&format!(
                "    void m{k}() {{\n        m{}();\n    }}\n",
                k - 1
            ));
        }
        s.push_str("    void m0() {\n        System.out.println(1);\n    }\n}\n");
        s
    };
    for (depth, found) in [(3, true), (12, false)] {
        let root = tmp.path().join(format!("d{depth}"));
        let text = chain(depth);
        let dir = index_repo(
            &root,
            &[("src/main/java/com/web/Chain.java".into(), text.clone())],
        );
        let index = EmbeddedIndex::open(&dir).unwrap();
        let asker = Asker::new(&index).unwrap();
        let at = line_of(&text, "System.out.println(1);");
        let q = diff(
            "src/main/java/com/web/Chain.java",
            &text,
            at,
            1,
            &["        System.out.println(2);"],
            at,
        );
        let a = asker.ask(&q, &opts()).unwrap();
        assert_eq!(a.changes[0].symbol, "Chain.m0", "{:?}", a.changes);
        let top = a
            .entry_points
            .iter()
            .any(|e| e.symbol == "Chain.top" && e.entry.contains("/top"));
        assert_eq!(top, found, "depth {depth}: {:?}", a.entry_points);
        let stopped = a.notes.iter().any(|n| n.contains("there may be more"));
        assert_eq!(stopped, !found, "depth {depth}: {:?}", a.notes);
    }
}
