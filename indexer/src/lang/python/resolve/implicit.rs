//! Calls Python makes where the code has no call syntax: a property's getter or setter when
//! an attribute is read or assigned, a descriptor's `__get__`/`__set__`, `__getattr__` for a
//! name the class does not have, `__setattr__` on every assignment, a context manager's
//! `__enter__`/`__exit__` in a `with` (`__enter__` in `ExitStack.enter_context`), `__iter__`
//! in a `for`, an operand's special method in an operator (`a == b`, `k in c`, `x[k]`,
//! `f"{x!r}"`) or a builtin (`len(x)`), and a base's `__init_subclass__` when a class
//! statement runs. Each is a call
//! edge from the code that reads, assigns, enters, iterates or defines, on its line, as the
//! call's own edge would be.

use super::{PyAccess, PyAssign, PyCall, PyFacts, Repo, Target, V};
use crate::graph::Edge;
use crate::model::SymbolKind;
use rustc_hash::FxHashSet as HashSet;

/// Which attribute accesses may run project code, known before any value is worked out, so
/// that the others cost nothing: the names of properties, class attributes when some class
/// is a descriptor, and any name when some class defines `__getattr__` (reads) or
/// `__setattr__` (assignments).
pub(super) struct Hooks<'a> {
    names: HashSet<&'a str>,
    getattr: bool,
    setattr: bool,
    /// The special methods some project class defines (`__eq__`, `__len__`).
    specials: HashSet<&'a str>,
}

impl<'a> Hooks<'a> {
    pub(super) fn new(py: &'a [Option<PyFacts>]) -> Hooks<'a> {
        let defs = || py.iter().flatten().flat_map(|f| f.defs.iter());
        let defined = |name: &str| defs().any(|d| d.kind.is_callable() && d.name == name);
        let descriptors = defined("__get__") || defined("__set__");
        let class_attribute = |f: &PyFacts, d: &super::PyDef| {
            d.kind == SymbolKind::Field
                && d.parent
                    .is_some_and(|p| f.defs[p as usize].kind == SymbolKind::Class)
        };
        let mut names = HashSet::default();
        for f in py.iter().flatten() {
            for d in &f.defs {
                let property = d.kind.is_callable()
                    && d.decorators.iter().any(|x| property_decorator(x).is_some());
                if property || (descriptors && class_attribute(f, d)) {
                    names.insert(d.name.as_str());
                }
            }
        }
        let specials = defs()
            .filter(|d| d.kind.is_callable() && d.name.starts_with("__") && d.name.ends_with("__"))
            .map(|d| d.name.as_str())
            .collect();
        Hooks {
            names,
            getattr: defined("__getattr__"),
            setattr: defined("__setattr__"),
            specials,
        }
    }

    fn may_run(&self, name: &str, store: bool) -> bool {
        self.names.contains(name) || if store { self.setattr } else { self.getattr }
    }
}

impl Repo<'_, '_> {
    /// Every implicit call of file `fi`.
    pub(super) fn implicit_edges(&self, fi: usize, f: &PyFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for a in &f.accesses {
            self.access_edges(fi, f, a, &mut out);
        }
        // The attributes a call's chain reads on its way to the function (`self.ctx.obj.f()`
        // reads `ctx` and `obj`, and `f` when it is a property whose value is called).
        for c in &f.calls {
            let access = PyAccess {
                scope: c.scope,
                chain: c.chain.clone(),
                line: c.line,
                store: false,
            };
            self.access_edges(fi, f, &access, &mut out);
            self.entered_edges(fi, f, c, &mut out);
            self.builtin_edges(fi, f, c, &mut out);
        }
        for w in &f.withs {
            let (enter, exit) = match w.is_async {
                true => ("__aenter__", "__aexit__"),
                false => ("__enter__", "__exit__"),
            };
            let a = PyAssign {
                scope: w.scope,
                target: Vec::new(),
                value: w.value.clone(),
                called: w.called,
                line: w.line,
                ..PyAssign::default()
            };
            for name in [enter, exit] {
                self.protocol_edges(fi, f, &a, name, &mut out);
            }
        }
        for a in f.assigns.iter().filter(|a| a.each) {
            let iterable = PyAssign {
                each: false,
                ..a.clone()
            };
            self.protocol_edges(fi, f, &iterable, "__iter__", &mut out);
        }
        for op in &f.operations {
            self.special_edges(fi, f, op.scope, &op.operand, &op.method, op.line, &mut out);
        }
        self.init_subclass_edges(fi, f, &mut out);
        out
    }

