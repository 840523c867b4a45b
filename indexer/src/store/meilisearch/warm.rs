//! Keyword search for a warm reader. A long-lived reader (the bot's preload, `ask --batch`)
//! reads every chunk of the published snapshot once ([`crate::store::IndexRead::warm_search`])
//! into a full-text index in memory with the embedded index's schema and code analyzer. A
//! question then costs the server one small request (is that snapshot still the last one?)
//! instead of a multi-search with a list per word, and its keyword hits rank exactly as on the
//! embedded backend (BM25 over the whole snapshot, not over a pool Meilisearch chose). A reader
//! that never warmed, or a snapshot published since, searches on the server as before. The copy
//! is of one publish ([`SnapshotKey`]), not one generation: a staged rebuild swapped in starts
//! generations over, and the copy of the old index's generation 1 is not the new one's.
//!
//! The index is kept per repository scope for the whole process: the preload thread builds it,
//! the query workers (readers of their own) search it. With a folder to keep it in
//! ([`super::MeiliConfig::search_dir`]) it is written there, one folder per snapshot, and mapped:
//! its pages are the kernel's page cache, read as searches touch them, not the process's heap,
//! and a restarted process opens the copy of the snapshot that is still the last one instead of
//! reading every chunk from the server again. A copy is built in a temporary folder and renamed
//! once complete, so a folder named for a snapshot is always whole.

use crate::model::SnapshotKey;
use crate::store::StoreError;
use crate::store::fulltext::{ChunkDoc, FullText, TextWriter};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, RwLock};
use std::time::{Duration, SystemTime};

/// A temporary folder older than this is left by a killed build, and removed.
const ABANDONED_AFTER: Duration = Duration::from_secs(3600);

/// Indexing threads for the build: it runs beside answers, in the background.
const BUILD_THREADS: usize = 1;

/// The build's indexing buffer: the writer's default (64 MB a thread on two threads) was the
/// peak of a team bot's memory once the rest of the copy was packed (bench/RESULTS.md, "Team
/// mode: packed rows and a streamed graph"); a smaller buffer flushes a segment sooner.
const BUILD_HEAP: usize = 32_000_000;

/// One snapshot's chunks, searchable in memory.
pub(super) struct WarmText {
    snapshot: SnapshotKey,
    text: FullText,
}

impl WarmText {
    /// The snapshot the index holds.
    pub(super) fn snapshot(&self) -> SnapshotKey {
        self.snapshot
    }

    /// BM25 over symbols, header and text, as [`FullText::search`] on the embedded index.
    pub(super) fn search(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, String, f32)>, StoreError> {
        self.text.search(query, limit)
    }
}

/// Fills a [`WarmText`] chunk by chunk.
pub(super) struct Builder {
    text: FullText,
    writer: TextWriter,
    added: usize,
    /// The folder that keeps copies, and the temporary folder this one is built in.
    on_disk: Option<(PathBuf, PathBuf)>,
}

impl Builder {
    /// A copy built in `dir` when given (see the module's doc), else in memory.
    pub(super) fn new(dir: Option<&Path>) -> Result<Builder, StoreError> {
        let (text, on_disk) = match dir {
            None => (FullText::open_ram()?, None),
            Some(dir) => {
                remove_abandoned(dir);
                let nanos = (SystemTime::now().duration_since(SystemTime::UNIX_EPOCH))
                    .map_or(0, |d| d.as_nanos());
                let tmp = dir.join(format!("building-{}-{nanos}", std::process::id()));
                (FullText::open(&tmp)?, Some((dir.to_path_buf(), tmp)))
            }
        };
        let writer = text.writer_with_heap(BUILD_THREADS, |_| BUILD_HEAP)?;
        Ok(Builder {
            text,
            writer,
            added: 0,
            on_disk,
        })
    }

    pub(super) fn add(&mut self, doc: &ChunkDoc<'_>) -> Result<(), StoreError> {
        self.added += 1;
        self.writer.add(doc)
    }

