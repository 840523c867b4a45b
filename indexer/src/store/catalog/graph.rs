//! The call graph's tables in the catalog: per-file facts and the edges, both current-only (like
//! chunks). Edges are grouped by the file of their use site with a hash per file, so that a run
//! which re-resolves the whole graph rewrites only the files whose edges changed. Written inside
//! the run's one transaction ([`apply`]).

use super::Catalog;
use crate::graph::Edge;
use crate::store::StoreError;
use rusqlite::{OptionalExtension, Transaction, params};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// Decoded edges of use-site files, keyed by file id and checked against the row's hash on
/// every read, so a cached entry can never outlive a rewrite (by this or another process).
/// Decoding dominates graph reads, and the files around a question repeat within and across
/// questions of one process. Bounded by clearing when full.
#[derive(Default)]
pub(super) struct EdgeCache(RefCell<HashMap<i64, HashedEdges>>);

/// A file's decoded edges and the `edge_files.hash` they were decoded at.
type HashedEdges = (String, Arc<Vec<Edge>>);

const EDGE_CACHE_FILES: usize = 4096;

pub(super) const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS facts(file TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS edge_files(
  id INTEGER PRIMARY KEY, file TEXT NOT NULL, hash TEXT NOT NULL, n INTEGER NOT NULL,
  data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS edge_callees(callee INTEGER NOT NULL, file INTEGER NOT NULL,
  PRIMARY KEY(callee, file)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS edge_callers(caller INTEGER NOT NULL, file INTEGER NOT NULL,
  PRIMARY KEY(caller, file)) WITHOUT ROWID;
"#;

/// How edges are stored: the edges of one use-site file are one row (`edge_files`, bincode +
/// LZ4, display names left out: they derive from the ids), found by a 63-bit hash of the path;
/// `edge_callees` and `edge_callers` map a hash of each endpoint key to the files that use it.
/// A lookup by symbol therefore reads the few files that mention it. Keys: ids as they are;
/// an unresolved callee is `?name`.
pub(crate) fn node_id(key: &str) -> i64 {
    let h = blake3::hash(key.as_bytes());
    let b = h.as_bytes();
    (i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) & i64::MAX).max(1)
}

fn callee_key(e: &Edge) -> String {
    match &e.callee {
        Some(c) => c.clone(),
        None => format!("?{}", e.callee_name),
    }
}

fn encode_edges(edges: &[Edge]) -> Vec<u8> {
    lz4_flex::compress_prepend_size(&bincode::serialize(edges).unwrap_or_default())
}

/// Edges as stored: display names are filled in only for the edges a read returns
/// ([`Edge::normalize_names`]), since lookups keep a few edges of each file they decode.
fn decode_edges(data: &[u8]) -> Vec<Edge> {
    let Ok(raw) = lz4_flex::decompress_size_prepended(data) else {
        return Vec::new();
    };
    bincode::deserialize(&raw).unwrap_or_default()
}

fn named(e: &Edge) -> Edge {
    let mut e = e.clone();
    e.normalize_names();
    e
}

/// What one run changes in the edge tables (facts are written with their file, [`super::RunTx`]).
#[derive(Debug, Default)]
pub struct GraphChanges {
    /// Files whose edges are replaced.
    pub edges: Vec<EdgeFile>,
    /// Files that no longer hold any use site.
    pub edges_removed: Vec<String>,
    /// The run changed files without maintaining the graph (`CODEMAP_SKIP_GRAPH`): the stored
    /// graph is stale, and the next run that maintains it rebuilds the index.
    pub stale: bool,
}

/// One use-site file's edges, encoded for its row ([`EdgeFile::new`] runs on the graph stage's
/// worker threads, so the catalog transaction only inserts).
#[derive(Debug)]
pub struct EdgeFile {
    pub file: String,
    /// Content hash of the edges (unchanged hash: the row is not rewritten).
    pub hash: String,
    pub count: usize,
    data: Vec<u8>,
    /// Endpoint keys ([`node_id`]) of the callees and callers, deduplicated.
    callees: Vec<i64>,
    callers: Vec<i64>,
}

impl EdgeFile {
    pub fn new(file: String, hash: String, edges: &[Edge]) -> EdgeFile {
        let mut callees: Vec<i64> = edges.iter().map(|e| node_id(&callee_key(e))).collect();
        let mut callers: Vec<i64> = edges.iter().map(|e| node_id(&e.caller)).collect();
        for keys in [&mut callees, &mut callers] {
            keys.sort_unstable();
            keys.dedup();
        }
        EdgeFile {
            file,
            hash,
            count: edges.len(),
            data: encode_edges(edges),
            callees,
            callers,
        }
    }
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

    fn file_edges(&self, file_id: i64) -> Result<Arc<Vec<Edge>>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT hash FROM edge_files WHERE id = ?1")?;
        let Some(hash) = st
            .query_row([file_id], |r| r.get::<_, String>(0))
            .optional()?
        else {
            return Ok(Arc::default());
        };
        if let Some((h, edges)) = self.edge_cache.0.borrow().get(&file_id)
            && *h == hash
        {
            return Ok(edges.clone());
        }
        let mut st = self
            .conn
            .prepare_cached("SELECT data FROM edge_files WHERE id = ?1")?;
        let data: Option<Vec<u8>> = st.query_row([file_id], |r| r.get(0)).optional()?;
        let edges = Arc::new(data.map(|d| decode_edges(&d)).unwrap_or_default());
        let mut cache = self.edge_cache.0.borrow_mut();
        if cache.len() >= EDGE_CACHE_FILES {
            cache.clear();
        }
        cache.insert(file_id, (hash, edges.clone()));
        Ok(edges)
    }

    /// Edges of the files listed for `key` in `table`, kept when `keep` says so.
    fn edges_via(
        &self,
        table: &str,
        key: &str,
        keep: impl Fn(&Edge) -> bool,
    ) -> Result<Vec<Edge>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT x.file FROM {table} x JOIN edge_files f ON f.id = x.file
             WHERE x.{col} = ?1 ORDER BY f.file",
            col = if table == "edge_callees" {
                "callee"
            } else {
                "caller"
            },
        ))?;
        let files: Vec<i64> = st
            .query_map([node_id(key)], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::new();
        for f in files {
            out.extend(self.file_edges(f)?.iter().filter(|e| keep(e)).map(named));
        }
        Ok(out)
    }

    /// Edges whose use site is in `caller` (a symbol or pseudo id), in source order.
    pub fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_via("edge_callers", caller, |e| e.caller == caller)
    }

    /// Edges pointing at `callee` (a symbol, external or pseudo id).
    pub fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_via("edge_callees", callee, |e| {
            e.callee.as_deref() == Some(callee)
        })
    }

    /// Edges whose use site is in file `path`.
    pub fn edges_in_file(&self, path: &str) -> Result<Vec<Edge>, StoreError> {
        Ok(self.file_edges(node_id(path))?.iter().map(named).collect())
    }

    /// Unresolved call sites naming `name` (the callee is not known, only its name).
    pub fn unresolved_named(&self, name: &str) -> Result<Vec<Edge>, StoreError> {
        self.edges_via("edge_callees", &format!("?{name}"), |e| {
            e.callee.is_none() && e.callee_name == name
        })
    }

    /// Every edge, ordered by use site; `f` sees each in turn (one file in memory at a time).
    pub fn for_each_edge(
        &self,
        mut f: impl FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT data FROM edge_files ORDER BY file")?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            let data: Vec<u8> = r.get(0)?;
            for mut e in decode_edges(&data) {
                e.normalize_names();
                f(e)?;
            }
        }
        Ok(())
    }

    /// The current symbol with this id, if any (found through its qualified name).
    pub fn symbol_by_id(&self, id: &str) -> Result<Option<super::SymbolRow>, StoreError> {
        if !id.starts_with("java:") {
            return Ok(None);
        }
        let qname = crate::graph::edge::caller_name_of(id, 0);
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {} FROM symbols WHERE gen_to IS NULL AND qname = ?1 AND sym_id = ?2 LIMIT 1",
            super::SYMBOL_COLS
        ))?;
        Ok(st
            .query_row(params![qname, id], super::symbol_from_row)
            .optional()?)
    }

    pub fn edge_count(&self) -> Result<u64, StoreError> {
        let n: i64 =
            self.conn
                .query_row("SELECT COALESCE(SUM(n), 0) FROM edge_files", [], |r| {
                    r.get(0)
                })?;
        Ok(n as u64)
    }
}

