//! What of a file's facts the resolution of *other* files reads: its declarations (package,
//! imports, types with their fields, methods and annotations), its methods' parameters, and the
//! calls a constant's value can lead to (a field initializer, an enum constant's construction:
//! [`super::frameworks`] follows `QueueEnum.ORDER.getExchange()` back to `ORDER("…")`). Call
//! sites, locals, assignments and reads are what resolving the file itself needs, and most of
//! the facts: a streaming build keeps only this part of every file in memory
//! ([`super::build_each`]).
//!
//! Call indices are kept (calls that are not needed become empty placeholders up to the last
//! one that is); locals are renumbered, parameters and expressions rewritten to match.

use super::facts::{
    AnnValue, Annotation, Call, CallKind, CallRole, Caller, Expr, FileFacts, JavaFacts, Local,
    TypeKind,
};
use std::collections::{BTreeMap, BTreeSet};

impl FileFacts {
    /// These facts without what only the file's own resolution reads.
    pub fn declarations(mut self) -> FileFacts {
        if let Some(j) = self.java.take() {
            self.java = Some(java_declarations(j));
        }
        self
    }
}

impl FileFacts {
    /// What other files' resolution still reads once the type table holds every type's
    /// shape (supertypes, members, signatures) and other languages' resolvers have run: the
    /// types' annotations and fields, the methods frameworks read (annotated ones: an
    /// interface's request mappings; an enum's constructors, through which an enum
    /// constant's value is read), and the calls and locals those lead to.
    /// [`super::build_each`] keeps only this of the other files while it resolves: the other
    /// methods' declarations are most of the rest.
    pub fn referenced(mut self) -> FileFacts {
        if let Some(mut j) = self.java.take() {
            j.imports = Vec::new();
            for d in &mut j.types {
                d.type_params = Vec::new();
                d.type_bounds = Vec::new();
                d.superclass = None;
                d.interfaces = Vec::new();
                let enumeration = d.kind == TypeKind::Enum;
                d.methods
                    .retain(|m| (enumeration && m.is_ctor) || m.annotations.iter().any(read));
            }
            self.java = Some(java_declarations(j));
        }
        self
    }
}

/// Whether a framework may read this annotation: any but java.lang's own, which only the
/// compiler reads.
fn read(a: &Annotation) -> bool {
    !matches!(
        a.simple(),
        "Override" | "Deprecated" | "SuppressWarnings" | "SafeVarargs" | "FunctionalInterface"
    )
}

fn java_declarations(mut j: JavaFacts) -> JavaFacts {
    let need = Needed::of(&j);
    // Locals: the needed ones, in order, renumbered.
    let renumber: BTreeMap<u32, u32> = need
        .locals
        .iter()
        .enumerate()
        .map(|(new, &old)| (old, new as u32))
        .collect();
    let mut locals: Vec<Local> = Vec::with_capacity(renumber.len());
    let mut old_locals = std::mem::take(&mut j.locals);
    for &old in &need.locals {
        if let Some(l) = old_locals.get_mut(old as usize) {
            locals.push(std::mem::replace(l, placeholder_local()));
        }
    }
    drop(old_locals);
    // Calls: indices kept up to the last needed one.
    let keep = need.calls.last().map_or(0, |&k| k as usize + 1);
    let mut calls: Vec<Call> = std::mem::take(&mut j.calls);
    calls.truncate(keep);
    for (k, c) in calls.iter_mut().enumerate() {
        if !need.calls.contains(&(k as u32)) {
            *c = placeholder_call();
        }
    }
    calls.shrink_to_fit();
    let map = |i: u32| renumber.get(&i).copied().unwrap_or(u32::MAX);
    for d in &mut j.types {
        for m in &mut d.methods {
            for p in &mut m.params {
                *p = map(*p);
            }
        }
        for f in &mut d.fields {
            if let Some(v) = &mut f.value {
                rewrite(v, &map);
            }
        }
    }
    for c in &mut calls {
        if let Some(r) = &mut c.recv {
            rewrite(r, &map);
        }
        for a in &mut c.args {
            rewrite(a, &map);
        }
    }
    for l in &mut locals {
        if let Some(init) = &mut l.init {
            rewrite(init, &map);
        }
    }
    JavaFacts {
        package: j.package,
        imports: j.imports,
        types: j.types,
        locals,
        calls,
        assigns: Vec::new(),
        reads: Vec::new(),
    }
}

