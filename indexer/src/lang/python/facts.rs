//! What the call graph needs from one Python file, before anything is resolved across files:
//! its definitions (with bases, parameters and return annotations), the names its imports bind,
//! its call sites as dotted chains, and the assignments that give a name a value to follow.
//! Resolution is [`super::resolve`]'s, over every file of the repository.

use crate::model::{Symbol, SymbolKind};
use serde::{Deserialize, Serialize};
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyDecoration {
    /// The definition's enclosing scope (where the decorator runs).
    pub scope: u32,
    pub chain: Vec<String>,
    /// `@f(…)`: the result of calling `f` is applied.
    pub factory: bool,
    pub line: u32,
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
    /// Functions: parameter names and their annotations as written ("" when none).
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
/// `f(…)(…)`, `x[i](…)` and calls on literals have no chain and are not recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyCall {
    /// The innermost definition the call is in (0: module-level code).
    pub scope: u32,
    pub chain: Vec<String>,
    pub line: u32,
}

/// `target = value` where the value is a name chain or a call of one: `x = Foo(…)`,
/// `self.repo = repo`, `handler = views.index`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
}

/// Collects the facts of a parsed file whose symbols are `symbols` (module first).
pub(super) fn extract(
    root: Node<'_>,
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
    let mut w = Walker {
        src,
        symbols,
        facts: PyFacts {
            module: module.to_string(),
            is_package,
            defs,
            ..PyFacts::default()
        },
        scopes: vec![(usize::MAX, 0)],
    };
    w.walk(root);
    w.facts
}

struct Walker<'a> {
    src: &'a [u8],
    symbols: &'a [Symbol],
    facts: PyFacts,
    /// (depth, definition index) of the enclosing definitions.
    scopes: Vec<(usize, u32)>,
}

