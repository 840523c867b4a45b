//! What the call graph needs from one Python file, before anything is resolved across files:
//! its definitions (with bases, parameters and return annotations), the names its imports bind,
//! its call sites as dotted chains, and the assignments that give a name a value to follow.
//! Resolution is [`super::resolve`]'s, over every file of the repository.

use super::fields::Field;
use crate::lang::preorder::Preorder;
use crate::model::{Symbol, SymbolKind};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PyFacts {
    /// The module's dotted name.
    pub module: String,
    /// The module is a package's `__init__` (relative imports resolve against itself).
    pub is_package: bool,
    /// Definitions in symbol order; index 0 is the module.
    pub defs: Vec<PyDef>,
    pub imports: Vec<PyImport>,
    pub calls: Vec<PyCall>,
    pub assigns: Vec<PyAssign>,
    /// `return value` and `yield value` where the value is a name chain or a call of one.
    #[serde(default)]
    pub returns: Vec<PyAssign>,
    /// Decorators applied to a definition: calls made where the `def` runs. `@f` calls `f`;
    /// `@f(…)` calls what `f(…)` returns (the call of `f` itself is in [`PyFacts::calls`]).
    #[serde(default)]
    pub decorations: Vec<PyDecoration>,
    /// HTTP routes declared by decorators (Flask, FastAPI and their kin).
    #[serde(default)]
    pub routes: Vec<PyRoute>,
    /// Module-level route groups with a path prefix: `bp = Blueprint(…, url_prefix="/api")`,
    /// `router = APIRouter(prefix="/items")`.
    #[serde(default)]
    pub prefixes: Vec<(String, String)>,
    /// Groups mounted under a prefix: `app.register_blueprint(bp, url_prefix="/v1")`,
    /// `app.include_router(router, prefix="/v1")`: (scope, the group's chain, prefix).
    #[serde(default)]
    pub mounts: Vec<(u32, Vec<String>, String)>,
    /// Names assigned a literal: `__tablename__ = "orders"`, `abstract = True`.
    #[serde(default)]
    pub consts: Vec<PyConst>,
    /// `x["KEY"]` where `x` is a name chain (`os.environ["HOME"]`).
    #[serde(default)]
    pub subscripts: Vec<PySubscript>,
    /// `name.UPPER_NAME` read (not called, not assigned): `settings.DEBUG`. One per scope and
    /// chain, at its first line.
    #[serde(default)]
    pub reads: Vec<PyRead>,
    /// Django URLconf entries: `path("orders/<int:pk>/", views.detail)`.
    #[serde(default)]
    pub urls: Vec<super::urlconf::PyUrl>,
    /// `a.b.c` read or assigned and not called, the whole chain (a call's chain is in
    /// `calls`): where a property, a descriptor or `__getattr__` may run. One per scope, chain
    /// and kind, at its first line.
    #[serde(default)]
    pub accesses: Vec<PyAccess>,
    /// `with value:` items: the manager's `__enter__` and `__exit__` run.
    #[serde(default)]
    pub withs: Vec<PyWith>,
    /// Operands whose special method an operator runs. One per scope, operand and method, at
    /// its first line.
    #[serde(default)]
    pub operations: Vec<PyOperation>,
}

impl PyFacts {
    /// The stored form ([`crate::graph::LangFacts`]): bincode.
    pub fn encode(&self) -> crate::graph::LangFacts {
        crate::graph::LangFacts {
            language: super::LANGUAGE.as_str().to_string(),
            bytes: bincode::serialize(self).unwrap_or_default(),
        }
    }

    /// Python facts of a file, if it has any (a file of another language has none).
    pub fn decode(facts: &crate::graph::FileFacts) -> Option<PyFacts> {
        let l = facts.lang.as_ref()?;
        (l.language == super::LANGUAGE.as_str())
            .then(|| bincode::deserialize(&l.bytes).ok())
            .flatten()
    }
}

/// `@app.route("/orders/<int:oid>", methods=["POST"])` on a function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyRoute {
    /// The handler (index into `defs`).
    pub handler: u32,
    /// The object the decorator is called on (`app`, `bp`, `router`).
    pub group: Vec<String>,
    /// `GET`, `POST`…; `ANY` when the decorator does not say.
    pub verbs: Vec<String>,
    /// The path as written, variables as `{name}` (`<int:oid>` becomes `{oid}`).
    pub path: String,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyDecoration {
    /// The definition's enclosing scope (where the decorator runs).
    pub scope: u32,
    /// The decorated definition (index into `defs`); its decorations are listed top first, the
    /// last one applied first.
    pub def: u32,
    pub chain: Vec<String>,
    /// `@f(…)`: the result of calling `f` is applied.
    pub factory: bool,
    pub line: u32,
    /// `@f(…)`: the factory's arguments.
    #[serde(default)]
    pub args: Vec<PyArg>,
}

