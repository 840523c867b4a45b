//! Kotlin declarations from one walk: classes, interfaces, enum classes and their entries,
//! objects and companion objects, functions (top level, members, extensions), properties
//! (`val`/`var`, constructor properties too), secondary constructors and type aliases.

use crate::chunk;
use crate::lang::text::{body_hash, collapse};
use crate::model::{Symbol, SymbolId, SymbolKind};
use std::collections::HashSet;
use tree_sitter::Node;

pub(super) struct Extracted {
    pub package: Option<String>,
    pub symbols: Vec<Symbol>,
    pub imports: Vec<String>,
}

pub(super) fn extract(root: Node<'_>, src: &[u8]) -> Extracted {
    let mut x = Extractor {
        src,
        package: String::new(),
        symbols: Vec::new(),
        imports: Vec::new(),
        ids: HashSet::new(),
    };
    let mut package_symbol = None;
    for n in named(root) {
        match n.kind() {
            "package_header" => {
                if let Some(q) = named(n).next() {
                    x.package = x.text(q);
                    let name = x.package.clone();
                    package_symbol = Some(x.push(n, Some(q), &name, SymbolKind::Package, None, ""));
                }
            }
            "import" => {
                if let Some(q) = named(n).find(|c| c.kind().ends_with("identifier")) {
                    let path = x.text(q);
                    x.imports.push(path);
                }
            }
            _ => {}
        }
    }
    // Declarations, outermost first: (node, parent symbol index, qualified prefix, in a type).
    let mut todo: Vec<(Node<'_>, Option<usize>, String, bool)> = named(root)
        .map(|n| (n, package_symbol, x.package.clone(), false))
        .collect();
    todo.reverse();
    while let Some((n, parent, prefix, in_type)) = todo.pop() {
        let found = x.declaration(n, parent, &prefix, in_type);
        let (scope, prefix, in_type, body) = match found {
            Some((i, body)) => {
                let q = x.symbols[i].qualified_name.clone();
                let is_type = x.symbols[i].kind.is_type();
                (Some(i), q, is_type, body)
            }
            None => (parent, prefix, in_type, Some(n)),
        };
        // Function bodies hold locals, not declarations worth a symbol.
        if found.is_some_and(|(i, _)| x.symbols[i].kind.is_callable()) {
            continue;
        }
        if let Some(b) = body {
            let mut kids: Vec<_> = named(b)
                .map(|c| (c, scope, prefix.clone(), in_type))
                .collect();
            kids.reverse();
            todo.extend(kids);
        }
    }
    x.symbols.sort_by_key(|s| (s.start_line, s.name_line));
    Extracted {
        package: (!x.package.is_empty()).then_some(x.package),
        symbols: x.symbols,
        imports: x.imports,
    }
}

struct Extractor<'s> {
    src: &'s [u8],
    package: String,
    symbols: Vec<Symbol>,
    imports: Vec<String>,
    ids: HashSet<SymbolId>,
}