    /// Each attribute of `a.chain` past its head, read (or, the last, assigned) on an instance
    /// of a project class.
    fn access_edges(&self, fi: usize, f: &PyFacts, a: &PyAccess, out: &mut Vec<Edge>) {
        for i in 1..a.chain.len() {
            let name = a.chain[i].as_str();
            if matches!(name, "[]" | "()") {
                continue;
            }
            let store = a.store && i + 1 == a.chain.len();
            if !self.hooks.may_run(name, store) {
                continue;
            }
            let Some(V::Instance(cf, cd)) = self.receiver(fi, a.scope, &a.chain[..i], a.line)
            else {
                continue;
            };
            let targets = self.attribute_runs((cf, cd), name, store);
            if targets.is_empty() {
                continue;
            }
            let site = site(a.scope, a.chain[..=i].to_vec(), a.line);
            for t in targets {
                out.push(self.call_edge(fi, f, &site, Some(t)));
            }
        }
    }

    /// What reading (or assigning) attribute `name` of an instance of `class` runs.
    pub(super) fn attribute_runs(
        &self,
        class: (usize, u32),
        name: &str,
        store: bool,
    ) -> Vec<Target> {
        let mut out = Vec::new();
        if store {
            out.extend(self.dispatch(class, "__setattr__"));
        }
        match self.member(class.0, class.1, name, 0) {
            Some((mf, md)) if self.is_property(mf, md) => {
                for t in self.dispatch(class, name) {
                    let Target::Def(tf, td) = t else { continue };
                    let owner = self.def(tf, td).parent.unwrap_or(0);
                    if let Some(acc) = self.accessor(tf, owner, name, store) {
                        push_new(&mut out, Target::Def(tf, acc));
                    }
                }
            }
            Some((mf, md)) if self.def(mf, md).kind == SymbolKind::Field => {
                if let Some(V::Instance(df, dd)) = self.field_value(mf, md, 0) {
                    let hook = if store { "__set__" } else { "__get__" };
                    for t in self.dispatch((df, dd), hook) {
                        push_new(&mut out, t);
                    }
                }
            }
            Some(_) => {}
            None if !store && !self.may_have_attribute(class, name) => {
                for t in self.dispatch(class, "__getattr__") {
                    push_new(&mut out, t);
                }
            }
            None => {}
        }
        out
    }

    /// The getter a chain ends on when its last name is a property of a project instance
    /// (`admin.site.urls`), rather than what the getter returns.
    pub(super) fn property_at(
        &self,
        fi: usize,
        scope: u32,
        chain: &[String],
        line: u32,
    ) -> Option<(usize, u32)> {
        let (name, receiver) = chain.split_last()?;
        if receiver.is_empty() {
            return None;
        }
        let Some(V::Instance(cf, cd)) = self.chain_at(fi, scope, receiver, line, 0) else {
            return None;
        };
        let (mf, md) = self.member(cf, cd, name, 0)?;
        if !self.is_property(mf, md) {
            return None;
        }
        let owner = self.def(mf, md).parent.unwrap_or(0);
        Some((mf, self.accessor(mf, owner, name, false)?))
    }

    /// A function decorated as a property (`@property`, `@x.setter`, `@cached_property`).
    pub(super) fn is_property(&self, f: usize, d: u32) -> bool {
        let def = self.def(f, d);
        def.kind.is_callable()
            && def
                .decorators
                .iter()
                .any(|x| property_decorator(x).is_some())
    }

    /// The getter (or setter) of property `name` in `class`: the definitions of one name
    /// there are its getter, setter and deleter.
    pub(super) fn accessor(&self, f: usize, class: u32, name: &str, store: bool) -> Option<u32> {
        let facts = self.facts(f)?;
        let wanted = if store { Role::Set } else { Role::Get };
        facts
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.parent == Some(class) && d.name == name)
            .find(|(_, d)| {
                d.decorators
                    .iter()
                    .any(|x| property_decorator(x) == Some(wanted))
            })
            .map(|(i, _)| i as u32)
    }

    /// Whether an instance may have attribute `name` that the class body does not define:
    /// the class or a base assigns `self.name` in a method, or a base is not the project's.
    fn may_have_attribute(&self, class: (usize, u32), name: &str) -> bool {
        let ancestry = self.ancestry(class.0, class.1, 0);
        // An unknown base may give any name: `__getattr__` is not assumed to run.
        let complete = ancestry.iter().all(|&(cf, cd)| {
            let written = self
                .def(cf, cd)
                .bases
                .iter()
                .filter(|b| *b != "object")
                .count();
            written == self.bases(cf, cd, 0).len()
        });
        !complete || self.self_assignment(class.0, class.1, name, 0).is_some()
    }