impl PyDecoration {
    /// The decorator's name as a call without arguments, at the decorated definition: what
    /// is called when the decorator is applied.
    pub fn as_call(&self) -> PyCall {
        PyCall {
            scope: self.scope,
            chain: self.chain.clone(),
            line: self.line,
            url: None,
            args: Vec::new(),
            inner_args: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyDef {
    pub id: String,
    pub name: String,
    pub kind: SymbolKind,
    /// Index of the enclosing definition (`None` for the module).
    pub parent: Option<u32>,
    pub line: u32,
    /// Classes: base classes as written (`models.Model`).
    pub bases: Vec<String>,
    /// Functions: parameter names and their annotations as written ("" when none); `*args` and
    /// `**kwargs` keep their stars, a bare `*` separator is `*`.
    pub params: Vec<(String, String)>,
    /// Functions: the return annotation as written.
    pub returns: String,
    /// Decorators as written, without `@` and arguments (`app.route`, `staticmethod`).
    pub decorators: Vec<String>,
    /// Functions that only exist to be overridden (`@abstractmethod`, or a body that just
    /// raises `NotImplementedError`): a call dispatched to them runs an override.
    #[serde(default)]
    pub abstract_: bool,
}

/// `import a.b as c` binds `c` to `a.b`; `from a import b` binds `b` to `a.b`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyImport {
    /// The definition whose body holds the import (0: the module).
    pub scope: u32,
    pub local: String,
    pub target: String,
    /// `import a.b` binds `a` and makes `a.b` reachable through it.
    pub whole: bool,
}

/// A call: `a.b.c(…)` is the chain `["a", "b", "c"]`; `super().m(…)` is `["super()", "m"]`;
/// an element of a container called, `a.b[k](…)`, is `["a", "b", "[]"]`; a call's result
/// called, `a.f(x)(…)`, is `["a", "f", "()"]` with the inner call's arguments in
/// [`PyCall::inner_args`]. Calls on literals and other shapes are not recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyCall {
    /// The innermost definition the call is in (0: module-level code).
    pub scope: u32,
    pub chain: Vec<String>,
    pub line: u32,
    /// The first argument when it is a URL path or URL written as a literal (an f-string's
    /// fields and a concatenated name written `{}`): what an HTTP client call asks for.
    #[serde(default)]
    pub url: Option<String>,
    /// The arguments, in order.
    #[serde(default)]
    pub args: Vec<PyArg>,
    /// `f(x)(…)`: the arguments of the inner call `f(x)`.
    #[serde(default)]
    pub inner_args: Vec<PyArg>,
}

/// An argument of a call: `x`, `key=x`, `*xs`, `**kw`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyArg {
    /// `None` for a positional argument; the keyword, or `*` / `**` for an unpacked one (whose
    /// value is the name unpacked: `**kwargs` → `["kwargs"]`).
    pub keyword: Option<String>,
    /// The value when it is a name chain (`handler`, `self.on_close`, or an element of one,
    /// `self.handlers[k]` as `["self", "handlers", "[]"]`); `None` otherwise.
    pub value: Option<Vec<String>>,
    /// The value when it is a literal: a string's text, `True`/`False`, or the strings of a
    /// list or tuple of string literals (`["GET", "POST"]`).
    #[serde(default)]
    pub literals: Vec<String>,
    /// The value when it is a call of a name chain: the chain called (`get_context()` →
    /// `["get_context"]`), whose result is the value.
    #[serde(default)]
    pub called: Option<Vec<String>>,
}

/// `target = literal` (a string without fields, `True`, `False`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyConst {
    pub scope: u32,
    pub target: String,
    pub value: String,
    pub line: u32,
}

/// `chain["key"]` read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PySubscript {
    pub scope: u32,
    pub chain: Vec<String>,
    pub key: String,
    pub line: u32,
}

/// `head.NAME` read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyRead {
    pub scope: u32,
    pub chain: Vec<String>,
    pub line: u32,
}

/// An attribute chain read (`self.ctx.name`) or assigned (`self.ctx.name = v`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyAccess {
    pub scope: u32,
    pub chain: Vec<String>,
    pub line: u32,
    /// Assigned rather than read (`+=` gives one of each).
    pub store: bool,
}

/// An operand whose class's special method runs: `a == b` (`__eq__` of `a`), `k in c`
/// (`__contains__` of `c`), `x[k]`, `x + y`, `-x`, `x += y`, `f"{x!r}"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyOperation {
    pub scope: u32,
    pub operand: Vec<String>,
    /// The method Python tries first (`__eq__`, `__getitem__`, `__iadd__`, `__format__`).
    pub method: String,
    pub line: u32,
}

/// One item of a `with` statement: its value as a chain, called or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyWith {
    pub scope: u32,
    pub value: Vec<String>,
    pub called: bool,
    pub line: u32,
    /// `async with`: `__aenter__` and `__aexit__` run.
    pub is_async: bool,
}

/// `target = value` where the value is a name chain or a call of one: `x = Foo(…)`,
/// `self.repo = repo`, `handler = views.index`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PyAssign {
    pub scope: u32,
    /// `["x"]` or `["self", "x"]`.
    pub target: Vec<String>,
    pub value: Vec<String>,
    /// The value is the result of calling `value`.
    pub called: bool,
    /// The target takes each element of the value in turn (`for x in value`).
    #[serde(default)]
    pub each: bool,
    pub line: u32,
    /// The binding is inside a branch, loop, `try` or `with` of its scope rather than a
    /// statement of the body itself: the name may still hold what it held before.
    #[serde(default)]
    pub conditional: bool,
    /// The declared type as written (`request: Request = LocalProxy(…)`), "" when none: what
    /// the name holds when it names a project class and the value is not the project's, as a
    /// type checker reads it. A binding of a value that is no chain has an empty `value`.
    #[serde(default)]
    pub annotation: String,
}

/// Collects the facts of a parsed file whose symbols are `symbols` (module first).
pub(super) fn extract<'t>(
    tree: &Preorder<'t>,
    src: &[u8],
    module: &str,
    is_package: bool,
    symbols: &[Symbol],
) -> PyFacts {
    let defs = symbols
        .iter()
        .map(|s| PyDef {
            id: s.id.0.clone(),
            name: s.name.clone(),
            kind: s.kind,
            parent: s
                .parent
                .as_ref()
                .and_then(|p| symbols.iter().position(|x| &x.id == p))
                .map(|i| i as u32),
            line: s.name_line,
            bases: Vec::new(),
            params: Vec::new(),
            returns: s.value_type.clone(),
            abstract_: s.kind.is_callable()
                && (s.annotations.iter().any(|a| a.ends_with("abstractmethod"))
                    || (s.thrown == ["NotImplementedError"] && s.end_line <= s.body_line + 3)),
            decorators: s
                .annotations
                .iter()
                .map(|d| {
                    let d = d.trim_start_matches('@');
                    d.split('(').next().unwrap_or(d).trim().to_string()
                })
                .collect(),
        })
        .collect();
    let by_name = symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind != SymbolKind::Field)
        .map(|(i, s)| ((s.name_line, s.name.as_str()), i))
        .collect();
    let mut w = Walker {
        src,
        by_name,
        facts: PyFacts {
            module: module.to_string(),
            is_package,
            defs,
            ..PyFacts::default()
        },
        scopes: vec![(usize::MAX, 0)],
        accessed: HashSet::new(),
        operated: HashSet::new(),
        ancestors: Vec::new(),
    };
    tree.walk(|node, depth, _| {
        w.ancestors.truncate(depth);
        while w.scopes.len() > 1 && w.scopes.last().is_some_and(|s| s.0 >= depth) {
            w.scopes.pop();
        }
        w.visit(node, depth);
        w.ancestors.push(node);
        true
    });
    w.facts
}

