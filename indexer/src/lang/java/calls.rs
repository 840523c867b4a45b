//! Graph facts from a parsed Java file: declared types with their members, locals bound to their
//! declarations, and every call site (method calls, `new`, `super(..)`/`this(..)`, method
//! references) with its receiver and arguments as [`Expr`]s. Runs over the tree the symbol
//! extractor already parsed (one parse per file), with one iterative cursor walk; expressions are
//! converted recursively under a depth cap.
//!
//! Attribution: a call belongs to the innermost method or constructor; lambda bodies and
//! anonymous classes belong to the method that holds them; field initializers and initializer
//! blocks belong to the type. Lines are those javac records: the name token of a call, the `new`
//! token of a creation, the `super`/`this` keyword of a constructor call.

use super::frameworks;
use crate::graph::facts::{
    Call, CallKind, Caller, Expr, FieldDecl, Import, JavaFacts, LambdaParam, Lit, Local,
    MethodDecl, TypeDecl, TypeKind, TypeRef,
};
use crate::model::{Symbol, SymbolKind};
use std::collections::HashMap;
use std::sync::OnceLock;
use tree_sitter::Node;

/// Expressions nested deeper than this are [`Expr::Opaque`].
const MAX_EXPR_DEPTH: usize = 40;

/// Node kinds the walk acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum N {
    Other,
    Skip,
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
    StaticInit,
    Block,
    EnumConstant,
    LocalVar,
    Invocation,
    Creation,
    CtorCall,
    MethodRef,
    Lambda,
    EnhancedFor,
    Catch,
    Resource,
    InstanceOf,
    TypePattern,
    ClassBody,
}

pub(super) struct Ids {
    kinds: Vec<N>,
    pub name: u16,
    pub object: u16,
    pub arguments: u16,
    pub ty: u16,
    pub body: u16,
    pub value: u16,
    pub parameters: u16,
    pub dimensions: u16,
    pub superclass: u16,
    pub interfaces: u16,
    pub type_parameters: u16,
    pub left: u16,
    pub right: u16,
    pub operator: u16,
    pub field: u16,
    pub array: u16,
    pub consequence: u16,
    pub alternative: u16,
    pub element: u16,
    pub key: u16,
    pub constructor: u16,
    pub operand: u16,
}

pub(super) fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let lang = super::language();
        let f = |n: &str| lang.field_id_for_name(n).map_or(0, |id| id.get());
        let kinds = (0..lang.node_kind_count() as u16)
            .map(|id| {
                if !lang.node_kind_is_named(id) {
                    return N::Other;
                }
                match lang.node_kind_for_id(id).unwrap_or_default() {
                    "class_declaration" => N::Class,
                    "interface_declaration" => N::Interface,
                    "enum_declaration" => N::Enum,
                    "record_declaration" => N::Record,
                    "annotation_type_declaration" => N::AnnotationType,
                    "method_declaration" => N::Method,
                    "constructor_declaration" => N::Constructor,
                    "compact_constructor_declaration" => N::CompactConstructor,
                    "annotation_type_element_declaration" => N::AnnotationElement,
                    "field_declaration" | "constant_declaration" => N::Field,
                    "static_initializer" => N::StaticInit,
                    "block" => N::Block,
                    "enum_constant" => N::EnumConstant,
                    "local_variable_declaration" => N::LocalVar,
                    "method_invocation" => N::Invocation,
                    "object_creation_expression" => N::Creation,
                    "explicit_constructor_invocation" => N::CtorCall,
                    "method_reference" => N::MethodRef,
                    "lambda_expression" => N::Lambda,
                    "enhanced_for_statement" => N::EnhancedFor,
                    "catch_formal_parameter" => N::Catch,
                    "resource" => N::Resource,
                    "instanceof_expression" => N::InstanceOf,
                    "type_pattern" => N::TypePattern,
                    "class_body" | "enum_body" | "interface_body" | "annotation_type_body" => {
                        N::ClassBody
                    }
                    "line_comment"
                    | "block_comment"
                    | "string_literal"
                    | "character_literal"
                    | "identifier"
                    | "type_identifier"
                    | "scoped_identifier"
                    | "package_declaration"
                    | "import_declaration"
                    | "type_arguments"
                    | "type_parameters" => N::Skip,
                    _ => N::Other,
                }
            })
            .collect();
        Ids {
            kinds,
            name: f("name"),
            object: f("object"),
            arguments: f("arguments"),
            ty: f("type"),
            body: f("body"),
            value: f("value"),
            parameters: f("parameters"),
            dimensions: f("dimensions"),
            superclass: f("superclass"),
            interfaces: f("interfaces"),
            type_parameters: f("type_parameters"),
            left: f("left"),
            right: f("right"),
            operator: f("operator"),
            field: f("field"),
            array: f("array"),
            consequence: f("consequence"),
            alternative: f("alternative"),
            element: f("element"),
            key: f("key"),
            constructor: f("constructor"),
            operand: f("operand"),
        }
    })
}

fn kind(n: Node<'_>) -> N {
    ids()
        .kinds
        .get(n.kind_id() as usize)
        .copied()
        .unwrap_or(N::Other)
}

/// Walk state that ends when the walk leaves the node at `depth`.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// A type body: `ty` is what `this` means; `caller` is who initializers belong to.
    Type {
        depth: usize,
        ty: u32,
        caller: Caller,
    },
    /// A method, constructor, field initializer or initializer block.
    Code {
        depth: usize,
        caller: Caller,
        is_static: bool,
    },
    /// Locals declared from `locals_mark` on go out of scope.
    Scope { depth: usize, locals_mark: usize },
}

impl Frame {
    fn depth(&self) -> usize {
        match *self {
            Frame::Type { depth, .. } | Frame::Code { depth, .. } | Frame::Scope { depth, .. } => {
                depth
            }
        }
    }
}

