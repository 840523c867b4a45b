//! Symbols from one walk of the parsed tree.
//!
//! Naming scheme (qualified names; ids add `java:` and `#member(params)`):
//! * types nest by dots: `pkg.Outer.Inner`;
//! * members: `pkg.Outer.member`, constructors carry the class name (`pkg.Outer.Outer`) and the id
//!   member `<init>`: `java:pkg.Outer#<init>(int,String)`; parameter types as written, generics
//!   and annotations dropped, varargs kept (`String...`), C-style array names folded (`int[]`);
//! * local classes: `<enclosing type>.<method>.<Local>` (`pkg.Outer.run.Helper`); declared in an
//!   initializer or a field's lambda: `<enclosing type>.<Local>`;
//! * anonymous classes follow javac's `Outer$1`: `<enclosing class>.<N>`, N counting anonymous
//!   classes (including enum constant bodies) per directly enclosing class, in source order. An
//!   anonymous class is a `Class` symbol named `N` whose signature is `new Runnable()`; an enum
//!   constant's body is numbered the same way but its members' parent is the constant.
//!
//! Parents: a type's members → the type; a top-level type → the package symbol; a local or
//! anonymous class → the enclosing method, field or (in initializers) type. Visibility and
//! `is_static` are the effective ones: interface and annotation members are public, their fields and
//! member types static, and so are enum constants and nested enums, records and interfaces.

use super::{calls, javadoc, language, signature};
use crate::chunk;
use crate::lang::preorder::Preorder;
use crate::model::{Literal, Param, Symbol, SymbolId, SymbolKind};
use std::collections::HashSet;
use std::sync::OnceLock;
use tree_sitter::Node;

/// The node kinds extraction distinguishes, by tree-sitter kind id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum K {
    Other,
    /// Nodes that never contain declarations: not descended into.
    Opaque,
    Package,
    Import,
    Class,
    Interface,
    Enum,
    Record,
    AnnotationType,
    Method,
    Constructor,
    CompactConstructor,
    AnnotationElement,
    Field,
    EnumConstant,
    ObjectCreation,
    ClassBody,
    Modifiers,
    Annotation,
    BlockComment,
    FormalParameter,
    SpreadParameter,
    StringLiteral,
    Throw,
}

fn kinds() -> &'static [K] {
    static TABLE: OnceLock<Vec<K>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let lang = language();
        (0..lang.node_kind_count() as u16)
            .map(|id| {
                if !lang.node_kind_is_named(id) {
                    return K::Other;
                }
                match lang.node_kind_for_id(id).unwrap_or_default() {
                    "package_declaration" => K::Package,
                    "import_declaration" => K::Import,
                    "class_declaration" => K::Class,
                    "interface_declaration" => K::Interface,
                    "enum_declaration" => K::Enum,
                    "record_declaration" => K::Record,
                    "annotation_type_declaration" => K::AnnotationType,
                    "method_declaration" => K::Method,
                    "constructor_declaration" => K::Constructor,
                    "compact_constructor_declaration" => K::CompactConstructor,
                    "annotation_type_element_declaration" => K::AnnotationElement,
                    "field_declaration" | "constant_declaration" => K::Field,
                    "enum_constant" => K::EnumConstant,
                    "object_creation_expression" => K::ObjectCreation,
                    "class_body" => K::ClassBody,
                    "modifiers" => K::Modifiers,
                    "annotation" | "marker_annotation" => K::Annotation,
                    "block_comment" => K::BlockComment,
                    "formal_parameter" => K::FormalParameter,
                    "spread_parameter" => K::SpreadParameter,
                    "string_literal" => K::StringLiteral,
                    "throw_statement" => K::Throw,
                    "line_comment" | "character_literal" | "formal_parameters"
                    | "type_parameters" | "type_arguments" | "throws" | "superclass"
                    | "super_interfaces" | "extends_interfaces" | "permits" | "identifier"
                    | "scoped_identifier" | "type_identifier" => K::Opaque,
                    _ => K::Other,
                }
            })
            .collect()
    })
}

