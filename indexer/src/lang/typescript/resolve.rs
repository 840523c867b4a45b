//! TypeScript and JavaScript calls resolved across the repository. Module specifiers resolve
//! to files as Node and bundlers do (relative paths with or without extension, `index` files,
//! `./x.js` naming `x.ts`), through the `paths` and `baseUrl` of the nearest `tsconfig.json`
//! above the importing file, then the common aliases (`@/x`, `~/x` under `src/`, a workspace's
//! `packages/<name>/src`, and a path suffix for other non-relative specifiers with a `/`). A name is looked up through the
//! enclosing functions, then the module's definitions, imports and assignments; a chain follows
//! exports (re-exports and `module.exports` included), namespaces, classes and their bases, and
//! instances (`this`, `new Foo()`, annotated parameters, properties and variables, return types).
//! `new X()` and calling a class run its constructor. What cannot be followed is recorded by
//! name only, below certainty.

use super::facts::{
    CALLED, CONSTRUCTED, How, TsAssign, TsCall, TsDef, TsFacts, is_step, type_name,
};
use super::http::{Handler, Mounted, join_path};
use super::tsconfig::TsConfig;
use crate::graph::{CallSite, Edge, EdgeKind, FileFacts};
use crate::model::{RepoPath, SymbolKind};
use rayon::prelude::*;
use std::collections::HashMap;

mod requests;

/// How deep a chain of bindings (aliases, re-exports, bases) is followed.
const MAX_DEPTH: u32 = 12;

/// Edges of every TypeScript and JavaScript file, by index into `files`.
pub fn resolve(files: &[(&RepoPath, &FileFacts)]) -> Vec<Vec<Edge>> {
    let ts: Vec<Option<TsFacts>> = files.par_iter().map(|(_, f)| TsFacts::decode(f)).collect();
    if ts.iter().all(Option::is_none) {
        return vec![Vec::new(); files.len()];
    }
    let r = Repo::new(files, &ts);
    let mounts = r.mounts();
    // The resolver keeps no memo, so files are resolved on every core in any order.
    (0..files.len())
        .into_par_iter()
        .map(|fi| match r.facts(fi) {
            Some(f) => {
                let mut edges = r.call_edges(fi, f);
                edges.extend(r.hierarchy_edges(fi, f));
                edges.extend(r.route_edges(fi, f, &mounts));
                edges.extend(r.request_edges(fi, f));
                edges
            }
            None => Vec::new(),
        })
        .collect()
}

/// What a name or chain evaluates to.
#[derive(Debug, Clone, PartialEq)]
enum V {
    Module(usize),
    Def(usize, u32),
    Instance(usize, u32),
    /// A name outside the repository (`axios.get`).
    External(String),
}

/// A router's definition → where it is mounted: (the definition of the object it is mounted on,
/// the prefix).
type Mounts = HashMap<(usize, u32), Vec<(Option<(usize, u32)>, String)>>;

enum Target {
    Def(usize, u32),
    External(String),
}

struct Repo<'a> {
    files: &'a [(&'a RepoPath, &'a FileFacts)],
    ts: &'a [Option<TsFacts>],
    /// Path without extension (and without a trailing `/index`) → file; every `/`-suffix of
    /// it too, for aliases.
    stems: HashMap<&'a str, usize>,
    suffixes: HashMap<&'a str, Vec<usize>>,
    /// Per file: (enclosing definition, name) → the definition binding it (last wins).
    members: Vec<HashMap<(u32, &'a str), u32>>,
    /// Each project class or interface's direct subtypes in the project.
    subs: HashMap<(usize, u32), Vec<(usize, u32)>>,
    /// The `tsconfig.json` files' aliases, deepest folder first.
    configs: Vec<&'a TsConfig>,
    /// The packages' names and subpaths (`package.json`), for the whole repository.
    packages: Vec<&'a TsConfig>,
    /// Functions whose request takes its URL from a parameter ([`requests`]).
    wrappers: HashMap<(usize, u32), requests::Wrapper>,
}