/// The calls and locals other files may read.
#[derive(Default)]
struct Needed {
    calls: BTreeSet<u32>,
    locals: BTreeSet<u32>,
}

impl Needed {
    fn of(j: &JavaFacts) -> Needed {
        let mut n = Needed::default();
        let mut work: Vec<&Expr> = Vec::new();
        for (di, d) in j.types.iter().enumerate() {
            annotation_exprs(&d.annotations, &mut work);
            for f in &d.fields {
                work.extend(&f.value);
                annotation_exprs(&f.annotations, &mut work);
                if d.kind == TypeKind::Enum && f.constant {
                    // The constant's construction: the `new` at its line in the enum.
                    for (k, c) in j.calls.iter().enumerate() {
                        if c.kind == CallKind::New && c.ctx == di as u32 && c.line == f.line {
                            n.call(j, k as u32, &mut work);
                        }
                    }
                }
            }
            for m in &d.methods {
                annotation_exprs(&m.annotations, &mut work);
                for &p in &m.params {
                    n.local(j, p, &mut work);
                }
            }
        }
        while let Some(e) = work.pop() {
            n.expr(j, e, &mut work);
        }
        n
    }

    fn call<'j>(&mut self, j: &'j JavaFacts, k: u32, work: &mut Vec<&'j Expr>) {
        let Some(c) = j.calls.get(k as usize) else {
            return;
        };
        if self.calls.insert(k) {
            work.extend(&c.recv);
            work.extend(&c.args);
        }
    }

    fn local<'j>(&mut self, j: &'j JavaFacts, i: u32, work: &mut Vec<&'j Expr>) {
        let Some(l) = j.locals.get(i as usize) else {
            return;
        };
        if self.locals.insert(i) {
            work.extend(l.init.as_deref());
            annotation_exprs(&l.annotations, work);
            if let Some(super::facts::LambdaParam::Arg { call, .. }) = l.lambda {
                self.call(j, call, work);
            }
        }
    }

    fn expr<'j>(&mut self, j: &'j JavaFacts, e: &'j Expr, work: &mut Vec<&'j Expr>) {
        match e {
            Expr::Call(k) | Expr::New(_, k) => self.call(j, *k, work),
            Expr::Var(i) => self.local(j, *i, work),
            Expr::Field(x, _) | Expr::Index(x) | Expr::Assign(x) => work.push(x),
            Expr::Cond(a, b) | Expr::Plus(a, b) | Expr::Arith(a, b) => {
                work.push(a);
                work.push(b);
            }
            _ => {}
        }
    }
}

fn annotation_exprs<'j>(anns: &'j [Annotation], work: &mut Vec<&'j Expr>) {
    fn value<'j>(v: &'j AnnValue, work: &mut Vec<&'j Expr>) {
        match v {
            AnnValue::Expr(e) => work.push(e),
            AnnValue::Array(vs) => vs.iter().for_each(|v| value(v, work)),
            AnnValue::Nested(a) => a.args.iter().for_each(|(_, v)| value(v, work)),
        }
    }
    for a in anns {
        for (_, v) in &a.args {
            value(v, work);
        }
    }
}

