//! Field reads: the names and field accesses the extractor recorded ([`Read`]) that name a
//! field or constant declared in the project give one edge per (caller, field), at the line of
//! the first read: who reads what. Names are looked up as javac does: the fields of the
//! enclosing types from the innermost out (inherited ones included), then static imports; a
//! qualifier is typed ([`FileResolver::val`]) and the field looked up in its type and
//! supertypes. JDK and library fields give no edge.
//!
//! [`Read`]: crate::graph::facts::Read

use super::{FileResolver, Val};
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{Caller, Expr};
use crate::graph::types::{Scope, Ty, TypeId};

/// A field of the table: its type and index in that type's `fields`.
type FieldAt = (TypeId, u32);

impl<'a> FileResolver<'a> {
    /// This file's read edges.
    pub fn read_edges(&mut self) -> Vec<Edge> {
        let j = self.j;
        let mut hits: Vec<(Caller, FieldAt, u32)> = Vec::new();
        let mut found: Vec<FieldAt> = Vec::new();
        for r in &j.reads {
            let sc = self.scope_at(r.caller, r.ctx);
            // A `case` label: the selector type's constant, else the name in scope.
            let label = match (&r.selector, &r.expr) {
                (Some(sel), Expr::Name(n)) => self.member_field(sel, n, r.caller, &sc),
                _ => None,
            };
            match label {
                Some(f) => found.push(f),
                None => self.read_fields(&r.expr, r.caller, &sc, &mut found),
            }
            hits.extend(found.drain(..).map(|f| (r.caller, f, r.line)));
        }
        // One edge per (caller, field), at its first line.
        hits.sort_unstable();
        hits.dedup_by(|later, first| (later.0, later.1) == (first.0, first.1));
        hits.into_iter()
            .filter_map(|(caller, f, line)| self.read_edge(caller, f, line))
            .collect()
    }

    /// The fields `e` reads: `a.b.c` reads `a`, `a.b` and `a.b.c`.
    fn read_fields(&mut self, e: &'a Expr, caller: Caller, sc: &Scope<'a>, out: &mut Vec<FieldAt>) {
        match e {
            Expr::Name(n) => out.extend(self.name_field(n, sc)),
            Expr::Field(q, n) if n != "super" => {
                if matches!(**q, Expr::Name(_) | Expr::Field(..)) {
                    self.read_fields(q, caller, sc, out);
                }
                out.extend(self.member_field(q, n, caller, sc));
            }
            _ => {}
        }
    }

    /// Field `n` of the type of `q` (a type variable's: of its bound).
    fn member_field(
        &mut self,
        q: &'a Expr,
        n: &str,
        caller: Caller,
        sc: &Scope<'a>,
    ) -> Option<FieldAt> {
        let ty = match self.val(q, sc) {
            Val::Value(Ty::Var(v)) | Val::Type(Ty::Var(v)) => self.bound_of(&v, caller, sc),
            Val::Value(t) | Val::Type(t) | Val::Super(t) => t,
            Val::Package(_) | Val::Unknown => return None,
        };
        match ty {
            Ty::Class(t, _) => self.field_in(t, n),
            _ => None,
        }
    }

    /// The field a simple name reads: one of an enclosing type (declared or inherited), or a
    /// statically imported one.
    fn name_field(&self, n: &str, sc: &Scope<'a>) -> Option<FieldAt> {
        self.by_simple_name(n, sc, |r, t| r.field_in(t, n))
    }

    /// Field `n` of `t` or its nearest supertype declaring one.
    fn field_in(&self, t: TypeId, n: &str) -> Option<FieldAt> {
        let table = self.table;
        table.ancestry_of(t).iter().find_map(|a| {
            let Ty::Class(at, _) = a else {
                return None;
            };
            let fields = &table.types[*at as usize].fields;
            let i = fields.partition_point(|f| f.name.as_str() < n);
            (fields.get(i)?.name == n).then_some((*at, i as u32))
        })
    }

    /// The edge for a read of a project field (`None` for JDK fields).
    fn read_edge(&self, caller: Caller, (t, k): FieldAt, line: u32) -> Option<Edge> {
        let f = self.table.types[t as usize].fields.get(k as usize)?;
        let (site, _) = self.field_decl(t, f)?;
        self.field_edge(caller, line, EdgeKind::Read, site, String::new())
    }
}

#[cfg(test)]
mod tests;
