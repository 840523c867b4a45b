//! The relational half of the embedded index: files, symbols, chunks, skipped files and snapshots
//! in one SQLite file.
//!
//! Files and symbols are versioned by generation (`gen_from`, `gen_to`): a row is alive for the
//! generations `[gen_from, gen_to)`, so any snapshot can be read back and two snapshots diffed
//! without copying unchanged rows. A whole run is applied in one transaction, which is what makes
//! it visible atomically; a killed run rolls back and readers keep the previous snapshot (WAL).

use crate::diff::{FileVersion, SymbolVersion};
use crate::model::{Chunk, FileAnalysis, Language, Provenance, RepoPath, Snapshot, Symbol};
use crate::store::StoreError;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::collections::HashMap;
use std::path::Path;

mod graph;
mod run;
pub use graph::{EdgeFile, GraphChanges};
pub use run::{RunEnd, RunTx};

/// Bump when the schema changes; an index with another version is rebuilt.
/// 2: call graph (facts, edges, edge_files). 4: example provenance. 5: secrets masked in all
/// stored text (an older index may hold them, so it is rebuilt). 6: files' generator shape and
/// reason. 7: Java facts hold assignments; `constant` edges (enum constants set as values).
/// 11: Go and Kotlin files carry facts (imports, calls), so older indexes of them are rebuilt.
/// 12: a Java field's `has_body` says whether it is initialized where declared. 13: Python facts
/// hold call arguments and decorator shapes (older ones decode to no Python edges). 14: Python
/// facts hold framework shapes (URLconf entries, literals, decorator arguments, environment
/// and settings reads). 15: a `package.json` is a TypeScript project file whose facts name the
/// package's aliases. 16: Python assignments say whether they sit in a branch (older facts
/// decode to no Python edges). 17: an annotated Python assignment whose value is no name chain
/// binds its target to the annotation's class; a Python call argument that is a call names it.
/// 18: TypeScript facts hold calls' URL-like arguments, a config request's method parameter and
/// the URLs a module exports (older facts decode to no TypeScript edges). 19: Go symbols hold
/// their string literals, Python f-strings and TypeScript templates theirs with `{}` for each
/// expression (where a pasted failure's message is looked for). 20: Python facts hold attribute
/// reads and assignments and `with` items (older facts decode to no Python edges).
pub const SCHEMA_VERSION: i64 = 20;

/// How much of the catalog file a reader maps: none. Mapped pages are shared page cache, but
/// each reader's mapping counts every page it touched in the process's resident memory, so a
/// bot's four workers and its preload held the catalog up to five times over (255 MB of
/// corpus-1m's 110 MB file); read calls through SQLite's own small page cache cost an answer
/// less than that memory is worth.
const READ_MMAP_BYTES: i64 = 0;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots(
  generation INTEGER PRIMARY KEY, commit_sha TEXT, dirty INTEGER NOT NULL, created_at INTEGER NOT NULL,
  files INTEGER NOT NULL, symbols INTEGER NOT NULL, chunks INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS files(
  path TEXT NOT NULL, gen_from INTEGER NOT NULL, gen_to INTEGER,
  language TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
  lines INTEGER NOT NULL, module TEXT NOT NULL, provenance TEXT NOT NULL, degraded TEXT,
  gen_reason TEXT, shape TEXT);
CREATE INDEX IF NOT EXISTS files_current ON files(path) WHERE gen_to IS NULL;
CREATE INDEX IF NOT EXISTS files_shaped ON files(path) WHERE gen_to IS NULL AND shape IS NOT NULL;
CREATE INDEX IF NOT EXISTS files_gen ON files(gen_from, gen_to);
CREATE TABLE IF NOT EXISTS symbols(
  file TEXT NOT NULL, gen_from INTEGER NOT NULL, gen_to INTEGER,
  sym_id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, qname TEXT NOT NULL,
  signature TEXT NOT NULL, doc TEXT, parent TEXT, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, name_line INTEGER NOT NULL, annotations TEXT NOT NULL,
  visibility TEXT NOT NULL, is_static INTEGER NOT NULL, body_hash TEXT NOT NULL,
  params TEXT NOT NULL, value_type TEXT NOT NULL, has_body INTEGER NOT NULL,
  body_line INTEGER NOT NULL, supertypes TEXT NOT NULL, literals TEXT NOT NULL,
  throws TEXT NOT NULL, thrown TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE) WHERE gen_to IS NULL;
CREATE INDEX IF NOT EXISTS symbols_qname ON symbols(qname) WHERE gen_to IS NULL;
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file, gen_to);
CREATE INDEX IF NOT EXISTS symbols_gen ON symbols(gen_from, gen_to);
CREATE TABLE IF NOT EXISTS chunks(
  id TEXT PRIMARY KEY, file TEXT NOT NULL, ord INTEGER NOT NULL, start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL, symbol TEXT, header TEXT NOT NULL,
  start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file, ord);
