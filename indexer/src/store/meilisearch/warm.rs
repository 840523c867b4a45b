//! Keyword search for a warm reader. A long-lived reader (the bot's preload, `ask --batch`)
//! reads every chunk of the published snapshot once ([`crate::store::IndexRead::warm_search`])
//! into a full-text index in memory with the embedded index's schema and code analyzer. A
//! question then costs the server one small request (is that snapshot still the last one?)
//! instead of a multi-search with a list per word, and its keyword hits rank exactly as on the
//! embedded backend (BM25 over the whole snapshot, not over a pool Meilisearch chose). A reader
//! that never warmed, or a snapshot published since, searches on the server as before.
//!
//! The index is kept per repository scope for the whole process: the preload thread builds it,
//! the query workers (readers of their own) search it.

use crate::store::StoreError;
use crate::store::fulltext::{ChunkDoc, FullText, TextWriter};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

/// Indexing threads for the build: it runs beside answers, in the background.
const BUILD_THREADS: usize = 2;

/// One snapshot's chunks, searchable in memory.
pub(super) struct WarmText {
    generation: u64,
    text: FullText,
}

impl WarmText {
    /// The snapshot generation the index holds.
    pub(super) fn generation(&self) -> u64 {
        self.generation
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

    /// The searchable index, for snapshot `generation`.
    pub(super) fn finish(mut self, generation: u64) -> Result<WarmText, StoreError> {
        self.writer.commit_quick()?;
        self.writer.finish()?;
        self.text.reload()?;
        Ok(WarmText {
            generation,
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

/// Keeps `warm` for scope `key`, unless one of a later snapshot is kept already; the one it
/// replaces goes when its last search ends.
pub(super) fn put(key: String, warm: WarmText) {
    let mut map = WARM
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if map
        .get(&key)
        .is_some_and(|w| w.generation > warm.generation)
    {
        return;
    }
    map.insert(key, Arc::new(warm));
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

    fn built(generation: u64, docs: &[ChunkDoc<'_>]) -> WarmText {
        let mut b = Builder::new().unwrap();
        for d in docs {
            b.add(d).unwrap();
        }
        assert_eq!(b.len(), docs.len());
        b.finish(generation).unwrap()
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
        let warm = built(3, &docs);
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
        assert_eq!(warm.generation(), 3);
    }

    #[test]
    fn a_scope_keeps_the_index_of_its_latest_snapshot() {
        let key = "warm-test\0scope".to_string();
        assert!(get(&key).is_none());
        put(key.clone(), built(2, &[doc("a", "A.java", "alpha")]));
        put(key.clone(), built(1, &[doc("b", "B.java", "beta")]));
        assert_eq!(
            get(&key).unwrap().generation(),
            2,
            "an older build never replaces"
        );
        put(key.clone(), built(4, &[doc("c", "C.java", "gamma")]));
        let w = get(&key).unwrap();
        assert_eq!(w.generation(), 4);
        assert_eq!(w.search("gamma", 5).unwrap()[0].0, "c");
        assert!(w.search("alpha", 5).unwrap().is_empty());
    }
}
