//! Go declarations: the package clause, functions, methods (under their receiver's type),
//! types (structs and named types as classes, interfaces with their methods), struct fields,
//! and package-level constants and variables. Doc comments are the `//` lines just above.

use crate::chunk;
use crate::lang::text::{body_hash, collapse};
use crate::model::{Param, Symbol, SymbolId, SymbolKind};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

pub(super) struct Extracted {
    pub symbols: Vec<Symbol>,
    pub imports: Vec<String>,
}

pub(super) fn extract(root: Node<'_>, src: &[u8], package: &str) -> Extracted {
    let mut x = Extractor {
        src,
        package,
        symbols: Vec::new(),
        imports: Vec::new(),
        ids: HashSet::new(),
        types: HashMap::new(),
    };
    // Types first, so a method declared above its type still finds it.
    for n in named(root) {
        if n.kind() == "type_declaration" {
            x.type_declaration(n);
        }
    }
    for n in named(root) {
        match n.kind() {
            "package_clause" => x.package_clause(n),
            "import_declaration" => x.imports(n),
            "function_declaration" => x.function(n, None),
            "method_declaration" => {
                let receiver = receiver_type(n, src);
                x.function(n, receiver)
            }
            "const_declaration" | "var_declaration" => x.values(n),
            _ => {}
        }
    }
    x.symbols.sort_by_key(|s| (s.start_line, s.name_line));
    Extracted {
        symbols: x.symbols,
        imports: x.imports,
    }
}

struct Extractor<'s> {
    src: &'s [u8],
    package: &'s str,
    symbols: Vec<Symbol>,
    imports: Vec<String>,
    ids: HashSet<SymbolId>,
    /// Type name → its symbol's id.
    types: HashMap<String, SymbolId>,
}

