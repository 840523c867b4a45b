//! What the call graph needs from one Go file, before anything is resolved across files: its
//! package, imports, functions with their receiver, parameter and result types, type
//! declarations (struct fields with embedding, interface methods), package variables, the local
//! bindings of every function body with the byte range they are visible in, and call sites with
//! their callee and arguments as expressions. Resolution is [`super::resolve`]'s.

use super::expr::{Expr, TExpr, expr, named, texpr};
use crate::model::{Symbol, SymbolKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tree_sitter::Node;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GoFacts {
    /// The package's directory ([`super::package_of`]).
    pub dir: String,
    /// The name in the package clause (`orders`, `orders_test`).
    pub name: String,
    /// `go.mod` only: the module path it declares.
    pub module: Option<String>,
    /// (local name as written or "" for the default, import path).
    pub imports: Vec<(String, String)>,
    /// Definitions in symbol order: (id, line of the name).
    pub defs: Vec<(String, u32)>,
    pub funcs: Vec<GoFunc>,
    pub types: Vec<GoType>,
    /// Package-level variables.
    pub vars: Vec<GoVar>,
    pub locals: Vec<GoLocal>,
    pub calls: Vec<GoCall>,
}

impl GoFacts {
    /// The stored form ([`crate::graph::LangFacts`]): bincode.
    pub fn encode(&self) -> crate::graph::LangFacts {
        crate::graph::LangFacts {
            language: super::LANGUAGE.as_str().to_string(),
            bytes: bincode::serialize(self).unwrap_or_default(),
        }
    }

    /// Go facts of a file, if it has any.
    pub fn decode(facts: &crate::graph::FileFacts) -> Option<GoFacts> {
        let l = facts.lang.as_ref()?;
        (l.language == super::LANGUAGE.as_str())
            .then(|| bincode::deserialize(&l.bytes).ok())
            .flatten()
    }
}

/// A function or method declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoFunc {
    /// Index into `defs`.
    pub def: u32,
    pub name: String,
    /// The receiver's type name (`Service` of `func (s *Service[T])`).
    pub receiver: Option<String>,
    pub results: Vec<TExpr>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoType {
    pub def: u32,
    pub name: String,
    pub kind: TypeKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TypeKind {
    /// Fields: (name, type, embedded); an embedded field is named by its type.
    Struct(Vec<(String, TExpr, bool)>),
    /// Methods (name, definition, results) and embedded interfaces.
    Interface(Vec<(String, u32, Vec<TExpr>)>, Vec<TExpr>),
    /// `type A = B` and `type A B` for a non-struct, non-interface B.
    Alias(TExpr),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoVar {
    pub name: String,
    pub ty: Option<TExpr>,
    /// The value and which of its results the variable takes.
    pub value: Option<(Expr, u8)>,
}

/// A name bound in a function body (parameters, results and receivers included), visible from
/// `decl` to the end of its block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoLocal {
    pub name: String,
    /// Byte offset where it becomes visible, and where its block ends.
    pub decl: u32,
    pub end: u32,
    pub src: LocalSrc,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LocalSrc {
    Typed(TExpr),
    /// `a, b := value`: result `n` of the value.
    Value(Expr, u8),
    /// `for k, v := range value`: 0 the key, 1 the element.
    Range(Expr, u8),
}

/// A call: `f(…)`, `pkg.F(…)`, `x.y.M(…)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoCall {
    /// The enclosing function (a func literal's calls are its function's); the package for
    /// package-level initializers.
    pub caller: u32,
    pub func: Expr,
    pub args: Vec<Expr>,
    /// Line of the callee's name.
    pub line: u32,
    pub at: u32,
    /// `.Methods("GET", …)` applied to the call's result (gorilla/mux routes).
    pub verbs: Vec<String>,
}

/// Collects the facts of a parsed file whose symbols are `symbols`.
pub(super) fn extract(root: Node<'_>, src: &[u8], dir: &str, symbols: &[Symbol]) -> GoFacts {
    let by_line: HashMap<(u32, &str), u32> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.name_line, s.name.as_str()), i as u32))
        .collect();
    let package = symbols
        .iter()
        .position(|s| s.kind == SymbolKind::Package)
        .unwrap_or(0) as u32;
    let mut w = Walker {
        src,
        by_line,
        package,
        facts: GoFacts {
            dir: dir.to_string(),
            defs: symbols
                .iter()
                .map(|s| (s.id.0.clone(), s.name_line))
                .collect(),
            ..GoFacts::default()
        },
    };
    for n in named(root) {
        w.top(n);
    }
    w.facts
}