impl<'a> Repo<'a> {
    fn new(files: &'a [(&'a RepoPath, &'a FileFacts)], ts: &'a [Option<TsFacts>]) -> Repo<'a> {
        let mut stems = HashMap::new();
        let mut suffixes: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut members = Vec::with_capacity(files.len());
        let mut configs: Vec<&TsConfig> = ts
            .iter()
            .flatten()
            .filter_map(|f| f.config.as_ref())
            .collect();
        configs.sort_by_key(|c| std::cmp::Reverse(c.dir.len()));
        let (packages, configs) = configs.into_iter().partition(|c| c.package.is_some());
        for (fi, facts) in ts.iter().enumerate() {
            let mut m = HashMap::new();
            if let Some(f) = facts.as_ref().filter(|f| f.config.is_none()) {
                let stem = super::strip_extension(files[fi].0.as_str());
                for s in [Some(stem), stem.strip_suffix("/index")]
                    .into_iter()
                    .flatten()
                {
                    stems.entry(s).or_insert(fi);
                    for (i, _) in s.match_indices('/') {
                        suffixes.entry(&s[i + 1..]).or_default().push(fi);
                    }
                }
                for (di, d) in f.defs.iter().enumerate() {
                    if let Some(p) = d.parent {
                        let e = m.entry((p, d.name.as_str())).or_insert(di as u32);
                        // An overload signature yields to the implementation after it.
                        *e = di as u32;
                    }
                }
            }
            members.push(m);
        }
        let mut repo = Repo {
            files,
            ts,
            stems,
            suffixes,
            members,
            subs: HashMap::new(),
            configs,
            packages,
            wrappers: requests::wrappers(ts),
        };
        repo.subs = repo.subtype_map();
        repo
    }

    fn facts(&self, fi: usize) -> Option<&'a TsFacts> {
        self.ts[fi].as_ref()
    }

    fn def(&self, fi: usize, di: u32) -> &'a TsDef {
        &self.facts(fi).expect("a TypeScript file").defs[di as usize]
    }

    fn subtype_map(&self) -> HashMap<(usize, u32), Vec<(usize, u32)>> {
        let mut subs: HashMap<(usize, u32), Vec<(usize, u32)>> = HashMap::new();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for (di, d) in f.defs.iter().enumerate() {
                if is_type(d.kind) {
                    for base in self.bases(fi, di as u32, 0) {
                        subs.entry(base).or_default().push((fi, di as u32));
                    }
                }
            }
        }
        subs
    }

    // ---- modules ----

    /// The file a module specifier names, seen from file `fi`.
    fn module_file(&self, fi: usize, spec: &str) -> Option<usize> {
        if spec.starts_with('.') {
            let here = self.files[fi].0.as_str();
            let dir = here.rsplit_once('/').map_or("", |(d, _)| d);
            return self.probe(&normalize(dir, spec));
        }
        let here = self.files[fi].0.as_str();
        let config = self
            .configs
            .iter()
            .find(|c| c.dir.is_empty() || here.starts_with(&format!("{}/", c.dir)));
        if let Some(f) = config
            .into_iter()
            .flat_map(|c| c.candidates(spec))
            .find_map(|c| self.probe(&c))
        {
            return Some(f);
        }
        // A package of the repository by its name (a workspace member, a package's own tests).
        if let Some(f) = self
            .packages
            .iter()
            .flat_map(|p| p.candidates(spec))
            .find_map(|c| self.probe(&c))
        {
            return Some(f);
        }
        let aliased = ["@/", "~/", "#/", "~"]
            .iter()
            .find_map(|a| spec.strip_prefix(a));
        if let Some(rest) = aliased {
            return self
                .probe(&format!("src/{rest}"))
                .or_else(|| self.probe(rest))
                .or_else(|| self.by_suffix(rest));
        }
        // A workspace package (`@scope/name`, `name/sub`) or a `paths` alias.
        let package = spec.rsplit('/').next().unwrap_or(spec);
        self.probe(&format!("packages/{package}/src/index"))
            .or_else(|| spec.contains('/').then(|| self.by_suffix(spec)).flatten())
    }

    /// A path as written after resolving `.`/`..`: the file, with extension or `index` implied.
    fn probe(&self, base: &str) -> Option<usize> {
        let base = base.trim_end_matches('/');
        if let Some(&f) = self.stems.get(base) {
            return Some(f);
        }
        // `./x.js` in TypeScript names `x.ts`; a written extension is otherwise the file's.
        let stem = super::strip_extension(base);
        (stem != base)
            .then(|| self.stems.get(stem).copied())
            .flatten()
    }

    /// The shortest file whose path ends with `spec`.
    fn by_suffix(&self, spec: &str) -> Option<usize> {
        let spec = super::strip_extension(spec.trim_end_matches('/'));
        self.suffixes
            .get(spec)?
            .iter()
            .copied()
            .min_by_key(|&f| self.files[f].0.as_str().len())
    }

    /// An import's value: an export of a project file, or a name outside the repository.
    fn imported(&self, fi: usize, source: &str, name: &str, depth: u32) -> Option<V> {
        match self.module_file(fi, source) {
            Some(t) if name == "*" => Some(self.module_value(t, depth)),
            Some(t) => self.export_of(t, name, depth + 1),
            None if name == "*" || name == "default" => Some(V::External(source.to_string())),
            None => Some(V::External(format!("{source}.{name}"))),
        }
    }

    /// What importing a whole module gives: `module.exports = X` is X.
    fn module_value(&self, t: usize, depth: u32) -> V {
        let whole = self
            .facts(t)
            .and_then(|f| f.exports.iter().find(|e| e.name == "="));
        whole
            .and_then(|e| self.lookup(t, 0, &e.local, depth + 1))
            .unwrap_or(V::Module(t))
    }

    /// Export `name` of file `t`.
    fn export_of(&self, t: usize, name: &str, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        let f = self.facts(t)?;
        for e in f.exports.iter().rev().filter(|e| e.name == name) {
            let v = match &e.source {
                Some(s) => self.imported(t, s, &e.local, depth + 1),
                None => self.lookup(t, 0, &e.local, depth + 1),
            };
            if v.is_some() {
                return v;
            }
        }
        if let Some(&d) = self.members[t].get(&(0, name)) {
            return self.binding(t, d, depth);
        }
        if name == "default"
            && let Some(e) = f.exports.iter().find(|e| e.name == "=")
        {
            return self.lookup(t, 0, &e.local, depth + 1);
        }
        // `module.exports = X` with X's members, then `export * from`.
        if let Some(e) = f.exports.iter().find(|e| e.name == "=") {
            let whole = self.lookup(t, 0, &e.local, depth + 1)?;
            return self.attr(whole, name, depth + 1);
        }
        f.exports.iter().filter(|e| e.name == "*").find_map(|e| {
            let s = e.source.as_deref()?;
            self.export_of(self.module_file(t, s)?, name, depth + 1)
        })
    }

    // ---- names ----

    /// What definition `d` of file `f` names: a variable that is a plain alias (`const f = g`)
    /// is what it aliases; any other variable stays itself, so that calling it names it (its
    /// value is read by [`Repo::field_value`] when a member of it is wanted).
    fn binding(&self, f: usize, d: u32, depth: u32) -> Option<V> {
        let def = self.def(f, d);
        if def.kind != SymbolKind::Field {
            return Some(V::Def(f, d));
        }
        let scope = def.parent.unwrap_or(0);
        let last = self
            .facts(f)?
            .assigns
            .iter()
            .rfind(|a| a.scope == scope && a.target.len() == 1 && a.target[0] == def.name);
        match last {
            Some(a) if a.how == How::Value => self.assigned(f, a, depth + 1).or(Some(V::Def(f, d))),
            _ => Some(V::Def(f, d)),
        }
    }

    /// The value variable `d` holds: an instance of its declared type, else what it was last
    /// assigned (`const s = new Store()`, `const z = make()`).
    fn field_value(&self, f: usize, d: u32, depth: u32) -> Option<V> {
        let def = self.def(f, d);
        let scope = def.parent.unwrap_or(0);
        self.typed(f, scope, &def.returns, depth + 1)
            .or_else(|| self.assigned_in(f, scope, &def.name, u32::MAX, depth))
    }

    /// A value as a receiver: a variable is the value it holds.
    fn evaluated(&self, v: V) -> Option<V> {
        match v {
            V::Def(f, d) if self.def(f, d).kind == SymbolKind::Field => self.field_value(f, d, 0),
            v => Some(v),
        }
    }

    fn lookup(&self, fi: usize, scope: u32, name: &str, depth: u32) -> Option<V> {
        self.lookup_at(fi, scope, name, u32::MAX, depth)
    }

    /// A bare name seen from `scope` on line `at`: the enclosing functions outward (class
    /// bodies skipped), then the module.
    fn lookup_at(&self, fi: usize, scope: u32, name: &str, at: u32, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        let f = self.facts(fi)?;
        let mut s = Some(scope);
        let mut first = true;
        while let Some(si) = s {
            let d = &f.defs[si as usize];
            let at = if first { at } else { u32::MAX };
            // A parameter hides the names outside, typed or not.
            if d.kind.is_callable()
                && let Some((_, ty)) = d.params.iter().find(|p| p.0 == name)
            {
                return self.typed(fi, d.parent.unwrap_or(0), ty, depth);
            }
            if !matches!(d.kind, SymbolKind::Class | SymbolKind::Interface)
                && let Some(v) = self.bound_in(fi, si, name, at, depth)
            {
                return Some(v);
            }
            first = false;
            s = d.parent;
        }
        None
    }

    /// What `name` is bound to directly in definition `si` (parameters, declarations,
    /// imports, assignments).
    fn bound_in(&self, fi: usize, si: u32, name: &str, at: u32, depth: u32) -> Option<V> {
        let f = self.facts(fi)?;
        if let Some(&m) = self.members[fi].get(&(si, name))
            && f.defs[m as usize].kind != SymbolKind::Field
        {
            return Some(V::Def(fi, m));
        }
        if let Some(i) = f
            .imports
            .iter()
            .rev()
            .find(|i| i.scope == si && i.local == name)
        {
            return self.imported(fi, &i.source, &i.name, depth + 1);
        }
        if let Some(&m) = self.members[fi].get(&(si, name)) {
            return self.binding(fi, m, depth + 1);
        }
        self.assigned_in(fi, si, name, at, depth)
    }

    /// `name`'s last assignment in `si` before line `at` (or its last, for a loop).
    fn assigned_in(&self, fi: usize, si: u32, name: &str, at: u32, depth: u32) -> Option<V> {
        let f = self.facts(fi)?;
        let mine = |a: &&TsAssign| a.scope == si && a.target.len() == 1 && a.target[0] == name;
        let before = f.assigns.iter().filter(mine).rfind(|a| a.line <= at);
        let a = before.or_else(|| f.assigns.iter().rfind(mine))?;
        self.assigned(fi, a, depth + 1)
    }

    fn assigned(&self, fi: usize, a: &TsAssign, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        match a.how {
            How::Type => self.typed(fi, a.scope, &a.value.join("."), depth),
            How::Arg { arg, param } => {
                let v = self.chain(fi, a.scope, &a.value, depth + 1)?;
                let Target::Def(cf, cd) = self.called(v, depth + 1)? else {
                    return None;
                };
                let callee = self.def(cf, cd);
                let ty = function_type_param(&callee.params.get(arg as usize)?.1, param as usize)?;
                self.typed(cf, callee.parent.unwrap_or(0), ty, depth)
            }
            how => {
                let v = self.chain(fi, a.scope, &a.value, depth + 1)?;
                match how {
                    How::Value => Some(v),
                    How::Call => self.result(self.callable(v, depth)?, depth),
                    _ => self.instance(v),
                }
            }
        }
    }

    /// A type written in `scope` naming a project class or interface: an instance of it.
    fn typed(&self, fi: usize, scope: u32, written: &str, depth: u32) -> Option<V> {
        let t = type_name(written);
        if t.is_empty() {
            return None;
        }
        let chain: Vec<String> = t.split('.').map(str::to_string).collect();
        let v = self.chain(fi, scope, &chain, depth + 1)?;
        self.instance(self.as_type(v))
    }

    /// A name in a type position: TypeScript keeps types and values apart, so `interface X`
    /// and `const X = …` (or `function X`) declared side by side are the interface here.
    fn as_type(&self, v: V) -> V {
        if let V::Def(f, d) = v
            && !is_type(self.def(f, d).kind)
            && let Some(facts) = self.facts(f)
        {
            let def = self.def(f, d);
            let twin = facts
                .defs
                .iter()
                .position(|x| x.parent == def.parent && x.name == def.name && is_type(x.kind));
            if let Some(t) = twin {
                return V::Def(f, t as u32);
            }
        }
        v
    }

    /// `new` of a value: an instance of a class (or interface), or an outside name.
    fn instance(&self, v: V) -> Option<V> {
        match v {
            V::Def(f, d) if is_type(self.def(f, d).kind) => Some(V::Instance(f, d)),
            // The type `this`.
            V::Instance(f, d) => Some(V::Instance(f, d)),
            V::External(x) => Some(V::External(x)),
            _ => None,
        }
    }

    /// The value of calling `v`: a class's instance, what a function's return type names.
    fn result(&self, v: V, depth: u32) -> Option<V> {
        match v {
            V::Def(f, d) => {
                let def = self.def(f, d);
                match def.kind {
                    SymbolKind::Class => Some(V::Instance(f, d)),
                    k if k.is_callable() => {
                        self.typed(f, def.parent.unwrap_or(0), &def.returns, depth)
                    }
                    _ => None,
                }
            }
            V::External(x) => Some(V::External(x)),
            _ => None,
        }
    }

    fn chain(&self, fi: usize, scope: u32, chain: &[String], depth: u32) -> Option<V> {
        self.chain_at(fi, scope, chain, u32::MAX, depth)
    }

    fn chain_at(&self, fi: usize, scope: u32, chain: &[String], at: u32, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (head, rest) = chain.split_first()?;
        let mut v = match head.as_str() {
            "this" => V::Instance(fi, self.enclosing_class(fi, scope)?),
            "super" => {
                let class = self.enclosing_class(fi, scope)?;
                let (bf, bd) = self.bases(fi, class, depth).into_iter().next()?;
                match rest.split_first() {
                    None => return Some(V::Def(bf, bd)),
                    Some((m, more)) => {
                        let (mf, md) = self.member(bf, bd, m, depth)?;
                        let mut v = V::Def(mf, md);
                        for name in more {
                            v = self.step(v, name, depth)?;
                        }
                        return Some(v);
                    }
                }
            }
            _ => self.lookup_at(fi, scope, head, at, depth)?,
        };
        for name in rest {
            v = self.step(v, name, depth + 1)?;
        }
        Some(v)
    }

    /// One step of a chain: a member, or what calling or constructing the value gives.
    fn step(&self, v: V, name: &str, depth: u32) -> Option<V> {
        match name {
            CALLED => self.result(self.callable(v, depth)?, depth),
            CONSTRUCTED => self.instance(v),
            _ => self.attr(v, name, depth),
        }
    }

    /// A value as something called: a variable or property is the value it holds.
    fn callable(&self, v: V, depth: u32) -> Option<V> {
        match v {
            V::Def(f, d) if self.def(f, d).kind == SymbolKind::Field && depth < MAX_DEPTH => {
                let value = self.binding(f, d, depth + 1)?;
                if value == V::Def(f, d) {
                    Some(value)
                } else {
                    self.callable(value, depth + 1)
                }
            }
            v => Some(v),
        }
    }

    fn attr(&self, v: V, name: &str, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        match v {
            V::Module(t) => self.export_of(t, name, depth + 1),
            V::Def(f, d) => match self.def(f, d).kind {
                k if is_type(k) || k == SymbolKind::Module => {
                    let (mf, md) = self.member(f, d, name, depth)?;
                    Some(V::Def(mf, md))
                }
                SymbolKind::Field => self.object_member(f, d, name, depth).or_else(|| {
                    // A declared type says what the value is (`const api: Api = make()`).
                    let def = self.def(f, d);
                    if let Some(t) = self.typed(f, def.parent.unwrap_or(0), &def.returns, depth + 1)
                        && let Some(v) = self.attr(t, name, depth + 1)
                    {
                        return Some(v);
                    }
                    let value = self.field_value(f, d, depth + 1)?;
                    (value != V::Def(f, d))
                        .then(|| self.attr(value, name, depth + 1))
                        .flatten()
                }),
                _ => None,
            },
            V::Instance(f, d) => match self.member(f, d, name, depth) {
                Some((mf, md)) if self.def(mf, md).kind == SymbolKind::Field => {
                    self.instance_attribute(f, d, name, depth).or_else(|| {
                        let def = self.def(mf, md);
                        self.typed(mf, def.parent.unwrap_or(0), &def.returns, depth)
                    })
                }
                Some((mf, md)) => Some(V::Def(mf, md)),
                None => self.instance_attribute(f, d, name, depth),
            },
            V::External(x) => Some(V::External(format!("{x}.{name}"))),
        }
    }

    /// Member `name` of an object literal a variable (or `export default`) is bound to.
    fn object_member(&self, f: usize, d: u32, name: &str, depth: u32) -> Option<V> {
        let def = self.def(f, d);
        let scope = def.parent.unwrap_or(0);
        let a = self.facts(f)?.assigns.iter().rev().find(|a| {
            a.scope == scope
                && a.target.len() == 2
                && a.target[0] == def.name
                && a.target[1] == name
        })?;
        self.assigned(f, a, depth + 1)
    }

    /// `this.name = …` (a property's initializer or type, a parameter property, an assignment
    /// in any method) in the class or its bases.
    fn instance_attribute(&self, f: usize, class: u32, name: &str, depth: u32) -> Option<V> {
        let mut todo = vec![(f, class)];
        let mut seen = Vec::new();
        while let Some((cf, cd)) = todo.pop() {
            if seen.contains(&(cf, cd)) || seen.len() > 16 {
                continue;
            }
            seen.push((cf, cd));
            let facts = self.facts(cf)?;
            let found = facts.assigns.iter().find(|a| {
                a.target.len() == 2
                    && a.target[0] == "this"
                    && a.target[1] == name
                    && (a.scope == cd || facts.defs[a.scope as usize].parent == Some(cd))
            });
            if let Some(v) = found.and_then(|a| self.assigned(cf, a, depth + 1)) {
                return Some(v);
            }
            todo.extend(self.bases(cf, cd, depth + 1));
        }
        None
    }

    /// A member of a class or interface or of its bases, depth first.
    fn member(&self, f: usize, class: u32, name: &str, depth: u32) -> Option<(usize, u32)> {
        let mut todo = vec![(f, class)];
        let mut seen = Vec::new();
        while let Some((cf, cd)) = todo.pop() {
            if seen.contains(&(cf, cd)) || seen.len() > 32 || depth > MAX_DEPTH {
                continue;
            }
            seen.push((cf, cd));
            if let Some(&m) = self.members[cf].get(&(cd, name)) {
                return Some((cf, m));
            }
            let mut bases = self.bases(cf, cd, depth + 1);
            bases.reverse();
            todo.extend(bases);
        }
        None
    }

    /// A class's or interface's bases that are project types.
    fn bases(&self, f: usize, class: u32, depth: u32) -> Vec<(usize, u32)> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let d = self.def(f, class);
        let scope = d.parent.unwrap_or(0);
        d.bases
            .iter()
            .filter_map(|b| {
                let chain: Vec<String> = b.split('.').map(str::to_string).collect();
                match self.chain(f, scope, &chain, depth + 1)? {
                    V::Def(bf, bd) if is_type(self.def(bf, bd).kind) && (bf, bd) != (f, class) => {
                        Some((bf, bd))
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// The class whose method (or property initializer) encloses `scope`.
    fn enclosing_class(&self, fi: usize, scope: u32) -> Option<u32> {
        let mut s = Some(scope);
        while let Some(si) = s {
            let d = self.def(fi, si);
            if d.kind == SymbolKind::Class {
                return Some(si);
            }
            s = d.parent;
        }
        None
    }

    // ---- calls ----

    /// What calling `v` runs: a function, or a class's constructor (its own or inherited).
    fn called(&self, v: V, depth: u32) -> Option<Target> {
        match v {
            V::Def(f, d) => match self.def(f, d).kind {
                k if k.is_callable() => Some(Target::Def(f, d)),
                SymbolKind::Class => Some(match self.member(f, d, "constructor", 0) {
                    Some((mf, md)) => Target::Def(mf, md),
                    None => Target::Def(f, d),
                }),
                SymbolKind::Field if depth < 3 => Some(self.called_field(f, d, depth)),
                _ => None,
            },
            V::External(x) => Some(Target::External(x)),
            V::Module(_) | V::Instance(..) => None,
        }
    }

    /// What calling variable or property `d` runs: what a plain alias names (`const f = g`,
    /// `{ g }`, `exports.f = g`), else the variable itself — what the type checker names when
    /// the value is made at run time (`const f = make()`, `const { f } = obj`, a property).
    fn called_field(&self, f: usize, d: u32, depth: u32) -> Target {
        let def = self.def(f, d);
        let scope = def.parent.unwrap_or(0);
        let aliased = self.facts(f).and_then(|facts| {
            if is_type(self.def(f, scope).kind) {
                return None;
            }
            let a = facts
                .assigns
                .iter()
                .rfind(|a| a.scope == scope && a.target.len() == 1 && a.target[0] == def.name)?;
            if a.how != How::Value {
                return None;
            }
            let v = self.chain(f, a.scope, &a.value, depth + 1)?;
            (v != V::Def(f, d))
                .then(|| self.called(v, depth + 1))
                .flatten()
        });
        aliased.unwrap_or(Target::Def(f, d))
    }

    /// What a call on an instance of `class` named `name` may run: the member found from the
    /// class and every override in its subtypes; a member without code is left out when
    /// overrides exist.
    fn dispatch(&self, class: (usize, u32), name: &str) -> Vec<Target> {
        let Some(found) = self.member(class.0, class.1, name, 0) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut todo = vec![class];
        let mut seen = vec![class];
        while let Some(c) = todo.pop() {
            for &sub in self.subs.get(&c).map(Vec::as_slice).unwrap_or_default() {
                if seen.contains(&sub) || seen.len() > 256 {
                    continue;
                }
                seen.push(sub);
                todo.push(sub);
                if let Some(&m) = self.members[sub.0].get(&(sub.1, name))
                    && self.def(sub.0, m).kind.is_callable()
                {
                    out.push(Target::Def(sub.0, m));
                }
            }
        }
        if out.is_empty() || !self.def(found.0, found.1).abstract_ {
            out.insert(0, Target::Def(found.0, found.1));
        }
        out
    }

    fn targets(&self, fi: usize, c: &TsCall) -> Vec<Target> {
        if let Some((last, receiver)) = c.chain.split_last()
            && !receiver.is_empty()
            && receiver[0] != "super"
            && let Some(V::Instance(cf, cd)) = self
                .chain_at(fi, c.scope, receiver, c.line, 0)
                .and_then(|v| self.evaluated(v))
        {
            match self.member(cf, cd, last, 0) {
                Some((mf, md)) if self.def(mf, md).kind.is_callable() => {
                    return self.dispatch((cf, cd), last);
                }
                // A property holding a function: the property is what is called.
                Some((mf, md)) if self.def(mf, md).kind == SymbolKind::Field => {
                    return vec![Target::Def(mf, md)];
                }
                _ => {}
            }
        }
        self.chain_at(fi, c.scope, &c.chain, c.line, 0)
            .and_then(|v| self.called(v, 0))
            .into_iter()
            .collect()
    }

    fn call_edges(&self, fi: usize, f: &TsFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for c in &f.calls {
            let targets = self.targets(fi, c);
            if targets.is_empty() {
                let head = c.chain[0].as_str();
                if c.chain.len() == 1 && self.lookup(fi, c.scope, head, 0).is_none() {
                    continue; // globals and names bound where this does not look
                }
                if c.chain.iter().any(|e| is_step(Some(e))) {
                    continue; // a member of a value not followed: nothing to say by name
                }
                out.push(self.call_edge(fi, f, c, None));
            }
            out.extend(self.wrapped_requests(fi, f, c, &targets));
            for t in targets {
                out.push(self.call_edge(fi, f, c, Some(t)));
            }
        }
        out
    }

    fn call_edge(&self, fi: usize, f: &TsFacts, c: &TsCall, target: Option<Target>) -> Edge {
        let (callee, callee_file, callee_line, confidence) = match target {
            Some(Target::Def(tf, td)) => (
                Some(self.def(tf, td).id.clone()),
                Some(self.files[tf].0.to_string()),
                Some(self.def(tf, td).line),
                1.0,
            ),
            Some(Target::External(x)) => (Some(format!("{}:{x}", f.prefix)), None, None, 1.0),
            None => (None, None, None, 0.3),
        };
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: f.defs[c.scope as usize].id.clone(),
            caller_name: String::new(),
            line: c.line,
            kind: EdgeKind::Call,
            callee,
            callee_name: c.chain.last().cloned().unwrap_or_default(),
            callee_file,
            callee_line,
            caller_flags: 0,
            confidence,
            detail: if c.new { "new".into() } else { String::new() },
            site: CallSite {
                receiver: c.chain[..c.chain.len() - 1].to_vec(),
                flags: 0,
            },
        }
    }

    // ---- types and routes ----

    /// `extends` → inherits (implements for a class's interface); a method redefining a
    /// base's member → overrides.
    fn hierarchy_edges(&self, fi: usize, f: &TsFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for (di, d) in f.defs.iter().enumerate() {
            if !is_type(d.kind) {
                continue;
            }
            for (bf, bd) in self.bases(fi, di as u32, 0) {
                let kind = if d.kind == SymbolKind::Class
                    && self.def(bf, bd).kind == SymbolKind::Interface
                {
                    EdgeKind::Implements
                } else {
                    EdgeKind::Inherits
                };
                out.push(self.edge(fi, d.line, &d.id, (bf, bd), kind));
            }
        }
        for d in &f.defs {
            let Some(p) = d.parent.filter(|_| d.kind == SymbolKind::Method) else {
                continue;
            };
            let overridden = self
                .bases(fi, p, 0)
                .into_iter()
                .find_map(|(bf, bd)| self.member(bf, bd, &d.name, 0));
            if let Some(o) = overridden {
                out.push(self.edge(fi, d.line, &d.id, o, EdgeKind::Overrides));
            }
        }
        out
    }

    /// `route:VERB /path` → its handler, once per prefix its router is mounted under.
    fn route_edges(&self, fi: usize, f: &TsFacts, mounts: &Mounts) -> Vec<Edge> {
        let mut out = Vec::new();
        for r in &f.routes {
            let handler = match &r.handler {
                Handler::Def(d) | Handler::Inline(d) => Some((fi, *d)),
                Handler::Chain { scope, chain } => match self.chain(fi, *scope, chain, 0) {
                    Some(V::Def(hf, hd)) => Some((hf, hd)),
                    _ => None,
                },
            };
            let Some(h) = handler else { continue };
            let site = match r.group.as_slice() {
                [name] => self.site(fi, name, 0),
                _ => None,
            };
            for prefix in self.prefixes(site, mounts, 0) {
                let caller = format!("route:{} {}", r.verb, join_path(&prefix, &r.path));
                out.push(self.edge(fi, r.line, &caller, h, EdgeKind::Route));
            }
        }
        out
    }

    /// Each router's mounts: the router's definition → (the definition of the object it is
    /// mounted on, if known; the prefix).
    fn mounts(&self) -> Mounts {
        let mut out: Mounts = HashMap::new();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for m in &f.mounts {
                let router = match &m.router {
                    Mounted::Name(n) => self.site(fi, n, 0),
                    Mounted::Module(spec) => self
                        .module_file(fi, spec)
                        .and_then(|t| self.exported_site(t, "*", 0)),
                };
                let on = match m.receiver.as_slice() {
                    [name] => self.site(fi, name, 0),
                    _ => None,
                };
                if let Some(router) = router {
                    out.entry(router).or_default().push((on, m.prefix.clone()));
                }
            }
        }
        out
    }

    /// The full prefixes a router's routes are under (`[""]` when it is not mounted).
    fn prefixes(&self, site: Option<(usize, u32)>, mounts: &Mounts, depth: u32) -> Vec<String> {
        let found = site.and_then(|s| mounts.get(&s)).filter(|_| depth < 8);
        let Some(list) = found else {
            return vec![String::new()];
        };
        list.iter()
            .flat_map(|(on, prefix)| {
                self.prefixes(*on, mounts, depth + 1)
                    .into_iter()
                    .map(move |outer| join_path(&outer, prefix))
            })
            .collect()
    }

    /// The module-level definition a name of file `fi` stands for, through imports and
    /// exports (`router` in `module.exports = router`, imported elsewhere as `routes`).
    fn site(&self, fi: usize, name: &str, depth: u32) -> Option<(usize, u32)> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let Some(&d) = self.members[fi].get(&(0, name)) {
            return Some((fi, d));
        }
        let i = self
            .facts(fi)?
            .imports
            .iter()
            .rev()
            .find(|i| i.local == name)?;
        let t = self.module_file(fi, &i.source)?;
        self.exported_site(t, &i.name, depth + 1)
    }

    /// The definition behind export `name` of file `t` (`*`: the module's `module.exports`).
    fn exported_site(&self, t: usize, name: &str, depth: u32) -> Option<(usize, u32)> {
        let f = self.facts(t)?;
        let whole = matches!(name, "*" | "default");
        let e = f.exports.iter().find(|e| {
            e.source.is_none()
                && (e.name == name || (whole && matches!(e.name.as_str(), "=" | "default")))
        });
        match e {
            Some(e) => self.site(t, &e.local, depth + 1),
            None => self.members[t].get(&(0, name)).map(|&d| (t, d)),
        }
    }

    fn edge(
        &self,
        fi: usize,
        line: u32,
        caller: &str,
        (tf, td): (usize, u32),
        kind: EdgeKind,
    ) -> Edge {
        let t = self.def(tf, td);
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: caller.to_string(),
            caller_name: String::new(),
            line,
            kind,
            callee: Some(t.id.clone()),
            callee_name: t.name.clone(),
            callee_file: Some(self.files[tf].0.to_string()),
            callee_line: Some(t.line),
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site: CallSite::default(),
        }
    }
}

