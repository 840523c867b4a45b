//! Applying one run to the catalog. The run's one transaction is opened before the first analysed
//! file arrives, so rows are written while other files are still being parsed, and is committed
//! only after the full-text index holds the new chunks (`pending` commit): the commit protocol
//! of the pipeline is unchanged, only the writing before the commit is spread over the run.

use super::{Catalog, FileUpdate, GraphChanges, graph};
use crate::model::{RepoPath, Snapshot};
use crate::store::StoreError;
use rusqlite::{Transaction, params};

/// Secondary indexes dropped while a fresh catalog is filled and built again at the end: one
/// sort per index costs less than keeping each B-tree up to date row by row. Inside the
/// transaction, so a killed run leaves the schema as it was.
const SECONDARY_INDEXES: &[&str] = &[
    "files_current",
    "files_gen",
    "symbols_name",
    "symbols_qname",
    "symbols_file",
    "symbols_gen",
    "chunks_file",
];

/// The rest of a run, written after its files: removals, mtimes, the skipped list, the snapshot.
pub struct RunEnd {
    pub commit: Option<String>,
    pub dirty: bool,
    pub created_at: i64,
    pub removed: Vec<RepoPath>,
    /// Unchanged content whose mtime moved (kept in place, not versioned).
    pub touched: Vec<(RepoPath, i64)>,
    /// The complete list of skipped files for this run.
    pub skipped: Vec<(RepoPath, String, String)>,
    /// Whether the chunk set changes (the full-text index must then follow this generation).
    pub text_changed: bool,
}

/// One run's open transaction. Dropping it without [`RunTx::commit`] rolls the run back.
pub struct RunTx<'c> {
    tx: Transaction<'c>,
    generation: i64,
    /// The catalog held no file: nothing to retire, indexes built at the end.
    fresh: bool,
    /// Files, symbols and chunks written by this run (the snapshot's counts when `fresh`,
    /// which spares three table scans at the end).
    written: [i64; 3],
    snapshot: Option<Snapshot>,
}

impl Catalog {
    /// Opens the transaction of a new run (generation = last + 1).
    pub fn begin_run(&mut self) -> Result<RunTx<'_>, StoreError> {
        self.content_cache.borrow_mut().take();
        // The checkpoint after the commit is left to [`Catalog::checkpoint`], which the pipeline
        // runs while the full-text index takes its last commit.
        self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        let tx = self.conn.transaction()?;
        let last: i64 = tx.query_row(
            "SELECT COALESCE(MAX(generation), 0) FROM snapshots",
            [],
            |r| r.get(0),
        )?;
        let fresh: bool =
            tx.query_row("SELECT NOT EXISTS(SELECT 1 FROM files)", [], |r| r.get(0))?;
        if fresh {
            // A small cache while rows stream in: full pages go to the WAL as they fill (on
            // this thread, during parsing) instead of all at once in the commit.
            // The index builds at the end sort in memory, not in temporary files.
            tx.pragma_update(None, "cache_size", -16_384)?;
            tx.pragma_update(None, "temp_store", "MEMORY")?;
            for name in SECONDARY_INDEXES {
                tx.execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
            }
        }
        Ok(RunTx {
            tx,
            generation: last + 1,
            fresh,
            written: [0; 3],
            snapshot: None,
        })
    }

    /// Applies a whole run in one transaction (files given up front) and records its snapshot.
    pub fn apply(
        &mut self,
        updated: &[FileUpdate<'_>],
        end: &RunEnd,
        graph: Option<&GraphChanges>,
    ) -> Result<Snapshot, StoreError> {
        let mut run = self.begin_run()?;
        for u in updated {
            run.put_file(u)?;
        }
        run.close(end)?;
        let snapshot = run.commit(graph)?;
        self.checkpoint()?;
        Ok(snapshot)
    }

    /// Copies the committed run from the WAL into the database file and turns automatic
    /// checkpoints back on (off during a run, so the commit itself does not wait for the copy).
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
        self.conn.pragma_update(None, "wal_autocheckpoint", 1000)?;
        Ok(())
    }
}

