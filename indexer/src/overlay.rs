//! Files changed since the last durable snapshot, analysed and searchable in memory.
//!
//! `codemap watch` puts each saved file here within milliseconds and serves queries over the
//! committed index with these files laid on top: a path in the overlay shadows its committed
//! version. Durable commits (SQLite + tantivy with fsync) then happen in batches; an entry put
//! before a commit started is dropped when it finishes, since the commit read the file later.

use crate::model::{Chunk, Provenance, RepoPath, Symbol};
use crate::store::StoreError;
use crate::store::fulltext::{ChunkDoc, FullText, TextWriter};
use std::collections::HashMap;

/// The overlay's view of one changed file.
#[derive(Debug, Clone)]
pub enum OverlayFile {
    /// New content, not yet in the committed index.
    Changed {
        provenance: Provenance,
        chunks: Vec<(String, Chunk)>,
        symbols: Vec<Symbol>,
    },
    /// Deleted (or now skipped): hide the committed version.
    Removed,
}

pub struct Overlay {
    text: FullText,
    writer: TextWriter,
    files: HashMap<RepoPath, OverlayFile>,
    /// When each file was put, as a sequence number (see [`Overlay::mark`]).
    seqs: HashMap<RepoPath, u64>,
    next_seq: u64,
    chunk_paths: HashMap<String, RepoPath>,
}

impl Overlay {
    pub fn new() -> Result<Overlay, StoreError> {
        let text = FullText::open_ram()?;
        let writer = text.writer(1)?;
        Ok(Overlay {
            text,
            writer,
            files: HashMap::new(),
            seqs: HashMap::new(),
            next_seq: 0,
            chunk_paths: HashMap::new(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether the committed version of `path` must be hidden.
    pub fn shadows(&self, path: &RepoPath) -> bool {
        self.files.contains_key(path)
    }

    pub fn get(&self, path: &RepoPath) -> Option<&OverlayFile> {
        self.files.get(path)
    }

    pub fn paths(&self) -> impl Iterator<Item = &RepoPath> {
        self.files.keys()
    }

    /// Replaces the overlay's view of `path` and makes it searchable at once.
    pub fn put(&mut self, path: RepoPath, file: OverlayFile) -> Result<(), StoreError> {
        self.forget(&path);
        self.writer.delete_path(path.as_str());
        if let OverlayFile::Changed {
            provenance,
            chunks,
            symbols,
            ..
        } = &file
        {
            for (id, c) in chunks {
                let names = crate::pipeline::symbol_names(c, symbols.iter());
                self.writer.add(&ChunkDoc {
                    id,
                    path: path.as_str(),
                    symbols: &names,
                    header: &c.header,
                    body: &c.text,
                    provenance: provenance.as_str(),
                })?;
                self.chunk_paths.insert(id.clone(), path.clone());
            }
        }
        self.seqs.insert(path.clone(), self.next_seq);
        self.next_seq += 1;
        self.files.insert(path, file);
        self.writer.commit_quick()?;
        self.text.reload()
    }

    /// A point in the overlay's history: take it before a durable commit reads the tree.
    pub fn mark(&self) -> u64 {
        self.next_seq
    }

    /// Drops every entry put before `mark`: a commit that started at `mark` read those files
    /// after they were put, so the committed index is at least as new. Returns how many went.
    pub fn settle(&mut self, mark: u64) -> Result<usize, StoreError> {
        let old: Vec<RepoPath> = self
            .seqs
            .iter()
            .filter(|(_, s)| **s < mark)
            .map(|(p, _)| p.clone())
            .collect();
        for path in &old {
            self.forget(path);
            self.files.remove(path);
            self.seqs.remove(path);
            self.writer.delete_path(path.as_str());
        }
        if !old.is_empty() {
            self.writer.commit_quick()?;
            self.text.reload()?;
        }
        Ok(old.len())
    }

    fn forget(&mut self, path: &RepoPath) {
        if let Some(OverlayFile::Changed { chunks, .. }) = self.files.get(path) {
            for (id, _) in chunks {
                self.chunk_paths.remove(id);
            }
        }
    }

    /// BM25 over the overlay's chunks: (chunk id, path, score).
    pub fn search(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<(String, String, f32)>, StoreError> {
        if self.files.is_empty() {
            return Ok(Vec::new());
        }
        self.text.search(query, limit)
    }

    /// A chunk of the overlay by id, with its path and file provenance.
    pub fn chunk(&self, id: &str) -> Option<(&RepoPath, &Chunk, Provenance)> {
        let path = self.chunk_paths.get(id)?;
        match self.files.get(path)? {
            OverlayFile::Changed {
                chunks, provenance, ..
            } => chunks
                .iter()
                .find(|(cid, _)| cid == id)
                .map(|(_, c)| (path, c, *provenance)),
            OverlayFile::Removed => None,
        }
    }

    /// Symbols of overlay files whose simple name equals `name` (case-insensitive).
    pub fn symbols_named(&self, name: &str) -> Vec<(&RepoPath, &Symbol, Provenance)> {
        let simple = name.rsplit(['.', '#']).next().unwrap_or(name);
        let mut out = Vec::new();
        for (path, f) in &self.files {
            if let OverlayFile::Changed {
                symbols,
                provenance,
                ..
            } = f
            {
                for s in symbols
                    .iter()
                    .filter(|s| s.name.eq_ignore_ascii_case(simple))
                {
                    out.push((path, s, *provenance));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(text: &str) -> Chunk {
        Chunk {
            start_line: 1,
            end_line: 1,
            start_byte: 0,
            end_byte: text.len(),
            header: String::new(),
            text: text.into(),
            symbol: None,
        }
    }

    #[test]
    fn put_is_searchable_and_settle_drops_only_entries_before_the_mark() {
        let mut o = Overlay::new().unwrap();
        let p = RepoPath::new("A.java").unwrap();
        let file = OverlayFile::Changed {
            provenance: Provenance::Source,
            chunks: vec![("c1".into(), chunk("void quokkaJump() {}"))],
            symbols: vec![],
        };
        let before = o.mark();
        o.put(p.clone(), file).unwrap();
        assert!(o.shadows(&p));
        let hits = o.search("quokka", 5).unwrap();
        assert_eq!(hits[0].0, "c1");
        assert_eq!(o.chunk("c1").unwrap().0, &p);
        assert_eq!(
            o.settle(before).unwrap(),
            0,
            "a commit that started earlier keeps the entry"
        );
        let mark = o.mark();
        o.put(RepoPath::new("Later.java").unwrap(), OverlayFile::Removed)
            .unwrap();
        assert_eq!(o.settle(mark).unwrap(), 1);
        assert!(
            o.shadows(&RepoPath::new("Later.java").unwrap()),
            "put after the mark stays"
        );
        assert!(o.search("quokka", 5).unwrap().is_empty());
        assert!(!o.shadows(&p));
    }
}
