//! What the call graph needs from one TypeScript or JavaScript file, before anything is
//! resolved across files: its definitions (bases, parameter and return types), the names its
//! imports bind (ESM and `require`), what it exports (re-exports, `module.exports`), its call
//! sites as chains, the assignments that give a name a value, and its routes and HTTP requests.
//! Resolution is [`super::resolve`]'s, over every file of the repository.

use super::http::{self, TsMount, TsRequest, TsRoute};
use super::symbols::{named, string_text};
use crate::lang::preorder::Preorder;
use crate::model::{Language, Symbol, SymbolKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tree_sitter::Node;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TsFacts {
    /// The id prefix of the file's symbols (`ts`, `js`): external names take it too.
    pub prefix: String,
    /// Definitions in symbol order; index 0 is the module.
    pub defs: Vec<TsDef>,
    pub imports: Vec<TsImport>,
    pub exports: Vec<TsExport>,
    pub calls: Vec<TsCall>,
    pub assigns: Vec<TsAssign>,
    /// HTTP routes the file declares (Express, NestJS).
    pub routes: Vec<TsRoute>,
    /// Express routers mounted under a path prefix.
    pub mounts: Vec<TsMount>,
    /// HTTP requests the file makes (axios, fetch), with their URL templates.
    pub requests: Vec<TsRequest>,
    /// URL-valued properties of the object the module exports (`module.exports = { GoodsList:
    /// WxApiRoot + 'goods/list' }`), as templates with the module's constants in them.
    #[serde(default)]
    pub urls: Vec<(String, String)>,
    /// A `tsconfig.json`'s aliases (the file has nothing else).
    pub config: Option<super::tsconfig::TsConfig>,
}

impl TsFacts {
    /// The stored form ([`crate::graph::LangFacts`]): bincode, under the file's language.
    pub fn encode(&self, language: Language) -> crate::graph::LangFacts {
        crate::graph::LangFacts {
            language: language.as_str().to_string(),
            bytes: bincode::serialize(self).unwrap_or_default(),
        }
    }

    /// The facts of a TypeScript or JavaScript file (a file of another language has none).
    pub fn decode(facts: &crate::graph::FileFacts) -> Option<TsFacts> {
        let l = facts.lang.as_ref()?;
        let ours =
            l.language == super::LANGUAGE.as_str() || l.language == super::JAVASCRIPT.as_str();
        ours.then(|| bincode::deserialize(&l.bytes).ok()).flatten()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsDef {
    pub id: String,
    pub name: String,
    pub kind: SymbolKind,
    /// Index of the enclosing definition (`None` for the module).
    pub parent: Option<u32>,
    pub line: u32,
    /// Classes: `extends` first, then `implements`, as written (`React.Component`).
    pub bases: Vec<String>,
    /// Functions: parameter names and their types as written ("" when none).
    pub params: Vec<(String, String)>,
    /// Functions: the return type; properties and variables: the declared type.
    pub returns: String,
    /// Abstract methods and signatures without a body: a call dispatched to them runs an
    /// override.
    pub abstract_: bool,
}

/// `import { a as b } from './x'` binds `b` to export `a` of `./x`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsImport {
    /// The definition whose body holds the import (0: the module).
    pub scope: u32,
    pub local: String,
    /// The module specifier as written.
    pub source: String,
    /// The export imported: a name, `default`, or `*` for the module itself (`import * as x`,
    /// `x = require(…)`).
    pub name: String,
}

/// The module exports `name` as `local` (a binding of the module, or a name of `source`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsExport {
    /// The exported name; `*` for `export * from`.
    pub name: String,
    /// The name it has in this module, or in `source` when re-exported.
    pub local: String,
    pub source: Option<String>,
}

/// A call: `a.b.c(…)` is the chain `["a", "b", "c"]`; `this.m()` is `["this", "m"]`,
/// `super.m()` is `["super", "m"]`, `super(…)` is `["super"]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsCall {
    /// The innermost definition the call is in (0: module-level code).
    pub scope: u32,
    pub chain: Vec<String>,
    pub line: u32,
    /// `new X(…)`.
    pub new: bool,
    /// The leading arguments that can be a URL or a method, as templates ([`http::url_args`]):
    /// what a call of a request wrapper asks for.
    #[serde(default)]
    pub args: Vec<Option<String>>,
}

