//! Models → tables, and the queries that use them: `db` edges to `table:name`, as MyBatis
//! statements give the Java side.
//!
//! * Django: a class deriving from `django.db.models.Model` (or a Django model base such as
//!   `AbstractUser`, or a project model) is the table `Meta.db_table`, else
//!   `<app_label>_<name lowercased>` (the app being the package holding `models`); an abstract
//!   model has none, a proxy model its concrete base's. `Model.objects.filter/create/…` and
//!   `instance.save()/delete()` use it.
//! * SQLAlchemy: a class with `__tablename__`, a `Table("name", metadata, …)`, a Flask-SQLAlchemy
//!   `db.Model` subclass (its name in snake case); `session.query(M)`, `select(M)`,
//!   `insert/update/delete(M)`, `session.get(M, …)`, `session.add(m)` and `M.query.…` use it.
//!
//! The model → table edge is written where the table is named (the class, or its
//! `__tablename__` / `db_table` line); a use is written at its call, the table's place beside.

use super::{PyAssign, PyCall, PyFacts, Repo, V};
use crate::graph::{CallSite, Edge, EdgeKind};
use crate::model::SymbolKind;
use rustc_hash::FxHashMap as HashMap;

/// A model's table and where it is named.
#[derive(Debug, Clone)]
pub(super) struct Table {
    pub name: String,
    pub line: u32,
}

/// Tables by model class (or by the module-level name a `Table(…)` is assigned to).
pub(super) type Tables = HashMap<(usize, u32), Table>;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Orm {
    Django,
    SqlAlchemy,
    FlaskSqlAlchemy,
}

/// How deep model bases are climbed.
const MAX_BASES: u32 = 8;