impl RunTx<'_> {
    pub fn generation(&self) -> u64 {
        self.generation as u64
    }

    /// Writes one analysed file as the new current version of its path.
    pub fn put_file(&mut self, u: &FileUpdate<'_>) -> Result<(), StoreError> {
        let tx = &self.tx;
        let generation = self.generation;
        let p = u.row.path.as_str();
        if !self.fresh {
            retire_file(tx, p, generation)?;
        }
        tx.prepare_cached(
            "INSERT INTO files(path, gen_from, language, hash, size, mtime_ns, lines, module, provenance,
               degraded, gen_reason, shape)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?
        .execute(params![
            p,
            generation,
            u.row.language.as_str(),
            u.row.hash,
            u.row.size as i64,
            u.row.mtime_ns,
            u.row.lines,
            u.row.module,
            u.row.provenance.as_str(),
            u.row.degraded,
            u.row.gen_reason,
            u.row.shape.as_ref().map(|s| s.encode()),
        ])?;
        self.written[0] += 1;
        self.written[1] += u.analysis.symbols.len() as i64;
        self.written[2] += u.chunk_ids.len() as i64;
        let mut ins_sym = tx.prepare_cached(
            "INSERT INTO symbols(file, gen_from, sym_id, kind, name, qname, signature, doc, parent,
               start_line, end_line, name_line, annotations, visibility, is_static, body_hash,
               params, value_type, has_body, body_line, supertypes, literals, throws, thrown)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
               ?18, ?19, ?20, ?21, ?22, ?23, ?24)",
        )?;
        for s in &u.analysis.symbols {
            ins_sym.execute(params![
                p,
                generation,
                s.id.0,
                s.kind.as_str(),
                s.name,
                s.qualified_name,
                s.signature,
                s.doc,
                s.parent.as_ref().map(|x| x.0.as_str()),
                s.start_line,
                s.end_line,
                s.name_line,
                serde_json::to_string(&s.annotations).unwrap_or_else(|_| "[]".into()),
                s.visibility,
                s.is_static,
                s.body_hash,
                serde_json::to_string(&s.params).unwrap_or_else(|_| "[]".into()),
                s.value_type,
                s.has_body,
                s.body_line,
                serde_json::to_string(&s.supertypes).unwrap_or_else(|_| "[]".into()),
                serde_json::to_string(&s.literals).unwrap_or_else(|_| "[]".into()),
                serde_json::to_string(&s.throws).unwrap_or_else(|_| "[]".into()),
                serde_json::to_string(&s.thrown).unwrap_or_else(|_| "[]".into()),
            ])?;
        }
        let mut ins_chunk = tx.prepare_cached(
            "INSERT OR REPLACE INTO chunks(id, file, ord, start_line, end_line, symbol, header, start_byte, end_byte)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for (ord, (c, id)) in u.analysis.chunks.iter().zip(u.chunk_ids).enumerate() {
            ins_chunk.execute(params![
                id,
                p,
                ord as i64,
                c.start_line,
                c.end_line,
                c.symbol.as_ref().map(|x| x.0.as_str()),
                c.header,
                c.start_byte as i64,
                c.end_byte as i64,
            ])?;
        }
        tx.prepare_cached("INSERT OR REPLACE INTO contents(file, zstd) VALUES(?1, ?2)")?
            .execute(params![p, u.content])?;
        if let Some(data) = u.facts {
            tx.prepare_cached("INSERT OR REPLACE INTO facts(file, data) VALUES(?1, ?2)")?
                .execute(params![p, data])?;
        }
        Ok(())
    }

    /// Writes the rest of the run (after its last file) and its snapshot row (which `commit`
    /// returns).
    pub fn close(&mut self, end: &RunEnd) -> Result<(), StoreError> {
        let tx = &self.tx;
        let generation = self.generation;
        for path in &end.removed {
            retire_file(tx, path.as_str(), generation)?;
        }
        for (path, mtime) in &end.touched {
            tx.execute(
                "UPDATE files SET mtime_ns = ?2 WHERE path = ?1 AND gen_to IS NULL",
                params![path.as_str(), mtime],
            )?;
        }
        if self.fresh {
            tx.execute_batch(super::SCHEMA)?;
        }
        settle_families(tx)?;
        if end.text_changed {
            tx.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES('text_gen', ?1)",
                [generation.to_string()],
            )?;
        }
        tx.execute("DELETE FROM skipped", [])?;
        {
            let mut ins = tx.prepare_cached(
                "INSERT OR REPLACE INTO skipped(path, reason, detail) VALUES(?1, ?2, ?3)",
            )?;
            for (p, reason, detail) in &end.skipped {
                ins.execute(params![p.as_str(), reason, detail])?;
            }
        }
        let count = |q: &str| tx.query_row(q, [], |r| r.get::<_, i64>(0));
        let [files, symbols, chunks] = if self.fresh {
            self.written
        } else {
            [
                count("SELECT count(*) FROM files WHERE gen_to IS NULL")?,
                count("SELECT count(*) FROM symbols WHERE gen_to IS NULL")?,
                count("SELECT count(*) FROM chunks")?,
            ]
        };
        tx.execute(
            "INSERT INTO snapshots(generation, commit_sha, dirty, created_at, files, symbols, chunks)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![generation, end.commit, end.dirty, end.created_at, files, symbols, chunks],
        )?;
        let snapshot = Snapshot {
            generation: generation as u64,
            commit: end.commit.clone(),
            dirty: end.dirty,
            created_at: end.created_at,
            files: files as u64,
            symbols: symbols as u64,
            chunks: chunks as u64,
            publish_id: None,
        };
        self.snapshot = Some(snapshot);
        Ok(())
    }

    /// Writes the graph changes and commits: the moment the new snapshot becomes visible.
    pub fn commit(self, graph_changes: Option<&GraphChanges>) -> Result<Snapshot, StoreError> {
        let Some(snapshot) = self.snapshot else {
            return Err(StoreError::Sqlite(rusqlite::Error::InvalidQuery));
        };
        let started = std::time::Instant::now();
        if let Some(g) = graph_changes {
            graph::apply(&self.tx, g)?;
        }
        let graph_ms = started.elapsed().as_millis() as u64;
        crate::pipeline::crash_point("inside-catalog-transaction");
        self.tx.commit()?;
        tracing::debug!(
            graph_ms,
            commit_ms = started.elapsed().as_millis() as u64 - graph_ms,
            "catalog transaction committed"
        );
        Ok(snapshot)
    }
}

