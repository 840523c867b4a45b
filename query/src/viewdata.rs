//! The tables a [`SnapshotView`](crate::view::SnapshotView) answers from, derived once per snapshot
//! and kept in one file under the index folder (`<index>/query-cache/view-<key>.bin`), read back
//! with `mmap`: a new process pays for the pages it touches, not for loading the snapshot.
//!
//! What the file holds, in fixed-width records over one string blob:
//! - **files**: path, module, provenance, line count, the range of its symbols;
//! - **symbols**: the skeleton every ranking and graph step needs without loading a symbol row —
//!   kind, name, parent, lines, parameter types, id, doc sentence, flags (has a body, writes state, reads
//!   settings, entry-point annotation, static) and the card's name length. Symbol `i` is the
//!   `i`-th of `IndexRead::all_symbols` (path, then line): ranks tie-break on that order;
//! - **names**: lower-cased simple name → symbols, and symbol id hash → symbol;
//! - **cards**: stem → symbols whose card has it (name, doc sentence, parameters, member names),
//!   with document frequencies (the card leg's postings and its idf);
//! - **chunks**: id → file and lines (what a full-text hit stands for, without reading it);
//! - **call sites** of every method and constructor body, read lexically with what resolving them
//!   needs from the body (declared type of a qualifier, types of simple arguments), and, per called
//!   name, the methods that hold such a call (the lexical graph's callers).
//!
//! Full symbol rows (signature, doc, annotations) and file text stay in the index and are read
//! per file when an answer needs them.
//!
//! **Key.** A file is valid for one snapshot content: the format version, the snapshot's file,
//! symbol and chunk counts and a hash of the full-text index's `meta.json` (it changes with every
//! commit that changes chunks, and a rebuilt index has new segment ids). A no-change index run
//! keeps the key. Other backends (Meilisearch) keep the files in a cache folder of their own,
//! keyed by the published snapshot (generation, time, commit). Files are written to a temporary name and renamed, so readers never see a
//! partial file; one built while the full-text index is mid-run (payload not `gen=N`) is kept in
//! memory only. An index folder that cannot be written just means building in memory each time.

use crate::QueryError;
use crate::graph::callsite;
use crate::terms;
use crate::view::{param_types, params_text, prose_stems};
use indexer::model::{Provenance, SymbolKind};
use indexer::store::IndexRead;
use indexer::store::catalog::FileRow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"CMVIEW\0\x01";
/// Bump when the layout or what is derived changes.
pub const FORMAT: u32 = 2;

/// Folder under the index folder holding the view files.
pub const CACHE_DIR: &str = "query-cache";

pub const FLAG_HAS_BODY: u8 = 1;
pub const FLAG_WRITES_STATE: u8 = 2;
pub const FLAG_READS_CONFIG: u8 = 4;
pub const FLAG_ENTRY: u8 = 8;
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
    n_callnames: usize,
    n_calllist: usize,
    files: usize,
    syms: usize,
    names: usize,
    namelist: usize,
    ids: usize,
    stems: usize,
    post: usize,
    siteidx: usize,
    sites: usize,
    callnames: usize,
    calllist: usize,
    n_chunks: usize,
    chunks: usize,
    strings: usize,
    strings_len: usize,
    end: usize,
}

const LAYOUT_FIELDS: usize = 23;