impl Repo<'_, '_> {
    /// Every model of the repository with its table.
    pub(super) fn tables(&self) -> Tables {
        let mut out = Tables::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for (di, d) in f.defs.iter().enumerate() {
                if d.kind == SymbolKind::Class
                    && let Some(t) = self.table_of(fi, di as u32, 0)
                {
                    out.insert((fi, di as u32), t);
                }
            }
            for c in &f.calls {
                if c.scope != 0 || c.chain.last().map(String::as_str) != Some("Table") {
                    continue;
                }
                let (Some(name), true) = (
                    c.args.first().and_then(|a| a.literals.first()),
                    c.args.len() > 1,
                ) else {
                    continue;
                };
                let field = f
                    .assigns
                    .iter()
                    .find(|a| a.line == c.line && a.target.len() == 1);
                let at = field.and_then(|a| self.members[fi].get(&(0, a.target[0].as_str())));
                out.insert(
                    (fi, at.copied().unwrap_or(0)),
                    Table {
                        name: name.clone(),
                        line: c.line,
                    },
                );
            }
        }
        out
    }

    /// The table of a class, if it is a model that has one.
    fn table_of(&self, f: usize, d: u32, depth: u32) -> Option<Table> {
        let facts = self.facts(f)?;
        let def = self.def(f, d);
        if let Some(c) = self.class_const(f, d, "__tablename__") {
            return Some(Table {
                name: c.0,
                line: c.1,
            });
        }
        let orm = self.orm(f, d, 0)?;
        match orm {
            Orm::Django => {
                let meta = self.members[f]
                    .get(&(d, "Meta"))
                    .copied()
                    .filter(|m| self.def(f, *m).kind == SymbolKind::Class);
                let meta_const = |name: &str| meta.and_then(|m| self.class_const(f, m, name));
                if meta_const("abstract").is_some_and(|v| v.0 == "True") {
                    return None;
                }
                if meta_const("proxy").is_some_and(|v| v.0 == "True") && depth < MAX_BASES {
                    return self
                        .bases(f, d, 0)
                        .into_iter()
                        .find_map(|(bf, bd)| self.table_of(bf, bd, depth + 1));
                }
                if let Some((name, line)) = meta_const("db_table") {
                    return Some(Table { name, line });
                }
                let app = meta_const("app_label")
                    .map(|v| v.0)
                    .unwrap_or_else(|| app_label(&facts.module));
                Some(Table {
                    name: format!("{app}_{}", def.name.to_lowercase()),
                    line: def.line,
                })
            }
            Orm::FlaskSqlAlchemy => Some(Table {
                name: snake_case(&def.name),
                line: def.line,
            }),
            Orm::SqlAlchemy => None,
        }
    }

    /// `name = "literal"` in a class body: (value, line).
    pub(super) fn class_const(&self, f: usize, class: u32, name: &str) -> Option<(String, u32)> {
        self.facts(f)?
            .consts
            .iter()
            .find(|c| c.scope == class && c.target == name)
            .map(|c| (c.value.clone(), c.line))
    }

    /// Which ORM a class's bases (climbed through project classes) come from.
    fn orm(&self, f: usize, d: u32, depth: u32) -> Option<Orm> {
        if depth > MAX_BASES {
            return None;
        }
        let def = self.def(f, d);
        let scope = def.parent.unwrap_or(0);
        for b in &def.bases {
            let chain: Vec<String> = b.split('.').map(str::to_string).collect();
            match self.chain(f, scope, &chain, 0) {
                Some(V::External(x)) => {
                    if x.starts_with("django.") && (x.ends_with("Model") || x.contains(".models."))
                    {
                        return Some(Orm::Django);
                    }
                    if x.starts_with("flask_sqlalchemy") && x.ends_with(".Model") {
                        return Some(Orm::FlaskSqlAlchemy);
                    }
                    if x.starts_with("sqlalchemy") {
                        return Some(Orm::SqlAlchemy);
                    }
                }
                Some(V::Def(bf, bd)) if self.def(bf, bd).kind == SymbolKind::Class => {
                    // Django's own source: its `Model` is a project class there.
                    if self.def(bf, bd).id == "py:django.db.models.base.Model" {
                        return Some(Orm::Django);
                    }
                    if let Some(o) = self.orm(bf, bd, depth + 1) {
                        return Some(o);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// What an assignment from a Django manager gives: `o = M.objects.get(…)` (`first`,
    /// `create`…) an instance of model `M`, and so does each of `for o in M.objects.filter(…)`.
    pub(super) fn manager_result(
        &self,
        fi: usize,
        scope: u32,
        a: &PyAssign,
        depth: u32,
    ) -> Option<V> {
        let [model @ .., manager, method] = a.value.as_slice() else {
            return None;
        };
        if !a.called || manager != "objects" || model.is_empty() {
            return None;
        }
        let one = matches!(
            method.as_str(),
            "get" | "first" | "last" | "create" | "earliest" | "latest" | "get_or_create"
        );
        if one == a.each {
            return None;
        }
        match self.chain(fi, scope, model, depth + 1)? {
            V::Def(f, d)
                if self.def(f, d).kind == SymbolKind::Class
                    && self.orm(f, d, 0) == Some(Orm::Django) =>
            {
                Some(V::Instance(f, d))
            }
            _ => None,
        }
    }

    /// Model → table edges, by the model's file.
    pub(super) fn table_edges(&self, tables: &Tables) -> HashMap<usize, Vec<Edge>> {
        let mut out: HashMap<usize, Vec<Edge>> = HashMap::default();
        for (&(f, d), t) in tables {
            let id = format!("table:{}", t.name);
            out.entry(f).or_default().push(Edge {
                caller_file: self.files[f].0.to_string(),
                caller: self.def(f, d).id.clone(),
                caller_name: String::new(),
                line: t.line,
                kind: EdgeKind::Db,
                callee: Some(id.clone()),
                callee_name: id,
                callee_file: Some(self.files[f].0.to_string()),
                callee_line: Some(t.line),
                caller_flags: 0,
                confidence: 1.0,
                detail: "model".to_string(),
                site: CallSite::default(),
            });
        }
        out
    }

    /// The table a call reads or writes, as a `db` edge.
    pub(super) fn query_edge(
        &self,
        fi: usize,
        f: &PyFacts,
        c: &PyCall,
        tables: &Tables,
    ) -> Option<Edge> {
        let (last, receiver) = c.chain.split_last()?;
        // The model a chain names: (class, its table, whether the chain is an instance).
        let model = |chain: &[String]| match self.chain_at(fi, c.scope, chain, c.line, 0)? {
            V::Def(mf, md) => tables.get(&(mf, md)).map(|t| ((mf, md), t, false)),
            V::Instance(mf, md) => tables.get(&(mf, md)).map(|t| ((mf, md), t, true)),
            _ => None,
        };
        let first_arg = || {
            c.args
                .first()
                .filter(|a| a.keyword.is_none())?
                .value
                .clone()
        };
        let manager = receiver.len() >= 2
            && matches!(
                receiver.last().map(String::as_str),
                Some("objects" | "query")
            );
        let (found, op) = if manager {
            let found = model(&receiver[..receiver.len() - 1]).filter(|m| !m.2)?;
            (found, manager_op(last))
        } else if matches!(last.as_str(), "save" | "delete") && !receiver.is_empty() {
            (model(receiver).filter(|m| m.2)?, last.as_str())
        } else {
            // `select(M)`, `session.query(M)`: the class; `session.add(m)`: an instance.
            let (op, instance) = match last.as_str() {
                "query" | "select" | "get" => ("select", false),
                "insert" => ("insert", false),
                "update" => ("update", false),
                "delete" => ("delete", false),
                "add" | "merge" => ("insert", true),
                _ => return None,
            };
            (model(&first_arg()?).filter(|m| m.2 == instance)?, op)
        };
        let ((mf, _), t, _) = found;
        let id = format!("table:{}", t.name);
        let mut e = self.call_edge(fi, f, c, None);
        e.kind = EdgeKind::Db;
        e.callee = Some(id.clone());
        e.callee_name = id;
        e.callee_file = Some(self.files[mf].0.to_string());
        e.callee_line = Some(t.line);
        e.confidence = 1.0;
        e.detail = op.to_string();
        Some(e)
    }
}

/// What a manager or query method does to its table.
fn manager_op(method: &str) -> &'static str {
    match method {
        "create" | "bulk_create" | "get_or_create" => "insert",
        "update" | "update_or_create" | "bulk_update" => "update",
        "delete" => "delete",
        _ => "select",
    }
}

/// A Django app's label from a models module: the package holding `models` (`shop.models`,
/// `shop.models.order` → `shop`), else the module's package.
fn app_label(module: &str) -> String {
    let parts: Vec<&str> = module.split('.').collect();
    let at = parts.iter().rposition(|p| *p == "models");
    let i = match at {
        Some(i) if i > 0 => i - 1,
        _ => parts.len().saturating_sub(2),
    };
    parts.get(i).copied().unwrap_or(module).to_string()
}

/// `OrderItem` → `order_item`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn app_labels_and_snake_case() {
        assert_eq!(super::app_label("shop.models"), "shop");
        assert_eq!(super::app_label("django.contrib.auth.models"), "auth");
        assert_eq!(super::app_label("shop.models.order"), "shop");
        assert_eq!(super::app_label("shop.tables"), "shop");
        assert_eq!(super::snake_case("OrderItem"), "order_item");
    }
}
