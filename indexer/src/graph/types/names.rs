//! Name resolution as javac does it for the common cases: type parameters, member types of the
//! enclosing and inherited types, single-type imports, the same package, on-demand imports,
//! `java.lang`, and JDK types by their table.

use super::{Origin, Scope, Ty, TypeId, TypeTable, prim, wrap_dims};
use crate::graph::facts::TypeRef;
use std::sync::Arc;

impl TypeTable {
    pub(super) fn string_ty(&self) -> Ty {
        match self.string {
            Some(s) => Ty::Class(s, Vec::new()),
            None => Ty::Ext("java.lang.String".into()),
        }
    }

    /// Resolves a JDK table type name: the type's parameters, `$0`, qualified names, java.lang
    /// and unique simple names.
    pub(super) fn resolve_jdk(&self, tr: &TypeRef, owner: TypeId) -> Ty {
        let base = if tr.name == "$0" {
            Ty::Arg0
        } else if tr.name == "?" {
            tr.args
                .first()
                .map(|a| self.resolve_jdk(a, owner))
                .unwrap_or(Ty::Unknown)
        } else if let Some(p) = prim(&tr.name) {
            Ty::Prim(p)
        } else if self.types[owner as usize].params.contains(&tr.name) {
            Ty::Var(tr.name.as_str().into())
        } else {
            let id = self
                .by_fqn
                .get(&tr.name)
                .or_else(|| self.by_fqn.get(&format!("java.lang.{}", tr.name)))
                .or_else(|| self.jdk_simple.get(&tr.name))
                .copied();
            match id {
                Some(id) => Ty::Class(
                    id,
                    tr.args.iter().map(|a| self.resolve_jdk(a, owner)).collect(),
                ),
                None if tr.name.len() == 1 => Ty::Var(tr.name.as_str().into()),
                None => Ty::Ext(tr.name.as_str().into()),
            }
        };
        wrap_dims(base, tr.dims)
    }

    /// Resolves a type as written in a project file.
    pub fn resolve_ref(&self, tr: &TypeRef, scope: &Scope<'_>) -> Ty {
        let base = if tr.name == "?" {
            tr.args
                .first()
                .map(|a| self.resolve_ref(a, scope))
                .unwrap_or(Ty::Unknown)
        } else if tr.name.is_empty() || tr.name == "var" {
            Ty::Unknown
        } else if let Some(p) = prim(&tr.name) {
            Ty::Prim(p)
        } else {
            match self.resolve_name(&tr.name, scope) {
                Some(Ty::Class(id, _)) => Ty::Class(
                    id,
                    tr.args.iter().map(|a| self.resolve_ref(a, scope)).collect(),
                ),
                Some(other) => other,
                None => Ty::Ext(
                    self.qualify_unknown(&tr.name, scope)
                        .unwrap_or_else(|| tr.name.as_str().into()),
                ),
            }
        };
        wrap_dims(base, tr.dims)
    }

    /// An unknown type's qualified name when an import names it.
    fn qualify_unknown(&self, name: &str, scope: &Scope<'_>) -> Option<Arc<str>> {
        let first = name.split('.').next()?;
        let f = self.files.get(scope.file as usize)?;
        let q = f.single.get(first)?;
        Some(format!("{q}{}", &name[first.len()..]).into())
    }

    /// Resolves a (possibly dotted) type name to a table type or a type variable; `None` when
    /// the name is not a known type.
    pub fn resolve_name(&self, name: &str, scope: &Scope<'_>) -> Option<Ty> {
        let Some((first, rest)) = name.split_once('.') else {
            return self.resolve_simple(name, scope);
        };
        if let Some(Ty::Class(mut id, _)) = self.resolve_simple(first, scope) {
            for part in rest.split('.') {
                id = self.member_type(id, part)?;
            }
            return Some(Ty::Class(id, Vec::new()));
        }
        if let Some(&id) = self.by_fqn.get(name) {
            return Some(Ty::Class(id, Vec::new()));
        }
        // `pkg.Outer.Inner` where only `pkg.Outer` is a table key.
        let mut prefix_end = name.len();
        while let Some(i) = name[..prefix_end].rfind('.') {
            prefix_end = i;
            if let Some(&id) = self.by_fqn.get(&name[..i]) {
                let mut id = id;
                for part in name[i + 1..].split('.') {
                    id = self.member_type(id, part)?;
                }
                return Some(Ty::Class(id, Vec::new()));
            }
        }
        None
    }

