use crate::graph::facts::{CallKind, Caller, Expr, JavaFacts, LambdaParam};
use crate::lang::{self, ParseLimits};
use crate::model::RepoPath;

fn facts(src: &str) -> JavaFacts {
    let path = RepoPath::new("src/p/A.java").unwrap();
    let a = lang::analyze(
        crate::lang::java::LANGUAGE,
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

/// An expression as written, enough to tell reads apart (`$` a local, `()` a call's value).
fn show(e: &Expr) -> String {
    match e {
        Expr::Name(n) => n.clone(),
        Expr::Field(q, n) => format!("{}.{n}", show(q)),
        Expr::Var(_) => "$".into(),
        Expr::This => "this".into(),
        Expr::Call(_) => "()".into(),
        other => format!("{other:?}"),
    }
}

/// (caller id, read, line) of every read, in order.
fn reads(j: &JavaFacts) -> Vec<(String, String, u32)> {
    j.reads
        .iter()
        .map(|r| {
            let caller = match r.caller {
                Caller::Method(t, m) => j.types[t as usize].methods[m as usize].id.clone(),
                Caller::Init(t, _) => j.types[t as usize].id.clone(),
            };
            // A `case` label shows its selector: `selector:NAME`.
            let expr = match &r.selector {
                Some(sel) => format!("{}:{}", show(sel), show(&r.expr)),
                None => show(&r.expr),
            };
            (caller, expr, r.line)
        })
        .collect()
}

const READS: &str = r#"package p;

class R {
    static final int SIZE = 4;
    int[] slots = new int[SIZE];
    R next;
    Log log;

    void run(Object o, java.util.List<String> items) {
        log.info(SIZE);
        log.info(SIZE);
        int n = next.next.slots.length;
        this.next = null;
        next.next = this;
        outer:
        for (String s : items) {
            if (o instanceof String str && str.isEmpty()) break outer;
        }
        items.forEach(item -> log.info(item));
        try { run(null, null); } catch (RuntimeException e) { log.warn(e); }
        Object self = R.this;
        switch (n) { case SIZE -> n++; default -> {} }
    }

    int other() { return SIZE; }
}
"#;

#[test]
fn reads_are_names_and_accesses_in_expressions_once_per_caller() {
    let j = facts(READS);
    let run = "java:p.R#run(Object,java.util.List)";
    let r = |s: &str, line: u32| (run.to_string(), s.to_string(), line);
    assert_eq!(
        reads(&j),
        vec![
            // A field initializer's read belongs to the type.
            ("java:p.R".to_string(), "SIZE".to_string(), 5),
            // The qualifier of a call is read, its name is not; a repeat adds nothing.
            r("log", 10),
            r("SIZE", 10),
            // A chain is one read (its last name's line); `.length` is typed by the resolver.
            r("next.next.slots.length", 12),
            // `this.next = ..` writes; `next.next = ..` reads its qualifier `next`.
            r("next", 14),
            // Statement labels, loop and pattern variables, lambda and catch parameters, locals
            // and invoked methods' names are not reads, nor is `R.this`. A `case` label is the
            // selector's constant, else the name in scope.
            r("$:SIZE", 22),
            // The same name in another method is another read.
            ("java:p.R#other()".to_string(), "SIZE".to_string(), 25),
        ],
        "{:#?}",
        reads(&j)
    );
}