struct Walker<'a, 't> {
    src: &'a [u8],
    /// Definitions (not fields) by (name line, name): how a `def`/`class` node finds its symbol.
    by_name: HashMap<(u32, &'a str), usize>,
    facts: PyFacts,
    /// (depth, definition index) of the enclosing definitions.
    scopes: Vec<(usize, u32)>,
    /// The accesses recorded so far (scope, chain, store).
    accessed: HashSet<(u32, Vec<String>, bool)>,
    /// The operations recorded so far (scope, operand, method).
    operated: HashSet<(u32, Vec<String>, String)>,
    /// The nodes above the one visited, root first: `Node::parent` searches down from the root
    /// each time.
    ancestors: Vec<Node<'t>>,
}

impl<'t> Walker<'_, 't> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn scope(&self) -> u32 {
        self.scopes.last().map_or(0, |s| s.1)
    }

    /// The parent of the node being visited.
    fn parent(&self) -> Option<Node<'t>> {
        self.ancestors.last().copied()
    }

    /// Whether the statement being visited runs only on some paths through its scope: the block
    /// it is in belongs to an `if`, loop, `try`, `with` or `match` rather than to the `def` (or
    /// the module).
    fn conditional(&self) -> bool {
        let mut up = self.ancestors.iter().rev();
        while let Some(x) = up.next() {
            match x.kind() {
                "block" => {
                    return !up.next().is_some_and(|d| {
                        matches!(d.kind(), "function_definition" | "class_definition")
                    });
                }
                "module" => return false,
                _ => {}
            }
        }
        false
    }

    fn visit(&mut self, node: Node<'_>, depth: usize) {
        let parent = self.parent();
        match node.kind() {
            "class_definition" | "function_definition" => self.definition(node, depth),
            "import_statement" | "import_from_statement" => self.import(node),
            "call" => self.call(node, parent),
            "assignment" => self.assignment(node),
            "for_statement" => self.for_each(node),
            "as_pattern" => self.as_binding(node),
            "except_clause" => self.except_binding(node),
            "return_statement" | "yield" => self.return_value(node),
            "decorator" => self.decoration(node),
            "subscript" => {
                self.subscript(node);
                self.item_operation(node, parent);
            }
            "comparison_operator"
            | "binary_operator"
            | "unary_operator"
            | "augmented_assignment"
            | "interpolation" => self.operation(node),
            "attribute" => {
                self.read(node);
                self.access(node, parent);
            }
            "with_item" => self.with_item(node),
            _ => {}
        }
    }

    fn definition(&mut self, node: Node<'_>, depth: usize) {
        let Some(name) = node.field("name") else {
            return;
        };
        let line = name.start_position().row as u32 + 1;
        let text = self.text(name);
        let Some(&i) = self.by_name.get(&(line, text.as_str())) else {
            return;
        };
        let def = &mut self.facts.defs[i];
        if let Some(sup) = node.field("superclasses") {
            def.bases = named(sup)
                .filter(|c| matches!(c.kind(), "identifier" | "attribute"))
                .map(|c| String::from_utf8_lossy(&self.src[c.byte_range()]).into_owned())
                .collect();
        }
        if let Some(params) = node.field("parameters") {
            let mut out = Vec::new();
            for p in named(params) {
                let (n, t) = match p.kind() {
                    "identifier" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                        (Some(p), None)
                    }
                    "typed_parameter" => (
                        named(p).find(|c| {
                            matches!(
                                c.kind(),
                                "identifier" | "list_splat_pattern" | "dictionary_splat_pattern"
                            )
                        }),
                        p.field("type"),
                    ),
                    "default_parameter" | "typed_default_parameter" => {
                        (p.field("name"), p.field("type"))
                    }
                    "keyword_separator" => {
                        out.push(("*".to_string(), String::new()));
                        (None, None)
                    }
                    _ => (None, None),
                };
                if let Some(n) = n {
                    out.push((self.text(n), t.map(|t| self.text(t)).unwrap_or_default()));
                }
            }
            self.facts.defs[i].params = out;
        }
        self.scopes.push((depth, i as u32));
    }

    fn import(&mut self, node: Node<'_>) {
        let scope = self.scope();
        let module = node.field("module_name");
        let from = module.map(|m| self.text(m));
        for n in named(node) {
            if Some(n) == module {
                continue;
            }
            let (target, alias) = match n.kind() {
                "dotted_name" => (n, None),
                "aliased_import" => match n.field("name") {
                    Some(t) => (t, n.field("alias")),
                    None => continue,
                },
                _ => continue,
            };
            let written = self.text(target);
            let (full, local, whole) = match &from {
                Some(m) => (
                    absolute(&self.facts.module, self.facts.is_package, m, &written),
                    alias.map_or(written.clone(), |a| self.text(a)),
                    false,
                ),
                None => match alias {
                    Some(a) => (written.clone(), self.text(a), false),
                    None => (
                        written.clone(),
                        written.split('.').next().unwrap_or(&written).to_string(),
                        true,
                    ),
                },
            };
            self.facts.imports.push(PyImport {
                scope,
                local,
                target: full,
                whole,
            });
        }
    }

    fn call(&mut self, node: Node<'_>, parent: Option<Node<'_>>) {
        let bound = parent
            .filter(|p| p.kind() == "assignment")
            .and_then(|p| p.field("left"))
            .filter(|l| l.kind() == "identifier")
            .map(|l| self.text(l));
        self.prefix_of_call(bound.as_deref(), node);
        let Some(f) = node.field("function") else {
            return;
        };
        self.stored_element(f, node);
        let mut inner_args = Vec::new();
        let Some(chain) = chain(f, self.src)
            .or_else(|| match f.kind() {
                "subscript" => element(f, self.src),
                "call" => {
                    let mut c = chain(f.field("function")?, self.src)?;
                    inner_args = arguments(f, self.src);
                    c.push("()".to_string());
                    Some(c)
                }
                _ => None,
            })
            .or_else(|| through_calls(f, self.src))
        else {
            return;
        };
        self.access_by_name(&chain, node);
        if let Some(u) = super::urlconf::entry(node, &chain, self.src, self.scope()) {
            self.facts.urls.push(u);
        }
        let line = match f.kind() {
            "attribute" => f.field("attribute").unwrap_or(f),
            _ => f,
        }
        .start_position()
        .row as u32
            + 1;
        let url = node
            .field("arguments")
            .and_then(|a| named(a).next())
            .and_then(|a| url_template(a, self.src));
        self.facts.calls.push(PyCall {
            scope: self.scope(),
            chain,
            line,
            url,
            args: arguments(node, self.src),
            inner_args,
        });
    }

    /// `c.append(v)`, `c.add(v)`, `c[k].append(v)`, `c.setdefault(k, []).append(v)`: `v` is
    /// stored in the container `c`, as `c[k] = v` stores it.
    fn stored_element(&mut self, function: Node<'_>, call: Node<'_>) {
        let (Some(object), Some(method)) = (function.field("object"), function.field("attribute"))
        else {
            return;
        };
        if !matches!(&self.src[method.byte_range()], b"append" | b"add") {
            return;
        }
        let object = match object.kind() {
            "call" => object
                .field("function")
                .filter(|g| {
                    g.field("attribute")
                        .is_some_and(|a| &self.src[a.byte_range()] == b"setdefault")
                })
                .and_then(|g| g.field("object")),
            _ => Some(object),
        };
        let Some(mut container) = object.and_then(|o| element(o, self.src).or(chain(o, self.src)))
        else {
            return;
        };
        if container.last().is_some_and(|l| l != "[]") {
            container.push("[]".to_string());
        }
        let value = call
            .field("arguments")
            .and_then(|a| named(a).next())
            .and_then(|v| value_chain(v, self.src));
        if let Some((value, called)) = value {
            self.facts.assigns.push(PyAssign {
                scope: self.scope(),
                target: container,
                value,
                called,
                each: false,
                line: call.start_position().row as u32 + 1,
                conditional: true,
                annotation: String::new(),
            });
        }
    }

    fn assignment(&mut self, node: Node<'_>) {
        if let (Some(left), Some(mut right)) = (node.field("left"), node.field("right")) {
            // `a = b = value`: every target takes the last value (the inner assignment is
            // visited on its own).
            while right.kind() == "assignment"
                && let Some(r) = right.field("right")
            {
                right = r;
            }
            self.constant(left, right);
            let before = self.facts.assigns.len();
            self.bind(left, right, false);
            if let Some(ty) = node.field("type") {
                self.declared(left, ty, before);
            }
        }
    }

    /// `x: T = value`: the binding [`Walker::bind`] pushed at `at` keeps the declared type; a
    /// value that is no chain (`x: Group = group(…)(f)`) gets a binding of the type alone.
    fn declared(&mut self, left: Node<'_>, ty: Node<'_>, at: usize) {
        let ty = named(ty).next().unwrap_or(ty);
        let annotation = self.text(ty);
        if at == self.facts.assigns.len() {
            let Some(target) = chain(left, self.src) else {
                return;
            };
            self.facts.assigns.push(PyAssign {
                scope: self.scope(),
                target,
                line: left.start_position().row as u32 + 1,
                conditional: self.conditional(),
                ..PyAssign::default()
            });
        }
        self.facts.assigns[at].annotation = annotation;
    }

    /// `for x in value:` binds `x` to each element of `value`.
    fn for_each(&mut self, node: Node<'_>) {
        if let (Some(left), Some(right)) = (node.field("left"), node.field("right")) {
            self.bind(left, right, true);
        }
    }

    /// `with open_x() as x:` binds `x` to what the context manager gives (taken to be the value
    /// itself, as `__enter__` returning `self` does).
    fn as_binding(&mut self, node: Node<'_>) {
        let Some(target) = node
            .field("alias")
            .and_then(|a| named(a).next().or(Some(a)))
        else {
            return;
        };
        let Some(value) = named(node).next().filter(|v| *v != target) else {
            return;
        };
        self.bind(target, value, false);
    }

    fn return_value(&mut self, node: Node<'_>) {
        let Some((chain, called)) = named(node).next().and_then(|v| value_chain(v, self.src))
        else {
            return;
        };
        self.facts.returns.push(PyAssign {
            scope: self.scope(),
            target: Vec::new(),
            value: chain,
            called,
            each: false,
            line: node.start_position().row as u32 + 1,
            conditional: false,
            annotation: String::new(),
        });
    }

    fn decoration(&mut self, node: Node<'_>) {
        let Some(e) = named(node).next() else {
            return;
        };
        if e.kind() == "call" {
            self.route(node, e);
        }
        let (target, factory) = match e.kind() {
            "call" => (e.field("function"), true),
            _ => (Some(e), false),
        };
        let def = self
            .parent()
            .and_then(|d| d.field("definition"))
            .and_then(|d| d.field("name"))
            .and_then(|n| {
                let line = n.start_position().row as u32 + 1;
                self.by_name.get(&(line, self.text(n).as_str())).copied()
            });
        let args = match e.kind() {
            "call" => e
                .field("arguments")
                .filter(|a| a.kind() == "argument_list")
                .map(|a| named(a).filter_map(|x| argument(x, self.src)).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        if let (Some(chain), Some(def)) = (target.and_then(|t| chain(t, self.src)), def) {
            self.facts.decorations.push(PyDecoration {
                scope: self.scope(),
                def: def as u32,
                chain,
                factory,
                line: node.start_position().row as u32 + 1,
                args,
            });
        }
    }

    /// A decorator call that declares an HTTP route on its function.
    fn route(&mut self, decorator: Node<'_>, call: Node<'_>) {
        let Some(chain) = call.field("function").and_then(|f| chain(f, self.src)) else {
            return;
        };
        let (Some((method, group)), Some(args)) = (chain.split_last(), call.field("arguments"))
        else {
            return;
        };
        let verb = match method.as_str() {
            "route" | "api_route" => None,
            "get" | "post" | "put" | "delete" | "patch" | "head" | "options" => {
                Some(method.to_uppercase())
            }
            _ => return,
        };
        let Some(path) = named(args)
            .next()
            .filter(|a| a.kind() == "string")
            .map(|a| string_value(a, self.src))
            .filter(|p| p.is_empty() || p.starts_with('/'))
        else {
            return;
        };
        let verbs = match verb {
            Some(v) => vec![v],
            None => {
                let listed: Vec<String> = keyword(args, "methods", self.src)
                    .map(|l| {
                        named(l)
                            .filter(|x| x.kind() == "string")
                            .map(|x| string_value(x, self.src).to_uppercase())
                            .collect()
                    })
                    .unwrap_or_default();
                if listed.is_empty() {
                    vec!["GET".to_string()]
                } else {
                    listed
                }
            }
        };
        let Some(handler) = self
            .parent()
            .and_then(|d| d.field("definition"))
            .and_then(|d| d.field("name"))
            .and_then(|n| {
                let line = n.start_position().row as u32 + 1;
                let name = self.text(n);
                self.by_name.get(&(line, name.as_str())).copied()
            })
        else {
            return;
        };
        self.facts.routes.push(PyRoute {
            handler: handler as u32,
            group: group.to_vec(),
            verbs,
            path: template(&path),
            line: decorator.start_position().row as u32 + 1,
        });
    }

    /// `x = Blueprint(…, url_prefix="/api")` / `APIRouter(prefix=…)` at module level, and
    /// `app.register_blueprint(bp, url_prefix=…)` / `app.include_router(router, prefix=…)`.
    fn prefix_of_call(&mut self, target: Option<&str>, call: Node<'_>) {
        let Some(args) = call.field("arguments") else {
            return;
        };
        let prefix = keyword(args, "url_prefix", self.src)
            .or_else(|| keyword(args, "prefix", self.src))
            .filter(|v| v.kind() == "string")
            .map(|v| string_value(v, self.src));
        let Some(prefix) = prefix else { return };
        let callee = call
            .field("function")
            .and_then(|f| chain(f, self.src))
            .unwrap_or_default();
        let last = callee.last().map(String::as_str).unwrap_or("");
        if matches!(last, "register_blueprint" | "include_router") {
            if let Some(group) = named(args).next().and_then(|g| chain(g, self.src)) {
                self.facts.mounts.push((self.scope(), group, prefix));
            }
        } else if let Some(t) = target.filter(|_| self.scope() == 0) {
            self.facts.prefixes.push((t.to_string(), prefix));
        }
    }

    /// `except Error as e:` binds `e` to an instance of `Error`.
    fn except_binding(&mut self, node: Node<'_>) {
        let (Some(value), Some(alias)) = (node.field("value"), node.field("alias")) else {
            return;
        };
        if let (Some(target), Some(v)) = (chain(alias, self.src), chain(value, self.src)) {
            self.facts.assigns.push(PyAssign {
                scope: self.scope(),
                target,
                value: v,
                called: true,
                each: false,
                line: alias.start_position().row as u32 + 1,
                conditional: true,
                annotation: String::new(),
            });
        }
    }

    /// `name = "literal"` (and `True`/`False`).
    fn constant(&mut self, left: Node<'_>, right: Node<'_>) {
        if left.kind() != "identifier" || matches!(right.kind(), "list" | "tuple") {
            return;
        }
        if let [value] = literals(right, self.src).as_slice() {
            self.facts.consts.push(PyConst {
                scope: self.scope(),
                target: self.text(left),
                value: value.clone(),
                line: left.start_position().row as u32 + 1,
            });
        }
    }

    /// `….environ["KEY"]`.
    fn subscript(&mut self, node: Node<'_>) {
        let (Some(value), Some(key)) = (node.field("value"), node.field("subscript")) else {
            return;
        };
        let Some(chain) =
            chain(value, self.src).filter(|c| c.last().is_some_and(|l| l == "environ"))
        else {
            return;
        };
        if let [key] = literals(key, self.src).as_slice() {
            self.facts.subscripts.push(PySubscript {
                scope: self.scope(),
                chain,
                key: key.clone(),
                line: node.start_position().row as u32 + 1,
            });
        }
    }

    /// `name.UPPER_NAME` read, neither called nor assigned.
    fn read(&mut self, node: Node<'_>) {
        let (Some(object), Some(attr)) = (node.field("object"), node.field("attribute")) else {
            return;
        };
        let name = self.text(attr);
        let upper = name.starts_with(|c: char| c.is_ascii_uppercase())
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if object.kind() != "identifier" || !upper {
            return;
        }
        let parent = self.parent();
        let called =
            parent.is_some_and(|p| p.kind() == "call" && p.field("function") == Some(node));
        let assigned = parent.is_some_and(|p| {
            matches!(p.kind(), "assignment" | "augmented_assignment")
                && p.field("left") == Some(node)
        });
        if called || assigned {
            return;
        }
        let chain = vec![self.text(object), name];
        let scope = self.scope();
        if !self
            .facts
            .reads
            .iter()
            .any(|r| r.scope == scope && r.chain == chain)
        {
            self.facts.reads.push(PyRead {
                scope,
                chain,
                line: node.start_position().row as u32 + 1,
            });
        }
    }

    /// An attribute chain that is neither part of a longer one nor called.
    fn access(&mut self, node: Node<'_>, parent: Option<Node<'_>>) {
        let is = |field: &str| parent.is_some_and(|p| p.field(field) == Some(node));
        let kind = parent.map_or("", |p| p.kind());
        if (kind == "attribute" && is("object"))
            || (kind == "call" && is("function"))
            || kind == "delete_statement"
        {
            return;
        }
        let Some(chain) = chain(node, self.src)
            .or_else(|| through_calls(node, self.src))
            .filter(|c| c.len() >= 2)
        else {
            return;
        };
        let assigned = matches!(kind, "assignment" | "augmented_assignment") && is("left");
        let kinds: &[bool] = match (assigned, kind) {
            (true, "augmented_assignment") => &[true, false],
            (true, _) => &[true],
            _ => &[false],
        };
        self.record_access(chain, kinds, node.start_position().row as u32 + 1);
    }

    /// `getattr(x, "name")`, `hasattr(x, "name")`, `setattr(x, "name", v)`: an access of
    /// `x.name` spelled as a call.
    fn access_by_name(&mut self, function: &[String], call: Node<'_>) {
        let store = match function {
            [f] if f == "getattr" || f == "hasattr" => false,
            [f] if f == "setattr" => true,
            _ => return,
        };
        let Some(args) = call.field("arguments") else {
            return;
        };
        let mut args = named(args);
        let (Some(object), Some(name)) = (args.next(), args.next()) else {
            return;
        };
        let Some(mut chain) = chain(object, self.src).or_else(|| through_calls(object, self.src))
        else {
            return;
        };
        let [name] = literals(name, self.src).try_into().unwrap_or_default();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return;
        }
        chain.push(name);
        self.record_access(chain, &[store], call.start_position().row as u32 + 1);
    }

    fn record_access(&mut self, chain: Vec<String>, kinds: &[bool], line: u32) {
        let scope = self.scope();
        for &store in kinds {
            if self.accessed.insert((scope, chain.clone(), store)) {
                self.facts.accesses.push(PyAccess {
                    scope,
                    chain: chain.clone(),
                    line,
                    store,
                });
            }
        }
    }

    /// `x[k]` read, assigned or deleted: `__getitem__`, `__setitem__`, `__delitem__` of `x`.
    fn item_operation(&mut self, node: Node<'_>, parent: Option<Node<'_>>) {
        let Some(value) = node.field("value") else {
            return;
        };
        let kind = parent.map_or("", |p| p.kind());
        let left = parent.is_some_and(|p| p.field("left") == Some(node));
        let methods: &[&str] = match kind {
            "assignment" if left => &["__setitem__"],
            "augmented_assignment" if left => &["__getitem__", "__setitem__"],
            "delete_statement" => &["__delitem__"],
            _ => &["__getitem__"],
        };
        for m in methods {
            self.record_operation(value, m, node);
        }
    }

    /// An operator's special method on its operand: the left one, or the container of `in`.
    fn operation(&mut self, node: Node<'_>) {
        let token = |field: &str| node.field(field).map(|t| self.text(t)).unwrap_or_default();
        let (operand, method) = match node.kind() {
            "binary_operator" => (
                node.field("left"),
                binary_method(&token("operator")).map(str::to_string),
            ),
            "augmented_assignment" => (
                node.field("left"),
                binary_method(token("operator").trim_end_matches('='))
                    .map(|m| format!("__i{}", &m[2..])),
            ),
            "unary_operator" => (
                node.field("argument"),
                match token("operator").as_str() {
                    "-" => Some("__neg__".to_string()),
                    "+" => Some("__pos__".to_string()),
                    "~" => Some("__invert__".to_string()),
                    _ => None,
                },
            ),
            "interpolation" => (
                node.field("expression"),
                Some(
                    match token("type_conversion").as_str() {
                        "!r" | "!a" => "__repr__",
                        "!s" => "__str__",
                        _ => "__format__",
                    }
                    .to_string(),
                ),
            ),
            _ => self.comparison(node),
        };
        if let (Some(operand), Some(method)) = (operand, method) {
            self.record_operation(operand, &method, node);
        }
    }

    /// `a == b` (and `!=`, `<`, …) runs `a`'s method; `k in c` runs `c`'s `__contains__`.
    fn comparison<'n>(&self, node: Node<'n>) -> (Option<Node<'n>>, Option<String>) {
        let operands: Vec<Node<'n>> = named(node).collect();
        let mut cursor = node.walk();
        let operators: Vec<String> = node
            .children_by_field_name("operators", &mut cursor)
            .map(|o| self.text(o))
            .collect();
        let ([left, right], [op]) = (operands.as_slice(), operators.as_slice()) else {
            return (None, None);
        };
        let method = match op.as_str() {
            "==" => "__eq__",
            "!=" => "__ne__",
            "<" => "__lt__",
            ">" => "__gt__",
            "<=" => "__le__",
            ">=" => "__ge__",
            "in" | "not in" => return (Some(*right), Some("__contains__".to_string())),
            _ => return (None, None),
        };
        (Some(*left), Some(method.to_string()))
    }

    fn record_operation(&mut self, operand: Node<'_>, method: &str, at: Node<'_>) {
        let Some(chain) = chain(operand, self.src).or_else(|| through_calls(operand, self.src))
        else {
            return;
        };
        let scope = self.scope();
        if self
            .operated
            .insert((scope, chain.clone(), method.to_string()))
        {
            self.facts.operations.push(PyOperation {
                scope,
                operand: chain,
                method: method.to_string(),
                line: at.start_position().row as u32 + 1,
            });
        }
    }

    /// `with value as x:`: the value (an `as` target is bound by [`Walker::as_binding`]).
    fn with_item(&mut self, node: Node<'_>) {
        let Some(mut value) = node.field("value") else {
            return;
        };
        if value.kind() == "as_pattern"
            && let Some(v) = named(value).next()
        {
            value = v;
        }
        let Some((chain, called)) = value_chain(value, self.src) else {
            return;
        };
        let statement = self
            .ancestors
            .iter()
            .rev()
            .find(|p| p.kind() == "with_statement");
        let is_async = statement
            .and_then(|s| s.child(0))
            .is_some_and(|c| c.kind() == "async");
        self.facts.withs.push(PyWith {
            scope: self.scope(),
            value: chain,
            called,
            line: node.start_position().row as u32 + 1,
            is_async,
        });
    }

    fn bind(&mut self, left: Node<'_>, right: Node<'_>, each: bool) {
        let Some(target) = chain(left, self.src).or_else(|| element(left, self.src)) else {
            return;
        };
        let Some((value, called)) = value_chain(right, self.src) else {
            return;
        };
        self.facts.assigns.push(PyAssign {
            scope: self.scope(),
            target,
            value,
            called,
            each,
            line: left.start_position().row as u32 + 1,
            conditional: self.conditional(),
            annotation: String::new(),
        });
    }
}

