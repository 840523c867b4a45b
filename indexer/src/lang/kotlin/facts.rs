//! What the call graph needs from one Kotlin file, before anything is resolved across files:
//! its package and imports, classes (supertypes, properties with their types and initializers,
//! annotations with their arguments), functions (owner, extension receiver, parameters, return
//! type or expression body, annotations), the locals of every body with the byte range they
//! are visible in, and call sites with their callee and arguments as expressions. Resolution is
//! [`super::resolve`]'s.

use crate::model::{Symbol, SymbolKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tree_sitter::Node;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KtFacts {
    pub package: String,
    /// (qualified name, alias, `.*`).
    pub imports: Vec<(String, Option<String>, bool)>,
    /// Definitions in symbol order: (id, qualified name, line of the name).
    pub defs: Vec<(String, String, u32)>,
    pub classes: Vec<KtClass>,
    pub funs: Vec<KtFun>,
    pub locals: Vec<KtLocal>,
    pub calls: Vec<KtCall>,
}

impl KtFacts {
    /// The stored form ([`crate::graph::LangFacts`]): bincode.
    pub fn encode(&self) -> crate::graph::LangFacts {
        crate::graph::LangFacts {
            language: super::LANGUAGE.as_str().to_string(),
            bytes: bincode::serialize(self).unwrap_or_default(),
        }
    }

    /// Kotlin facts of a file, if it has any.
    pub fn decode(facts: &crate::graph::FileFacts) -> Option<KtFacts> {
        let l = facts.lang.as_ref()?;
        (l.language == super::LANGUAGE.as_str())
            .then(|| bincode::deserialize(&l.bytes).ok())
            .flatten()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KtClass {
    pub def: u32,
    pub name: String,
    pub kind: SymbolKind,
    /// An `object` or `companion object`: its members are called on its name.
    pub object: bool,
    /// The enclosing class (index into `classes`).
    pub outer: Option<u32>,
    /// Supertypes as written (`Base`, `Repo<Order>`).
    pub supers: Vec<String>,
    /// Properties (constructor `val`/`var` included): name, type as written, initializer.
    pub props: Vec<(String, String, Option<Expr>)>,
    pub annotations: Vec<Ann>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KtFun {
    pub def: u32,
    pub name: String,
    /// The class it is a member of (index into `classes`).
    pub owner: Option<u32>,
    /// An extension's receiver type as written.
    pub receiver: Option<String>,
    pub ret: Option<String>,
    /// `fun f() = value`: the value, for an undeclared return type.
    pub value: Option<Expr>,
    pub annotations: Vec<Ann>,
}

/// `@Name(key = value…)`; the single unnamed argument is `value`. Values are string literals,
/// or the text of anything else (`RequestMethod.POST`); an array gives several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ann {
    pub name: String,
    pub args: Vec<(String, Vec<String>)>,
    pub line: u32,
}

impl Ann {
    pub fn arg(&self, keys: &[&str]) -> Vec<String> {
        keys.iter()
            .find_map(|k| self.args.iter().find(|(n, _)| n == k))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }
}

/// A name bound in a body (parameters included), visible in `[decl, end)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KtLocal {
    pub name: String,
    pub decl: u32,
    pub end: u32,
    pub ty: Option<String>,
    pub value: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Name(String),
    /// `x.f`, `x?.f`.
    Nav(Box<Expr>, String),
    Call(Box<Expr>),
    This,
    Super,
    Str(String),
    Other,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KtCall {
    /// The enclosing function (a lambda's calls are its function's), else the class or file.
    pub caller: u32,
    /// The class whose code it is (what `this` is).
    pub class: Option<u32>,
    pub func: Expr,
    /// String literal arguments (others are `None`).
    pub args: Vec<Option<String>>,
    pub line: u32,
    pub at: u32,
}

pub(super) fn extract(root: Node<'_>, src: &[u8], symbols: &[Symbol]) -> KtFacts {
    let by_line: HashMap<(u32, &str), u32> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| ((s.name_line, s.name.as_str()), i as u32))
        .collect();
    let mut w = Walker {
        src,
        by_line,
        kinds: symbols.iter().map(|s| s.kind).collect(),
        facts: KtFacts {
            defs: symbols
                .iter()
                .map(|s| (s.id.0.clone(), s.qualified_name.clone(), s.name_line))
                .collect(),
            ..KtFacts::default()
        },
    };
    let file_def = symbols
        .iter()
        .position(|s| s.kind == SymbolKind::Package)
        .unwrap_or(0) as u32;
    let mut pending: Vec<Ann> = Vec::new();
    for n in named(root) {
        match n.kind() {
            "package_header" => {
                if let Some(q) = named(n).next() {
                    w.facts.package = w.text(q);
                }
            }
            "import" => w.import(n),
            // `@A("x")` on its own line before a class parses as an annotated expression.
            "annotated_expression" => pending.extend(w.loose_annotations(n)),
            "annotation" => pending.extend(w.annotation(n)),
            _ => {
                w.declaration(n, None, file_def, std::mem::take(&mut pending));
            }
        }
    }
    w.facts
}

struct Walker<'a> {
    src: &'a [u8],
    by_line: HashMap<(u32, &'a str), u32>,
    kinds: Vec<SymbolKind>,
    facts: KtFacts,
}

impl Walker<'_> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn def_of(&self, name: Node<'_>, simple: &str) -> Option<u32> {
        let line = name.start_position().row as u32 + 1;
        self.by_line.get(&(line, simple)).copied()
    }

    fn import(&mut self, n: Node<'_>) {
        let Some(q) = named(n).find(|c| c.kind() == "qualified_identifier") else {
            return;
        };
        let alias = named(n)
            .filter(|c| c.kind() == "identifier")
            .last()
            .map(|a| self.text(a));
        let star = self.text(n).trim_end().ends_with('*');
        self.facts.imports.push((self.text(q), alias, star));
    }

    fn loose_annotations(&self, n: Node<'_>) -> Vec<Ann> {
        let mut out = Vec::new();
        let mut stack = vec![n];
        while let Some(c) = stack.pop() {
            let kids: Vec<Node<'_>> = named(c).collect();
            for (i, k) in kids.iter().enumerate() {
                match k.kind() {
                    // `@A("x")` parsed as `@A` then `("x")`: the parentheses are its arguments.
                    "annotation" => out.extend(self.annotation(*k).map(|mut a| {
                        let args = kids
                            .get(i + 1)
                            .filter(|p| p.kind() == "parenthesized_expression");
                        if let (true, Some(v)) =
                            (a.args.is_empty(), args.and_then(|p| named(*p).next()))
                        {
                            a.args.push(("value".to_string(), self.values(v)));
                        }
                        a
                    })),
                    "annotated_expression" => stack.push(*k),
                    _ => {}
                }
            }
        }
        out.sort_by_key(|a| a.line);
        out
    }

    /// A declaration and what it holds; `outer` is the enclosing class.
    fn declaration(&mut self, n: Node<'_>, outer: Option<u32>, scope: u32, extra: Vec<Ann>) {
        match n.kind() {
            "class_declaration" | "object_declaration" | "companion_object" => {
                self.class(n, outer, extra)
            }
            "function_declaration" => self.function(n, outer),
            "property_declaration" => {
                self.body(n, scope, outer);
            }
            _ => {}
        }
    }

    fn class(&mut self, n: Node<'_>, outer: Option<u32>, extra: Vec<Ann>) {
        let companion = n.kind() == "companion_object";
        let (name_node, name) = match n.child_by_field_name("name") {
            Some(x) => (x, self.text(x)),
            None if companion => (n, "Companion".to_string()),
            None => return,
        };
        let Some(def) = self.def_of(name_node, &name) else {
            return;
        };
        let mut annotations = extra;
        annotations.extend(self.annotations(n));
        let supers = named(n)
            .filter(|c| c.kind() == "delegation_specifiers")
            .flat_map(|d| named(d).collect::<Vec<_>>())
            .filter_map(|d| self.super_name(d))
            .collect();
        let ci = self.facts.classes.len() as u32;
        self.facts.classes.push(KtClass {
            def,
            name,
            kind: self.kinds[def as usize],
            object: n.kind() != "class_declaration",
            outer,
            supers,
            props: self.constructor_props(n),
            annotations,
        });
        let Some(body) = named(n).find(|c| matches!(c.kind(), "class_body" | "enum_class_body"))
        else {
            return;
        };
        for m in named(body) {
            if m.kind() == "property_declaration" {
                self.property(m, ci);
            }
            self.declaration(m, Some(ci), def, Vec::new());
        }
    }

    fn super_name(&self, d: Node<'_>) -> Option<String> {
        let t = match d.kind() {
            "delegation_specifier" => named(d).next()?,
            _ => d,
        };
        let t = match t.kind() {
            "constructor_invocation" | "explicit_delegation" => named(t).next()?,
            _ => t,
        };
        Some(type_name(&self.text(t)))
    }

    fn constructor_props(&self, class: Node<'_>) -> Vec<(String, String, Option<Expr>)> {
        let Some(ctor) = named(class).find(|c| c.kind() == "primary_constructor") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for p in named(ctor)
            .filter(|c| c.kind() == "class_parameters")
            .flat_map(|c| named(c).collect::<Vec<_>>())
            .filter(|c| c.kind() == "class_parameter")
        {
            let name = named(p).find(|k| k.kind() == "identifier");
            let ty = named(p).find(|k| k.kind().ends_with("type"));
            if let (Some(name), Some(ty)) = (name, ty) {
                // Plain constructor parameters are visible in initializers: kept as properties.
                out.push((self.text(name), type_name(&self.text(ty)), None));
            }
        }
        out
    }

    fn property(&mut self, n: Node<'_>, ci: u32) {
        let Some(v) = named(n).find(|c| c.kind() == "variable_declaration") else {
            return;
        };
        let Some(name) = named(v).find(|c| c.kind() == "identifier") else {
            return;
        };
        let ty = named(v)
            .find(|c| c.kind().ends_with("type"))
            .map(|t| type_name(&self.text(t)))
            .unwrap_or_default();
        let value = named(n)
            .skip_while(|c| *c != v)
            .nth(1)
            .map(|e| expr(e, self.src, 0));
        let name = self.text(name);
        self.facts.classes[ci as usize]
            .props
            .push((name, ty, value));
    }

    fn function(&mut self, n: Node<'_>, owner: Option<u32>) {
        let Some(name_node) = n.child_by_field_name("name") else {
            return;
        };
        let name = self.text(name_node);
        let Some(def) = self.def_of(name_node, &name) else {
            return;
        };
        let kids: Vec<Node<'_>> = named(n).collect();
        let params = kids
            .iter()
            .position(|c| c.kind() == "function_value_parameters");
        let is_type = |c: &Node<'_>| c.kind().ends_with("type");
        let receiver = kids
            .iter()
            .take_while(|c| **c != name_node)
            .find(|c| is_type(c))
            .map(|t| type_name(&self.text(*t)));
        let ret = params
            .and_then(|p| kids[p + 1..].iter().find(|c| is_type(c)))
            .map(|t| type_name(&self.text(*t)));
        let body = kids.iter().find(|c| c.kind() == "function_body").copied();
        let value = body
            .and_then(|b| named(b).next())
            .filter(|e| e.kind() != "block")
            .map(|e| expr(e, self.src, 0));
        self.facts.funs.push(KtFun {
            def,
            name,
            owner,
            receiver,
            ret,
            value,
            annotations: self.annotations(n),
        });
        if let Some(p) = params {
            self.params(kids[p], n.end_byte() as u32);
        }
        if let Some(b) = body {
            self.body(b, def, owner);
        }
    }

    fn params(&mut self, list: Node<'_>, end: u32) {
        for p in named(list).filter(|p| p.kind() == "parameter") {
            let name = named(p).find(|k| k.kind() == "identifier");
            let ty = named(p).find(|k| k.kind().ends_with("type"));
            if let (Some(name), Some(ty)) = (name, ty) {
                self.facts.locals.push(KtLocal {
                    name: self.text(name),
                    decl: list.start_byte() as u32,
                    end,
                    ty: Some(type_name(&self.text(ty))),
                    value: None,
                });
            }
        }
    }

    fn annotations(&self, n: Node<'_>) -> Vec<Ann> {
        named(n)
            .filter(|c| c.kind() == "modifiers")
            .flat_map(|m| named(m).collect::<Vec<_>>())
            .filter(|m| m.kind() == "annotation")
            .filter_map(|a| self.annotation(a))
            .collect()
    }

    fn annotation(&self, a: Node<'_>) -> Option<Ann> {
        let inner = named(a).next()?;
        let (ty, args) = match inner.kind() {
            "constructor_invocation" => (named(inner).next()?, named(inner).nth(1)),
            _ => (inner, None),
        };
        let name = type_name(&self.text(ty));
        let mut out = Vec::new();
        for v in args.iter().flat_map(|x| named(*x).collect::<Vec<_>>()) {
            let kids: Vec<Node<'_>> = named(v).collect();
            let (key, value) = match kids.as_slice() {
                [k, val] if k.kind() == "identifier" => (self.text(*k), *val),
                [val] => ("value".to_string(), *val),
                _ => continue,
            };
            out.push((key, self.values(value)));
        }
        Some(Ann {
            name,
            args: out,
            line: a.start_position().row as u32 + 1,
        })
    }

    fn values(&self, v: Node<'_>) -> Vec<String> {
        match v.kind() {
            "collection_literal" => named(v).flat_map(|x| self.values(x)).collect(),
            "string_literal" => vec![string_value(v, self.src)],
            _ => vec![self.text(v)],
        }
    }

    /// Locals and calls of a body, lambdas and local functions in it included.
    fn body(&mut self, root: Node<'_>, caller: u32, class: Option<u32>) {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "call_expression" => self.call(n, caller, class),
                "property_declaration" if n != root || class.is_none() => self.local(n),
                "for_statement" | "lambda_literal" => self.bound(n),
                _ => {}
            }
            let kids: Vec<Node<'_>> = named(n).collect();
            stack.extend(kids.into_iter().rev());
        }
    }

    fn call(&mut self, n: Node<'_>, caller: u32, class: Option<u32>) {
        let Some(f) = named(n).next() else { return };
        let name = match f.kind() {
            "navigation_expression" => named(f).last().unwrap_or(f),
            _ => f,
        };
        let args = named(n)
            .filter(|c| c.kind() == "value_arguments")
            .flat_map(|a| named(a).collect::<Vec<_>>())
            .map(|a| {
                named(a)
                    .last()
                    .filter(|v| v.kind() == "string_literal")
                    .map(|v| string_value(v, self.src))
            })
            .collect();
        self.facts.calls.push(KtCall {
            caller,
            class,
            func: expr(f, self.src, 0),
            args,
            line: name.start_position().row as u32 + 1,
            at: n.start_byte() as u32,
        });
    }

    fn local(&mut self, n: Node<'_>) {
        let Some(v) = named(n).find(|c| c.kind() == "variable_declaration") else {
            return;
        };
        let Some(name) = named(v).find(|c| c.kind() == "identifier") else {
            return;
        };
        let ty = named(v)
            .find(|c| c.kind().ends_with("type"))
            .map(|t| type_name(&self.text(t)));
        let value = named(n)
            .skip_while(|c| *c != v)
            .nth(1)
            .map(|e| expr(e, self.src, 0));
        let end = n.parent().map_or(n.end_byte(), |p| p.end_byte()) as u32;
        self.facts.locals.push(KtLocal {
            name: self.text(name),
            decl: n.end_byte() as u32,
            end,
            ty,
            value,
        });
    }

    /// Loop variables and lambda parameters with a declared type.
    fn bound(&mut self, n: Node<'_>) {
        let mut stack: Vec<Node<'_>> = named(n)
            .filter(|c| matches!(c.kind(), "variable_declaration" | "lambda_parameters"))
            .collect();
        while let Some(v) = stack.pop() {
            if v.kind() == "lambda_parameters" {
                stack.extend(named(v));
                continue;
            }
            let name = named(v).find(|c| c.kind() == "identifier");
            let ty = named(v).find(|c| c.kind().ends_with("type"));
            if let (Some(name), Some(ty)) = (name, ty) {
                self.facts.locals.push(KtLocal {
                    name: self.text(name),
                    decl: n.start_byte() as u32,
                    end: n.end_byte() as u32,
                    ty: Some(type_name(&self.text(ty))),
                    value: None,
                });
            }
        }
    }
}

