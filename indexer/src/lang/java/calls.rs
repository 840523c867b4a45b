//! Graph facts from a parsed Java file: declared types with their members, locals bound to their
//! declarations, every call site (method calls, `new`, `super(..)`/`this(..)`, method
//! references) with its receiver and arguments as [`Expr`]s, and the names and field accesses
//! code reads (`reads.rs`). Runs over the tree the symbol extractor already parsed (one parse per
//! file), walking the pre-order both share; expressions are converted recursively under a depth
//! cap.
//!
//! Attribution, of calls and reads alike: to the innermost method or constructor; lambda bodies
//! and anonymous classes belong to the method that holds them; field initializers and
//! initializer blocks belong to the type. Lines are those javac records: the name token of a
//! call, the `new` token of a creation, the `super`/`this` keyword of a constructor call.

mod assigns;
mod decls;
mod expr;
mod reads;
mod uses;

use super::frameworks;
use crate::graph::facts::{
    Assign, Call, CallKind, CallRole, Caller, Expr, FieldDecl, Import, JavaFacts, LambdaParam,
    Local, MethodDecl, Read, TypeDecl, TypeKind, TypeRef,
};
use crate::lang::preorder::Preorder;
use crate::model::{Symbol, SymbolKind};
pub(crate) use expr::unquote;
use expr::{dims_of, is_constant_expr};
use reads::{Pos, ReadKey};
use std::collections::HashMap;
use std::sync::OnceLock;
use tree_sitter::Node;

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
    Assign,
    Ident,
    FieldAccess,
}

pub(super) struct Ids {
    kinds: Vec<N>,
    /// By node kind: where an identifier child of such a node stands ([`Pos`]).
    pos: Vec<Pos>,
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
    pub condition: u16,
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
                    "assignment_expression" => N::Assign,
                    "identifier" => N::Ident,
                    "field_access" => N::FieldAccess,
                    "class_body" | "enum_body" | "interface_body" | "annotation_type_body" => {
                        N::ClassBody
                    }
                    // Nothing below these holds a call site or a local: not walked.
                    "line_comment"
                    | "block_comment"
                    | "string_literal"
                    | "character_literal"
                    | "decimal_integer_literal"
                    | "hex_integer_literal"
                    | "octal_integer_literal"
                    | "binary_integer_literal"
                    | "decimal_floating_point_literal"
                    | "hex_floating_point_literal"
                    | "null_literal"
                    | "true"
                    | "false"
                    | "this"
                    | "super"
                    | "type_identifier"
                    | "scoped_identifier"
                    | "scoped_type_identifier"
                    | "generic_type"
                    | "array_type"
                    | "integral_type"
                    | "floating_point_type"
                    | "boolean_type"
                    | "void_type"
                    | "dimensions"
                    | "modifiers"
                    | "formal_parameters"
                    | "superclass"
                    | "super_interfaces"
                    | "extends_interfaces"
                    | "permits"
                    | "throws"
                    | "package_declaration"
                    | "import_declaration"
                    | "type_arguments"
                    | "type_parameters" => N::Skip,
                    _ => N::Other,
                }
            })
            .collect();
        let pos = (0..lang.node_kind_count() as u16)
            .map(|id| reads::pos(lang.node_kind_for_id(id).unwrap_or_default()))
            .collect();
        Ids {
            kinds,
            pos,
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
            condition: f("condition"),
        }
    })
}

