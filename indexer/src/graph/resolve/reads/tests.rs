use crate::graph::EdgeKind;
use crate::graph::edge::{INSTANCE_INIT, STATIC_INIT};

/// The `read` edges of a few in-memory files as `caller -> field @line [init] file:line`.
fn read_edges(files: &[(&str, &str)]) -> Vec<String> {
    let out = super::super::tests::edges_of_kind(files, EdgeKind::Read);
    out.iter()
        .map(|e| {
            assert_eq!(e.confidence, 1.0);
            let flags = match e.caller_flags {
                STATIC_INIT => " static",
                INSTANCE_INIT => " instance",
                _ => "",
            };
            format!(
                "{} -> {} @{}{} {}:{}",
                e.caller_name,
                e.callee_name,
                e.line,
                flags,
                e.callee_file.as_deref().unwrap_or("?"),
                e.callee_line.unwrap_or(0)
            )
        })
        .collect()
}

/// The edges of `caller`, sorted.
fn of(es: &[String], caller: &str) -> Vec<String> {
    let mut out: Vec<String> = es
        .iter()
        .filter(|e| e.starts_with(&format!("{caller} -> ")))
        .cloned()
        .collect();
    out.sort();
    out
}

const LIMITS: &str = r#"package a;

public class Limits {
    public static final int MAX = 10;
    public static final int TWICE = MAX * 2;
    public static final String NAME = "n";
    protected int count;

    public static class Inner {
        public static final int DEPTH = 3;
        int deeper() { return MAX + DEPTH; }
    }
}
"#;

const STATUS: &str = r#"package a;

public enum Status {
    NEW(Limits.MAX),
    PAID(0);

    Status(int code) {}
}
"#;

const USER: &str = r#"package b;

import static a.Limits.NAME;

import a.Limits;
import a.Status;
import java.util.function.IntSupplier;

public class User extends Limits {
    private int total;
    private final int start = count + 1;

    int viaType() {
        int x = Limits.MAX;
        return x + Limits.MAX + Limits.Inner.DEPTH;
    }

    String viaImport() {
        return NAME.trim();
    }

    int inherited() {
        return this.count + count;
    }

    int shadowed(int total) {
        int count = 2;
        return total + count;
    }

    void writes() {
        total = 1;
        this.total = 2;
    }

    void compound() {
        total += 1;
    }

    IntSupplier lambda() {
        return () -> total;
    }

    int jdk() {
        return Integer.MAX_VALUE;
    }

    boolean paid(Status s) {
        switch (s) {
            case PAID:
                return true;
            default:
                return s == Status.NEW;
        }
    }
}
"#;

fn fixture() -> Vec<String> {
    read_edges(&[
        ("a/Limits.java", LIMITS),
        ("a/Status.java", STATUS),
        ("b/User.java", USER),
    ])
}

#[test]
fn constants_read_through_their_type_an_import_or_a_bare_name() {
    let es = fixture();
    // `Type.FOO` from another class, once per caller at the first line; `Outer.Inner.FOO`.
    assert_eq!(
        of(&es, "b.User.viaType"),
        [
            "b.User.viaType -> a.Limits.Inner.DEPTH @15 a/Limits.java:10",
            "b.User.viaType -> a.Limits.MAX @14 a/Limits.java:4",
        ]
    );
    // A statically imported constant, read as the receiver of a call.
    assert_eq!(
        of(&es, "b.User.viaImport"),
        ["b.User.viaImport -> a.Limits.NAME @19 a/Limits.java:6"]
    );
    // Bare names in a nested class: its own constant and the enclosing class's.
    assert_eq!(
        of(&es, "a.Limits.Inner.deeper"),
        [
            "a.Limits.Inner.deeper -> a.Limits.Inner.DEPTH @11 a/Limits.java:10",
            "a.Limits.Inner.deeper -> a.Limits.MAX @11 a/Limits.java:4",
        ]
    );
    // A `case` label names the selector enum's constant; a qualified constant.
    assert_eq!(
        of(&es, "b.User.paid"),
        [
            "b.User.paid -> a.Status.NEW @53 a/Status.java:4",
            "b.User.paid -> a.Status.PAID @50 a/Status.java:5",
        ]
    );
    // JDK fields give no edge.
    assert_eq!(of(&es, "b.User.jdk"), Vec::<String>::new());
}

#[test]
fn initializers_read_as_the_type() {
    let es = fixture();
    // A static field initializer reading another constant: the static initializer.
    assert_eq!(
        of(&es, "a.Limits.<clinit>"),
        ["a.Limits.<clinit> -> a.Limits.MAX @5 static a/Limits.java:4"]
    );
    // An enum constant's arguments.
    assert_eq!(
        of(&es, "a.Status.<clinit>"),
        ["a.Status.<clinit> -> a.Limits.MAX @4 static a/Limits.java:4"]
    );
    // An instance field initializer reading an inherited field.
    assert_eq!(
        of(&es, "b.User.<init>"),
        ["b.User.<init> -> a.Limits.count @11 instance a/Limits.java:7"]
    );
}