impl Extractor<'_> {
    fn text(&self, n: Node<'_>) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn package_clause(&mut self, n: Node<'_>) {
        let Some(name) = named(n).find(|c| c.kind() == "package_identifier") else {
            return;
        };
        let simple = self.text(name);
        self.push(Decl {
            node: n,
            name,
            kind: SymbolKind::Package,
            simple,
            qualified: self.package.to_string(),
            parent: None,
            signature: collapse(&self.text(n)),
        });
    }

    fn imports(&mut self, n: Node<'_>) {
        let mut stack = vec![n];
        while let Some(c) = stack.pop() {
            if c.kind() == "import_spec" {
                if let Some(p) = c.child_by_field_name("path") {
                    let path = self.text(p).trim_matches(['"', '`']).to_string();
                    self.imports.push(path);
                }
            } else {
                stack.extend(named(c).collect::<Vec<_>>().into_iter().rev());
            }
        }
    }

    fn type_declaration(&mut self, n: Node<'_>) {
        let specs: Vec<Node<'_>> = named(n)
            .filter(|c| matches!(c.kind(), "type_spec" | "type_alias"))
            .collect();
        let single = specs.len() == 1;
        for spec in specs {
            let Some(name) = spec.child_by_field_name("name") else {
                continue;
            };
            let ty = spec.child_by_field_name("type");
            let kind = match ty.map(|t| t.kind()) {
                Some("interface_type") => SymbolKind::Interface,
                _ => SymbolKind::Class,
            };
            let simple = self.text(name);
            let qualified = format!("{}.{simple}", self.package);
            let id = self.push(Decl {
                node: if single { n } else { spec },
                name,
                kind,
                simple: simple.clone(),
                qualified: qualified.clone(),
                parent: self.package_id(),
                signature: head(&self.text(spec)),
            });
            self.types.insert(simple, id.clone());
            if let Some(t) = ty {
                self.members(t, &qualified, &id);
            }
        }
    }

    /// Struct fields and interface methods.
    fn members(&mut self, ty: Node<'_>, owner: &str, owner_id: &SymbolId) {
        let mut stack = vec![ty];
        while let Some(c) = stack.pop() {
            match c.kind() {
                "field_declaration" => {
                    let names: Vec<Node<'_>> = (0..c.child_count())
                        .filter_map(|i| c.child(i))
                        .filter(|k| c.field_name_for_child(k_index(c, *k)) == Some("name"))
                        .collect();
                    for name in names {
                        let simple = self.text(name);
                        self.push(Decl {
                            node: c,
                            name,
                            kind: SymbolKind::Field,
                            qualified: format!("{owner}.{simple}"),
                            simple,
                            parent: Some(owner_id.clone()),
                            signature: collapse(&self.text(c)),
                        });
                    }
                }
                "method_elem" => {
                    if let Some(name) = c.child_by_field_name("name") {
                        let simple = self.text(name);
                        self.push(Decl {
                            node: c,
                            name,
                            kind: SymbolKind::Method,
                            qualified: format!("{owner}.{simple}"),
                            simple,
                            parent: Some(owner_id.clone()),
                            signature: collapse(&self.text(c)),
                        });
                    }
                }
                // Nested struct and interface types are types of their own fields.
                "struct_type" | "interface_type" if c != ty => {}
                _ => stack.extend(named(c).collect::<Vec<_>>().into_iter().rev()),
            }
        }
    }

    fn function(&mut self, n: Node<'_>, receiver: Option<String>) {
        let Some(name) = n.child_by_field_name("name") else {
            return;
        };
        let simple = self.text(name);
        let (kind, qualified, parent) = match &receiver {
            Some(r) => (
                SymbolKind::Method,
                format!("{}.{r}.{simple}", self.package),
                self.types.get(r).cloned().or_else(|| self.package_id()),
            ),
            None => (
                SymbolKind::Function,
                format!("{}.{simple}", self.package),
                self.package_id(),
            ),
        };
        let body = n.child_by_field_name("body");
        let end = body.map_or(n.end_byte(), |b| b.start_byte());
        let signature = collapse(&String::from_utf8_lossy(&self.src[n.start_byte()..end]));
        let params = n
            .child_by_field_name("parameters")
            .map(|p| self.params(p))
            .unwrap_or_default();
        let value_type = n
            .child_by_field_name("result")
            .map(|r| collapse(&self.text(r)))
            .unwrap_or_default();
        let i = self.push(Decl {
            node: n,
            name,
            kind,
            simple,
            qualified,
            parent,
            signature,
        });
        if let Some(s) = self.symbols.iter_mut().find(|s| s.id == i) {
            s.params = params;
            s.value_type = value_type;
            s.has_body = body.is_some_and(|b| b.named_child_count() > 0);
            s.body_line = body.map_or(0, |b| b.start_position().row as u32 + 1);
        }
    }

    fn params(&self, list: Node<'_>) -> Vec<Param> {
        let mut out = Vec::new();
        for p in named(list).filter(|p| p.kind().ends_with("parameter_declaration")) {
            let ty = p
                .child_by_field_name("type")
                .map(|t| collapse(&self.text(t)))
                .unwrap_or_default();
            let names: Vec<String> = named(p)
                .filter(|c| c.kind() == "identifier")
                .map(|c| self.text(c))
                .collect();
            if names.is_empty() {
                out.push(Param {
                    ty: ty.clone(),
                    name: String::new(),
                });
            }
            for name in names {
                out.push(Param {
                    ty: ty.clone(),
                    name,
                });
            }
        }
        out
    }

    /// Package-level `const` and `var` names.
    fn values(&mut self, n: Node<'_>) {
        let mut stack = vec![n];
        while let Some(c) = stack.pop() {
            if matches!(c.kind(), "const_spec" | "var_spec") {
                let names: Vec<Node<'_>> = (0..c.child_count())
                    .filter_map(|i| c.child(i))
                    .filter(|k| k.kind() == "identifier")
                    .filter(|k| c.field_name_for_child(k_index(c, *k)) == Some("name"))
                    .collect();
                for name in names {
                    let simple = self.text(name);
                    if simple == "_" {
                        continue; // the blank identifier declares nothing
                    }
                    self.push(Decl {
                        node: c,
                        name,
                        kind: SymbolKind::Field,
                        qualified: format!("{}.{simple}", self.package),
                        simple,
                        parent: self.package_id(),
                        signature: head(&self.text(c)),
                    });
                }
            } else {
                stack.extend(named(c).collect::<Vec<_>>().into_iter().rev());
            }
        }
    }

    fn package_id(&self) -> Option<SymbolId> {
        self.symbols
            .iter()
            .find(|s| s.kind == SymbolKind::Package)
            .map(|s| s.id.clone())
    }

    fn push(&mut self, d: Decl<'_>) -> SymbolId {
        let base = format!("go:{}", d.qualified);
        let mut id = SymbolId(base.clone());
        if self.ids.contains(&id) {
            id = (2..)
                .map(|k| SymbolId(format!("{base}~{k}")))
                .find(|i| !self.ids.contains(i))
                .expect("unbounded range");
        }
        self.ids.insert(id.clone());
        let (start_line, end_line) = chunk::node_lines(d.node);
        let exported = d.simple.starts_with(|c: char| c.is_uppercase());
        self.symbols.push(Symbol {
            id: id.clone(),
            kind: d.kind,
            name: d.simple,
            qualified_name: d.qualified,
            signature: d.signature,
            doc: doc_comment(d.node, self.src),
            parent: d.parent,
            start_line,
            end_line,
            name_line: d.name.start_position().row as u32 + 1,
            annotations: Vec::new(),
            visibility: if exported { "public" } else { "" }.to_string(),
            is_static: d.kind != SymbolKind::Method,
            body_hash: body_hash(&self.src[d.node.byte_range()]),
            params: Vec::new(),
            value_type: String::new(),
            has_body: false,
            body_line: 0,
            supertypes: Vec::new(),
            literals: Vec::new(),
            throws: Vec::new(),
            thrown: Vec::new(),
        });
        id
    }
}

