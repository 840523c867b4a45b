//! The full-text half of the embedded index: one tantivy document per chunk.
//!
//! Documents hold only what search needs (ids, path, analysed text); everything shown to a user
//! is read back from the catalog by chunk id, so a document the catalog does not know (left by a
//! killed run) is invisible and is collected by the next run's reconcile.

use crate::analyzer::{self, CODE_TOKENIZER};
use crate::store::StoreError;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::QueryParser;
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// What one chunk contributes to the full-text index.
pub struct ChunkDoc<'a> {
    pub id: &'a str,
    pub path: &'a str,
    /// Symbol names declared in or covering the chunk (boosted).
    pub symbols: &'a str,
    pub header: &'a str,
    pub body: &'a str,
    pub provenance: &'a str,
}

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    path: Field,
    symbols: Field,
    header: Field,
    body: Field,
    provenance: Field,
}

/// Decompressed blocks of stored fields (a hit's id and path) a reader keeps per segment:
/// every question reads hits all over the store, and tantivy's default (100) held about half
/// of corpus-1m's; at most 16 KiB each.
const DOC_STORE_CACHE_BLOCKS: usize = 512;

pub struct FullText {
    index: Index,
    fields: Fields,
    reader: IndexReader,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let code = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(CODE_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        id: b.add_text_field("id", STRING | STORED),
        path: b.add_text_field("path", STRING | STORED),
        symbols: b.add_text_field("symbols", code.clone()),
        header: b.add_text_field("header", code.clone()),
        body: b.add_text_field("body", code),
        provenance: b.add_text_field("provenance", STRING),
    };
    (b.build(), fields)
}

impl FullText {
    /// Opens the index in `dir`, creating it when absent.
    pub fn open(dir: &Path) -> Result<FullText, StoreError> {
        std::fs::create_dir_all(dir)?;
        let (schema, fields) = schema();
        let mmap = MmapDirectory::open(dir).map_err(|e| StoreError::Tantivy(e.into()))?;
        FullText::with_index(Index::open_or_create(mmap, schema)?, fields)
    }

    /// An in-memory index with the same schema (the watch overlay); commits cost no fsync.
    pub fn open_ram() -> Result<FullText, StoreError> {
        let (schema, fields) = schema();
        FullText::with_index(Index::create_in_ram(schema), fields)
    }

    /// Registers the code analyzer and opens a manually reloaded reader.
    fn with_index(index: Index, fields: Fields) -> Result<FullText, StoreError> {
        analyzer::register(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(DOC_STORE_CACHE_BLOCKS)
            .try_into()?;
        Ok(FullText {
            index,
            fields,
            reader,
        })
    }

    /// A writer for one run. tantivy's own lock makes a second writer fail at once.
    pub fn writer(&self, threads: usize) -> Result<TextWriter, StoreError> {
        self.writer_with_heap(threads, |_| 64_000_000)
    }

    /// A writer whose buffers take `heap(threads)` bytes per thread (threads as clamped
    /// here, 1 to 4): a smaller heap flushes segments sooner.
    pub fn writer_with_heap(
        &self,
        threads: usize,
        heap: impl Fn(usize) -> usize,
    ) -> Result<TextWriter, StoreError> {
        let threads = threads.clamp(1, 4);
        let writer = self
            .index
            .writer_with_num_threads(threads, heap(threads) * threads)?;
        Ok(TextWriter {
            writer,
            fields: self.fields,
        })
    }

    /// The payload of the last commit (`gen=N` when that generation is fully reconciled).
    pub fn payload(&self) -> Result<Option<String>, StoreError> {
        Ok(self.index.load_metas()?.payload)
    }

    /// The payload of the commit this reader's searches see: `None` when the reader shows
    /// another commit than the last one on disk, or that commit has none.
    pub fn searched_payload(&self) -> Result<Option<String>, StoreError> {
        let metas = self.index.load_metas()?;
        let searcher = self.reader.searcher();
        let mut seen: Vec<_> = searcher
            .segment_readers()
            .iter()
            .map(|s| (s.segment_id(), s.delete_opstamp()))
            .collect();
        let mut last: Vec<_> = metas
            .segments
            .iter()
            .map(|s| (s.id(), s.delete_opstamp()))
            .collect();
        seen.sort();
        last.sort();
        Ok(if seen == last { metas.payload } else { None })
    }

    pub fn reload(&self) -> Result<(), StoreError> {
        self.reader.reload()?;
        Ok(())
    }

    /// Every chunk id present in the index (committed state).
    pub fn all_ids(&self) -> Result<Vec<String>, StoreError> {
        let searcher = self.reader.searcher();
        let mut out = Vec::new();
        for seg in searcher.segment_readers() {
            let store = seg.get_store_reader(64)?;
            let alive = seg.alive_bitset();
            for doc in 0..seg.max_doc() {
                if alive.is_some_and(|a| !a.is_alive(doc)) {
                    continue;
                }
                let d: TantivyDocument = store.get(doc)?;
                if let Some(id) = d.get_first(self.fields.id).and_then(|v| v.as_str()) {
                    out.push(id.to_string());
                }
            }
        }
        Ok(out)
    }

    /// BM25 over symbols, header and body, unboosted; returns (chunk id, path, score). Names are
    /// matched by the exact and symbol-card legs above this: boosting them here as well let
    /// merged getters and setters outrank the method whose body does the work.
    ///
    /// Equal scores are ordered by chunk id, not by where the chunks sit in the index: two
    /// builds of the same tree (threads add documents in any order) answer alike. The search
    /// looks [`TIE_SLACK`] hits past `limit` so a tie across the cut is settled the same way.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, String, f32)>, StoreError> {
        let qp = QueryParser::for_index(
            &self.index,
            vec![self.fields.symbols, self.fields.header, self.fields.body],
        );
        let (q, _errors) = qp.parse_query_lenient(&sanitize(query));
        let searcher = self.reader.searcher();
        let limit = limit.max(1);
        let mut top =
            searcher.search(&q, &TopDocs::with_limit(limit + TIE_SLACK).order_by_score())?;
        // Only hits tied with the one at the cut need their ids to decide; the rest are ranked.
        let cut = top.get(limit - 1).map(|(s, _)| *s);
        top.retain(|(s, _)| cut.is_none_or(|c| *s >= c));
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let d: TantivyDocument = searcher.doc(addr)?;
            let id = d
                .get_first(self.fields.id)
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            let path = d
                .get_first(self.fields.path)
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            out.push((id.to_string(), path.to_string(), score));
        }
        out.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        out.truncate(limit);
        Ok(out)
    }
}

