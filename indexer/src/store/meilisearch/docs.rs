//! The documents codemap keeps in Meilisearch (files, symbols, chunks, snapshots), made from
//! catalog rows and read back into them. Long text is capped below Meilisearch's per-field word
//! limit; identifier parts go into a field of their own, since Meilisearch does not split
//! camelCase.

use super::{MAX_FIELD_WORDS, MeiliStore, doc_id};
use crate::analyzer::split_identifier;
use crate::model::{
    Chunk, Language, Literal, Param, Provenance, RepoPath, Symbol, SymbolId, SymbolKind,
};
use crate::store::catalog::{ChunkRow, FileRow, SymbolRow};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct FileDoc {
    pub(super) id: String,
    pub(super) repo: String,
    pub(super) path: String,
    pub(super) language: String,
    pub(super) hash: String,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    pub(super) lines: u32,
    pub(super) module: String,
    pub(super) provenance: String,
    pub(super) degraded: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct SymbolDoc {
    pub(super) id: String,
    pub(super) repo: String,
    pub(super) path: String,
    pub(super) ord: u32,
    pub(super) sym_id: String,
    pub(super) kind: String,
    pub(super) name: String,
    pub(super) name_lc: String,
    pub(super) qname: String,
    pub(super) signature: String,
    pub(super) doc: Option<String>,
    pub(super) parent: Option<String>,
    pub(super) start_line: u32,
    pub(super) end_line: u32,
    pub(super) name_line: u32,
    pub(super) annotations: Vec<String>,
    pub(super) visibility: String,
    pub(super) is_static: bool,
    pub(super) body_hash: String,
    /// Absent from documents published before these fields existed: read as empty until the
    /// next run republishes.
    #[serde(default)]
    pub(super) params: Vec<Param>,
    #[serde(default)]
    pub(super) value_type: String,
    #[serde(default)]
    pub(super) has_body: bool,
    #[serde(default)]
    pub(super) body_line: u32,
    #[serde(default)]
    pub(super) supertypes: Vec<String>,
    #[serde(default)]
    pub(super) literals: Vec<Literal>,
    #[serde(default)]
    pub(super) throws: Vec<String>,
    #[serde(default)]
    pub(super) thrown: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct ChunkDoc {
    pub(super) id: String,
    pub(super) repo: String,
    pub(super) path: String,
    pub(super) chunk_id: String,
    pub(super) ord: u32,
    pub(super) start_line: u32,
    pub(super) end_line: u32,
    pub(super) symbol: Option<String>,
    /// Symbol names in the chunk, for a boosted match.
    pub(super) symbols: String,
    /// Identifier parts (`getExtension` → `get extension`): Meilisearch does not split camelCase.
    pub(super) terms: String,
    pub(super) header: String,
    pub(super) text: String,
    pub(super) provenance: String,
    /// Published without a vector (`{"codemap": null}`: an explicit opt-out, which Meilisearch
    /// requires of documents once a `userProvided` embedder exists); `sync_vectors` adds it.
    #[serde(rename = "_vectors", default, skip_deserializing)]
    pub(super) vectors: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct SnapshotDoc {
    pub(super) id: String,
    pub(super) repo: String,
    pub(super) generation: u64,
    pub(super) commit: Option<String>,
    pub(super) dirty: bool,
    pub(super) created_at: i64,
    pub(super) files: u64,
    pub(super) symbols: u64,
    pub(super) chunks: u64,
    /// Unique per publish ([`super::publish_id`]); absent from snapshots published before it
    /// existed, which readers then key by their own fields ([`crate::model::Snapshot::key`]).
    #[serde(default)]
    pub(super) publish_id: Option<String>,
    /// The lineage of the local catalog it was published from ([`Catalog::lineage`]): a
    /// generation names the same files only within one lineage. Absent from snapshots published
    /// before it existed, which the next publish then replaces whole.
    ///
    /// [`Catalog::lineage`]: crate::store::catalog::Catalog::lineage
    #[serde(default)]
    pub(super) lineage: Option<String>,
}

impl From<SnapshotDoc> for crate::model::Snapshot {
    fn from(d: SnapshotDoc) -> Self {
        crate::model::Snapshot {
            generation: d.generation,
            commit: d.commit,
            dirty: d.dirty,
            created_at: d.created_at,
            files: d.files,
            symbols: d.symbols,
            chunks: d.chunks,
            publish_id: d.publish_id,
        }
    }
}

/// Caps a field's word count so Meilisearch indexes all of what it keeps.
pub(super) fn cap_words(s: &str) -> String {
    let mut words = 0;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            words += 1;
            if words >= MAX_FIELD_WORDS {
                return s[..i].to_string();
            }
        }
    }
    s.to_string()
}

/// Identifier parts of a text, for the `terms` field and for queries.
pub fn identifier_terms(text: &str) -> String {
    let mut out = String::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
        let parts = split_identifier(word);
        if parts.len() > 1 {
            for p in parts {
                out.push_str(&p);
                out.push(' ');
            }
        }
    }
    out
}

