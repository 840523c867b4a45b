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
//! the query workers (readers of their own) search it.

use crate::model::SnapshotKey;
use crate::store::StoreError;
use crate::store::fulltext::{ChunkDoc, FullText, TextWriter};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

/// Indexing threads for the build: it runs beside answers, in the background.
const BUILD_THREADS: usize = 2;

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
}

impl Builder {
    pub(super) fn new() -> Result<Builder, StoreError> {
        let text = FullText::open_ram()?;
        let writer = text.writer(BUILD_THREADS)?;
        Ok(Builder {
            text,
            writer,
            added: 0,
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

    /// The searchable index, for `snapshot`.
    pub(super) fn finish(mut self, snapshot: SnapshotKey) -> Result<WarmText, StoreError> {
        self.writer.commit_quick()?;
        self.writer.finish()?;
        self.text.reload()?;
        Ok(WarmText {
            snapshot,
            text: self.text,
        })
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
        let mut b = Builder::new().unwrap();
        for d in docs {
            b.add(d).unwrap();
        }
        assert_eq!(b.len(), docs.len());
        b.finish(snapshot).unwrap()
    }

    #[test]
    fn a_warm_index_ranks_like_the_embedded_full_text_index() {
        let docs = [
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
            doc("c3", "C.java", "int size() { return count; }"),
        ];
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
}