struct Decl<'t> {
    node: Node<'t>,
    name: Node<'t>,
    kind: SymbolKind,
    simple: String,
    qualified: String,
    parent: Option<SymbolId>,
    signature: String,
}

/// The index of `child` among `parent`'s children (for its field name).
fn k_index(parent: Node<'_>, child: Node<'_>) -> u32 {
    (0..parent.child_count())
        .find(|&i| parent.child(i) == Some(child))
        .unwrap_or(0)
}

/// `func (s *Service[T]) Pay()` → `Service`.
fn receiver_type(n: Node<'_>, src: &[u8]) -> Option<String> {
    let list = n.child_by_field_name("receiver")?;
    let p = named(list).next()?;
    let ty = p.child_by_field_name("type")?;
    let t = String::from_utf8_lossy(&src[ty.byte_range()]).into_owned();
    let t = t.trim_start_matches('*');
    let t = t.split('[').next().unwrap_or(t).trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The first sentence of the `//` comment lines right above a declaration.
fn doc_comment(n: Node<'_>, src: &[u8]) -> Option<String> {
    let mut lines = Vec::new();
    let mut at = n;
    while let Some(prev) = at.prev_sibling() {
        let adjacent = prev.end_position().row + 1 >= at.start_position().row;
        if prev.kind() != "comment" || !adjacent {
            break;
        }
        let text = String::from_utf8_lossy(&src[prev.byte_range()]).into_owned();
        lines.push(text.trim_start_matches("//").trim().to_string());
        at = prev;
    }
    lines.reverse();
    let plain = lines.join(" ");
    crate::lang::text::first_sentence(&plain)
}

fn head(s: &str) -> String {
    let h = collapse(s.lines().next().unwrap_or(s));
    h.chars().take(120).collect()
}

fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