impl Layout {
    fn to_words(self) -> [u64; LAYOUT_FIELDS] {
        [
            self.n_files,
            self.n_syms,
            self.n_names,
            self.n_stems,
            self.n_post,
            self.n_callnames,
            self.n_calllist,
            self.files,
            self.syms,
            self.names,
            self.namelist,
            self.ids,
            self.stems,
            self.post,
            self.siteidx,
            self.sites,
            self.callnames,
            self.calllist,
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
            n_callnames: w[5],
            n_calllist: w[6],
            files: w[7],
            syms: w[8],
            names: w[9],
            namelist: w[10],
            ids: w[11],
            stems: w[12],
            post: w[13],
            siteidx: w[14],
            sites: w[15],
            callnames: w[16],
            calllist: w[17],
            n_chunks: w[18],
            chunks: w[19],
            strings: w[20],
            strings_len: w[21],
            end: w[22],
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

/// One call written in a method body, with what resolving it needs from that body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteFact {
    pub name: String,
    /// `this`, `super`, a type, a variable, or `()` for a call chain's last link.
    pub qualifier: Option<String>,
    pub constructor: bool,
    pub arity: usize,
    /// 1-based line in the file.
    pub line: u32,
    /// The declared type of a variable qualifier (local, parameter or field of the owning type).
    pub declared: Option<String>,
    /// The type of each argument, where a simple argument shows it (`new T(..)`, a literal, a
    /// declared local).
    pub arg_types: Vec<Option<String>>,
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
        _ => SymbolKind::Constant,
    }
}

fn prov_code(p: Provenance) -> u8 {
    match p {
        Provenance::Source => 0,
        Provenance::Test => 1,
        Provenance::Generated => 2,
        Provenance::Vendored => 3,
    }
}

fn prov_of(c: u8) -> Provenance {
    match c {
        1 => Provenance::Test,
        2 => Provenance::Generated,
        3 => Provenance::Vendored,
        _ => Provenance::Source,
    }
}

impl ViewData {
    fn b(&self) -> &[u8] {
        &self.bytes
    }