/// Rewrites every local index in `e` through `map`.
fn rewrite(e: &mut Expr, map: &impl Fn(u32) -> u32) {
    match e {
        Expr::Var(i) => *i = map(*i),
        Expr::Field(x, _) | Expr::Index(x) | Expr::Assign(x) => rewrite(x, map),
        Expr::Cond(a, b) | Expr::Plus(a, b) | Expr::Arith(a, b) => {
            rewrite(a, map);
            rewrite(b, map);
        }
        _ => {}
    }
}

fn placeholder_call() -> Call {
    Call {
        kind: CallKind::Method,
        name: String::new(),
        recv: None,
        ty: None,
        args: Vec::new(),
        caller: Caller::Init(u32::MAX, false),
        ctx: u32::MAX,
        is_static_ctx: false,
        line: 0,
        anon: None,
        role: CallRole::Other,
    }
}

fn placeholder_local() -> Local {
    Local {
        name: String::new(),
        ty: None,
        init: None,
        each: false,
        annotations: Vec::new(),
        lambda: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::graph::facts::CallKind;
    use crate::lang::{self, ParseLimits};
    use crate::model::RepoPath;

    const QUEUES: &str = r#"package q;
public enum Queues {
    ORDER("order.exchange", Names.cancel()),
    PAY("pay.exchange", "pay");
    private final String exchange;
    private final String route;
    Queues(String exchange, String route) { this.exchange = exchange; this.route = route; }
    public String getExchange() { return exchange; }
    void send(Object body) {
        String key = route + ".send";
        template.convertAndSend(exchange, key, body);
        body.toString();
    }
}
"#;

    #[test]
    fn declarations_keep_what_other_files_read_and_drop_bodies() {
        let path = RepoPath::new("q/Queues.java").unwrap();
        let a = lang::analyze(
            lang::java::LANGUAGE,
            &path,
            "m",
            QUEUES.as_bytes(),
            &ParseLimits::default(),
        );
        let whole = *a.facts.unwrap();
        let j = whole.java.as_ref().unwrap();
        let d = whole.clone().declarations();
        let dj = d.java.as_ref().unwrap();
        // The types are kept whole but for their parameters' numbers.
        let renumbered = |ts: &[crate::graph::facts::TypeDecl]| {
            let mut ts = ts.to_vec();
            ts.iter_mut()
                .flat_map(|t| t.methods.iter_mut())
                .for_each(|m| m.params.clear());
            ts
        };
        assert_eq!(renumbered(&dj.types), renumbered(&j.types));
        // Each parameter still names its local: same name and type as in the whole facts.
        for (m, dm) in j.types[0].methods.iter().zip(&dj.types[0].methods) {
            for (&p, &dp) in m.params.iter().zip(&dm.params) {
                let (l, dl) = (&j.locals[p as usize], &dj.locals[dp as usize]);
                assert_eq!((&l.name, &l.ty), (&dl.name, &dl.ty));
            }
        }
        // The constants' constructions and the calls in their arguments are kept at their
        // indices; the method bodies' calls are not.
        let kept: Vec<&str> = dj
            .calls
            .iter()
            .filter(|c| !c.name.is_empty() || c.kind == CallKind::New)
            .filter(|c| c.ctx != u32::MAX)
            .map(|c| c.name.as_str())
            .collect();
        for (k, c) in dj.calls.iter().enumerate() {
            if c.ctx != u32::MAX {
                assert_eq!(c, &j.calls[k], "call {k} kept as it was");
            }
        }
        assert!(kept.contains(&"cancel"), "a constant's argument: {kept:?}");
        assert_eq!(
            dj.calls
                .iter()
                .filter(|c| c.kind == CallKind::New && c.ctx == 0)
                .count(),
            2,
            "both constants' constructions"
        );
        assert!(
            !kept.contains(&"convertAndSend") && !kept.contains(&"toString"),
            "{kept:?}"
        );
        assert!(
            dj.locals.len() < j.locals.len(),
            "the body's local `key` is dropped"
        );
        assert!(dj.assigns.is_empty() && dj.reads.is_empty());
        assert!(d.encode().len() < whole.encode().len());
    }
}