fn is_type(k: SymbolKind) -> bool {
    matches!(k, SymbolKind::Class | SymbolKind::Interface)
}

/// The type of parameter `n` of a written function type (`(a: A, b: B) => R`, under a union
/// with `undefined` or parentheses; a `this` parameter is not counted).
fn function_type_param(written: &str, n: usize) -> Option<&str> {
    let mut t = written.trim();
    if let Some(rest) = t.strip_prefix('<') {
        t = rest[close(rest, '<', '>')? + 1..].trim_start();
    }
    let inner = t.strip_prefix('(')?;
    let end = close(inner, '(', ')')?;
    let after = inner[end + 1..].trim_start();
    if !after.starts_with("=>") {
        // `((a: A) => R) | undefined`: the parenthesized type.
        return function_type_param(&inner[..end], n);
    }
    split_top(&inner[..end], ',')
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with("this:") && !p.starts_with("this :"))
        .nth(n)
        .and_then(|p| split_top(p, ':').get(1).map(|t| t.trim()))
}

/// The index of the bracket closing the one just before `s` (nesting counted).
fn close(s: &str, open: char, shut: char) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == shut {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// `s` split at `sep` outside brackets; for `:`, only at the first.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '<' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            '>' if !s[..i].ends_with('=') => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
                if sep == ':' {
                    break;
                }
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// `dir` joined with a relative specifier, `.` and `..` resolved.
fn normalize(dir: &str, spec: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in spec.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::{function_type_param, normalize};

    #[test]
    fn a_callback_parameter_takes_the_written_function_type() {
        let init =
            "(liftedSource: Observable<T>, subscriber: Subscriber<R>) => (() => void) | void";
        assert_eq!(function_type_param(init, 0), Some("Observable<T>"));
        assert_eq!(function_type_param(init, 1), Some("Subscriber<R>"));
        assert_eq!(function_type_param(init, 2), None);
        let ctor =
            "((this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic) | undefined";
        assert_eq!(function_type_param(ctor, 0), Some("Subscriber<T>"));
        assert_eq!(
            function_type_param("<K>(m: Map<K, (x: K) => void>, ...rest: K[]) => void", 1),
            Some("K[]")
        );
        assert_eq!(function_type_param("Handler", 0), None);
    }

    #[test]
    fn relative_specifiers_resolve_against_the_directory() {
        assert_eq!(normalize("src/a", "./b"), "src/a/b");
        assert_eq!(normalize("src/a", "../c/d.js"), "src/c/d.js");
        assert_eq!(normalize("", "./x"), "x");
        assert_eq!(normalize("src", "."), "src");
    }
}
