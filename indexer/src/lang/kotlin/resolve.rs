//! Kotlin calls resolved across the repository: a receiver is typed from locals (`val s =
//! OrderService()`, declared types), parameters, properties of the class and its supertypes
//! (constructor `val`s, `lateinit var`s, initializers), `this`, `super`, objects and companion
//! objects, and the return types of earlier calls; a method is looked up in the type and its
//! supertypes, then in the extension functions whose receiver type matches. Types are looked up
//! by qualified name among the Kotlin classes and the Java types of the repository, so a call
//! into a Java class resolves to its method's Java id. Supertypes give `inherits`, `implements`
//! and `overrides` edges, through which callers and callees dispatch. Spring annotations are
//! [`super::spring`]'s.

use super::facts::{Expr, KtFacts, KtFun, type_name};
use crate::graph::facts::JavaFacts;
use crate::graph::{CallSite, Edge, EdgeKind, FileFacts};
use crate::model::{RepoPath, SymbolKind};
use std::collections::HashMap;

/// How deep typing follows bindings, supertypes and return types.
const MAX_DEPTH: u32 = 16;

/// Edges of every Kotlin file, by index into `files`.
pub fn resolve(files: &[(&RepoPath, &FileFacts)]) -> Vec<Vec<Edge>> {
    let kt: Vec<Option<KtFacts>> = files.iter().map(|(_, f)| KtFacts::decode(f)).collect();
    if kt.iter().all(Option::is_none) {
        return vec![Vec::new(); files.len()];
    }
    let r = Repo::new(files, &kt);
    let mut out: Vec<Vec<Edge>> = (0..files.len())
        .map(|fi| match &kt[fi] {
            Some(f) => {
                let mut e = r.call_edges(fi, f);
                e.extend(r.hierarchy_edges(fi, f));
                e.extend(super::spring::entry_edges(&r, fi, f));
                e
            }
            None => Vec::new(),
        })
        .collect();
    for (fi, e) in super::spring::message_edges(&r) {
        out[fi].push(e);
    }
    out
}

/// A class of the repository, Kotlin or Java.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Cls {
    /// (file, index into its `classes`).
    Kt(usize, u32),
    /// (file, index into its Java `types`).
    Java(usize, u32),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ty {
    Inst(Cls),
    /// A class name used as a qualifier (an object's or companion's members).
    Static(Cls),
    /// A type outside the repository, by its name as written (`String`, `KafkaTemplate`).
    Ext(String),
    Unknown,
}

/// What a call runs.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Target {
    /// (file, index into its `funs`).
    Fun(usize, u32),
    /// (file, type, method) of Java facts.
    Java(usize, u32, u32),
    Ctor(Cls),
    Unknown,
    Skip,
}

/// Where an expression is read: file, byte offset, the class whose code it is.
#[derive(Clone, Copy)]
pub(super) struct At {
    pub(super) fi: usize,
    pub(super) at: u32,
    pub(super) class: Option<u32>,
}

pub(super) struct Repo<'a> {
    pub(super) files: &'a [(&'a RepoPath, &'a FileFacts)],
    kt: &'a [Option<KtFacts>],
    classes: HashMap<String, Cls>,
    /// Top-level functions by qualified name.
    tops: HashMap<String, Vec<(usize, u32)>>,
    /// Extension functions by name.
    extensions: HashMap<String, Vec<(usize, u32)>>,
    locals: Vec<HashMap<&'a str, Vec<u32>>>,
}

