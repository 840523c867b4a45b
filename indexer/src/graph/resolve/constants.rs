//! Enum constants set as values: each call argument and each assignment whose value is a
//! project enum's constant (or a call on one, `Status.PAID.getCode()`) gives an edge from the
//! code that sets it to the constant, saying what takes it (`setStatus`, `= status`). Docgen's
//! "state" section lists, per status constant, the methods that set it.

use super::fields::FieldSite;
use super::{FileResolver, Val};
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{CallKind, Expr, TypeKind};
use crate::graph::types::{Scope, Ty, TypeId};

/// Calls on a constant followed back to it (`S.PAID.getCode()`, `S.PAID.name().toLowerCase()`).
const MAX_CHAIN: u32 = 3;

impl<'a> FileResolver<'a> {
    /// This file's constant edges, in source order of their use sites.
    pub fn constant_edges(&mut self) -> Vec<Edge> {
        let j = self.j;
        let mut out = Vec::new();
        for call in &j.calls {
            if call.args.is_empty() || call.name.is_empty() && call.ty.is_none() {
                continue;
            }
            let sc = self.scope_of(call);
            let taker = match call.kind {
                CallKind::New | CallKind::SuperCtor | CallKind::ThisCtor => "<init>",
                _ => call.name.as_str(),
            };
            for a in &call.args {
                if let Some(c) = self.constant_of(a, &sc, 0) {
                    out.extend(self.field_edge(
                        call.caller,
                        call.line,
                        EdgeKind::Constant,
                        c,
                        taker.to_string(),
                    ));
                }
            }
        }
        for a in &j.assigns {
            let sc = Scope {
                file: self.fi,
                lex: self.type_id(a.ctx),
                method_tparams: &[],
            };
            let Some(c) = self.constant_of(&a.value, &sc, 0) else {
                continue;
            };
            let target = match &a.target {
                Expr::Name(n) | Expr::Field(_, n) => n.clone(),
                Expr::Var(i) => j
                    .locals
                    .get(*i as usize)
                    .map(|l| l.name.clone())
                    .unwrap_or_default(),
                _ => String::new(),
            };
            out.extend(self.field_edge(
                a.caller,
                a.line,
                EdgeKind::Constant,
                c,
                format!("= {target}"),
            ));
        }
        out
    }

    /// The project enum constant `e` is (or is a call on).
    fn constant_of(&mut self, e: &'a Expr, sc: &Scope<'a>, depth: u32) -> Option<FieldSite> {
        match e {
            Expr::Field(q, n) => match self.val(q, sc) {
                Val::Type(Ty::Class(t, _)) => self.enum_constant(t, n),
                _ => None,
            },
            // A constant of an enclosing type, or a statically imported one.
            Expr::Name(n) => self.by_simple_name(n, sc, |r, t| r.enum_constant(t, n)),
            Expr::Call(i) if depth < MAX_CHAIN => {
                let call = self.j.calls.get(*i as usize)?;
                if call.kind != CallKind::Method || !call.args.is_empty() {
                    return None;
                }
                self.constant_of(call.recv.as_ref()?, sc, depth + 1)
            }
            _ => None,
        }
    }

    fn enum_constant(&self, t: TypeId, name: &str) -> Option<FieldSite> {
        let info = &self.table.types[t as usize];
        if info.kind != TypeKind::Enum {
            return None;
        }
        let (site, fd) = self.field_decl(t, info.field(name)?)?;
        fd.constant.then_some(site)
    }
}

#[cfg(test)]
mod tests;