/// Nodes the call-fact walk never goes into.
pub(super) fn opaque(n: Node<'_>) -> bool {
    kind(n) == N::Skip
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

/// Hashes tree-sitter node ids (addresses): already unique, one multiply spreads them.
#[derive(Default, Clone, Copy)]
struct NodeIdHasher(u64);

impl std::hash::Hasher for NodeIdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_usize(&mut self, x: usize) {
        self.0 = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type NodeIds = std::hash::BuildHasherDefault<NodeIdHasher>;

/// Extracts the graph facts of a parsed file. `symbols` are the file's symbols, used for ids.
pub(crate) fn extract(
    tree: &Preorder<'_>,
    src: &[u8],
    package: Option<&str>,
    imports: &[String],
    symbols: &[Symbol],
) -> JavaFacts {
    let mut by_line: Vec<(u32, &str, usize)> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name_line, s.name.as_str(), i))
        .collect();
    by_line.sort_unstable();
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
        slots: HashMap::default(),
        anon_counter: Vec::new(),
        pending: Vec::new(),
        lambdas: HashMap::default(),
        reads_seen: rustc_hash::FxHashSet::default(),
    };
    // The ancestors of the node visited (`path[d]` at depth `d`).
    let mut path: Vec<Node<'_>> = Vec::with_capacity(64);
    tree.walk(|node, depth, previous| {
        while x.frames.last().is_some_and(|f| f.depth() >= depth) {
            if let Some(Frame::Scope { locals_mark, .. }) = x.frames.pop() {
                x.scope.truncate(locals_mark);
            }
        }
        path.truncate(depth);
        if let Some(i) = x.pending.iter().rposition(|(id, _)| *id == node.id()) {
            let (_, mut frame) = x.pending.swap_remove(i);
            if let Frame::Type { depth: d, .. } = &mut frame {
                *d = depth;
            }
            x.frames.push(frame);
        }
        let walk_in = x.visit(node, depth, &path, previous);
        path.push(node);
        walk_in
    });
    x.facts
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
    /// The symbols by (name line, name), sorted.
    by_line: Vec<(u32, &'y str, usize)>,
    used: Vec<bool>,
    facts: JavaFacts,
    frames: Vec<Frame>,
    /// Locals in scope, innermost last: (name, index into `facts.locals`).
    scope: Vec<(std::borrow::Cow<'s, str>, u32)>,
    /// Call indices handed out to expressions before the walk reached the call.
    slots: HashMap<usize, u32, NodeIds>,
    /// Anonymous classes numbered so far per type (javac's `Outer$N`).
    anon_counter: Vec<u32>,
    /// Frames to push when the walk reaches the node with this id (anonymous class bodies).
    pending: Vec<(usize, Frame)>,
    /// Lambdas met as an argument or an initializer, by node id: where their parameters' types
    /// come from (`param` is filled per parameter).
    lambdas: HashMap<usize, LambdaParam, NodeIds>,
    /// Reads recorded so far: a read repeated by the same caller adds nothing.
    reads_seen: rustc_hash::FxHashSet<ReadKey<'s>>,
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
        let from = self.by_line.partition_point(|e| (e.0, e.1) < (line, name));
        let i = self.by_line[from..]
            .iter()
            .take_while(|e| e.0 == line && e.1 == name)
            .map(|e| e.2)
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
    fn declare(&mut self, name: impl Into<std::borrow::Cow<'s, str>>, mut local: Local) -> u32 {
        let idx = self.facts.locals.len() as u32;
        let name = name.into();
        if local.name.is_empty() {
            // Call sites name the locals they hand on and call on.
            local.name = name.to_string();
        }
        self.facts.locals.push(local);
        self.scope.push((name, idx));
        idx
    }

    fn lookup(&self, name: &str) -> Option<u32> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n.as_ref() == name)
            .map(|(_, i)| *i)
    }

    /// Handles one node (`path`: its ancestors; `previous`: its previous sibling); returns
    /// whether to walk into its children.
    fn visit(
        &mut self,
        node: Node<'_>,
        depth: usize,
        path: &[Node<'_>],
        previous: Option<Node<'_>>,
    ) -> bool {
        match kind(node) {
            N::Skip => false,
            N::Ident => {
                self.ident(node, path, previous);
                false
            }
            N::FieldAccess => {
                self.field_access(node, path, previous);
                true
            }
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
                if let Some((ty, caller)) = self.type_frame() {
                    self.frames.push(Frame::Code {
                        depth,
                        caller: caller.in_init(ty, true),
                        is_static: true,
                    });
                }
                self.push_scope(depth);
                true
            }
            N::Block => {
                // An instance initializer is a block directly in a type body: no member frame
                // stands between it and the type.
                if let Some(Frame::Type { caller, ty, .. }) = self.frames.last().copied() {
                    self.frames.push(Frame::Code {
                        depth,
                        caller: caller.in_init(ty, false),
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
                self.set_role(node, path);
                true
            }
            N::Assign => {
                self.assignment(node);
                true
            }
            N::Creation => {
                self.creation(node);
                self.set_role(node, path);
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
                // catch (A | B e): a union's members are typed through `Throwable`, where
                // the methods called on exceptions are declared.
                let catch_type = node
                    .named_children(&mut node.walk())
                    .find(|c| c.kind() == "catch_type");
                let ty = catch_type.and_then(|c| match c.named_child_count() {
                    1 => c.named_child(0).map(|t| self.type_ref(t)),
                    _ => Some(TypeRef::named("java.lang.Throwable")),
                });
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
    fn declare_in_parent(&mut self, name: &'s str, l: Local, depth: usize) {
        self.declare_at(name, l, depth.saturating_sub(1));
    }

    /// Declares a local scoped to the node at `scope_depth` (an ancestor of the current node).
    fn declare_at(&mut self, name: &'s str, l: Local, scope_depth: usize) {
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
    fn declare_in_block(&mut self, name: &'s str, l: Local) {
        self.declare(name, l);
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
                        ty: Box::new(t.clone()),
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
}

fn local(ty: Option<TypeRef>, init: Option<Expr>, each: bool) -> Local {
    Local {
        name: String::new(),
        ty,
        init: init.map(Box::new),
        each,
        annotations: Vec::new(),
        lambda: None,
    }
}

#[cfg(test)]
mod tests;
