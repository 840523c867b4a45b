//! Go calls resolved across the repository, the way the compiler types them: a package is its
//! directory, an import path reaches it through the `go.mod` module path (or a `vendor/`
//! folder); a receiver is typed from its declaration (parameters, receivers, `var x T`,
//! `x := T{}` / `&T{}` / `NewT()` / `x.(T)`, ranges, type switches, struct fields), and a
//! method is found in its type or, promoted, in an embedded one. A call through an interface
//! names the interface's method; the implementing types (every project type with all its
//! method names) get `implements` and `overrides` edges, through which callers and callees
//! dispatch. Calls into packages outside the repository name them (`go:net/http.Get`).

use super::expr::{Expr, TExpr};
use super::facts::{GoFacts, LocalSrc, TypeKind};
use crate::graph::{CallSite, Edge, EdgeKind, FileFacts};
use crate::model::RepoPath;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// How deep typing follows bindings, results and embedding.
const MAX_DEPTH: u32 = 24;

/// Edges of every Go file, by index into `files`.
pub fn resolve(files: &[(&RepoPath, &FileFacts)]) -> Vec<Vec<Edge>> {
    let go: Vec<Option<GoFacts>> = files.iter().map(|(_, f)| GoFacts::decode(f)).collect();
    if go.iter().all(Option::is_none) {
        return vec![Vec::new(); files.len()];
    }
    let r = Repo::new(files, &go);
    let mut out: Vec<Vec<Edge>> = (0..files.len())
        .map(|fi| match &go[fi] {
            Some(f) if f.module.is_none() => r.file_edges(fi, f),
            _ => Vec::new(),
        })
        .collect();
    for (fi, e) in r.implementations() {
        out[fi].push(e);
    }
    out
}

/// A value's type as far as calls go; pointers are transparent.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ty {
    /// A project type: (package, name).
    Named(usize, String),
    /// A type outside the repository: `net/http.Client`.
    Ext(String),
    Slice(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    Chan(Box<Ty>),
    Func(Vec<Ty>),
    Tuple(Vec<Ty>),
    /// An anonymous struct's fields, written in a file.
    Struct(usize, Vec<(String, TExpr)>),
    Unknown,
}

/// What an import name stands for.
#[derive(Debug, Clone)]
enum Imp {
    Repo(usize),
    Ext(String),
}

/// One package: a directory and a package clause name (`x_test` is its own).
#[derive(Default)]
pub(super) struct Pkg {
    dir: String,
    name: String,
    files: Vec<usize>,
    /// name → (file, index into its `funcs`).
    funcs: HashMap<String, (usize, u32)>,
    /// (receiver type, name) → (file, index into its `funcs`).
    methods: HashMap<(String, String), (usize, u32)>,
    /// name → (file, index into its `types`).
    types: HashMap<String, (usize, u32)>,
    /// name → (file, index into its `vars`).
    vars: HashMap<String, (usize, u32)>,
}

/// What a selector names in a type.
enum Member {
    /// A field, with the file its type is written in.
    Field(usize, TExpr),
    /// A method: (file, definition).
    Method(usize, u32),
}

/// What a call runs.
pub(super) enum Callee {
    Def(usize, u32),
    Ext(String),
    Unknown,
    /// Not a declared function (a conversion, a builtin, a func value).
    Skip,
}

pub(super) struct Repo<'a> {
    pub(super) files: &'a [(&'a RepoPath, &'a FileFacts)],
    pub(super) go: &'a [Option<GoFacts>],
    pkgs: Vec<Pkg>,
    file_pkg: Vec<usize>,
    imports: Vec<HashMap<String, Imp>>,
    /// Per file: dot-imported project packages.
    dots: Vec<Vec<usize>>,
    /// Per file: local name → indices into its `locals`.
    locals: Vec<HashMap<String, Vec<u32>>>,
    memo: RefCell<HashMap<(usize, u32), Ty>>,
}