struct Walker<'a> {
    src: &'a [u8],
    /// Definitions by (name line, name).
    by_line: HashMap<(u32, &'a str), u32>,
    package: u32,
    facts: GoFacts,
}

impl Walker<'_> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn def_of(&self, name: Node<'_>) -> Option<u32> {
        let line = name.start_position().row as u32 + 1;
        self.by_line.get(&(line, self.text(name).as_str())).copied()
    }

    fn top(&mut self, n: Node<'_>) {
        match n.kind() {
            "package_clause" => {
                if let Some(p) = named(n).find(|c| c.kind() == "package_identifier") {
                    self.facts.name = self.text(p);
                }
            }
            "import_declaration" => self.imports(n),
            "function_declaration" | "method_declaration" => self.function(n),
            "type_declaration" => {
                for spec in named(n).filter(|c| matches!(c.kind(), "type_spec" | "type_alias")) {
                    self.type_spec(spec);
                }
            }
            "var_declaration" => {
                self.package_vars(n);
                self.body(n, self.package);
            }
            _ => self.body(n, self.package),
        }
    }

    fn imports(&mut self, n: Node<'_>) {
        let mut stack = vec![n];
        while let Some(c) = stack.pop() {
            if c.kind() != "import_spec" {
                stack.extend(named(c));
                continue;
            }
            let Some(p) = c.child_by_field_name("path") else {
                continue;
            };
            let path = self.text(p).trim_matches(['"', '`']).to_string();
            let local = c
                .child_by_field_name("name")
                .map(|l| self.text(l))
                .unwrap_or_default();
            self.facts.imports.push((local, path));
        }
    }

    fn function(&mut self, n: Node<'_>) {
        let Some(def) = n.child_by_field_name("name").and_then(|m| self.def_of(m)) else {
            return;
        };
        let name = self.facts.defs[def as usize].0.clone();
        let name = name.rsplit('.').next().unwrap_or(&name).to_string();
        let receiver = n.child_by_field_name("receiver").and_then(|r| {
            let p = named(r).next()?;
            match texpr(p.child_by_field_name("type")?, self.src) {
                TExpr::Named(None, t) => Some(t),
                _ => None,
            }
        });
        let results = results(n, self.src);
        self.facts.funcs.push(GoFunc {
            def,
            name,
            receiver,
            results,
        });
        let end = n.end_byte() as u32;
        for field in ["receiver", "parameters", "result"] {
            if let Some(list) = n.child_by_field_name(field) {
                self.params(list, n.start_byte() as u32, end);
            }
        }
        if let Some(body) = n.child_by_field_name("body") {
            self.body(body, def);
        }
    }

    /// Parameters (and named results) as locals visible in `[decl, end)`.
    fn params(&mut self, list: Node<'_>, decl: u32, end: u32) {
        for p in named(list).filter(|p| p.kind().ends_with("parameter_declaration")) {
            let Some(t) = p.child_by_field_name("type") else {
                continue;
            };
            let mut ty = texpr(t, self.src);
            if p.kind() == "variadic_parameter_declaration" {
                ty = TExpr::Slice(Box::new(ty));
            }
            for name in named(p).filter(|c| c.kind() == "identifier") {
                self.local(self.text(name), decl, end, LocalSrc::Typed(ty.clone()));
            }
        }
    }

    fn local(&mut self, name: String, decl: u32, end: u32, src: LocalSrc) {
        if name != "_" {
            self.facts.locals.push(GoLocal {
                name,
                decl,
                end,
                src,
            });
        }
    }

    fn type_spec(&mut self, spec: Node<'_>) {
        let (Some(name), Some(ty)) = (
            spec.child_by_field_name("name"),
            spec.child_by_field_name("type"),
        ) else {
            return;
        };
        let Some(def) = self.def_of(name) else { return };
        let kind = match ty.kind() {
            "struct_type" => TypeKind::Struct(self.fields(ty)),
            "interface_type" => self.interface(ty),
            _ => TypeKind::Alias(texpr(ty, self.src)),
        };
        self.facts.types.push(GoType {
            def,
            name: self.text(name),
            kind,
        });
    }

    fn fields(&self, st: Node<'_>) -> Vec<(String, TExpr, bool)> {
        let mut out = Vec::new();
        let Some(list) = named(st).find(|c| c.kind() == "field_declaration_list") else {
            return out;
        };
        for f in named(list).filter(|f| f.kind() == "field_declaration") {
            let Some(t) = f.child_by_field_name("type") else {
                continue;
            };
            let ty = texpr(t, self.src);
            let names: Vec<String> = named(f)
                .filter(|c| c.kind() == "field_identifier")
                .map(|c| self.text(c))
                .collect();
            if names.is_empty()
                && let Some(n) = ty.name()
            {
                out.push((n.to_string(), ty.clone(), true));
            }
            for n in names {
                out.push((n, ty.clone(), false));
            }
        }
        out
    }

    fn interface(&self, it: Node<'_>) -> TypeKind {
        let mut methods = Vec::new();
        let mut embeds = Vec::new();
        for m in named(it) {
            match m.kind() {
                "method_elem" | "method_spec" => {
                    let Some(name) = m.child_by_field_name("name") else {
                        continue;
                    };
                    if let Some(def) = self.def_of(name) {
                        methods.push((self.text(name), def, results(m, self.src)));
                    }
                }
                "type_elem" | "constraint_elem" => {
                    embeds.extend(named(m).map(|t| texpr(t, self.src)));
                }
                _ => {}
            }
        }
        TypeKind::Interface(methods, embeds)
    }

    fn package_vars(&mut self, n: Node<'_>) {
        let mut stack = vec![n];
        while let Some(c) = stack.pop() {
            if c.kind() != "var_spec" {
                stack.extend(named(c));
                continue;
            }
            let ty = c.child_by_field_name("type").map(|t| texpr(t, self.src));
            let values: Vec<Node<'_>> = c
                .child_by_field_name("value")
                .map(|v| named(v).collect())
                .unwrap_or_default();
            let names: Vec<Node<'_>> = named(c)
                .filter(|k| k.kind() == "identifier" && Some(*k) != c.child_by_field_name("value"))
                .collect();
            for (i, name) in names.iter().enumerate() {
                let value = match values.len() {
                    0 => None,
                    1 if names.len() > 1 => Some((expr(values[0], self.src), i as u8)),
                    _ => values.get(i).map(|v| (expr(*v, self.src), 0)),
                };
                self.facts.vars.push(GoVar {
                    name: self.text(*name),
                    ty: ty.clone(),
                    value,
                });
            }
        }
    }

    /// Locals and calls of a function body (or a package-level initializer), func literals in
    /// it included: pre-order, iterative.
    fn body(&mut self, root: Node<'_>, caller: u32) {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            self.visit(n, caller);
            let kids: Vec<Node<'_>> = named(n).collect();
            stack.extend(kids.into_iter().rev());
        }
    }

    fn visit(&mut self, n: Node<'_>, caller: u32) {
        match n.kind() {
            "call_expression" => self.call(n, caller),
            "short_var_declaration" => self.short_var(n),
            "var_spec" if caller != self.package => self.var_spec(n),
            "range_clause" => self.range(n),
            "type_switch_statement" => self.type_switch(n),
            "func_literal" => {
                let end = n.end_byte() as u32;
                for field in ["parameters", "result"] {
                    if let Some(list) = n.child_by_field_name(field) {
                        self.params(list, n.start_byte() as u32, end);
                    }
                }
            }
            _ => {}
        }
    }

    fn call(&mut self, n: Node<'_>, caller: u32) {
        let Some(f) = n.child_by_field_name("function") else {
            return;
        };
        let name = match f.kind() {
            "selector_expression" => f.child_by_field_name("field").unwrap_or(f),
            _ => f,
        };
        let args = n
            .child_by_field_name("arguments")
            .map(|a| named(a).map(|x| expr(x, self.src)).collect())
            .unwrap_or_default();
        self.facts.calls.push(GoCall {
            caller,
            func: expr(f, self.src),
            args,
            line: name.start_position().row as u32 + 1,
            at: n.start_byte() as u32,
            verbs: self.methods_applied(n),
        });
    }

    /// `r.HandleFunc(…).Methods("GET", "POST")`: the verbs.
    fn methods_applied(&self, call: Node<'_>) -> Vec<String> {
        let Some(sel) = call.parent().filter(|p| p.kind() == "selector_expression") else {
            return Vec::new();
        };
        let is_methods = sel
            .child_by_field_name("field")
            .is_some_and(|f| &self.src[f.byte_range()] == b"Methods");
        let Some(outer) = sel
            .parent()
            .filter(|p| is_methods && p.kind() == "call_expression")
        else {
            return Vec::new();
        };
        outer
            .child_by_field_name("arguments")
            .map(|a| {
                named(a)
                    .filter_map(|x| match expr(x, self.src) {
                        Expr::Str(s) => Some(s.to_uppercase()),
                        Expr::Sel(_, m) => m.strip_prefix("Method").map(str::to_uppercase),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Where a declaration in a block stops being visible: the end of the enclosing block.
    fn block_end(n: Node<'_>) -> u32 {
        let mut p = n.parent();
        while let Some(b) = p {
            if matches!(
                b.kind(),
                "block"
                    | "func_literal"
                    | "function_declaration"
                    | "method_declaration"
                    | "expression_case"
                    | "type_case"
                    | "default_case"
                    | "communication_case"
                    | "if_statement"
                    | "for_statement"
                    | "switch_statement"
                    | "expression_switch_statement"
                    | "type_switch_statement"
                    | "select_statement"
            ) {
                return b.end_byte() as u32;
            }
            p = b.parent();
        }
        n.end_byte() as u32
    }

    fn short_var(&mut self, n: Node<'_>) {
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return;
        };
        let names: Vec<Node<'_>> = named(left).collect();
        let values: Vec<Node<'_>> = named(right).collect();
        let (decl, end) = (n.end_byte() as u32, Self::block_end(n));
        for (i, name) in names.iter().enumerate() {
            let src = match values.len() {
                1 if names.len() > 1 => LocalSrc::Value(expr(values[0], self.src), i as u8),
                _ => match values.get(i) {
                    Some(v) => LocalSrc::Value(expr(*v, self.src), 0),
                    None => continue,
                },
            };
            self.local(self.text(*name), decl, end, src);
        }
    }

    fn var_spec(&mut self, n: Node<'_>) {
        let ty = n.child_by_field_name("type").map(|t| texpr(t, self.src));
        let value = n.child_by_field_name("value");
        let values: Vec<Node<'_>> = value.map(|v| named(v).collect()).unwrap_or_default();
        let names: Vec<Node<'_>> = named(n)
            .filter(|k| k.kind() == "identifier" && Some(*k) != value)
            .collect();
        let (decl, end) = (n.end_byte() as u32, Self::block_end(n));
        for (i, name) in names.iter().enumerate() {
            let src = match (&ty, values.len()) {
                (Some(t), _) => LocalSrc::Typed(t.clone()),
                (None, 1) if names.len() > 1 => LocalSrc::Value(expr(values[0], self.src), i as u8),
                (None, _) => match values.get(i) {
                    Some(v) => LocalSrc::Value(expr(*v, self.src), 0),
                    None => continue,
                },
            };
            self.local(self.text(*name), decl, end, src);
        }
    }

    fn range(&mut self, n: Node<'_>) {
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return;
        };
        let is_decl = (0..n.child_count())
            .filter_map(|i| n.child(i))
            .any(|c| c.kind() == ":=");
        if !is_decl {
            return;
        }
        let value = expr(right, self.src);
        let end = n.parent().map_or(n.end_byte(), |f| f.end_byte()) as u32;
        for (i, name) in named(left).enumerate().take(2) {
            let src = LocalSrc::Range(value.clone(), i as u8);
            self.local(self.text(name), n.end_byte() as u32, end, src);
        }
    }

    /// `switch y := x.(type) { case *T: … }`: `y` is a `*T` in that case, `x`'s type elsewhere.
    fn type_switch(&mut self, n: Node<'_>) {
        let (Some(alias), Some(value)) = (
            n.child_by_field_name("alias").and_then(|a| named(a).next()),
            n.child_by_field_name("value"),
        ) else {
            return;
        };
        let name = self.text(alias);
        let value = expr(value, self.src);
        for case in named(n).filter(|c| matches!(c.kind(), "type_case" | "default_case")) {
            let types: Vec<Node<'_>> = (0..case.child_count())
                .filter_map(|i| case.child(i))
                .enumerate()
                .filter(|(i, _)| case.field_name_for_child(*i as u32) == Some("type"))
                .map(|(_, c)| c)
                .collect();
            let src = match types.as_slice() {
                [one] => LocalSrc::Typed(texpr(*one, self.src)),
                _ => LocalSrc::Value(value.clone(), 0),
            };
            let (decl, end) = (case.start_byte() as u32, case.end_byte() as u32);
            self.local(name.clone(), decl, end, src);
        }
    }
}

/// The result types of a function, method, method element or func literal.
pub(super) fn results(n: Node<'_>, src: &[u8]) -> Vec<TExpr> {
    let Some(r) = n.child_by_field_name("result") else {
        return Vec::new();
    };
    if r.kind() != "parameter_list" {
        return vec![texpr(r, src)];
    }
    let mut out = Vec::new();
    for p in named(r).filter(|p| p.kind().ends_with("parameter_declaration")) {
        let Some(t) = p.child_by_field_name("type") else {
            continue;
        };
        let ty = texpr(t, src);
        let n = named(p).filter(|c| c.kind() == "identifier").count().max(1);
        out.extend(std::iter::repeat_n(ty, n));
    }
    out
}
