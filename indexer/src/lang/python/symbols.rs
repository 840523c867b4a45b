//! Python declarations from one pre-order walk: the module, classes, functions and methods (at
//! any depth), and the names a module or class body assigns (its constants and attributes).
//! Assignments inside functions are locals, not symbols. A symbol's scope is the innermost
//! enclosing `def` or `class`, whatever `if`/`try`/`with` blocks lie between.

use super::fields::Field;
use crate::chunk;
use crate::lang::preorder::Preorder;
use crate::lang::text::{body_hash, collapse, join};
use crate::model::{Literal, Param, Symbol, SymbolId, SymbolKind};
use std::collections::HashSet;
use tree_sitter::Node;

/// The module's symbols (the module first, then source order) and its imports, absolute.
pub(super) struct Extracted {
    pub symbols: Vec<Symbol>,
    pub imports: Vec<String>,
}

/// Longest assigned value kept in a field's signature.
const MAX_VALUE_IN_SIGNATURE: usize = 80;

/// `module` is the file's dotted name; `is_package` when the file is a package's `__init__`.
pub(super) fn extract(
    tree: &Preorder<'_>,
    root: Node<'_>,
    src: &[u8],
    module: &str,
    is_package: bool,
) -> Extracted {
    let mut x = Extractor {
        src,
        module,
        is_package,
        symbols: Vec::new(),
        imports: Vec::new(),
        ids: HashSet::new(),
        scopes: Vec::new(),
        ancestors: Vec::new(),
    };
    x.module_symbol(root);
    tree.walk(|node, depth, _| {
        while x.scopes.last().is_some_and(|s| s.depth >= depth) {
            x.scopes.pop();
        }
        x.ancestors.truncate(depth);
        let inside = x.visit(node, depth);
        x.ancestors.push(node);
        inside
    });
    Extracted {
        symbols: x.symbols,
        imports: x.imports,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum ScopeKind {
    Class,
    Function,
}

struct Scope {
    depth: usize,
    kind: ScopeKind,
    symbol: usize,
}

struct Extractor<'s, 't> {
    src: &'s [u8],
    module: &'s str,
    is_package: bool,
    symbols: Vec<Symbol>,
    imports: Vec<String>,
    ids: HashSet<SymbolId>,
    scopes: Vec<Scope>,
    /// The nodes above the one visited, root first: `Node::parent` searches down from the root
    /// each time.
    ancestors: Vec<Node<'t>>,
}

impl<'s, 't> Extractor<'s, 't> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    /// Index of the innermost enclosing symbol (the module when none).
    fn owner(&self) -> usize {
        self.scopes.last().map_or(0, |s| s.symbol)
    }

    fn in_function(&self) -> bool {
        self.scopes
            .last()
            .is_some_and(|s| s.kind == ScopeKind::Function)
    }

    /// Whether the assignment being visited is a statement of its own (or the inner part of
    /// `a = b = v`).
    fn is_statement(&self, node: Node<'_>) -> bool {
        let mut n = node;
        for &p in self.ancestors.iter().rev() {
            match p.kind() {
                "expression_statement" => return true,
                "assignment" if p.field("right").is_some_and(|r| r == n) => n = p,
                _ => return false,
            }
        }
        false
    }

    /// Whether the string being visited is the docstring of its block or module.
    fn is_docstring(&self) -> bool {
        let [.., body, stmt] = self.ancestors.as_slice() else {
            return false;
        };
        if stmt.kind() != "expression_statement" || stmt.named_child_count() != 1 {
            return false;
        }
        matches!(body.kind(), "block" | "module")
            && children(*body)
                .find(|c| c.is_named() && c.kind() != "comment")
                .is_some_and(|first| first == *stmt)
    }

    fn visit(&mut self, node: Node<'_>, depth: usize) -> bool {
        match node.kind() {
            "class_definition" => self.definition(node, depth, ScopeKind::Class),
            "function_definition" => self.definition(node, depth, ScopeKind::Function),
            "assignment" if !self.in_function() && self.is_statement(node) => self.assignment(node),
            "import_statement" | "import_from_statement" => self.import(node),
            "raise_statement" => self.raise(node),
            "string" => {
                self.literal(node);
                return false;
            }
            _ => {}
        }
        true
    }

    fn module_symbol(&mut self, root: Node<'_>) {
        let (_, end_line) = chunk::node_lines(root);
        let name = self.module.rsplit('.').next().unwrap_or(self.module);
        self.push(Symbol {
            kind: SymbolKind::Module,
            name: name.to_string(),
            qualified_name: self.module.to_string(),
            signature: format!("module {}", self.module),
            doc: docstring(root, self.src),
            parent: None,
            start_line: 1,
            end_line: end_line.max(1),
            name_line: 1,
            visibility: visibility(name),
            is_static: true,
            body_hash: body_hash(&self.src[root.byte_range()]),
            ..blank()
        });
    }

    fn definition(&mut self, node: Node<'_>, depth: usize, kind: ScopeKind) {
        let Some(name_node) = node.field("name") else {
            return;
        };
        let name = self.text(name_node);
        let owner = self.owner();
        let in_class = self
            .scopes
            .last()
            .is_some_and(|s| s.kind == ScopeKind::Class);
        // A decorated definition's range starts at its first decorator.
        let outer = self
            .ancestors
            .last()
            .copied()
            .filter(|p| p.kind() == "decorated_definition")
            .unwrap_or(node);
        let decorators: Vec<String> = children(outer)
            .filter(|c| c.kind() == "decorator")
            .map(|d| collapse(&self.text(d)))
            .collect();
        let body = node.field("body");
        let symbol_kind = match kind {
            ScopeKind::Class => SymbolKind::Class,
            ScopeKind::Function if in_class => SymbolKind::Method,
            ScopeKind::Function => SymbolKind::Function,
        };
        let is_static = !in_class
            || decorators
                .iter()
                .any(|d| d == "@staticmethod" || d == "@classmethod");
        let (start_line, _) = chunk::node_lines(outer);
        let (_, end_line) = chunk::node_lines(last_code(node));
        let qualified_name = join(&self.symbols[owner].qualified_name, &name);
        let symbol = Symbol {
            kind: symbol_kind,
            signature: self.head(node, body),
            doc: body.and_then(|b| docstring(b, self.src)),
            parent: Some(self.symbols[owner].id.clone()),
            start_line,
            end_line,
            name_line: name_node.start_position().row as u32 + 1,
            annotations: decorators,
            visibility: visibility(&name),
            is_static,
            body_hash: body_hash(&self.src[outer.byte_range()]),
            params: node
                .field("parameters")
                .map(|p| self.params(p))
                .unwrap_or_default(),
            value_type: node
                .field("return_type")
                .map(|t| collapse(&self.text(t)))
                .unwrap_or_default(),
            has_body: body.is_some_and(|b| self.has_code(b)),
            body_line: body.map_or(0, |b| b.start_position().row as u32 + 1),
            supertypes: node
                .field("superclasses")
                .map(|s| self.supertypes(s))
                .unwrap_or_default(),
            name,
            qualified_name,
            ..blank()
        };
        let index = self.push(symbol);
        self.scopes.push(Scope {
            depth,
            kind,
            symbol: index,
        });
    }

    /// `def f(a, b) -> int` or `class A(B)`: the head up to its colon.
    fn head(&self, node: Node<'_>, body: Option<Node<'_>>) -> String {
        let body_start = body.map_or(node.end_byte(), |b| b.start_byte());
        let end = children(node)
            .filter(|c| c.kind() == ":" && c.start_byte() < body_start)
            .last()
            .map_or(body_start, |c| c.start_byte());
        collapse(&String::from_utf8_lossy(&self.src[node.start_byte()..end]))
    }

    fn params(&self, params: Node<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        for p in children(params).filter(|c| c.is_named()) {
            let (name, ty) = match p.kind() {
                "identifier" => (Some(p), None),
                "typed_parameter" => (
                    children(p).find(|c| c.is_named() && c.kind() != "type"),
                    p.field("type"),
                ),
                "default_parameter" | "typed_default_parameter" => {
                    (p.field("name"), p.field("type"))
                }
                "list_splat_pattern" | "dictionary_splat_pattern" => (Some(p), None),
                _ => (None, None),
            };
            if let Some(name) = name {
                out.push(Param {
                    ty: ty.map(|t| collapse(&self.text(t))).unwrap_or_default(),
                    name: self.text(name),
                });
            }
        }
        out
    }

    fn supertypes(&self, args: Node<'_>) -> Vec<String> {
        children(args)
            .filter(|c| matches!(c.kind(), "identifier" | "attribute" | "subscript"))
            .map(|c| {
                let t = self.text(c);
                let base = t.split('[').next().unwrap_or(&t);
                base.rsplit('.').next().unwrap_or(base).trim().to_string()
            })
            .collect()
    }

    /// A body holds code when it has a statement besides its docstring, `pass` and `...`.
    fn has_code(&self, body: Node<'_>) -> bool {
        children(body)
            .filter(|c| c.is_named())
            .any(|c| match c.kind() {
                "pass_statement" | "comment" => false,
                "expression_statement" => !children(c)
                    .filter(|e| e.is_named())
                    .all(|e| matches!(e.kind(), "string" | "ellipsis")),
                _ => true,
            })
    }

    /// `NAME = v`, `NAME: T = v`, `a, b = v` in a module or class body: one field per name.
    fn assignment(&mut self, node: Node<'_>) {
        let Some(left) = node.field("left") else {
            return;
        };
        let owner = self.owner();
        let ty = node
            .field("type")
            .map(|t| collapse(&self.text(t)))
            .unwrap_or_default();
        let value = node
            .field("right")
            .filter(|r| r.kind() != "assignment")
            .map(|r| collapse(&self.text(r)));
        let mut names = Vec::new();
        target_names(left, &mut names);
        let (start_line, end_line) = chunk::node_lines(node);
        for name_node in names {
            let name = self.text(name_node);
            let mut signature = name.clone();
            if !ty.is_empty() {
                signature.push_str(&format!(": {ty}"));
            }
            if let Some(v) = value
                .as_deref()
                .filter(|v| v.len() <= MAX_VALUE_IN_SIGNATURE)
            {
                signature.push_str(&format!(" = {v}"));
            }
            let symbol = Symbol {
                kind: SymbolKind::Field,
                qualified_name: join(&self.symbols[owner].qualified_name, &name),
                signature,
                parent: Some(self.symbols[owner].id.clone()),
                start_line,
                end_line,
                name_line: name_node.start_position().row as u32 + 1,
                visibility: visibility(&name),
                // Module constants and class attributes both belong to their namespace.
                is_static: true,
                body_hash: body_hash(&self.src[node.byte_range()]),
                value_type: ty.clone(),
                name,
                ..blank()
            };
            self.push(symbol);
        }
    }

    /// `import a.b as c`, `from .x import y`: absolute dotted names, relative ones resolved
    /// against this module's package.
    fn import(&mut self, node: Node<'_>) {
        let from = node.field("module_name").map(|m| self.absolute(m));
        for n in children(node) {
            let target = match n.kind() {
                "dotted_name" if Some(n) != node.field("module_name") => n,
                "aliased_import" => match n.field("name") {
                    Some(t) => t,
                    None => continue,
                },
                "wildcard_import" => n,
                _ => continue,
            };
            let name = self.text(target);
            let full = match &from {
                Some(m) if m.is_empty() => name,
                Some(m) => format!("{m}.{name}"),
                None => name,
            };
            if !self.imports.contains(&full) {
                self.imports.push(full);
            }
        }
    }

    /// A module name as written in `from … import`, made absolute (`..x` from `a.b.c` is `a.x`).
    fn absolute(&self, m: Node<'_>) -> String {
        let written = self.text(m);
        let dots = written.chars().take_while(|&c| c == '.').count();
        if dots == 0 {
            return written;
        }
        let rest = written[dots..].trim();
        let mut base: Vec<&str> = self
            .package()
            .split('.')
            .filter(|s| !s.is_empty())
            .collect();
        for _ in 1..dots {
            base.pop();
        }
        if !rest.is_empty() {
            base.push(rest);
        }
        base.join(".")
    }

    /// The package this module is in (`a.b` for `a/b/c.py` and for `a/b/__init__.py`'s own
    /// package `a.b`).
    fn package(&self) -> &str {
        if self.is_package {
            self.module
        } else {
            self.module.rsplit_once('.').map_or("", |(p, _)| p)
        }
    }

    fn raise(&mut self, node: Node<'_>) {
        let Some(e) = children(node).find(|c| c.is_named()) else {
            return;
        };
        let callee = if e.kind() == "call" {
            e.field("function")
        } else {
            Some(e)
        };
        let Some(callee) = callee.filter(|c| matches!(c.kind(), "identifier" | "attribute")) else {
            return;
        };
        let t = self.text(callee);
        let simple = t.rsplit('.').next().unwrap_or(&t).to_string();
        let owner = self.owner();
        let thrown = &mut self.symbols[owner].thrown;
        if !thrown.contains(&simple) {
            thrown.push(simple);
        }
    }

    /// A string literal's content, for the innermost symbol; docstrings are docs, not literals.
    fn literal(&mut self, node: Node<'_>) {
        if self.is_docstring() {
            return;
        }
        // An f-string's expressions are placeholders, as `{}` in a format string: the message
        // `order 7 is not awaiting payment` begins with `order {} is not awaiting payment`.
        let text: String = children(node)
            .filter_map(|c| match c.kind() {
                "string_content" => Some(self.text(c)),
                "interpolation" => Some("{}".to_string()),
                _ => None,
            })
            .collect();
        let owner = self.owner();
        self.symbols[owner].literals.push(Literal {
            line: node.start_position().row as u32 + 1,
            text,
        });
    }

    fn push(&mut self, mut s: Symbol) -> usize {
        let base = format!("py:{}", s.qualified_name);
        let mut id = SymbolId(base.clone());
        if self.ids.contains(&id) {
            // Redefinitions (`try: def f… except: def f…`) keep both, told apart by a suffix.
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

fn children<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.child_count()).filter_map(move |i| n.child(i))
}

/// The last token of a node's code: comments after a block's last statement are not part of
/// the definition, though tree-sitter's block takes them in.
fn last_code(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    while let Some(last) = (0..n.child_count())
        .rev()
        .filter_map(|i| n.child(i))
        .find(|c| c.kind() != "comment")
    {
        n = last;
    }
    n
}

/// The names an assignment target binds: `a`, `a, b`, `(a, [b, c])`; not `x.y` or `x[i]`.
fn target_names<'t>(target: Node<'t>, out: &mut Vec<Node<'t>>) {
    match target.kind() {
        "identifier" => out.push(target),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "expression_list"
        | "tuple"
        | "list"
        | "parenthesized_expression" => {
            for c in children(target).filter(|c| c.is_named()) {
                target_names(c, out);
            }
        }
        "list_splat_pattern" => {
            for c in children(target).filter(|c| c.is_named()) {
                target_names(c, out);
            }
        }
        _ => {}
    }
}

/// The first sentence of the docstring opening `body` (a block or the module).
fn docstring(body: Node<'_>, src: &[u8]) -> Option<String> {
    let first = children(body).find(|c| c.is_named() && c.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let s = children(first).find(|c| c.kind() == "string")?;
    let text: String = children(s)
        .filter(|c| c.kind() == "string_content")
        .map(|c| String::from_utf8_lossy(&src[c.byte_range()]).into_owned())
        .collect();
    let plain = collapse(&text);
    crate::lang::text::first_sentence(&plain)
}

fn visibility(name: &str) -> String {
    let dunder = name.starts_with("__") && name.ends_with("__");
    if name.starts_with('_') && !dunder {
        "private".into()
    } else {
        "public".into()
    }
}