/// How an assignment gives its target a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum How {
    /// `x = a.b`: the value itself.
    Value,
    /// `x = f()`: what calling it returns.
    Call,
    /// `x = new Foo()`: an instance.
    New,
    /// `x: Foo`: an instance of the type named.
    Type,
    /// `f((a, b) => …)`: parameter `param` of the function passed as argument `arg` of the
    /// call of the value (a callback's parameters are typed by the callee's parameter type).
    Arg { arg: u8, param: u8 },
}

/// `target = value`: `const x = new Foo()`, `this.repo = repo`, `x: Foo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsAssign {
    pub scope: u32,
    /// `["x"]` or `["this", "x"]`.
    pub target: Vec<String>,
    /// A chain; for [`How::Type`] the type's name split at dots.
    pub value: Vec<String>,
    pub how: How,
    pub line: u32,
}

/// Collects the facts of a parsed file whose symbols are `symbols` (module first) and whose
/// scope nodes are `scopes` (node id → symbol index).
pub(super) fn extract(
    tree: &Preorder<'_>,
    src: &[u8],
    prefix: &str,
    symbols: &[Symbol],
    scopes: &HashMap<usize, u32>,
) -> TsFacts {
    let defs = symbols
        .iter()
        .map(|s| TsDef {
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
            params: s
                .params
                .iter()
                .map(|p| (p.name.clone(), p.ty.clone()))
                .collect(),
            returns: s.value_type.clone(),
            abstract_: s.kind.is_callable() && !s.has_body,
        })
        .collect();
    let mut w = Walker {
        src,
        scopes_by_node: scopes,
        facts: TsFacts {
            prefix: prefix.to_string(),
            defs,
            ..TsFacts::default()
        },
        scopes: vec![(0, 0)],
    };
    tree.walk(|node, depth, _| {
        while w.scopes.len() > 1 && w.scopes.last().is_some_and(|s| s.0 >= depth) {
            w.scopes.pop();
        }
        w.visit(node, depth);
        true
    });
    w.facts.routes.extend(http::nest_routes(symbols));
    w.facts
}