    /// Chunks added so far.
    pub(super) fn len(&self) -> usize {
        self.added
    }

    /// The searchable index, for `snapshot`. On disk, the copies of other snapshots go.
    pub(super) fn finish(mut self, snapshot: SnapshotKey) -> Result<WarmText, StoreError> {
        self.writer.commit_quick()?;
        self.writer.finish()?;
        let Some((dir, tmp)) = self.on_disk else {
            self.text.reload()?;
            return Ok(WarmText {
                snapshot,
                text: self.text,
            });
        };
        drop(self.text);
        let at = dir.join(folder_name(snapshot));
        if let Err(e) = std::fs::rename(&tmp, &at) {
            // Another process kept the same snapshot first: its copy holds the same chunks.
            let _ = std::fs::remove_dir_all(&tmp);
            if !at.join("meta.json").exists() {
                return Err(e.into());
            }
        }
        remove_other_snapshots(&dir, &at);
        Ok(WarmText {
            snapshot,
            text: FullText::open(&at)?,
        })
    }
}

/// The copy of `snapshot` kept in `dir` by an earlier build, this process's or another's.
pub(super) fn kept(dir: &Path, snapshot: SnapshotKey) -> Option<WarmText> {
    let at = dir.join(folder_name(snapshot));
    if !at.join("meta.json").exists() {
        return None;
    }
    match FullText::open(&at) {
        Ok(text) => Some(WarmText { snapshot, text }),
        Err(e) => {
            tracing::warn!(error = %e, path = %at.display(), "a kept search copy does not open; building it again");
            let _ = std::fs::remove_dir_all(&at);
            None
        }
    }
}

fn folder_name(snapshot: SnapshotKey) -> String {
    format!("snapshot-{}-{:016x}", snapshot.generation, snapshot.publish)
}

