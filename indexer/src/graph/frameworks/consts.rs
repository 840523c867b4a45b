//! Constant strings and annotation values: `MqConstants.ORDER_CANCEL_QUEUE`, `PREFIX + "x"`,
//! string arrays, enum constants (`RequestMethod.POST`), class literals and `${key:default}`
//! placeholders, and the values enum constants carry (`Queue.ORDER.getExchange()`), resolved
//! across files through the type table.

use crate::graph::Files;
use crate::graph::facts::{AnnValue, Annotation, CallKind, Expr, TypeKind, TypeRef};
use crate::graph::types::{Origin, Scope, Ty, TypeId, TypeTable};

/// Evaluates a constant string expression where `sc` stands (other files' constants included).
pub fn const_str(
    t: &TypeTable,
    files: Files<'_>,
    e: &Expr,
    sc: &Scope<'_>,
    depth: u8,
) -> Option<String> {
    if depth > 16 {
        return None;
    }
    match e {
        Expr::Str(s) => Some(s.clone()),
        Expr::Plus(a, b) => {
            let x = const_str(t, files, a, sc, depth + 1)?;
            let y = const_str(t, files, b, sc, depth + 1)?;
            Some(x + &y)
        }
        Expr::Name(n) => {
            let mut lex = sc.lex;
            while let Some(ty) = lex {
                if let Some(v) = field_const(t, files, ty, n, depth) {
                    return Some(v);
                }
                lex = t.types[ty as usize].outer;
            }
            let f = t.files.get(sc.file as usize)?;
            for (m, owner) in &f.static_single {
                if m == n
                    && let Some(ty) = t.resolve_qualified(owner)
                    && let Some(v) = field_const(t, files, ty, n, depth)
                {
                    return Some(v);
                }
            }
            for owner in &f.static_on_demand {
                if let Some(ty) = t.resolve_qualified(owner)
                    && let Some(v) = field_const(t, files, ty, n, depth)
                {
                    return Some(v);
                }
            }
            None
        }
        Expr::Field(q, n) => {
            let path = expr_path(q)?;
            let Some(Ty::Class(ty, _)) = t.resolve_name(&path, sc) else {
                return None;
            };
            field_const(t, files, ty, n, depth)
        }
        Expr::Call(n) => enum_getter(t, files, sc, *n, depth),
        _ => None,
    }
}

/// `QueueEnum.ORDER.getExchange()` (or `.exchange()`): the argument the constant `ORDER(..)`
/// passes for the field the getter reads (Lombok `@Getter`, hand-written getters, accessors named
/// like the field), found as the constructor parameter of the field's name
/// (`this.exchange = exchange`). Enums that hold their queue and topic names are common in
/// messaging code, where the name is all the graph needs.
fn enum_getter(
    t: &TypeTable,
    files: Files<'_>,
    sc: &Scope<'_>,
    call: u32,
    depth: u8,
) -> Option<String> {
    let call = files
        .get(sc.file as usize)?
        .1
        .java
        .as_ref()?
        .calls
        .get(call as usize)?;
    if call.kind != CallKind::Method || !call.args.is_empty() {
        return None;
    }
    let Some(Expr::Field(q, constant)) = call.recv.as_ref() else {
        return None;
    };
    let Some(Ty::Class(ty, _)) = t.resolve_name(&expr_path(q)?, sc) else {
        return None;
    };
    let Origin::Project { file, decl } = t.types[ty as usize].origin else {
        return None;
    };
    let j = files.facts(file as usize).java.as_ref()?;
    let d = j.types.get(decl as usize)?;
    let c = d
        .fields
        .iter()
        .find(|f| f.constant && f.name == *constant)?;
    if d.kind != TypeKind::Enum {
        return None;
    }
    // The constant's construction: the `new` call its declaration records at its line.
    let args = &j
        .calls
        .iter()
        .find(|k| k.kind == CallKind::New && k.ctx == decl && k.line == c.line)?
        .args;
    let field = getter_field(&call.name);
    let arg = d
        .methods
        .iter()
        .filter(|m| m.is_ctor && m.params.len() == args.len())
        .find_map(|m| {
            m.params
                .iter()
                .position(|&p| j.locals.get(p as usize).is_some_and(|l| l.name == field))
        })?;
    let sc = Scope {
        file,
        lex: Some(ty),
        method_tparams: &[],
    };
    const_str(t, files, &args[arg], &sc, depth + 1)
}

