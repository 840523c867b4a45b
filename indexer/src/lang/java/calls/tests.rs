use crate::graph::facts::{CallKind, Caller, Expr, JavaFacts, LambdaParam};
use crate::lang::{self, ParseLimits};
use crate::model::{Language, RepoPath};

fn facts(src: &str) -> JavaFacts {
    let path = RepoPath::new("src/p/A.java").unwrap();
    let a = lang::analyze(
        Language::Java,
        &path,
        "m",
        src.as_bytes(),
        &ParseLimits::default(),
    );
    assert_eq!(a.degraded, None);
    a.facts.expect("facts").java.expect("java facts")
}

/// (caller id, callee name, kind, line) of every call, in line order.
fn calls(j: &JavaFacts) -> Vec<(String, String, CallKind, u32)> {
    let mut out: Vec<_> = j
        .calls
        .iter()
        .filter(|c| !c.name.is_empty())
        .map(|c| {
            let caller = match c.caller {
                Caller::Method(t, m) => j.types[t as usize].methods[m as usize].id.clone(),
                Caller::Init(t, _) => j.types[t as usize].id.clone(),
            };
            (caller, c.name.clone(), c.kind, c.line)
        })
        .collect();
    out.sort_by_key(|c| (c.3, c.1.clone()));
    out
}

const SRC: &str = r#"package p;

import java.util.List;

class A extends B {
    static final String K = "k" + B.P;
    private final Runnable r = () -> helper();

    A(int x) {
        super(
            x);
    }

    void run(List<String> items) {
        items.forEach(s -> s.trim());
        Runnable task = new Runnable() {
            public void run() { work(); }
        };
        String t = items
            .get(0)
            .trim();
        Object o =
            new StringBuilder();
        items.stream().map(String::length);
    }
}
"#;

#[test]
fn calls_are_attributed_and_lined_like_javac() {
    let j = facts(SRC);
    let c = calls(&j);
    let has = |caller: &str, name: &str, kind: CallKind, line: u32| {
        assert!(
            c.iter()
                .any(|x| x.0 == caller && x.1 == name && x.2 == kind && x.3 == line),
            "no {name}@{line} in {caller}: {c:#?}"
        )
    };
    // A field initializer's lambda belongs to the type (instance initializer code).
    has("java:p.A", "helper", CallKind::Method, 7);
    // `super(` is on the keyword's line even when the arguments wrap.
    has("java:p.A#<init>(int)", "super", CallKind::SuperCtor, 10);
    // Lambda bodies and anonymous classes belong to the method that holds them.
    has("java:p.A#run(List)", "trim", CallKind::Method, 15);
    has("java:p.A#run(List)", "work", CallKind::Method, 17);
    has("java:p.A#run(List)", "Runnable", CallKind::New, 16);
    // A chained call's line is its name token's; `new` is the `new` token's line.
    has("java:p.A#run(List)", "get", CallKind::Method, 20);
    has("java:p.A#run(List)", "trim", CallKind::Method, 21);
    has("java:p.A#run(List)", "StringBuilder", CallKind::New, 23);
    has("java:p.A#run(List)", "length", CallKind::MethodRef, 24);
}

#[test]
fn receivers_locals_and_lambda_parameters_are_bound() {
    let j = facts(SRC);
    // `items.forEach(s -> s.trim())`: `s` is typed from the lambda's call, argument 0.
    let trim = j
        .calls
        .iter()
        .find(|c| c.name == "trim" && c.line == 15)
        .unwrap();
    let Some(Expr::Var(v)) = &trim.recv else {
        panic!("{:?}", trim.recv)
    };
    let local = &j.locals[*v as usize];
    assert!(local.ty.is_none());
    assert!(matches!(
        local.lambda,
        Some(LambdaParam::Arg {
            arg: 0,
            param: 0,
            ..
        })
    ));
    // `.get(0).trim()` chains through the call's value.
    let trim2 = j
        .calls
        .iter()
        .find(|c| c.name == "trim" && c.line == 21)
        .unwrap();
    assert!(matches!(trim2.recv, Some(Expr::Call(_))));
    // The constant's initializer is kept for cross-file evaluation.
    let k = j.types[0].fields.iter().find(|f| f.name == "K").unwrap();
    assert!(matches!(k.value, Some(Expr::Plus(..))));
    // The anonymous class is a type of its own, its supertype the created type.
    let anon = j.types.iter().find(|t| t.anonymous).unwrap();
    assert_eq!(anon.qname, "p.A.1");
    assert_eq!(anon.superclass.as_ref().unwrap().name, "Runnable");
}