    /// `name` run on each instance value `a` gives (a `with` manager, a `for` iterable).
    fn protocol_edges(
        &self,
        fi: usize,
        f: &PyFacts,
        a: &PyAssign,
        name: &str,
        out: &mut Vec<Edge>,
    ) {
        let Some(v) = self.chain_at(fi, a.scope, &a.value, a.line, 0) else {
            return;
        };
        let Some(V::Instance(cf, cd)) = self.assigned(fi, a, v, 0) else {
            return;
        };
        let mut chain = a.value.clone();
        if a.called {
            chain.push("()".to_string());
        }
        chain.push(name.to_string());
        let site = site(a.scope, chain, a.line);
        for t in self.dispatch((cf, cd), name) {
            out.push(self.call_edge(fi, f, &site, Some(t)));
        }
    }

    /// `stack.enter_context(m)` (contextlib's `ExitStack`, and `enter_async_context`): `m`'s
    /// `__enter__` runs there, as in a `with` (its `__exit__` runs when the stack closes).
    fn entered_edges(&self, fi: usize, f: &PyFacts, c: &PyCall, out: &mut Vec<Edge>) {
        let Some((last, receiver)) = c.chain.split_last() else {
            return;
        };
        let enter = match last.as_str() {
            "enter_context" => "__enter__",
            "enter_async_context" => "__aenter__",
            _ => return,
        };
        // A project class's own `enter_context` is an ordinary call.
        if receiver.is_empty()
            || matches!(
                self.receiver(fi, c.scope, receiver, c.line),
                Some(V::Instance(..))
            )
        {
            return;
        }
        let Some(arg) = c.args.iter().find(|a| a.keyword.is_none()) else {
            return;
        };
        let values = match self.argument_value(fi, c.scope, c.line, arg, 0) {
            Some(V::Param(pf, pd, p)) => self.param_values(pf, pd, p, 0),
            Some(v) => vec![v],
            None => return,
        };
        let mut chain = receiver.to_vec();
        chain.push(enter.to_string());
        let site = site(c.scope, chain, c.line);
        let mut seen = Vec::new();
        for v in values {
            let V::Instance(cf, cd) = v else { continue };
            for t in self.dispatch((cf, cd), enter) {
                if !seen.contains(&t) {
                    seen.push(t.clone());
                    out.push(self.call_edge(fi, f, &site, Some(t)));
                }
            }
        }
    }

    /// A builtin handed a project instance runs its protocol method: `len(x)` → `__len__`,
    /// `str(x)` → `__str__` (or what Python falls back on, [`fallbacks`]), `repr`, `iter`,
    /// `next`, `hash`, `bool`, `format`, `reversed`, `abs`.
    fn builtin_edges(&self, fi: usize, f: &PyFacts, c: &PyCall, out: &mut Vec<Edge>) {
        let [name] = c.chain.as_slice() else { return };
        let Some(&(_, method)) = BUILTINS.iter().find(|(b, _)| b == name) else {
            return;
        };
        // A name the module binds is not the builtin.
        if self.lookup(fi, c.scope, name, 0).is_some() {
            return;
        }
        let Some(arg) = c.args.first().filter(|a| a.keyword.is_none()) else {
            return;
        };
        let called = arg.called.clone().map(|mut c| {
            c.push("()".to_string());
            c
        });
        let Some(operand) = arg.value.clone().or(called) else {
            return;
        };
        self.special_edges(fi, f, c.scope, &operand, method, c.line, out);
    }

    /// `method` (or the first of its [`fallbacks`] the class has) run on the project instance
    /// `operand` gives, from `scope` on `line`.
    #[allow(clippy::too_many_arguments)]
    fn special_edges(
        &self,
        fi: usize,
        f: &PyFacts,
        scope: u32,
        operand: &[String],
        method: &str,
        line: u32,
        out: &mut Vec<Edge>,
    ) {
        let tried = fallbacks(method);
        if !tried
            .iter()
            .any(|m| self.hooks.specials.contains(m.as_str()))
        {
            return;
        }
        let Some(V::Instance(cf, cd)) = self.receiver(fi, scope, operand, line) else {
            return;
        };
        let Some(hook) = tried.iter().find(|h| self.member(cf, cd, h, 0).is_some()) else {
            return;
        };
        let mut chain = operand.to_vec();
        chain.push(hook.clone());
        let site = site(scope, chain, line);
        for t in self.dispatch((cf, cd), hook) {
            out.push(self.call_edge(fi, f, &site, Some(t)));
        }
    }