/// Extracts the graph facts of a parsed file. `symbols` are the file's symbols, used for ids.
pub(crate) fn extract(
    root: Node<'_>,
    src: &[u8],
    package: Option<&str>,
    imports: &[String],
    symbols: &[Symbol],
) -> JavaFacts {
    let mut by_line: HashMap<(u32, &str), Vec<usize>> = HashMap::new();
    for (i, s) in symbols.iter().enumerate() {
        by_line
            .entry((s.name_line, s.name.as_str()))
            .or_default()
            .push(i);
    }
    let mut x = Walker {
        src,
        ids: ids(),
        symbols,
        by_line,
        used: vec![false; symbols.len()],
        facts: JavaFacts {
            package: package.unwrap_or_default().to_string(),
            imports: imports.iter().map(|i| parse_import(i)).collect(),
            ..JavaFacts::default()
        },
        frames: Vec::new(),
        scope: Vec::new(),
        slots: HashMap::new(),
        anon_counter: Vec::new(),
        pending: Vec::new(),
        lambdas: HashMap::new(),
    };
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        while x.frames.last().is_some_and(|f| f.depth() >= depth) {
            if let Some(Frame::Scope { locals_mark, .. }) = x.frames.pop() {
                x.scope.truncate(locals_mark);
            }
        }
        if let Some(i) = x.pending.iter().rposition(|(id, _)| *id == node.id()) {
            let (_, mut frame) = x.pending.swap_remove(i);
            if let Frame::Type { depth: d, .. } = &mut frame {
                *d = depth;
            }
            x.frames.push(frame);
        }
        if x.visit(node, depth) && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return x.facts;
            }
            depth -= 1;
        }
    }
}

