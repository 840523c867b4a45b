use crate::graph::{self, Edge};
use crate::lang::{self, ParseLimits};
use crate::model::RepoPath;

/// The call edges of a few in-memory files: `(caller, callee, line)`, names normalized.
fn edges(files: &[(&str, &str)]) -> Vec<Edge> {
    edges_of_kind(files, graph::EdgeKind::Call)
}

/// The edges of one kind of a few in-memory files, names normalized.
pub(crate) fn edges_of_kind(files: &[(&str, &str)], kind: graph::EdgeKind) -> Vec<Edge> {
    let analysed: Vec<(RepoPath, Box<graph::FileFacts>)> = files
        .iter()
        .map(|(p, src)| {
            let path = RepoPath::new(p).unwrap();
            let a = lang::analyze(
                crate::lang::java::LANGUAGE,
                &path,
                "m",
                src.as_bytes(),
                &ParseLimits::default(),
            );
            (path, a.facts.unwrap())
        })
        .collect();
    let inputs: Vec<(&RepoPath, &graph::FileFacts)> =
        analysed.iter().map(|(p, f)| (p, &**f)).collect();
    let built = graph::build(&inputs);
    assert_eq!(built, streamed(&analysed), "the streaming build differs");
    let mut out: Vec<Edge> = built
        .into_iter()
        .flat_map(|g| g.1)
        .filter(|e| e.kind == kind)
        .collect();
    for e in &mut out {
        e.normalize_names();
    }
    out
}

/// The same files' edges by [`graph::build_each`] from their declarations and each file's
/// whole facts on demand, as an index run builds them, both with the declarations held and
/// decoded on demand: every test of the resolver checks that the declarations, and what is
/// kept of them once the type table is built, hold all that other files' resolution reads.
fn streamed(analysed: &[(RepoPath, Box<graph::FileFacts>)]) -> Vec<(String, Vec<Edge>)> {
    let paths: Vec<&RepoPath> = analysed.iter().map(|(p, _)| p).collect();
    let whole = |i: usize| Some(std::borrow::Cow::Borrowed(&*analysed[i].1));
    let owned: Vec<graph::FileFacts> = analysed
        .iter()
        .map(|(_, f)| (**f).clone().declarations())
        .collect();
    let held = graph::build_each(
        &paths,
        graph::Declarations::Owned(owned),
        &whole,
        &|f, es| (f, es),
    );
    let encoded: Vec<Vec<u8>> = analysed.iter().map(|(_, f)| f.encode()).collect();
    let decode =
        |i: usize| graph::FileFacts::decode(&encoded[i]).map(graph::FileFacts::declarations);
    let decoded = graph::build_each(
        &paths,
        graph::Declarations::Decoded(&decode),
        &whole,
        &|f, es| (f, es),
    );
    assert_eq!(
        held, decoded,
        "declarations decoded on demand give other edges"
    );
    held
}

fn has(es: &[Edge], caller: &str, callee: &str, line: u32) {
    assert!(
        es.iter()
            .any(|e| e.caller_name == caller && e.callee_name == callee && e.line == line),
        "no {caller} -> {callee} at {line}:\n{}",
        es.iter()
            .map(|e| format!(
                "{} -> {} @{} ({})",
                e.caller_name, e.callee_name, e.line, e.confidence
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

const BASE: &str = r#"package a;

import java.io.File;
import java.util.List;
import java.util.Map;

public class Base {
    protected Map<String, List<File>> index;

    protected void log(String m) {}
    protected void log(String m, Throwable t) {}
    public static int twice(int x) { return 2 * x; }
}
"#;

const USER: &str = r#"package b;

import static a.Base.twice;

import a.Base;
import java.io.File;
import java.util.List;

class User extends Base {
    private final Helper helper = new Helper();

    void go(List<File> files, Object anything) {
        log("x");
        log("x", new RuntimeException());
        index.get("k").get(0).getName();
        files.size();
        files.forEach(f -> f.delete());
        helper.assist(twice(2));
        anything.hashCode();
        mystery().frob();
        new Thread(new Runnable() {
            public void run() { go(null, null); }
        });
    }

    static class Helper {
        void assist(int n) {}
    }
}
"#;

#[test]
fn receivers_are_typed_and_members_found_through_the_hierarchy() {
    let es = edges(&[("src/a/Base.java", BASE), ("src/b/User.java", USER)]);
    // Implicit `this`, inherited, overloads told apart by argument count.
    has(&es, "b.User.go", "a.Base.log", 13);
    has(&es, "b.User.go", "a.Base.log", 14);
    assert!(
        es.iter()
            .any(|e| e.line == 13 && e.callee.as_deref() == Some("java:a.Base#log(String)"))
    );
    assert!(
        es.iter()
            .any(|e| e.line == 14
                && e.callee.as_deref() == Some("java:a.Base#log(String,Throwable)"))
    );
    // An inherited generic field, chained: Map<String, List<File>>.get → List<File>.get → File.
    has(&es, "b.User.go", "java.util.Map.get", 15);
    has(&es, "b.User.go", "java.util.List.get", 15);
    has(&es, "b.User.go", "java.io.File.getName", 15);
    // JDK callees are named by the receiver's static type; `Object`'s own methods by Object.
    has(&es, "b.User.go", "java.util.List.size", 16);
    has(&es, "b.User.go", "java.lang.Object.hashCode", 19);
    // A lambda parameter is typed from `Iterable<File>.forEach`.
    has(&es, "b.User.go", "java.io.File.delete", 17);
    // A field of a nested type; a static import.
    has(&es, "b.User.go", "b.User.Helper.assist", 18);
    has(&es, "b.User.go", "a.Base.twice", 18);
    // The anonymous class's call belongs to `go`, resolved through the enclosing class.
    has(&es, "b.User.go", "b.User.go", 22);
    // Unknown receiver: the name stays, with a low confidence, and no target.
    let frob = es.iter().find(|e| e.callee_name == "frob").unwrap();
    assert_eq!(frob.callee, None);
    assert!(frob.confidence < 0.5);
}
