//! The call graph's tables in the catalog: per-file facts and the edges, both current-only (like
//! chunks). Edges are grouped by the file of their use site with a hash per file, so that a run
//! which re-resolves the whole graph rewrites only the files whose edges changed. Written inside
//! the run's one transaction ([`apply`]).

use super::Catalog;
use crate::graph::{Edge, EdgeKind};
use crate::model::RepoPath;
use crate::store::StoreError;
use rusqlite::{OptionalExtension, Transaction, params};
use std::collections::HashMap;

pub(super) const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS facts(file TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS edges(
  caller_file TEXT NOT NULL, caller TEXT NOT NULL, caller_name TEXT NOT NULL, line INTEGER NOT NULL,
  kind TEXT NOT NULL, callee TEXT, callee_name TEXT NOT NULL, callee_file TEXT, callee_line INTEGER,
  confidence REAL NOT NULL, detail TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS edges_file ON edges(caller_file);
CREATE INDEX IF NOT EXISTS edges_caller ON edges(caller);
CREATE INDEX IF NOT EXISTS edges_callee ON edges(callee);
CREATE TABLE IF NOT EXISTS edge_files(file TEXT PRIMARY KEY, hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS symbols_id ON symbols(sym_id) WHERE gen_to IS NULL;
"#;

/// What one run changes in the graph tables.
#[derive(Debug, Default)]
pub struct GraphChanges {
    /// Encoded facts of files analysed this run.
    pub facts: Vec<(RepoPath, Vec<u8>)>,
    /// Files whose facts are gone (removed, or analysed without facts).
    pub facts_removed: Vec<RepoPath>,
    /// Files whose edges are replaced: (use-site file, hash of its edges, its edges).
    pub edges: Vec<(String, String, Vec<Edge>)>,
    /// Files that no longer hold any use site.
    pub edges_removed: Vec<String>,
}

const EDGE_COLS: &str = "caller_file, caller, caller_name, line, kind, callee, callee_name, \
     callee_file, callee_line, confidence, detail";

fn edge_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Edge> {
    let kind: String = r.get(4)?;
    Ok(Edge {
        caller_file: r.get(0)?,
        caller: r.get(1)?,
        caller_name: r.get(2)?,
        line: r.get(3)?,
        kind: EdgeKind::parse(&kind).unwrap_or(EdgeKind::Call),
        callee: r.get(5)?,
        callee_name: r.get(6)?,
        callee_file: r.get(7)?,
        callee_line: r.get(8)?,
        confidence: r.get::<_, f64>(9)? as f32,
        detail: r.get(10)?,
    })
}

impl Catalog {
    /// Whether the graph tables describe the current snapshot (false for an index built with
    /// the graph turned off).
    pub fn graph_ready(&self) -> Result<bool, StoreError> {
        let v: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key='graph'", [], |r| r.get(0))
            .optional()?;
        Ok(v.as_deref() == Some("on"))
    }

    /// Stored facts of every file, encoded, except `skip`.
    pub fn facts_except(
        &self,
        skip: &std::collections::HashSet<&str>,
    ) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let mut st = self.conn.prepare("SELECT file, data FROM facts")?;
        let rows = st.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
        })?;
        let mut out = Vec::new();
        for r in rows {
            let (f, d) = r?;
            if !skip.contains(f.as_str()) {
                out.push((f, d));
            }
        }
        Ok(out)
    }

    /// Hash of each use-site file's edges.
    pub fn edge_hashes(&self) -> Result<HashMap<String, String>, StoreError> {
        let mut st = self.conn.prepare("SELECT file, hash FROM edge_files")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Edges whose use site is in `caller` (a symbol or pseudo id), in source order.
    pub fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {EDGE_COLS} FROM edges WHERE caller = ?1 ORDER BY caller_file, line, rowid"
        ))?;
        let rows = st.query_map([caller], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Edges pointing at `callee` (a symbol, external or pseudo id).
    pub fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {EDGE_COLS} FROM edges WHERE callee = ?1 ORDER BY caller_file, line, rowid"
        ))?;
        let rows = st.query_map([callee], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Edges whose use site is in file `path`.
    pub fn edges_in_file(&self, path: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {EDGE_COLS} FROM edges WHERE caller_file = ?1 ORDER BY line, rowid"
        ))?;
        let rows = st.query_map([path], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Unresolved call sites naming `name` (the callee is not known, only its name).
    pub fn unresolved_named(&self, name: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {EDGE_COLS} FROM edges WHERE callee IS NULL AND callee_name = ?1
             ORDER BY caller_file, line, rowid"
        ))?;
        let rows = st.query_map([name], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every edge, ordered by use site; `f` sees each in turn (no collection in memory).
    pub fn for_each_edge(
        &self,
        mut f: impl FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {EDGE_COLS} FROM edges ORDER BY caller_file, line, rowid"
        ))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            f(edge_from_row(r)?)?;
        }
        Ok(())
    }

    /// The current symbol with this id, if any.
    pub fn symbol_by_id(&self, id: &str) -> Result<Option<super::SymbolRow>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {} FROM symbols WHERE gen_to IS NULL AND sym_id = ?1 LIMIT 1",
            super::SYMBOL_COLS
        ))?;
        Ok(st.query_row([id], super::symbol_from_row).optional()?)
    }

    pub fn edge_count(&self) -> Result<u64, StoreError> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM edges", [], |r| r.get(0))?;
        Ok(n as u64)
    }
}

/// Applies a run's graph changes inside its transaction.
pub(super) fn apply(tx: &Transaction<'_>, g: &GraphChanges) -> Result<(), StoreError> {
    {
        let mut put =
            tx.prepare_cached("INSERT OR REPLACE INTO facts(file, data) VALUES(?1, ?2)")?;
        for (p, data) in &g.facts {
            put.execute(params![p.as_str(), data])?;
        }
        let mut del = tx.prepare_cached("DELETE FROM facts WHERE file = ?1")?;
        for p in &g.facts_removed {
            del.execute([p.as_str()])?;
        }
    }
    let mut del_edges = tx.prepare_cached("DELETE FROM edges WHERE caller_file = ?1")?;
    let mut del_hash = tx.prepare_cached("DELETE FROM edge_files WHERE file = ?1")?;
    for f in &g.edges_removed {
        del_edges.execute([f])?;
        del_hash.execute([f])?;
    }
    let mut put_hash =
        tx.prepare_cached("INSERT OR REPLACE INTO edge_files(file, hash) VALUES(?1, ?2)")?;
    let mut ins = tx.prepare_cached(&format!(
        "INSERT INTO edges({EDGE_COLS}) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
    ))?;
    for (file, hash, edges) in &g.edges {
        del_edges.execute([file])?;
        for e in edges {
            ins.execute(params![
                e.caller_file,
                e.caller,
                e.caller_name,
                e.line,
                e.kind.as_str(),
                e.callee,
                e.callee_name,
                e.callee_file,
                e.callee_line,
                e.confidence as f64,
                e.detail,
            ])?;
        }
        put_hash.execute(params![file, hash])?;
    }
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES('graph', 'on')",
        [],
    )?;
    Ok(())
}