/// The site a name is looked up from.
#[derive(Clone, Copy)]
pub(super) struct At {
    pub(super) fi: usize,
    pub(super) at: u32,
}

impl<'a> Repo<'a> {
    fn new(files: &'a [(&'a RepoPath, &'a FileFacts)], go: &'a [Option<GoFacts>]) -> Repo<'a> {
        let mut pkgs: Vec<Pkg> = Vec::new();
        let mut key: HashMap<(&str, &str), usize> = HashMap::new();
        let mut file_pkg = vec![usize::MAX; files.len()];
        for (fi, f) in go.iter().enumerate() {
            let Some(f) = f.as_ref().filter(|f| f.module.is_none()) else {
                continue;
            };
            let p = *key.entry((&f.dir, &f.name)).or_insert_with(|| {
                pkgs.push(Pkg {
                    dir: f.dir.clone(),
                    name: f.name.clone(),
                    ..Pkg::default()
                });
                pkgs.len() - 1
            });
            file_pkg[fi] = p;
            index_file(&mut pkgs[p], fi, f);
        }
        let by_path = import_paths(&pkgs, go);
        let mut imports = Vec::with_capacity(files.len());
        let mut dots = Vec::with_capacity(files.len());
        let mut locals = Vec::with_capacity(files.len());
        for f in go {
            let (m, d) = f
                .as_ref()
                .map(|f| file_imports(f, &pkgs, &by_path))
                .unwrap_or_default();
            imports.push(m);
            dots.push(d);
            let mut l: HashMap<String, Vec<u32>> = HashMap::new();
            for (i, x) in f.iter().flat_map(|f| f.locals.iter().enumerate()) {
                l.entry(x.name.clone()).or_default().push(i as u32);
            }
            locals.push(l);
        }
        Repo {
            files,
            go,
            pkgs,
            file_pkg,
            imports,
            dots,
            locals,
            memo: RefCell::new(HashMap::new()),
        }
    }

    pub(super) fn facts(&self, fi: usize) -> &'a GoFacts {
        self.go[fi].as_ref().expect("a go file")
    }

    fn file_edges(&self, fi: usize, f: &GoFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for c in &f.calls {
            let at = At { fi, at: c.at };
            let callee = self.callee(at, &c.func, 0);
            if let Some(e) = super::routes::edge(self, at, c, &callee) {
                out.push(e);
            }
            let name = match &c.func {
                Expr::Sel(_, m) => m.clone(),
                Expr::Name(n) => n.clone(),
                _ => String::new(),
            };
            let receiver = match &c.func {
                Expr::Sel(x, _) => receiver_names(x),
                _ => Vec::new(),
            };
            let (callee, file, line, confidence) = match callee {
                Callee::Def(tf, d) => {
                    let (id, l) = &self.facts(tf).defs[d as usize];
                    (Some(id.clone()), Some(tf), Some(*l), 1.0)
                }
                Callee::Ext(x) => (Some(format!("go:{x}")), None, None, 1.0),
                Callee::Unknown => (None, None, None, 0.3),
                Callee::Skip => continue,
            };
            let mut e = self.edge(fi, c.caller, c.line, EdgeKind::Call, callee, name);
            e.callee_file = file.map(|tf| self.files[tf].0.to_string());
            e.callee_line = line;
            e.confidence = confidence;
            e.site = CallSite { receiver, flags: 0 };
            out.push(e);
        }
        out
    }

    /// An edge from definition `caller` of file `fi`.
    pub(super) fn edge(
        &self,
        fi: usize,
        caller: u32,
        line: u32,
        kind: EdgeKind,
        callee: Option<String>,
        callee_name: String,
    ) -> Edge {
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: self.facts(fi).defs[caller as usize].0.clone(),
            caller_name: String::new(),
            line,
            kind,
            callee,
            callee_name,
            callee_file: None,
            callee_line: None,
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site: CallSite::default(),
        }
    }

    /// What calling `func` runs.
    pub(super) fn callee(&self, at: At, func: &Expr, depth: u32) -> Callee {
        match func {
            Expr::Name(n) => {
                if self.local(at, n).is_some() {
                    return Callee::Skip;
                }
                self.package_func(at.fi, n)
                    .map_or(Callee::Skip, |(f, d)| Callee::Def(f, d))
            }
            Expr::Sel(x, m) => self.selected(at, x, m, depth),
            Expr::Index(x) => self.callee(at, x, depth + 1),
            _ => Callee::Skip,
        }
    }

    fn selected(&self, at: At, x: &Expr, m: &str, depth: u32) -> Callee {
        if let Expr::Name(q) = x
            && self.local(at, q).is_none()
            && !self.in_package(at.fi, q)
        {
            match self.imports[at.fi].get(q.as_str()) {
                Some(Imp::Repo(p)) => {
                    return match self.pkgs[*p].funcs.get(m) {
                        Some(&(f, i)) => Callee::Def(f, self.facts(f).funcs[i as usize].def),
                        None => Callee::Skip,
                    };
                }
                Some(Imp::Ext(path)) => return Callee::Ext(format!("{path}.{m}")),
                None => {}
            }
        }
        // A method expression `T.M`.
        let ty = match x {
            Expr::Name(q) if self.local(at, q).is_none() && self.type_named(at.fi, q) => {
                Ty::Named(self.file_pkg[at.fi], q.clone())
            }
            _ => self.type_of(at, x, depth + 1),
        };
        match self.member(&ty, m, depth) {
            Some(Member::Method(f, d)) => Callee::Def(f, d),
            Some(Member::Field(..)) => Callee::Skip,
            None => match ty {
                Ty::Ext(t) => Callee::Ext(format!("{t}.{m}")),
                _ => Callee::Unknown,
            },
        }
    }

    fn in_package(&self, fi: usize, name: &str) -> bool {
        let p = &self.pkgs[self.file_pkg[fi]];
        p.funcs.contains_key(name) || p.vars.contains_key(name) || p.types.contains_key(name)
    }

    fn type_named(&self, fi: usize, name: &str) -> bool {
        self.pkgs[self.file_pkg[fi]].types.contains_key(name)
    }

    /// A function of the file's package or of a dot-imported one: (file, definition).
    fn package_func(&self, fi: usize, name: &str) -> Option<(usize, u32)> {
        let own = std::iter::once(self.file_pkg[fi]);
        own.chain(self.dots[fi].iter().copied()).find_map(|p| {
            let &(f, i) = self.pkgs[p].funcs.get(name)?;
            Some((f, self.facts(f).funcs[i as usize].def))
        })
    }

    /// The local `name` visible at the site: the innermost (latest) declaration in scope.
    pub(super) fn local(&self, at: At, name: &str) -> Option<u32> {
        let ls = &self.facts(at.fi).locals;
        self.locals[at.fi]
            .get(name)?
            .iter()
            .copied()
            .filter(|&i| {
                let l = &ls[i as usize];
                l.decl <= at.at && at.at < l.end
            })
            .max_by_key(|&i| ls[i as usize].decl)
    }

    /// The type of an expression at a site.
    pub(super) fn type_of(&self, at: At, e: &Expr, depth: u32) -> Ty {
        if depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        match e {
            Expr::Name(n) => self.name_type(at, n, depth),
            Expr::Sel(x, f) => self.selection_type(at, x, f, depth),
            Expr::Call(f, args) => self.call_type(at, f, args, depth),
            Expr::Composite(t) | Expr::Assert(_, t) | Expr::Type(t) => self.conv(at.fi, t, depth),
            Expr::Index(x) => match self.underlying(self.type_of(at, x, depth + 1), depth) {
                Ty::Slice(e) | Ty::Map(_, e) | Ty::Chan(e) => *e,
                f @ Ty::Func(_) => f,
                _ => Ty::Unknown,
            },
            Expr::FuncLit(rs) => Ty::Func(rs.iter().map(|t| self.conv(at.fi, t, depth)).collect()),
            _ => Ty::Unknown,
        }
    }

    fn name_type(&self, at: At, n: &str, depth: u32) -> Ty {
        if let Some(i) = self.local(at, n) {
            return self.local_type(at.fi, i, depth);
        }
        self.member_of_package(self.file_pkg[at.fi], n, depth)
    }

    /// The type of a package-level variable or function of package `p`.
    fn member_of_package(&self, p: usize, n: &str, depth: u32) -> Ty {
        let pkg = &self.pkgs[p];
        if let Some(&(f, i)) = pkg.vars.get(n) {
            let v = &self.facts(f).vars[i as usize];
            if let Some(t) = &v.ty {
                return self.conv(f, t, depth);
            }
            if let Some((e, k)) = &v.value {
                let at = At { fi: f, at: 0 };
                return nth(self.type_of(at, e, depth + 1), *k);
            }
        }
        if let Some(&(f, i)) = pkg.funcs.get(n) {
            return self.func_type(f, i, depth);
        }
        Ty::Unknown
    }

    fn func_type(&self, f: usize, i: u32, depth: u32) -> Ty {
        let rs = &self.facts(f).funcs[i as usize].results;
        Ty::Func(rs.iter().map(|t| self.conv(f, t, depth)).collect())
    }

    fn local_type(&self, fi: usize, i: u32, depth: u32) -> Ty {
        if let Some(t) = self.memo.borrow().get(&(fi, i)) {
            return t.clone();
        }
        // A binding that refers to itself (`x := f(x)`) is unknown while it is computed.
        self.memo.borrow_mut().insert((fi, i), Ty::Unknown);
        let l = &self.facts(fi).locals[i as usize];
        let at = At { fi, at: l.decl };
        let t = match &l.src {
            LocalSrc::Typed(t) => self.conv(fi, t, depth),
            LocalSrc::Value(e, k) => nth(self.type_of(at, e, depth + 1), *k),
            LocalSrc::Range(e, k) => {
                match (self.underlying(self.type_of(at, e, depth + 1), depth), k) {
                    (Ty::Slice(e), 1) | (Ty::Map(_, e), 1) | (Ty::Chan(e), 0) => *e,
                    (Ty::Map(k, _), 0) => *k,
                    _ => Ty::Unknown,
                }
            }
        };
        self.memo.borrow_mut().insert((fi, i), t.clone());
        t
    }

    fn selection_type(&self, at: At, x: &Expr, f: &str, depth: u32) -> Ty {
        if let Expr::Name(q) = x
            && self.local(at, q).is_none()
            && !self.in_package(at.fi, q)
        {
            match self.imports[at.fi].get(q.as_str()) {
                Some(Imp::Repo(p)) => return self.member_of_package(*p, f, depth + 1),
                Some(Imp::Ext(_)) => return Ty::Unknown,
                None => {}
            }
        }
        let t = self.type_of(at, x, depth + 1);
        match self.member(&t, f, depth) {
            Some(Member::Field(tf, t)) => self.conv(tf, &t, depth + 1),
            Some(Member::Method(mf, d)) => {
                let i = self.facts(mf).funcs.iter().position(|x| x.def == d);
                match i {
                    Some(i) => self.func_type(mf, i as u32, depth + 1),
                    None => self.iface_method_type(mf, d, depth + 1),
                }
            }
            None => Ty::Unknown,
        }
    }

    fn iface_method_type(&self, f: usize, d: u32, depth: u32) -> Ty {
        for t in &self.facts(f).types {
            if let TypeKind::Interface(ms, _) = &t.kind
                && let Some((_, _, rs)) = ms.iter().find(|m| m.1 == d)
            {
                return Ty::Func(rs.iter().map(|t| self.conv(f, t, depth)).collect());
            }
        }
        Ty::Unknown
    }

    fn call_type(&self, at: At, f: &Expr, args: &[Expr], depth: u32) -> Ty {
        let arg = |i: usize| {
            args.get(i)
                .map_or(Ty::Unknown, |a| self.type_of(at, a, depth + 1))
        };
        if let Expr::Name(b) = f
            && self.local(at, b).is_none()
            && !self.in_package(at.fi, b)
        {
            match b.as_str() {
                "new" | "make" => {
                    return match args.first() {
                        Some(Expr::Name(t)) => {
                            self.conv(at.fi, &TExpr::Named(None, t.clone()), depth)
                        }
                        _ => arg(0),
                    };
                }
                "append" => return arg(0),
                _ => {}
            }
        }
        // A conversion `T(x)`, `pkg.T(x)`.
        let conversion = match f {
            Expr::Name(t) if self.local(at, t).is_none() && self.type_named(at.fi, t) => {
                Some(TExpr::Named(None, t.clone()))
            }
            Expr::Sel(q, t) => match q.as_ref() {
                Expr::Name(q) if self.local(at, q).is_none() => match self.imports[at.fi].get(q) {
                    Some(Imp::Repo(p)) if self.pkgs[*p].types.contains_key(t) => {
                        return Ty::Named(*p, t.clone());
                    }
                    _ => None,
                },
                _ => None,
            },
            Expr::Type(t) => Some(t.clone()),
            _ => None,
        };
        if let Some(t) = conversion {
            return self.conv(at.fi, &t, depth);
        }
        match self.underlying(self.type_of(at, f, depth + 1), depth) {
            Ty::Func(mut rs) if rs.len() == 1 => rs.remove(0),
            Ty::Func(rs) => Ty::Tuple(rs),
            _ => Ty::Unknown,
        }
    }

    /// A written type, read in file `fi`.
    pub(super) fn conv(&self, fi: usize, t: &TExpr, depth: u32) -> Ty {
        if depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        let c = |t: &TExpr| Box::new(self.conv(fi, t, depth + 1));
        match t {
            TExpr::Named(None, n) => {
                let p = self.file_pkg[fi];
                if self.pkgs[p].types.contains_key(n) {
                    Ty::Named(p, n.clone())
                } else {
                    Ty::Unknown
                }
            }
            TExpr::Named(Some(q), n) => match self.imports[fi].get(q) {
                Some(Imp::Repo(p)) if self.pkgs[*p].types.contains_key(n) => {
                    Ty::Named(*p, n.clone())
                }
                Some(Imp::Ext(path)) => Ty::Ext(format!("{path}.{n}")),
                _ => Ty::Unknown,
            },
            TExpr::Slice(e) => Ty::Slice(c(e)),
            TExpr::Map(k, v) => Ty::Map(c(k), c(v)),
            TExpr::Chan(e) => Ty::Chan(c(e)),
            TExpr::Func(rs) => Ty::Func(rs.iter().map(|r| self.conv(fi, r, depth + 1)).collect()),
            TExpr::Struct(fields) => Ty::Struct(fi, fields.clone()),
            TExpr::Other => Ty::Unknown,
        }
    }

    /// A named type's declaration: (file, index into its `types`).
    fn decl(&self, p: usize, n: &str) -> Option<(usize, u32)> {
        self.pkgs[p].types.get(n).copied()
    }

    /// The type a named non-struct type stands for (`type Routes []Route`, `type A = B`).
    fn underlying(&self, t: Ty, depth: u32) -> Ty {
        let mut t = t;
        for _ in 0..8 {
            let Ty::Named(p, n) = &t else { return t };
            let Some((f, i)) = self.decl(*p, n) else {
                return t;
            };
            match &self.facts(f).types[i as usize].kind {
                TypeKind::Alias(a) => t = self.conv(f, a, depth + 1),
                _ => return t,
            }
        }
        t
    }

    /// Field or method `name` of a type: its own, else promoted from the shallowest embedded
    /// type that has it.
    fn member(&self, t: &Ty, name: &str, depth: u32) -> Option<Member> {
        if let Ty::Struct(f, fields) = t {
            let (_, t) = fields.iter().find(|x| x.0 == name)?;
            return Some(Member::Field(*f, t.clone()));
        }
        let mut level = vec![t.clone()];
        let mut seen: HashSet<(usize, String)> = HashSet::new();
        for _ in 0..8 {
            let mut next = Vec::new();
            for t in level {
                let Ty::Named(p, n) = t else { continue };
                if !seen.insert((p, n.clone())) {
                    continue;
                }
                if let Some(m) = self.own_member(p, &n, name, &mut next, depth) {
                    return Some(m);
                }
            }
            if next.is_empty() {
                return None;
            }
            level = next;
        }
        None
    }

    /// A member declared by type `p.n` itself; its embedded types go to `embedded`.
    fn own_member(
        &self,
        p: usize,
        n: &str,
        name: &str,
        embedded: &mut Vec<Ty>,
        depth: u32,
    ) -> Option<Member> {
        if let Some(&(f, i)) = self.pkgs[p].methods.get(&(n.to_string(), name.to_string())) {
            return Some(Member::Method(f, self.facts(f).funcs[i as usize].def));
        }
        let (f, i) = self.decl(p, n)?;
        match &self.facts(f).types[i as usize].kind {
            TypeKind::Struct(fields) => {
                if let Some((_, t, _)) = fields.iter().find(|x| x.0 == name) {
                    return Some(Member::Field(f, t.clone()));
                }
                for (_, t, emb) in fields {
                    if *emb {
                        embedded.push(self.conv(f, t, depth + 1));
                    }
                }
            }
            TypeKind::Interface(ms, embeds) => {
                if let Some((_, d, _)) = ms.iter().find(|m| m.0 == name) {
                    return Some(Member::Method(f, *d));
                }
                embedded.extend(embeds.iter().map(|t| self.conv(f, t, depth + 1)));
            }
            // `type A = B` has B's members; `type A B` B's fields (close enough for calls).
            TypeKind::Alias(a) => embedded.push(self.conv(f, a, depth + 1)),
        }
        None
    }

    /// Method `name` of a type (promoted ones included): (file, definition).
    pub(super) fn method_of(&self, t: &Ty, name: &str) -> Option<(usize, u32)> {
        match self.member(t, name, 0)? {
            Member::Method(f, d) => Some((f, d)),
            Member::Field(..) => None,
        }
    }

    /// `implements` (type → interface) and `overrides` (method → interface method) edges: a
    /// project type implements a project interface when it has all the interface's methods.
    fn implementations(&self) -> Vec<(usize, Edge)> {
        let mut ifaces = Vec::new();
        let mut concrete = Vec::new();
        for (p, pkg) in self.pkgs.iter().enumerate() {
            for (n, &(f, i)) in &pkg.types {
                match &self.facts(f).types[i as usize].kind {
                    TypeKind::Interface(..) => ifaces.push((p, n.clone(), f, i)),
                    _ => concrete.push((p, n.clone(), f, i)),
                }
            }
        }
        let mut out = Vec::new();
        for (ip, iname, ifile, ii) in &ifaces {
            let methods = self.iface_methods(*ip, iname);
            if methods.is_empty() {
                continue;
            }
            for (cp, cname, cfile, ci) in &concrete {
                let ct = Ty::Named(*cp, cname.clone());
                let found: Vec<(usize, u32)> = methods
                    .iter()
                    .map_while(|(m, _, _)| match self.member(&ct, m, 0) {
                        Some(Member::Method(f, d)) => Some((f, d)),
                        _ => None,
                    })
                    .collect();
                if found.len() < methods.len() {
                    continue;
                }
                let cdef = self.facts(*cfile).types[*ci as usize].def;
                let idef = self.facts(*ifile).types[*ii as usize].def;
                out.push((
                    *cfile,
                    self.type_edge(*cfile, cdef, *ifile, idef, EdgeKind::Implements),
                ));
                for ((f, d), (_, mf, md)) in found.iter().zip(&methods) {
                    if (f, d) == (mf, md) {
                        continue; // an embedded interface's own method
                    }
                    out.push((*f, self.type_edge(*f, *d, *mf, *md, EdgeKind::Overrides)));
                }
            }
        }
        out
    }

    /// The methods of a project interface, embedded project interfaces' included:
    /// (name, file, definition).
    fn iface_methods(&self, p: usize, n: &str) -> Vec<(String, usize, u32)> {
        let mut out: Vec<(String, usize, u32)> = Vec::new();
        let mut todo = vec![(p, n.to_string())];
        let mut seen = HashSet::new();
        while let Some((p, n)) = todo.pop() {
            if !seen.insert((p, n.clone())) || seen.len() > 32 {
                continue;
            }
            let Some((f, i)) = self.decl(p, &n) else {
                continue;
            };
            let TypeKind::Interface(ms, embeds) = &self.facts(f).types[i as usize].kind else {
                continue;
            };
            for (m, d, _) in ms {
                if !out.iter().any(|x| x.0 == *m) {
                    out.push((m.clone(), f, *d));
                }
            }
            for e in embeds {
                match self.conv(f, e, 0) {
                    Ty::Named(p, n) => todo.push((p, n)),
                    // An embedded interface from outside: its methods are unknown here.
                    _ => return Vec::new(),
                }
            }
        }
        out
    }

    fn type_edge(&self, fi: usize, def: u32, tf: usize, tdef: u32, kind: EdgeKind) -> Edge {
        let (id, line) = &self.facts(fi).defs[def as usize];
        let (tid, tline) = &self.facts(tf).defs[tdef as usize];
        let mut e = self.edge(fi, def, *line, kind, Some(tid.clone()), String::new());
        e.caller = id.clone();
        e.callee_file = Some(self.files[tf].0.to_string());
        e.callee_line = Some(*tline);
        e
    }
}