impl<'a> Repo<'a> {
    fn new(files: &'a [(&'a RepoPath, &'a FileFacts)], kt: &'a [Option<KtFacts>]) -> Repo<'a> {
        let mut classes = HashMap::new();
        let mut tops: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut extensions: HashMap<String, Vec<(usize, u32)>> = HashMap::new();
        let mut locals = Vec::with_capacity(files.len());
        for (fi, (_, facts)) in files.iter().enumerate() {
            for (ti, t) in facts.java.iter().flat_map(|j| j.types.iter().enumerate()) {
                if !t.local && !t.anonymous {
                    classes
                        .entry(t.qname.clone())
                        .or_insert(Cls::Java(fi, ti as u32));
                }
            }
            let mut l: HashMap<&str, Vec<u32>> = HashMap::new();
            if let Some(f) = &kt[fi] {
                for (ci, c) in f.classes.iter().enumerate() {
                    let q = &f.defs[c.def as usize].1;
                    classes.insert(q.clone(), Cls::Kt(fi, ci as u32));
                }
                for (k, fun) in f.funs.iter().enumerate() {
                    let at = (fi, k as u32);
                    match (&fun.receiver, fun.owner) {
                        (Some(_), _) => extensions.entry(fun.name.clone()).or_default().push(at),
                        (None, None) => {
                            let q = f.defs[fun.def as usize].1.clone();
                            tops.entry(q).or_default().push(at);
                        }
                        _ => {}
                    }
                }
                for (i, x) in f.locals.iter().enumerate() {
                    l.entry(x.name.as_str()).or_default().push(i as u32);
                }
            }
            locals.push(l);
        }
        Repo {
            files,
            kt,
            classes,
            tops,
            extensions,
            locals,
        }
    }

    pub(super) fn facts(&self, fi: usize) -> &'a KtFacts {
        self.kt[fi].as_ref().expect("a kotlin file")
    }

    pub(super) fn kt_facts(&self, fi: usize) -> Option<&'a KtFacts> {
        self.kt[fi].as_ref()
    }

    pub(super) fn all_classes(&self) -> impl Iterator<Item = Cls> + '_ {
        self.classes.values().copied()
    }

    /// A class's annotations, as written.
    pub(super) fn annotation_names(&self, c: Cls) -> Vec<String> {
        match c {
            Cls::Kt(f, ci) => self.facts(f).classes[ci as usize]
                .annotations
                .iter()
                .map(|a| a.name.clone())
                .collect(),
            Cls::Java(f, ti) => self.java(f).types[ti as usize]
                .annotations
                .iter()
                .map(|a| a.name.clone())
                .collect(),
        }
    }

    fn java(&self, fi: usize) -> &'a JavaFacts {
        self.files[fi].1.java.as_ref().expect("a java file")
    }

    fn call_edges(&self, fi: usize, f: &KtFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for c in &f.calls {
            let at = At {
                fi,
                at: c.at,
                class: c.class,
            };
            let target = self.callee(at, &c.func, 0);
            let name = match &c.func {
                Expr::Name(n) | Expr::Nav(_, n) => n.clone(),
                _ => String::new(),
            };
            if let Some(e) = super::spring::bean_edge(self, at, c, &target) {
                out.push(e);
            }
            let mut e = self.edge(fi, c.caller, c.line, EdgeKind::Call, &target);
            if e.callee.is_none() && target != Target::Unknown {
                continue;
            }
            e.callee_name = name;
            e.site = CallSite {
                receiver: match &c.func {
                    Expr::Nav(x, _) => receiver_names(x),
                    _ => Vec::new(),
                },
                flags: 0,
            };
            out.push(e);
        }
        out
    }

    /// An edge from definition `caller` of file `fi` to a target (none when unresolved).
    pub(super) fn edge(
        &self,
        fi: usize,
        caller: u32,
        line: u32,
        kind: EdgeKind,
        t: &Target,
    ) -> Edge {
        let (callee, file, cline, confidence) = match self.endpoint(t) {
            Some((id, f, l)) => (Some(id), Some(self.files[f].0.to_string()), Some(l), 1.0),
            None => (None, None, None, 0.3),
        };
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: self.facts(fi).defs[caller as usize].0.clone(),
            caller_name: String::new(),
            line,
            kind,
            callee,
            callee_name: String::new(),
            callee_file: file,
            callee_line: cline,
            caller_flags: 0,
            confidence,
            detail: String::new(),
            site: CallSite::default(),
        }
    }

    /// A target's id, file and line.
    pub(super) fn endpoint(&self, t: &Target) -> Option<(String, usize, u32)> {
        match *t {
            Target::Fun(f, k) => {
                let d = &self.facts(f).defs[self.facts(f).funs[k as usize].def as usize];
                Some((d.0.clone(), f, d.2))
            }
            Target::Java(f, ti, mi) => {
                let m = &self.java(f).types[ti as usize].methods[mi as usize];
                Some((m.id.clone(), f, m.line))
            }
            Target::Ctor(c) => Some(self.class_endpoint(c)),
            Target::Unknown | Target::Skip => None,
        }
    }

    pub(super) fn class_endpoint(&self, c: Cls) -> (String, usize, u32) {
        match c {
            Cls::Kt(f, ci) => {
                let d = &self.facts(f).defs[self.facts(f).classes[ci as usize].def as usize];
                (d.0.clone(), f, d.2)
            }
            Cls::Java(f, ti) => {
                let t = &self.java(f).types[ti as usize];
                (t.id.clone(), f, t.line)
            }
        }
    }

    /// What calling `func` runs.
    pub(super) fn callee(&self, at: At, func: &Expr, depth: u32) -> Target {
        match func {
            Expr::Name(n) => self.called_name(at, n, depth),
            Expr::Nav(x, n) => {
                let t = match x.as_ref() {
                    Expr::Super => self
                        .supers_of(at)
                        .first()
                        .map_or(Ty::Unknown, |c| Ty::Inst(*c)),
                    _ => self.type_of(at, x, depth + 1),
                };
                self.method_on(&t, n, depth)
            }
            _ => Target::Skip,
        }
    }

    fn called_name(&self, at: At, n: &str, depth: u32) -> Target {
        if self.local(at, n).is_some() {
            return Target::Skip;
        }
        // Members of the enclosing classes (companions included), innermost first.
        let mut c = at.class;
        while let Some(ci) = c {
            let own = Cls::Kt(at.fi, ci);
            match self.method_on(&Ty::Inst(own), n, depth) {
                Target::Unknown | Target::Skip => {}
                t => return t,
            }
            c = self.facts(at.fi).classes[ci as usize].outer;
        }
        for q in self.candidates(at.fi, n) {
            if let Some(&(tf, k)) = self.tops.get(&q).and_then(|v| v.first()) {
                return Target::Fun(tf, k);
            }
        }
        // A constructor, or a function of the standard library (`listOf`, `println`).
        self.class_named(at, n).map_or(Target::Skip, Target::Ctor)
    }

    /// Qualified names a simple name may stand for in file `fi`: imported (by name or alias),
    /// the file's package, star imports.
    fn candidates(&self, fi: usize, n: &str) -> Vec<String> {
        let f = self.facts(fi);
        let mut out = Vec::new();
        for (q, alias, star) in &f.imports {
            let local = alias
                .as_deref()
                .unwrap_or_else(|| q.rsplit('.').next().unwrap_or(q));
            if !star && local == n {
                out.push(q.clone());
            }
        }
        out.push(if f.package.is_empty() {
            n.to_string()
        } else {
            format!("{}.{n}", f.package)
        });
        for (q, _, star) in &f.imports {
            if *star {
                out.push(format!("{q}.{n}"));
            }
        }
        out
    }

    /// The class a (possibly dotted) name written in Kotlin code names.
    pub(super) fn class_named(&self, at: At, written: &str) -> Option<Cls> {
        let name = type_name(written);
        let (head, rest) = match name.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (name.as_str(), None),
        };
        if rest.is_some()
            && let Some(&c) = self.classes.get(&name)
        {
            return Some(c);
        }
        let mut c = at.class;
        let mut found = None;
        while let (Some(ci), None) = (c, found) {
            let q = &self.facts(at.fi).defs[self.facts(at.fi).classes[ci as usize].def as usize].1;
            found = self.classes.get(&format!("{q}.{head}")).copied();
            c = self.facts(at.fi).classes[ci as usize].outer;
        }
        let found = found.or_else(|| {
            self.candidates(at.fi, head)
                .iter()
                .find_map(|q| self.classes.get(q).copied())
        })?;
        match rest {
            None => Some(found),
            Some(r) => self
                .classes
                .get(&format!("{}.{r}", self.qname(found)))
                .copied(),
        }
    }

    fn qname(&self, c: Cls) -> String {
        match c {
            Cls::Kt(f, ci) => self.facts(f).defs[self.facts(f).classes[ci as usize].def as usize]
                .1
                .clone(),
            Cls::Java(f, ti) => self.java(f).types[ti as usize].qname.clone(),
        }
    }

    /// A type written in class `c`'s file.
    fn type_in(&self, c: Cls, written: &str) -> Ty {
        if written.is_empty() {
            return Ty::Unknown;
        }
        let found = match c {
            Cls::Kt(fi, ci) => self.class_named(
                At {
                    fi,
                    at: 0,
                    class: Some(ci),
                },
                written,
            ),
            Cls::Java(fi, ti) => self.java_class(fi, ti, written),
        };
        found.map_or_else(|| Ty::Ext(type_name(written)), Ty::Inst)
    }

    /// A type name written in a Java file: nested, imported, same package, on-demand imports.
    fn java_class(&self, fi: usize, ti: u32, written: &str) -> Option<Cls> {
        let j = self.java(fi);
        let name = type_name(written);
        let own = &j.types[ti as usize].qname;
        let mut cands = vec![format!("{own}.{name}"), name.clone()];
        for i in &j.imports {
            if !i.on_demand && i.path.rsplit('.').next() == Some(name.as_str()) {
                cands.push(i.path.clone());
            } else if i.on_demand {
                cands.push(format!("{}.{name}", i.path));
            }
        }
        cands.push(format!("{}.{name}", j.package));
        cands.iter().find_map(|q| self.classes.get(q).copied())
    }

    /// The supertypes of a class that are in the repository.
    pub(super) fn supers(&self, c: Cls) -> Vec<Cls> {
        match c {
            Cls::Kt(fi, ci) => {
                let at = At {
                    fi,
                    at: 0,
                    class: self.facts(fi).classes[ci as usize].outer,
                };
                let supers = &self.facts(fi).classes[ci as usize].supers;
                supers
                    .iter()
                    .filter_map(|s| self.class_named(at, s))
                    .collect()
            }
            Cls::Java(fi, ti) => {
                let t = &self.java(fi).types[ti as usize];
                t.superclass
                    .iter()
                    .chain(&t.interfaces)
                    .filter_map(|r| self.java_class(fi, ti, &r.name))
                    .collect()
            }
        }
    }

    fn supers_of(&self, at: At) -> Vec<Cls> {
        at.class
            .map(|ci| self.supers(Cls::Kt(at.fi, ci)))
            .unwrap_or_default()
    }

    pub(super) fn is_interface(&self, c: Cls) -> bool {
        match c {
            Cls::Kt(f, ci) => self.facts(f).classes[ci as usize].kind == SymbolKind::Interface,
            Cls::Java(f, ti) => {
                self.java(f).types[ti as usize].kind == crate::graph::facts::TypeKind::Interface
            }
        }
    }

    /// Method `n` called on a value of type `t`.
    pub(super) fn method_on(&self, t: &Ty, n: &str, depth: u32) -> Target {
        let c = match t {
            Ty::Inst(c) => *c,
            Ty::Static(c) => {
                if let Some(nested) = self.classes.get(&format!("{}.{n}", self.qname(*c))) {
                    return Target::Ctor(*nested);
                }
                let companion = self.classes.get(&format!("{}.Companion", self.qname(*c)));
                match (self.method(*c, n, depth), companion) {
                    (Some(t), _) => return t,
                    (None, Some(&comp)) => {
                        return self.method(comp, n, depth).unwrap_or(Target::Unknown);
                    }
                    (None, None) => return Target::Unknown,
                }
            }
            Ty::Ext(name) => return self.extension(|r| type_name(r) == *name, n),
            Ty::Unknown => return Target::Unknown,
        };
        if let Some(t) = self.method(c, n, depth) {
            return t;
        }
        let mut family = vec![c];
        family.extend(self.ancestors(c));
        let names: Vec<String> = family.iter().map(|&c| self.qname(c)).collect();
        self.extension(
            |r| {
                let r = type_name(r);
                names
                    .iter()
                    .any(|q| *q == r || q.rsplit('.').next() == Some(&r))
            },
            n,
        )
    }

    /// An extension function named `n` whose receiver type passes `fits`.
    fn extension(&self, fits: impl Fn(&str) -> bool, n: &str) -> Target {
        let found = self.extensions.get(n).into_iter().flatten().find(|(f, k)| {
            let fun: &KtFun = &self.facts(*f).funs[*k as usize];
            fun.receiver.as_deref().is_some_and(&fits)
        });
        found.map_or(Target::Unknown, |&(f, k)| Target::Fun(f, k))
    }

    /// Every supertype, transitively.
    pub(super) fn ancestors(&self, c: Cls) -> Vec<Cls> {
        let mut out: Vec<Cls> = Vec::new();
        let mut todo = self.supers(c);
        while let Some(s) = todo.pop() {
            if out.contains(&s) || out.len() > 64 {
                continue;
            }
            out.push(s);
            todo.extend(self.supers(s));
        }
        out
    }

    /// A method declared by the class or inherited.
    pub(super) fn method(&self, c: Cls, n: &str, depth: u32) -> Option<Target> {
        if depth > MAX_DEPTH {
            return None;
        }
        std::iter::once(c)
            .chain(self.ancestors(c))
            .find_map(|c| self.own_method(c, n))
    }

    fn own_method(&self, c: Cls, n: &str) -> Option<Target> {
        match c {
            Cls::Kt(f, ci) => {
                let k = self
                    .facts(f)
                    .funs
                    .iter()
                    .position(|x| x.owner == Some(ci) && x.name == n && x.receiver.is_none())?;
                Some(Target::Fun(f, k as u32))
            }
            Cls::Java(f, ti) => {
                let ms = &self.java(f).types[ti as usize].methods;
                let m = ms.iter().position(|m| m.name == n && !m.is_ctor)?;
                Some(Target::Java(f, ti, m as u32))
            }
        }
    }

    /// The type of property `n` of a class or its supertypes.
    fn property(&self, c: Cls, n: &str, depth: u32) -> Option<Ty> {
        for c in std::iter::once(c).chain(self.ancestors(c)) {
            match c {
                Cls::Kt(f, ci) => {
                    let class = &self.facts(f).classes[ci as usize];
                    let Some((_, ty, value)) = class.props.iter().find(|p| p.0 == n) else {
                        continue;
                    };
                    if !ty.is_empty() {
                        return Some(self.type_in(c, ty));
                    }
                    let at = At {
                        fi: f,
                        at: u32::MAX,
                        class: Some(ci),
                    };
                    return value.as_ref().map(|v| self.type_of(at, v, depth + 1));
                }
                Cls::Java(f, ti) => {
                    let t = &self.java(f).types[ti as usize];
                    if let Some(fd) = t.fields.iter().find(|x| x.name == n) {
                        return Some(self.type_in(c, &fd.ty.name));
                    }
                }
            }
        }
        None
    }

    fn local(&self, at: At, n: &str) -> Option<u32> {
        let ls = &self.facts(at.fi).locals;
        self.locals[at.fi]
            .get(n)?
            .iter()
            .copied()
            .filter(|&i| ls[i as usize].decl <= at.at && at.at < ls[i as usize].end)
            .max_by_key(|&i| ls[i as usize].decl)
    }

    /// The type of an expression.
    pub(super) fn type_of(&self, at: At, e: &Expr, depth: u32) -> Ty {
        if depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        match e {
            Expr::Name(n) => self.name_type(at, n, depth),
            Expr::Nav(x, n) => match self.type_of(at, x, depth + 1) {
                Ty::Inst(c) => self.property(c, n, depth).unwrap_or(Ty::Unknown),
                Ty::Static(c) => match self.classes.get(&format!("{}.{n}", self.qname(c))) {
                    Some(&nested) => Ty::Static(nested),
                    None => self.property(c, n, depth).unwrap_or(Ty::Unknown),
                },
                _ => Ty::Unknown,
            },
            Expr::Call(f) => match self.callee(at, f, depth + 1) {
                Target::Ctor(c) => Ty::Inst(c),
                Target::Fun(tf, k) => self.returned(tf, k, depth),
                Target::Java(tf, ti, mi) => {
                    let m = &self.java(tf).types[ti as usize].methods[mi as usize];
                    m.ret
                        .as_ref()
                        .map_or(Ty::Unknown, |r| self.type_in(Cls::Java(tf, ti), &r.name))
                }
                _ => Ty::Unknown,
            },
            Expr::This => at
                .class
                .map_or(Ty::Unknown, |ci| Ty::Inst(Cls::Kt(at.fi, ci))),
            Expr::Super => self
                .supers_of(at)
                .first()
                .map_or(Ty::Unknown, |c| Ty::Inst(*c)),
            Expr::Str(_) => Ty::Ext("String".to_string()),
            Expr::Other => Ty::Unknown,
        }
    }

    fn returned(&self, f: usize, k: u32, depth: u32) -> Ty {
        let fun = &self.facts(f).funs[k as usize];
        let at = At {
            fi: f,
            at: u32::MAX,
            class: fun.owner,
        };
        match (&fun.ret, &fun.value) {
            (Some(r), _) => match self.class_named(at, r) {
                Some(c) => Ty::Inst(c),
                None => Ty::Ext(type_name(r)),
            },
            (None, Some(v)) => self.type_of(at, v, depth + 1),
            _ => Ty::Unknown,
        }
    }

    fn name_type(&self, at: At, n: &str, depth: u32) -> Ty {
        if let Some(i) = self.local(at, n) {
            let l = &self.facts(at.fi).locals[i as usize];
            if let Some(t) = &l.ty {
                return match self.class_named(at, t) {
                    Some(c) => Ty::Inst(c),
                    None => Ty::Ext(type_name(t)),
                };
            }
            let decl = At {
                at: l.decl.saturating_sub(1),
                ..at
            };
            return l
                .value
                .as_ref()
                .map_or(Ty::Unknown, |v| self.type_of(decl, v, depth + 1));
        }
        let mut c = at.class;
        while let Some(ci) = c {
            if let Some(t) = self.property(Cls::Kt(at.fi, ci), n, depth) {
                return t;
            }
            c = self.facts(at.fi).classes[ci as usize].outer;
        }
        match self.class_named(at, n) {
            Some(c) => Ty::Static(c),
            None => Ty::Unknown,
        }
    }

    /// `inherits` / `implements` for each class's supertypes; `overrides` for each member
    /// function that redefines a supertype's.
    fn hierarchy_edges(&self, fi: usize, f: &KtFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for (ci, c) in f.classes.iter().enumerate() {
            let me = Cls::Kt(fi, ci as u32);
            for s in self.supers(me) {
                let kind = if self.is_interface(s) && c.kind != SymbolKind::Interface {
                    EdgeKind::Implements
                } else {
                    EdgeKind::Inherits
                };
                let line = f.defs[c.def as usize].2;
                out.push(self.edge(fi, c.def, line, kind, &Target::Ctor(s)));
            }
        }
        for fun in &f.funs {
            let Some(ci) = fun.owner.filter(|_| fun.receiver.is_none()) else {
                continue;
            };
            let overridden = self
                .ancestors(Cls::Kt(fi, ci))
                .into_iter()
                .find_map(|s| self.own_method(s, &fun.name));
            if let Some(t) = overridden {
                let line = f.defs[fun.def as usize].2;
                out.push(self.edge(fi, fun.def, line, EdgeKind::Overrides, &t));
            }
        }
        out
    }
}

/// The names of a receiver chain as written (`this.repo` → `["repo"]`).
fn receiver_names(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    let mut e = e;
    loop {
        match e {
            Expr::Name(n) => {
                out.push(n.clone());
                break;
            }
            Expr::Nav(x, n) => {
                out.push(n.clone());
                e = x;
            }
            Expr::Call(f) => e = f,
            _ => break,
        }
    }
    out.reverse();
    out
}