/// Hits read past a search's limit to order ties across the cut by chunk id.
const TIE_SLACK: usize = 32;

/// Query syntax characters a user does not mean (`getX()`, `a.b:c`) become spaces.
fn sanitize(q: &str) -> String {
    q.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '$' || c == '"' || c.is_whitespace() {
                c
            } else {
                ' '
            }
        })
        .collect()
}

pub struct TextWriter {
    writer: IndexWriter,
    fields: Fields,
}

impl TextWriter {
    /// Adds a document; callable from several threads at once (tantivy queues it for its
    /// indexing threads).
    pub fn add(&self, d: &ChunkDoc<'_>) -> Result<(), StoreError> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.id, d.id);
        doc.add_text(f.path, d.path);
        doc.add_text(f.symbols, d.symbols);
        doc.add_text(f.header, d.header);
        doc.add_text(f.body, d.body);
        doc.add_text(f.provenance, d.provenance);
        self.writer.add_document(doc)?;
        Ok(())
    }

    pub fn delete_id(&mut self, id: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.id, id));
    }

    pub fn delete_path(&mut self, path: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.path, path));
    }

    pub fn delete_all(&mut self) -> Result<(), StoreError> {
        self.writer.delete_all_documents()?;
        Ok(())
    }

    /// Commits durably with `payload` recorded atomically in meta.json.
    pub fn commit(&mut self, payload: &str) -> Result<(), StoreError> {
        let mut prepared = self.writer.prepare_commit()?;
        prepared.set_payload(payload);
        prepared.commit()?;
        Ok(())
    }

    /// Commits without a payload (in-memory overlay).
    pub fn commit_quick(&mut self) -> Result<(), StoreError> {
        self.writer.commit()?;
        Ok(())
    }

    /// Waits for merges so the writer's lock is released cleanly.
    pub fn finish(self) -> Result<(), StoreError> {
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_finds_by_identifier_parts_and_payload_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let ft = FullText::open(dir.path()).unwrap();
        let mut w = ft.writer(1).unwrap();
        w.add(&ChunkDoc {
            id: "c1",
            path: "src/FilenameUtils.java",
            symbols: "getExtension",
            header: "// file: src/FilenameUtils.java",
            body: "public static String getExtension(String fileName) { return null; }",
            provenance: "source",
        })
        .unwrap();
        w.add(&ChunkDoc {
            id: "c2",
            path: "src/Other.java",
            symbols: "run",
            header: "",
            body: "void run() {}",
            provenance: "source",
        })
        .unwrap();
        w.commit("gen=1").unwrap();
        w.finish().unwrap();
        ft.reload().unwrap();
        assert_eq!(ft.payload().unwrap().as_deref(), Some("gen=1"));
        let hits = ft.search("extension of a file name", 10).unwrap();
        assert_eq!(hits[0].0, "c1");
        let hits = ft.search("getExtension()", 10).unwrap();
        assert_eq!(hits[0].0, "c1");
        let mut ids = ft.all_ids().unwrap();
        ids.sort();
        assert_eq!(ids, vec!["c1", "c2"]);
    }

    /// Chunks that score alike come in chunk-id order whatever order they were added in, also
    /// across the limit.
    #[test]
    fn ties_are_ordered_by_chunk_id_not_by_insertion() {
        let ids: Vec<String> = (0..12).map(|i| format!("c{i:02}")).collect();
        let mut answers = Vec::new();
        for reversed in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let ft = FullText::open(dir.path()).unwrap();
            let mut w = ft.writer(1).unwrap();
            let mut order: Vec<&String> = ids.iter().collect();
            if reversed {
                order.reverse();
            }
            for id in order {
                w.add(&ChunkDoc {
                    id,
                    path: "src/Same.java",
                    symbols: "run",
                    header: "",
                    body: "void run() { retry(); }",
                    provenance: "source",
                })
                .unwrap();
            }
            w.commit("gen=1").unwrap();
            w.finish().unwrap();
            ft.reload().unwrap();
            let hits: Vec<String> = ft
                .search("retry", 5)
                .unwrap()
                .into_iter()
                .map(|h| h.0)
                .collect();
            answers.push(hits);
        }
        assert_eq!(answers[0], ["c00", "c01", "c02", "c03", "c04"]);
        assert_eq!(answers[0], answers[1]);
    }
}
