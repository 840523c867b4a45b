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
CREATE TABLE IF NOT EXISTS graph_nodes(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS edges(
  file INTEGER NOT NULL, seq INTEGER NOT NULL, line INTEGER NOT NULL, kind INTEGER NOT NULL,
  caller INTEGER NOT NULL, flags INTEGER NOT NULL, callee INTEGER NOT NULL,
  callee_file INTEGER, callee_line INTEGER, confidence INTEGER NOT NULL, detail TEXT,
  PRIMARY KEY(file, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edges_caller ON edges(caller);
CREATE INDEX IF NOT EXISTS edges_callee ON edges(callee);
CREATE TABLE IF NOT EXISTS edge_files(file TEXT PRIMARY KEY, hash TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS symbols_id ON symbols(sym_id) WHERE gen_to IS NULL;
"#;

/// How edges are stored: endpoints, files and unresolved names are interned in `graph_nodes`
/// (an edge row is a handful of integers); display names are derived from the ids on the way
/// out ([`crate::graph::edge::caller_name_of`]). Keys: ids as they are, file paths prefixed with
/// `/`, unresolved callee names prefixed with `?`.
fn path_key(p: &str) -> String {
    format!("/{p}")
}

fn callee_key(e: &Edge) -> String {
    match &e.callee {
        Some(c) => c.clone(),
        None => format!("?{}", e.callee_name),
    }
}

fn kind_code(k: EdgeKind) -> i64 {
    EdgeKind::ALL.iter().position(|x| *x == k).unwrap_or(0) as i64
}

fn kind_of(code: i64) -> EdgeKind {
    EdgeKind::ALL
        .get(code as usize)
        .copied()
        .unwrap_or(EdgeKind::Call)
}

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

/// Columns of an edge read back with its keys.
const EDGE_SELECT: &str =
    "SELECT f.key, c.key, e.flags, e.line, e.kind, k.key, cf.key, e.callee_line,
       e.confidence, e.detail
  FROM edges e
  JOIN graph_nodes f ON f.id = e.file
  JOIN graph_nodes c ON c.id = e.caller
  JOIN graph_nodes k ON k.id = e.callee
  LEFT JOIN graph_nodes cf ON cf.id = e.callee_file";

fn edge_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Edge> {
    let file: String = r.get(0)?;
    let caller: String = r.get(1)?;
    let flags: i64 = r.get(2)?;
    let kind = kind_of(r.get(4)?);
    let callee_key: String = r.get(5)?;
    let (callee, callee_name) = match callee_key.strip_prefix('?') {
        Some(name) => (None, name.to_string()),
        None => (
            Some(callee_key.clone()),
            crate::graph::edge::callee_name_of(&callee_key, kind),
        ),
    };
    let callee_file: Option<String> = r.get(6)?;
    Ok(Edge {
        caller_file: file.strip_prefix('/').unwrap_or(&file).to_string(),
        caller_name: crate::graph::edge::caller_name_of(&caller, flags as u8),
        caller,
        line: r.get(3)?,
        kind,
        callee,
        callee_name,
        callee_file: callee_file.map(|f| f.strip_prefix('/').unwrap_or(&f).to_string()),
        callee_line: r.get(7)?,
        confidence: r.get::<_, i64>(8)? as f32 / 100.0,
        detail: r.get::<_, Option<String>>(9)?.unwrap_or_default(),
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
            "{EDGE_SELECT} WHERE e.caller = (SELECT id FROM graph_nodes WHERE key = ?1)
             ORDER BY f.key, e.seq"
        ))?;
        let rows = st.query_map([caller], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Edges pointing at `callee` (a symbol, external or pseudo id).
    pub fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "{EDGE_SELECT} WHERE e.callee = (SELECT id FROM graph_nodes WHERE key = ?1)
             ORDER BY f.key, e.seq"
        ))?;
        let rows = st.query_map([callee], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Edges whose use site is in file `path`.
    pub fn edges_in_file(&self, path: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "{EDGE_SELECT} WHERE e.file = (SELECT id FROM graph_nodes WHERE key = ?1)
             ORDER BY e.seq"
        ))?;
        let rows = st.query_map([path_key(path)], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Unresolved call sites naming `name` (the callee is not known, only its name).
    pub fn unresolved_named(&self, name: &str) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "{EDGE_SELECT} WHERE e.callee = (SELECT id FROM graph_nodes WHERE key = ?1)
             ORDER BY f.key, e.seq"
        ))?;
        let rows = st.query_map([format!("?{name}")], edge_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every edge, ordered by use site; `f` sees each in turn (no collection in memory).
    pub fn for_each_edge(
        &self,
        mut f: impl FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut st = self
            .conn
            .prepare(&format!("{EDGE_SELECT} ORDER BY f.key, e.seq"))?;
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
    let mut nodes = Nodes::load(tx)?;
    let mut del_edges = tx.prepare_cached("DELETE FROM edges WHERE file = ?1")?;
    let mut del_hash = tx.prepare_cached("DELETE FROM edge_files WHERE file = ?1")?;
    for f in &g.edges_removed {
        if let Some(id) = nodes.get(&path_key(f)) {
            del_edges.execute([id])?;
        }
        del_hash.execute([f])?;
    }
    // A first build inserts every edge: indexes are cheaper built once afterwards.
    let bulk = g.edges.iter().map(|(_, _, e)| e.len()).sum::<usize>() > 50_000
        && tx.query_row("SELECT NOT EXISTS(SELECT 1 FROM edges)", [], |r| {
            r.get::<_, bool>(0)
        })?;
    if bulk {
        tx.execute_batch("DROP INDEX IF EXISTS edges_caller; DROP INDEX IF EXISTS edges_callee;")?;
    }
    let mut put_hash =
        tx.prepare_cached("INSERT OR REPLACE INTO edge_files(file, hash) VALUES(?1, ?2)")?;
    let mut ins = tx.prepare_cached(
        "INSERT INTO edges(file, seq, line, kind, caller, flags, callee, callee_file, callee_line,
           confidence, detail) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for (file, hash, edges) in &g.edges {
        let fid = nodes.intern(tx, &path_key(file))?;
        del_edges.execute([fid])?;
        for (seq, e) in edges.iter().enumerate() {
            let caller = nodes.intern(tx, &e.caller)?;
            let callee = nodes.intern(tx, &callee_key(e))?;
            let callee_file = match &e.callee_file {
                Some(f) => Some(nodes.intern(tx, &path_key(f))?),
                None => None,
            };
            ins.execute(params![
                fid,
                seq as i64,
                e.line,
                kind_code(e.kind),
                caller,
                e.caller_flags(),
                callee,
                callee_file,
                e.callee_line,
                (e.confidence * 100.0).round() as i64,
                (!e.detail.is_empty()).then_some(e.detail.as_str()),
            ])?;
        }
        put_hash.execute(params![file, hash])?;
    }
    if bulk {
        tx.execute_batch(
            "CREATE INDEX IF NOT EXISTS edges_caller ON edges(caller);
             CREATE INDEX IF NOT EXISTS edges_callee ON edges(callee);",
        )?;
    }
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES('graph', 'on')",
        [],
    )?;
    Ok(())
}

/// The interned keys, loaded once per run.
struct Nodes {
    ids: HashMap<String, i64>,
    next: i64,
}

impl Nodes {
    fn load(tx: &Transaction<'_>) -> Result<Nodes, StoreError> {
        let mut st = tx.prepare("SELECT id, key FROM graph_nodes")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, i64>(0)?)))?;
        let ids: HashMap<String, i64> = rows.collect::<Result<_, _>>()?;
        let next = ids.values().copied().max().unwrap_or(0) + 1;
        Ok(Nodes { ids, next })
    }

    fn get(&self, key: &str) -> Option<i64> {
        self.ids.get(key).copied()
    }

    fn intern(&mut self, tx: &Transaction<'_>, key: &str) -> Result<i64, StoreError> {
        if let Some(&id) = self.ids.get(key) {
            return Ok(id);
        }
        let id = self.next;
        self.next += 1;
        tx.prepare_cached("INSERT INTO graph_nodes(id, key) VALUES(?1, ?2)")?
            .execute(params![id, key])?;
        self.ids.insert(key.to_string(), id);
        Ok(id)
    }
}
