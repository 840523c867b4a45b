//! The tables a [`SnapshotView`](crate::view::SnapshotView) answers from, derived once per snapshot
//! and kept in one file under the index folder (`<index>/query-cache/view-<key>.bin`), read back
//! with `mmap`: a new process pays for the pages it touches, not for loading the snapshot.
//!
//! What the file holds, in fixed-width records over one string blob:
//! - **files**: path, module, provenance, line count, the range of its symbols;
//! - **symbols**: the skeleton every ranking and graph step needs without loading a symbol row —
//!   kind, name, parent, lines, parameter types, id, doc sentence, annotation names, flags (has a
//!   body, static) and the card's name length, all from the stored symbol rows (the view reads no
//!   file text). Symbol `i` is the
//!   `i`-th of `IndexRead::all_symbols` (path, then line): ranks tie-break on that order;
//! - **names**: lower-cased simple name → symbols, and symbol id hash → symbol;
//! - **cards**: stem → symbols whose card has it (name, doc sentence, parameters, member names),
//!   with document frequencies (the card leg's postings and its idf);
//! - **chunks**: id → file and lines (what a full-text hit stands for, without reading it).
//!
//! Calls are not here: who calls and creates what is the index's stored call graph.
//!
//! Full symbol rows (signature, doc, annotations) and file text stay in the index and are read
//! per file when an answer needs them.
//!
//! **Key.** A file is valid for one snapshot content: the format version, the snapshot's file,
//! symbol and chunk counts and a hash of the full-text index's `meta.json` (it changes with every
//! commit that changes chunks, and a rebuilt index has new segment ids). A no-change index run
//! keeps the key. Other backends (Meilisearch) keep the files in a cache folder of their own,
//! keyed by the published snapshot (generation, time, commit, publish id). Files are written to a temporary name and renamed, so readers never see a
//! partial file; one built while the full-text index is mid-run (payload not `gen=N`) is kept in
//! memory only. An index folder that cannot be written just means building in memory each time.

use crate::QueryError;
use crate::signature::annotation_name;
use crate::terms;
use crate::view::prose_stems;
use indexer::model::{Provenance, SymbolKind};
use indexer::store::IndexRead;
use indexer::store::catalog::{ChunkRow, FileRow};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod cache;
mod write;
pub use cache::{Key, current_key, open, prepare, write_cache_file};
pub use write::build;

const MAGIC: &[u8; 8] = b"CMVIEW\0\x01";
/// Bump when the layout or what is derived changes.
pub const FORMAT: u32 = 6;

/// Folder under the index folder holding the view files.
pub const CACHE_DIR: &str = "query-cache";

pub const FLAG_HAS_BODY: u8 = 1;
pub const FLAG_STATIC: u8 = 16;

/// Card fields a stem occurs in.
pub const CARD_NAME: u8 = 1;
pub const CARD_DOC: u8 = 2;
pub const CARD_PARAMS: u8 = 4;
pub const CARD_MEMBER: u8 = 8;

const NONE: u32 = u32::MAX;
const FILE_REC: usize = 32;
const SYM_REC: usize = 56;
const DICT_REC: usize = 16;
const STEM_REC: usize = 20;
const ID_REC: usize = 16;
const CHUNK_REC: usize = 32;

/// Counts and section offsets, in header order.
#[derive(Debug, Clone, Copy, Default)]
struct Layout {
    n_files: usize,
    n_syms: usize,
    n_names: usize,
    n_stems: usize,
    n_post: usize,
    files: usize,
    syms: usize,
    names: usize,
    namelist: usize,
    ids: usize,
    stems: usize,
    post: usize,
    n_chunks: usize,
    chunks: usize,
    strings: usize,
    strings_len: usize,
    end: usize,
}

const LAYOUT_FIELDS: usize = 17;