CREATE TABLE IF NOT EXISTS contents(file TEXT PRIMARY KEY, zstd BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS skipped(path TEXT PRIMARY KEY, reason TEXT NOT NULL, detail TEXT NOT NULL);
"#;

/// A file as recorded in the current snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRow {
    pub path: RepoPath,
    pub language: Language,
    pub hash: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub lines: u32,
    pub module: String,
    pub provenance: Provenance,
    pub degraded: Option<String>,
    /// Why the file counts as generated when its shape decided it ([`crate::genshape`]).
    pub gen_reason: Option<String>,
    /// The file's generator shape, kept so that every run can settle generated families over
    /// the whole snapshot ([`crate::genshape::family`]).
    pub shape: Option<crate::genshape::Shape>,
}

/// A symbol with the file it is declared in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolRow {
    pub path: RepoPath,
    pub symbol: Symbol,
}

/// A stored chunk with its file and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRow {
    pub id: String,
    pub path: RepoPath,
    pub ord: u32,
    pub chunk: Chunk,
}

/// A file (re)analysed in this run.
pub struct FileUpdate<'a> {
    pub row: &'a FileRow,
    pub analysis: &'a FileAnalysis,
    pub chunk_ids: &'a [String],
    /// The file's bytes, zstd-compressed ([`compress`]): chunk text is read back from them.
    pub content: &'a [u8],
    /// The file's call-graph facts, encoded (`None`: it has none, or the graph is off).
    pub facts: Option<&'a [u8]>,
}

pub struct Catalog {
    conn: Connection,
    /// The last file content decompressed, since chunks are usually read file by file.
    content_cache: std::cell::RefCell<Option<(String, std::sync::Arc<Vec<u8>>)>>,
    /// Decoded edges of use-site files, by file id, with the hash they were decoded at.
    edge_cache: graph::EdgeCache,
}

/// Compresses a file's bytes for the `contents` table (fast level: this runs on every changed file).
/// One compression context per thread: creating one costs about as much as compressing a file.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    thread_local! {
        static CTX: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    CTX.with_borrow_mut(|ctx| {
        if ctx.is_none() {
            *ctx = zstd::bulk::Compressor::new(1).ok();
        }
        match ctx {
            Some(c) => c.compress(bytes).ok(),
            None => zstd::bulk::compress(bytes, 1).ok(),
        }
    })
    .unwrap_or_default()
}

impl Catalog {
    /// Opens (creating if needed) the catalog for writing.
    pub fn open(path: &Path) -> Result<Catalog, StoreError> {
        Catalog::open_with(path, "WAL", "NORMAL")
    }