impl MeiliStore {
    pub(super) fn file_doc(&self, f: &FileRow) -> FileDoc {
        FileDoc {
            id: doc_id(&self.cfg.repo, &["file", f.path.as_str()]),
            repo: self.cfg.repo.clone(),
            path: f.path.to_string(),
            language: f.language.as_str().into(),
            hash: f.hash.clone(),
            size: f.size,
            mtime_ns: f.mtime_ns,
            lines: f.lines,
            module: f.module.clone(),
            provenance: f.provenance.as_str().into(),
            degraded: f.degraded.clone(),
        }
    }

    pub(super) fn symbol_doc(&self, path: &str, ord: u32, s: &Symbol) -> SymbolDoc {
        SymbolDoc {
            id: doc_id(&self.cfg.repo, &["symbol", path, &ord.to_string()]),
            repo: self.cfg.repo.clone(),
            path: path.to_string(),
            ord,
            sym_id: s.id.0.clone(),
            kind: s.kind.as_str().into(),
            name: s.name.clone(),
            name_lc: s.name.to_lowercase(),
            qname: s.qualified_name.clone(),
            signature: s.signature.clone(),
            doc: s.doc.clone(),
            parent: s.parent.as_ref().map(|p| p.0.clone()),
            start_line: s.start_line,
            end_line: s.end_line,
            name_line: s.name_line,
            annotations: s.annotations.clone(),
            visibility: s.visibility.clone(),
            is_static: s.is_static,
            body_hash: s.body_hash.clone(),
            params: s.params.clone(),
            value_type: s.value_type.clone(),
            has_body: s.has_body,
            body_line: s.body_line,
            supertypes: s.supertypes.clone(),
            literals: s.literals.clone(),
            throws: s.throws.clone(),
            thrown: s.thrown.clone(),
        }
    }

    pub(super) fn chunk_doc(
        &self,
        c: &ChunkRow,
        symbols: &[SymbolRow],
        provenance: Provenance,
    ) -> ChunkDoc {
        let names = crate::pipeline::symbol_names(&c.chunk, symbols.iter().map(|s| &s.symbol));
        let terms = identifier_terms(&format!("{names}\n{}\n{}", c.chunk.header, c.chunk.text));
        ChunkDoc {
            id: doc_id(&self.cfg.repo, &["chunk", &c.id]),
            repo: self.cfg.repo.clone(),
            path: c.path.to_string(),
            chunk_id: c.id.clone(),
            ord: c.ord,
            start_line: c.chunk.start_line,
            end_line: c.chunk.end_line,
            symbol: c.chunk.symbol.as_ref().map(|s| s.0.clone()),
            symbols: names,
            terms: cap_words(&terms),
            header: cap_words(&c.chunk.header),
            text: cap_words(&c.chunk.text),
            provenance: provenance.as_str().into(),
            vectors: Some(serde_json::json!({ super::EMBEDDER: null })),
        }
    }
}