/// A value as a chain and whether it is called: `f(…)`, `a.b`, and the operand that gives the
/// value of `x or y`, `x if c else y`, `(x)`, `await x`.
fn value_chain(n: Node<'_>, src: &[u8]) -> Option<(Vec<String>, bool)> {
    match n.kind() {
        "call" => {
            let f = n.field("function")?;
            // `f(…)(…)` gives no value here: what a call's result gives back is known only
            // with the context of both calls.
            let f = chain(f, src).or_else(|| element(f, src)).or_else(|| {
                through_calls(f, src).filter(|c| c.last().is_some_and(|l| l != "()"))
            })?;
            match passed_through(&f) {
                Some(i) => value_chain(n.field("arguments").and_then(|a| named(a).nth(i))?, src),
                None => Some((f, true)),
            }
        }
        "boolean_operator" => n
            .field("left")
            .and_then(|l| value_chain(l, src))
            .or_else(|| value_chain(n.field("right")?, src)),
        "conditional_expression" | "parenthesized_expression" | "await" => {
            named(n).find_map(|c| value_chain(c, src))
        }
        _ => Some((
            chain(n, src)
                .or_else(|| element(n, src))
                .or_else(|| through_calls(n, src))?,
            false,
        )),
    }
}

/// The special method a binary operator runs on its left operand.
fn binary_method(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" => "__add__",
        "-" => "__sub__",
        "*" => "__mul__",
        "/" => "__truediv__",
        "//" => "__floordiv__",
        "%" => "__mod__",
        "**" => "__pow__",
        "@" => "__matmul__",
        "&" => "__and__",
        "|" => "__or__",
        "^" => "__xor__",
        "<<" => "__lshift__",
        ">>" => "__rshift__",
        _ => return None,
    })
}

