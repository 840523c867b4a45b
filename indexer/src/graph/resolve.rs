//! Call resolution: the static type of every receiver, then the method javac would pick.
//!
//! Receivers are typed from locals and parameters (bound by the extractor), fields of the
//! enclosing and inherited types, static imports, type names (a static call), `this`/`super`,
//! literals, casts, creations and the return types of earlier links of a chain (generics
//! substituted: `Map<String, List<File>>.get(k).get(0).getName()` types every link). The method is
//! looked up in the receiver's type and all its supertypes; overloads are chosen by argument count
//! and, where known, argument types. When the receiver type is known but the method is not in the
//! table (a JDK or library member), the edge names the receiver type; when the receiver type is
//! unknown, the edge keeps the method name alone with a low confidence, never a guess.

use crate::graph::Files;
use crate::graph::edge::{Edge, EdgeKind, INSTANCE_INIT, STATIC_INIT};
use crate::graph::facts::{Call, CallKind, Caller, JavaFacts};
use crate::graph::frameworks;
use crate::graph::types::{MethodInfo, Origin, Scope, Ty, TypeId, TypeTable, subst};

mod constants;
mod fields;
mod overload;
mod reads;
mod site;
mod typing;
use std::sync::Arc;

/// Confidence of an edge whose callee is only a name.
pub const UNRESOLVED: f32 = 0.2;

/// What a call resolved to.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// `table.types[ty].methods[idx]`.
    Method {
        ty: TypeId,
        idx: usize,
        conf: f32,
    },
    /// The default constructor of a type that declares none.
    ImplicitCtor(TypeId),
    /// A member of a type outside the table (or not listed in it): the receiver's type.
    External {
        owner: Arc<str>,
        conf: f32,
    },
    Unresolved,
    /// A placeholder the extractor never filled (broken source).
    Skip,
}

/// The value of an expression as far as typing goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Value(Ty),
    /// A type name used as a qualifier (static member access).
    Type(Ty),
    /// `super` or `X.super`: member lookup starts at this type.
    Super(Ty),
    Package(String),
    Unknown,
}

#[derive(Debug, Clone)]
pub struct Resolved {
    pub target: Target,
    /// The type of the call expression.
    pub ret: Ty,
}

/// Resolves the calls of file `fi` (whose Java facts are `j`) into call, constant and read
/// edges; also returns what the file contributes to framework edges.
pub fn resolve_file<'a>(
    table: &'a TypeTable,
    files: Files<'a>,
    fi: u32,
    j: &'a JavaFacts,
) -> (Vec<Edge>, frameworks::FileFw) {
    let mut r = FileResolver::new(table, files, fi, j);
    r.resolve_calls();
    let fw = frameworks::collect(&mut r);
    let mut edges = r.edges();
    edges.extend(r.constant_edges());
    edges.extend(r.read_edges());
    (edges, fw)
}

/// Resolution state for one file: memoized call results and local types.
pub struct FileResolver<'a> {
    pub table: &'a TypeTable,
    pub files: Files<'a>,
    pub fi: u32,
    pub j: &'a JavaFacts,
    calls: Vec<Option<Resolved>>,
    /// Per call: the method chosen and its declaring type as seen from the receiver (lambda
    /// parameters are typed from it).
    decls: Vec<Option<(TypeId, usize, Ty)>>,
    last_decl: Option<(TypeId, usize, Ty)>,
    locals: Vec<Option<Ty>>,
    depth: u32,
}

/// Calls nested deeper than this (through receivers and local initializers) are not typed.
const MAX_DEPTH: u32 = 200;

