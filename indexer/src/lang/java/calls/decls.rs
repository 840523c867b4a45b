//! Declarations as graph facts: types (named, local, anonymous, enum constant bodies), their
//! supertypes, fields (constant initializers kept), methods and constructors with parameters,
//! record components; symbol ids taken from the symbol extractor's output.

use super::*;

impl Walker<'_, '_> {
    pub(super) fn type_decl(&mut self, node: Node<'_>, k: N, depth: usize) {
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
        let annotations = self.facts.types[ty as usize].annotations.clone();
        self.annotation_reads(&annotations, Caller::Init(ty, true), ty);
        self.anon_counter.push(0);
        self.frames.push(Frame::Type {
            depth,
            ty,
            caller: Caller::Init(ty, false),
        });
        if kind == TypeKind::Record {
            self.record_components(node, ty);
        }
    }

    /// Record components: private fields and public accessors.
    pub(super) fn record_components(&mut self, node: Node<'_>, ty: u32) {
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
    pub(super) fn type_params(&self, node: Node<'_>) -> (Vec<String>, Vec<Option<TypeRef>>) {
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

    pub(super) fn method_decl(&mut self, node: Node<'_>, k: N, depth: usize) {
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
        let components: Vec<(String, TypeRef)> = if k == N::CompactConstructor {
            t.fields
                .iter()
                .filter(|f| !f.is_static)
                .map(|f| (f.name.clone(), f.ty.clone()))
                .collect()
        } else {
            Vec::new()
        };
        self.push_scope(depth);
        let mut params = Vec::new();
        let mut varargs = false;
        if k == N::CompactConstructor {
            // The record's components are the parameters.
            for (n, tr) in components {
                params.push(self.declare(n, local(Some(tr), None, false)));
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
                // Parameters keep their names (a `@Bean` method's are bean names).
                l.name = n.to_string();
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
        let annotations = method.annotations.clone();
        let t = &mut self.facts.types[ty as usize];
        let m = t.methods.len() as u32;
        t.methods.push(method);
        let anonymous = t.anonymous;
        let caller = if anonymous {
            type_caller
        } else {
            Caller::Method(ty, m)
        };
        self.annotation_reads(&annotations, caller, ty);
        self.frames.push(Frame::Code {
            depth,
            caller,
            is_static,
        });
    }

    pub(super) fn field_decl(&mut self, node: Node<'_>, depth: usize) {
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
                        ty: Box::new(tr.clone()),
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
        self.annotation_reads(&mods.annotations, caller.in_init(ty, is_static), ty);
        self.frames.push(Frame::Code {
            depth,
            caller: caller.in_init(ty, is_static),
            is_static,
        });
    }

    pub(super) fn enum_constant(&mut self, node: Node<'_>, depth: usize) {
        let Some((ty, caller)) = self.type_frame() else {
            return;
        };
        let caller = caller.in_init(ty, true);
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
            ty: Some(Box::new(TypeRef::named(enum_name))),
            args,
            caller,
            ctx: ty,
            is_static_ctx: true,
            line,
            anon: None,
            role: CallRole::Other,
        };
        self.facts.calls.push(call);
    }

    /// Declares an anonymous class of supertype `sup` created at `line`; returns its index.
    pub(super) fn anonymous_type(
        &mut self,
        sup: TypeRef,
        line: u32,
        owner: u32,
        sym: Option<usize>,
    ) -> u32 {
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
}