/// Removes a use-site file's edges and their index rows.
fn remove_file(tx: &Transaction<'_>, id: i64) -> Result<(), StoreError> {
    let data: Option<Vec<u8>> = tx
        .prepare_cached("SELECT data FROM edge_files WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    let Some(data) = data else { return Ok(()) };
    let mut del_callee =
        tx.prepare_cached("DELETE FROM edge_callees WHERE callee = ?1 AND file = ?2")?;
    let mut del_caller =
        tx.prepare_cached("DELETE FROM edge_callers WHERE caller = ?1 AND file = ?2")?;
    let mut done = std::collections::HashSet::new();
    for e in decode_edges(&data) {
        let ck = callee_key(&e);
        if done.insert((true, ck.clone())) {
            del_callee.execute(params![node_id(&ck), id])?;
        }
        if done.insert((false, e.caller.clone())) {
            del_caller.execute(params![node_id(&e.caller), id])?;
        }
    }
    tx.prepare_cached("DELETE FROM edge_files WHERE id = ?1")?
        .execute([id])?;
    Ok(())
}

/// Applies a run's graph changes inside its transaction.
pub(super) fn apply(tx: &Transaction<'_>, g: &GraphChanges) -> Result<(), StoreError> {
    if g.stale {
        tx.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES('graph', 'off')",
            [],
        )?;
        return Ok(());
    }
    let empty = tx.query_row("SELECT NOT EXISTS(SELECT 1 FROM edge_files)", [], |r| {
        r.get::<_, bool>(0)
    })?;
    for f in &g.edges_removed {
        remove_file(tx, node_id(f))?;
    }
    // Index rows, deduplicated, written in key order (B-tree appends are cheap).
    let mut callees: Vec<(i64, i64)> = Vec::new();
    let mut callers: Vec<(i64, i64)> = Vec::new();
    {
        let mut put = tx.prepare_cached(
            "INSERT INTO edge_files(id, file, hash, n, data) VALUES(?1, ?2, ?3, ?4, ?5)",
        )?;
        for f in &g.edges {
            let id = node_id(&f.file);
            if !empty {
                remove_file(tx, id)?;
            }
            put.execute(params![id, f.file, f.hash, f.count as i64, f.data])?;
            callees.extend(f.callees.iter().map(|&k| (k, id)));
            callers.extend(f.callers.iter().map(|&k| (k, id)));
        }
    }
    for (table, rows) in [
        ("edge_callees", &mut callees),
        ("edge_callers", &mut callers),
    ] {
        rows.sort_unstable();
        rows.dedup();
        let mut ins =
            tx.prepare_cached(&format!("INSERT OR IGNORE INTO {table} VALUES(?1, ?2)"))?;
        for (k, f) in rows.iter() {
            ins.execute(params![k, f])?;
        }
    }
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES('graph', 'on')",
        [],
    )?;
    Ok(())
}