pub(super) fn kind(n: Node<'_>) -> K {
    kinds()
        .get(n.kind_id() as usize)
        .copied()
        .unwrap_or(K::Other)
}

/// Package, imports and symbols (in source order) of a parsed file.
pub(super) fn extract(
    tree: &Preorder<'_>,
    src: &[u8],
) -> (Option<String>, Vec<String>, Vec<Symbol>) {
    let mut x = Extractor {
        src,
        package: None,
        imports: Vec::new(),
        symbols: Vec::new(),
        ids: HashSet::new(),
        scopes: vec![Scope::root()],
        pending: Vec::new(),
    };
    // The `/**` comment since the last non-comment sibling of the current node.
    let mut doc: Option<Node<'_>> = None;
    tree.walk(|node, depth, previous| {
        doc = match previous {
            None => None,
            Some(here) => match kind(here) {
                K::BlockComment if src[here.start_byte()..].starts_with(b"/**") => Some(here),
                _ if here.is_extra() => doc,
                _ => None,
            },
        };
        while x.scopes.len() > 1 && x.scopes.last().is_some_and(|s| s.depth >= depth) {
            x.scopes.pop();
        }
        if let Some(i) = x.pending.iter().rposition(|(id, _)| *id == node.id()) {
            let (_, scope) = x.pending.swap_remove(i);
            x.push_scope(scope, depth);
        }
        x.visit(node, doc, depth)
    });
    (x.package, x.imports, x.symbols)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Root,
    /// A type body; `interface_like` for interfaces and annotation types.
    Type {
        interface_like: bool,
    },
    /// A method, constructor or field initializer.
    Member,
}

/// Where declarations met by the walk belong.
#[derive(Debug)]
struct Scope {
    /// Cursor depth of the node that opened it; it covers deeper nodes only.
    depth: usize,
    kind: ScopeKind,
    /// Qualified-name prefix for declarations inside.
    qname: String,
    /// Index in the scope stack of the innermost type scope (itself for types).
    owner: usize,
    /// Symbol index of the parent of declarations directly inside.
    parent: Option<usize>,
    /// Anonymous classes numbered so far (type scopes).
    anon: u32,
    /// Record components' parameter types, for the compact constructor's id, and the
    /// components as its parameters.
    record_params: Option<String>,
    record_components: Option<Vec<Param>>,
}

impl Scope {
    /// A member scope named `qname`; callers override the rest.
    fn new(qname: String) -> Scope {
        Scope {
            depth: 0,
            kind: ScopeKind::Member,
            qname,
            owner: 0,
            parent: None,
            anon: 0,
            record_params: None,
            record_components: None,
        }
    }

    fn root() -> Scope {
        Scope {
            kind: ScopeKind::Root,
            ..Scope::new(String::new())
        }
    }
}

struct Extractor<'s> {
    src: &'s [u8],
    package: Option<String>,
    imports: Vec<String>,
    symbols: Vec<Symbol>,
    ids: HashSet<SymbolId>,
    scopes: Vec<Scope>,
    /// Scopes to open when the walk reaches the node with this id (anonymous bodies, declarators).
    pending: Vec<(usize, Scope)>,
}

/// Modifier facts of a declaration.
#[derive(Default)]
struct Mods {
    visibility: &'static str,
    is_static: bool,
    annotations: Vec<String>,
}