/// Chains nested deeper than this end in [`Expr::Other`].
const MAX_DEPTH: u32 = 200;

fn expr(n: Node<'_>, src: &[u8], d: u32) -> Expr {
    if d > MAX_DEPTH {
        return Expr::Other;
    }
    match n.kind() {
        "identifier" => Expr::Name(String::from_utf8_lossy(&src[n.byte_range()]).into_owned()),
        "navigation_expression" => {
            let (Some(x), Some(f)) = (named(n).next(), named(n).last()) else {
                return Expr::Other;
            };
            if f.kind() != "identifier" || x == f {
                return Expr::Other;
            }
            let name = String::from_utf8_lossy(&src[f.byte_range()]).into_owned();
            Expr::Nav(Box::new(expr(x, src, d + 1)), name)
        }
        "call_expression" => match named(n).next() {
            Some(f) => Expr::Call(Box::new(expr(f, src, d + 1))),
            None => Expr::Other,
        },
        "this_expression" => Expr::This,
        "super_expression" => Expr::Super,
        "string_literal" => Expr::Str(string_value(n, src)),
        "parenthesized_expression" | "postfix_expression" => match named(n).next() {
            Some(x) => expr(x, src, d + 1),
            None => Expr::Other,
        },
        _ => Expr::Other,
    }
}

/// A string literal's text, templates written `{}`.
fn string_value(n: Node<'_>, src: &[u8]) -> String {
    named(n)
        .map(|c| match c.kind() {
            "string_content" => String::from_utf8_lossy(&src[c.byte_range()]).into_owned(),
            _ => "{}".to_string(),
        })
        .collect()
}

/// A type as written, reduced to its name: `List<Order>?` → `List`, `a.B` stays.
pub(super) fn type_name(written: &str) -> String {
    let t = written.trim().trim_end_matches('?');
    let t = t.split('<').next().unwrap_or(t);
    t.trim().trim_end_matches('?').to_string()
}

fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