/// A chain through calls' results and elements, where [`chain`] and [`element`] give none:
/// `make().run` → `["make", "()", "run"]`, `f()[k].x` → `["f", "()", "[]", "x"]`.
fn through_calls(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    let text = |n: Node<'_>| String::from_utf8_lossy(&src[n.byte_range()]).into_owned();
    match n.kind() {
        "identifier" => Some(vec![text(n)]),
        "call" => {
            let f = n.field("function")?;
            if f.kind() == "identifier" && text(f) == "super" {
                return Some(vec!["super()".to_string()]);
            }
            let mut c = through_calls(f, src)?;
            c.push("()".to_string());
            Some(c)
        }
        "attribute" => {
            let mut c = through_calls(n.field("object")?, src)?;
            c.push(text(n.field("attribute")?));
            Some(c)
        }
        "subscript" => {
            let mut c = through_calls(n.field("value")?, src)?;
            if c.last().is_none_or(|l| l != "[]") {
                c.push("[]".to_string());
            }
            Some(c)
        }
        _ => None,
    }
}

/// A chain through elements of containers: `a.b[k]` (and `a.b[k][j]`, the same bag of values)
/// → `["a", "b", "[]"]`, `a.b[k].get` → `["a", "b", "[]", "get"]`; `None` without a subscript.
fn element(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    match n.kind() {
        "subscript" => {
            let v = n.field("value")?;
            let mut c = element(v, src).or_else(|| chain(v, src))?;
            if c.last().is_none_or(|l| l != "[]") {
                c.push("[]".to_string());
            }
            Some(c)
        }
        "attribute" => {
            let mut c = element(n.field("object")?, src)?;
            let attr = n.field("attribute")?;
            c.push(String::from_utf8_lossy(&src[attr.byte_range()]).into_owned());
            Some(c)
        }
        _ => None,
    }
}

