//! Expression typing: locals (declared, `var`, for-each elements, lambda parameters from their
//! functional interface), fields of the enclosing and inherited types, statically imported
//! fields, type and package names, literals, operators, casts, creations and call results.

use super::{FileResolver, MAX_DEPTH, Val};
use crate::graph::facts::{Expr, LambdaParam, Lit};
use crate::graph::types::{Scope, Ty, subst};

impl<'a> FileResolver<'a> {
    /// The type of a local (memoized).
    pub fn local_ty(&mut self, i: u32, sc: &Scope<'a>) -> Ty {
        if let Some(Some(t)) = self.locals.get(i as usize) {
            return t.clone();
        }
        let Some(l) = self.j.locals.get(i as usize) else {
            return Ty::Unknown;
        };
        if self.depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        self.depth += 1;
        let t = if let Some(tr) = &l.ty {
            self.table.resolve_ref(tr, sc)
        } else if let Some(lp) = &l.lambda {
            self.lambda_param_ty(lp, sc)
        } else if let Some(init) = &l.init {
            match self.val(init, sc) {
                Val::Value(t) if l.each => self.element_type(&t),
                Val::Value(t) => t,
                _ => Ty::Unknown,
            }
        } else {
            Ty::Unknown
        };
        self.depth -= 1;
        if let Some(slot) = self.locals.get_mut(i as usize) {
            *slot = Some(t.clone());
        }
        t
    }

    /// The type of an untyped lambda parameter: from the functional interface the lambda is
    /// converted to (a declared type, or the parameter of the method it is passed to; JDK
    /// methods from the table's `lambda` rules).
    fn lambda_param_ty(&mut self, lp: &'a LambdaParam, sc: &Scope<'a>) -> Ty {
        let t = match lp {
            LambdaParam::Decl { ty, param } => {
                let f = self.table.resolve_ref(ty, sc);
                self.sam_param(&f, *param)
            }
            LambdaParam::Arg { call, arg, param } => {
                let _ = self.call(*call);
                let Some((ty, idx, at)) = self.decls.get(*call as usize).cloned().flatten() else {
                    return Ty::Unknown;
                };
                let table = self.table;
                let decl = &table.types[ty as usize];
                let m = &decl.methods[idx];
                let at_args: &[Ty] = match &at {
                    Ty::Class(_, a) => a,
                    _ => &[],
                };
                if !m.lambda.is_empty() {
                    m.lambda
                        .get(*param as usize)
                        .map(|t| subst(t, &decl.params, at_args))
                        .unwrap_or(Ty::Unknown)
                } else {
                    let p = m
                        .params
                        .get(*arg as usize)
                        .or(if m.varargs { m.params.last() } else { None })
                        .map(|p| subst(p, &decl.params, at_args));
                    match p {
                        Some(p) => self.sam_param(&p, *param),
                        None => Ty::Unknown,
                    }
                }
            }
        };
        match t {
            Ty::Var(_) | Ty::Arg0 => Ty::Unknown,
            other => other,
        }
    }

    /// Parameter `i` of the single abstract method of functional interface type `f`.
    fn sam_param(&self, f: &Ty, i: u8) -> Ty {
        let Ty::Class(id, args) = f else {
            return Ty::Unknown;
        };
        let table = self.table;
        let params = &table.types[*id as usize].params;
        for a in table.ancestry_of(*id) {
            let Ty::Class(aid, _) = a else { continue };
            let info = &table.types[*aid as usize];
            if let Some(sam) = &info.sam {
                let seen = subst(a, params, args);
                let seen_args: &[Ty] = match &seen {
                    Ty::Class(_, x) => x,
                    _ => &[],
                };
                return sam
                    .get(i as usize)
                    .map(|t| subst(t, &info.params, seen_args))
                    .unwrap_or(Ty::Unknown);
            }
        }
        Ty::Unknown
    }

