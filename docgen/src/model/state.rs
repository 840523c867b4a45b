//! State: status enums and where their values are used; tables and the statements touching them.

use super::{Cite, Graph, Item, StatusEnum, TableUse};
use indexer::graph::EdgeKind;
use indexer::model::SymbolKind;
use std::collections::BTreeMap;

/// Name endings of enums that hold a lifecycle or status.
const STATUS_SUFFIXES: &[&str] = &["Status", "State", "Phase", "Stage"];
/// Users listed per status enum.
const MAX_WRITERS: usize = 8;
/// Status enums listed per page, the most used first.
pub const MAX_STATUS: usize = 12;

/// Enums named like a status, with their constants and the methods outside them that use them
/// (the graph records the use of an enum's members, not which constant is set).
pub fn status_enums(g: &Graph<'_>, module: &str) -> Vec<StatusEnum> {
    let mut out: Vec<(usize, StatusEnum)> = Vec::new();
    let syms: Vec<_> = g.symbols_of(module).collect();
    for s in &syms {
        let sym = &s.symbol;
        if sym.kind != SymbolKind::Enum || !STATUS_SUFFIXES.iter().any(|x| sym.name.ends_with(x)) {
            continue;
        }
        let members: Vec<&str> = syms
            .iter()
            .filter(|m| m.symbol.parent.as_ref() == Some(&sym.id))
            .map(|m| m.symbol.id.0.as_str())
            .collect();
        let constants = syms
            .iter()
            .filter(|m| {
                m.symbol.parent.as_ref() == Some(&sym.id) && m.symbol.kind == SymbolKind::Constant
            })
            .map(|m| m.symbol.name.clone())
            .collect();
        let mut writers: BTreeMap<String, Item> = BTreeMap::new();
        for target in members.iter().copied().chain([sym.id.0.as_str()]) {
            for e in g.edges_to(target) {
                if e.caller == sym.id.0 || members.contains(&e.caller.as_str()) {
                    continue;
                }
                if !e.caller.starts_with("java:") || !g.is_source_path(&e.caller_file) {
                    continue;
                }
                let name = g.short_id(&e.caller);
                let item = Item {
                    name: name.clone(),
                    cite: Cite::at(&e.caller_file, e.line),
                };
                writers
                    .entry(name)
                    .and_modify(|w| {
                        if item.cite < w.cite {
                            *w = item.clone()
                        }
                    })
                    .or_insert(item);
            }
        }
        let mut writers: Vec<Item> = writers.into_values().collect();
        writers.sort_by(|a, b| a.cite.cmp(&b.cite));
        let users = writers.len();
        writers.truncate(MAX_WRITERS);
        out.push((
            users,
            StatusEnum {
                name: sym.qualified_name.clone(),
                cite: Cite::new(&s.path, sym.start_line, sym.end_line),
                constants,
                writers,
            },
        ));
    }
    // Most used first (stable on ties: source order).
    out.sort_by_key(|s| std::cmp::Reverse(s.0));
    out.into_iter().map(|(_, s)| s).collect()
}

/// Tables the module's code reaches through `db` edges (directly, or through a MyBatis
/// statement), by table name, each with the methods and statements that touch it.
pub fn tables(g: &Graph<'_>, module: &str) -> Vec<TableUse> {
    let mut by_table: BTreeMap<String, Vec<Item>> = BTreeMap::new();
    for e in g.edges_in(module).filter(|e| e.kind == EdgeKind::Db) {
        if !e.caller.starts_with("java:") {
            continue;
        }
        let Some(callee) = e.callee.as_deref() else {
            continue;
        };
        let method = g.short_id(&e.caller);
        let mut add = |table: &str, op: &str, cite: Cite| {
            by_table.entry(table.to_string()).or_default().push(Item {
                name: format!("{op} · {method}"),
                cite,
            });
        };
        if let Some(t) = callee.strip_prefix("table:") {
            add(t, op_of(&e.detail), Cite::at(&e.caller_file, e.line));
        } else if callee.starts_with("mybatis:") {
            for s in g.edges_from(callee).filter(|x| x.kind == EdgeKind::Db) {
                if let Some(t) = s.callee.as_deref().and_then(|c| c.strip_prefix("table:")) {
                    add(t, op_of(&s.detail), Cite::at(&s.caller_file, s.line));
                }
            }
        }
    }
    by_table
        .into_iter()
        .map(|(table, mut by)| {
            by.sort();
            by.dedup();
            TableUse { table, by }
        })
        .collect()
}

/// The statement kind a `db` edge's detail names (`select`, `update`…), else `use`.
fn op_of(detail: &str) -> &str {
    match detail {
        "select" | "insert" | "update" | "delete" => detail,
        _ => "use",
    }
}