struct Walker<'a> {
    src: &'a [u8],
    scopes_by_node: &'a HashMap<usize, u32>,
    facts: TsFacts,
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

    fn visit(&mut self, node: Node<'_>, depth: usize) {
        if let Some(&d) = self.scopes_by_node.get(&node.id()) {
            self.definition(node, d);
            self.scopes.push((depth, d));
        }
        match node.kind() {
            "import_statement" => self.import(node),
            "export_statement" => self.export(node),
            "call_expression" => self.call(node, false),
            "new_expression" => self.call(node, true),
            "variable_declarator" => self.declarator(node),
            "assignment_expression" => self.assignment(node),
            "public_field_definition" | "field_definition" => self.field(node),
            "required_parameter" | "optional_parameter" => self.parameter_property(node),
            "return_statement" => self.returned(node),
            _ => {}
        }
    }

    fn definition(&mut self, node: Node<'_>, d: u32) {
        let mut bases = Vec::new();
        for h in named(node).filter(|c| c.kind() == "class_heritage") {
            for c in named(h) {
                match c.kind() {
                    "extends_clause" | "implements_clause" => bases.extend(
                        named(c)
                            .filter(|t| t.kind() != "type_arguments")
                            .map(|t| type_name(&self.text(t))),
                    ),
                    _ => bases.push(type_name(&self.text(c))),
                }
            }
        }
        for c in named(node).filter(|c| c.kind() == "extends_type_clause") {
            bases.extend(named(c).map(|t| type_name(&self.text(t))));
        }
        self.facts.defs[d as usize].bases = bases;
        self.function_property(node, d);
    }

    /// `return new Foo(…)` or `return this` in a function without a written return type: what
    /// calling it gives (the first such return, in the function's own body).
    fn returned(&mut self, node: Node<'_>) {
        let d = self.scope();
        let def = &self.facts.defs[d as usize];
        if d == 0 || !def.kind.is_callable() || !def.returns.is_empty() {
            return;
        }
        let own = std::iter::successors(node.parent(), |n| n.parent())
            .find(|n| {
                matches!(
                    n.kind(),
                    "function_declaration"
                        | "generator_function_declaration"
                        | "method_definition"
                        | "arrow_function"
                        | "function_expression"
                        | "function"
                        | "generator_function"
                )
            })
            .is_some_and(|f| self.scopes_by_node.get(&f.id()) == Some(&d));
        let Some(value) = named(node).next().map(unwrap).filter(|_| own) else {
            return;
        };
        let candidates = match value.kind() {
            "ternary_expression" => ["consequence", "alternative"]
                .iter()
                .filter_map(|f| value.child_by_field_name(f))
                .map(unwrap)
                .collect(),
            _ => vec![value],
        };
        let ty = candidates.into_iter().find_map(|v| match v.kind() {
            "this" => Some("this".to_string()),
            "new_expression" => v
                .child_by_field_name("constructor")
                .and_then(|c| chain(c, self.src))
                .map(|c| c.join(".")),
            _ => None,
        });
        if let Some(ty) = ty {
            self.facts.defs[d as usize].returns = ty;
        }
    }

    /// `create = (params): Foo => …` in a class body: a method to the resolver, returning what
    /// the function is written to return.
    fn function_property(&mut self, node: Node<'_>, d: u32) {
        if !matches!(node.kind(), "public_field_definition" | "field_definition")
            || node.child_by_field_name("type").is_some()
        {
            return;
        }
        let Some(f) = node.child_by_field_name("value").map(unwrap) else {
            return;
        };
        if !matches!(
            f.kind(),
            "arrow_function" | "function_expression" | "function"
        ) {
            return;
        }
        let returns = f
            .child_by_field_name("return_type")
            .map(|t| self.text(t).trim_start_matches(':').trim().to_string())
            .unwrap_or_default();
        let mut params = Vec::new();
        if let Some(ps) = f.child_by_field_name("parameters") {
            for p in named(ps) {
                let name = p.child_by_field_name("pattern").unwrap_or(p);
                let ty = p.child_by_field_name("type").map_or(String::new(), |t| {
                    self.text(t).trim_start_matches(':').trim().to_string()
                });
                params.push((self.text(name), ty));
            }
        } else if let Some(p) = f.child_by_field_name("parameter") {
            params.push((self.text(p), String::new()));
        }
        let def = &mut self.facts.defs[d as usize];
        def.kind = SymbolKind::Method;
        def.returns = returns;
        def.params = params;
    }

    /// `import a, { b as c }, * as d from './x'`; `import e = require('./y')`.
    fn import(&mut self, node: Node<'_>) {
        let scope = self.scope();
        let bind = |w: &mut Self, local: String, source: &str, name: &str| {
            w.facts.imports.push(TsImport {
                scope,
                local,
                source: source.to_string(),
                name: name.to_string(),
            });
        };
        if let Some(req) = named(node).find(|c| c.kind() == "import_require_clause") {
            if let (Some(local), Some(source)) =
                (named(req).next(), req.child_by_field_name("source"))
            {
                let (l, s) = (self.text(local), string_text(source, self.src));
                bind(self, l, &s, "*");
            }
            return;
        }
        let Some(source) = node.child_by_field_name("source") else {
            return;
        };
        let source = string_text(source, self.src);
        for clause in named(node).filter(|c| c.kind() == "import_clause") {
            for c in named(clause) {
                match c.kind() {
                    "identifier" => {
                        let l = self.text(c);
                        bind(self, l, &source, "default");
                    }
                    "namespace_import" => {
                        if let Some(i) = named(c).next() {
                            let l = self.text(i);
                            bind(self, l, &source, "*");
                        }
                    }
                    "named_imports" => {
                        for s in named(c).filter(|s| s.kind() == "import_specifier") {
                            let Some(name) = s.child_by_field_name("name") else {
                                continue;
                            };
                            let name = self.name(name);
                            let local = s
                                .child_by_field_name("alias")
                                .map_or(name.clone(), |a| self.text(a));
                            bind(self, local, &source, &name);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `export { a as b }`, `export { a } from './x'`, `export * from './x'`,
    /// `export * as ns from './x'`, `export default name`, `export default class Foo`.
    fn export(&mut self, node: Node<'_>) {
        let source = node
            .child_by_field_name("source")
            .map(|s| string_text(s, self.src));
        let default = super::symbols::children(node).any(|c| c.kind() == "default");
        if default {
            let named_decl = node
                .child_by_field_name("declaration")
                .or_else(|| node.child_by_field_name("value"))
                .and_then(|d| match d.kind() {
                    "identifier" => Some(d),
                    _ => d.child_by_field_name("name"),
                });
            if let Some(n) = named_decl {
                let local = self.text(n);
                self.export_name("default", &local, None);
            }
            if let Some(object) = node.child_by_field_name("value") {
                self.object_members("default", object);
            }
            return;
        }
        for c in named(node) {
            match c.kind() {
                "export_clause" => {
                    for s in named(c).filter(|s| s.kind() == "export_specifier") {
                        let Some(name) = s.child_by_field_name("name") else {
                            continue;
                        };
                        let local = self.name(name);
                        let exported = s
                            .child_by_field_name("alias")
                            .map_or(local.clone(), |a| self.name(a));
                        self.export_name(&exported, &local, source.clone());
                    }
                }
                "namespace_export" => {
                    if let Some(n) = named(c).next() {
                        let name = self.name(n);
                        self.export_name(&name, "*", source.clone());
                    }
                }
                _ => {}
            }
        }
        if source.is_some()
            && !named(node).any(|c| matches!(c.kind(), "export_clause" | "namespace_export"))
        {
            self.export_name("*", "*", source);
        }
    }

    fn export_name(&mut self, name: &str, local: &str, source: Option<String>) {
        self.facts.exports.push(TsExport {
            name: name.to_string(),
            local: local.to_string(),
            source,
        });
    }

    fn call(&mut self, node: Node<'_>, new: bool) {
        let field = if new { "constructor" } else { "function" };
        let Some(f) = node.child_by_field_name(field) else {
            return;
        };
        let mut url_args = Vec::new();
        if let Some(args) = node.child_by_field_name("arguments") {
            self.http(f, args, node);
            self.callbacks(f, args);
            url_args = http::url_args(args, self.src);
        }
        // `require('./x')` is an import, not a call worth an edge.
        if !new && f.kind() == "identifier" && &self.src[f.byte_range()] == b"require" {
            return;
        }
        // `f()()` calls what `f` returns: nothing to name.
        let Some(chain) = call_chain(f, self.src).filter(|c| !is_step(c.last())) else {
            return;
        };
        let at = match f.kind() {
            "member_expression" => f.child_by_field_name("property").unwrap_or(f),
            _ => f,
        };
        self.facts.calls.push(TsCall {
            scope: self.scope(),
            chain,
            line: at.start_position().row as u32 + 1,
            new,
            args: url_args,
        });
    }

    /// The untyped parameters of functions passed as arguments: typed by the callee's
    /// parameter, when it is a function type (`operate((source, subscriber) => …)`).
    fn callbacks(&mut self, f: Node<'_>, args: Node<'_>) {
        let Some(callee) = call_chain(f, self.src) else {
            return;
        };
        let list = named(args).filter(|a| a.kind() != "comment");
        // `cond ? (a) => … : (b) => …` passes either function.
        let passed = list.enumerate().flat_map(|(i, a)| match a.kind() {
            "ternary_expression" => ["consequence", "alternative"]
                .iter()
                .filter_map(|f| a.child_by_field_name(f))
                .map(|b| (i, unwrap(b)))
                .collect(),
            _ => vec![(i, a)],
        });
        for (i, a) in passed.take(u8::MAX as usize) {
            if !matches!(
                a.kind(),
                "arrow_function" | "function_expression" | "function"
            ) {
                continue;
            }
            let params: Vec<Node<'_>> = match a.child_by_field_name("parameter") {
                Some(p) => vec![p],
                None => a
                    .child_by_field_name("parameters")
                    .map(|ps| named(ps).collect())
                    .unwrap_or_default(),
            };
            for (j, p) in params.into_iter().enumerate().take(u8::MAX as usize) {
                let name = match p.kind() {
                    "identifier" => p,
                    "required_parameter" | "optional_parameter"
                        if p.child_by_field_name("type").is_none() =>
                    {
                        match p.child_by_field_name("pattern") {
                            Some(n) if n.kind() == "identifier" => n,
                            _ => continue,
                        }
                    }
                    _ => continue,
                };
                self.facts.assigns.push(TsAssign {
                    scope: self.scope(),
                    target: vec![self.text(name)],
                    value: callee.clone(),
                    how: How::Arg {
                        arg: i as u8,
                        param: j as u8,
                    },
                    line: name.start_position().row as u32 + 1,
                });
            }
        }
    }

    fn http(&mut self, f: Node<'_>, args: Node<'_>, call: Node<'_>) {
        let Some(callee) = chain(f, self.src) else {
            return;
        };
        let scope = self.scope();
        if let Some(r) = http::route(&callee, args, self.src, scope) {
            self.facts.routes.push(r);
        } else if let Some(m) = http::mount(&callee, args, self.src, scope) {
            self.facts.mounts.push(m);
        } else if let Some(r) = http::request(&callee, args, self.src, scope, call) {
            self.facts.requests.push(r);
        }
    }

    /// `const x = new Foo()`, `const x: Foo = …`, `const x = require('./y')`,
    /// `const { a, b: c } = require('./y')`.
    fn declarator(&mut self, node: Node<'_>) {
        let Some(target) = node.child_by_field_name("name") else {
            return;
        };
        let value = node.child_by_field_name("value");
        if let Some(source) = value.and_then(|v| required(v, self.src)) {
            self.require(target, &source);
            return;
        }
        // `const resolve = require('path').resolve`: a named import.
        if let Some(v) = value
            .map(unwrap)
            .filter(|v| v.kind() == "member_expression")
            && target.kind() == "identifier"
            && let (Some(object), Some(property)) = (
                v.child_by_field_name("object"),
                v.child_by_field_name("property"),
            )
            && let Some(source) = required(object, self.src)
        {
            self.facts.imports.push(TsImport {
                scope: self.scope(),
                local: self.text(target),
                source,
                name: self.text(property),
            });
            return;
        }
        if target.kind() != "identifier" {
            return;
        }
        let name = self.text(target);
        if let Some(t) = node.child_by_field_name("type") {
            self.assign_type(vec![name.clone()], t, target);
        }
        if let Some(v) = value {
            self.object_members(&name, v);
            self.bind(vec![name], v, target);
        }
    }

    /// `const api = { load, save: store.save }` (and `export default { … }`): each member is a
    /// binding `api.load`, `api.save`.
    fn object_members(&mut self, name: &str, object: Node<'_>) {
        if object.kind() != "object" {
            return;
        }
        for p in named(object) {
            let (key, value) = match p.kind() {
                "shorthand_property_identifier" => (p, p),
                "pair" => match (p.child_by_field_name("key"), p.child_by_field_name("value")) {
                    (Some(k), Some(v)) => (k, v),
                    _ => continue,
                },
                _ => continue,
            };
            let target = vec![name.to_string(), self.name(key)];
            match value.kind() {
                "shorthand_property_identifier" => {
                    let v = vec![self.text(value)];
                    self.facts.assigns.push(TsAssign {
                        scope: self.scope(),
                        target,
                        value: v,
                        how: How::Value,
                        line: p.start_position().row as u32 + 1,
                    });
                }
                _ => self.bind(target, value, key),
            }
        }
    }

    fn require(&mut self, target: Node<'_>, source: &str) {
        let mut bound: Vec<(String, String)> = Vec::new();
        match target.kind() {
            "identifier" => bound.push((self.text(target), "*".into())),
            "object_pattern" => {
                for p in named(target) {
                    match p.kind() {
                        "shorthand_property_identifier_pattern" => {
                            bound.push((self.text(p), self.text(p)));
                        }
                        "pair_pattern" => {
                            if let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            {
                                bound.push((self.text(v), self.name(k)));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        let scope = self.scope();
        for (local, name) in bound {
            self.facts.imports.push(TsImport {
                scope,
                local,
                source: source.to_string(),
                name,
            });
        }
    }

    /// `x = v`, `this.x = v`, `module.exports = v`, `exports.name = v`.
    fn assignment(&mut self, node: Node<'_>) {
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return;
        };
        let Some(target) = chain(left, self.src) else {
            return;
        };
        let t: Vec<&str> = target.iter().map(String::as_str).collect();
        match t.as_slice() {
            ["module", "exports"] => self.module_exports(right),
            ["exports", name] | ["module", "exports", name] => {
                if let Some(v) = chain(right, self.src).filter(|c| c.len() == 1) {
                    let name = name.to_string();
                    self.export_name(&name, &v[0], None);
                } else {
                    // `exports.f = function () {}`: the name is bound here.
                    self.bind(vec![name.to_string()], right, left);
                    let name = name.to_string();
                    self.export_name(&name, &name, None);
                }
            }
            _ => self.bind(target, right, left),
        }
    }

    /// `module.exports = name`, `= { a, b: c }`, `= require('./x')`.
    fn module_exports(&mut self, right: Node<'_>) {
        if let Some(source) = required(right, self.src) {
            self.export_name("*", "*", Some(source));
            return;
        }
        match right.kind() {
            "identifier" => {
                let l = self.text(right);
                self.export_name("=", &l, None);
            }
            "object" => {
                for p in named(right) {
                    match p.kind() {
                        "shorthand_property_identifier" => {
                            let n = self.text(p);
                            self.export_name(&n, &n, None);
                        }
                        "pair" => {
                            let (Some(k), Some(v)) =
                                (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            else {
                                continue;
                            };
                            if let Some(c) = chain(v, self.src).filter(|c| c.len() == 1) {
                                let k = self.name(k);
                                self.export_name(&k, &c[0], None);
                            } else if let Some(url) = http::exported_url(v, self.src) {
                                self.facts.urls.push((self.name(k), url));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// `repo = new Repo()` and `repo: Repo` in a class body: the instance's `this.repo`.
    fn field(&mut self, node: Node<'_>) {
        let Some(name) = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("property"))
        else {
            return;
        };
        let target = vec!["this".to_string(), self.text(name)];
        if let Some(v) = node.child_by_field_name("value") {
            self.bind(target.clone(), v, name);
        }
        if let Some(t) = node.child_by_field_name("type") {
            self.assign_type(target, t, name);
        }
    }

    /// `constructor(private repo: Repo)`: a parameter property is `this.repo`.
    fn parameter_property(&mut self, node: Node<'_>) {
        let is_property = named(node)
            .any(|c| matches!(c.kind(), "accessibility_modifier" | "override_modifier"))
            || super::symbols::children(node).any(|c| c.kind() == "readonly");
        let (Some(name), Some(t)) = (
            node.child_by_field_name("pattern"),
            node.child_by_field_name("type"),
        ) else {
            return;
        };
        if is_property && name.kind() == "identifier" {
            let target = vec!["this".to_string(), self.text(name)];
            self.assign_type(target, t, name);
        }
        // `(subscriber: Subscriber<T>) => …` that is no definition: its parameters are names
        // of the definition around it.
        let function = node.parent().and_then(|p| p.parent());
        if name.kind() == "identifier"
            && function.is_some_and(|f| {
                matches!(
                    f.kind(),
                    "arrow_function" | "function_expression" | "function"
                ) && !self.scopes_by_node.contains_key(&f.id())
            })
        {
            let target = vec![self.text(name)];
            self.assign_type(target, t, name);
        }
    }

    fn assign_type(&mut self, target: Vec<String>, annotation: Node<'_>, at: Node<'_>) {
        let t = type_name(self.text(annotation).trim_start_matches(':'));
        if t.is_empty() {
            return;
        }
        self.facts.assigns.push(TsAssign {
            scope: self.scope(),
            target,
            value: t.split('.').map(str::to_string).collect(),
            how: How::Type,
            line: at.start_position().row as u32 + 1,
        });
    }

    fn bind(&mut self, target: Vec<String>, value: Node<'_>, at: Node<'_>) {
        let Some((value, how)) = value_chain(value, self.src) else {
            return;
        };
        self.facts.assigns.push(TsAssign {
            scope: self.scope(),
            target,
            value,
            how,
            line: at.start_position().row as u32 + 1,
        });
    }

    /// A property or specifier name without quotes.
    fn name(&self, n: Node<'_>) -> String {
        if n.kind() == "string" {
            string_text(n, self.src)
        } else {
            self.text(n)
        }
    }
}

/// `require('./x')` (also under `await import('./x')`): its specifier.
pub(super) fn required(v: Node<'_>, src: &[u8]) -> Option<String> {
    let v = unwrap(v);
    if v.kind() != "call_expression" {
        return None;
    }
    let f = v.child_by_field_name("function")?;
    if !matches!(&src[f.byte_range()], b"require" | b"import") {
        return None;
    }
    let arg = named(v.child_by_field_name("arguments")?).next()?;
    (arg.kind() == "string").then(|| string_text(arg, src))
}

/// A value as a chain and how it is obtained: `f(…)`, `new F(…)`, `a.b`, under `await`,
/// parentheses, casts and non-null assertions.
fn value_chain(n: Node<'_>, src: &[u8]) -> Option<(Vec<String>, How)> {
    let n = unwrap(n);
    match n.kind() {
        "call_expression" => Some((
            call_chain(n.child_by_field_name("function")?, src)?,
            How::Call,
        )),
        "new_expression" => Some((
            call_chain(n.child_by_field_name("constructor")?, src)?,
            How::New,
        )),
        "binary_expression" => {
            // `a ?? b`, `a || b`: the left operand's value.
            value_chain(n.child_by_field_name("left")?, src)
        }
        _ => Some((call_chain(n, src)?, How::Value)),
    }
}

/// A step of a [`call_chain`] that is not a name: what the value so far returns when called.
pub(super) const CALLED: &str = "()";
/// A step of a [`call_chain`]: an instance of the value so far (`new X()`).
pub(super) const CONSTRUCTED: &str = "new()";

/// Whether a chain element is a [`CALLED`] or [`CONSTRUCTED`] step.
pub(super) fn is_step(e: Option<&String>) -> bool {
    e.is_some_and(|e| e == CALLED || e == CONSTRUCTED)
}

/// [`chain`] through calls, `new` and string subscripts: `z.string().min(1)` calls `min` on
/// `["z", "string", "()"]`, `new Foo().bar` is `["Foo", "new()", "bar"]`, `a['b']` is
/// `["a", "b"]`.
pub(super) fn call_chain(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    let n = unwrap(n);
    let (inner, step) = match n.kind() {
        "call_expression" => (n.child_by_field_name("function")?, CALLED),
        "new_expression" => (n.child_by_field_name("constructor")?, CONSTRUCTED),
        "member_expression" => {
            let mut c = call_chain(n.child_by_field_name("object")?, src)?;
            let p = n.child_by_field_name("property")?;
            c.push(String::from_utf8_lossy(&src[p.byte_range()]).into_owned());
            return Some(c);
        }
        "subscript_expression" => {
            let index = n.child_by_field_name("index")?;
            if index.kind() != "string" {
                return None;
            }
            let mut c = call_chain(n.child_by_field_name("object")?, src)?;
            c.push(string_text(index, src));
            return Some(c);
        }
        _ => return chain(n, src),
    };
    // `import('./x')` and `require('./x')` are modules, not calls to follow.
    if matches!(&src[inner.byte_range()], b"require" | b"import") {
        return None;
    }
    let mut c = call_chain(inner, src)?;
    c.push(step.to_string());
    Some(c)
}

fn unwrap(mut n: Node<'_>) -> Node<'_> {
    while matches!(
        n.kind(),
        "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "type_assertion"
    ) {
        match named(n).find(|c| !c.kind().contains("type")) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

/// `a.b.c` → `["a", "b", "c"]`; `this.x` → `["this", "x"]`; `super` → `["super"]`; calls,
/// subscripts and literals → `None`.
pub(super) fn chain(n: Node<'_>, src: &[u8]) -> Option<Vec<String>> {
    let n = unwrap(n);
    match n.kind() {
        "identifier" | "this" | "super" | "property_identifier" => Some(vec![
            String::from_utf8_lossy(&src[n.byte_range()]).into_owned(),
        ]),
        "member_expression" => {
            let mut c = chain(n.child_by_field_name("object")?, src)?;
            let p = n.child_by_field_name("property")?;
            c.push(String::from_utf8_lossy(&src[p.byte_range()]).into_owned());
            Some(c)
        }
        _ => None,
    }
}

/// The class a type names: `Repo`, `models.Repo`, `Repo<T>`, `Repo | null`, `Promise<Repo>`,
/// `Readonly<Repo>` → `Repo`; arrays, literals and object types → "".
pub(super) fn type_name(written: &str) -> String {
    let t = written.trim();
    let t = t
        .split('|')
        .map(str::trim)
        .find(|p| !matches!(*p, "null" | "undefined" | "void" | ""))
        .unwrap_or("");
    if let Some((outer, rest)) = t.split_once('<') {
        let outer = outer.trim();
        let inner = rest.strip_suffix('>').unwrap_or(rest);
        return match outer {
            "Promise" | "Readonly" | "Partial" | "Required" | "PromiseLike" => type_name(inner),
            _ => type_name(outer),
        };
    }
    let simple = !t.is_empty()
        && t.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.');
    if simple { t.to_string() } else { String::new() }
}