impl<'a> FileResolver<'a> {
    pub fn new(
        table: &'a TypeTable,
        files: Files<'a>,
        fi: u32,
        j: &'a JavaFacts,
    ) -> FileResolver<'a> {
        FileResolver {
            table,
            files,
            fi,
            j,
            calls: vec![None; j.calls.len()],
            decls: vec![None; j.calls.len()],
            last_decl: None,
            locals: vec![None; j.locals.len()],
            depth: 0,
        }
    }

    pub fn path(&self) -> &'a str {
        self.files.path(self.fi as usize).as_str()
    }

    /// The table id of this file's `types[i]`.
    pub fn type_id(&self, i: u32) -> Option<TypeId> {
        self.table
            .file_types
            .get(self.fi as usize)
            .and_then(|v| v.get(i as usize))
            .copied()
    }

    /// The scope names in `call` are resolved in.
    pub fn scope_of(&self, call: &'a Call) -> Scope<'a> {
        self.scope_at(call.caller, call.ctx)
    }

    /// The scope of code of `caller` whose `this` is `types[ctx]`.
    pub fn scope_at(&self, caller: Caller, ctx: u32) -> Scope<'a> {
        let tparams: &'a [String] = match caller {
            Caller::Method(t, m) => self
                .j
                .types
                .get(t as usize)
                .and_then(|t| t.methods.get(m as usize))
                .map(|m| m.type_params.as_slice())
                .unwrap_or(&[]),
            Caller::Init(..) => &[],
        };
        Scope {
            file: self.fi,
            lex: self.type_id(ctx),
            method_tparams: tparams,
        }
    }

    /// Resolves every call, innermost links of chains first.
    pub fn resolve_calls(&mut self) {
        for i in (0..self.j.calls.len()).rev() {
            self.call(i as u32);
        }
    }

    /// The resolution of call `i` (memoized).
    pub fn call(&mut self, i: u32) -> Resolved {
        if let Some(Some(r)) = self.calls.get(i as usize) {
            return r.clone();
        }
        let Some(call) = self.j.calls.get(i as usize) else {
            return Resolved {
                target: Target::Skip,
                ret: Ty::Unknown,
            };
        };
        if self.depth > MAX_DEPTH {
            return Resolved {
                target: Target::Unresolved,
                ret: Ty::Unknown,
            };
        }
        self.depth += 1;
        self.last_decl = None;
        let r = self.resolve_call(call);
        self.decls[i as usize] = self.last_decl.take();
        self.depth -= 1;
        self.calls[i as usize] = Some(r.clone());
        r
    }

    fn resolve_call(&mut self, call: &'a Call) -> Resolved {
        if call.name.is_empty() && call.ty.is_none() {
            return Resolved {
                target: Target::Skip,
                ret: Ty::Unknown,
            };
        }
        let sc = self.scope_of(call);
        match call.kind {
            CallKind::Method => self.method_call(call, &sc),
            CallKind::New => {
                let ty = call
                    .ty
                    .as_ref()
                    .map(|t| self.table.resolve_ref(t, &sc))
                    .unwrap_or(Ty::Unknown);
                let target = self.ctor_target(&ty, call);
                let ret = match call.anon.and_then(|a| self.type_id(a)) {
                    Some(a) => Ty::Class(a, Vec::new()),
                    None => ty,
                };
                Resolved { target, ret }
            }
            CallKind::SuperCtor => {
                let sup = sc
                    .lex
                    .and_then(|t| self.table.types[t as usize].superclass.clone())
                    .or_else(|| self.table.object.map(|o| Ty::Class(o, Vec::new())))
                    .unwrap_or(Ty::Unknown);
                Resolved {
                    target: self.ctor_target(&sup, call),
                    ret: Ty::Prim("void"),
                }
            }
            CallKind::ThisCtor => {
                let me = sc
                    .lex
                    .map(|t| Ty::Class(t, Vec::new()))
                    .unwrap_or(Ty::Unknown);
                Resolved {
                    target: self.ctor_target(&me, call),
                    ret: Ty::Prim("void"),
                }
            }
            CallKind::MethodRef => {
                let base = match (&call.recv, &call.ty) {
                    (Some(e), _) => match self.val(e, &sc) {
                        Val::Value(t) | Val::Type(t) | Val::Super(t) => t,
                        _ => Ty::Unknown,
                    },
                    (None, Some(tr)) => self.table.resolve_ref(tr, &sc),
                    (None, None) => Ty::Unknown,
                };
                let target = if call.name == "new" {
                    self.ctor_target(&base, call)
                } else {
                    match self.lookup(&base, &call.name, None, &[]) {
                        Lookup::Found { ty, idx, conf, .. } => Target::Method {
                            ty,
                            idx,
                            conf: conf.min(0.9),
                        },
                        Lookup::External(owner) => Target::External { owner, conf: 0.8 },
                        Lookup::NotFound => Target::Unresolved,
                    }
                };
                Resolved {
                    target,
                    ret: Ty::Unknown,
                }
            }
        }
    }

    fn arg_types(&mut self, call: &'a Call, sc: &Scope<'a>) -> Vec<Ty> {
        call.args
            .iter()
            .map(|a| match self.val(a, sc) {
                Val::Value(t) => t,
                _ => Ty::Unknown,
            })
            .collect()
    }

    fn method_call(&mut self, call: &'a Call, sc: &Scope<'a>) -> Resolved {
        let args = self.arg_types(call, sc);
        let argc = Some(call.args.len());
        let unresolved = Resolved {
            target: Target::Unresolved,
            ret: Ty::Unknown,
        };
        let Some(recv) = &call.recv else {
            // Implicit `this`: the enclosing types from the innermost out, then static imports.
            let mut external: Option<Arc<str>> = None;
            let mut lex = sc.lex;
            while let Some(t) = lex {
                let me = self.self_type(t);
                match self.lookup(&me, &call.name, argc, &args) {
                    Lookup::Found { ty, idx, conf, at } => {
                        return self.found(ty, idx, conf, &at, &args, &me);
                    }
                    Lookup::External(o) => {
                        if external.is_none() {
                            external = Some(o);
                        }
                    }
                    Lookup::NotFound => {}
                }
                lex = self.table.types[t as usize].outer;
            }
            if let Some(r) = self.static_import_call(&call.name, argc, &args, sc) {
                return r;
            }
            return match external {
                Some(owner) => Resolved {
                    target: Target::External { owner, conf: 0.7 },
                    ret: Ty::Unknown,
                },
                None => unresolved,
            };
        };
        let base = match self.val(recv, sc) {
            Val::Value(Ty::Var(v)) | Val::Type(Ty::Var(v)) => self.bound_of(&v, call.caller, sc),
            Val::Value(Ty::Array(_)) => self
                .table
                .object
                .map(|o| Ty::Class(o, Vec::new()))
                .unwrap_or(Ty::Unknown),
            Val::Value(t) | Val::Type(t) | Val::Super(t) => t,
            Val::Package(_) | Val::Unknown => return unresolved,
        };
        match self.lookup(&base, &call.name, argc, &args) {
            Lookup::Found { ty, idx, conf, at } => self.found(ty, idx, conf, &at, &args, &base),
            Lookup::External(owner) => Resolved {
                target: Target::External {
                    owner,
                    conf: if matches!(base, Ty::Ext(_)) { 0.9 } else { 0.8 },
                },
                ret: self.object_method_ret(&call.name, call.args.len()),
            },
            Lookup::NotFound => unresolved,
        }
    }

    /// The return type of `Object`'s method `name`, which no override can change
    /// (`toString()` is a `String` on any receiver).
    fn object_method_ret(&self, name: &str, argc: usize) -> Ty {
        let Some(o) = self.table.object else {
            return Ty::Unknown;
        };
        let info = &self.table.types[o as usize];
        match name {
            "toString" | "hashCode" | "getClass" if argc == 0 => {}
            "equals" if argc == 1 => {}
            _ => return Ty::Unknown,
        }
        info.methods_named(name)
            .first()
            .and_then(|m| m.ret.clone())
            .unwrap_or(Ty::Unknown)
    }

    /// A found method: the target and the call's type (generics substituted). A method of the
    /// JDK table is named by the receiver's static type, as javac names it in the instruction
    /// (the table does not say which JDK class redeclares what).
    fn found(
        &mut self,
        ty: TypeId,
        idx: usize,
        conf: f32,
        at: &Ty,
        args: &[Ty],
        receiver: &Ty,
    ) -> Resolved {
        self.last_decl = Some((ty, idx, at.clone()));
        let r = self.found_in(ty, idx, conf, at, args);
        let info = &self.table.types[ty as usize];
        if matches!(info.origin, Origin::Jdk) {
            // javac names `Object`'s own methods by `Object` when nothing nearer redeclares them.
            let owner = if info.fqn == "java.lang.Object" {
                info.fqn.as_str().into()
            } else {
                self.table.display(receiver).into()
            };
            return Resolved {
                target: Target::External { owner, conf },
                ret: r.ret,
            };
        }
        r
    }

    fn found_in(&mut self, ty: TypeId, idx: usize, conf: f32, at: &Ty, args: &[Ty]) -> Resolved {
        let m = &self.table.types[ty as usize].methods[idx];
        let ret = match &m.ret {
            Some(r) => {
                let params = &self.table.types[ty as usize].params;
                let at_args: &[Ty] = match at {
                    Ty::Class(_, a) => a,
                    _ => &[],
                };
                let r = subst(r, params, at_args);
                self.infer(r, m, args)
            }
            None => Ty::Prim("void"),
        };
        Resolved {
            target: Target::Method { ty, idx, conf },
            ret,
        }
    }

    /// Fills the `$0` placeholder and method type variables from the arguments.
    fn infer(&self, r: Ty, m: &MethodInfo, args: &[Ty]) -> Ty {
        match r {
            Ty::Arg0 => args.first().cloned().unwrap_or(Ty::Unknown),
            Ty::Class(id, a) if a.iter().any(|x| matches!(x, Ty::Arg0)) => Ty::Class(
                id,
                a.into_iter()
                    .map(|x| match x {
                        Ty::Arg0 => args.first().cloned().unwrap_or(Ty::Unknown),
                        other => other,
                    })
                    .collect(),
            ),
            Ty::Var(v) if m.tparams.iter().any(|p| **p == *v) => {
                // `<T> T f(T x)` and `<T> T f(Class<T> c)`.
                for (p, a) in m.params.iter().zip(args) {
                    match p {
                        Ty::Var(pv) if *pv == v => return a.clone(),
                        Ty::Class(_, pa) if matches!(pa.first(), Some(Ty::Var(pv)) if *pv == v) => {
                            if let Ty::Class(_, aa) = a
                                && let Some(x) = aa.first()
                            {
                                return x.clone();
                            }
                        }
                        _ => {}
                    }
                }
                Ty::Unknown
            }
            other => other,
        }
    }

    fn static_import_call(
        &mut self,
        name: &str,
        argc: Option<usize>,
        args: &[Ty],
        sc: &Scope<'a>,
    ) -> Option<Resolved> {
        let f = &self.table.files[sc.file as usize];
        let mut owners: Vec<&str> = f
            .static_single
            .iter()
            .filter(|(m, _)| m == name)
            .map(|(_, t)| t.as_str())
            .collect();
        owners.extend(f.static_on_demand.iter().map(|s| s.as_str()));
        let mut external = None;
        for (k, owner) in owners.iter().enumerate() {
            let single = k < owners.len() - f.static_on_demand.len();
            match self.table.resolve_qualified(owner) {
                Some(t) => {
                    let me = Ty::Class(t, Vec::new());
                    if let Lookup::Found { ty, idx, conf, at } = self.lookup(&me, name, argc, args)
                    {
                        return Some(self.found(ty, idx, conf, &at, args, &me));
                    }
                }
                None if single && external.is_none() => external = Some(Arc::<str>::from(*owner)),
                None => {}
            }
        }
        external.map(|owner| Resolved {
            target: Target::External { owner, conf: 0.9 },
            ret: Ty::Unknown,
        })
    }

    /// Constructor of `ty` for `call`'s arguments.
    fn ctor_target(&mut self, ty: &Ty, call: &'a Call) -> Target {
        match ty {
            Ty::Class(t, _) => {
                let info = &self.table.types[*t as usize];
                if matches!(info.origin, Origin::Jdk) {
                    return Target::External {
                        owner: info.fqn.as_str().into(),
                        conf: 1.0,
                    };
                }
                // An anonymous class implementing an interface calls Object's constructor.
                if info.is_interface() {
                    return Target::External {
                        owner: "java.lang.Object".into(),
                        conf: 1.0,
                    };
                }
                let sc = self.scope_of(call);
                let args = if call.kind == CallKind::MethodRef {
                    Vec::new()
                } else {
                    self.arg_types(call, &sc)
                };
                let argc = (call.kind != CallKind::MethodRef).then_some(call.args.len());
                let ctors: Vec<usize> = info
                    .methods
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.is_ctor)
                    .map(|(i, _)| i)
                    .collect();
                if ctors.is_empty() {
                    return Target::ImplicitCtor(*t);
                }
                let cands: Vec<(TypeId, usize, usize)> =
                    ctors.iter().map(|&i| (*t, i, 0)).collect();
                match self.pick(&cands, argc, &args) {
                    Some((k, conf)) => {
                        self.last_decl = Some((*t, cands[k].1, ty.clone()));
                        Target::Method {
                            ty: *t,
                            idx: cands[k].1,
                            conf,
                        }
                    }
                    None => Target::Method {
                        ty: *t,
                        idx: ctors[0],
                        conf: 0.6,
                    },
                }
            }
            Ty::Ext(n) => Target::External {
                owner: n.clone(),
                conf: 1.0,
            },
            _ => Target::Unresolved,
        }
    }

    /// The bound of type variable `v` in the code of `caller` (`Object` when it has none).
    fn bound_of(&mut self, v: &str, caller: Caller, sc: &Scope<'a>) -> Ty {
        let object = || {
            self.table
                .object
                .map(|o| Ty::Class(o, Vec::new()))
                .unwrap_or(Ty::Unknown)
        };
        if let Caller::Method(t, m) = caller
            && let Some(md) = self
                .j
                .types
                .get(t as usize)
                .and_then(|t| t.methods.get(m as usize))
            && let Some(i) = md.type_params.iter().position(|p| p == v)
        {
            return match md.type_bounds.get(i).and_then(|b| b.as_ref()) {
                Some(b) => match self.table.resolve_ref(b, sc) {
                    Ty::Var(_) => object(),
                    other => other,
                },
                None => object(),
            };
        }
        let mut lex = sc.lex;
        while let Some(t) = lex {
            let info = &self.table.types[t as usize];
            if let Some(i) = info.params.iter().position(|p| p == v) {
                return match info.bounds.get(i) {
                    Some(Ty::Unknown) | Some(Ty::Var(_)) | None => object(),
                    Some(b) => b.clone(),
                };
            }
            lex = info.outer;
        }
        object()
    }

    /// `Class(t, its own type variables)`: the type of `this` in `t`.
    fn self_type(&self, t: TypeId) -> Ty {
        let info = &self.table.types[t as usize];
        Ty::Class(
            t,
            info.params
                .iter()
                .map(|p| Ty::Var(p.as_str().into()))
                .collect(),
        )
    }

    /// Finds `name` in `base` and its supertypes.
    fn lookup(&mut self, base: &Ty, name: &str, argc: Option<usize>, args: &[Ty]) -> Lookup {
        let (t, actual) = match base {
            Ty::Class(t, a) => (*t, a.clone()),
            Ty::Ext(n) => return Lookup::External(n.clone()),
            Ty::Prim(_) | Ty::Null | Ty::Unknown | Ty::Arg0 => return Lookup::NotFound,
            Ty::Var(_) | Ty::Array(_) => match self.table.object {
                Some(o) => (o, Vec::new()),
                None => return Lookup::NotFound,
            },
        };
        let table = self.table;
        let params = &table.types[t as usize].params;
        let anc = table.ancestry_of(t);
        // (declaring type, method index, index of the declaring type in `anc`)
        let mut cands: Vec<(TypeId, usize, usize)> = Vec::new();
        let mut external = false;
        for (ai, a) in anc.iter().enumerate() {
            match a {
                Ty::Class(at, _) => {
                    let info = &table.types[*at as usize];
                    let first = info.methods.partition_point(|m| m.name.as_str() < name);
                    for (k, m) in info.methods[first..].iter().enumerate() {
                        if m.name != name {
                            break;
                        }
                        if !m.is_ctor {
                            cands.push((*at, first + k, ai));
                        }
                    }
                    // The JDK table lists common members only: a JDK supertype may declare it.
                    external |= table.is_open_jdk(*at);
                }
                Ty::Ext(_) => external = true,
                _ => {}
            }
        }
        let owner = || -> Arc<str> { table.display(base).into() };
        if cands.is_empty() {
            return if external {
                Lookup::External(owner())
            } else {
                Lookup::NotFound
            };
        }
        let (k, conf) = match self.pick(&cands, argc, args) {
            Some(p) => p,
            // No overload takes this many arguments: one inherited from outside the table may.
            None if external => return Lookup::External(owner()),
            None => (0, 0.6),
        };
        let (ty, idx, ai) = cands[k];
        Lookup::Found {
            ty,
            idx,
            conf,
            at: subst(&anc[ai], params, &actual),
        }
    }

    /// This file's call edges.
    pub fn edges(&mut self) -> Vec<Edge> {
        let mut out = Vec::with_capacity(self.j.calls.len());
        let path = self.path();
        for (i, call) in self.j.calls.iter().enumerate() {
            let r = self.call(i as u32);
            let Some(caller) = caller_id(self.j, call.caller) else {
                continue;
            };
            let caller_flags = caller_flags(call.caller);
            let name = match call.kind {
                CallKind::New | CallKind::SuperCtor | CallKind::ThisCtor => "<init>",
                _ if call.name == "new" => "<init>",
                _ => call.name.as_str(),
            };
            let (callee, callee_file, callee_line, confidence) = match &r.target {
                Target::Skip => continue,
                Target::Method { ty, idx, conf } => {
                    let info = &self.table.types[*ty as usize];
                    let m = &info.methods[*idx];
                    match info.file() {
                        Some(f) => (
                            Some(m.id.clone()),
                            Some(self.files.path(f as usize).to_string()),
                            Some(m.line),
                            *conf,
                        ),
                        None => (Some(m.id.clone()), None, None, *conf),
                    }
                }
                Target::ImplicitCtor(ty) => {
                    let info = &self.table.types[*ty as usize];
                    let file = info.file().map(|f| self.files.path(f as usize).to_string());
                    let line = file.as_ref().map(|_| info.line);
                    (Some(info.id.clone()), file, line, 1.0)
                }
                Target::External { owner, conf } => {
                    (Some(format!("java:{owner}#{name}")), None, None, *conf)
                }
                Target::Unresolved => (None, None, None, UNRESOLVED),
            };
            let callee_name = if callee.is_none() {
                name.to_string()
            } else {
                String::new()
            };
            let detail = match call.kind {
                CallKind::MethodRef => "method reference",
                CallKind::New if call.anon.is_some() => "anonymous class",
                _ if matches!(r.target, Target::Unresolved) => "receiver type unknown",
                _ => "",
            };
            out.push(Edge {
                caller_file: path.to_string(),
                caller,
                caller_name: String::new(),
                line: call.line,
                kind: EdgeKind::Call,
                callee,
                callee_name,
                callee_file,
                callee_line,
                caller_flags,
                confidence,
                detail: detail.to_string(),
                site: site::call_site(self.j, call),
            });
        }
        out
    }
}

