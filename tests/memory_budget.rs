//! `codemap index --memory-budget`, through the binary: a run over its budget decodes the
//! declarations pass by pass instead of holding them, builds the very same index, and says
//! that it went over.

mod support;
use std::path::Path;
use support::*;

/// A repository of every language with a call graph: the Spring shop (framework edges through
/// other files' declarations: Feign clients, queue names held by enum constants, injected
/// beans), the Python and TypeScript shops.
fn mixed(root: &Path) {
    copy_fixture("shop", root);
    copy_fixture("pyshop", &root.join("py"));
    copy_fixture("tsshop", &root.join("ts"));
    // Enough more Java that the declarations outgrow a quarter of a 1 MiB budget.
    for i in 1..400 {
        let class = format!(
            "package gen.p{i};\n\nimport gen.p{prev}.Step{prev};\n\n\
             /** Step {i} of a generated chain. */\n\
             public class Step{i} {{\n\
             \x20   private final Step{prev} previous = new Step{prev}();\n\
             \x20   public String run(String input, int times) {{\n\
             \x20       return previous.run(input + \"-{i}\", times - 1);\n\
             \x20   }}\n\
             \x20   public static int count(java.util.List<String> names) {{ return names.size(); }}\n\
             }}\n",
            prev = i - 1
        );
        write(root, &format!("gen/p{i}/Step{i}.java"), class);
    }
    write(
        root,
        "gen/p0/Step0.java",
        "package gen.p0;\n\npublic class Step0 {\n    public String run(String input, int times) { return input; }\n}\n",
    );
}

/// `codemap index ROOT` with `budget`, debug log on: (stdout, stderr).
fn index(idx: &Path, root: &Path, budget: Option<&str>) -> (String, String) {
    let mut cmd = codemap();
    cmd.env("CODEMAP_LOG", "indexer=debug")
        .env_remove("CODEMAP_MEMORY_BUDGET")
        .arg("--index-dir")
        .arg(idx)
        .args(["index", root.to_str().unwrap(), "--quiet"]);
    if let Some(b) = budget {
        cmd.args(["--memory-budget", b]);
    }
    let o = cmd.output().expect("codemap runs");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    (stdout(&o), err)
}

/// Every symbol and every edge of the index, as `export` writes them.
fn exports(idx: &Path, root: &Path) -> (String, String) {
    let r = root.to_str().unwrap();
    let symbols = run(idx, &["--repo", r, "export", "symbols"]);
    assert!(symbols.status.success());
    let edges = run(idx, &["--repo", r, "export", "edges", "--kind", "all"]);
    assert!(edges.status.success());
    (stdout(&symbols), stdout(&edges))
}

fn held(log: &str) -> Option<bool> {
    let line = log
        .lines()
        .find(|l| l.contains("graph declarations decoded"))?;
    Some(line.contains("held=true"))
}

#[test]
fn a_run_over_its_budget_builds_the_same_index_and_says_it_went_over() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    mixed(&root);
    let (roomy, tight) = (tmp.path().join("roomy"), tmp.path().join("tight"));

    let (out, log) = index(&roomy, &root, None);
    assert_eq!(held(&log), Some(true), "{log}");
    assert!(out.contains("of a 1536 MiB budget"), "{out}");
    assert!(!out.contains("over its"), "{out}");

    let (out, log) = index(&tight, &root, Some("1M"));
    assert_eq!(
        held(&log),
        Some(false),
        "a 1 MiB budget holds nothing: {log}"
    );
    assert!(out.contains("of a 1 MiB budget"), "{out}");
    assert!(
        out.contains("over its 1 MiB budget") && out.contains("--memory-budget"),
        "{out}"
    );
    let (symbols, edges) = exports(&roomy, &root);
    assert!(
        edges.lines().count() > 100,
        "the shops have a graph: {edges}"
    );
    assert_eq!((symbols, edges), exports(&tight, &root));

    // An incremental run over the budget reads the stored facts of the files it did not
    // analyse on demand too: the same as a fresh index of the edited tree.
    let order =
        root.join("shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java");
    let text = std::fs::read_to_string(&order).unwrap();
    let edited = text.replacen(
        "    public boolean pay(",
        "    void audit() { cancelOrder(1L); }\n\n    public boolean pay(",
        1,
    );
    assert_ne!(text, edited);
    std::fs::write(&order, edited).unwrap();
    let (_, log) = index(&tight, &root, Some("1M"));
    assert_eq!(held(&log), Some(false), "{log}");
    let fresh = tmp.path().join("fresh");
    index(&fresh, &root, None);
    assert_eq!(exports(&fresh, &root), exports(&tight, &root));
}

#[test]
fn the_budget_is_given_in_the_json_summary_and_a_bad_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    copy_fixture("pyshop", &root);
    let idx = tmp.path().join("idx");
    let o = run(
        &idx,
        &[
            "--json",
            "index",
            root.to_str().unwrap(),
            "--memory-budget",
            "2G",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["memory_budget_mib"], 2048, "{v}");
    assert!(v["peak_memory_mib"].as_u64().is_some_and(|m| m > 0), "{v}");

    for bad in ["lots", "2"] {
        let o = run(
            &idx,
            &["index", root.to_str().unwrap(), "--memory-budget", bad],
        );
        assert_eq!(o.status.code(), Some(2), "{bad} accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("expected a size such as 2G"), "{err}");
    }
}