    /// A class statement runs its first base's `__init_subclass__` (found up the bases, not
    /// in the class itself), called from the scope the statement is in.
    fn init_subclass_edges(&self, fi: usize, f: &PyFacts, out: &mut Vec<Edge>) {
        for (di, d) in f.defs.iter().enumerate() {
            if d.kind != SymbolKind::Class {
                continue;
            }
            let hook = self
                .bases(fi, di as u32, 0)
                .into_iter()
                .find_map(|(bf, bd)| self.member(bf, bd, "__init_subclass__", 0));
            let Some((hf, hd)) = hook else { continue };
            let chain = vec![d.name.clone(), "__init_subclass__".to_string()];
            let site = site(d.parent.unwrap_or(0), chain, d.line);
            out.push(self.call_edge(fi, f, &site, Some(Target::Def(hf, hd))));
        }
    }
}

/// Builtins that run a special method of their first argument.
const BUILTINS: &[(&str, &str)] = &[
    ("len", "__len__"),
    ("str", "__str__"),
    ("repr", "__repr__"),
    ("iter", "__iter__"),
    ("next", "__next__"),
    ("hash", "__hash__"),
    ("bool", "__bool__"),
    ("format", "__format__"),
    ("reversed", "__reversed__"),
    ("abs", "__abs__"),
];

/// The special methods Python tries for `method`, in order: `str()` falls back on
/// `__repr__`, `format()` on `__str__`, `!=` on `__eq__`, `in` on iteration, `+=` on `+`.
fn fallbacks(method: &str) -> Vec<String> {
    let chain: &[&str] = match method {
        "__str__" => &["__str__", "__repr__"],
        "__format__" => &["__format__", "__str__", "__repr__"],
        "__ne__" => &["__ne__", "__eq__"],
        "__bool__" => &["__bool__", "__len__"],
        "__contains__" => &["__contains__", "__iter__", "__getitem__"],
        m => {
            let mut out = vec![m.to_string()];
            if let Some(binary) = m.strip_prefix("__i").filter(|b| INPLACE.contains(b)) {
                out.push(format!("__{binary}"));
            }
            return out;
        }
    };
    chain.iter().map(|m| m.to_string()).collect()
}

/// The binary operators' names that an in-place form (`__iadd__`) falls back on.
const INPLACE: &[&str] = &[
    "add__",
    "sub__",
    "mul__",
    "truediv__",
    "floordiv__",
    "mod__",
    "pow__",
    "matmul__",
    "and__",
    "or__",
    "xor__",
    "lshift__",
    "rshift__",
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Get,
    Set,
    Delete,
}

/// What a decorator makes of a function as a property, `None` when it makes no property.
fn property_decorator(written: &str) -> Option<Role> {
    let last = written.rsplit('.').next().unwrap_or(written);
    match last {
        "property" | "cached_property" | "abstractproperty" | "getter" => Some(Role::Get),
        "setter" if written.contains('.') => Some(Role::Set),
        "deleter" if written.contains('.') => Some(Role::Delete),
        _ => None,
    }
}

/// An implicit call as the call it stands for: `chain`'s last name run from `scope` on `line`.
fn site(scope: u32, chain: Vec<String>, line: u32) -> PyCall {
    PyCall {
        scope,
        chain,
        line,
        url: None,
        args: Vec::new(),
        inner_args: Vec::new(),
    }
}

fn push_new(out: &mut Vec<Target>, t: Target) {
    if !out.contains(&t) {
        out.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_methods_fall_back_as_python_does() {
        assert_eq!(fallbacks("__str__"), ["__str__", "__repr__"]);
        assert_eq!(fallbacks("__iadd__"), ["__iadd__", "__add__"]);
        assert_eq!(fallbacks("__init__"), ["__init__"], "no in-place form");
        assert_eq!(fallbacks("__eq__"), ["__eq__"]);
    }

    #[test]
    fn property_decorators_say_which_accessor_they_make() {
        assert_eq!(property_decorator("property"), Some(Role::Get));
        assert_eq!(
            property_decorator("functools.cached_property"),
            Some(Role::Get)
        );
        assert_eq!(property_decorator("name.setter"), Some(Role::Set));
        assert_eq!(property_decorator("name.deleter"), Some(Role::Delete));
        assert_eq!(property_decorator("setter"), None);
        assert_eq!(property_decorator("staticmethod"), None);
    }
}