#[test]
fn inherited_fields_lambdas_and_compound_assignments_read() {
    let es = fixture();
    // `this.count` and `count`: one edge, at the first.
    assert_eq!(
        of(&es, "b.User.inherited"),
        ["b.User.inherited -> a.Limits.count @23 a/Limits.java:7"]
    );
    assert_eq!(
        of(&es, "b.User.lambda"),
        ["b.User.lambda -> b.User.total @41 b/User.java:10"]
    );
    assert_eq!(
        of(&es, "b.User.compound"),
        ["b.User.compound -> b.User.total @37 b/User.java:10"]
    );
}

#[test]
fn locals_shadowing_fields_and_plain_writes_read_nothing() {
    let es = fixture();
    assert_eq!(of(&es, "b.User.shadowed"), Vec::<String>::new());
    assert_eq!(of(&es, "b.User.writes"), Vec::<String>::new());
}

#[test]
fn the_nearest_declaration_wins() {
    let sub = r#"package b;

import static a.Limits.NAME;

class Sub extends a.Limits {
    static final int MAX = 1;
    static final String NAME = "own";

    int own() { return MAX; }
    String name() { return NAME; }
}
"#;
    let es = read_edges(&[("a/Limits.java", LIMITS), ("b/Sub.java", sub)]);
    // A field of the class hides the inherited one and the static import.
    assert_eq!(
        of(&es, "b.Sub.own"),
        ["b.Sub.own -> b.Sub.MAX @9 b/Sub.java:6"]
    );
    assert_eq!(
        of(&es, "b.Sub.name"),
        ["b.Sub.name -> b.Sub.NAME @10 b/Sub.java:7"]
    );
}

#[test]
fn a_qualifier_chain_reads_each_field() {
    let src = r#"package c;

class Chain {
    Node head;

    static class Node {
        Node next;
        int value;
    }

    int second() {
        return head.next.value;
    }

    void relink(Node n) {
        head.next = n;
    }
}
"#;
    let es = read_edges(&[("c/Chain.java", src)]);
    assert_eq!(
        of(&es, "c.Chain.second"),
        [
            "c.Chain.second -> c.Chain.Node.next @12 c/Chain.java:7",
            "c.Chain.second -> c.Chain.Node.value @12 c/Chain.java:8",
            "c.Chain.second -> c.Chain.head @12 c/Chain.java:4",
        ]
    );
    // The target of `=` is written; its qualifier is read.
    assert_eq!(
        of(&es, "c.Chain.relink"),
        ["c.Chain.relink -> c.Chain.head @16 c/Chain.java:4"]
    );
}

/// Constants named in annotation arguments are read by what the annotation is on: a method, or
/// the type (its own annotations in its static initializer, a field's where the field's
/// initializer runs).
#[test]
fn constants_in_annotation_arguments_are_read_by_the_annotated_code() {
    let topics = "package a;\n\npublic final class Topics {\n    public static final String ORDER = \"order\";\n    public static final String PREFIX = \"app.\";\n    public static final String KEY = PREFIX + \"key\";\n}\n";
    let listener = "package a;\n\n@Path(Topics.PREFIX)\npublic class Listener {\n    @Value(Topics.KEY)\n    private String key;\n\n    @KafkaListener(topics = {Topics.ORDER}, groupId = \"g\")\n    public void onOrder(String m) {}\n}\n";
    let es = read_edges(&[
        ("src/a/Topics.java", topics),
        ("src/a/Listener.java", listener),
    ]);
    assert_eq!(
        of(&es, "a.Listener.onOrder"),
        ["a.Listener.onOrder -> a.Topics.ORDER @8 src/a/Topics.java:4"]
    );
    assert_eq!(
        of(&es, "a.Listener.<clinit>"),
        ["a.Listener.<clinit> -> a.Topics.PREFIX @3 static src/a/Topics.java:5"]
    );
    assert_eq!(
        of(&es, "a.Listener.<init>"),
        ["a.Listener.<init> -> a.Topics.KEY @5 instance src/a/Topics.java:6"]
    );
}

/// A receiver typed by a type variable reads through its bound; one typed by a generic type's
/// argument (`List<Node>`'s element, `Box<Node>`'s value) reads the argument's field.
#[test]
fn receivers_of_generic_types_read_through_bounds_and_type_arguments() {
    let src = r#"package g;

import java.util.List;

class Tree {
    static class Node {
        Node parent;
        int depth;
    }

    static class Box<T> {
        T value;
    }

    <N extends Node> Node up(N n) {
        return n.parent;
    }

    int firstDepth(List<Node> nodes) {
        return nodes.get(0).depth;
    }

    int boxed(Box<Node> b) {
        return b.value.depth;
    }
}
"#;
    let es = read_edges(&[("g/Tree.java", src)]);
    assert_eq!(
        of(&es, "g.Tree.up"),
        ["g.Tree.up -> g.Tree.Node.parent @16 g/Tree.java:7"]
    );
    assert_eq!(
        of(&es, "g.Tree.firstDepth"),
        ["g.Tree.firstDepth -> g.Tree.Node.depth @20 g/Tree.java:8"]
    );
    assert_eq!(
        of(&es, "g.Tree.boxed"),
        [
            "g.Tree.boxed -> g.Tree.Box.value @24 g/Tree.java:12",
            "g.Tree.boxed -> g.Tree.Node.depth @24 g/Tree.java:8",
        ]
    );
}