fn parse_import(s: &str) -> Import {
    let (is_static, rest) = match s.strip_prefix("static ") {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (on_demand, path) = match rest.strip_suffix(".*") {
        Some(p) => (true, p),
        None => (false, rest),
    };
    Import {
        path: path.to_string(),
        is_static,
        on_demand,
    }
}

pub(super) struct Walker<'s, 'y> {
    src: &'s [u8],
    ids: &'static Ids,
    symbols: &'y [Symbol],
    by_line: HashMap<(u32, &'y str), Vec<usize>>,
    used: Vec<bool>,
    facts: JavaFacts,
    frames: Vec<Frame>,
    /// Locals in scope, innermost last: (name, index into `facts.locals`).
    scope: Vec<(String, u32)>,
    /// Call indices handed out to expressions before the walk reached the call.
    slots: HashMap<usize, u32>,
    /// Anonymous classes numbered so far per type (javac's `Outer$N`).
    anon_counter: Vec<u32>,
    /// Frames to push when the walk reaches the node with this id (anonymous class bodies).
    pending: Vec<(usize, Frame)>,
    /// Lambdas met as an argument or an initializer, by node id: where their parameters' types
    /// come from (`param` is filled per parameter).
    lambdas: HashMap<usize, LambdaParam>,
}

impl<'s> Walker<'s, '_> {
    pub(super) fn text(&self, n: Node<'_>) -> &'s str {
        std::str::from_utf8(&self.src[n.start_byte()..n.end_byte()]).unwrap_or("")
    }

    fn line(n: Node<'_>) -> u32 {
        n.start_position().row as u32 + 1
    }

    pub(super) fn field<'t>(&self, n: Node<'t>, id: u16) -> Option<Node<'t>> {
        if id == 0 {
            None
        } else {
            n.child_by_field_id(id)
        }
    }

    /// The symbol declared at `line` named `name` whose kind passes `ok`, not yet taken.
    fn symbol(&mut self, line: u32, name: &str, ok: impl Fn(SymbolKind) -> bool) -> Option<usize> {
        let cands = self.by_line.get(&(line, name))?;
        let i = cands
            .iter()
            .copied()
            .find(|&i| !self.used[i] && ok(self.symbols[i].kind))?;
        self.used[i] = true;
        Some(i)
    }

    fn type_frame(&self) -> Option<(u32, Caller)> {
        self.frames.iter().rev().find_map(|f| match *f {
            Frame::Type { ty, caller, .. } => Some((ty, caller)),
            _ => None,
        })
    }

    /// (caller, this-type, static context) at the current point, if inside a type.
    fn context(&self) -> Option<(Caller, u32, bool)> {
        let mut code: Option<(Caller, bool)> = None;
        for f in self.frames.iter().rev() {
            match *f {
                Frame::Code {
                    caller, is_static, ..
                } if code.is_none() => code = Some((caller, is_static)),
                Frame::Type { ty, caller, .. } => {
                    let (c, s) = code.unwrap_or((caller, false));
                    return Some((c, ty, s));
                }
                _ => {}
            }
        }
        None
    }

    fn in_code(&self) -> bool {
        for f in self.frames.iter().rev() {
            match f {
                Frame::Code { .. } => return true,
                Frame::Type { .. } => return false,
                Frame::Scope { .. } => {}
            }
        }
        false
    }

    fn push_scope(&mut self, depth: usize) {
        self.frames.push(Frame::Scope {
            depth,
            locals_mark: self.scope.len(),
        });
    }

    /// Declares a local visible until the walk leaves the node at `depth` (a scope frame for it
    /// must exist or be pushed by the caller).
    fn declare(&mut self, name: &str, mut local: Local) -> u32 {
        let idx = self.facts.locals.len() as u32;
        local.name = name.to_string();
        self.facts.locals.push(local);
        self.scope.push((name.to_string(), idx));
        idx
    }

    fn lookup(&self, name: &str) -> Option<u32> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, i)| *i)
    }

    /// Handles one node; returns whether to walk into its children.
    fn visit(&mut self, node: Node<'_>, depth: usize) -> bool {
        match kind(node) {
            N::Skip => false,
            k @ (N::Class | N::Interface | N::Enum | N::Record | N::AnnotationType) => {
                self.type_decl(node, k, depth);
                true
            }
            k @ (N::Method | N::Constructor | N::CompactConstructor | N::AnnotationElement) => {
                self.method_decl(node, k, depth);
                true
            }
            N::Field => {
                self.field_decl(node, depth);
                true
            }
            N::StaticInit => {
                if let Some((_, caller)) = self.type_frame() {
                    self.frames.push(Frame::Code {
                        depth,
                        caller,
                        is_static: true,
                    });
                }
                self.push_scope(depth);
                true
            }
            N::Block => {
                // An instance initializer is a block directly in a type body: no member frame
                // stands between it and the type.
                if let Some(Frame::Type { caller, .. }) = self.frames.last().copied() {
                    self.frames.push(Frame::Code {
                        depth,
                        caller,
                        is_static: false,
                    });
                }
                self.push_scope(depth);
                true
            }
            N::EnumConstant => {
                self.enum_constant(node, depth);
                true
            }
            N::LocalVar => {
                self.local_var(node);
                true
            }
            N::Invocation => {
                self.invocation(node);
                true
            }
            N::Creation => {
                self.creation(node);
                true
            }
            N::CtorCall => {
                self.ctor_call(node);
                true
            }
            N::MethodRef => {
                self.method_ref(node);
                true
            }
            N::Lambda => {
                self.lambda(node, depth);
                true
            }
            N::EnhancedFor => {
                self.push_scope(depth);
                let ty = self.field(node, self.ids.ty).map(|t| self.type_ref(t));
                let value = self.field(node, self.ids.value);
                if let Some(name) = self.field(node, self.ids.name) {
                    let init = value.map(|v| self.expr(v, 0));
                    let name = self.text(name);
                    self.declare(name, local(ty, init, true));
                }
                true
            }
            N::Catch => {
                // catch (A | B e): the first alternative stands for the union.
                let ty = node
                    .named_children(&mut node.walk())
                    .find(|c| c.kind() == "catch_type")
                    .and_then(|c| c.named_child(0))
                    .map(|t| self.type_ref(t));
                if let Some(name) = self.field(node, self.ids.name) {
                    // The parameter's scope is the catch clause (the parent).
                    let name = self.text(name);
                    self.declare_in_parent(name, local(ty, None, false), depth);
                }
                false
            }
            N::Resource => {
                if let Some(name) = self.field(node, self.ids.name) {
                    let ty = self.field(node, self.ids.ty).map(|t| self.type_ref(t));
                    let init = self.field(node, self.ids.value).map(|v| self.expr(v, 0));
                    let name = self.text(name);
                    // Visible in the whole try statement: resource → specification → try.
                    self.declare_at(name, local(ty, init, false), depth.saturating_sub(2));
                }
                true
            }
            N::InstanceOf => {
                if let (Some(name), Some(ty)) = (
                    self.field(node, self.ids.name),
                    self.field(node, self.ids.right),
                ) {
                    let ty = self.type_ref(ty);
                    let name = self.text(name);
                    self.declare_in_block(name, local(Some(ty), None, false));
                }
                true
            }
            N::TypePattern => {
                let mut c = node.walk();
                let kids: Vec<Node<'_>> = node.named_children(&mut c).collect();
                if let [ty, name] = kids.as_slice()
                    && name.kind() == "identifier"
                {
                    let ty = self.type_ref(*ty);
                    let name = self.text(*name);
                    self.declare_in_block(name, local(Some(ty), None, false));
                }
                false
            }
            N::ClassBody | N::Other => true,
        }
    }

    /// Declares a local scoped to the parent of the node at `depth`.
    fn declare_in_parent(&mut self, name: &str, l: Local, depth: usize) {
        self.declare_at(name, l, depth.saturating_sub(1));
    }

    /// Declares a local scoped to the node at `scope_depth` (an ancestor of the current node).
    fn declare_at(&mut self, name: &str, l: Local, scope_depth: usize) {
        // Scope frames are ordered by depth; insert one for `scope_depth` unless one exists.
        let exists = self
            .frames
            .iter()
            .any(|f| matches!(f, Frame::Scope { depth, .. } if *depth == scope_depth));
        if !exists {
            let pos = self
                .frames
                .iter()
                .position(|f| f.depth() > scope_depth)
                .unwrap_or(self.frames.len());
            let mark = self.frames[pos..]
                .iter()
                .find_map(|f| match f {
                    Frame::Scope { locals_mark, .. } => Some(*locals_mark),
                    _ => None,
                })
                .unwrap_or(self.scope.len());
            self.frames.insert(
                pos,
                Frame::Scope {
                    depth: scope_depth,
                    locals_mark: mark,
                },
            );
        }
        self.declare(name, l);
    }

    /// Declares a pattern variable, visible to the end of the innermost scope.
    fn declare_in_block(&mut self, name: &str, l: Local) {
        self.declare(name, l);
    }

    fn type_decl(&mut self, node: Node<'_>, k: N, depth: usize) {
        let Some(name) = self.field(node, self.ids.name) else {
            return;
        };
        let simple = self.text(name);
        let line = Self::line(name);
        let sym = self.symbol(line, simple, SymbolKind::is_type);
        let outer = self.type_frame().map(|(t, _)| t);
        let local = self.in_code();
        let kind = match k {
            N::Interface => TypeKind::Interface,
            N::Enum => TypeKind::Enum,
            N::Record => TypeKind::Record,
            N::AnnotationType => TypeKind::Annotation,
            _ => TypeKind::Class,
        };
        let (qname, id) = match sym {
            Some(i) => (
                self.symbols[i].qualified_name.clone(),
                self.symbols[i].id.0.clone(),
            ),
            None => {
                let prefix = match outer {
                    Some(o) => self.facts.types[o as usize].qname.clone(),
                    None => self.facts.package.clone(),
                };
                let q = if prefix.is_empty() {
                    simple.to_string()
                } else {
                    format!("{prefix}.{simple}")
                };
                (q.clone(), format!("java:{q}"))
            }
        };
        let mods = frameworks::modifiers(self, node);
        let mut superclass = self
            .field(node, self.ids.superclass)
            .and_then(|s| s.named_child(0))
            .map(|t| self.type_ref(t));
        let mut interfaces = Vec::new();
        let list = self.field(node, self.ids.interfaces).or_else(|| {
            node.named_children(&mut node.walk())
                .find(|c| c.kind() == "extends_interfaces")
        });
        if let Some(list) = list {
            for tl in list.named_children(&mut list.walk()) {
                if tl.kind() == "type_list" {
                    for t in tl.named_children(&mut tl.walk()) {
                        interfaces.push(self.type_ref(t));
                    }
                }
            }
        }
        match kind {
            TypeKind::Enum => {
                superclass = Some(TypeRef {
                    name: "java.lang.Enum".into(),
                    args: vec![TypeRef::named(simple)],
                    dims: 0,
                })
            }
            TypeKind::Record => superclass = Some(TypeRef::named("java.lang.Record")),
            TypeKind::Annotation => {
                interfaces.push(TypeRef::named("java.lang.annotation.Annotation"))
            }
            _ => {}
        }
        let (type_params, type_bounds) = self.type_params(node);
        let ty = self.facts.types.len() as u32;
        self.facts.types.push(TypeDecl {
            qname,
            id,
            name: simple.to_string(),
            kind,
            outer,
            local,
            anonymous: false,
            is_static: mods.is_static
                || matches!(
                    kind,
                    TypeKind::Enum | TypeKind::Record | TypeKind::Interface | TypeKind::Annotation
                )
                || outer.is_some_and(|o| {
                    matches!(
                        self.facts.types[o as usize].kind,
                        TypeKind::Interface | TypeKind::Annotation
                    )
                }),
            is_abstract: mods.is_abstract || kind == TypeKind::Interface,
            type_params,
            type_bounds,
            superclass,
            interfaces,
            annotations: mods.annotations,
            fields: Vec::new(),
            methods: Vec::new(),
            line,
        });
        self.anon_counter.push(0);
        self.frames.push(Frame::Type {
            depth,
            ty,
            caller: Caller::Type(ty),
        });
        if kind == TypeKind::Record {
            self.record_components(node, ty);
        }
    }

    /// Record components: private fields and public accessors.
    fn record_components(&mut self, node: Node<'_>, ty: u32) {
        let Some(params) = self.field(node, self.ids.parameters) else {
            return;
        };
        let t = &self.facts.types[ty as usize];
        let (qid, qname) = (t.id.clone(), t.qname.clone());
        for p in params.named_children(&mut params.walk()) {
            let (Some(name), Some(tn)) = (self.field(p, self.ids.name), self.field(p, self.ids.ty))
            else {
                continue;
            };
            let n = self.text(name).to_string();
            let ty_ref = self.type_ref(tn);
            let line = Self::line(name);
            let _ = &qname;
            let t = &mut self.facts.types[ty as usize];
            t.fields.push(FieldDecl {
                name: n.clone(),
                id: format!("{qid}#{n}"),
                ty: ty_ref.clone(),
                is_static: false,
                constant: false,
                annotations: Vec::new(),
                value: None,
                line,
            });
            t.methods.push(MethodDecl {
                name: n.clone(),
                id: format!("{qid}#{n}()"),
                params: Vec::new(),
                varargs: false,
                ret: Some(ty_ref),
                type_params: Vec::new(),
                type_bounds: Vec::new(),
                is_static: false,
                is_abstract: false,
                is_ctor: false,
                annotations: Vec::new(),
                line,
            });
        }
    }

    /// Type parameter names and their first bounds.
    fn type_params(&self, node: Node<'_>) -> (Vec<String>, Vec<Option<TypeRef>>) {
        let (mut names, mut bounds) = (Vec::new(), Vec::new());
        if let Some(tp) = self.field(node, self.ids.type_parameters) {
            for p in tp.named_children(&mut tp.walk()) {
                let mut c = p.walk();
                let kids: Vec<Node<'_>> = p.named_children(&mut c).collect();
                let Some(id) = kids
                    .iter()
                    .find(|c| c.kind() == "type_identifier" || c.kind() == "identifier")
                else {
                    continue;
                };
                names.push(self.text(*id).to_string());
                bounds.push(
                    kids.iter()
                        .find(|c| c.kind() == "type_bound")
                        .and_then(|b| b.named_child(0))
                        .map(|t| self.type_ref(t)),
                );
            }
        }
        (names, bounds)
    }

    fn method_decl(&mut self, node: Node<'_>, k: N, depth: usize) {
        let Some((ty, type_caller)) = self.type_frame() else {
            return;
        };
        let Some(name) = self.field(node, self.ids.name) else {
            return;
        };
        let simple = self.text(name);
        let line = Self::line(name);
        let is_ctor = matches!(k, N::Constructor | N::CompactConstructor);
        let sym = self.symbol(line, simple, SymbolKind::is_callable);
        let mods = frameworks::modifiers(self, node);
        let t = &self.facts.types[ty as usize];
        let interface_like = matches!(t.kind, TypeKind::Interface | TypeKind::Annotation);
        let id = match sym {
            Some(i) => self.symbols[i].id.0.clone(),
            None => format!("{}#{}(?)", t.id, if is_ctor { "<init>" } else { simple }),
        };
        let components: Vec<(String, TypeRef)> = t
            .fields
            .iter()
            .filter(|f| !f.is_static)
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        self.push_scope(depth);
        let mut params = Vec::new();
        let mut varargs = false;
        if k == N::CompactConstructor {
            // The record's components are the parameters.
            for (n, tr) in components {
                params.push(self.declare(&n, local(Some(tr), None, false)));
            }
        } else if let Some(ps) = self.field(node, self.ids.parameters) {
            for p in ps.named_children(&mut ps.walk()) {
                let spread = p.kind() == "spread_parameter";
                if p.kind() != "formal_parameter" && !spread {
                    continue;
                }
                let (name, mut tr) = if spread {
                    let mut c = p.walk();
                    let kids: Vec<Node<'_>> = p.named_children(&mut c).collect();
                    let ty = kids
                        .iter()
                        .find(|t| !matches!(t.kind(), "modifiers" | "variable_declarator"))
                        .map(|t| self.type_ref(*t))
                        .unwrap_or_default();
                    let name = kids
                        .iter()
                        .find(|t| t.kind() == "variable_declarator")
                        .and_then(|d| self.field(*d, self.ids.name));
                    (name, ty)
                } else {
                    (
                        self.field(p, self.ids.name),
                        self.field(p, self.ids.ty)
                            .map(|t| self.type_ref(t))
                            .unwrap_or_default(),
                    )
                };
                if spread {
                    varargs = true;
                    tr.dims += 1;
                }
                if let Some(d) = self.field(p, self.ids.dimensions) {
                    tr.dims += dims_of(self.text(d));
                }
                let annotations = frameworks::modifiers(self, p).annotations;
                let n = name.map(|n| self.text(n)).unwrap_or("_");
                let mut l = local(Some(tr), None, false);
                l.annotations = annotations;
                params.push(self.declare(n, l));
            }
        }
        let ret = if is_ctor {
            None
        } else {
            let mut r = self
                .field(node, self.ids.ty)
                .map(|t| self.type_ref(t))
                .unwrap_or_default();
            if let Some(d) = self.field(node, self.ids.dimensions) {
                r.dims += dims_of(self.text(d));
            }
            Some(r)
        };
        let is_static = mods.is_static;
        let has_body = self.field(node, self.ids.body).is_some();
        let tparams = self.type_params(node);
        let method = MethodDecl {
            name: simple.to_string(),
            id,
            params,
            varargs,
            ret,
            type_params: tparams.0,
            type_bounds: tparams.1,
            is_static,
            is_abstract: !has_body && !is_ctor && (mods.is_abstract || interface_like),
            is_ctor,
            annotations: mods.annotations,
            line,
        };
        let t = &mut self.facts.types[ty as usize];
        let m = t.methods.len() as u32;
        t.methods.push(method);
        let anonymous = t.anonymous;
        let caller = if anonymous {
            type_caller
        } else {
            Caller::Method(ty, m)
        };
        self.frames.push(Frame::Code {
            depth,
            caller,
            is_static,
        });
    }

    fn field_decl(&mut self, node: Node<'_>, depth: usize) {
        let Some((ty, caller)) = self.type_frame() else {
            return;
        };
        let mods = frameworks::modifiers(self, node);
        let t = &self.facts.types[ty as usize];
        let is_static = mods.is_static
            || node.kind() == "constant_declaration"
            || matches!(t.kind, TypeKind::Interface | TypeKind::Annotation);
        let base = self
            .field(node, self.ids.ty)
            .map(|t| self.type_ref(t))
            .unwrap_or_default();
        let mut c = node.walk();
        let decls: Vec<Node<'_>> = node.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let Some(name) = self.field(d, self.ids.name) else {
                continue;
            };
            let n = self.text(name);
            let line = Self::line(name);
            let sym = self.symbol(line, n, |k| k == SymbolKind::Field);
            let mut tr = base.clone();
            if let Some(dims) = self.field(d, self.ids.dimensions) {
                tr.dims += dims_of(self.text(dims));
            }
            let value_node = self.field(d, self.ids.value);
            if let Some(v) = value_node
                && kind(v) == N::Lambda
            {
                self.lambdas.insert(
                    v.id(),
                    LambdaParam::Decl {
                        ty: tr.clone(),
                        param: 0,
                    },
                );
            }
            let value = value_node
                .filter(|_| is_static)
                .map(|v| self.expr(v, 0))
                .filter(is_constant_expr);
            let id = match sym {
                Some(i) => self.symbols[i].id.0.clone(),
                None => format!("{}#{n}", self.facts.types[ty as usize].id),
            };
            self.facts.types[ty as usize].fields.push(FieldDecl {
                name: n.to_string(),
                id,
                ty: tr,
                is_static,
                constant: false,
                annotations: mods.annotations.clone(),
                value,
                line,
            });
        }
        self.frames.push(Frame::Code {
            depth,
            caller,
            is_static,
        });
    }

    fn enum_constant(&mut self, node: Node<'_>, depth: usize) {
        let Some((ty, caller)) = self.type_frame() else {
            return;
        };
        let Some(name) = self.field(node, self.ids.name) else {
            return;
        };
        let n = self.text(name);
        let line = Self::line(name);
        let sym = self.symbol(line, n, |k| k == SymbolKind::Constant);
        let t = &self.facts.types[ty as usize];
        let id = match sym {
            Some(i) => self.symbols[i].id.0.clone(),
            None => format!("{}#{n}", t.id),
        };
        let enum_name = t.name.clone();
        let annotations = frameworks::modifiers(self, node).annotations;
        self.facts.types[ty as usize].fields.push(FieldDecl {
            name: n.to_string(),
            id,
            ty: TypeRef::named(enum_name.clone()),
            is_static: true,
            constant: true,
            annotations,
            value: None,
            line,
        });
        self.frames.push(Frame::Code {
            depth,
            caller,
            is_static: true,
        });
        // The constant's construction: `RED(1)` calls the enum's constructor.
        let args = self
            .field(node, self.ids.arguments)
            .map(|a| self.args(a))
            .unwrap_or_default();
        if let Some(body) = self.field(node, self.ids.body) {
            let a = self.anonymous_type(TypeRef::named(enum_name.clone()), line, ty, None);
            self.pending.push((
                body.id(),
                Frame::Type {
                    depth: 0,
                    ty: a,
                    caller,
                },
            ));
        }
        let call = Call {
            kind: CallKind::New,
            name: enum_name.clone(),
            recv: None,
            ty: Some(TypeRef::named(enum_name)),
            args,
            caller,
            ctx: ty,
            is_static_ctx: true,
            line,
            anon: None,
        };
        self.facts.calls.push(call);
    }

    /// Declares an anonymous class of supertype `sup` created at `line`; returns its index.
    fn anonymous_type(&mut self, sup: TypeRef, line: u32, owner: u32, sym: Option<usize>) -> u32 {
        let n = {
            let c = &mut self.anon_counter[owner as usize];
            *c += 1;
            *c
        };
        let o = &self.facts.types[owner as usize];
        let (qname, id) = match sym {
            Some(i) => (
                self.symbols[i].qualified_name.clone(),
                self.symbols[i].id.0.clone(),
            ),
            None => (format!("{}.{n}", o.qname), format!("java:{}.{n}", o.qname)),
        };
        let idx = self.facts.types.len() as u32;
        self.facts.types.push(TypeDecl {
            name: qname.rsplit('.').next().unwrap_or_default().to_string(),
            qname,
            id,
            kind: TypeKind::Class,
            outer: Some(owner),
            local: true,
            anonymous: true,
            is_static: false,
            is_abstract: false,
            type_params: Vec::new(),
            type_bounds: Vec::new(),
            superclass: Some(sup),
            interfaces: Vec::new(),
            annotations: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            line,
        });
        self.anon_counter.push(0);
        idx
    }

    fn local_var(&mut self, node: Node<'_>) {
        let base = self.field(node, self.ids.ty).map(|t| self.type_ref(t));
        let annotations = frameworks::modifiers(self, node).annotations;
        let mut c = node.walk();
        let decls: Vec<Node<'_>> = node.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let Some(name) = self.field(d, self.ids.name) else {
                continue;
            };
            let mut ty = base.clone().filter(|t| t.name != "var");
            if let (Some(t), Some(dims)) = (ty.as_mut(), self.field(d, self.ids.dimensions)) {
                t.dims += dims_of(self.text(dims));
            }
            let value = self.field(d, self.ids.value);
            if let (Some(t), Some(v)) = (&ty, value)
                && kind(v) == N::Lambda
            {
                self.lambdas.insert(
                    v.id(),
                    LambdaParam::Decl {
                        ty: t.clone(),
                        param: 0,
                    },
                );
            }
            let init = if ty.is_none() {
                value.map(|v| self.expr(v, 0))
            } else {
                None
            };
            let n = self.text(name);
            let mut l = local(ty, init, false);
            l.annotations = annotations.clone();
            // Visible from here to the end of the enclosing block.
            self.declare(n, l);
        }
    }

    fn lambda(&mut self, node: Node<'_>, depth: usize) {
        self.push_scope(depth);
        let Some(ps) = self.field(node, self.ids.parameters) else {
            return;
        };
        let ctx = self.lambdas.remove(&node.id());
        let untyped = |ctx: &Option<LambdaParam>, i: usize| {
            let mut l = local(None, None, false);
            l.lambda = ctx.as_ref().map(|c| match c {
                LambdaParam::Decl { ty, .. } => LambdaParam::Decl {
                    ty: ty.clone(),
                    param: i as u8,
                },
                LambdaParam::Arg { call, arg, .. } => LambdaParam::Arg {
                    call: *call,
                    arg: *arg,
                    param: i as u8,
                },
            });
            l
        };
        if ps.kind() == "identifier" {
            let n = self.text(ps);
            let l = untyped(&ctx, 0);
            self.declare(n, l);
            return;
        }
        let mut c = ps.walk();
        let params: Vec<Node<'_>> = ps.named_children(&mut c).collect();
        for (i, p) in params.into_iter().enumerate() {
            match p.kind() {
                "identifier" => {
                    let n = self.text(p);
                    let l = untyped(&ctx, i);
                    self.declare(n, l);
                }
                "formal_parameter" => {
                    let ty = self
                        .field(p, self.ids.ty)
                        .map(|t| self.type_ref(t))
                        .filter(|t| t.name != "var");
                    if let Some(name) = self.field(p, self.ids.name) {
                        let n = self.text(name);
                        let l = match ty {
                            Some(t) => local(Some(t), None, false),
                            None => untyped(&ctx, i),
                        };
                        self.declare(n, l);
                    }
                }
                _ => {}
            }
        }
    }

    /// Notes the lambdas among a call's arguments (their parameters are typed from the call).
    fn note_lambda_args(&mut self, list: Node<'_>, call: u32) {
        let mut c = list.walk();
        for (i, a) in list
            .named_children(&mut c)
            .filter(|n| !n.is_extra())
            .enumerate()
        {
            if kind(a) == N::Lambda {
                self.lambdas.insert(
                    a.id(),
                    LambdaParam::Arg {
                        call,
                        arg: i as u8,
                        param: 0,
                    },
                );
            }
        }
    }

    /// The call index for `node`, handed out once (to an expression that uses its value, or to
    /// the walk when it reaches the call).
    fn slot(&mut self, node: Node<'_>) -> u32 {
        if let Some(&i) = self.slots.get(&node.id()) {
            return i;
        }
        let i = self.facts.calls.len() as u32;
        self.facts.calls.push(Call {
            kind: CallKind::Method,
            name: String::new(),
            recv: None,
            ty: None,
            args: Vec::new(),
            caller: Caller::Type(0),
            ctx: 0,
            is_static_ctx: false,
            line: 0,
            anon: None,
        });
        self.slots.insert(node.id(), i);
        i
    }

    fn put_call(&mut self, node: Node<'_>, call: Call) {
        let i = self.slot(node);
        self.facts.calls[i as usize] = call;
    }

    fn invocation(&mut self, node: Node<'_>) {
        let Some((caller, ctx, is_static_ctx)) = self.context() else {
            return;
        };
        let Some(name) = self.field(node, self.ids.name) else {
            return;
        };
        let object = self.field(node, self.ids.object);
        // `A.super.m()`: a `super` child after the object.
        let qualified_super = object.is_some()
            && node
                .children(&mut node.walk())
                .any(|c| c.kind() == "super" && Some(c) != object);
        let recv = object.map(|o| {
            if qualified_super {
                Expr::Field(Box::new(self.expr(o, 0)), "super".into())
            } else {
                self.expr(o, 0)
            }
        });
        let arg_list = self.field(node, self.ids.arguments);
        let args = arg_list.map(|a| self.args(a)).unwrap_or_default();
        if let Some(list) = arg_list {
            let slot = self.slot(node);
            self.note_lambda_args(list, slot);
        }
        let call = Call {
            kind: CallKind::Method,
            name: self.text(name).to_string(),
            recv,
            ty: None,
            args,
            caller,
            ctx,
            is_static_ctx,
            line: Self::line(name),
            anon: None,
        };
        self.put_call(node, call);
    }

    fn creation(&mut self, node: Node<'_>) {
        let Some((caller, ctx, is_static_ctx)) = self.context() else {
            return;
        };
        let Some(tn) = self.field(node, self.ids.ty) else {
            return;
        };
        let ty = self.type_ref(tn);
        let mut c = node.walk();
        let kids: Vec<Node<'_>> = node.children(&mut c).collect();
        let new_tok = kids.iter().find(|k| k.kind() == "new").copied();
        let line = Self::line(new_tok.unwrap_or(node));
        // `outer.new Inner()`: an expression before `new`.
        let recv = kids
            .first()
            .filter(|k| k.is_named() && Some(**k) != Some(tn) && k.kind() != "new")
            .filter(|k| new_tok.is_some_and(|n| k.end_byte() <= n.start_byte()))
            .map(|k| self.expr(*k, 0));
        let arg_list = self.field(node, self.ids.arguments);
        let args = arg_list.map(|a| self.args(a)).unwrap_or_default();
        if let Some(list) = arg_list {
            let slot = self.slot(node);
            self.note_lambda_args(list, slot);
        }
        let body = kids.last().filter(|k| kind(**k) == N::ClassBody).copied();
        let anon = body.map(|_| {
            let sym_line = Self::line(tn);
            let sym = self.anon_symbol(sym_line);
            self.anonymous_type(ty.clone(), sym_line, ctx, sym)
        });
        let call = Call {
            kind: CallKind::New,
            name: ty.name.rsplit('.').next().unwrap_or_default().to_string(),
            recv,
            ty: Some(ty),
            args,
            caller,
            ctx,
            is_static_ctx,
            line,
            anon,
        };
        self.put_call(node, call);
        if let (Some(a), Some(body)) = (anon, body) {
            // Members of the anonymous class: `this` is the new class, calls belong to the holder.
            self.pending.push((
                body.id(),
                Frame::Type {
                    depth: 0,
                    ty: a,
                    caller,
                },
            ));
        }
    }

    /// The anonymous class symbol (`Outer.N`) whose name token is on `line`.
    fn anon_symbol(&mut self, line: u32) -> Option<usize> {
        let i = (0..self.symbols.len()).find(|&i| {
            let s = &self.symbols[i];
            !self.used[i]
                && s.name_line == line
                && s.kind == SymbolKind::Class
                && s.name.bytes().all(|b| b.is_ascii_digit())
        })?;
        self.used[i] = true;
        Some(i)
    }

    fn ctor_call(&mut self, node: Node<'_>) {
        let Some((caller, ctx, _)) = self.context() else {
            return;
        };
        let Some(tok) = self.field(node, self.ids.constructor) else {
            return;
        };
        let is_super = tok.kind() == "super";
        let recv = self.field(node, self.ids.object).map(|o| self.expr(o, 0));
        let args = self
            .field(node, self.ids.arguments)
            .map(|a| self.args(a))
            .unwrap_or_default();
        let call = Call {
            kind: if is_super {
                CallKind::SuperCtor
            } else {
                CallKind::ThisCtor
            },
            name: if is_super { "super" } else { "this" }.into(),
            recv,
            ty: None,
            args,
            caller,
            ctx,
            is_static_ctx: false,
            line: Self::line(tok),
            anon: None,
        };
        self.put_call(node, call);
    }

    fn method_ref(&mut self, node: Node<'_>) {
        let Some((caller, ctx, is_static_ctx)) = self.context() else {
            return;
        };
        let mut c = node.walk();
        let kids: Vec<Node<'_>> = node.children(&mut c).collect();
        let Some(colons) = kids.iter().position(|k| k.kind() == "::") else {
            return;
        };
        let Some(name) = kids[colons + 1..]
            .iter()
            .find(|k| k.kind() == "identifier" || k.kind() == "new")
        else {
            return;
        };
        let Some(first) = kids.first() else { return };
        let (recv, ty) = match first.kind() {
            "identifier"
            | "field_access"
            | "this"
            | "super"
            | "method_invocation"
            | "parenthesized_expression"
            | "array_access"
            | "object_creation_expression"
            | "scoped_identifier" => (Some(self.expr(*first, 0)), None),
            _ => (None, Some(self.type_ref(*first))),
        };
        let n = self.text(*name).to_string();
        let call = Call {
            kind: CallKind::MethodRef,
            name: n,
            recv,
            ty,
            args: Vec::new(),
            caller,
            ctx,
            is_static_ctx,
            line: Self::line(*name),
            anon: None,
        };
        self.put_call(node, call);
    }

    fn args(&mut self, list: Node<'_>) -> Vec<Expr> {
        let mut c = list.walk();
        let kids: Vec<Node<'_>> = list
            .named_children(&mut c)
            .filter(|n| !n.is_extra())
            .collect();
        kids.into_iter().map(|a| self.expr(a, 0)).collect()
    }

    /// A type as written, generics kept as arguments, annotations dropped.
    pub(super) fn type_ref(&self, n: Node<'_>) -> TypeRef {
        match n.kind() {
            "generic_type" => {
                let mut c = n.walk();
                let mut name = String::new();
                let mut args = Vec::new();
                for k in n.named_children(&mut c) {
                    match k.kind() {
                        "type_arguments" => {
                            for a in k.named_children(&mut k.walk()) {
                                if !matches!(a.kind(), "annotation" | "marker_annotation") {
                                    args.push(self.type_ref(a));
                                }
                            }
                        }
                        _ => name = erase_name(self.text(k)),
                    }
                }
                TypeRef {
                    name,
                    args,
                    dims: 0,
                }
            }
            "array_type" => {
                let mut t = self
                    .field(n, self.ids.element)
                    .map(|e| self.type_ref(e))
                    .unwrap_or_default();
                if let Some(d) = self.field(n, self.ids.dimensions) {
                    t.dims += dims_of(self.text(d));
                }
                t
            }
            "annotated_type" => {
                let mut c = n.walk();
                let inner = n
                    .named_children(&mut c)
                    .filter(|k| !matches!(k.kind(), "annotation" | "marker_annotation"))
                    .last();
                inner.map(|i| self.type_ref(i)).unwrap_or_default()
            }
            "wildcard" => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> = n.children(&mut c).collect();
                let is_super = kids.iter().any(|k| k.kind() == "super");
                let bound = kids
                    .iter()
                    .filter(|k| k.is_named())
                    .find(|k| !matches!(k.kind(), "annotation" | "marker_annotation"));
                // `? extends T` and `? super T` both stand for `T` where a lambda parameter or a
                // receiver is typed (javac infers `T` for a lambda given `Consumer<? super T>`).
                let _ = is_super;
                TypeRef {
                    name: "?".into(),
                    args: bound.map(|b| vec![self.type_ref(*b)]).unwrap_or_default(),
                    dims: 0,
                }
            }
            _ => TypeRef::named(erase_name(self.text(n))),
        }
    }

    /// Converts an expression node.
    pub(super) fn expr(&mut self, n: Node<'_>, depth: usize) -> Expr {
        if depth > MAX_EXPR_DEPTH {
            return Expr::Opaque;
        }
        let d = depth + 1;
        match n.kind() {
            "identifier" => {
                let t = self.text(n);
                match self.lookup(t) {
                    Some(i) => Expr::Var(i),
                    None => Expr::Name(t.to_string()),
                }
            }
            "field_access" => {
                let obj = self.field(n, self.ids.object);
                let f = self.field(n, self.ids.field);
                match (obj, f) {
                    (Some(o), Some(f)) if f.kind() == "this" => {
                        Expr::QualThis(erase_name(self.text(o)))
                    }
                    (Some(o), Some(f)) => {
                        let has_super = n
                            .children(&mut n.walk())
                            .any(|c| c.kind() == "super" && c != o);
                        let o = self.expr(o, d);
                        let o = if has_super {
                            Expr::Field(Box::new(o), "super".into())
                        } else {
                            o
                        };
                        Expr::Field(Box::new(o), self.text(f).to_string())
                    }
                    _ => Expr::Unknown,
                }
            }
            "scoped_identifier" => {
                // `a.b.c` in an expression position (rare: annotations, some qualifiers).
                let t = self.text(n);
                let mut parts = t.split('.').map(str::trim);
                let first = parts.next().unwrap_or_default();
                let mut e = match self.lookup(first) {
                    Some(i) => Expr::Var(i),
                    None => Expr::Name(first.to_string()),
                };
                for p in parts {
                    e = Expr::Field(Box::new(e), p.to_string());
                }
                e
            }
            "method_invocation" | "explicit_constructor_invocation" => Expr::Call(self.slot(n)),
            "object_creation_expression" => {
                let i = self.slot(n);
                let _ = i;
                self.field(n, self.ids.ty)
                    .map(|t| Expr::New(self.type_ref(t)))
                    .unwrap_or(Expr::Unknown)
            }
            "array_creation_expression" => {
                let mut t = self
                    .field(n, self.ids.ty)
                    .map(|t| self.type_ref(t))
                    .unwrap_or_default();
                let mut c = n.walk();
                for k in n.children(&mut c) {
                    match k.kind() {
                        "dimensions_expr" => t.dims += 1,
                        "dimensions" => t.dims += dims_of(self.text(k)),
                        _ => {}
                    }
                }
                Expr::NewArray(t)
            }
            "string_literal" => Expr::Str(unquote(self.text(n))),
            "character_literal" => Expr::Lit(Lit::Char),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                if self.text(n).ends_with(['l', 'L']) {
                    Expr::Lit(Lit::Long)
                } else {
                    Expr::Lit(Lit::Int)
                }
            }
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                if self.text(n).ends_with(['f', 'F']) {
                    Expr::Lit(Lit::Float)
                } else {
                    Expr::Lit(Lit::Double)
                }
            }
            "true" | "false" => Expr::Lit(Lit::Bool),
            "null_literal" => Expr::Lit(Lit::Null),
            "this" => Expr::This,
            "super" => Expr::Super,
            "parenthesized_expression" => n
                .named_child(0)
                .map(|c| self.expr(c, d))
                .unwrap_or(Expr::Unknown),
            "cast_expression" => self
                .field(n, self.ids.ty)
                .map(|t| Expr::Cast(self.type_ref(t)))
                .unwrap_or(Expr::Unknown),
            "array_access" => self
                .field(n, self.ids.array)
                .map(|a| Expr::Index(Box::new(self.expr(a, d))))
                .unwrap_or(Expr::Unknown),
            "ternary_expression" => {
                let a = self
                    .field(n, self.ids.consequence)
                    .map(|x| self.expr(x, d))
                    .unwrap_or(Expr::Unknown);
                let b = self
                    .field(n, self.ids.alternative)
                    .map(|x| self.expr(x, d))
                    .unwrap_or(Expr::Unknown);
                Expr::Cond(Box::new(a), Box::new(b))
            }
            "binary_expression" => {
                let op = self
                    .field(n, self.ids.operator)
                    .map(|o| o.kind())
                    .unwrap_or("");
                match op {
                    "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>" | ">>>" => {
                        let l = self
                            .field(n, self.ids.left)
                            .map(|x| self.expr(x, d))
                            .unwrap_or(Expr::Unknown);
                        let r = self
                            .field(n, self.ids.right)
                            .map(|x| self.expr(x, d))
                            .unwrap_or(Expr::Unknown);
                        if op == "+" {
                            Expr::Plus(Box::new(l), Box::new(r))
                        } else if matches!(op, "&" | "|" | "^")
                            && (l == Expr::Bool || r == Expr::Bool)
                        {
                            Expr::Bool
                        } else {
                            Expr::Arith(Box::new(l), Box::new(r))
                        }
                    }
                    _ => Expr::Bool,
                }
            }
            "unary_expression" => {
                let op = self
                    .field(n, self.ids.operator)
                    .map(|o| o.kind())
                    .unwrap_or("");
                if op == "!" {
                    Expr::Bool
                } else {
                    let x = self
                        .field(n, self.ids.operand)
                        .map(|x| self.expr(x, d))
                        .unwrap_or(Expr::Unknown);
                    Expr::Arith(Box::new(x), Box::new(Expr::Lit(Lit::Int)))
                }
            }
            "update_expression" => n
                .named_child(0)
                .map(|x| Expr::Assign(Box::new(self.expr(x, d))))
                .unwrap_or(Expr::Unknown),
            "assignment_expression" => self
                .field(n, self.ids.left)
                .map(|x| Expr::Assign(Box::new(self.expr(x, d))))
                .unwrap_or(Expr::Unknown),
            "instanceof_expression" => Expr::Bool,
            "class_literal" => n
                .named_child(0)
                .map(|t| Expr::ClassLit(self.type_ref(t)))
                .unwrap_or(Expr::Unknown),
            "lambda_expression" => {
                let arity = self
                    .field(n, self.ids.parameters)
                    .map(|p| {
                        if p.kind() == "identifier" {
                            1
                        } else {
                            p.named_child_count() as u8
                        }
                    })
                    .unwrap_or(0);
                Expr::Lambda(arity)
            }
            "method_reference" => {
                let _ = self.slot(n);
                Expr::MethodRef
            }
            _ => Expr::Opaque,
        }
    }
}