impl Layout {
    fn to_words(self) -> [u64; LAYOUT_FIELDS] {
        [
            self.n_files,
            self.n_syms,
            self.n_names,
            self.n_stems,
            self.n_post,
            self.files,
            self.syms,
            self.names,
            self.namelist,
            self.ids,
            self.stems,
            self.post,
            self.n_chunks,
            self.chunks,
            self.strings,
            self.strings_len,
            self.end,
        ]
        .map(|x| x as u64)
    }
    fn from_words(w: &[u64; LAYOUT_FIELDS]) -> Layout {
        let w = w.map(|x| x as usize);
        Layout {
            n_files: w[0],
            n_syms: w[1],
            n_names: w[2],
            n_stems: w[3],
            n_post: w[4],
            files: w[5],
            syms: w[6],
            names: w[7],
            namelist: w[8],
            ids: w[9],
            stems: w[10],
            post: w[11],
            n_chunks: w[12],
            chunks: w[13],
            strings: w[14],
            strings_len: w[15],
            end: w[16],
        }
    }
}

enum Bytes {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// The derived tables of one snapshot (see the module docs).
pub struct ViewData {
    bytes: Bytes,
    l: Layout,
    pub key: String,
}

fn rd_u16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
fn rd_u32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn rd_u64(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

/// FNV-1a, 64 bits: stable across processes and builds (unlike the std hasher's keys).
pub fn fnv64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn kind_code(k: SymbolKind) -> u8 {
    match k {
        SymbolKind::Package => 0,
        SymbolKind::Class => 1,
        SymbolKind::Interface => 2,
        SymbolKind::Enum => 3,
        SymbolKind::Record => 4,
        SymbolKind::Annotation => 5,
        SymbolKind::Method => 6,
        SymbolKind::Constructor => 7,
        SymbolKind::Field => 8,
        SymbolKind::Constant => 9,
        SymbolKind::Function => 10,
        SymbolKind::Module => 11,
    }
}

fn kind_of(c: u8) -> SymbolKind {
    match c {
        0 => SymbolKind::Package,
        1 => SymbolKind::Class,
        2 => SymbolKind::Interface,
        3 => SymbolKind::Enum,
        4 => SymbolKind::Record,
        5 => SymbolKind::Annotation,
        6 => SymbolKind::Method,
        7 => SymbolKind::Constructor,
        8 => SymbolKind::Field,
        10 => SymbolKind::Function,
        11 => SymbolKind::Module,
        _ => SymbolKind::Constant,
    }
}

fn prov_code(p: Provenance) -> u8 {
    match p {
        Provenance::Source => 0,
        Provenance::Test => 1,
        Provenance::Generated => 2,
        Provenance::Vendored => 3,
        Provenance::Example => 4,
    }
}

fn prov_of(c: u8) -> Provenance {
    match c {
        1 => Provenance::Test,
        2 => Provenance::Generated,
        3 => Provenance::Vendored,
        4 => Provenance::Example,
        _ => Provenance::Source,
    }
}

impl ViewData {
    fn b(&self) -> &[u8] {
        &self.bytes
    }

    fn str_at(&self, off: u32, len: u32) -> &str {
        std::str::from_utf8(self.bytes_at(off, len)).unwrap_or("")
    }
    /// A string's bytes: binary searches compare these (UTF-8 orders as its bytes do) rather
    /// than validating every probe.
    fn bytes_at(&self, off: u32, len: u32) -> &[u8] {
        let s = self.l.strings + off as usize;
        &self.b()[s..s + len as usize]
    }

    pub fn file_count(&self) -> usize {
        self.l.n_files
    }
    pub fn sym_count(&self) -> usize {
        self.l.n_syms
    }

    fn file_rec(&self, f: usize) -> usize {
        self.l.files + f * FILE_REC
    }
    pub fn file_path(&self, f: usize) -> &str {
        let o = self.file_rec(f);
        self.str_at(rd_u32(self.b(), o), rd_u32(self.b(), o + 4))
    }
    pub fn file_module(&self, f: usize) -> &str {
        let o = self.file_rec(f);
        self.str_at(rd_u32(self.b(), o + 8), rd_u32(self.b(), o + 12))
    }
    pub fn file_lines(&self, f: usize) -> u32 {
        rd_u32(self.b(), self.file_rec(f) + 16)
    }
    pub fn file_provenance(&self, f: usize) -> Provenance {
        prov_of(self.b()[self.file_rec(f) + 20])
    }
    /// Symbols of file `f`: `start..end`.
    pub fn file_syms(&self, f: usize) -> std::ops::Range<usize> {
        let o = self.file_rec(f);
        rd_u32(self.b(), o + 24) as usize..rd_u32(self.b(), o + 28) as usize
    }
    /// Index of `path` among the files (they are sorted by path).
    pub fn file_index(&self, path: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0usize, self.l.n_files);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let o = self.file_rec(mid);
            match self
                .bytes_at(rd_u32(self.b(), o), rd_u32(self.b(), o + 4))
                .cmp(path.as_bytes())
            {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    fn sym_rec(&self, i: usize) -> usize {
        self.l.syms + i * SYM_REC
    }
    pub fn kind(&self, i: usize) -> SymbolKind {
        kind_of(self.b()[self.sym_rec(i)])
    }
    pub fn flags(&self, i: usize) -> u8 {
        self.b()[self.sym_rec(i) + 1]
    }
    pub fn card_name_len(&self, i: usize) -> usize {
        rd_u16(self.b(), self.sym_rec(i) + 2) as usize
    }
    pub fn file_of(&self, i: usize) -> usize {
        rd_u32(self.b(), self.sym_rec(i) + 4) as usize
    }
    pub fn parent(&self, i: usize) -> Option<usize> {
        let p = rd_u32(self.b(), self.sym_rec(i) + 8);
        (p != NONE).then_some(p as usize)
    }
    pub fn span(&self, i: usize) -> (u32, u32) {
        let o = self.sym_rec(i);
        (rd_u32(self.b(), o + 12), rd_u32(self.b(), o + 16))
    }
    pub fn name(&self, i: usize) -> &str {
        let o = self.sym_rec(i);
        self.str_at(rd_u32(self.b(), o + 20), rd_u16(self.b(), o + 24) as u32)
    }
    /// Parameter types of a callable, `,`-joined (see [`param_types`]).
    pub fn params(&self, i: usize) -> (&str, usize) {
        let o = self.sym_rec(i);
        let s = self.str_at(rd_u32(self.b(), o + 28), rd_u16(self.b(), o + 26) as u32);
        (s, rd_u16(self.b(), o + 40) as usize)
    }
    pub fn id(&self, i: usize) -> &str {
        let o = self.sym_rec(i);
        self.str_at(rd_u32(self.b(), o + 32), rd_u32(self.b(), o + 36))
    }
    /// The simple names of the symbol's annotations, `,`-joined (`GetMapping,Transactional`).
    pub fn annotation_names(&self, i: usize) -> &str {
        let o = self.sym_rec(i);
        self.str_at(rd_u32(self.b(), o + 52), rd_u16(self.b(), o + 42) as u32)
    }
    /// The first doc sentence, if the symbol has one.
    pub fn doc(&self, i: usize) -> Option<&str> {
        let o = self.sym_rec(i);
        let len = rd_u32(self.b(), o + 48);
        (len != NONE).then(|| self.str_at(rd_u32(self.b(), o + 44), len))
    }

    /// Binary search in a dictionary of `(str_off, str_len, a, b)` records sorted by string.
    fn dict_find(&self, base: usize, n: usize, rec: usize, key: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let o = base + mid * rec;
            let s = self.bytes_at(rd_u32(self.b(), o), rd_u32(self.b(), o + 4));
            match s.cmp(key.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(o),
            }
        }
        None
    }

    /// Symbols whose lower-cased simple name is `lower`, in symbol order.
    pub fn named(&self, lower: &str) -> Vec<usize> {
        let Some(o) = self.dict_find(self.l.names, self.l.n_names, DICT_REC, lower) else {
            return Vec::new();
        };
        let (start, len) = (
            rd_u32(self.b(), o + 8) as usize,
            rd_u32(self.b(), o + 12) as usize,
        );
        (start..start + len)
            .map(|k| rd_u32(self.b(), self.l.namelist + 4 * k) as usize)
            .collect()
    }

    /// The symbol with this id (the last one, as a map built in symbol order would keep).
    pub fn by_id(&self, id: &str) -> Option<usize> {
        let h = fnv64(id.as_bytes());
        let n = self.l.n_syms;
        let at = |k: usize| rd_u64(self.b(), self.l.ids + k * ID_REC);
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if at(mid) < h {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut found = None;
        let mut k = lo;
        while k < n && at(k) == h {
            let i = rd_u32(self.b(), self.l.ids + k * ID_REC + 8) as usize;
            if self.id(i) == id {
                found = Some(found.map_or(i, |f: usize| f.max(i)));
            }
            k += 1;
        }
        found
    }

    /// `(symbols, document frequency)` of a card stem; the postings are `(symbol << 4) | fields`.
    pub fn stem(&self, stem: &str) -> Option<(CardPostings<'_>, u32)> {
        let o = self.dict_find(self.l.stems, self.l.n_stems, STEM_REC, stem)?;
        let (start, len, df) = (
            rd_u32(self.b(), o + 8) as usize,
            rd_u32(self.b(), o + 12) as usize,
            rd_u32(self.b(), o + 16),
        );
        Some((
            CardPostings {
                d: self,
                k: start,
                end: start + len,
            },
            df,
        ))
    }

    /// File and lines of a chunk of the snapshot.
    pub fn chunk(&self, id: &str) -> Option<(usize, u32, u32)> {
        let h = fnv64(id.as_bytes());
        let n = self.l.n_chunks;
        let rec = |k: usize| self.l.chunks + k * CHUNK_REC;
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if rd_u64(self.b(), rec(mid)) < h {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut k = lo;
        while k < n && rd_u64(self.b(), rec(k)) == h {
            let o = rec(k);
            if self.str_at(rd_u32(self.b(), o + 8), rd_u32(self.b(), o + 12)) == id {
                return Some((
                    rd_u32(self.b(), o + 16) as usize,
                    rd_u32(self.b(), o + 20),
                    rd_u32(self.b(), o + 24),
                ));
            }
            k += 1;
        }
        None
    }

    fn parse(bytes: Bytes) -> Option<ViewData> {
        let b: &[u8] = &bytes;
        if b.len() < 16 || &b[..8] != MAGIC || rd_u32(b, 8) != FORMAT {
            return None;
        }
        let key_len = rd_u32(b, 12) as usize;
        let key_end = 16 + key_len;
        if b.len() < key_end {
            return None;
        }
        let key = std::str::from_utf8(&b[16..key_end]).ok()?.to_string();
        let lo = align8(key_end);
        if b.len() < lo + 8 * LAYOUT_FIELDS {
            return None;
        }
        let mut w = [0u64; LAYOUT_FIELDS];
        for (k, x) in w.iter_mut().enumerate() {
            *x = rd_u64(b, lo + 8 * k);
        }
        let l = Layout::from_words(&w);
        if l.end != b.len() || l.strings + l.strings_len > b.len() {
            return None;
        }
        Some(ViewData { bytes, l, key })
    }
}

/// Postings of one card stem.
pub struct CardPostings<'d> {
    d: &'d ViewData,
    k: usize,
    end: usize,
}

impl Iterator for CardPostings<'_> {
    /// `(symbol, fields)`.
    type Item = (usize, u8);
    fn next(&mut self) -> Option<(usize, u8)> {
        if self.k >= self.end {
            return None;
        }
        let v = rd_u32(self.d.b(), self.d.l.post + 4 * self.k);
        self.k += 1;
        Some(((v >> 4) as usize, (v & 0xF) as u8))
    }
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// A file's text by line, held as one string: a line per `String` cost corpus-1m's preload
/// about 30 MB more than the text itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLines {
    /// The lines joined by `\n`.
    text: String,
    /// Line `i` (0-based) ends at byte `ends[i]` of `text`; the next starts one byte later.
    ends: Vec<u32>,
}

impl FileLines {
    /// Number of lines.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Line `i`, 0-based (line `n` of the file is `get(n - 1)`).
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        Some(&self.text[self.start(i)..end])
    }

    /// Every line, joined by `\n`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Text of lines `start..=end` (1-based), joined by `\n`; clamped to the file.
    pub fn slice(&self, start: u32, end: u32) -> &str {
        let s = (start.max(1) as usize - 1).min(self.len());
        let e = (end as usize).min(self.len()).max(s);
        if s == e {
            return "";
        }
        &self.text[self.start(s)..self.ends[e - 1] as usize]
    }

    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        }
    }

    /// `n` lines joined by `\n` as [`FileLines::text`] gives them (`None`: not `n` lines).
    pub(crate) fn from_joined(text: String, n: usize) -> Option<FileLines> {
        if n == 0 {
            return text.is_empty().then(FileLines::default);
        }
        let mut ends = Vec::with_capacity(n);
        ends.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i as u32));
        ends.push(text.len() as u32);
        (ends.len() == n).then_some(FileLines { text, ends })
    }

    pub(crate) fn from_lines<'t>(lines: impl ExactSizeIterator<Item = &'t str>) -> FileLines {
        let mut out = FileLines {
            text: String::new(),
            ends: Vec::with_capacity(lines.len()),
        };
        for (i, line) in lines.enumerate() {
            if i > 0 {
                out.text.push('\n');
            }
            out.text.push_str(line);
            out.ends.push(out.text.len() as u32);
        }
        out.text.shrink_to_fit();
        out
    }
}