/// Result `k` of a value (`a, b := f()`); a single value is its own result 0.
fn nth(t: Ty, k: u8) -> Ty {
    match (t, k) {
        (Ty::Tuple(mut v), k) if (k as usize) < v.len() => v.swap_remove(k as usize),
        (Ty::Tuple(_), _) => Ty::Unknown,
        (t, 0) => t,
        _ => Ty::Unknown,
    }
}

/// The names of a receiver chain as written (`s.repo` → `["s", "repo"]`).
fn receiver_names(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    let mut e = e;
    loop {
        match e {
            Expr::Name(n) => {
                out.push(n.clone());
                break;
            }
            Expr::Sel(x, f) => {
                out.push(f.clone());
                e = x;
            }
            Expr::Call(f, _) => e = f,
            _ => break,
        }
    }
    out.reverse();
    out
}

fn index_file(pkg: &mut Pkg, fi: usize, f: &GoFacts) {
    pkg.files.push(fi);
    for (i, func) in f.funcs.iter().enumerate() {
        let v = (fi, i as u32);
        match &func.receiver {
            Some(r) => {
                pkg.methods
                    .entry((r.clone(), func.name.clone()))
                    .or_insert(v);
            }
            // `init` is never called by name.
            None if func.name != "init" => {
                pkg.funcs.entry(func.name.clone()).or_insert(v);
            }
            None => {}
        }
    }
    for (i, t) in f.types.iter().enumerate() {
        pkg.types.entry(t.name.clone()).or_insert((fi, i as u32));
    }
    for (i, v) in f.vars.iter().enumerate() {
        pkg.vars.entry(v.name.clone()).or_insert((fi, i as u32));
    }
}