/// Ends the current version of a file: its rows stop being alive at `generation`; its chunks,
/// content and call-graph facts go.
/// Decides, over every current file with a shape, which data classes a generated family names
/// ([`crate::genshape::family`]), and writes the ones whose answer changed. Unchanged files are
/// updated in place, as their mtimes are: the content of the row's version did not change, only
/// what other files say about it — and since this looks at the whole snapshot each run, an
/// incremental run ends where a full one would. The catalog row is what ranking reads; the
/// full-text documents' `provenance` field of such a file keeps what its own analysis said, and
/// the Meilisearch mirror, which syncs files whose hash changed, picks the change up at its next
/// full sync.
fn settle_families(tx: &Transaction<'_>) -> Result<(), StoreError> {
    use crate::genshape::Shape;
    let rows: Vec<(String, String, Option<String>, Shape)> = {
        let mut st = tx.prepare_cached(
            "SELECT path, provenance, gen_reason, shape FROM files
             WHERE gen_to IS NULL AND shape IS NOT NULL",
        )?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (path, prov, reason, shape) = row?;
            if let Some(shape) = Shape::decode(&shape) {
                out.push((path, prov, reason, shape));
            }
        }
        out
    };
    let current: std::collections::HashMap<&str, (&str, Option<&str>)> = rows
        .iter()
        .map(|(p, prov, reason, _)| (p.as_str(), (prov.as_str(), reason.as_deref())))
        .collect();
    let decided = crate::genshape::family(rows.iter().map(|(p, _, _, s)| (p.as_str(), s)));
    let mut update = tx.prepare_cached(
        "UPDATE files SET provenance = ?2, gen_reason = ?3 WHERE path = ?1 AND gen_to IS NULL",
    )?;
    for (path, reason) in decided {
        // A data class's shape is only kept when its own provenance is source (the pipeline).
        let prov = if reason.is_some() {
            crate::model::Provenance::Generated
        } else {
            crate::model::Provenance::Source
        };
        if current.get(path.as_str()) != Some(&(prov.as_str(), reason.as_deref())) {
            update.execute(params![path, prov.as_str(), reason])?;
        }
    }
    Ok(())
}

fn retire_file(tx: &Transaction<'_>, path: &str, generation: i64) -> Result<(), StoreError> {
    tx.prepare_cached("DELETE FROM contents WHERE file = ?1")?
        .execute([path])?;
    tx.prepare_cached("UPDATE files SET gen_to = ?2 WHERE path = ?1 AND gen_to IS NULL")?
        .execute(params![path, generation])?;
    tx.prepare_cached("UPDATE symbols SET gen_to = ?2 WHERE file = ?1 AND gen_to IS NULL")?
        .execute(params![path, generation])?;
    tx.prepare_cached("DELETE FROM chunks WHERE file = ?1")?
        .execute([path])?;
    tx.prepare_cached("DELETE FROM facts WHERE file = ?1")?
        .execute([path])?;
    Ok(())
}