/// Lines of a file from its stored chunks (1-based: line `n` is `get(n - 1)`), `total` at least.
pub(crate) fn lines_from_chunks(
    chunks: &[indexer::store::catalog::ChunkRow],
    total: usize,
) -> FileLines {
    let mut lines: Vec<&str> = Vec::new();
    for c in chunks {
        let start = c.chunk.start_line.max(1) as usize;
        for (k, text) in c.chunk.text.lines().enumerate() {
            let n = start + k;
            if lines.len() < n {
                lines.resize(n, "");
            }
            lines[n - 1] = text;
        }
    }
    if lines.len() < total {
        lines.resize(total, "");
    }
    FileLines::from_lines(lines.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_lines_give_each_line_and_any_range_as_written() {
        let f = FileLines::from_lines(["a", "", "  b c", "d"].into_iter());
        assert_eq!(f.len(), 4);
        assert_eq!(
            (0..5).map(|i| f.get(i)).collect::<Vec<_>>(),
            [Some("a"), Some(""), Some("  b c"), Some("d"), None]
        );
        assert_eq!(f.text(), "a\n\n  b c\nd");
        assert_eq!(f.slice(2, 3), "\n  b c");
        assert_eq!(f.slice(0, 1), "a", "line 0 is read as line 1");
        assert_eq!(f.slice(3, 99), "  b c\nd", "clamped to the file");
        assert_eq!(f.slice(4, 2), "", "an empty range");
        assert_eq!(f.slice(9, 12), "");
        let empty = FileLines::from_lines(std::iter::empty::<&str>());
        assert!(empty.is_empty());
        assert_eq!(empty.slice(1, 3), "");
    }

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv64(b"a"), 0xaf63dc4c8601ec8c);
    }
}
