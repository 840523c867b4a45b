use super::*;
use crate::lang::{self, ParseLimits, assert_inline_defs};
use crate::model::Symbol;
use std::time::Duration;

const KITCHEN: &[u8] = include_bytes!("../../../tests/fixtures/java/Kitchen.java");
const KITCHEN_PATH: &str = "src/main/java/org/example/kitchen/Kitchen.java";

fn analyze_java(src: &[u8], limits: &ParseLimits) -> FileAnalysis {
    let path = RepoPath::new("src/A.java").unwrap();
    lang::analyze(crate::lang::java::LANGUAGE, &path, "m", src, limits)
}

fn symbol<'a>(a: &'a FileAnalysis, id: &str) -> &'a Symbol {
    a.symbols
        .iter()
        .find(|s| s.id.0 == id)
        .unwrap_or_else(|| panic!("no symbol {id}"))
}

/// One short paragraph per symbol, for the snapshot.
fn render(symbols: &[Symbol]) -> String {
    let mut out = String::new();
    for s in symbols {
        let vis = if s.visibility.is_empty() {
            "package-private"
        } else {
            &s.visibility
        };
        let stat = if s.is_static { " static" } else { "" };
        out.push_str(&format!(
            "{} {} lines {}-{} name@{} {vis}{stat}\n  qname: {}\n  parent: {}\n  sig: {}\n",
            s.kind.as_str(),
            s.id,
            s.start_line,
            s.end_line,
            s.name_line,
            s.qualified_name,
            s.parent.as_ref().map_or("-", |p| p.0.as_str()),
            s.signature,
        ));
        if let Some(d) = &s.doc {
            out.push_str(&format!("  doc: {d}\n"));
        }
        if !s.annotations.is_empty() {
            out.push_str(&format!("  annotations: {}\n", s.annotations.join(" ")));
        }
    }
    out
}

#[test]
fn kitchen_fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(crate::lang::java::LANGUAGE, KITCHEN_PATH, KITCHEN);
    assert_eq!(a.package.as_deref(), Some("org.example.kitchen"));
    assert_eq!(
        a.imports,
        [
            "java.util.List",
            "java.util.Map",
            "java.util.function.*",
            "static java.util.Objects.requireNonNull"
        ]
    );
}

#[test]
fn kitchen_fixture_symbol_details() {
    let a = analyze_java(KITCHEN, &ParseLimits::default());
    insta::assert_snapshot!(render(&a.symbols));
}

#[test]
fn declaration_range_includes_annotations_but_not_javadoc() {
    let src = b"class A {\n  /** Doc. */\n  @Override\n  public\n  String toString() {\n    return \"\";\n  }\n}\n";
    let a = analyze_java(src, &ParseLimits::default());
    let m = symbol(&a, "java:A#toString()");
    assert_eq!((m.start_line, m.name_line, m.end_line), (3, 5, 7));
    assert_eq!(m.doc.as_deref(), Some("Doc."));
    assert_eq!(m.signature, "public String toString()");
    assert_eq!(m.annotations, ["@Override"]);
}

#[test]
fn javadoc_is_taken_only_when_it_precedes_the_declaration() {
    let src = b"class A {\n  /** For f. */\n  // note\n  void f() {}\n  /** Orphan. */\n  int x;\n  void g() {}\n}\n";
    let a = analyze_java(src, &ParseLimits::default());
    assert_eq!(symbol(&a, "java:A#f()").doc.as_deref(), Some("For f."));
    assert_eq!(symbol(&a, "java:A#x").doc.as_deref(), Some("Orphan."));
    assert_eq!(symbol(&a, "java:A#g()").doc, None);
}

#[test]
fn invalid_utf8_in_a_comment_keeps_later_line_numbers() {
    let mut src = b"package p;\nclass A {\n  /* caf\xe9 \xff\xfe\n  \xc3 */\n".to_vec();
    src.extend_from_slice(b"  void f() {}\n  String s = \"\xe9\";\n  void g() {}\n}\n");
    let a = analyze_java(&src, &ParseLimits::default());
    assert_eq!(a.degraded, None);
    assert_eq!(symbol(&a, "java:p.A#f()").name_line, 5);
    assert_eq!(symbol(&a, "java:p.A#s").name_line, 6);
    assert_eq!(symbol(&a, "java:p.A#g()").name_line, 7);
    assert!(a.chunks.iter().any(|c| c.text.contains('\u{fffd}')));
}