/// Copies of snapshots other than `keep`: a reader still searching one keeps its mapped files
/// until it is done (the folder's names go, the files' pages stay).
fn remove_other_snapshots(dir: &Path, keep: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let is_copy = entry.file_name().to_string_lossy().starts_with("snapshot-");
        if is_copy && path != keep {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Temporary folders of builds killed before they finished.
fn remove_abandoned(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let building = entry.file_name().to_string_lossy().starts_with("building-");
        let age = (entry.metadata().and_then(|m| m.modified()).ok()).and_then(|t| t.elapsed().ok());
        if building && age.is_some_and(|a| a > ABANDONED_AFTER) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The warm index of each repository scope ([`super::MeiliStore::warm_key`]).
static WARM: LazyLock<RwLock<HashMap<String, Arc<WarmText>>>> = LazyLock::new(Default::default);

/// The warm index of scope `key`, if one was built.
pub(super) fn get(key: &str) -> Option<Arc<WarmText>> {
    WARM.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(key)
        .cloned()
}

/// Keeps `warm` for scope `key`; the one it replaces goes when its last search ends. Publish
/// ids have no order, so the last kept wins: a builder checks that its snapshot is still the
/// last one just before, and a search uses the copy only while it is ([`WarmText::snapshot`]).
pub(super) fn put(key: String, warm: WarmText) {
    WARM.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(key, Arc::new(warm));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(id: &'a str, path: &'a str, body: &'a str) -> ChunkDoc<'a> {
        ChunkDoc {
            id,
            path,
            symbols: "",
            header: "",
            body,
            provenance: "source",
        }
    }

    fn key(generation: u64, publish: u64) -> SnapshotKey {
        SnapshotKey {
            generation,
            publish,
        }
    }

    fn built(snapshot: SnapshotKey, docs: &[ChunkDoc<'_>]) -> WarmText {
        built_in(None, snapshot, docs)
    }

    fn built_in(dir: Option<&Path>, snapshot: SnapshotKey, docs: &[ChunkDoc<'_>]) -> WarmText {
        let mut b = Builder::new(dir).unwrap();
        for d in docs {
            b.add(d).unwrap();
        }
        assert_eq!(b.len(), docs.len());
        b.finish(snapshot).unwrap()
    }

    /// Two chunks about sessions: one touches, one expires.
    fn session_docs() -> [ChunkDoc<'static>; 2] {
        [
            doc(
                "c1",
                "A.java",
                "void touch(Session session) { session.access(); }",
            ),
            doc(
                "c2",
                "B.java",
                "void expireAll(Session session) { session.expire(); }",
            ),
        ]
    }

    #[test]
    fn a_warm_index_ranks_like_the_embedded_full_text_index() {
        let [c1, c2] = session_docs();
        let docs = [c1, c2, doc("c3", "C.java", "int size() { return count; }")];
        let warm = built(key(3, 7), &docs);
        let disk = tempfile::tempdir().unwrap();
        let embedded = FullText::open(disk.path()).unwrap();
        let mut w = embedded.writer(1).unwrap();
        for d in &docs {
            w.add(d).unwrap();
        }
        w.commit("gen=3").unwrap();
        w.finish().unwrap();
        embedded.reload().unwrap();
        for q in [
            "expire session",
            "session",
            "count size",
            "\"session.expire\"",
        ] {
            assert_eq!(
                warm.search(q, 10).unwrap(),
                embedded.search(q, 10).unwrap(),
                "{q}"
            );
        }
        // Identifier parts and stems, as the code analyzer makes them.
        let hits = warm.search("expire", 10).unwrap();
        assert_eq!(hits[0].0, "c2");
        assert_eq!(hits[0].1, "B.java");
        assert_eq!(warm.snapshot(), key(3, 7));
    }

    #[test]
    fn a_scope_keeps_the_index_last_built_whatever_its_generation() {
        let scope = "warm-test\0scope".to_string();
        assert!(get(&scope).is_none());
        put(
            scope.clone(),
            built(key(4, 1), &[doc("a", "A.java", "alpha")]),
        );
        // A staged rebuild swapped in: generation 1 again, of another publish.
        put(
            scope.clone(),
            built(key(1, 2), &[doc("b", "B.java", "beta")]),
        );
        let w = get(&scope).unwrap();
        assert_eq!(w.snapshot(), key(1, 2));
        assert_eq!(w.search("beta", 5).unwrap()[0].0, "b");
        assert!(w.search("alpha", 5).unwrap().is_empty());
    }

    #[test]
    fn a_copy_kept_on_disk_searches_as_in_memory_and_reopens_by_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let docs = session_docs();
        let ram = built(key(2, 5), &docs);
        let disk = built_in(Some(dir.path()), key(2, 5), &docs);
        for q in ["expire session", "session", "access"] {
            assert_eq!(
                disk.search(q, 10).unwrap(),
                ram.search(q, 10).unwrap(),
                "{q}"
            );
        }
        // A killed build's folder, and one still being written (recent): only the old one goes.
        let old = dir.path().join("building-1-1");
        std::fs::create_dir_all(&old).unwrap();
        let an_hour_ago = SystemTime::now() - ABANDONED_AFTER - Duration::from_secs(60);
        std::fs::File::open(&old)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
        let live = dir.path().join("building-2-2");
        std::fs::create_dir_all(&live).unwrap();

        let again = kept(dir.path(), key(2, 5)).expect("the copy of that snapshot is kept");
        assert_eq!(again.search("expire", 5).unwrap()[0].0, "c2");
        assert!(kept(dir.path(), key(2, 6)).is_none(), "another publish");

        // The next snapshot's copy replaces it.
        let next = built_in(Some(dir.path()), key(3, 9), &[doc("d", "D.java", "delta")]);
        assert_eq!(next.search("delta", 5).unwrap()[0].0, "d");
        assert!(kept(dir.path(), key(2, 5)).is_none());
        assert!(kept(dir.path(), key(3, 9)).is_some());
        // The old copy's reader still searches what it mapped.
        assert_eq!(again.search("expire", 5).unwrap()[0].0, "c2");
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["building-2-2", &folder_name(key(3, 9))]);
    }
}
