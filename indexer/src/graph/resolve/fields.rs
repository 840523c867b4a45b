//! Project fields as the data edges (reads, constants set as values) see them: how a simple name
//! finds one, where one is declared, and the edge from the code using it.

use super::{FileResolver, caller_flags, caller_id};
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{Caller, FieldDecl};
use crate::graph::types::{FieldInfo, Origin, Scope, TypeId};

/// A project field a data edge points at: its id, declaring file and line.
pub(super) struct FieldSite {
    pub id: String,
    pub path: String,
    pub line: u32,
}

impl<'a> FileResolver<'a> {
    /// What a simple name `n` designates, as javac looks it up: `find` on the enclosing types
    /// from the innermost out, then on the owners of single static imports of `n`, then on
    /// those of static imports on demand.
    pub(super) fn by_simple_name<T>(
        &self,
        n: &str,
        sc: &Scope<'a>,
        find: impl Fn(&Self, TypeId) -> Option<T>,
    ) -> Option<T> {
        let table = self.table;
        let mut lex = sc.lex;
        while let Some(t) = lex {
            if let Some(x) = find(self, t) {
                return Some(x);
            }
            lex = table.types[t as usize].outer;
        }
        let file = table.files.get(sc.file as usize)?;
        let single = file
            .static_single
            .iter()
            .filter(|(m, _)| m == n)
            .map(|(_, owner)| owner);
        single
            .chain(&file.static_on_demand)
            .find_map(|owner| find(self, table.resolve_qualified(owner)?))
    }

    /// The declaration of field `f` of type `t` and its file (`None` for JDK fields).
    pub(super) fn field_decl(
        &self,
        t: TypeId,
        f: &FieldInfo,
    ) -> Option<(FieldSite, &'a FieldDecl)> {
        let Origin::Project { file, decl } = self.table.types[t as usize].origin else {
            return None;
        };
        let (path, facts) = self.files.get(file as usize)?;
        let d = facts.java.as_ref()?.types.get(decl as usize)?;
        let fd = d.fields.get(f.decl? as usize)?;
        let site = FieldSite {
            id: f.id.clone(),
            path: path.to_string(),
            line: fd.line,
        };
        Some((site, fd))
    }

    /// The edge of `kind` from `caller`'s use at `line` to the field at `site`.
    pub(super) fn field_edge(
        &self,
        caller: Caller,
        line: u32,
        kind: EdgeKind,
        site: FieldSite,
        detail: String,
    ) -> Option<Edge> {
        Some(Edge {
            caller_file: self.path().to_string(),
            caller: caller_id(self.j, caller)?,
            caller_name: String::new(),
            line,
            kind,
            callee: Some(site.id),
            callee_name: String::new(),
            callee_file: Some(site.path),
            callee_line: Some(site.line),
            caller_flags: caller_flags(caller),
            confidence: 1.0,
            detail,
            site: Default::default(),
        })
    }
}