/// Import path → package, from the `go.mod` module paths (the package in a module's
/// subdirectory `a/b` is `<module>/a/b`) and `vendor/` folders.
fn import_paths(pkgs: &[Pkg], go: &[Option<GoFacts>]) -> HashMap<String, usize> {
    let modules: Vec<(&str, &str)> = go
        .iter()
        .flatten()
        .filter_map(|f| Some((f.dir.as_str(), f.module.as_deref()?)))
        .collect();
    let mut out: HashMap<String, usize> = HashMap::new();
    for (p, pkg) in pkgs.iter().enumerate() {
        if pkg.name.ends_with("_test") {
            continue;
        }
        let mut paths = Vec::new();
        let module = modules
            .iter()
            .filter(|(d, _)| *d == "." || pkg.dir == *d || pkg.dir.starts_with(&format!("{d}/")))
            .max_by_key(|(d, _)| if *d == "." { 0 } else { d.len() + 1 });
        if let Some((d, m)) = module {
            let rel = if *d == "." {
                pkg.dir.as_str()
            } else {
                pkg.dir[d.len()..].trim_start_matches('/')
            };
            paths.push(match rel {
                "" | "." => m.to_string(),
                r => format!("{m}/{r}"),
            });
        }
        if let Some(i) = pkg
            .dir
            .rfind("vendor/")
            .filter(|i| *i == 0 || pkg.dir[..*i].ends_with('/'))
        {
            paths.push(pkg.dir[i + 7..].to_string());
        }
        for path in paths {
            // Two clauses in one folder (a build-ignored `main`): the one with more files.
            let keep = out
                .get(&path)
                .is_some_and(|&q| pkgs[q].files.len() >= pkg.files.len());
            if !keep {
                out.insert(path, p);
            }
        }
    }
    out
}