/// A call's arguments as [`PyArg`]s.
fn arguments(call: Node<'_>, src: &[u8]) -> Vec<PyArg> {
    call.field("arguments")
        .filter(|a| a.kind() == "argument_list")
        .map(|a| named(a).filter_map(|x| argument(x, src)).collect())
        .unwrap_or_default()
}

/// Calls that give back one of their arguments as it is (for the call graph): `cast(T, v)` is
/// `v`, `update_wrapper(wrapper, wrapped)` is `wrapper`; the builtins `reversed(c)`,
/// `sorted(c)` and `iter(c)` give `c`'s elements, as iterating `c` does. The argument's
/// position.
fn passed_through(function: &[String]) -> Option<usize> {
    match function {
        [b] if matches!(b.as_str(), "reversed" | "sorted" | "iter") => Some(0),
        _ => match function.last().map(String::as_str) {
            Some("cast") => Some(1),
            Some("update_wrapper") => Some(0),
            _ => None,
        },
    }
}

/// An argument node of a call as a [`PyArg`] (comments and generator arguments give none).
fn argument(n: Node<'_>, src: &[u8]) -> Option<PyArg> {
    let text = |n: Node<'_>| String::from_utf8_lossy(&src[n.byte_range()]).into_owned();
    match n.kind() {
        "comment" => None,
        "keyword_argument" => {
            let v = n.field("value");
            Some(PyArg {
                keyword: Some(text(n.field("name")?)),
                value: v.and_then(|v| chain(v, src).or_else(|| element(v, src))),
                literals: v.map(|v| literals(v, src)).unwrap_or_default(),
                called: v.and_then(|v| called(v, src)),
            })
        }
        "list_splat" => Some(PyArg {
            keyword: Some("*".to_string()),
            value: None,
            literals: Vec::new(),
            called: None,
        }),
        "dictionary_splat" => Some(PyArg {
            keyword: Some("**".to_string()),
            value: named(n).next().and_then(|v| chain(v, src)),
            literals: Vec::new(),
            called: None,
        }),
        _ => Some(PyArg {
            keyword: None,
            value: chain(n, src).or_else(|| element(n, src)),
            literals: literals(n, src),
            called: called(n, src),
        }),
    }
}

