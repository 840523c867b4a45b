//! State: status enums and where their values are used; tables and the statements touching them.

use super::{Cite, Graph, Item, Setter, StatusConstant, StatusEnum, TableUse};
use query::model::{Edge, EdgeKind, NodeId, SymbolKind};
use std::collections::BTreeMap;

/// Name endings of enums that hold a lifecycle or status.
const STATUS_SUFFIXES: &[&str] = &["Status", "State", "Phase", "Stage"];
/// Users listed per status enum.
const MAX_USERS: usize = 8;
/// Setters listed per constant.
const MAX_SETTERS: usize = 6;
/// Status enums listed per page, the most used first.
pub const MAX_STATUS: usize = 12;

/// Enums named like a status, each constant with the methods that set it (pass it to a call or
/// assign it: the index's `constant` edges), and the methods outside the enum that use it at all.
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
            .map(|m| {
                let mut setters = setters(g, &m.symbol.id.0, &sym.id.0, &members);
                let setters_cut = setters.len().saturating_sub(MAX_SETTERS);
                setters.truncate(MAX_SETTERS);
                StatusConstant {
                    name: m.symbol.name.clone(),
                    cite: Cite::new(&m.path, m.symbol.start_line, m.symbol.end_line),
                    setters,
                    setters_cut,
                }
            })
            .collect();
        let mut users: BTreeMap<String, Item> = BTreeMap::new();
        for target in members.iter().copied().chain([sym.id.0.as_str()]) {
            for e in g.edges_to(target) {
                if !outside(g, e, &sym.id.0, &members) {
                    continue;
                }
                let name = g.short_id(&e.caller);
                let item = Item {
                    name: name.clone(),
                    cite: Cite::at(&e.caller_file, e.line),
                };
                users
                    .entry(name)
                    .and_modify(|w| {
                        if item.cite < w.cite {
                            *w = item.clone()
                        }
                    })
                    .or_insert(item);
            }
        }
        let mut users: Vec<Item> = users.into_values().collect();
        users.sort_by(|a, b| a.cite.cmp(&b.cite));
        let n = users.len();
        users.truncate(MAX_USERS);
        out.push((
            n,
            StatusEnum {
                name: sym.qualified_name.clone(),
                cite: Cite::new(&s.path, sym.start_line, sym.end_line),
                constants,
                users,
            },
        ));
    }
    // Most used first (stable on ties: source order).
    out.sort_by_key(|s| std::cmp::Reverse(s.0));
    out.into_iter().map(|(_, s)| s).collect()
}

/// Whether edge `e` is a use of the enum `owner` from production code outside it.
fn outside(g: &Graph<'_>, e: &Edge, owner: &str, members: &[&str]) -> bool {
    e.caller != owner
        && !members.contains(&e.caller.as_str())
        && NodeId::parse(&e.caller).is_symbol()
        && g.is_source_path(&e.caller_file)
}

/// The code that sets `constant`, in source order: each `constant` edge into it, with the
/// method the value is passed to (the call edge at the same site) and the tables a MyBatis
/// statement behind that method writes.
fn setters(g: &Graph<'_>, constant: &str, owner: &str, members: &[&str]) -> Vec<Setter> {
    let mut out: Vec<Setter> = g
        .edges_to(constant)
        .filter(|e| e.kind == EdgeKind::Constant && outside(g, e, owner, members))
        .map(|e| {
            let call = e.detail.strip_prefix("= ").is_none().then(|| {
                g.edges_from(&e.caller).find(|c| {
                    c.kind == EdgeKind::Call
                        && c.line == e.line
                        && c.callee
                            .as_deref()
                            .is_some_and(|id| taker_is(id, &e.detail))
                })
            });
            let (via, writes) = match call.flatten().and_then(|c| c.callee.as_deref()) {
                Some(id) => (g.short_id(id), writes(g, id)),
                None => (e.detail.clone(), Vec::new()),
            };
            Setter {
                method: g.short_id(&e.caller),
                via,
                writes,
                cite: Cite::at(&e.caller_file, e.line),
            }
        })
        .collect();
    out.sort_by(|a, b| a.cite.cmp(&b.cite).then_with(|| a.via.cmp(&b.via)));
    out.dedup();
    out
}

/// Whether callee id `id` is the method named `taker` (`<init>` for constructors).
fn taker_is(id: &str, taker: &str) -> bool {
    let member = id.split_once('#').map_or("", |(_, m)| m);
    let name = member.split(['(', '~']).next().unwrap_or(member);
    name == taker || (taker == "<init>" && !id.contains('#'))
}

/// `update t_order` for each table a MyBatis statement behind method `id` changes.
fn writes(g: &Graph<'_>, id: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in g.edges_from(id).filter(|e| e.kind == EdgeKind::Db) {
        let Some(callee) = e.callee.as_deref() else {
            continue;
        };
        let mut add = |t: &str, op: &str| {
            if matches!(op, "insert" | "update" | "delete") {
                out.push(format!("{op} {t}"));
            }
        };
        if let Some(t) = callee.strip_prefix("table:") {
            add(t, op_of(&e.detail));
        } else if callee.starts_with("mybatis:") {
            for s in g.edges_from(callee).filter(|x| x.kind == EdgeKind::Db) {
                if let Some(t) = s.callee.as_deref().and_then(|c| c.strip_prefix("table:")) {
                    add(t, op_of(&s.detail));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Tables the module's code reaches through `db` edges (directly, or through a MyBatis
/// statement), by table name, each with the methods and statements that touch it.
pub fn tables(g: &Graph<'_>, module: &str) -> Vec<TableUse> {
    let mut by_table: BTreeMap<String, Vec<Item>> = BTreeMap::new();
    for e in g.edges_in(module).filter(|e| e.kind == EdgeKind::Db) {
        if !NodeId::parse(&e.caller).is_symbol() {
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
        // `model`: the class an ORM maps onto the table (a Django or SQLAlchemy model).
        "select" | "insert" | "update" | "delete" | "model" => detail,
        _ => "use",
    }
}