/// The field a getter reads: `getExchange` → `exchange`, `isDurable` → `durable`, else the name.
fn getter_field(name: &str) -> String {
    for prefix in ["get", "is"] {
        if let Some(rest) = name.strip_prefix(prefix)
            && let Some(first) = rest.chars().next()
            && first.is_uppercase()
        {
            return first.to_lowercase().chain(rest.chars().skip(1)).collect();
        }
    }
    name.to_string()
}

/// The constant value of field `name` of `ty` (declared or inherited, interfaces included).
pub(super) fn field_const(
    t: &TypeTable,
    files: Files<'_>,
    ty: TypeId,
    name: &str,
    depth: u8,
) -> Option<String> {
    for a in t.ancestry(&Ty::Class(ty, Vec::new())) {
        let Ty::Class(at, _) = a else { continue };
        let info = &t.types[at as usize];
        let Some(f) = info.field(name) else { continue };
        let Origin::Project { file, decl } = info.origin else {
            return None;
        };
        let fd = files
            .facts(file as usize)
            .java
            .as_ref()?
            .types
            .get(decl as usize)?
            .fields
            .get(f.decl? as usize)?;
        let value = fd.value.as_ref()?;
        let sc = Scope {
            file,
            lex: Some(at),
            method_tparams: &[],
        };
        return const_str(t, files, value, &sc, depth + 1);
    }
    None
}

/// `a.b.C` of a qualifier made of names.
pub(super) fn expr_path(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Field(q, n) => Some(format!("{}.{n}", expr_path(q)?)),
        _ => None,
    }
}

/// Strings of an annotation value (a string, a constant, an array of them).
pub(super) fn ann_strings(
    t: &TypeTable,
    files: Files<'_>,
    v: &AnnValue,
    sc: &Scope<'_>,
) -> Vec<String> {
    match v {
        AnnValue::Expr(e) => const_str(t, files, e, sc, 0).into_iter().collect(),
        AnnValue::Array(items) => items
            .iter()
            .flat_map(|i| ann_strings(t, files, i, sc))
            .collect(),
        AnnValue::Nested(_) => Vec::new(),
    }
}

/// Last names of enum-constant values (`RequestMethod.POST` → `POST`).
pub(super) fn ann_names(v: &AnnValue) -> Vec<String> {
    match v {
        AnnValue::Expr(e) => expr_path(e)
            .map(|p| p.rsplit('.').next().unwrap_or(&p).to_string())
            .into_iter()
            .collect(),
        AnnValue::Array(items) => items.iter().flat_map(ann_names).collect(),
        AnnValue::Nested(_) => Vec::new(),
    }
}

/// Strings of the first of `keys` present.
pub(super) fn ann_attr(
    t: &TypeTable,
    files: Files<'_>,
    a: &Annotation,
    keys: &[&str],
    sc: &Scope<'_>,
) -> Vec<String> {
    for k in keys {
        if let Some(v) = a.arg(k) {
            return ann_strings(t, files, v, sc);
        }
    }
    Vec::new()
}

/// Class literals in an annotation value.
pub(super) fn class_lits(v: &AnnValue, f: &mut dyn FnMut(&TypeRef)) {
    match v {
        AnnValue::Expr(Expr::ClassLit(tr)) => f(tr),
        AnnValue::Array(items) => {
            for i in items {
                class_lits(i, f);
            }
        }
        _ => {}
    }
}

/// `${a.b:default}` placeholders of `@Value` strings: (key, default).
pub(super) fn placeholders(values: &[String]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for v in values {
        let mut rest = v.as_str();
        while let Some(i) = rest.find("${") {
            let after = &rest[i + 2..];
            // The matching brace (defaults may hold nested placeholders).
            let mut depth = 1;
            let mut end = after.len();
            for (k, c) in after.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let inner = &after[..end];
            let (key, default) = match inner.split_once(':') {
                Some((k, d)) => (k, Some(d.to_string())),
                None => (inner, None),
            };
            if !key.is_empty() {
                out.push((key.trim().to_string(), default));
            }
            rest = after.get(end + 1..).unwrap_or("");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getters_name_their_fields() {
        assert_eq!(getter_field("getRouteKey"), "routeKey");
        assert_eq!(getter_field("isDurable"), "durable");
        assert_eq!(getter_field("exchange"), "exchange");
        assert_eq!(getter_field("get"), "get");
        assert_eq!(getter_field("issue"), "issue");
    }
}