    /// The element type of an array or `Iterable<T>`.
    fn element_type(&mut self, t: &Ty) -> Ty {
        match t {
            Ty::Array(e) => (**e).clone(),
            Ty::Class(id, args) => {
                let params = self.table.types[*id as usize].params.clone();
                let anc = self.table.ancestry_of(*id);
                for a in anc.iter() {
                    if let Ty::Class(aid, aargs) = a
                        && self.table.types[*aid as usize].fqn == "java.lang.Iterable"
                    {
                        let x = aargs.first().cloned().unwrap_or(Ty::Unknown);
                        return match subst(&x, &params, args) {
                            Ty::Var(_) => Ty::Unknown,
                            other => other,
                        };
                    }
                }
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }

    /// Types an expression.
    pub fn val(&mut self, e: &'a Expr, sc: &Scope<'a>) -> Val {
        match e {
            Expr::Unknown | Expr::Opaque | Expr::Lambda(_) | Expr::MethodRef => Val::Unknown,
            Expr::Lit(l) => Val::Value(match l {
                Lit::Int => Ty::Prim("int"),
                Lit::Long => Ty::Prim("long"),
                Lit::Float => Ty::Prim("float"),
                Lit::Double => Ty::Prim("double"),
                Lit::Char => Ty::Prim("char"),
                Lit::Bool => Ty::Prim("boolean"),
                Lit::Null => Ty::Null,
            }),
            Expr::Str(_) => Val::Value(self.string()),
            Expr::Var(i) => Val::Value(self.local_ty(*i, sc)),
            Expr::Name(n) => self.name_val(n, sc),
            Expr::Field(q, n) => {
                if n == "super" {
                    return match self.val(q, sc) {
                        Val::Type(Ty::Class(t, a)) => {
                            let info = &self.table.types[t as usize];
                            if info.is_interface() {
                                Val::Super(Ty::Class(t, a))
                            } else {
                                info.superclass.clone().map_or(Val::Unknown, Val::Super)
                            }
                        }
                        _ => Val::Unknown,
                    };
                }
                let qv = self.val(q, sc);
                self.member_val(qv, n)
            }
            Expr::Call(i) => Val::Value(self.call(*i).ret),
            Expr::New(tr, _) | Expr::NewArray(tr) | Expr::Cast(tr) => {
                Val::Value(self.table.resolve_ref(tr, sc))
            }
            Expr::This => match sc.lex {
                Some(t) => Val::Value(self.self_type(t)),
                None => Val::Unknown,
            },
            Expr::QualThis(n) => match self.table.resolve_name(n, sc) {
                Some(t) => Val::Value(t),
                None => Val::Unknown,
            },
            Expr::Super => match sc.lex {
                Some(t) => {
                    let info = &self.table.types[t as usize];
                    match &info.superclass {
                        Some(s) => Val::Super(s.clone()),
                        None => self
                            .table
                            .object
                            .map_or(Val::Unknown, |o| Val::Super(Ty::Class(o, Vec::new()))),
                    }
                }
                None => Val::Unknown,
            },
            Expr::Index(a) => match self.val(a, sc) {
                Val::Value(Ty::Array(e)) => Val::Value(*e),
                _ => Val::Unknown,
            },
            Expr::Cond(a, b) => match self.val(a, sc) {
                Val::Value(t) if !matches!(t, Ty::Null | Ty::Unknown) => Val::Value(t),
                _ => self.val(b, sc),
            },
            Expr::Plus(a, b) => {
                let x = self.val(a, sc);
                let y = self.val(b, sc);
                let s = self.string();
                if x == Val::Value(s.clone()) || y == Val::Value(s.clone()) {
                    Val::Value(s)
                } else {
                    numeric(x, y)
                }
            }
            Expr::Arith(a, b) => {
                let x = self.val(a, sc);
                let y = self.val(b, sc);
                numeric(x, y)
            }
            Expr::Bool => Val::Value(Ty::Prim("boolean")),
            Expr::ClassLit(tr) => {
                let inner = self.table.resolve_ref(tr, sc);
                match self.table.by_fqn.get("java.lang.Class") {
                    Some(&c) => Val::Value(Ty::Class(c, vec![inner])),
                    None => Val::Value(Ty::Ext("java.lang.Class".into())),
                }
            }
            Expr::Assign(x) => self.val(x, sc),
        }
    }

    fn string(&self) -> Ty {
        match self.table.string {
            Some(s) => Ty::Class(s, Vec::new()),
            None => Ty::Ext("java.lang.String".into()),
        }
    }

    /// A simple name in an expression: a field of an enclosing type (declared or inherited), a
    /// statically imported field, a type, or the start of a package name.
    fn name_val(&mut self, n: &str, sc: &Scope<'a>) -> Val {
        let mut lex = sc.lex;
        while let Some(t) = lex {
            if let Some(ty) = self.field_type(&self.self_type(t), n) {
                return Val::Value(ty);
            }
            lex = self.table.types[t as usize].outer;
        }
        let f = &self.table.files[sc.file as usize];
        let owners: Vec<String> = f
            .static_single
            .iter()
            .filter(|(m, _)| m == n)
            .map(|(_, t)| t.clone())
            .chain(f.static_on_demand.iter().cloned())
            .collect();
        for o in owners {
            if let Some(t) = self.table.resolve_qualified(&o)
                && let Some(ty) = self.field_type(&Ty::Class(t, Vec::new()), n)
            {
                return Val::Value(ty);
            }
        }
        if let Some(t) = self.table.resolve_simple(n, sc) {
            return Val::Type(t);
        }
        if n.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Val::Type(Ty::Ext(n.into()));
        }
        Val::Package(n.to_string())
    }

    /// `q.n` where `q` has been typed.
    fn member_val(&mut self, q: Val, n: &str) -> Val {
        match q {
            Val::Value(Ty::Array(_)) if n == "length" => Val::Value(Ty::Prim("int")),
            Val::Value(t) | Val::Super(t) => match self.field_type(&t, n) {
                Some(ty) => Val::Value(ty),
                None => Val::Unknown,
            },
            Val::Type(t) => {
                if let Some(ty) = self.field_type(&t, n) {
                    return Val::Value(ty);
                }
                if let Ty::Class(id, _) = t {
                    if let Some(m) = self.table.member_type(id, n) {
                        return Val::Type(Ty::Class(m, Vec::new()));
                    }
                    return Val::Unknown;
                }
                if let Ty::Ext(e) = t
                    && n.starts_with(|c: char| c.is_ascii_uppercase())
                    && !n
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
                {
                    return Val::Type(Ty::Ext(format!("{e}.{n}").into()));
                }
                Val::Unknown
            }
            Val::Package(p) => {
                let q = format!("{p}.{n}");
                if let Some(&id) = self.table.by_fqn.get(&q) {
                    Val::Type(Ty::Class(id, Vec::new()))
                } else if self.table.is_package(&q) {
                    Val::Package(q)
                } else if n.starts_with(|c: char| c.is_ascii_uppercase()) {
                    Val::Type(Ty::Ext(q.into()))
                } else {
                    Val::Package(q)
                }
            }
            Val::Unknown => Val::Unknown,
        }
    }

    /// The type of field `n` of `t` (declared or inherited), substituted.
    pub fn field_type(&mut self, t: &Ty, n: &str) -> Option<Ty> {
        let Ty::Class(id, actual) = t else {
            return None;
        };
        let params = self.table.types[*id as usize].params.clone();
        let anc = self.table.ancestry_of(*id);
        for a in anc.iter() {
            if let Ty::Class(aid, aargs) = a {
                let info = &self.table.types[*aid as usize];
                if let Some(f) = info.field(n) {
                    let in_self = subst(&f.ty, &info.params, aargs);
                    return Some(subst(&in_self, &params, actual));
                }
            }
        }
        None
    }
}

fn numeric(x: Val, y: Val) -> Val {
    let rank = |v: &Val| match v {
        Val::Value(Ty::Prim(p)) => match *p {
            "double" => 4,
            "float" => 3,
            "long" => 2,
            "int" | "short" | "byte" | "char" => 1,
            _ => 0,
        },
        _ => 0,
    };
    match rank(&x).max(rank(&y)) {
        4 => Val::Value(Ty::Prim("double")),
        3 => Val::Value(Ty::Prim("float")),
        2 => Val::Value(Ty::Prim("long")),
        1 => Val::Value(Ty::Prim("int")),
        _ => Val::Unknown,
    }
}
