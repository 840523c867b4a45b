//! TypeScript and JavaScript declarations from one pre-order walk: the module; classes,
//! interfaces, type aliases, enums (and their members), functions and namespaces at any depth;
//! methods, constructors, accessors and properties of a declared class or interface; the names a
//! module or namespace body binds with `const`/`let`/`var` (a function or class value makes the
//! binding a function or class); `export default` of anything but a name.
//!
//! A symbol's range starts at its first decorator or at the `export`/`declare` that introduces
//! it, and ends at its last token; a variable's is its whole statement. Locals of functions are
//! not symbols. A type alias is an [`SymbolKind::Interface`] (the kinds have no alias).

use crate::chunk;
use crate::lang::preorder::Preorder;
use crate::lang::text::{body_hash, collapse, join};
use crate::model::{Literal, Param, Symbol, SymbolId, SymbolKind};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

pub(super) struct Extracted {
    pub symbols: Vec<Symbol>,
    /// `<specifier>.<local name>` per imported name (`./repo.Repo`), for chunk headers.
    pub imports: Vec<String>,
    /// The node (by id) whose descendants are in each symbol's scope → the symbol's index.
    pub scopes: HashMap<usize, u32>,
}

/// Longest value or head kept in a signature.
const MAX_SIGNATURE: usize = 160;

pub(super) fn extract(
    tree: &Preorder<'_>,
    root: Node<'_>,
    src: &[u8],
    module: &str,
    prefix: &str,
) -> Extracted {
    let mut x = Extractor {
        src,
        prefix,
        symbols: Vec::new(),
        imports: Vec::new(),
        ids: HashSet::new(),
        scopes: Vec::new(),
        owners: HashMap::new(),
    };
    x.module_symbol(root, module);
    tree.walk(|node, depth, _| {
        while x.scopes.last().is_some_and(|s| s.depth >= depth) {
            x.scopes.pop();
        }
        x.visit(node, depth)
    });
    Extracted {
        symbols: x.symbols,
        imports: x.imports,
        scopes: x.owners,
    }
}

struct Scope {
    depth: usize,
    symbol: usize,
    /// The node whose body holds the scope's members (a class, interface or namespace).
    owner: usize,
    kind: SymbolKind,
}

struct Extractor<'s> {
    src: &'s [u8],
    prefix: &'s str,
    symbols: Vec<Symbol>,
    imports: Vec<String>,
    ids: HashSet<SymbolId>,
    scopes: Vec<Scope>,
    owners: HashMap<usize, u32>,
}

/// What a declaration found in the walk becomes.
struct Decl<'t> {
    node: Node<'t>,
    /// The node whose lines are the symbol's (a variable's statement, an exported declaration's
    /// `export`).
    outer: Node<'t>,
    name: String,
    name_line: u32,
    kind: SymbolKind,
    /// Where the members of the declaration are (`None`: it opens no scope).
    owner: Option<Node<'t>>,
}