/// The chain a call node calls (`get_context()` → `["get_context"]`); `None` for anything else.
fn called(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    if n.kind() != "call" {
        return None;
    }
    let f = n.field("function")?;
    chain(f, src).or_else(|| element(f, src))
}

/// A literal's value as text: a string without fields, `True`/`False`, or the strings of a
/// list or tuple of string literals; empty for anything else.
pub(super) fn literals(n: Node<'_>, src: &[u8]) -> Vec<String> {
    match n.kind() {
        "string" if !named(n).any(|c| c.kind() == "interpolation") => vec![string_value(n, src)],
        "concatenated_string" => vec![named(n).map(|c| string_value(c, src)).collect()],
        "true" => vec!["True".to_string()],
        "false" => vec!["False".to_string()],
        "list" | "tuple" => {
            let items: Vec<Node<'_>> = named(n).filter(|c| c.kind() != "comment").collect();
            if items.iter().all(|c| c.kind() == "string") {
                items.iter().flat_map(|c| literals(*c, src)).collect()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// `a.b.c` → `["a", "b", "c"]`; `super().m` → `["super()", "m"]`; anything else → `None`.
pub(super) fn chain(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    match n.kind() {
        "identifier" => Some(vec![
            String::from_utf8_lossy(&src[n.byte_range()]).into_owned(),
        ]),
        "attribute" => {
            let object = n.field("object")?;
            let attr = n.field("attribute")?;
            let mut c = chain(object, src)?;
            c.push(String::from_utf8_lossy(&src[attr.byte_range()]).into_owned());
            Some(c)
        }
        "call" => {
            let f = n.field("function")?;
            (f.kind() == "identifier" && &src[f.byte_range()] == b"super")
                .then(|| vec!["super()".to_string()])
        }
        _ => None,
    }
}

/// `from m import name` made absolute against `module` (relative `m` starts with dots).
fn absolute(module: &str, is_package: bool, from: &str, name: &str) -> String {
    let dots = from.chars().take_while(|&c| c == '.').count();
    let rest = from[dots..].trim();
    let base = if dots == 0 {
        rest.to_string()
    } else {
        let mut parts: Vec<&str> = module.split('.').collect();
        if !is_package {
            parts.pop();
        }
        for _ in 1..dots {
            parts.pop();
        }
        if !rest.is_empty() {
            parts.push(rest);
        }
        parts.join(".")
    };
    if base.is_empty() {
        name.to_string()
    } else {
        format!("{base}.{name}")
    }
}

/// A string literal's text (escapes left as written; the parts of a concatenation joined).
pub(super) fn string_value(n: Node<'_>, src: &[u8]) -> String {
    named(n)
        .filter(|c| c.kind() == "string_content")
        .map(|c| String::from_utf8_lossy(&src[c.byte_range()]).into_owned())
        .collect()
}

/// A literal URL or path: `"/api/x"`, `f"{BASE}/orders/{oid}"`, `BASE + "/orders/" + oid`
/// (fields and names become `{}`), when it holds a `/`.
fn url_template(n: Node<'_>, src: &[u8]) -> Option<String> {
    let mut out = String::new();
    let mut parts = vec![n];
    while let Some(p) = parts.pop() {
        match p.kind() {
            "string" => {
                for c in named(p) {
                    match c.kind() {
                        "string_content" => {
                            out.push_str(&String::from_utf8_lossy(&src[c.byte_range()]))
                        }
                        "interpolation" => out.push_str("{}"),
                        _ => {}
                    }
                }
            }
            "binary_operator" => {
                // `a + b`: right pushed first so `a` is taken first.
                let (l, r) = (p.field("left")?, p.field("right")?);
                parts.push(r);
                parts.push(l);
            }
            "identifier" | "attribute" | "call" | "subscript" => out.push_str("{}"),
            _ => return None,
        }
    }
    out.contains('/').then_some(out)
}

/// The value of keyword argument `name` in an argument list.
pub(super) fn keyword<'t>(args: Node<'t>, name: &str, src: &[u8]) -> Option<Node<'t>> {
    named(args)
        .filter(|a| a.kind() == "keyword_argument")
        .find(|a| {
            a.field("name")
                .is_some_and(|n| &src[n.byte_range()] == name.as_bytes())
        })
        .and_then(|a| a.field("value"))
}

/// A route path with its variables written `{name}`: Flask's `<int:oid>` is `{oid}`.
pub(super) fn template(path: &str) -> String {
    let mut out = String::new();
    let mut rest = path;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>') else {
            break;
        };
        out.push_str(&rest[..open]);
        let var = &rest[open + 1..open + close];
        out.push('{');
        out.push_str(var.rsplit(':').next().unwrap_or(var));
        out.push('}');
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

pub(super) fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