/// The `caller_flags` of an edge from `c`: initializer code runs in `<clinit>` (static) or in
/// every constructor (instance).
pub fn caller_flags(c: Caller) -> u8 {
    match c {
        Caller::Init(_, true) => STATIC_INIT,
        Caller::Init(_, false) => INSTANCE_INIT,
        Caller::Method(..) => 0,
    }
}

/// The symbol id a call is attributed to.
pub fn caller_id(j: &JavaFacts, c: Caller) -> Option<String> {
    match c {
        Caller::Method(t, m) => Some(j.types.get(t as usize)?.methods.get(m as usize)?.id.clone()),
        Caller::Init(t, _) => Some(j.types.get(t as usize)?.id.clone()),
    }
}

/// The symbol id and qualified name a call is attributed to.
pub fn caller_of(j: &JavaFacts, c: Caller) -> Option<(String, String)> {
    match c {
        Caller::Method(t, m) => {
            let t = j.types.get(t as usize)?;
            let m = t.methods.get(m as usize)?;
            Some((m.id.clone(), format!("{}.{}", t.qname, m.name)))
        }
        Caller::Init(t, _) => {
            let t = j.types.get(t as usize)?;
            Some((t.id.clone(), t.qname.clone()))
        }
    }
}

enum Lookup {
    Found {
        ty: TypeId,
        idx: usize,
        conf: f32,
        /// The declaring type as seen from the receiver (type arguments substituted).
        at: Ty,
    },
    External(Arc<str>),
    NotFound,
}

#[cfg(test)]
pub(crate) mod tests;
