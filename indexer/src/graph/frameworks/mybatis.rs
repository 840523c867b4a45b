//! MyBatis: a mapper interface's method → the XML statement with the same namespace and id →
//! the tables its SQL names; annotation SQL (`@Select` …) → tables directly.

use super::consts::ann_attr;
use super::{At, FileFw, TypeCx, edge, pseudo};
use crate::graph::Files;
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{SqlStatement, TypeKind};
use crate::lang::mybatis;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone)]
pub(super) struct MapperMethod {
    namespace: String,
    method: At,
    /// Annotation SQL: (tables, annotation line).
    sql: Option<(Vec<String>, u32)>,
}

/// Methods of interfaces (any may be named by an XML namespace), with their annotation SQL.
pub(super) fn collect_type(cx: &TypeCx<'_>, fw: &mut FileFw) {
    let d = cx.d;
    if d.kind != TypeKind::Interface || d.local {
        return;
    }
    for (mi, m) in d.methods.iter().enumerate() {
        let sql = m
            .annotations
            .iter()
            .find(|a| matches!(a.simple(), "Select" | "Insert" | "Update" | "Delete"))
            .map(|a| {
                let text = ann_attr(cx.t, cx.files, a, &["value"], &cx.sc).join(" ");
                (mybatis::tables(&text), a.line)
            });
        fw.mappers.push(MapperMethod {
            namespace: d.qname.clone(),
            method: cx.at(mi),
            sql,
        });
    }
}

/// Mapper methods → statements → tables.
pub(super) fn link(files: Files<'_>, fw: &[FileFw], out: &mut Vec<Edge>) {
    let all = || fw.iter();
    // MyBatis.
    let mut statements: HashMap<(&str, &str), (u32, &SqlStatement)> = HashMap::new();
    for (fi, (_, f)) in files.iter().enumerate() {
        if let Some(m) = &f.mapper {
            for s in &m.statements {
                statements
                    .entry((m.namespace.as_str(), s.id.as_str()))
                    .or_insert((fi as u32, s));
            }
        }
    }
    let mut seen_statements = HashSet::new();
    for m in all().flat_map(|f| &f.mappers) {
        let short = m.method.name.rsplit('.').next().unwrap_or_default();
        if let Some((xf, st)) = statements.get(&(m.namespace.as_str(), short)) {
            let sid = format!("mybatis:{}.{}", m.namespace, st.id);
            let to = pseudo(sid.clone(), *xf, st.line);
            let mut e = edge(
                files,
                &m.method,
                m.method.line,
                EdgeKind::Db,
                &to,
                1.0,
                st.op.clone(),
            );
            e.callee_file = Some(files.path(*xf as usize).to_string());
            out.push(e);
            if seen_statements.insert(sid.clone()) {
                for (table, line) in &st.tables {
                    out.push(table_edge(files, &to, *line, table, st.op.clone()));
                }
            }
        }
        if let Some((tables, line)) = &m.sql {
            for table in tables {
                out.push(table_edge(
                    files,
                    &m.method,
                    *line,
                    table,
                    "annotation".into(),
                ));
            }
        }
    }
}

fn table_edge(files: Files<'_>, from: &At, line: u32, table: &str, detail: String) -> Edge {
    Edge {
        caller_file: files.path(from.file as usize).to_string(),
        caller: from.id.clone(),
        caller_name: from.name.clone(),
        line,
        kind: EdgeKind::Db,
        callee: Some(format!("table:{table}")),
        callee_name: format!("table:{table}"),
        callee_file: None,
        callee_line: None,
        caller_flags: 0,
        confidence: 1.0,
        detail,
        site: Default::default(),
    }
}
