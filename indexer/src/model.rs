//! The data model every other part of codemap reads: files, symbols, chunks, snapshots.
//!
//! Plain data, no I/O. Line numbers are 1-based and inclusive everywhere.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A path relative to the repository root, always `/`-separated, never starting with `/` or `./`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RepoPath(String);

impl RepoPath {
    /// Builds a repo path from a relative path, normalising separators.
    /// Returns `None` for absolute paths and paths with `..`, NUL or empty components.
    pub fn new(rel: &str) -> Option<RepoPath> {
        let s = rel.replace('\\', "/");
        let s = s.trim_start_matches("./");
        if s.is_empty() || s.starts_with('/') || s.contains('\0') {
            return None;
        }
        if s.split('/').any(|c| c.is_empty() || c == "..") {
            return None;
        }
        Some(RepoPath(s.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The file name (last component).
    pub fn file_name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or(&self.0)
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Stable symbol id from the qualified name, e.g. `java:org.apache.x.Foo#bar(int,String)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SymbolId(pub String);

impl fmt::Display for SymbolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The language a file is analysed as: [`Language::TEXT`], or one of the structural languages
/// of the registry in [`crate::lang`], each defined in its own folder there. Stored by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Language(&'static str);

impl Language {
    /// Files indexed as text: chunks, no symbols.
    pub const TEXT: Language = Language("text");

    /// A language named `name`: only `lang/<name>/` defines one, with the name of its folder.
    pub const fn named(name: &'static str) -> Language {
        Language(name)
    }
    pub fn as_str(self) -> &'static str {
        self.0
    }
    pub fn is_text(self) -> bool {
        self == Language::TEXT
    }
    /// The language stored under `s`; a name no registered language has reads as text.
    pub fn parse(s: &str) -> Language {
        crate::lang::by_name(s).unwrap_or(Language::TEXT)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for Language {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Language, D::Error> {
        Ok(Language::parse(&String::deserialize(d)?))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Package,
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
    Method,
    Constructor,
    Field,
    /// An enum constant (`RED` in `enum Color { RED }`).
    Constant,
    /// A function outside any type (Python `def` at module level or inside another function).
    Function,
    /// A source file as a namespace (a Python module): the file's whole range.
    Module,
}

impl SymbolKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Package => "package",
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Enum => "enum",
            SymbolKind::Record => "record",
            SymbolKind::Annotation => "annotation",
            SymbolKind::Method => "method",
            SymbolKind::Constructor => "constructor",
            SymbolKind::Field => "field",
            SymbolKind::Constant => "constant",
            SymbolKind::Function => "function",
            SymbolKind::Module => "module",
        }
    }
    pub fn parse(s: &str) -> Option<SymbolKind> {
        Some(match s {
            "package" => SymbolKind::Package,
            "class" => SymbolKind::Class,
            "interface" => SymbolKind::Interface,
            "enum" => SymbolKind::Enum,
            "record" => SymbolKind::Record,
            "annotation" => SymbolKind::Annotation,
            "method" => SymbolKind::Method,
            "constructor" => SymbolKind::Constructor,
            "field" => SymbolKind::Field,
            "constant" => SymbolKind::Constant,
            "function" => SymbolKind::Function,
            "module" => SymbolKind::Module,
            _ => return None,
        })
    }
    /// Types: things that can own members.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Interface
                | SymbolKind::Enum
                | SymbolKind::Record
                | SymbolKind::Annotation
        )
    }
    pub fn is_callable(self) -> bool {
        matches!(
            self,
            SymbolKind::Method | SymbolKind::Constructor | SymbolKind::Function
        )
    }
}

/// One declaration found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub id: SymbolId,
    pub kind: SymbolKind,
    /// Simple name (`bar`; constructors carry the class name).
    pub name: String,
    /// Dotted qualified name without parameters: `org.x.Outer.Inner.bar`.
    /// Anonymous classes appear as `Outer.1`, local classes as `Outer.method.Local`.
    pub qualified_name: String,
    /// The declaration head as written, whitespace collapsed, without the body
    /// (`public static String getExtension(String fileName)`).
    pub signature: String,
    /// First sentence of the Javadoc, if any.
    pub doc: Option<String>,
    /// Enclosing symbol (type or method for local/anonymous classes).
    pub parent: Option<SymbolId>,
    /// Range of the declaration: annotations and modifiers included, Javadoc excluded.
    pub start_line: u32,
    pub end_line: u32,
    /// Line of the name token (what ctags and the bytecode oracle call the declaration line).
    pub name_line: u32,
    pub annotations: Vec<String>,
    /// `public`, `protected`, `private` or `` (package-private).
    pub visibility: String,
    pub is_static: bool,
    /// blake3 of the declaration's text (hex, 16 chars): detects changed bodies between snapshots.
    pub body_hash: String,
    /// Callables: the parameters in order (a compact constructor's are its record's).
    #[serde(default)]
    pub params: Vec<Param>,
    /// Methods: the type they return (`void` when none); fields: their declared type; as
    /// [`Param::ty`] writes types. Empty for other symbols.
    #[serde(default)]
    pub value_type: String,
    /// Callables: the body holds at least one statement (not abstract or native, not `{}`).
    /// Fields: the declaration gives an initial value (`= LogFactory.getLog(..)`): the class
    /// makes it itself, where a field without one is handed in (injected, set by a setter).
    #[serde(default)]
    pub has_body: bool,
    /// Line of the `{` that opens the body of a type or callable; 0 when it has none.
    #[serde(default)]
    pub body_line: u32,
    /// Types: the simple names of what they extend and implement, as declared, in order.
    #[serde(default)]
    pub supertypes: Vec<String>,
    /// The string literals written in this declaration's own code (not in a nested
    /// declaration's: those are the nested symbol's), decoded, in source order. Together the
    /// symbols of a file hold every literal of its code once, so the literals in a line range are
    /// those of the symbols that overlap it.
    #[serde(default)]
    pub literals: Vec<Literal>,
    /// Callables: the simple names of the types their `throws` clause declares, in order.
    #[serde(default)]
    pub throws: Vec<String>,
    /// The simple names of the types this declaration's own code throws by `throw new X(..)`,
    /// in order, without repeats (lambdas in it included, nested declarations not).
    #[serde(default)]
    pub thrown: Vec<String>,
}

/// A string literal (text blocks included) and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Literal {
    pub line: u32,
    /// The value, escapes decoded.
    pub text: String,
}

/// A parameter as declared, read from the syntax tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// The type's simple name: package, outer types, generics and annotations dropped, `[]` and
    /// a varargs `...` kept (`java.util.Map.Entry<K, V>[]` → `Entry[]`).
    pub ty: String,
    pub name: String,
}

/// A unit of full-text search: a whole method or class, or a merged run of small siblings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: usize,
    pub end_byte: usize,
    /// Contextualized header: file, module, scope chain, signature, imports used.
    pub header: String,
    /// The source text of the chunk (lossy UTF-8 of the original bytes).
    pub text: String,
    /// Innermost symbol whose range covers the chunk, if any.
    pub symbol: Option<SymbolId>,
}

/// What analysing one file produced.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileAnalysis {
    pub package: Option<String>,
    pub imports: Vec<String>,
    pub symbols: Vec<Symbol>,
    pub chunks: Vec<Chunk>,
    /// Why structural parsing was abandoned and the file indexed as text, if it was.
    pub degraded: Option<String>,
    /// What the call graph needs from this file (declarations, call sites, framework facts);
    /// `None` for files that contribute nothing to it.
    #[serde(default)]
    pub facts: Option<Box<crate::graph::FileFacts>>,
    /// What the file's shape says about its origin (generator output without a marker, or a
    /// data class a generated family may name): [`crate::genshape`].
    #[serde(default)]
    pub shape: Option<crate::genshape::Shape>,
}

/// Why a file found by the walk was not indexed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason", content = "detail")]
pub enum SkipReason {
    TooLarge { size: u64, cap: u64 },
    Binary,
    Minified,
    Secret { rule: String },
    SymlinkOutsideRoot,
    Unreadable { error: String },
}

impl SkipReason {
    /// Short stable label used in summaries and the database.
    pub fn label(&self) -> &'static str {
        match self {
            SkipReason::TooLarge { .. } => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::Minified => "minified",
            SkipReason::Secret { .. } => "secret",
            SkipReason::SymlinkOutsideRoot => "symlink_outside_root",
            SkipReason::Unreadable { .. } => "unreadable",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::TooLarge { size, cap } => write!(f, "too large ({size} bytes > cap {cap})"),
            SkipReason::Binary => f.write_str("binary (NUL byte in the first 8 KiB)"),
            SkipReason::Minified => f.write_str("minified (very long lines)"),
            SkipReason::Secret { rule } => write!(f, "secret-like file ({rule})"),
            SkipReason::SymlinkOutsideRoot => f.write_str("symlink pointing outside the root"),
            SkipReason::Unreadable { error } => write!(f, "unreadable: {error}"),
        }
    }
}

/// Marks on an indexed file that lower its weight in answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Provenance {
    #[default]
    Source,
    Test,
    Generated,
    Vendored,
    /// Example and demo programs shipped beside the product (`logback-examples/`,
    /// `webapps/examples/`): they use the API, they do not implement it.
    Example,
}

impl Provenance {
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Source => "source",
            Provenance::Test => "test",
            Provenance::Generated => "generated",
            Provenance::Vendored => "vendored",
            Provenance::Example => "example",
        }
    }
    pub fn parse(s: &str) -> Provenance {
        match s {
            "test" => Provenance::Test,
            "generated" => Provenance::Generated,
            "vendored" => Provenance::Vendored,
            "example" => Provenance::Example,
            _ => Provenance::Source,
        }
    }
}

/// One index run, as recorded in the store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub generation: u64,
    /// Git commit of HEAD when the run started, if the root is a git work tree.
    pub commit: Option<String>,
    /// Whether the work tree had changes relative to `commit` (unknown → false).
    pub dirty: bool,
    /// Unix seconds.
    pub created_at: i64,
    pub files: u64,
    pub symbols: u64,
    pub chunks: u64,
    /// The publish that put this snapshot on a team server (Meilisearch): unique per publish,
    /// so it tells apart two snapshots of one generation (a staged rebuild publishes into fresh
    /// indexes and starts generations over). `None` on the embedded index and on a team index
    /// published before publishes carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_id: Option<String>,
}

impl Snapshot {
    /// What caches of this snapshot's contents are kept under ([`SnapshotKey`]).
    pub fn key(&self) -> SnapshotKey {
        let mut h = blake3::Hasher::new();
        match &self.publish_id {
            Some(id) => {
                h.update(b"publish\0");
                h.update(id.as_bytes());
            }
            // No publish id (the embedded index, whose rebuilds readers tell apart by its
            // catalog file; a team index published before the id existed): what the snapshot
            // says of itself. Two publishes of one generation in the same second, of the same
            // commit with the same counts, then share a key, as before the id; the next publish
            // by this version writes one.
            None => {
                h.update(b"self\0");
                h.update(&self.created_at.to_le_bytes());
                h.update(self.commit.as_deref().unwrap_or("").as_bytes());
                h.update(&[self.dirty as u8]);
                for n in [self.files, self.symbols, self.chunks] {
                    h.update(&n.to_le_bytes());
                }
            }
        }
        let bytes: [u8; 8] = h.finalize().as_bytes()[..8]
            .try_into()
            .expect("a hash is longer than 8 bytes");
        SnapshotKey {
            generation: self.generation,
            publish: u64::from_le_bytes(bytes),
        }
    }
}

/// Which snapshot a cache of its contents holds (a reader's copy, search lists, the call graph):
/// its generation and its publish ([`Snapshot::publish_id`]), since a generation alone can name
/// two snapshots of a team index once a rebuild starts generations over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapshotKey {
    pub generation: u64,
    /// A hash of the publish id (or, without one, of the snapshot's own fields).
    pub publish: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_key_tells_publishes_of_one_generation_apart() {
        let snap = |publish_id: Option<&str>, created_at| Snapshot {
            generation: 1,
            commit: Some("abc".into()),
            dirty: false,
            created_at,
            files: 3,
            symbols: 9,
            chunks: 4,
            publish_id: publish_id.map(String::from),
        };
        let a = snap(Some("p1"), 100).key();
        assert_eq!(a, snap(Some("p1"), 100).key());
        assert_eq!(a.generation, 1);
        // The same generation, second, commit and counts: another publish.
        assert_ne!(a, snap(Some("p2"), 100).key());
        // Without an id (published before ids existed): keyed by the snapshot's own fields.
        assert_eq!(snap(None, 100).key(), snap(None, 100).key());
        assert_ne!(snap(None, 100).key(), snap(None, 101).key());
        assert_ne!(snap(None, 100).key(), a);
    }

    #[test]
    fn repo_path_rejects_escapes_and_normalises() {
        assert_eq!(RepoPath::new("./a\\b.java").unwrap().as_str(), "a/b.java");
        assert!(RepoPath::new("../x").is_none());
        assert!(RepoPath::new("/etc/passwd").is_none());
        assert!(RepoPath::new("a//b").is_none());
        assert!(RepoPath::new("a\0b").is_none());
        assert_eq!(
            RepoPath::new("src/Foo.java").unwrap().file_name(),
            "Foo.java"
        );
    }

    #[test]
    fn kinds_round_trip_through_their_labels() {
        for k in [
            SymbolKind::Package,
            SymbolKind::Class,
            SymbolKind::Interface,
            SymbolKind::Enum,
            SymbolKind::Record,
            SymbolKind::Annotation,
            SymbolKind::Method,
            SymbolKind::Constructor,
            SymbolKind::Field,
            SymbolKind::Constant,
            SymbolKind::Function,
            SymbolKind::Module,
        ] {
            assert_eq!(SymbolKind::parse(k.as_str()), Some(k));
        }
    }
}