impl Extractor<'_> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    /// The symbol `n` declares, if any, and the node its members are under.
    fn declaration<'t>(
        &mut self,
        n: Node<'t>,
        parent: Option<usize>,
        prefix: &str,
        in_type: bool,
    ) -> Option<(usize, Option<Node<'t>>)> {
        let (kind, name) = match n.kind() {
            "class_declaration" => {
                let kind = if has_token(n, "interface") {
                    SymbolKind::Interface
                } else if self.modifiers(n).iter().any(|m| m == "enum") {
                    SymbolKind::Enum
                } else if self.modifiers(n).iter().any(|m| m == "annotation") {
                    SymbolKind::Annotation
                } else {
                    SymbolKind::Class
                };
                (kind, n.child_by_field_name("name")?)
            }
            "object_declaration" => (SymbolKind::Class, n.child_by_field_name("name")?),
            "companion_object" => {
                let name = n.child_by_field_name("name");
                let i = self.push(n, name, "Companion", SymbolKind::Class, parent, prefix);
                return Some((i, body_of(n)));
            }
            "function_declaration" => {
                let kind = if in_type {
                    SymbolKind::Method
                } else {
                    SymbolKind::Function
                };
                (kind, n.child_by_field_name("name")?)
            }
            "secondary_constructor" => {
                let owner = parent.map(|p| self.symbols[p].name.clone())?;
                let i = self.push(n, None, &owner, SymbolKind::Constructor, parent, prefix);
                return Some((i, None));
            }
            "property_declaration" => {
                let v = named(n).find(|c| c.kind() == "variable_declaration")?;
                (
                    SymbolKind::Field,
                    named(v).find(|c| c.kind() == "identifier")?,
                )
            }
            "enum_entry" => (
                SymbolKind::Constant,
                named(n).find(|c| c.kind() == "identifier")?,
            ),
            "type_alias" => (SymbolKind::Class, n.child_by_field_name("type")?),
            _ => return None,
        };
        let simple = self.text(name);
        let i = self.push(n, Some(name), &simple, kind, parent, prefix);
        if kind.is_type() {
            self.constructor_properties(n, i);
        }
        let body = if kind.is_type() { body_of(n) } else { None };
        Some((i, body))
    }

    /// `class A(val id: Long, var name: String)`: the `val`/`var` parameters are properties.
    fn constructor_properties(&mut self, class: Node<'_>, owner: usize) {
        let Some(ctor) = named(class).find(|c| c.kind() == "primary_constructor") else {
            return;
        };
        let prefix = self.symbols[owner].qualified_name.clone();
        let mut stack = vec![ctor];
        while let Some(c) = stack.pop() {
            if c.kind() == "class_parameter" {
                let is_property = has_token(c, "val") || has_token(c, "var");
                if let Some(name) = named(c).find(|k| k.kind() == "identifier")
                    && is_property
                {
                    let simple = self.text(name);
                    self.push(
                        c,
                        Some(name),
                        &simple,
                        SymbolKind::Field,
                        Some(owner),
                        &prefix,
                    );
                }
            } else {
                stack.extend(named(c).collect::<Vec<_>>().into_iter().rev());
            }
        }
    }

    fn modifiers(&self, n: Node<'_>) -> Vec<String> {
        named(n)
            .filter(|c| c.kind() == "modifiers")
            .flat_map(|m| named(m).collect::<Vec<_>>())
            .filter(|m| m.kind() != "annotation")
            .map(|m| self.text(m))
            .collect()
    }

    fn annotations(&self, n: Node<'_>) -> Vec<String> {
        named(n)
            .filter(|c| c.kind() == "modifiers")
            .flat_map(|m| named(m).collect::<Vec<_>>())
            .filter(|m| m.kind() == "annotation")
            .map(|m| collapse(&self.text(m)))
            .collect()
    }

    fn push(
        &mut self,
        n: Node<'_>,
        name: Option<Node<'_>>,
        simple: &str,
        kind: SymbolKind,
        parent: Option<usize>,
        prefix: &str,
    ) -> usize {
        let qualified = if prefix.is_empty() {
            simple.to_string()
        } else {
            format!("{prefix}.{simple}")
        };
        let base = format!("kt:{qualified}");
        let mut id = SymbolId(base.clone());
        if self.ids.contains(&id) {
            id = (2..)
                .map(|k| SymbolId(format!("{base}~{k}")))
                .find(|i| !self.ids.contains(i))
                .expect("unbounded range");
        }
        self.ids.insert(id.clone());
        let (start_line, end_line) = chunk::node_lines(n);
        let mods = self.modifiers(n);
        let visibility = ["private", "protected", "internal"]
            .into_iter()
            .find(|v| mods.iter().any(|m| m == v))
            .unwrap_or("public");
        let body = named(n).find(|c| matches!(c.kind(), "function_body" | "class_body" | "block"));
        let head_end = body.map_or(n.end_byte(), |b| b.start_byte());
        let signature = collapse(&String::from_utf8_lossy(
            &self.src[n.start_byte()..head_end],
        ));
        self.symbols.push(Symbol {
            id,
            kind,
            name: simple.to_string(),
            qualified_name: qualified,
            signature,
            doc: kdoc(n, self.src),
            parent: parent.map(|p| self.symbols[p].id.clone()),
            start_line,
            end_line,
            name_line: name.unwrap_or(n).start_position().row as u32 + 1,
            annotations: self.annotations(n),
            visibility: visibility.to_string(),
            is_static: parent.is_none_or(|p| self.symbols[p].kind == SymbolKind::Package),
            body_hash: body_hash(&self.src[n.byte_range()]),
            params: Vec::new(),
            value_type: String::new(),
            has_body: body.is_some(),
            body_line: body.map_or(0, |b| b.start_position().row as u32 + 1),
            supertypes: Vec::new(),
            literals: Vec::new(),
            throws: Vec::new(),
            thrown: Vec::new(),
        });
        self.symbols.len() - 1
    }
}

fn body_of(n: Node<'_>) -> Option<Node<'_>> {
    named(n).find(|c| matches!(c.kind(), "class_body" | "enum_class_body"))
}

fn has_token(n: Node<'_>, token: &str) -> bool {
    (0..n.child_count())
        .filter_map(|i| n.child(i))
        .any(|c| !c.is_named() && c.kind() == token)
}

/// The first sentence of the `/** … */` comment right above a declaration.
fn kdoc(n: Node<'_>, src: &[u8]) -> Option<String> {
    let prev = n.prev_sibling()?;
    if !prev.kind().contains("comment") {
        return None;
    }
    let text = String::from_utf8_lossy(&src[prev.byte_range()]).into_owned();
    let body = text.strip_prefix("/**")?.trim_end_matches("*/");
    let plain: Vec<&str> = body
        .lines()
        .map(|l| l.trim().trim_start_matches('*').trim())
        .take_while(|l| !l.starts_with('@'))
        .collect();
    let plain = collapse(&plain.join(" "));
    crate::lang::text::first_sentence(&plain)
}

fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