impl<'s> Extractor<'s> {
    fn text(&self, n: Node<'_>) -> std::borrow::Cow<'s, str> {
        String::from_utf8_lossy(&self.src[n.start_byte()..n.end_byte()])
    }

    fn scope(&self) -> &Scope {
        self.scopes.last().expect("the root scope is never popped")
    }

    fn owner(&self) -> &Scope {
        &self.scopes[self.scope().owner]
    }

    fn push_scope(&mut self, mut scope: Scope, depth: usize) {
        scope.depth = depth;
        if let ScopeKind::Type { .. } = scope.kind {
            scope.owner = self.scopes.len();
        }
        self.scopes.push(scope);
    }

    /// Handles one node; returns whether to walk into its children.
    fn visit(&mut self, node: Node<'_>, doc: Option<Node<'_>>, depth: usize) -> bool {
        match kind(node) {
            K::Opaque | K::BlockComment => false,
            K::Package => {
                self.package_decl(node);
                false
            }
            K::Import => {
                self.import_decl(node);
                false
            }
            k @ (K::Class | K::Interface | K::Enum | K::Record | K::AnnotationType) => {
                self.type_decl(node, k, doc, depth);
                true
            }
            k @ (K::Method | K::Constructor | K::CompactConstructor | K::AnnotationElement) => {
                self.callable(node, k, doc, depth);
                true
            }
            K::Field => {
                self.field_decl(node, doc);
                true
            }
            K::EnumConstant => {
                self.enum_constant(node, doc);
                true
            }
            K::ObjectCreation => {
                self.anonymous_class(node);
                true
            }
            K::StringLiteral => {
                self.literal(node);
                false
            }
            K::Throw => {
                if let Some(ty) = signature::thrown_type(self.src, node) {
                    self.add_thrown(ty);
                }
                true
            }
            _ => true,
        }
    }

    fn package_decl(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let name = node
            .named_children(&mut cursor)
            .find(|c| matches!(c.kind(), "identifier" | "scoped_identifier"));
        let Some(name) = name else { return };
        let pkg = self.text(name).into_owned();
        let idx = self.push_symbol(Decl {
            node,
            name,
            kind: SymbolKind::Package,
            simple: pkg.clone(),
            qualified_name: pkg.clone(),
            id: format!("java:{pkg}"),
            signature: format!("package {pkg}"),
            doc: None,
            mods: Mods::default(),
            parent: None,
            shape: Shape::default(),
        });
        self.scopes[0].qname = pkg.clone();
        self.scopes[0].parent = idx;
        self.package = Some(pkg);
    }

    fn import_decl(&mut self, node: Node<'_>) {
        let mut s = String::new();
        let mut cursor = node.walk();
        for c in node.children(&mut cursor) {
            match c.kind() {
                "static" => s.push_str("static "),
                "asterisk" => s.push_str(".*"),
                "identifier" | "scoped_identifier" => s.push_str(&self.text(c)),
                _ => {}
            }
        }
        if !s.is_empty() {
            self.imports.push(s);
        }
    }

    fn type_decl(&mut self, node: Node<'_>, k: K, doc: Option<Node<'_>>, depth: usize) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let simple = self.text(name).into_owned();
        let qualified_name = join(&self.scope().qname, &simple);
        let parent = self.scope().parent;
        let mut mods = self.mods(node);
        self.implicit_mods(&mut mods, true, k != K::Class);
        let kind = match k {
            K::Interface => SymbolKind::Interface,
            K::Enum => SymbolKind::Enum,
            K::Record => SymbolKind::Record,
            K::AnnotationType => SymbolKind::Annotation,
            _ => SymbolKind::Class,
        };
        let components = (k == K::Record)
            .then(|| node.child_by_field_name("parameters"))
            .flatten();
        let record_params = components.map(|p| signature::param_types(self.src, p));
        let record_components = components.map(|p| signature::params(self.src, p));
        let body_node = node.child_by_field_name("body");
        let body = body_node.map(|b| b.start_byte());
        let shape = Shape {
            body_line: body_node.map_or(0, |b| b.start_position().row as u32 + 1),
            supertypes: signature::supertypes(self.src, node),
            ..Shape::default()
        };
        let idx = self.push_symbol(Decl {
            node,
            name,
            kind,
            simple,
            id: format!("java:{qualified_name}"),
            qualified_name: qualified_name.clone(),
            signature: signature::head(self.src, node, body),
            doc,
            mods,
            parent,
            shape,
        });
        let interface_like = matches!(k, K::Interface | K::AnnotationType);
        let scope = Scope {
            kind: ScopeKind::Type { interface_like },
            parent: idx.or(parent),
            record_params,
            record_components,
            ..Scope::new(qualified_name)
        };
        self.push_scope(scope, depth);
    }

