//! Constant strings and annotation values: `MqConstants.ORDER_CANCEL_QUEUE`, `PREFIX + "x"`,
//! string arrays, enum constants (`RequestMethod.POST`), class literals and `${key:default}`
//! placeholders, resolved across files through the type table.

use crate::graph::facts::{AnnValue, Annotation, Expr, FileFacts, TypeRef};
use crate::graph::types::{Origin, Scope, Ty, TypeId, TypeTable};
use crate::model::RepoPath;

/// Evaluates a constant string expression where `sc` stands (other files' constants included).
pub fn const_str(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
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
        _ => None,
    }
}

/// The constant value of field `name` of `ty` (declared or inherited, interfaces included).
pub(super) fn field_const(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
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
        let fd = files[file as usize]
            .1
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
    files: &[(&RepoPath, &FileFacts)],
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
    files: &[(&RepoPath, &FileFacts)],
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