fn local(ty: Option<TypeRef>, init: Option<Expr>, each: bool) -> Local {
    Local {
        name: String::new(),
        ty,
        init,
        each,
        annotations: Vec::new(),
        lambda: None,
    }
}

/// Whether a static field's initializer is worth keeping: a string constant or built from them.
fn is_constant_expr(e: &Expr) -> bool {
    match e {
        Expr::Str(_) | Expr::Name(_) | Expr::Lit(_) => true,
        Expr::Field(q, _) => matches!(**q, Expr::Name(_) | Expr::Field(..)),
        Expr::Plus(a, b) => is_constant_expr(a) && is_constant_expr(b),
        _ => false,
    }
}

/// `[][]` → 2.
fn dims_of(text: &str) -> u8 {
    text.bytes().filter(|&b| b == b'[').count() as u8
}

/// A type name as written without generics, annotations or whitespace (`Map . Entry` → `Map.Entry`).
fn erase_name(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut angle = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => angle += 1,
            '>' => angle = angle.saturating_sub(1),
            '@' if angle == 0 => {
                while chars
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
                {
                    chars.next();
                }
                // Annotation arguments.
                if chars.peek() == Some(&'(') {
                    let mut depth = 0;
                    for c in chars.by_ref() {
                        match c {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            _ if angle > 0 || c.is_whitespace() => {}
            _ => out.push(c),
        }
    }
    out
}

/// The value of a string literal or text block (common escapes decoded).
pub(super) fn unquote(lit: &str) -> String {
    let body = if let Some(b) = lit.strip_prefix("\"\"\"") {
        let b = b.strip_suffix("\"\"\"").unwrap_or(b);
        // A text block starts after the line terminator that follows the opening quotes.
        let b = b.split_once('\n').map_or(b, |(_, rest)| rest);
        return text_block(b);
    } else {
        let b = lit.strip_prefix('"').unwrap_or(lit);
        b.strip_suffix('"').unwrap_or(b)
    };
    unescape(body)
}

fn text_block(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(l.get(indent..).unwrap_or("").trim_end());
    }
    unescape(&out)
}

fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests;
