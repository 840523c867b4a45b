//! Overload choice: among the methods of the receiver's type and its supertypes with the called
//! name, those taking this many arguments, then the best fit of the known argument types
//! (exact, subtype, widening, boxing); nearest declaration on ties.

use super::FileResolver;
use crate::graph::types::{MethodInfo, Ty, TypeId};

impl FileResolver<'_> {
    /// The best candidate for the arguments: arity first, then argument types; nearest wins ties.
    pub(super) fn pick(
        &self,
        cands: &[(TypeId, usize, usize)],
        argc: Option<usize>,
        args: &[Ty],
    ) -> Option<(usize, f32)> {
        let arity_ok: Vec<usize> = (0..cands.len())
            .filter(|&k| {
                let m = &self.table.types[cands[k].0 as usize].methods[cands[k].1];
                match (argc, m.arity) {
                    (None, _) | (_, None) => true,
                    (Some(n), Some(a)) => n == a as usize || (m.varargs && n + 1 >= a as usize),
                }
            })
            .collect();
        match arity_ok.len() {
            0 => None,
            1 => Some((arity_ok[0], 1.0)),
            _ => {
                let mut best = (i32::MIN, arity_ok[0]);
                let mut distinct = false;
                for &k in &arity_ok {
                    let m = &self.table.types[cands[k].0 as usize].methods[cands[k].1];
                    let s = self.score(m, args);
                    if s > best.0 {
                        if best.0 != i32::MIN {
                            distinct = true;
                        }
                        best = (s, k);
                    } else if s < best.0 {
                        distinct = true;
                    }
                }
                // Same signature overridden along the hierarchy: the nearest is javac's pick.
                let first =
                    &self.table.types[cands[arity_ok[0]].0 as usize].methods[cands[arity_ok[0]].1];
                let all_same = arity_ok.iter().all(|&k| {
                    let m = &self.table.types[cands[k].0 as usize].methods[cands[k].1];
                    m.params.len() == first.params.len()
                        && m.params
                            .iter()
                            .zip(&first.params)
                            .all(|(a, b)| erasure_eq(a, b))
                });
                let conf = if all_same || distinct { 1.0 } else { 0.9 };
                Some((best.1, conf))
            }
        }
    }

    /// How well `args` fit `m`'s parameters (higher is better).
    fn score(&self, m: &MethodInfo, args: &[Ty]) -> i32 {
        let mut s = 0;
        for (i, a) in args.iter().enumerate() {
            let p = match m.params.get(i) {
                Some(p) => p,
                None => match m.params.last() {
                    Some(Ty::Array(e)) if m.varargs => e,
                    _ => continue,
                },
            };
            // A varargs parameter also takes its element type.
            let p = match p {
                Ty::Array(e)
                    if m.varargs && i + 1 == m.params.len() && !matches!(a, Ty::Array(_)) =>
                {
                    e
                }
                _ => p,
            };
            s += self.fit(a, p);
        }
        if m.varargs && args.len() != m.params.len() {
            s -= 1;
        }
        s
    }

    fn fit(&self, a: &Ty, p: &Ty) -> i32 {
        match (a, p) {
            (Ty::Unknown, _) | (_, Ty::Unknown) | (_, Ty::Var(_)) => 0,
            (Ty::Null, Ty::Prim(_)) => -10,
            (Ty::Null, _) => 1,
            (Ty::Prim(x), Ty::Prim(y)) if x == y => 3,
            (Ty::Prim(x), Ty::Prim(y)) => {
                if widens(x, y) {
                    1
                } else {
                    -10
                }
            }
            (Ty::Prim(x), Ty::Class(id, _)) => {
                let fqn = self.table.types[*id as usize].fqn.as_str();
                if boxed(x) == Some(fqn) {
                    2
                } else if fqn == "java.lang.Object" || fqn == "java.lang.Number" {
                    1
                } else {
                    -10
                }
            }
            (Ty::Class(_, _), Ty::Prim(y)) => {
                if let Ty::Class(id, _) = a
                    && boxed(y) == Some(self.table.types[*id as usize].fqn.as_str())
                {
                    2
                } else {
                    -10
                }
            }
            (Ty::Class(x, _), Ty::Class(y, _)) => {
                if x == y {
                    3
                } else if self.table.is_subtype(*x, *y) {
                    2
                } else if self.table.types[*x as usize].is_interface()
                    || self.table.types[*y as usize].is_interface()
                {
                    // Possible through an unknown subtype: weakly wrong.
                    -3
                } else {
                    -10
                }
            }
            (Ty::Array(x), Ty::Array(y)) => self.fit(x, y).min(3),
            (Ty::Array(_), Ty::Class(id, _)) => {
                if Some(*id) == self.table.object {
                    1
                } else {
                    -10
                }
            }
            (Ty::Class(_, _), Ty::Array(_)) | (Ty::Prim(_), Ty::Array(_)) => -10,
            (Ty::Ext(x), Ty::Ext(y)) if x.rsplit('.').next() == y.rsplit('.').next() => 3,
            _ => 0,
        }
    }
}

fn widens(from: &str, to: &str) -> bool {
    let order = ["byte", "short", "int", "long", "float", "double"];
    let pos = |p: &str| order.iter().position(|x| *x == p);
    match (from, pos(from), pos(to)) {
        ("char", _, Some(t)) => t >= 2,
        (_, Some(f), Some(t)) => f < t,
        _ => false,
    }
}

fn boxed(p: &str) -> Option<&'static str> {
    Some(match p {
        "int" => "java.lang.Integer",
        "long" => "java.lang.Long",
        "short" => "java.lang.Short",
        "byte" => "java.lang.Byte",
        "char" => "java.lang.Character",
        "boolean" => "java.lang.Boolean",
        "float" => "java.lang.Float",
        "double" => "java.lang.Double",
        _ => return None,
    })
}

fn erasure_eq(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Class(x, _), Ty::Class(y, _)) => x == y,
        (Ty::Array(x), Ty::Array(y)) => erasure_eq(x, y),
        (Ty::Var(_), Ty::Var(_)) => true,
        _ => a == b,
    }
}