    fn str_at(&self, off: u32, len: u32) -> &str {
        let s = self.l.strings + off as usize;
        std::str::from_utf8(&self.b()[s..s + len as usize]).unwrap_or("")
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
            match self.file_path(mid).cmp(path) {
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
            let s = self.str_at(rd_u32(self.b(), o), rd_u32(self.b(), o + 4));
            match s.cmp(key) {
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

    /// Call sites of a callable's body.
    pub fn sites(&self, i: usize) -> Vec<SiteFact> {
        self.sites_where(i, None)
    }

    /// Call sites of a callable's body calling `name`.
    pub fn sites_named(&self, i: usize, name: &str) -> Vec<SiteFact> {
        self.sites_where(i, Some(name))
    }

    fn sites_where(&self, i: usize, only: Option<&str>) -> Vec<SiteFact> {
        let b = self.b();
        let s = self.l.sites + rd_u32(b, self.l.siteidx + 4 * i) as usize;
        let e = self.l.sites + rd_u32(b, self.l.siteidx + 4 * (i + 1)) as usize;
        let mut out = Vec::new();
        let mut o = s;
        let rd_str = |o: &mut usize| -> String {
            let n = rd_u16(b, *o) as usize;
            *o += 2;
            let t = String::from_utf8_lossy(&b[*o..*o + n]).into_owned();
            *o += n;
            t
        };
        let skip_str = |o: &mut usize| {
            let n = rd_u16(b, *o) as usize;
            *o += 2 + if n == u16::MAX as usize { 0 } else { n };
        };
        while o < e {
            let line = rd_u32(b, o);
            let arity = rd_u16(b, o + 4) as usize;
            let flags = b[o + 6];
            let nargs = b[o + 7] as usize;
            o += 8;
            if let Some(want) = only {
                let n = rd_u16(b, o) as usize;
                if &b[o + 2..o + 2 + n] != want.as_bytes() {
                    skip_str(&mut o);
                    if flags & 2 != 0 {
                        skip_str(&mut o);
                    }
                    if flags & 4 != 0 {
                        skip_str(&mut o);
                    }
                    for _ in 0..nargs {
                        skip_str(&mut o);
                    }
                    continue;
                }
            }
            let name = rd_str(&mut o);
            let qualifier = (flags & 2 != 0).then(|| rd_str(&mut o));
            let declared = (flags & 4 != 0).then(|| rd_str(&mut o));
            let mut arg_types = Vec::with_capacity(nargs);
            for _ in 0..nargs {
                if rd_u16(b, o) == u16::MAX {
                    o += 2;
                    arg_types.push(None);
                } else {
                    arg_types.push(Some(rd_str(&mut o)));
                }
            }
            out.push(SiteFact {
                name,
                qualifier,
                constructor: flags & 1 != 0,
                arity,
                line,
                declared,
                arg_types,
            });
        }
        out
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

    /// Callables that hold a call named `name` (case-sensitive) as the innermost method around it.
    pub fn calling(&self, name: &str) -> Vec<usize> {
        let Some(o) = self.dict_find(self.l.callnames, self.l.n_callnames, DICT_REC, name) else {
            return Vec::new();
        };
        let (start, len) = (
            rd_u32(self.b(), o + 8) as usize,
            rd_u32(self.b(), o + 12) as usize,
        );
        (start..start + len)
            .map(|k| rd_u32(self.b(), self.l.calllist + 4 * k) as usize)
            .collect()
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

/// The key of the snapshot `index` shows now; `persist` says whether a view built now may be
/// written (the full-text index is not mid-run).
pub struct Key {
    pub key: String,
    pub persist: bool,
}

/// The key of the snapshot readers see now. `dir` is the index folder (embedded backend).
pub fn current_key(index: &dyn IndexRead, dir: Option<&Path>) -> Result<Key, QueryError> {
    let snap = index.last_snapshot()?;
    let (files, symbols, chunks) = snap
        .as_ref()
        .map(|s| (s.files, s.symbols, s.chunks))
        .unwrap_or_default();
    let counts = format!("format={FORMAT};files={files};symbols={symbols};chunks={chunks}");
    Ok(
        match dir.map(|d| std::fs::read(d.join("text").join("meta.json"))) {
            // The embedded index: its full-text commit says what content it holds.
            Some(Ok(meta)) => Key {
                key: format!("{counts};text={:016x}", fnv64(&meta)),
                persist: meta.windows(5).any(|w| w == b"\"gen="),
            },
            // Another backend (a cache folder of its own): the published snapshot.
            _ => {
                let snap = snap.as_ref();
                Key {
                    key: format!(
                        "{counts};gen={};at={};commit={}",
                        snap.map(|s| s.generation).unwrap_or(0),
                        snap.map(|s| s.created_at).unwrap_or(0),
                        snap.and_then(|s| s.commit.as_deref()).unwrap_or("")
                    ),
                    persist: dir.is_some() && snap.is_some(),
                }
            }
        },
    )
}

fn cache_file(dir: &Path, key: &str) -> PathBuf {
    dir.join(CACHE_DIR)
        .join(format!("view-{:016x}.bin", fnv64(key.as_bytes())))
}

/// The view tables for the snapshot `index` shows now: read from `dir`'s cache when it holds them,
/// else built (and written there when possible).
pub fn open(index: &dyn IndexRead, dir: Option<&Path>) -> Result<ViewData, QueryError> {
    let key = current_key(index, dir)?;
    if let Some(dir) = dir {
        let path = cache_file(dir, &key.key);
        if let Some(d) = map_file(&path)
            && d.key == key.key
        {
            return Ok(d);
        }
    }
    let started = std::time::Instant::now();
    let bytes = build(index, &key.key)?;
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        bytes = bytes.len(),
        "built the snapshot view tables"
    );
    if let (Some(dir), true) = (dir, key.persist) {
        match write_atomically(&cache_file(dir, &key.key), &bytes) {
            Ok(()) => {
                if let Some(d) = map_file(&cache_file(dir, &key.key))
                    && d.key == key.key
                {
                    return Ok(d);
                }
            }
            Err(e) => tracing::debug!(error = %e, "view tables not cached"),
        }
    }
    ViewData::parse(Bytes::Owned(bytes))
        .ok_or_else(|| QueryError::Io(std::io::Error::other("built view tables do not parse")))
}

/// Builds and writes the view tables of the current snapshot if `dir` does not hold them yet
/// (e.g. right after an index run, so the first question does not pay for it).
pub fn prepare(index: &dyn IndexRead, dir: &Path) -> Result<(), QueryError> {
    open(index, Some(dir)).map(|_| ())
}

fn map_file(path: &Path) -> Option<ViewData> {
    let f = std::fs::File::open(path).ok()?;
    // Safety: view files are never modified in place (written under a temporary name, then
    // renamed), so the mapping cannot change under us; a replaced or deleted file stays mapped.
    let m = unsafe { memmap2::Mmap::map(&f) }.ok()?;
    ViewData::parse(Bytes::Map(m))
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::write(&tmp, bytes)?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // Older snapshots' files: nobody opens them again (readers that mapped one keep it).
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let old_tmp = name.starts_with(".tmp-")
                && e.metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 600);
            if p != path && ((name.starts_with("view-") && name.ends_with(".bin")) || old_tmp) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
    Ok(())
}

/// Little-endian writer with a deduplicating string blob.
struct Out {
    buf: Vec<u8>,
}

impl Out {
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn pad8(&mut self) {
        while !self.buf.len().is_multiple_of(8) {
            self.buf.push(0);
        }
    }
    fn short_str(&mut self, s: &str) {
        let s = clip_bytes(s, u16::MAX as usize - 1);
        self.u16(s.len() as u16);
        self.buf.extend_from_slice(s.as_bytes());
    }
}

#[derive(Default)]
struct Strings {
    blob: Vec<u8>,
    seen: HashMap<String, u32>,
}

impl Strings {
    fn add(&mut self, s: &str) -> (u32, u32) {
        if let Some(&o) = self.seen.get(s) {
            return (o, s.len() as u32);
        }
        let o = self.blob.len() as u32;
        self.blob.extend_from_slice(s.as_bytes());
        self.seen.insert(s.to_string(), o);
        (o, s.len() as u32)
    }
}

/// `s` cut to at most `max` bytes on a character boundary.
fn clip_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut e = max;
    while !s.is_char_boundary(e) {
        e -= 1;
    }
    &s[..e]
}

/// The innermost symbol of `syms` (one file's, in order) covering `line` whose kind passes `keep`.
pub(crate) fn innermost(
    syms: &[(SymbolKind, u32, u32)],
    line: u32,
    keep: impl Fn(SymbolKind) -> bool,
) -> Option<usize> {
    syms.iter()
        .enumerate()
        .filter(|(_, (k, s, e))| *s <= line && line <= *e && keep(*k))
        .min_by_key(|(_, (_, s, e))| (e - s, std::cmp::Reverse(*s)))
        .map(|(i, _)| i)
}

/// Lines of a file from its stored chunks (1-based: line `n` is `lines[n-1]`), `total` at least.
pub(crate) fn lines_from_chunks(
    chunks: &[indexer::store::catalog::ChunkRow],
    total: usize,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for c in chunks {
        let start = c.chunk.start_line.max(1) as usize;
        for (k, text) in c.chunk.text.lines().enumerate() {
            let n = start + k;
            if lines.len() < n {
                lines.resize(n, String::new());
            }
            lines[n - 1] = text.to_string();
        }
    }
    if lines.len() < total {
        lines.resize(total, String::new());
    }
    lines
}

/// Text of lines `start..=end` of `lines`.
pub(crate) fn slice_lines(lines: &[String], start: u32, end: u32) -> String {
    let s = (start.max(1) as usize - 1).min(lines.len());
    let e = (end as usize).min(lines.len()).max(s);
    lines[s..e].join("\n")
}

/// Builds the tables of the snapshot `index` shows now.
pub fn build(index: &dyn IndexRead, key: &str) -> Result<Vec<u8>, QueryError> {
    let file_rows: HashMap<String, FileRow> = index
        .current_files()?
        .into_iter()
        .map(|(p, f)| (p.as_str().to_string(), f))
        .collect();
    let mut symbols = index.all_symbols()?;
    // Already in (path, line) order from the embedded index; made sure for any backend (stable).
    symbols.sort_by(|a, b| a.path.as_str().cmp(b.path.as_str()));
    let mut paths: Vec<String> = file_rows.keys().cloned().collect();
    for s in &symbols {
        if !file_rows.contains_key(s.path.as_str()) {
            paths.push(s.path.as_str().to_string());
        }
    }
    paths.sort();
    paths.dedup();
    let file_idx: HashMap<&str, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let n = symbols.len();
    let sym_file: Vec<usize> = symbols.iter().map(|s| file_idx[s.path.as_str()]).collect();
    // Symbols of a file are contiguous (all_symbols is ordered by path, then line).
    let mut file_range = vec![(0usize, 0usize); paths.len()];
    {
        let mut i = 0;
        while i < n {
            let f = sym_file[i];
            let mut j = i;
            while j < n && sym_file[j] == f {
                j += 1;
            }
            file_range[f] = (i, j);
            i = j;
        }
        // Files without symbols get an empty range at the right place.
        let mut next = 0;
        for r in file_range.iter_mut() {
            if r.1 == 0 && r.0 == 0 {
                *r = (next, next);
            }
            next = r.1;
        }
    }
    let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(n);
    for (i, s) in symbols.iter().enumerate() {
        by_id.insert(s.symbol.id.0.as_str(), i);
    }
    let parent: Vec<Option<usize>> = symbols
        .iter()
        .map(|s| {
            s.symbol
                .parent
                .as_ref()
                .and_then(|p| by_id.get(p.0.as_str()).copied())
        })
        .collect();
    let owner_type = |i: usize| -> Option<usize> {
        let mut cur = parent[i];
        let mut hops = 0;
        while let Some(c) = cur {
            if symbols[c].symbol.kind.is_type() {
                return Some(c);
            }
            cur = parent[c];
            hops += 1;
            if hops > 64 {
                break;
            }
        }
        None
    };

    // Chunk spans, and the text of the files that hold callables.
    let mut text: HashMap<usize, Vec<String>> = HashMap::new();
    let mut chunk_spans: Vec<(u64, String, u32, u32, u32)> = Vec::new();
    for (f, path) in paths.iter().enumerate() {
        let chunks = index.chunks_of(path)?;
        for c in &chunks {
            chunk_spans.push((
                fnv64(c.id.as_bytes()),
                c.id.clone(),
                f as u32,
                c.chunk.start_line,
                c.chunk.end_line,
            ));
        }
        let (a, b) = file_range[f];
        if (a..b).any(|i| symbols[i].symbol.kind.is_callable()) {
            let total = file_rows.get(path).map(|r| r.lines as usize).unwrap_or(0);
            text.insert(f, lines_from_chunks(&chunks, total));
        }
    }
    chunk_spans.sort_unstable();

    // Cards.
    let mut stem_ids: HashMap<String, u32> = HashMap::new();
    let mut stem_names: Vec<String> = Vec::new();
    let mut intern = |s: &str, stem_ids: &mut HashMap<String, u32>| -> u32 {
        if let Some(&k) = stem_ids.get(s) {
            return k;
        }
        let k = stem_names.len() as u32;
        stem_names.push(s.to_string());
        stem_ids.insert(s.to_string(), k);
        k
    };
    let mut post: Vec<(u32, u32, u8)> = Vec::new(); // (stem, symbol, fields)
    let mut name_len: Vec<usize> = vec![0; n];
    let mut name_stems: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, s) in symbols.iter().enumerate() {
        let sym = &s.symbol;
        let name = terms::identifier_stems(&sym.name);
        name_len[i] = name.len();
        let doc = sym.doc.as_deref().map(prose_stems).unwrap_or_default();
        let params = if sym.kind.is_type() {
            prose_stems(&sym.signature)
        } else {
            params_text(&sym.signature)
                .map(prose_stems)
                .unwrap_or_default()
        };
        let mut fields: HashMap<u32, u8> = HashMap::new();
        for w in &name {
            let k = intern(w, &mut stem_ids);
            *fields.entry(k).or_default() |= CARD_NAME;
            name_stems[i].push(k);
        }
        for w in &doc {
            *fields.entry(intern(w, &mut stem_ids)).or_default() |= CARD_DOC;
        }
        for w in &params {
            *fields.entry(intern(w, &mut stem_ids)).or_default() |= CARD_PARAMS;
        }
        for (k, f) in fields {
            post.push((k, i as u32, f));
        }
    }
    for i in 0..n {
        if let Some(p) = parent[i]
            && symbols[p].symbol.kind.is_type()
            && !symbols[i].symbol.kind.is_type()
        {
            for &k in &name_stems[i] {
                post.push((k, p as u32, CARD_MEMBER));
            }
        }
    }
    post.sort_unstable();
    let mut merged: Vec<(u32, u32, u8)> = Vec::with_capacity(post.len());
    for (k, i, f) in post {
        match merged.last_mut() {
            Some(last) if last.0 == k && last.1 == i => last.2 |= f,
            _ => merged.push((k, i, f)),
        }
    }

    // Flags, parameter types, call sites.
    let mut flags = vec![0u8; n];
    let mut params_of: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut sites: Vec<Vec<SiteFact>> = vec![Vec::new(); n];
    let mut calling: HashMap<String, Vec<u32>> = HashMap::new();
    for f in 0..paths.len() {
        let (a, b) = file_range[f];
        let spans: Vec<(SymbolKind, u32, u32)> = (a..b)
            .map(|i| {
                let s = &symbols[i].symbol;
                (s.kind, s.start_line, s.end_line)
            })
            .collect();
        for i in a..b {
            let sym = &symbols[i].symbol;
            if crate::retrieve::entry_annotated(sym) {
                flags[i] |= FLAG_ENTRY;
            }
            if sym.is_static {
                flags[i] |= FLAG_STATIC;
            }
            if !sym.kind.is_callable() {
                continue;
            }
            params_of[i] = param_types(&sym.signature);
            let Some(lines) = text.get(&f) else { continue };
            let body = slice_lines(lines, sym.start_line, sym.end_line);
            let masked = callsite::mask_comments_and_strings(&body);
            if crate::retrieve::has_body_text(&masked) {
                flags[i] |= FLAG_HAS_BODY;
            }
            if crate::retrieve::writes_state(&body) {
                flags[i] |= FLAG_WRITES_STATE;
            }
            if crate::retrieve::reads_config(&body) {
                flags[i] |= FLAG_READS_CONFIG;
            }
            let found = callsite::call_sites(&body, sym.start_line, Some(&sym.name));
            let locals = callsite::local_types(&body);
            let mut facts = Vec::with_capacity(found.len());
            for site in found {
                let declared = match site.qualifier.as_deref() {
                    Some(q) if !crate::graph::lexical::qualifier_is_direct(q, site.constructor) => {
                        locals
                            .iter()
                            .find(|(nm, _)| nm == q)
                            .map(|(_, t)| t.clone())
                            .or_else(|| {
                                let owner = owner_type(i)?;
                                let (oa, ob) = file_range[sym_file[owner]];
                                (oa..ob).find_map(|m| {
                                    let ms = &symbols[m].symbol;
                                    (parent[m] == Some(owner)
                                        && ms.kind == SymbolKind::Field
                                        && ms.name == q)
                                        .then(|| {
                                            crate::graph::lexical::field_decl_type(&ms.signature, q)
                                        })
                                })?
                            })
                    }
                    _ => None,
                };
                let arg_types = site
                    .args
                    .iter()
                    .take(255)
                    .map(|arg| crate::graph::lexical::arg_type(arg, &locals))
                    .collect();
                // The callers index: the innermost callable around the call holds it.
                if innermost(&spans, site.line, |k| k.is_callable()) == Some(i - a) {
                    let l = calling.entry(site.name.clone()).or_default();
                    if l.last() != Some(&(i as u32)) {
                        l.push(i as u32);
                    }
                }
                facts.push(SiteFact {
                    name: site.name,
                    qualifier: site.qualifier,
                    constructor: site.constructor,
                    arity: site.arity,
                    line: site.line,
                    declared,
                    arg_types,
                });
            }
            sites[i] = facts;
        }
    }

    // Serialise.
    let mut strings = Strings::default();
    let mut o = Out { buf: Vec::new() };
    o.buf.extend_from_slice(MAGIC);
    o.u32(FORMAT);
    o.u32(key.len() as u32);
    o.buf.extend_from_slice(key.as_bytes());
    o.pad8();
    let layout_at = o.buf.len();
    for _ in 0..LAYOUT_FIELDS {
        o.u64(0);
    }
    let mut l = Layout {
        n_files: paths.len(),
        n_syms: n,
        ..Layout::default()
    };

    l.files = o.buf.len();
    for (f, path) in paths.iter().enumerate() {
        let row = file_rows.get(path);
        let (po, pl) = strings.add(path);
        let (mo, ml) = strings.add(row.map(|r| r.module.as_str()).unwrap_or(""));
        o.u32(po);
        o.u32(pl);
        o.u32(mo);
        o.u32(ml);
        o.u32(row.map(|r| r.lines).unwrap_or(0));
        o.u8(prov_code(row.map(|r| r.provenance).unwrap_or_default()));
        o.u8(0);
        o.u16(0);
        o.u32(file_range[f].0 as u32);
        o.u32(file_range[f].1 as u32);
    }
    o.pad8();

    l.syms = o.buf.len();
    for (i, s) in symbols.iter().enumerate() {
        let sym = &s.symbol;
        let name = clip_bytes(&sym.name, u16::MAX as usize - 1);
        let (no, nl) = strings.add(name);
        let joined = params_of[i].join(",");
        let joined = clip_bytes(&joined, u16::MAX as usize - 1);
        let (pao, pal) = strings.add(joined);
        let (io, il) = strings.add(&sym.id.0);
        let (doc_off, doc_len) = match &sym.doc {
            Some(d) => strings.add(clip_bytes(d, NONE as usize - 1)),
            None => (0, NONE),
        };
        o.u8(kind_code(sym.kind));
        o.u8(flags[i]);
        o.u16(name_len[i].min(u16::MAX as usize) as u16);
        o.u32(sym_file[i] as u32);
        o.u32(parent[i].map(|p| p as u32).unwrap_or(NONE));
        o.u32(sym.start_line);
        o.u32(sym.end_line);
        o.u32(no);
        o.u16(nl as u16);
        o.u16(pal as u16);
        o.u32(pao);
        o.u32(io);
        o.u32(il);
        o.u16(params_of[i].len().min(u16::MAX as usize) as u16);
        o.u16(0);
        o.u32(doc_off);
        o.u32(doc_len);
        o.u32(0);
    }
    o.pad8();

    // Lower-cased names.
    let mut lower: Vec<(String, u32)> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (s.symbol.name.to_lowercase(), i as u32))
        .collect();
    lower.sort();
    let mut dict: Vec<(String, u32, u32)> = Vec::new();
    for (k, (name, _)) in lower.iter().enumerate() {
        match dict.last_mut() {
            Some(last) if &last.0 == name => last.2 += 1,
            _ => dict.push((name.clone(), k as u32, 1)),
        }
    }
    l.n_names = dict.len();
    l.names = o.buf.len();
    for (name, start, len) in &dict {
        let (so, sl) = strings.add(name);
        o.u32(so);
        o.u32(sl);
        o.u32(*start);
        o.u32(*len);
    }
    l.namelist = o.buf.len();
    for (_, i) in &lower {
        o.u32(*i);
    }
    o.pad8();

    l.ids = o.buf.len();
    let mut ids: Vec<(u64, u32)> = symbols
        .iter()
        .enumerate()
        .map(|(i, s)| (fnv64(s.symbol.id.0.as_bytes()), i as u32))
        .collect();
    ids.sort_unstable();
    for (h, i) in ids {
        o.u64(h);
        o.u32(i);
        o.u32(0);
    }

    // Card stems, sorted by text.
    let mut order: Vec<u32> = (0..stem_names.len() as u32).collect();
    order.sort_by(|a, b| stem_names[*a as usize].cmp(&stem_names[*b as usize]));
    let mut ranges: Vec<(usize, usize, u32)> = vec![(0, 0, 0); stem_names.len()];
    {
        let mut k = 0;
        while k < merged.len() {
            let s = merged[k].0;
            let mut j = k;
            let mut df = 0;
            while j < merged.len() && merged[j].0 == s {
                if merged[j].2 & (CARD_NAME | CARD_DOC | CARD_PARAMS) != 0 {
                    df += 1;
                }
                j += 1;
            }
            ranges[s as usize] = (k, j - k, df);
            k = j;
        }
    }
    l.n_stems = stem_names.len();
    l.stems = o.buf.len();
    for &s in &order {
        let (so, sl) = strings.add(&stem_names[s as usize]);
        let (start, len, df) = ranges[s as usize];
        o.u32(so);
        o.u32(sl);
        o.u32(start as u32);
        o.u32(len as u32);
        o.u32(df);
    }
    o.pad8();
    l.n_post = merged.len();
    l.post = o.buf.len();
    for (_, i, f) in &merged {
        o.u32((i << 4) | *f as u32);
    }
    o.pad8();

    // Call sites.
    let mut site_bytes = Out { buf: Vec::new() };
    let mut site_idx: Vec<u32> = Vec::with_capacity(n + 1);
    for facts in &sites {
        site_idx.push(site_bytes.buf.len() as u32);
        for s in facts {
            site_bytes.u32(s.line);
            site_bytes.u16(s.arity.min(u16::MAX as usize) as u16);
            let mut fl = 0u8;
            if s.constructor {
                fl |= 1;
            }
            if s.qualifier.is_some() {
                fl |= 2;
            }
            if s.declared.is_some() {
                fl |= 4;
            }
            site_bytes.u8(fl);
            site_bytes.u8(s.arg_types.len() as u8);
            site_bytes.short_str(&s.name);
            if let Some(q) = &s.qualifier {
                site_bytes.short_str(q);
            }
            if let Some(d) = &s.declared {
                site_bytes.short_str(d);
            }
            for a in &s.arg_types {
                match a {
                    Some(t) => site_bytes.short_str(t),
                    None => site_bytes.u16(u16::MAX),
                }
            }
        }
    }
    site_idx.push(site_bytes.buf.len() as u32);
    l.siteidx = o.buf.len();
    for x in &site_idx {
        o.u32(*x);
    }
    o.pad8();
    l.sites = o.buf.len();
    o.buf.extend_from_slice(&site_bytes.buf);
    o.pad8();

    let mut names: Vec<(&String, &Vec<u32>)> = calling.iter().collect();
    names.sort();
    l.n_callnames = names.len();
    l.callnames = o.buf.len();
    let mut start = 0u32;
    for (name, list) in &names {
        let (so, sl) = strings.add(name);
        o.u32(so);
        o.u32(sl);
        o.u32(start);
        o.u32(list.len() as u32);
        start += list.len() as u32;
    }
    l.n_calllist = start as usize;
    l.calllist = o.buf.len();
    for (_, list) in &names {
        for i in *list {
            o.u32(*i);
        }
    }
    o.pad8();

    l.n_chunks = chunk_spans.len();
    l.chunks = o.buf.len();
    for (h, id, f, s, e) in &chunk_spans {
        let (io, il) = strings.add(id);
        o.u64(*h);
        o.u32(io);
        o.u32(il);
        o.u32(*f);
        o.u32(*s);
        o.u32(*e);
        o.u32(0);
    }

    l.strings = o.buf.len();
    l.strings_len = strings.blob.len();
    o.buf.extend_from_slice(&strings.blob);
    l.end = o.buf.len();
    for (k, w) in l.to_words().iter().enumerate() {
        o.buf[layout_at + 8 * k..layout_at + 8 * k + 8].copy_from_slice(&w.to_le_bytes());
    }
    Ok(o.buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn innermost_prefers_the_smallest_span() {
        let syms = [
            (SymbolKind::Class, 1, 50),
            (SymbolKind::Method, 2, 40),
            (SymbolKind::Method, 10, 20),
        ];
        assert_eq!(innermost(&syms, 15, |k| k.is_callable()), Some(2));
        assert_eq!(innermost(&syms, 30, |k| k.is_callable()), Some(1));
        assert_eq!(innermost(&syms, 45, |k| k.is_callable()), None);
        assert_eq!(innermost(&syms, 45, |_| true), Some(0));
    }

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv64(b"a"), 0xaf63dc4c8601ec8c);
    }
}
