//! `<index>/vectors.sqlite`: vectors beside the index, in their own database so embedding never
//! holds the index writer's lock and the catalog's schema stays the indexer's.
//!
//! - `vectors(text_hash, model) → dim, vec` — little-endian f32, unit length;
//! - `chunks(chunk_id, model) → text_hash` — which vector a chunk of the index uses.
//!
//! Every batch is one transaction (WAL): a killed `codemap embed` loses at most the batch it was
//! computing, and readers never see half a batch.

use crate::Error;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// File name under the index folder.
pub const FILE: &str = "vectors.sqlite";
/// Bump when the tables change; an older file is then emptied and refilled by `codemap embed`.
const FORMAT: i64 = 1;

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors(
  text_hash TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL,
  PRIMARY KEY(text_hash, model)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunks(
  chunk_id TEXT NOT NULL, model TEXT NOT NULL, text_hash TEXT NOT NULL,
  PRIMARY KEY(chunk_id, model)) WITHOUT ROWID;
"#;

pub struct VectorStore {
    conn: Connection,
    path: PathBuf,
}

/// A new vector and the chunks that use it.
pub struct NewVector<'a> {
    pub text_hash: &'a str,
    pub vec: &'a [f32],
    pub chunk_ids: &'a [String],
}

impl VectorStore {
    fn err(&self, source: rusqlite::Error) -> Error {
        Error::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Opens (creating) the store in the index folder `dir`, for writing.
    pub fn open(dir: &Path) -> Result<VectorStore, Error> {
        let path = dir.join(FILE);
        let sq = |source| Error::Sqlite {
            path: path.clone(),
            source,
        };
        let conn = Connection::open(&path).map_err(sq)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(sq)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sq)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sq)?;
        conn.execute_batch(SCHEMA).map_err(sq)?;
        let found: Option<i64> = conn
            .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .map_err(sq)?
            .and_then(|v| v.parse().ok());
        if found != Some(FORMAT) {
            conn.execute_batch(&format!(
                "BEGIN; DELETE FROM vectors; DELETE FROM chunks;
                 INSERT OR REPLACE INTO meta(key, value) VALUES ('format', '{FORMAT}'); COMMIT;"
            ))
            .map_err(sq)?;
        }
        Ok(VectorStore { conn, path })
    }

    /// Opens the store in `dir` for reading; `None` when there is none (nothing embedded yet) or
    /// it is of another format.
    pub fn open_read(dir: &Path) -> Result<Option<VectorStore>, Error> {
        let path = dir.join(FILE);
        if !path.exists() {
            return Ok(None);
        }
        let sq = |source| Error::Sqlite {
            path: path.clone(),
            source,
        };
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sq)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(sq)?;
        let format: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(sq)?;
        if format.and_then(|f| f.parse::<i64>().ok()) != Some(FORMAT) {
            return Ok(None);
        }
        Ok(Some(VectorStore { conn, path }))
    }

    /// Chunk ids that have a vector of `model`.
    pub fn chunks_with_vectors(&self, model: &str) -> Result<HashSet<String>, Error> {
        let mut st = self
            .conn
            .prepare("SELECT chunk_id FROM chunks WHERE model = ?1")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([model], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Text hashes that have a vector of `model`.
    pub fn hashes(&self, model: &str) -> Result<HashSet<String>, Error> {
        let mut st = self
            .conn
            .prepare("SELECT text_hash FROM vectors WHERE model = ?1")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([model], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Models with vectors, and how many chunks use each.
    pub fn models(&self) -> Result<Vec<(String, u64)>, Error> {
        let mut st = self
            .conn
            .prepare("SELECT model, COUNT(*) FROM chunks GROUP BY model ORDER BY model")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Writes vectors of `model` and the chunks using them, plus chunks mapped to vectors already
    /// stored, in one transaction.
    pub fn write_batch(
        &mut self,
        model: &str,
        new: &[NewVector<'_>],
        reused: &[(String, String)],
    ) -> Result<(), Error> {
        let path = self.path.clone();
        let sq = |source| Error::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sq)?;
        {
            let mut put_vec = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO vectors(text_hash, model, dim, vec) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sq)?;
            let mut put_chunk = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO chunks(chunk_id, model, text_hash) VALUES (?1, ?2, ?3)",
                )
                .map_err(sq)?;
            for n in new {
                put_vec
                    .execute(params![
                        n.text_hash,
                        model,
                        n.vec.len() as i64,
                        to_blob(n.vec)
                    ])
                    .map_err(sq)?;
                for id in n.chunk_ids {
                    put_chunk
                        .execute(params![id, model, n.text_hash])
                        .map_err(sq)?;
                }
            }
            for (id, hash) in reused {
                put_chunk.execute(params![id, model, hash]).map_err(sq)?;
            }
        }
        tx.commit().map_err(sq)
    }

    /// Calls `f(chunk_id, vector)` for every chunk of `model` that `keep` accepts.
    pub fn for_each(
        &self,
        model: &str,
        keep: impl Fn(&str) -> bool,
        mut f: impl FnMut(String, &[f32]),
    ) -> Result<(), Error> {
        let mut st = self
            .conn
            .prepare(
                "SELECT c.chunk_id, v.vec FROM chunks c JOIN vectors v
                 ON v.text_hash = c.text_hash AND v.model = c.model WHERE c.model = ?1",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = st.query([model]).map_err(|e| self.err(e))?;
        let mut buf = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let id: String = r.get(0).map_err(|e| self.err(e))?;
            if !keep(&id) {
                continue;
            }
            let blob = r.get_ref(1).map_err(|e| self.err(e))?;
            let bytes = blob.as_blob().map_err(|e| {
                self.err(rusqlite::Error::FromSqlConversionFailure(
                    1,
                    rusqlite::types::Type::Blob,
                    Box::new(e),
                ))
            })?;
            from_blob(bytes, &mut buf);
            f(id, &buf);
        }
        Ok(())
    }

    /// Forgets chunks that are no longer in the snapshot (`current`), for every model, and
    /// vectors no chunk uses. Returns (chunks, vectors) removed.
    pub fn prune(&mut self, current: &HashSet<String>) -> Result<(usize, usize), Error> {
        let path = self.path.clone();
        let sq = |source| Error::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sq)?;
        let stale: Vec<(String, String)> = {
            let mut st = tx
                .prepare("SELECT chunk_id, model FROM chunks")
                .map_err(sq)?;
            let rows = st
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
                .map_err(sq)?;
            rows.filter_map(|r| r.ok())
                .filter(|(id, _)| !current.contains(id))
                .collect()
        };
        {
            let mut del = tx
                .prepare_cached("DELETE FROM chunks WHERE chunk_id = ?1 AND model = ?2")
                .map_err(sq)?;
            for (id, model) in &stale {
                del.execute(params![id, model]).map_err(sq)?;
            }
        }
        let vectors = tx
            .execute(
                "DELETE FROM vectors WHERE NOT EXISTS (SELECT 1 FROM chunks c
                 WHERE c.text_hash = vectors.text_hash AND c.model = vectors.model)",
                [],
            )
            .map_err(sq)?;
        tx.commit().map_err(sq)?;
        Ok((stale.len(), vectors))
    }
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(b: &[u8], out: &mut Vec<f32>) {
    out.clear();
    out.extend(
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_prune_forgets_removed_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = VectorStore::open(dir.path()).unwrap();
        let ids_a = vec!["c1".to_string(), "c2".to_string()];
        let ids_b = vec!["c3".to_string()];
        s.write_batch(
            "m",
            &[
                NewVector {
                    text_hash: "ha",
                    vec: &[0.6, 0.8],
                    chunk_ids: &ids_a,
                },
                NewVector {
                    text_hash: "hb",
                    vec: &[1.0, 0.0],
                    chunk_ids: &ids_b,
                },
            ],
            &[],
        )
        .unwrap();
        s.write_batch("m", &[], &[("c4".into(), "hb".into())])
            .unwrap();
        drop(s);
        let r = VectorStore::open_read(dir.path()).unwrap().unwrap();
        let mut got = Vec::new();
        r.for_each("m", |id| id != "c2", |id, v| got.push((id, v.to_vec())))
            .unwrap();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            vec![
                ("c1".to_string(), vec![0.6, 0.8]),
                ("c3".to_string(), vec![1.0, 0.0]),
                ("c4".to_string(), vec![1.0, 0.0]),
            ]
        );
        assert_eq!(r.models().unwrap(), vec![("m".to_string(), 4)]);
        assert!(r.chunks_with_vectors("other").unwrap().is_empty());
        drop(r);
        let mut s = VectorStore::open(dir.path()).unwrap();
        let current: HashSet<String> = ["c1".to_string()].into();
        assert_eq!(s.prune(&current).unwrap(), (3, 1));
        assert_eq!(s.hashes("m").unwrap(), ["ha".to_string()].into());
    }

    #[test]
    fn no_store_reads_as_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(VectorStore::open_read(dir.path()).unwrap().is_none());
    }
}
