//! Type edges: `inherits` (class → superclass, interface → superinterface), `implements`
//! (class → interface) and `overrides` (method → the supertype methods it overrides or
//! implements, JDK ones included).

use super::{Origin, Ty, TypeId, TypeInfo, TypeTable};
use crate::graph::Files;
use crate::graph::edge::{Edge, EdgeKind};
use rayon::prelude::*;

/// Type edges: `inherits` (class → superclass, interface → superinterface), `implements`
/// (class → interface) and `overrides` (method → the supertype methods it overrides).
pub fn type_edges(table: &TypeTable, files: Files<'_>) -> Vec<Edge> {
    table
        .types
        .par_iter()
        .enumerate()
        .flat_map_iter(|(id, info)| type_edges_of(table, files, id, info))
        .collect()
}

/// The type edges of one type and its methods.
fn type_edges_of(table: &TypeTable, files: Files<'_>, id: usize, info: &TypeInfo) -> Vec<Edge> {
    let mut out = Vec::new();
    let Origin::Project { file, .. } = info.origin else {
        return out;
    };
    if info.anonymous {
        return out;
    }
    let path = files.path(file as usize).as_str();
    let supers = info
        .superclass
        .iter()
        .map(|s| (s, EdgeKind::Inherits))
        .chain(info.interfaces.iter().map(|s| {
            (
                s,
                if info.is_interface() {
                    EdgeKind::Inherits
                } else {
                    EdgeKind::Implements
                },
            )
        }));
    for (s, kind) in supers {
        let (callee, callee_name, callee_file, callee_line) = match s {
            Ty::Class(sid, _) => {
                let si = &table.types[*sid as usize];
                if matches!(si.fqn.as_str(), "java.lang.Enum" | "java.lang.Record")
                    || matches!(si.fqn.as_str(), "java.lang.annotation.Annotation")
                {
                    continue;
                }
                (
                    si.id.clone(),
                    si.fqn.clone(),
                    si.file().map(|f| files.path(f as usize).to_string()),
                    si.file().map(|_| si.line),
                )
            }
            Ty::Ext(n) => (format!("java:{n}"), n.to_string(), None, None),
            _ => continue,
        };
        out.push(Edge {
            caller_file: path.to_string(),
            caller: info.id.clone(),
            caller_name: info.fqn.clone(),
            line: info.line,
            kind,
            callee: Some(callee),
            callee_name,
            callee_file,
            callee_line,
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site: Default::default(),
        });
    }
    // Overrides: each instance method against the nearest declaration of the same name and
    // parameter count in every supertype path.
    let ancestry = table.ancestry_of(id as TypeId);
    for m in &info.methods {
        if m.is_static || m.is_ctor {
            continue;
        }
        let mut found: Vec<(TypeId, usize)> = Vec::new();
        for a in ancestry.iter().skip(1) {
            let Ty::Class(aid, _) = a else { continue };
            let ai = &table.types[*aid as usize];
            for (k, am) in ai.methods_named(&m.name).iter().enumerate() {
                if am.is_static || am.is_ctor {
                    continue;
                }
                let arity_ok = am.arity.is_none_or(|n| n as usize == m.params.len());
                let types_ok = am.params.is_empty()
                    || am
                        .params
                        .iter()
                        .zip(&m.params)
                        .all(|(p, q)| same_erasure(p, q));
                if arity_ok && types_ok {
                    // Skip one already overridden by a nearer found method's type.
                    if !found
                        .iter()
                        .any(|(f, _)| table.is_subtype(*f, *aid) && *f != *aid)
                    {
                        found.push((*aid, k));
                    }
                    break;
                }
            }
        }
        for (aid, k) in found {
            let ai = &table.types[aid as usize];
            let am = &ai.methods_named(&m.name)[k];
            out.push(Edge {
                caller_file: path.to_string(),
                caller: m.id.clone(),
                caller_name: format!("{}.{}", info.fqn, m.name),
                line: m.line,
                kind: EdgeKind::Overrides,
                callee: Some(am.id.clone()),
                callee_name: format!("{}.{}", ai.fqn, am.name),
                callee_file: ai.file().map(|f| files.path(f as usize).to_string()),
                callee_line: ai.file().map(|_| am.line),
                caller_flags: 0,
                confidence: if am.params.is_empty() && !m.params.is_empty() {
                    0.8
                } else {
                    1.0
                },
                detail: String::new(),
                site: Default::default(),
            });
        }
    }
    out
}

/// Whether two parameter types erase to the same type (type variables match anything).
fn same_erasure(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Var(_), _) | (_, Ty::Var(_)) | (Ty::Unknown, _) | (_, Ty::Unknown) => true,
        (Ty::Class(x, _), Ty::Class(y, _)) => x == y,
        (Ty::Array(x), Ty::Array(y)) => same_erasure(x, y),
        (Ty::Ext(x), Ty::Ext(y)) => x.rsplit('.').next() == y.rsplit('.').next(),
        (Ty::Ext(x), Ty::Class(_, _)) | (Ty::Class(_, _), Ty::Ext(x)) => {
            let _ = x;
            false
        }
        _ => a == b,
    }
}