    fn callable(&mut self, node: Node<'_>, k: K, doc: Option<Node<'_>>, depth: usize) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let simple = self.text(name).into_owned();
        let owner = self.owner();
        // The parameter types (for the id) and the parameters, from one place.
        let (params, param_list) = match (k, node.child_by_field_name("parameters")) {
            (K::CompactConstructor, _) => (
                owner.record_params.clone().unwrap_or_default(),
                owner.record_components.clone().unwrap_or_default(),
            ),
            (K::AnnotationElement, _) | (_, None) => (String::new(), Vec::new()),
            (_, Some(p)) => (
                signature::param_types(self.src, p),
                signature::params(self.src, p),
            ),
        };
        let (kind, member) = match k {
            K::Constructor | K::CompactConstructor => (SymbolKind::Constructor, "<init>"),
            _ => (SymbolKind::Method, simple.as_str()),
        };
        let id = format!("java:{}#{member}({params})", owner.qname);
        let qualified_name = join(&owner.qname, &simple);
        let owner_idx = self.scope().owner;
        let parent = self.scope().parent;
        let mut mods = self.mods(node);
        self.implicit_mods(&mut mods, false, false);
        let body_node = node.child_by_field_name("body");
        let body = body_node.map(|b| b.start_byte());
        let signature = signature::head(self.src, node, body);
        let shape = Shape {
            params: param_list,
            value_type: self.type_of(node),
            has_body: body_node.is_some_and(signature::has_statement),
            body_line: body_node.map_or(0, |b| b.start_position().row as u32 + 1),
            throws: signature::throws(self.src, node),
            ..Shape::default()
        };
        let idx = self.push_symbol(Decl {
            node,
            name,
            kind,
            simple,
            qualified_name: qualified_name.clone(),
            id,
            signature,
            doc,
            mods,
            parent,
            shape,
        });
        let scope = Scope {
            owner: owner_idx,
            parent: idx.or(parent),
            ..Scope::new(qualified_name)
        };
        self.push_scope(scope, depth);
    }

    /// One symbol per declarator: `int a, b;` declares two fields.
    fn field_decl(&mut self, node: Node<'_>, doc: Option<Node<'_>>) {
        let mut mods = self.mods(node);
        self.implicit_mods(&mut mods, true, false);
        let owner_qname = self.owner().qname.clone();
        let owner_idx = self.scope().owner;
        let parent = self.scope().parent;
        // Modifiers without annotations, then the type.
        let prefix = node
            .child_by_field_name("type")
            .map(|t| signature::head(self.src, node, Some(t.end_byte())));
        let mut cursor = node.walk();
        let declarators: Vec<Node<'_>> = node
            .children_by_field_name("declarator", &mut cursor)
            .collect();
        for decl in declarators {
            let Some(name) = decl.child_by_field_name("name") else {
                continue;
            };
            let value = decl.child_by_field_name("value");
            let name_end = value.map_or(decl.end_byte(), |v| v.start_byte());
            let mut signature = signature::collapse(&self.src[name.start_byte()..name_end])
                .trim_end_matches([' ', '='])
                .to_string();
            if let Some(prefix) = &prefix {
                signature = format!("{prefix} {signature}");
            }
            if let Some(v) =
                value.map(|v| signature::collapse(&self.src[v.start_byte()..v.end_byte()]))
                && v.len() <= MAX_VALUE_IN_SIGNATURE
            {
                signature = format!("{signature} = {v}");
            }
            let simple = self.text(name).into_owned();
            let idx = self.push_symbol(Decl {
                node,
                name,
                kind: SymbolKind::Field,
                id: format!("java:{owner_qname}#{simple}"),
                qualified_name: join(&owner_qname, &simple),
                simple,
                signature,
                doc,
                mods: Mods {
                    annotations: mods.annotations.clone(),
                    ..mods
                },
                parent,
                shape: Shape {
                    value_type: self.type_of(node),
                    has_body: value.is_some(),
                    ..Shape::default()
                },
            });
            // Anonymous classes in the initializer belong to the field.
            let scope = Scope {
                owner: owner_idx,
                parent: idx.or(parent),
                ..Scope::new(owner_qname.clone())
            };
            self.pending.push((decl.id(), scope));
        }
    }

    fn enum_constant(&mut self, node: Node<'_>, doc: Option<Node<'_>>) {
        let Some(name) = node.child_by_field_name("name") else {
            return;
        };
        let simple = self.text(name).into_owned();
        let owner_qname = self.owner().qname.clone();
        let parent = self.scope().parent;
        let mut mods = self.mods(node);
        mods.visibility = "public";
        mods.is_static = true;
        let body = node.child_by_field_name("body");
        let idx = self.push_symbol(Decl {
            node,
            name,
            kind: SymbolKind::Constant,
            id: format!("java:{owner_qname}#{simple}"),
            qualified_name: join(&owner_qname, &simple),
            simple,
            signature: signature::head(self.src, node, body.map(|b| b.start_byte())),
            doc,
            mods,
            parent,
            shape: Shape::default(),
        });
        if let Some(body) = body {
            // The body is an anonymous class (javac's `Color$1`) whose members belong to the constant.
            let n = self.next_anonymous();
            let scope = Scope {
                kind: ScopeKind::Type {
                    interface_like: false,
                },
                parent: idx.or(parent),
                ..Scope::new(format!("{owner_qname}.{n}"))
            };
            self.pending.push((body.id(), scope));
        }
    }

    /// `new X(..) { .. }`: a class symbol named by its number.
    fn anonymous_class(&mut self, node: Node<'_>) {
        let last = node.child(node.child_count().saturating_sub(1));
        let Some(body) = last.filter(|b| kind(*b) == K::ClassBody) else {
            return;
        };
        if self.owner().kind == ScopeKind::Root {
            return; // not inside a type: broken source
        }
        let n = self.next_anonymous();
        let qualified_name = format!("{}.{n}", self.owner().qname);
        let parent = self.scope().parent;
        let idx = self.push_symbol(Decl {
            node,
            name: node.child_by_field_name("type").unwrap_or(node),
            kind: SymbolKind::Class,
            simple: n.to_string(),
            id: format!("java:{qualified_name}"),
            qualified_name: qualified_name.clone(),
            signature: signature::head(self.src, node, Some(body.start_byte())),
            doc: None,
            mods: Mods::default(),
            parent,
            shape: Shape::default(),
        });
        let scope = Scope {
            kind: ScopeKind::Type {
                interface_like: false,
            },
            parent: idx.or(parent),
            ..Scope::new(qualified_name)
        };
        self.pending.push((body.id(), scope));
    }

    /// The innermost declaration the walk is in: what owns the code at hand.
    fn innermost(&mut self) -> Option<&mut Symbol> {
        let i = self.scope().parent?;
        self.symbols.get_mut(i)
    }

    fn literal(&mut self, node: Node<'_>) {
        let text = calls::unquote(&self.text(node));
        let line = node.start_position().row as u32 + 1;
        if let Some(s) = self.innermost() {
            s.literals.push(Literal { line, text });
        }
    }

    fn add_thrown(&mut self, ty: String) {
        if let Some(s) = self.innermost()
            && !s.thrown.contains(&ty)
        {
            s.thrown.push(ty);
        }
    }

    /// Numbers the next anonymous class of the innermost enclosing class.
    fn next_anonymous(&mut self) -> u32 {
        let owner = self.scope().owner;
        self.scopes[owner].anon += 1;
        self.scopes[owner].anon
    }

    /// Explicit modifiers and annotations of a declaration.
    fn mods(&self, node: Node<'_>) -> Mods {
        let mut mods = Mods::default();
        let mut cursor = node.walk();
        for c in node.children(&mut cursor) {
            match kind(c) {
                K::Annotation => mods
                    .annotations
                    .push(signature::collapse(&self.src[c.start_byte()..c.end_byte()])),
                K::Modifiers => {
                    let mut inner = c.walk();
                    for m in c.children(&mut inner) {
                        match m.kind() {
                            "public" => mods.visibility = "public",
                            "protected" => mods.visibility = "protected",
                            "private" => mods.visibility = "private",
                            "static" => mods.is_static = true,
                            _ if kind(m) == K::Annotation => mods
                                .annotations
                                .push(signature::collapse(&self.src[m.start_byte()..m.end_byte()])),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        mods
    }

    /// Adds what the enclosing type implies for a member declared directly inside: interface and
    /// annotation members are public, and static when `static_in_interface` (fields, types);
    /// `static_in_type` marks members static in any type (nested enums, records, interfaces).
    fn implicit_mods(&self, mods: &mut Mods, static_in_interface: bool, static_in_type: bool) {
        if let ScopeKind::Type { interface_like } = self.scope().kind {
            mods.is_static |= static_in_type || (interface_like && static_in_interface);
            if interface_like && mods.visibility.is_empty() {
                mods.visibility = "public";
            }
        }
    }

    /// The simple name of a declaration's `type` (a method's return type, a field's type).
    fn type_of(&self, node: Node<'_>) -> String {
        node.child_by_field_name("type")
            .map(|t| signature::simple(&signature::erase(&self.src[t.byte_range()])))
            .unwrap_or_default()
    }

    fn push_symbol(&mut self, d: Decl<'_>) -> Option<usize> {
        if d.simple.is_empty() {
            return None;
        }
        let mut id = SymbolId(d.id);
        if self.ids.contains(&id) {
            // Only broken or unusual source (same local class name in two overloads) gets here.
            let base = id.0.clone();
            id = (2..)
                .map(|n| SymbolId(format!("{base}~{n}")))
                .find(|i| !self.ids.contains(i))
                .expect("unbounded range");
        }
        self.ids.insert(id.clone());
        let (start_line, end_line) = chunk::node_lines(d.node);
        let bytes = &self.src[d.node.start_byte()..d.node.end_byte()];
        self.symbols.push(Symbol {
            id,
            kind: d.kind,
            name: d.simple,
            qualified_name: d.qualified_name,
            signature: d.signature,
            doc: d
                .doc
                .and_then(|c| javadoc::first_sentence(&self.src[c.start_byte()..c.end_byte()])),
            parent: d.parent.map(|p| self.symbols[p].id.clone()),
            start_line,
            end_line,
            name_line: d.name.start_position().row as u32 + 1,
            annotations: d.mods.annotations,
            visibility: d.mods.visibility.to_string(),
            is_static: d.mods.is_static,
            body_hash: blake3::hash(bytes).to_hex()[..16].to_string(),
            params: d.shape.params,
            value_type: d.shape.value_type,
            has_body: d.shape.has_body,
            body_line: d.shape.body_line,
            supertypes: d.shape.supertypes,
            // Filled in as the walk meets them inside the declaration.
            literals: Vec::new(),
            throws: d.shape.throws,
            thrown: Vec::new(),
        });
        Some(self.symbols.len() - 1)
    }
}

/// What a symbol is made from.
struct Decl<'t> {
    node: Node<'t>,
    name: Node<'t>,
    kind: SymbolKind,
    simple: String,
    qualified_name: String,
    id: String,
    signature: String,
    doc: Option<Node<'t>>,
    mods: Mods,
    parent: Option<usize>,
    shape: Shape,
}

/// What a declaration's tree says beyond its head (the [`Symbol`] fields of the same names).
#[derive(Default)]
struct Shape {
    params: Vec<Param>,
    value_type: String,
    has_body: bool,
    body_line: u32,
    supertypes: Vec<String>,
    throws: Vec<String>,
}

/// Field initializers longer than this (collapsed) are left out of the field's signature.
const MAX_VALUE_IN_SIGNATURE: usize = 80;

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}
