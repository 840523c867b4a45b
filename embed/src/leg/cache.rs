//! The loaded matrix kept as one flat file under the index folder
//! (`<index>/query-cache/vectors-<model>-<key>.bin`), so a one-shot `ask` reads tens of MB in one
//! go instead of walking every row of `vectors.sqlite` (half a second on corpus-1m).
//!
//! **Key.** What the matrix is made of: the model, the snapshot's chunk ids, and the change
//! stamp (length and modification time) of `vectors.sqlite` and its WAL. Any `codemap embed`
//! commit or index run changes one of them. Files are written as the view files are
//! ([`query::viewdata::write_cache_file`]); one that cannot be written (read-only folder) only
//! means reading the store again next time, and one that does not parse is ignored.
//!
//! **Layout** (little-endian): magic, `dim: u32`, `n: u32`, then `n` ids as `u16` length and
//! bytes, then `n × dim` `f32`.

use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CMVECS\0\x01";

/// The cache file for `model`'s matrix over `chunk_ids` with the store in `dir` as it is now.
pub(super) fn path(dir: &Path, model: &str, chunk_ids: &[String]) -> PathBuf {
    let mut ids: Vec<&str> = chunk_ids.iter().map(String::as_str).collect();
    ids.sort_unstable();
    let mut h = blake3::Hasher::new();
    h.update(MAGIC);
    h.update(model.as_bytes());
    h.update(&[0]);
    for id in ids {
        h.update(id.as_bytes());
        h.update(&[0]);
    }
    for file in [
        crate::store::FILE.to_string(),
        format!("{}-wal", crate::store::FILE),
    ] {
        let (len, mtime) = std::fs::metadata(dir.join(file))
            .map(|m| {
                let mtime = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                (m.len(), mtime)
            })
            .unwrap_or_default();
        h.update(&len.to_le_bytes());
        h.update(&mtime.to_le_bytes());
    }
    let key = h.finalize().to_hex();
    dir.join(query::viewdata::CACHE_DIR).join(format!(
        "vectors-{}-{}.bin",
        model_tag(model),
        &key[..16]
    ))
}

/// Short stable tag of a model id, so files of other models are told apart (and kept).
fn model_tag(model: &str) -> String {
    blake3::hash(model.as_bytes()).to_hex()[..8].to_string()
}

/// The rows in `path`, if it holds a well-formed matrix of `dim` columns.
pub(super) fn read(path: &Path, dim: usize) -> Option<(Vec<String>, Vec<f32>)> {
    let bytes = std::fs::read(path).ok()?;
    let rest = bytes.strip_prefix(MAGIC)?;
    let (head, mut rest) = rest.split_at_checked(8)?;
    let file_dim = u32::from_le_bytes(head[..4].try_into().ok()?) as usize;
    let n = u32::from_le_bytes(head[4..].try_into().ok()?) as usize;
    if file_dim != dim {
        return None;
    }
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let (len, tail) = rest.split_at_checked(2)?;
        let len = usize::from(u16::from_le_bytes([len[0], len[1]]));
        let (id, tail) = tail.split_at_checked(len)?;
        ids.push(std::str::from_utf8(id).ok()?.to_string());
        rest = tail;
    }
    if rest.len() != n.checked_mul(dim)?.checked_mul(4)? {
        return None;
    }
    let matrix = rest
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some((ids, matrix))
}

/// Writes the rows to `path` (atomically) and removes this model's older files. Best effort.
pub(super) fn write(path: &Path, model: &str, dim: usize, ids: &[String], matrix: &[f32]) {
    let written = encode(dim, ids, matrix).and_then(|bytes| {
        let stale = format!("vectors-{}-", model_tag(model));
        query::viewdata::write_cache_file(path, &bytes, &stale)
    });
    if let Err(e) = written {
        tracing::debug!(path = %path.display(), "vector cache not written: {e}");
    }
}

fn encode(dim: usize, ids: &[String], matrix: &[f32]) -> std::io::Result<Vec<u8>> {
    let too_big = |what| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
    let n = u32::try_from(ids.len()).map_err(|_| too_big("too many rows"))?;
    let mut bytes = Vec::with_capacity(16 + ids.len() * 26 + matrix.len() * 4);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(dim as u32).to_le_bytes());
    bytes.extend_from_slice(&n.to_le_bytes());
    for id in ids {
        let len = u16::try_from(id.len()).map_err(|_| too_big("chunk id too long"))?;
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(id.as_bytes());
    }
    for x in matrix {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_damaged_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ids = vec!["a1".to_string(), "b22".to_string()];
        let matrix = vec![0.5, -1.0, 2.0, 0.25, 3.5, -0.125];
        let p = path(dir.path(), "m", &ids);
        write(&p, "m", 3, &ids, &matrix);
        assert_eq!(read(&p, 3), Some((ids.clone(), matrix.clone())));
        assert_eq!(read(&p, 4), None, "another dimension");
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 1]).unwrap();
        assert_eq!(read(&p, 3), None, "truncated");

        // A newer file of the same model replaces the old one; another model's stays.
        let other = path(dir.path(), "other", &ids);
        write(&other, "other", 3, &ids, &matrix);
        let newer = path(dir.path(), "m", &ids[..1]);
        write(&newer, "m", 3, &ids[..1], &matrix[..3]);
        assert!(newer.exists() && other.exists() && !p.exists());
    }

    #[test]
    fn the_key_follows_the_chunks_and_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let ids = vec!["a".to_string(), "b".to_string()];
        let swapped = vec!["b".to_string(), "a".to_string()];
        let before = path(dir.path(), "m", &ids);
        assert_eq!(
            before,
            path(dir.path(), "m", &swapped),
            "order does not matter"
        );
        assert_ne!(before, path(dir.path(), "m", &ids[..1]));
        assert_ne!(before, path(dir.path(), "n", &ids));
        std::fs::write(dir.path().join(crate::store::FILE), b"x").unwrap();
        assert_ne!(before, path(dir.path(), "m", &ids), "the store changed");
    }
}