/// Ten thousand nested blocks: must end as text on a default-sized thread stack.
#[test]
fn deep_nesting_degrades_to_text_without_crashing() {
    let src = format!(
        "class A {{ void f() {{ {} }} }}\n",
        "{".repeat(10_000) + &"}".repeat(10_000)
    );
    let parens = format!(
        "class A {{ int x = {}1{}; }}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || [src, parens].map(|s| analyze_java(s.as_bytes(), &ParseLimits::default())));
    for a in worker.unwrap().join().expect("no crash") {
        assert!(
            a.degraded
                .as_deref()
                .unwrap_or_default()
                .starts_with("nesting depth 1000"),
            "{:?}",
            a.degraded
        );
        assert!(a.symbols.is_empty());
        assert!(!a.chunks.is_empty());
    }
}

#[test]
fn parse_timeout_degrades_and_the_parser_recovers() {
    let src: String = (0..200)
        .map(|i| format!("class C{i} {{ void f() {{ g({i}); }} }}\n"))
        .collect();
    let limits = ParseLimits {
        timeout: Duration::ZERO,
        ..ParseLimits::default()
    };
    let a = analyze_java(src.as_bytes(), &limits);
    assert_eq!(a.degraded.as_deref(), Some("parse timed out after 0 ms"));
    assert!(a.symbols.is_empty() && !a.chunks.is_empty());
    // The cancelled parse must not leak into the next one on this thread.
    let b = analyze_java(b"class B { void h() {} }", &ParseLimits::default());
    assert_eq!(b.degraded, None);
    assert_eq!(
        b.symbols
            .iter()
            .map(|s| s.id.0.as_str())
            .collect::<Vec<_>>(),
        ["java:B", "java:B#h()"]
    );
}

#[test]
fn broken_source_still_yields_symbols() {
    let a = analyze_java(
        b"class A {\n  void f( {\n  }\n  void g() {}\n",
        &ParseLimits::default(),
    );
    assert_eq!(a.degraded, None);
    assert!(
        a.symbols.iter().any(|s| s.id.0 == "java:A#g()"),
        "{:?}",
        a.symbols
    );
}

#[test]
fn anonymous_classes_are_numbered_like_javac() {
    let src = include_bytes!("../../../tests/fixtures/java/Anonymous.java");
    let a = assert_inline_defs(crate::lang::java::LANGUAGE, "src/T.java", src);
    assert_eq!(
        symbol(&a, "java:T.4").parent.as_ref().unwrap().0,
        "java:T#<init>()"
    );
    assert_eq!(symbol(&a, "java:T.3").parent.as_ref().unwrap().0, "java:T");
    assert_eq!(
        symbol(&a, "java:T.5.1").parent.as_ref().unwrap().0,
        "java:T.5#inner()"
    );
    assert_eq!(
        symbol(&a, "java:T.m.L.1").parent.as_ref().unwrap().0,
        "java:T.m.L#x"
    );
}

#[test]
fn callables_carry_parameters_return_types_and_whether_they_have_a_body() {
    let src = br#"package p;
import java.util.Map;
abstract class A {
    A(final Map<String, java.util.List<Integer>> m, @Deprecated int count) { this.x = 1; }
    public static java.util.Map.Entry<K, V>[] pick(String... names) { return null; }
    abstract void later(int legacy[]);
    native long clock();
    void empty() { }
    void onlyComments() {
        // nothing yet
        /* later */
    }
    String text() { ; return ""; }
    record R(String name, int size) {
        R {
            if (size < 0) throw new IllegalArgumentException();
        }
    }
    interface I {
        void todo();
        default int one() { return 1; }
    }
}
"#;
    let a = analyze_java(src, &ParseLimits::default());
    let params = |id: &str| -> Vec<(String, String)> {
        symbol(&a, id)
            .params
            .iter()
            .map(|p| (p.ty.clone(), p.name.clone()))
            .collect()
    };
    let pair = |t: &str, n: &str| (t.to_string(), n.to_string());
    assert_eq!(
        params("java:p.A#<init>(Map,int)"),
        [pair("Map", "m"), pair("int", "count")]
    );
    assert_eq!(
        params("java:p.A#pick(String...)"),
        [pair("String...", "names")]
    );
    assert_eq!(params("java:p.A#later(int[])"), [pair("int[]", "legacy")]);
    assert_eq!(
        params("java:p.A.R#<init>(String,int)"),
        [pair("String", "name"), pair("int", "size")]
    );
    assert_eq!(symbol(&a, "java:p.A#pick(String...)").value_type, "Entry[]");
    assert_eq!(symbol(&a, "java:p.A#clock()").value_type, "long");
    assert_eq!(symbol(&a, "java:p.A#empty()").value_type, "void");
    assert_eq!(symbol(&a, "java:p.A#<init>(Map,int)").value_type, "");
    let body = |id: &str| symbol(&a, id).has_body;
    for id in [
        "java:p.A#<init>(Map,int)",
        "java:p.A#pick(String...)",
        "java:p.A#text()",
        "java:p.A.R#<init>(String,int)",
        "java:p.A.I#one()",
    ] {
        assert!(body(id), "{id} has a body");
    }
    for id in [
        "java:p.A#later(int[])",
        "java:p.A#clock()",
        "java:p.A#empty()",
        "java:p.A#onlyComments()",
        "java:p.A.I#todo()",
    ] {
        assert!(!body(id), "{id} has no statement");
    }
    // Not callables: no parameters, no return type, no body.
    let ty = symbol(&a, "java:p.A");
    assert!(ty.params.is_empty() && ty.value_type.is_empty() && !ty.has_body);
    assert_eq!(ty.body_line, 3);
    assert_eq!(symbol(&a, "java:p.A#<init>(Map,int)").body_line, 4);
    assert_eq!(symbol(&a, "java:p.A#later(int[])").body_line, 0);
}

#[test]
fn types_carry_their_declared_supertypes_and_fields_their_type() {
    let src = br#"package p;
class Box<T extends Comparable<T>> extends java.util.AbstractMap<String, T>
        implements Cloneable, p.q.Sized<T> {
    private final java.util.List<T> items[] = null;
    Runnable task;
}
interface Deque<E> extends Queue<E>, Iterable<E> {}
enum Level implements Supplier<String> { LOW }
record Pair(int a) implements Comparable<Pair> {}
final class Plain {}
"#;
    let a = analyze_java(src, &ParseLimits::default());
    let supers = |id: &str| symbol(&a, id).supertypes.clone();
    assert_eq!(supers("java:p.Box"), ["AbstractMap", "Cloneable", "Sized"]);
    assert_eq!(supers("java:p.Deque"), ["Queue", "Iterable"]);
    assert_eq!(supers("java:p.Level"), ["Supplier"]);
    assert_eq!(supers("java:p.Pair"), ["Comparable"]);
    assert!(supers("java:p.Plain").is_empty());
    assert_eq!(symbol(&a, "java:p.Box#items").value_type, "List");
    assert_eq!(symbol(&a, "java:p.Box#task").value_type, "Runnable");
    // A field initialized where declared has a body; one handed in later has none.
    assert!(symbol(&a, "java:p.Box#items").has_body);
    assert!(!symbol(&a, "java:p.Box#task").has_body);
}

#[test]
fn literals_belong_to_the_innermost_declaration_and_are_decoded() {
    let src = br#"package p;
@Path("/orders")
class Api {
    static final String KEY = "order.timeout";
    String a = "x", b = "y";
    void send(String to) {
        log("sending \"%s\" to " + to);
        String block = """
            first
              second""";
        Runnable r = new Runnable() {
            public void run() { log("inner"); }
        };
        char q = '"'; // "not a literal"
    }
}
"#;
    let a = analyze_java(src, &ParseLimits::default());
    let lits = |id: &str| {
        symbol(&a, id)
            .literals
            .iter()
            .map(|l| (l.line, l.text.as_str()))
            .collect::<Vec<_>>()
    };
    assert_eq!(lits("java:p.Api"), [(2, "/orders")]);
    assert_eq!(lits("java:p.Api#KEY"), [(4, "order.timeout")]);
    assert_eq!(lits("java:p.Api#a"), [(5, "x")]);
    assert_eq!(lits("java:p.Api#b"), [(5, "y")]);
    assert_eq!(
        lits("java:p.Api#send(String)"),
        [(7, "sending \"%s\" to "), (8, "first\n  second")]
    );
    assert_eq!(lits("java:p.Api.1#run()"), [(12, "inner")]);
}

#[test]
fn callables_carry_what_they_declare_and_throw() {
    let src = br#"package p;
class Io {
    void read() throws java.io.IOException, TimeoutException {
        if (bad) throw new IllegalStateException("bad");
        if (worse) throw new p.Errors.Fatal();
        try { x(); } catch (RuntimeException e) { throw e; }
        Runnable r = () -> { throw new IllegalStateException("again"); };
    }
    void quiet() {}
}
"#;
    let a = analyze_java(src, &ParseLimits::default());
    let read = symbol(&a, "java:p.Io#read()");
    assert_eq!(read.throws, ["IOException", "TimeoutException"]);
    // A rethrown variable names no type; the lambda's throw is the method's code.
    assert_eq!(read.thrown, ["IllegalStateException", "Fatal"]);
    let quiet = symbol(&a, "java:p.Io#quiet()");
    assert!(quiet.throws.is_empty() && quiet.thrown.is_empty());
}