    /// javac's order for a simple type name.
    pub fn resolve_simple(&self, name: &str, scope: &Scope<'_>) -> Option<Ty> {
        if scope.method_tparams.iter().any(|p| p == name) {
            return Some(Ty::Var(name.into()));
        }
        let mut lex = scope.lex;
        while let Some(t) = lex {
            let info = &self.types[t as usize];
            if info.name == name && !info.anonymous {
                return Some(Ty::Class(t, Vec::new()));
            }
            if info.params.iter().any(|p| p == name) {
                return Some(Ty::Var(name.into()));
            }
            if let Some(m) = self.member_type(t, name) {
                return Some(Ty::Class(m, Vec::new()));
            }
            // Local classes declared in the same method are visible by name.
            lex = info.outer;
        }
        let f = self.files.get(scope.file as usize)?;
        if let Some(q) = f.single.get(name) {
            return match self.resolve_qualified(q) {
                Some(id) => Some(Ty::Class(id, Vec::new())),
                None => Some(Ty::Ext(q.as_str().into())),
            };
        }
        // Local classes of this file (declared in a method) are found by their simple name.
        if let Some(types) = self.file_types.get(scope.file as usize) {
            for &t in types {
                let info = &self.types[t as usize];
                if info.local && !info.anonymous && info.name == name {
                    return Some(Ty::Class(t, Vec::new()));
                }
            }
        }
        if let Some(&id) = self.by_package.get(&f.package).and_then(|m| m.get(name)) {
            return Some(Ty::Class(id, Vec::new()));
        }
        for p in &f.on_demand {
            if let Some(&id) = self.by_package.get(p).and_then(|m| m.get(name)) {
                return Some(Ty::Class(id, Vec::new()));
            }
            if let Some(id) = self.resolve_qualified(p)
                && let Some(m) = self.member_type(id, name)
            {
                return Some(Ty::Class(m, Vec::new()));
            }
        }
        if let Some(&id) = self.by_package.get("java.lang").and_then(|m| m.get(name)) {
            return Some(Ty::Class(id, Vec::new()));
        }
        if self.lang.contains(name) {
            return Some(Ty::Ext(format!("java.lang.{name}").into()));
        }
        None
    }

    /// A qualified name (`a.b.C`, `a.b.C.D`) to a table type.
    pub fn resolve_qualified(&self, q: &str) -> Option<TypeId> {
        if let Some(&id) = self.by_fqn.get(q) {
            return Some(id);
        }
        let (prefix, last) = q.rsplit_once('.')?;
        let outer = self.resolve_qualified(prefix)?;
        self.member_type(outer, last)
    }

    /// A member type named `name` of `t`, declared or inherited.
    pub fn member_type(&self, t: TypeId, name: &str) -> Option<TypeId> {
        let mut seen = Vec::new();
        let mut stack = vec![t];
        while let Some(t) = stack.pop() {
            if seen.contains(&t) || seen.len() > 64 {
                continue;
            }
            seen.push(t);
            let info = &self.types[t as usize];
            if let Some(&n) = info
                .nested
                .iter()
                .find(|&&n| self.types[n as usize].name == name)
            {
                return Some(n);
            }
            for s in info.superclass.iter().chain(&info.interfaces) {
                if let Ty::Class(s, _) = s {
                    stack.push(*s);
                }
            }
        }
        None
    }

    /// A JDK type whose member list in the table is partial (everything but `Object` and marker
    /// interfaces).
    pub fn is_open_jdk(&self, t: TypeId) -> bool {
        let info = &self.types[t as usize];
        matches!(info.origin, Origin::Jdk)
            && !matches!(
                info.fqn.as_str(),
                "java.lang.Object" | "java.io.Serializable" | "java.lang.Cloneable"
            )
    }

    pub fn is_package(&self, name: &str) -> bool {
        self.packages.contains(name)
    }
}