/// A file's import names, and its dot-imported project packages.
fn file_imports(
    f: &GoFacts,
    pkgs: &[Pkg],
    by_path: &HashMap<String, usize>,
) -> (HashMap<String, Imp>, Vec<usize>) {
    let mut names = HashMap::new();
    let mut dots = Vec::new();
    for (local, path) in &f.imports {
        let target = by_path
            .get(path)
            .copied()
            .or_else(|| without_module(path, pkgs));
        match (local.as_str(), target) {
            ("_", _) => {}
            (".", Some(p)) => dots.push(p),
            (".", None) => {}
            ("", Some(p)) => {
                names.insert(pkgs[p].name.clone(), Imp::Repo(p));
            }
            ("", None) => {
                names.insert(default_name(path).to_string(), Imp::Ext(path.clone()));
            }
            (l, Some(p)) => {
                names.insert(l.to_string(), Imp::Repo(p));
            }
            (l, None) => {
                names.insert(l.to_string(), Imp::Ext(path.clone()));
            }
        }
    }
    (names, dots)
}

/// Without a `go.mod`: the package whose directory the import path ends with (the longest).
fn without_module(path: &str, pkgs: &[Pkg]) -> Option<usize> {
    pkgs.iter()
        .enumerate()
        .filter(|(_, p)| {
            !p.name.ends_with("_test")
                && p.dir != "."
                && (path == p.dir || path.ends_with(&format!("/{}", p.dir)))
        })
        .max_by_key(|(_, p)| p.dir.len())
        .map(|(i, _)| i)
}

/// The name an import binds by default: its last element, a major-version suffix (`/v2`) and
/// a `.v3` or `go-` decoration dropped (`gopkg.in/yaml.v3` → `yaml`).
fn default_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let mut last = parts.next().unwrap_or(path);
    if last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit()) {
        last = parts.next().unwrap_or(last);
    }
    let last = last.split('.').next().unwrap_or(last);
    last.strip_prefix("go-").unwrap_or(last)
}