    /// Creates a catalog for a first build at a side path, with the rollback journal kept in
    /// memory and no syncs: there is no earlier snapshot to protect, so pages are written once
    /// instead of twice (WAL, then checkpoint). [`Catalog::publish`] makes it durable and puts
    /// it in place; a killed build leaves only the side file, which is never read.
    pub fn create_unpublished(path: &Path) -> Result<Catalog, StoreError> {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            match std::fs::remove_file(&p) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            }
        }
        Catalog::open_with(path, "MEMORY", "OFF")
    }

    /// Makes a catalog from [`Catalog::create_unpublished`] durable, switches it to WAL (as
    /// [`Catalog::open`] expects) and renames it to `dest` (atomic: readers see no catalog,
    /// then the whole one).
    pub fn publish(self, dest: &Path) -> Result<(), StoreError> {
        let Some(src) = self.conn.path().map(std::path::PathBuf::from) else {
            return Err(StoreError::Backend("catalog has no file to publish".into()));
        };
        let conn = self.conn;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.close().map_err(|(_, e)| e)?;
        std::fs::File::open(&src)?.sync_all()?;
        std::fs::rename(&src, dest)?;
        if let Some(parent) = dest.parent() {
            // The rename itself is durable once the folder is synced (not possible on Windows).
            if let Ok(dir) = std::fs::File::open(parent) {
                let _ = dir.sync_all();
            }
        }
        Ok(())
    }

    fn open_with(path: &Path, journal: &str, synchronous: &str) -> Result<Catalog, StoreError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", journal)?;
        conn.pragma_update(None, "synchronous", synchronous)?;
        // A full run writes tens of MB in one transaction; a bigger page cache keeps B-tree pages
        // from being spilled to the WAL mid-transaction.
        conn.pragma_update(None, "cache_size", -131_072)?;
        conn.set_prepared_statement_cache_capacity(64);
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch(graph::SCHEMA)?;
        let version: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key='schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()?;
        match version {
            None => {
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES('schema_version', ?1)",
                    [SCHEMA_VERSION.to_string()],
                )?;
            }
            Some(v) if v == SCHEMA_VERSION.to_string() => {}
            Some(v) => {
                return Err(StoreError::SchemaMismatch {
                    found: v,
                    expected: SCHEMA_VERSION,
                });
            }
        }
        // Kept for the catalog's life: a new folder or a rebuild gets a new one.
        conn.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES('lineage', ?1)",
            [super::unique_token()],
        )?;
        Ok(Catalog {
            conn,
            content_cache: Default::default(),
            edge_cache: Default::default(),
        })
    }

    /// Opens an existing catalog read-only (readers never block the writer).
    pub fn open_read(path: &Path) -> Result<Catalog, StoreError> {
        if !path.exists() {
            return Err(StoreError::NoIndex(
                path.parent().unwrap_or(path).to_path_buf(),
            ));
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // Readers answer many small lookups: one plan per statement, kept across bindings,
        // instead of a re-prepare whenever a bound value could change the plan.
        conn.pragma_update(None, "mmap_size", READ_MMAP_BYTES)?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        // An index another version of codemap wrote: say that it needs a rebuild, rather than
        // fail later on a column it lacks. (A file without the table fails on its first read.)
        let version: Option<String> = conn
            .query_row(
                "SELECT value FROM meta WHERE key='schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .unwrap_or(None);
        if let Some(v) = version.filter(|v| *v != SCHEMA_VERSION.to_string()) {
            return Err(StoreError::SchemaMismatch {
                found: v,
                expected: SCHEMA_VERSION,
            });
        }
        Ok(Catalog {
            conn,
            content_cache: Default::default(),
            edge_cache: Default::default(),
        })
    }

    /// Runs `f` inside one read transaction, so every statement in it sees the same published
    /// snapshot even while an index run commits.
    pub fn in_read_txn<T>(
        &self,
        f: impl FnOnce(&Catalog) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.conn.execute_batch("BEGIN")?;
        let out = f(self);
        let end = self
            .conn
            .execute_batch(if out.is_ok() { "COMMIT" } else { "ROLLBACK" });
        let out = out?;
        end?;
        Ok(out)
    }

    /// Which catalog this is: set when the file is created, never changed after, so two
    /// catalogs' snapshots of one generation are told apart (a fresh index folder, or a rebuild,
    /// starts generations over). `None` only on a catalog never opened for writing since
    /// lineages exist.
    pub fn lineage(&self) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key='lineage'", [], |r| {
                r.get(0)
            })
            .optional()?)
    }

    pub fn last_snapshot(&self) -> Result<Option<Snapshot>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT generation, commit_sha, dirty, created_at, files, symbols, chunks
                 FROM snapshots ORDER BY generation DESC LIMIT 1",
                [],
                snapshot_from_row,
            )
            .optional()?)
    }

    pub fn snapshots(&self) -> Result<Vec<Snapshot>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT generation, commit_sha, dirty, created_at, files, symbols, chunks
             FROM snapshots ORDER BY generation",
        )?;
        let rows = st.query_map([], snapshot_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The generation whose chunk set the full-text index must hold (0 before any run).
    pub fn text_generation(&self) -> Result<u64, StoreError> {
        let v: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key='text_gen'", [], |r| {
                r.get(0)
            })
            .optional()?;
        Ok(v.and_then(|v| v.parse().ok()).unwrap_or(0))
    }

    /// Current files keyed by path.
    pub fn current_files(&self) -> Result<HashMap<RepoPath, FileRow>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT path, language, hash, size, mtime_ns, lines, module, provenance, degraded,
                    gen_reason, shape
             FROM files WHERE gen_to IS NULL",
        )?;
        let rows = st.query_map([], file_from_row)?;
        let mut out = HashMap::new();
        for r in rows {
            let r = r?;
            out.insert(r.path.clone(), r);
        }
        Ok(out)
    }

    pub fn file(&self, path: &str) -> Result<Option<FileRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT path, language, hash, size, mtime_ns, lines, module, provenance, degraded,
                    gen_reason, shape
                 FROM files WHERE gen_to IS NULL AND path = ?1",
                [path],
                file_from_row,
            )
            .optional()?)
    }

    pub fn skipped(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT path, reason, detail FROM skipped ORDER BY path")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Ids of every chunk in the current snapshot.
    pub fn chunk_ids(&self) -> Result<Vec<String>, StoreError> {
        let mut st = self.conn.prepare("SELECT id FROM chunks")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether the current snapshot holds chunk `id` in file `path`: one primary-key lookup.
    pub fn has_chunk(&self, id: &str, path: &str) -> Result<bool, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT 1 FROM chunks WHERE id = ?1 AND file = ?2")?;
        Ok(st.exists([id, path])?)
    }

    /// SQLite's `data_version`: it changes when another connection has committed since this
    /// one last looked (so what a reader remembers of the catalog is still true while it holds).
    pub fn data_version(&self) -> Result<i64, StoreError> {
        let mut st = self.conn.prepare_cached("PRAGMA data_version")?;
        Ok(st.query_row([], |r| r.get(0))?)
    }

    /// Chunk ids of the given files (current snapshot), by file.
    pub fn chunk_ids_by_file(
        &self,
        paths: &[&str],
    ) -> Result<HashMap<String, Vec<String>>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id FROM chunks WHERE file = ?1")?;
        let mut out = HashMap::new();
        for p in paths {
            let ids = st
                .query_map([p], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            if !ids.is_empty() {
                out.insert(p.to_string(), ids);
            }
        }
        Ok(out)
    }

    pub fn chunk(&self, id: &str) -> Result<Option<ChunkRow>, StoreError> {
        let mut st = self
            .conn
            .prepare_cached(&format!("SELECT {CHUNK_COLS} FROM chunks WHERE id = ?1"))?;
        let Some(raw) = st.query_row([id], raw_chunk).optional()? else {
            return Ok(None);
        };
        Ok(Some(self.with_text(raw)?))
    }

    pub fn chunks_of(&self, path: &str) -> Result<Vec<ChunkRow>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {CHUNK_COLS} FROM chunks WHERE file = ?1 ORDER BY ord"
        ))?;
        let raws = st
            .query_map([path], raw_chunk)?
            .collect::<Result<Vec<_>, _>>()?;
        raws.into_iter().map(|r| self.with_text(r)).collect()
    }

    /// Every chunk of the current snapshot, in file order (used to rebuild the full-text index).
    pub fn all_chunks(&self) -> Result<Vec<ChunkRow>, StoreError> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {CHUNK_COLS} FROM chunks ORDER BY file, ord"
        ))?;
        let raws = st
            .query_map([], raw_chunk)?
            .collect::<Result<Vec<_>, _>>()?;
        raws.into_iter().map(|r| self.with_text(r)).collect()
    }

    /// The bytes of a file as indexed (not as on disk now), if the snapshot holds it.
    pub fn content(&self, path: &str) -> Result<Option<std::sync::Arc<Vec<u8>>>, StoreError> {
        if let Some((p, bytes)) = self.content_cache.borrow().as_ref()
            && p == path
        {
            return Ok(Some(bytes.clone()));
        }
        let blob: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT zstd FROM contents WHERE file = ?1")?
            .query_row([path], |r| r.get(0))
            .optional()?;
        let Some(blob) = blob else { return Ok(None) };
        let bytes = std::sync::Arc::new(zstd::stream::decode_all(blob.as_slice())?);
        *self.content_cache.borrow_mut() = Some((path.to_string(), bytes.clone()));
        Ok(Some(bytes))
    }

    /// Fills a chunk's text from its file's stored content.
    fn with_text(
        &self,
        (mut row, start, end): (ChunkRow, usize, usize),
    ) -> Result<ChunkRow, StoreError> {
        if let Some(bytes) = self.content(row.path.as_str())? {
            let end = end.min(bytes.len());
            let start = start.min(end);
            row.chunk.text = String::from_utf8_lossy(&bytes[start..end]).into_owned();
            row.chunk.start_byte = start;
            row.chunk.end_byte = end;
        }
        Ok(row)
    }

    /// Symbols whose simple name equals `name` (case-insensitive) or whose qualified name equals
    /// or ends with `.name`.
    pub fn symbols_named(&self, name: &str) -> Result<Vec<SymbolRow>, StoreError> {
        let mut out = Vec::new();
        if name.contains('.') || name.contains('#') {
            let q = name.replace('#', ".");
            let simple = q.rsplit('.').next().unwrap_or(&q).to_string();
            let suffix = format!(".{q}");
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT {SYMBOL_COLS} FROM symbols WHERE gen_to IS NULL AND name = ?1 COLLATE NOCASE"
            ))?;
            for r in st.query_map([&simple], symbol_from_row)? {
                let r = r?;
                let qn = &r.symbol.qualified_name;
                if qn == &q || qn.ends_with(&suffix) {
                    out.push(r);
                }
            }
        } else {
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT {SYMBOL_COLS} FROM symbols WHERE gen_to IS NULL AND name = ?1 COLLATE NOCASE"
            ))?;
            for r in st.query_map([name], symbol_from_row)? {
                out.push(r?);
            }
        }
        out.sort_by(|a, b| {
            (a.path.as_str(), a.symbol.start_line).cmp(&(b.path.as_str(), b.symbol.start_line))
        });
        Ok(out)
    }

    /// Symbols whose simple name starts with `prefix` (case-insensitive), at most `limit`.
    pub fn symbols_with_prefix(
        &self,
        prefix: &str,
        limit: usize,
    ) -> Result<Vec<SymbolRow>, StoreError> {
        let escaped = prefix
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {SYMBOL_COLS} FROM symbols WHERE gen_to IS NULL AND name LIKE ?1 ESCAPE '\\' LIMIT ?2"
        ))?;
        let rows = st.query_map(
            params![format!("{escaped}%"), limit as i64],
            symbol_from_row,
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Symbols of one file in the current snapshot, in source order.
    pub fn symbols_of(&self, path: &str) -> Result<Vec<SymbolRow>, StoreError> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {SYMBOL_COLS} FROM symbols WHERE gen_to IS NULL AND file = ?1 ORDER BY start_line, rowid"
        ))?;
        let rows = st.query_map([path], symbol_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every symbol of the current snapshot, ordered by file and line.
    pub fn all_symbols(&self) -> Result<Vec<SymbolRow>, StoreError> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {SYMBOL_COLS} FROM symbols WHERE gen_to IS NULL ORDER BY file, start_line, rowid"
        ))?;
        let rows = st.query_map([], symbol_from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Files alive at generation `generation`.
    pub fn files_at(&self, generation: u64) -> Result<Vec<FileVersion>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT path, hash FROM files
             WHERE gen_from <= ?1 AND (gen_to IS NULL OR gen_to > ?1) ORDER BY path",
        )?;
        let rows = st.query_map([generation as i64], |r| {
            Ok(FileVersion {
                path: r.get(0)?,
                hash: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Symbols alive at generation `generation`.
    pub fn symbols_at(&self, generation: u64) -> Result<Vec<SymbolVersion>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT file, sym_id, kind, qname, start_line, end_line, body_hash FROM symbols
             WHERE gen_from <= ?1 AND (gen_to IS NULL OR gen_to > ?1)
             ORDER BY file, start_line, rowid",
        )?;
        let rows = st.query_map([generation as i64], |r| {
            Ok(SymbolVersion {
                path: r.get(0)?,
                id: r.get(1)?,
                kind: r.get(2)?,
                qualified_name: r.get(3)?,
                start_line: r.get(4)?,
                end_line: r.get(5)?,
                body_hash: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Paths whose file rows began or ended after generation `old` and up to `new`: the files
    /// a diff between the two can see change (a file's symbols are versioned with it).
    pub fn paths_changed_between(&self, old: u64, new: u64) -> Result<Vec<String>, StoreError> {
        let mut st = self.conn.prepare(
            "SELECT path FROM files WHERE gen_from > ?1 AND gen_from <= ?2
             UNION SELECT path FROM files WHERE gen_to > ?1 AND gen_to <= ?2
             ORDER BY 1",
        )?;
        let rows = st.query_map([old as i64, new as i64], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// [`Catalog::files_at`] and [`Catalog::symbols_at`] for the files `paths` only.
    pub fn versions_of_paths(
        &self,
        generation: u64,
        paths: &[String],
    ) -> Result<(Vec<FileVersion>, Vec<SymbolVersion>), StoreError> {
        let mut files = Vec::new();
        let mut symbols = Vec::new();
        let mut fst = self.conn.prepare_cached(
            "SELECT path, hash FROM files
             WHERE path = ?1 AND gen_from <= ?2 AND (gen_to IS NULL OR gen_to > ?2)",
        )?;
        let mut sst = self.conn.prepare_cached(
            "SELECT file, sym_id, kind, qname, start_line, end_line, body_hash FROM symbols
             WHERE file = ?1 AND gen_from <= ?2 AND (gen_to IS NULL OR gen_to > ?2)
             ORDER BY start_line, rowid",
        )?;
        for p in paths {
            let g = generation as i64;
            for f in fst.query_map(params![p, g], |r| {
                Ok(FileVersion {
                    path: r.get(0)?,
                    hash: r.get(1)?,
                })
            })? {
                files.push(f?);
            }
            for s in sst.query_map(params![p, g], |r| {
                Ok(SymbolVersion {
                    path: r.get(0)?,
                    id: r.get(1)?,
                    kind: r.get(2)?,
                    qualified_name: r.get(3)?,
                    start_line: r.get(4)?,
                    end_line: r.get(5)?,
                    body_hash: r.get(6)?,
                })
            })? {
                symbols.push(s?);
            }
        }
        Ok((files, symbols))
    }

    /// Counts for `status`: files, symbols, chunks in the current snapshot.
    pub fn counts(&self) -> Result<(u64, u64, u64), StoreError> {
        let f: i64 =
            self.conn
                .query_row("SELECT count(*) FROM files WHERE gen_to IS NULL", [], |r| {
                    r.get(0)
                })?;
        let s: i64 = self.conn.query_row(
            "SELECT count(*) FROM symbols WHERE gen_to IS NULL",
            [],
            |r| r.get(0),
        )?;
        let c: i64 = self
            .conn
            .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))?;
        Ok((f as u64, s as u64, c as u64))
    }
}

const SYMBOL_COLS: &str =
    "file, sym_id, kind, name, qname, signature, doc, parent, start_line, end_line,
    name_line, annotations, visibility, is_static, body_hash, params, value_type, has_body,
    body_line, supertypes, literals, throws, thrown";

fn symbol_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SymbolRow> {
    let path: String = r.get(0)?;
    let kind: String = r.get(2)?;
    let annotations: String = r.get(11)?;
    let params: String = r.get(15)?;
    let supertypes: String = r.get(19)?;
    let literals: String = r.get(20)?;
    let throws: String = r.get(21)?;
    let thrown: String = r.get(22)?;
    Ok(SymbolRow {
        path: repo_path(path),
        symbol: Symbol {
            id: crate::model::SymbolId(r.get(1)?),
            kind: crate::model::SymbolKind::parse(&kind).unwrap_or(crate::model::SymbolKind::Class),
            name: r.get(3)?,
            qualified_name: r.get(4)?,
            signature: r.get(5)?,
            doc: r.get(6)?,
            parent: r.get::<_, Option<String>>(7)?.map(crate::model::SymbolId),
            start_line: r.get(8)?,
            end_line: r.get(9)?,
            name_line: r.get(10)?,
            annotations: serde_json::from_str(&annotations).unwrap_or_default(),
            visibility: r.get(12)?,
            is_static: r.get(13)?,
            body_hash: r.get(14)?,
            params: serde_json::from_str(&params).unwrap_or_default(),
            value_type: r.get(16)?,
            has_body: r.get(17)?,
            body_line: r.get(18)?,
            supertypes: serde_json::from_str(&supertypes).unwrap_or_default(),
            literals: serde_json::from_str(&literals).unwrap_or_default(),
            throws: serde_json::from_str(&throws).unwrap_or_default(),
            thrown: serde_json::from_str(&thrown).unwrap_or_default(),
        },
    })
}

const CHUNK_COLS: &str =
    "id, file, ord, start_line, end_line, symbol, header, start_byte, end_byte";

/// A chunk row without its text yet, plus the byte range the text comes from.
fn raw_chunk(r: &rusqlite::Row<'_>) -> rusqlite::Result<(ChunkRow, usize, usize)> {
    let path: String = r.get(1)?;
    let (start, end): (i64, i64) = (r.get(7)?, r.get(8)?);
    Ok((
        ChunkRow {
            id: r.get(0)?,
            path: repo_path(path),
            ord: r.get(2)?,
            chunk: Chunk {
                start_line: r.get(3)?,
                end_line: r.get(4)?,
                start_byte: 0,
                end_byte: 0,
                symbol: r.get::<_, Option<String>>(5)?.map(crate::model::SymbolId),
                header: r.get(6)?,
                text: String::new(),
            },
        },
        start as usize,
        end as usize,
    ))
}

fn file_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<FileRow> {
    let path: String = r.get(0)?;
    let lang: String = r.get(1)?;
    let prov: String = r.get(7)?;
    Ok(FileRow {
        path: repo_path(path),
        language: Language::parse(&lang),
        hash: r.get(2)?,
        size: r.get::<_, i64>(3)? as u64,
        mtime_ns: r.get(4)?,
        lines: r.get(5)?,
        module: r.get(6)?,
        provenance: Provenance::parse(&prov),
        degraded: r.get(8)?,
        gen_reason: r.get(9)?,
        shape: r
            .get::<_, Option<String>>(10)?
            .and_then(|s| crate::genshape::Shape::decode(&s)),
    })
}

fn snapshot_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Snapshot> {
    Ok(Snapshot {
        generation: r.get::<_, i64>(0)? as u64,
        commit: r.get(1)?,
        dirty: r.get(2)?,
        created_at: r.get(3)?,
        files: r.get::<_, i64>(4)? as u64,
        symbols: r.get::<_, i64>(5)? as u64,
        chunks: r.get::<_, i64>(6)? as u64,
        publish_id: None,
    })
}

/// Paths in the catalog were validated on the way in; a row that fails now is kept verbatim.
fn repo_path(s: String) -> RepoPath {
    RepoPath::new(&s).unwrap_or_else(|| RepoPath::new("invalid-path").expect("literal is valid"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_of_an_index_from_another_version_is_told_to_rebuild_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        Catalog::open(&path).unwrap();
        assert!(Catalog::open_read(&path).is_ok());
        let conn = Connection::open(&path).unwrap();
        conn.execute("UPDATE meta SET value='8' WHERE key='schema_version'", [])
            .unwrap();
        drop(conn);
        let err = Catalog::open_read(&path)
            .err()
            .expect("an old index is refused");
        assert!(
            matches!(&err, StoreError::SchemaMismatch { found, expected } if found == "8" && *expected == SCHEMA_VERSION),
            "{err}"
        );
        assert!(err.to_string().contains("codemap index"), "{err}");
    }

    #[test]
    fn a_catalog_keeps_its_lineage_and_a_new_one_gets_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let first = Catalog::open(&path).unwrap().lineage().unwrap();
        assert!(first.is_some());
        assert_eq!(Catalog::open(&path).unwrap().lineage().unwrap(), first);
        assert_eq!(Catalog::open_read(&path).unwrap().lineage().unwrap(), first);

        // A fresh folder at the same path (a CI runner that keeps nothing), and a first build
        // made at a side path and put in place: each a lineage of its own.
        for f in ["index.db", "index.db-wal", "index.db-shm"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
        let again = Catalog::open(&path).unwrap().lineage().unwrap();
        assert!(again.is_some() && again != first);
        let side = dir.path().join("side.db");
        let built = Catalog::create_unpublished(&side).unwrap();
        let staged = built.lineage().unwrap();
        built.publish(&path).unwrap();
        assert!(staged.is_some() && staged != again);
        assert_eq!(Catalog::open(&path).unwrap().lineage().unwrap(), staged);
    }
}