pub(super) fn file_row(d: FileDoc) -> Option<FileRow> {
    Some(FileRow {
        path: RepoPath::new(&d.path)?,
        language: Language::parse(&d.language),
        hash: d.hash,
        size: d.size,
        mtime_ns: d.mtime_ns,
        lines: d.lines,
        module: d.module,
        provenance: Provenance::parse(&d.provenance),
        degraded: d.degraded,
        gen_reason: None,
        shape: None,
    })
}

pub(super) fn symbol_row(d: SymbolDoc) -> Option<SymbolRow> {
    Some(SymbolRow {
        path: RepoPath::new(&d.path)?,
        symbol: Symbol {
            id: SymbolId(d.sym_id),
            kind: SymbolKind::parse(&d.kind)?,
            name: d.name,
            qualified_name: d.qname,
            signature: d.signature,
            doc: d.doc,
            parent: d.parent.map(SymbolId),
            start_line: d.start_line,
            end_line: d.end_line,
            name_line: d.name_line,
            annotations: d.annotations,
            visibility: d.visibility,
            is_static: d.is_static,
            body_hash: d.body_hash,
            params: d.params,
            value_type: d.value_type,
            has_body: d.has_body,
            body_line: d.body_line,
            supertypes: d.supertypes,
            literals: d.literals,
            throws: d.throws,
            thrown: d.thrown,
        },
    })
}

pub(super) fn chunk_row(d: ChunkDoc) -> Option<ChunkRow> {
    Some(ChunkRow {
        id: d.chunk_id,
        path: RepoPath::new(&d.path)?,
        ord: d.ord,
        chunk: Chunk {
            start_line: d.start_line,
            end_line: d.end_line,
            start_byte: 0,
            end_byte: d.text.len(),
            header: d.header,
            text: d.text,
            symbol: d.symbol.map(SymbolId),
        },
    })
}

pub(super) fn sort_symbols(v: &mut [SymbolRow]) {
    v.sort_by(|a, b| {
        (a.path.as_str(), a.symbol.start_line).cmp(&(b.path.as_str(), b.symbol.start_line))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(extra: serde_json::Value) -> SymbolDoc {
        let mut v = serde_json::json!({
            "id": "s1", "repo": "r", "path": "src/A.java", "ord": 0,
            "sym_id": "java:p.A#f(int)", "kind": "method", "name": "f", "name_lc": "f",
            "qname": "p.A.f", "signature": "void f(int n)", "doc": null, "parent": "java:p.A",
            "start_line": 3, "end_line": 5, "name_line": 3, "annotations": [],
            "visibility": "", "is_static": false, "body_hash": "00"
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn callable_facts_round_trip_and_old_documents_read_as_empty() {
        let row = symbol_row(doc(serde_json::json!({
            "params": [{"ty": "int", "name": "n"}], "value_type": "void", "has_body": true,
            "body_line": 3, "supertypes": [],
            "literals": [{"line": 4, "text": "no \"x\""}], "throws": ["IOException"], "thrown": ["IllegalStateException"]
        })))
        .unwrap();
        assert_eq!(
            row.symbol.params,
            [Param {
                ty: "int".into(),
                name: "n".into()
            }]
        );
        assert_eq!(
            (
                row.symbol.value_type.as_str(),
                row.symbol.has_body,
                row.symbol.body_line
            ),
            ("void", true, 3)
        );
        assert_eq!(
            row.symbol.literals,
            [Literal {
                line: 4,
                text: "no \"x\"".into()
            }]
        );
        assert_eq!(row.symbol.throws, ["IOException"]);
        assert_eq!(row.symbol.thrown, ["IllegalStateException"]);
        // Published before the fields existed: read, not rejected, until the next run republishes.
        let old = symbol_row(doc(serde_json::json!({}))).unwrap();
        assert!(old.symbol.params.is_empty() && old.symbol.value_type.is_empty());
        assert!(old.symbol.supertypes.is_empty() && old.symbol.body_line == 0);
        assert!(!old.symbol.has_body);
        assert!(old.symbol.literals.is_empty() && old.symbol.throws.is_empty());
    }
}
