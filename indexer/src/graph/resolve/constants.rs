//! Enum constants set as values: each call argument and each assignment whose value is a
//! project enum's constant (or a call on one, `Status.PAID.getCode()`) gives an edge from the
//! code that sets it to the constant, saying what takes it (`setStatus`, `= status`). Docgen's
//! "state" section lists, per status constant, the methods that set it.

use super::{FileResolver, Val, caller_flags, caller_id};
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{CallKind, Caller, Expr, TypeKind};
use crate::graph::types::{Origin, Scope, Ty, TypeId};

/// Calls on a constant followed back to it (`S.PAID.getCode()`, `S.PAID.name().toLowerCase()`).
const MAX_CHAIN: u32 = 3;

/// The constant's id, declaring file and line.
type ConstantAt = (String, String, u32);

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
                    out.extend(self.edge(call.caller, call.line, c, taker.to_string()));
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
            out.extend(self.edge(a.caller, a.line, c, format!("= {target}")));
        }
        out
    }

    fn edge(&self, caller: Caller, line: u32, c: ConstantAt, detail: String) -> Option<Edge> {
        Some(Edge {
            caller_file: self.path().to_string(),
            caller: caller_id(self.j, caller)?,
            caller_name: String::new(),
            line,
            kind: EdgeKind::Constant,
            callee: Some(c.0),
            callee_name: String::new(),
            callee_file: Some(c.1),
            callee_line: Some(c.2),
            caller_flags: caller_flags(caller),
            confidence: 1.0,
            detail,
            site: Default::default(),
        })
    }

    /// The project enum constant `e` is (or is a call on).
    fn constant_of(&mut self, e: &'a Expr, sc: &Scope<'a>, depth: u32) -> Option<ConstantAt> {
        match e {
            Expr::Field(q, n) => match self.val(q, sc) {
                Val::Type(Ty::Class(t, _)) => self.enum_constant(t, n),
                _ => None,
            },
            Expr::Name(n) => {
                // A constant of an enclosing type, or a statically imported one.
                let mut lex = sc.lex;
                while let Some(t) = lex {
                    if let Some(c) = self.enum_constant(t, n) {
                        return Some(c);
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
                owners.iter().find_map(|o| {
                    let t = self.table.resolve_qualified(o)?;
                    self.enum_constant(t, n)
                })
            }
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

    fn enum_constant(&self, t: TypeId, name: &str) -> Option<ConstantAt> {
        let info = &self.table.types[t as usize];
        if info.kind != TypeKind::Enum {
            return None;
        }
        let f = info.field(name)?;
        let Origin::Project { file, decl } = info.origin else {
            return None;
        };
        let (path, facts) = self.files.get(file as usize)?;
        let d = facts.java.as_ref()?.types.get(decl as usize)?;
        let fd = d.fields.get(f.decl? as usize)?;
        fd.constant
            .then(|| (f.id.clone(), path.to_string(), fd.line))
    }
}

#[cfg(test)]
mod tests;