impl Walker<'_> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn scope(&self) -> u32 {
        self.scopes.last().map_or(0, |s| s.1)
    }

    /// Iterative pre-order walk.
    fn walk(&mut self, root: Node<'_>) {
        let mut cursor = root.walk();
        let mut depth = 0usize;
        loop {
            let node = cursor.node();
            while self.scopes.len() > 1 && self.scopes.last().is_some_and(|s| s.0 >= depth) {
                self.scopes.pop();
            }
            self.visit(node, depth);
            if cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                depth -= 1;
            }
        }
    }

    fn visit(&mut self, node: Node<'_>, depth: usize) {
        match node.kind() {
            "class_definition" | "function_definition" => self.definition(node, depth),
            "import_statement" | "import_from_statement" => self.import(node),
            "call" => self.call(node),
            "assignment" => self.assignment(node),
            "for_statement" => self.for_each(node),
            "as_pattern" => self.as_binding(node),
            "except_clause" => self.except_binding(node),
            "return_statement" | "yield" => self.return_value(node),
            "decorator" => self.decoration(node),
            _ => {}
        }
    }

    fn definition(&mut self, node: Node<'_>, depth: usize) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let line = name.start_position().row as u32 + 1;
        let text = self.text(name);
        let Some(i) = self
            .symbols
            .iter()
            .position(|s| s.name_line == line && s.name == text && s.kind != SymbolKind::Field)
        else {
            return;
        };
        let def = &mut self.facts.defs[i];
        if let Some(sup) = node.child_by_field_name("superclasses") {
            def.bases = named(sup)
                .filter(|c| matches!(c.kind(), "identifier" | "attribute"))
                .map(|c| String::from_utf8_lossy(&self.src[c.byte_range()]).into_owned())
                .collect();
        }
        if let Some(params) = node.child_by_field_name("parameters") {
            let mut out = Vec::new();
            for p in named(params) {
                let (n, t) = match p.kind() {
                    "identifier" => (Some(p), None),
                    "typed_parameter" => (
                        named(p).find(|c| c.kind() == "identifier"),
                        p.child_by_field_name("type"),
                    ),
                    "default_parameter" | "typed_default_parameter" => {
                        (p.child_by_field_name("name"), p.child_by_field_name("type"))
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
        let module = node.child_by_field_name("module_name");
        let from = module.map(|m| self.text(m));
        for n in named(node) {
            if Some(n) == module {
                continue;
            }
            let (target, alias) = match n.kind() {
                "dotted_name" => (n, None),
                "aliased_import" => match n.child_by_field_name("name") {
                    Some(t) => (t, n.child_by_field_name("alias")),
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

    fn call(&mut self, node: Node<'_>) {
        let Some(f) = node.child_by_field_name("function") else {
            return;
        };
        let Some(chain) = chain(f, self.src) else {
            return;
        };
        let line = match f.kind() {
            "attribute" => f.child_by_field_name("attribute").unwrap_or(f),
            _ => f,
        }
        .start_position()
        .row as u32
            + 1;
        self.facts.calls.push(PyCall {
            scope: self.scope(),
            chain,
            line,
        });
    }

    fn assignment(&mut self, node: Node<'_>) {
        if let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) {
            self.bind(left, right, false);
        }
    }

    /// `for x in value:` binds `x` to each element of `value`.
    fn for_each(&mut self, node: Node<'_>) {
        if let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) {
            self.bind(left, right, true);
        }
    }

    /// `with open_x() as x:` binds `x` to what the context manager gives (taken to be the value
    /// itself, as `__enter__` returning `self` does).
    fn as_binding(&mut self, node: Node<'_>) {
        let Some(target) = node
            .child_by_field_name("alias")
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
        let Some(value) = named(node).next() else {
            return;
        };
        let (chain, called) = match value.kind() {
            "call" => match value
                .child_by_field_name("function")
                .and_then(|f| chain(f, self.src))
            {
                Some(c) => (c, true),
                None => return,
            },
            _ => match chain(value, self.src) {
                Some(c) => (c, false),
                None => return,
            },
        };
        self.facts.returns.push(PyAssign {
            scope: self.scope(),
            target: Vec::new(),
            value: chain,
            called,
            each: false,
            line: node.start_position().row as u32 + 1,
        });
    }

    fn decoration(&mut self, node: Node<'_>) {
        let Some(e) = named(node).next() else {
            return;
        };
        let (target, factory) = match e.kind() {
            "call" => (e.child_by_field_name("function"), true),
            _ => (Some(e), false),
        };
        if let Some(chain) = target.and_then(|t| chain(t, self.src)) {
            self.facts.decorations.push(PyDecoration {
                scope: self.scope(),
                chain,
                factory,
                line: node.start_position().row as u32 + 1,
            });
        }
    }

    /// `except Error as e:` binds `e` to an instance of `Error`.
    fn except_binding(&mut self, node: Node<'_>) {
        let (Some(value), Some(alias)) = (
            node.child_by_field_name("value"),
            node.child_by_field_name("alias"),
        ) else {
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
            });
        }
    }

    fn bind(&mut self, left: Node<'_>, right: Node<'_>, each: bool) {
        let Some(target) = chain(left, self.src) else {
            return;
        };
        let (value, called) = match right.kind() {
            "call" => match right
                .child_by_field_name("function")
                .and_then(|f| chain(f, self.src))
            {
                Some(c) => (c, true),
                None => return,
            },
            _ => match chain(right, self.src) {
                Some(c) => (c, false),
                None => return,
            },
        };
        self.facts.assigns.push(PyAssign {
            scope: self.scope(),
            target,
            value,
            called,
            each,
            line: left.start_position().row as u32 + 1,
        });
    }
}

/// `a.b.c` → `["a", "b", "c"]`; `super().m` → `["super()", "m"]`; anything else → `None`.
fn chain(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    match n.kind() {
        "identifier" => Some(vec![
            String::from_utf8_lossy(&src[n.byte_range()]).into_owned(),
        ]),
        "attribute" => {
            let object = n.child_by_field_name("object")?;
            let attr = n.child_by_field_name("attribute")?;
            let mut c = chain(object, src)?;
            c.push(String::from_utf8_lossy(&src[attr.byte_range()]).into_owned());
            Some(c)
        }
        "call" => {
            let f = n.child_by_field_name("function")?;
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

fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