impl<'s> Extractor<'s> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn scope(&self) -> Option<&Scope> {
        self.scopes.last()
    }

    fn owner(&self) -> usize {
        self.scope().map_or(0, |s| s.symbol)
    }

    /// The innermost scope's declaration owns `body` (a class body of a declared class).
    fn owns(&self, body: Option<Node<'_>>) -> bool {
        let owner = body.and_then(|b| b.parent()).map(|p| p.id());
        owner.is_some() && self.scope().map(|s| s.owner) == owner
    }

    fn in_function(&self) -> bool {
        self.scope().is_some_and(|s| s.kind.is_callable())
    }

    fn visit(&mut self, node: Node<'_>, depth: usize) -> bool {
        let kind = match node.kind() {
            "class_declaration" | "abstract_class_declaration" => SymbolKind::Class,
            "interface_declaration" => SymbolKind::Interface,
            "type_alias_declaration" => SymbolKind::Interface,
            "enum_declaration" => SymbolKind::Enum,
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                SymbolKind::Function
            }
            "internal_module" | "module" => SymbolKind::Module,
            "method_definition" | "method_signature" | "abstract_method_signature"
                if self.owns(node.parent()) =>
            {
                if node
                    .child_by_field_name("name")
                    .is_some_and(|n| &self.src[n.byte_range()] == b"constructor")
                {
                    SymbolKind::Constructor
                } else {
                    SymbolKind::Method
                }
            }
            "public_field_definition" | "field_definition" | "property_signature"
                if self.owns(node.parent()) =>
            {
                SymbolKind::Field
            }
            "variable_declarator"
                if node.parent().is_some_and(|s| {
                    matches!(s.kind(), "lexical_declaration" | "variable_declaration")
                        && self.binds_names(s)
                }) =>
            {
                self.variable(node, depth);
                return true;
            }
            "export_statement" => {
                self.export_default(node, depth);
                return true;
            }
            "import_statement" => {
                self.import(node);
                return false;
            }
            "string" | "template_string" => {
                self.literal(node);
                return node.kind() == "template_string";
            }
            "throw_statement" => {
                self.throw(node);
                return true;
            }
            _ => return true,
        };
        let name = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("property"));
        let Some(name) = name else {
            return true;
        };
        // Enum members are read with the enum; a type alias's object type has no members.
        let owner = match node.kind() {
            "enum_declaration" | "type_alias_declaration" => None,
            _ => Some(node),
        };
        let decl = Decl {
            node,
            outer: outer(node),
            name: self.name_text(name),
            name_line: line(name),
            kind,
            owner,
        };
        let index = self.declare(decl, depth);
        if kind == SymbolKind::Enum {
            self.enum_members(node, index);
        }
        true
    }

    /// A `const`/`let`/`var` statement of a module or namespace body.
    fn binds_names(&self, node: Node<'_>) -> bool {
        if self.in_function() {
            return false;
        }
        let mut p = node.parent();
        while let Some(n) =
            p.filter(|n| matches!(n.kind(), "export_statement" | "ambient_declaration"))
        {
            p = n.parent();
        }
        match p {
            Some(p) if p.kind() == "program" => true,
            Some(p) if p.kind() == "statement_block" => p
                .parent()
                .is_some_and(|m| matches!(m.kind(), "internal_module" | "module")),
            _ => false,
        }
    }

    /// One declarator of a module-level statement: a function or class when its value is one.
    fn variable(&mut self, d: Node<'_>, depth: usize) {
        let (Some(statement), Some(target)) = (d.parent(), d.child_by_field_name("name")) else {
            return;
        };
        let value = d.child_by_field_name("value").map(unwrap_value);
        let (kind, owner) = match value.map(|v| v.kind()) {
            Some("arrow_function" | "function_expression" | "function" | "generator_function") => {
                (SymbolKind::Function, value)
            }
            Some("class") => (SymbolKind::Class, value),
            _ => (SymbolKind::Field, None),
        };
        let mut names = Vec::new();
        pattern_names(target, &mut names);
        for n in names {
            let decl = Decl {
                node: d,
                outer: outer(statement),
                name: self.text(n),
                name_line: line(n),
                kind,
                owner: owner.filter(|_| n == target),
            };
            self.declare(decl, depth);
        }
    }

    /// `export default function () {}`, `export default class {}` and `export default <value>`:
    /// a symbol named `default`. A named declaration or a bare name is found elsewhere.
    fn export_default(&mut self, node: Node<'_>, depth: usize) {
        if !children(node).any(|c| c.kind() == "default") {
            return;
        }
        let Some(value) = node.child_by_field_name("value").or_else(|| {
            node.child_by_field_name("declaration")
                .filter(|d| d.child_by_field_name("name").is_none())
        }) else {
            return;
        };
        let value = unwrap_value(value);
        let (kind, owner) = match value.kind() {
            "identifier" | "member_expression" => return,
            "arrow_function"
            | "function_expression"
            | "function"
            | "generator_function"
            | "function_declaration"
            | "generator_function_declaration" => (SymbolKind::Function, Some(value)),
            "class" | "class_declaration" => (SymbolKind::Class, Some(value)),
            _ => (SymbolKind::Field, None),
        };
        let keyword = children(node)
            .find(|c| c.kind() == "default")
            .unwrap_or(node);
        let decl = Decl {
            node: value,
            outer: node,
            name: "default".to_string(),
            name_line: line(keyword),
            kind,
            owner,
        };
        self.declare(decl, depth);
    }

    fn enum_members(&mut self, node: Node<'_>, parent: usize) {
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        for m in named(body) {
            let name = match m.kind() {
                "enum_assignment" => m.child_by_field_name("name"),
                "property_identifier" | "string" | "number" => Some(m),
                _ => None,
            };
            let Some(name) = name else { continue };
            let qualified_name = join(&self.symbols[parent].qualified_name, &self.name_text(name));
            let (start_line, end_line) = chunk::node_lines(m);
            let symbol = Symbol {
                kind: SymbolKind::Constant,
                name: self.name_text(name),
                qualified_name,
                signature: collapse(&self.text(m)),
                parent: Some(self.symbols[parent].id.clone()),
                start_line,
                end_line,
                name_line: line(name),
                visibility: "public".into(),
                is_static: true,
                body_hash: body_hash(&self.src[m.byte_range()]),
                ..blank()
            };
            self.push(symbol);
        }
    }

    /// Pushes a declaration's symbol and, when it has members, its scope.
    fn declare(&mut self, d: Decl<'_>, depth: usize) -> usize {
        let owner = self.owner();
        let node = d.node;
        let start = decorators_before(d.outer)
            .first()
            .copied()
            .unwrap_or(d.outer);
        let (start_line, _) = chunk::node_lines(start);
        let (_, end_line) = chunk::node_lines(d.outer);
        // A callable's owner is the node with its parameters and body.
        let function = d.owner.filter(|_| d.kind.is_callable());
        let body = function
            .or(d.owner)
            .and_then(|f| f.child_by_field_name("body"));
        let in_type = self
            .scope()
            .is_some_and(|s| matches!(s.kind, SymbolKind::Class | SymbolKind::Interface))
            && matches!(
                d.kind,
                SymbolKind::Method | SymbolKind::Constructor | SymbolKind::Field
            );
        let decorators: Vec<String> = decorators(node, d.outer)
            .map(|n| collapse(&self.text(n)))
            .collect();
        let typed = node
            .child_by_field_name("type")
            .or_else(|| node.child_by_field_name("return_type"))
            .or_else(|| function.and_then(|f| f.child_by_field_name("return_type")));
        let symbol = Symbol {
            kind: d.kind,
            qualified_name: join(&self.symbols[owner].qualified_name, &d.name),
            signature: self.head(d.outer, body, d.kind),
            doc: jsdoc(start, self.src),
            parent: Some(self.symbols[owner].id.clone()),
            start_line,
            end_line,
            name_line: d.name_line,
            annotations: decorators,
            visibility: if in_type {
                member_visibility(node, &d.name, self.src)
            } else if has_ancestor_kind(node, d.outer, "export_statement") {
                "public".into()
            } else {
                "private".into()
            },
            is_static: !in_type || children(node).any(|c| c.kind() == "static"),
            body_hash: body_hash(&self.src[start.start_byte()..d.outer.end_byte()]),
            params: self.params(function.unwrap_or(node)),
            value_type: typed
                .map(|t| collapse(self.text(t).trim_start_matches(':')))
                .unwrap_or_default(),
            has_body: body.is_some_and(|b| b.named_child_count() > 0),
            body_line: body.map_or(0, line),
            supertypes: d.owner.map(|o| self.supertypes(o)).unwrap_or_default(),
            name: d.name,
            ..blank()
        };
        let index = self.push(symbol);
        if let Some(o) = d.owner {
            self.owners.insert(o.id(), index as u32);
            self.scopes.push(Scope {
                depth,
                symbol: index,
                owner: o.id(),
                kind: d.kind,
            });
        }
        index
    }

    fn module_symbol(&mut self, root: Node<'_>, module: &str) {
        let (_, end_line) = chunk::node_lines(root);
        let name = module.rsplit('.').next().unwrap_or(module);
        self.push(Symbol {
            kind: SymbolKind::Module,
            name: name.to_string(),
            qualified_name: module.to_string(),
            signature: format!("module {module}"),
            parent: None,
            start_line: 1,
            end_line: end_line.max(1),
            name_line: 1,
            visibility: "public".into(),
            is_static: true,
            body_hash: body_hash(&self.src[root.byte_range()]),
            ..blank()
        });
    }

    /// A name as declared: a string name without its quotes.
    fn name_text(&self, n: Node<'_>) -> String {
        let t = self.text(n);
        if n.kind() == "string" {
            t.trim_matches(|c| c == '"' || c == '\'' || c == '`')
                .to_string()
        } else {
            t
        }
    }

    /// The declaration's head: its text up to its body (a variable's up to a long value).
    fn head(&self, outer: Node<'_>, body: Option<Node<'_>>, kind: SymbolKind) -> String {
        let end = match body {
            Some(b) if kind != SymbolKind::Field => b.start_byte(),
            _ => outer.end_byte(),
        };
        let start = children(outer)
            .find(|c| c.kind() != "decorator" && c.kind() != "comment")
            .map_or(outer.start_byte(), |c| c.start_byte())
            .min(end);
        let mut s = collapse(&String::from_utf8_lossy(&self.src[start..end]));
        if s.len() > MAX_SIGNATURE {
            let cut = (0..=MAX_SIGNATURE)
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            s.truncate(cut);
            s.push('…');
        }
        s.trim_end_matches(['{', ' ', '=']).to_string()
    }

    /// The parameters of a function: `(a: T, b = 1)`, or an arrow function's single `a`.
    fn params(&self, function: Node<'_>) -> Vec<Param> {
        if let Some(p) = function.child_by_field_name("parameter") {
            return vec![Param {
                name: self.text(p),
                ty: String::new(),
            }];
        }
        let Some(params) = function.child_by_field_name("parameters") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for p in named(params) {
            let (name, ty) = match p.kind() {
                "required_parameter" | "optional_parameter" => (
                    p.child_by_field_name("pattern")
                        .or_else(|| p.child_by_field_name("name")),
                    p.child_by_field_name("type"),
                ),
                "identifier" | "rest_pattern" | "object_pattern" | "array_pattern" => {
                    (Some(p), None)
                }
                "assignment_pattern" => (p.child_by_field_name("left"), None),
                _ => (None, None),
            };
            if let Some(name) = name {
                out.push(Param {
                    name: collapse(&self.text(name)),
                    ty: ty
                        .map(|t| collapse(self.text(t).trim_start_matches(':')))
                        .unwrap_or_default(),
                });
            }
        }
        out
    }

    /// Simple names of what a class extends and implements, or an interface extends.
    fn supertypes(&self, decl: Node<'_>) -> Vec<String> {
        let mut out = Vec::new();
        for c in named(decl) {
            let types: Vec<Node<'_>> = match c.kind() {
                "class_heritage" => named(c)
                    .flat_map(|h| match h.kind() {
                        "extends_clause" | "implements_clause" => {
                            named(h).filter(|t| t.kind() != "type_arguments").collect()
                        }
                        _ => vec![h],
                    })
                    .collect(),
                "extends_type_clause" => named(c).collect(),
                _ => continue,
            };
            for t in types {
                let text = self.text(t);
                let base = text.split('<').next().unwrap_or(&text);
                out.push(base.rsplit('.').next().unwrap_or(base).trim().to_string());
            }
        }
        out
    }

    /// `import a, { b as c } from './x'` → `./x.a`, `./x.c`; a side-effect import → `./x`.
    fn import(&mut self, node: Node<'_>) {
        let Some(source) = node.child_by_field_name("source") else {
            return;
        };
        let spec = string_text(source, self.src);
        let mut locals = Vec::new();
        for clause in named(node).filter(|c| c.kind() == "import_clause") {
            for c in named(clause) {
                match c.kind() {
                    "identifier" => locals.push(self.text(c)),
                    "namespace_import" => locals.extend(named(c).map(|i| self.text(i))),
                    "named_imports" => {
                        for s in named(c).filter(|s| s.kind() == "import_specifier") {
                            if let Some(n) = s
                                .child_by_field_name("alias")
                                .or_else(|| s.child_by_field_name("name"))
                            {
                                locals.push(self.text(n));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if locals.is_empty() {
            locals.push(String::new());
        }
        for l in locals {
            let full = if l.is_empty() {
                spec.clone()
            } else {
                format!("{spec}.{l}")
            };
            if !self.imports.contains(&full) {
                self.imports.push(full);
            }
        }
    }

    /// A string literal's text, kept on the innermost symbol.
    fn literal(&mut self, node: Node<'_>) {
        // A template's substitutions are placeholders, as `{}` in a format string.
        let text: String = named(node)
            .filter_map(|c| match c.kind() {
                "string_fragment" => Some(self.text(c)),
                "template_substitution" => Some("{}".to_string()),
                _ => None,
            })
            .collect();
        if text.is_empty()
            || node
                .parent()
                .is_some_and(|p| p.kind() == "import_statement")
        {
            return;
        }
        let owner = self.owner();
        self.symbols[owner].literals.push(Literal {
            line: line(node),
            text,
        });
    }

    /// `throw new OrderError(…)`: the error's simple name, for the innermost symbol.
    fn throw(&mut self, node: Node<'_>) {
        let Some(ctor) = named(node)
            .find(|c| c.kind() == "new_expression")
            .and_then(|n| n.child_by_field_name("constructor"))
        else {
            return;
        };
        let t = self.text(ctor);
        let simple = t.rsplit('.').next().unwrap_or(&t).to_string();
        let owner = self.owner();
        if !self.symbols[owner].thrown.contains(&simple) {
            self.symbols[owner].thrown.push(simple);
        }
    }

    fn push(&mut self, mut s: Symbol) -> usize {
        let base = format!("{}:{}", self.prefix, s.qualified_name);
        let mut id = SymbolId(base.clone());
        if self.ids.contains(&id) {
            // Overloads, accessor pairs and redeclarations keep all, told apart by a suffix.
            id = (2..)
                .map(|n| SymbolId(format!("{base}~{n}")))
                .find(|i| !self.ids.contains(i))
                .expect("unbounded range");
        }
        self.ids.insert(id.clone());
        s.id = id;
        self.symbols.push(s);
        self.symbols.len() - 1
    }
}

/// The statement that introduces a declaration: `export …`, `declare …`, or the expression
/// statement around a `namespace`.
fn outer(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    while let Some(p) = n.parent() {
        let wraps = match p.kind() {
            "export_statement" | "ambient_declaration" => true,
            "expression_statement" => matches!(n.kind(), "internal_module" | "module"),
            _ => false,
        };
        if !wraps {
            break;
        }
        n = p;
    }
    n
}

/// Decorators written before a class member are its siblings in TypeScript's tree: the run
/// just before it, in source order.
fn decorators_before(outer: Node<'_>) -> Vec<Node<'_>> {
    let mut v = Vec::new();
    let mut p = outer.prev_named_sibling();
    while let Some(d) = p.filter(|d| d.kind() == "decorator") {
        v.push(d);
        p = d.prev_named_sibling();
    }
    v.reverse();
    v
}

/// A declaration's decorators: just before it, inside its `export`, or inside it.
fn decorators<'t>(node: Node<'t>, outer: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let inside = named(outer)
        .chain((node != outer).then_some(node).into_iter().flat_map(named))
        .filter(|c| c.kind() == "decorator");
    decorators_before(outer).into_iter().chain(inside)
}

/// `x = (async () => …)`, `x = <T>(…)`, `x = fn as T`: the value under parentheses and casts.
fn unwrap_value(mut v: Node<'_>) -> Node<'_> {
    while matches!(
        v.kind(),
        "parenthesized_expression" | "as_expression" | "satisfies_expression" | "type_assertion"
    ) {
        match named(v).find(|c| !c.kind().ends_with("type") && c.kind() != "type_arguments") {
            Some(inner) => v = inner,
            None => break,
        }
    }
    v
}

/// The names a binding pattern declares: `a`, `{ a, b: c, ...d }`, `[a, [b]]`, defaults too.
fn pattern_names<'t>(p: Node<'t>, out: &mut Vec<Node<'t>>) {
    match p.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => out.push(p),
        "pair_pattern" => {
            if let Some(v) = p.child_by_field_name("value") {
                pattern_names(v, out);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(l) = p.child_by_field_name("left") {
                pattern_names(l, out);
            }
        }
        "object_pattern" | "array_pattern" | "rest_pattern" => {
            for c in named(p) {
                pattern_names(c, out);
            }
        }
        _ => {}
    }
}

fn member_visibility(node: Node<'_>, name: &str, src: &[u8]) -> String {
    if name.starts_with('#') {
        return "private".into();
    }
    children(node)
        .find(|c| c.kind() == "accessibility_modifier")
        .map(|m| String::from_utf8_lossy(&src[m.byte_range()]).into_owned())
        .unwrap_or_else(|| "public".into())
}

fn has_ancestor_kind(node: Node<'_>, outer: Node<'_>, kind: &str) -> bool {
    let mut n = Some(node);
    while let Some(x) = n {
        if x.kind() == kind {
            return true;
        }
        if x == outer {
            break;
        }
        n = x.parent();
    }
    false
}

/// The first sentence of the `/** … */` comment just before `node`.
fn jsdoc(node: Node<'_>, src: &[u8]) -> Option<String> {
    let c = node.prev_sibling().filter(|c| c.kind() == "comment")?;
    if c.end_position().row + 1 < node.start_position().row {
        return None;
    }
    let text = String::from_utf8_lossy(&src[c.byte_range()]);
    let body = text.strip_prefix("/**")?.strip_suffix("*/")?;
    let plain = collapse(
        &body
            .lines()
            .map(|l| l.trim().trim_start_matches('*').trim())
            .take_while(|l| !l.starts_with('@'))
            .collect::<Vec<_>>()
            .join(" "),
    );
    crate::lang::text::first_sentence(&plain)
}

pub(super) fn string_text(n: Node<'_>, src: &[u8]) -> String {
    named(n)
        .filter(|c| c.kind() == "string_fragment")
        .map(|c| String::from_utf8_lossy(&src[c.byte_range()]).into_owned())
        .collect()
}

fn blank() -> Symbol {
    Symbol {
        id: SymbolId(String::new()),
        kind: SymbolKind::Field,
        name: String::new(),
        qualified_name: String::new(),
        signature: String::new(),
        doc: None,
        parent: None,
        start_line: 0,
        end_line: 0,
        name_line: 0,
        annotations: Vec::new(),
        visibility: String::new(),
        is_static: false,
        body_hash: String::new(),
        params: Vec::new(),
        value_type: String::new(),
        has_body: false,
        body_line: 0,
        supertypes: Vec::new(),
        literals: Vec::new(),
        throws: Vec::new(),
        thrown: Vec::new(),
    }
}

fn line(n: Node<'_>) -> u32 {
    n.start_position().row as u32 + 1
}

pub(super) fn children<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.child_count()).filter_map(move |i| n.child(i))
}

pub(super) fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
