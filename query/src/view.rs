//! One snapshot as the ask pipeline sees it: symbols with their files, lookups by name, path and
//! id, symbol cards, and file text read back from the stored chunks (so what we quote
//! is what was indexed, not what is on disk now).
//!
//! The lookups are tables derived once per snapshot and mapped from a file under the index folder
//! ([`crate::viewdata`]); full symbol rows and text are read from the index per file, on demand.
//! A view is reused across questions (batch runs, a bot).

use crate::QueryError;
use crate::bounded::Bounded;
use crate::packed::Packed;
use crate::signature::short_qualified;
use crate::terms;
use crate::viewdata::{self, FileLines, ViewData};
use indexer::model::{Literal, Provenance, Symbol, SymbolId, SymbolKind};
use indexer::store::IndexRead;
use indexer::store::catalog::SymbolRow;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Index of a symbol in [`SnapshotView::symbols`].
pub type SymIdx = usize;

/// One symbol of the snapshot and the file it is in.
#[derive(Debug, Clone)]
pub struct Sym {
    pub path: String,
    pub symbol: Symbol,
}

impl Sym {
    /// `Outer.Inner.method` without the package: how people name a member.
    pub fn short_name(&self) -> String {
        short_qualified(&self.symbol.qualified_name, &self.path)
    }
}

/// One snapshot as the ask pipeline reads it: the derived tables of [`ViewData`] (a file under the
/// index folder, mapped; see [`crate::viewdata`]) for names, kinds, lines, parents and cards,
/// and the index itself, per file and on demand, for full symbol rows and text. Opening one
/// costs a key check and an `mmap`, not a load of the snapshot.
///
/// The tables and what was read on demand live in a [`SharedView`], which readers of the same
/// snapshot on other threads can share ([`SnapshotView::over`]): a long-running service holds one
/// per snapshot, not one per worker thread.
///
/// Symbol `i` ([`SymIdx`]) is the `i`-th symbol of the snapshot in (path, line) order, whatever
/// has been loaded, so ties break the same way in every process.
pub struct SnapshotView<'a> {
    pub index: &'a dyn IndexRead,
    shared: Arc<SharedView>,
}

/// The reader-independent part of a [`SnapshotView`]: the snapshot's tables and the symbol rows
/// and file text read so far. `Send + Sync`; immutable apart from those caches, which only ever
/// hold what the snapshot holds (any reader of the snapshot fills them with the same rows), and
/// are bounded in size, the least recently read going first.
pub struct SharedView {
    data: ViewData,
    /// Full symbol rows, read when first needed, at most [`Limits::symbols`].
    syms: Mutex<SymCache>,
    lines: Mutex<LineCache>,
    /// A file read back did not match the tables: the index changed under this view.
    stale: AtomicBool,
    /// LLM one-liners for code without doc comments (`codemap summarize`), when there are any.
    summaries: Option<Mutex<crate::summarize::SummaryStore>>,
    /// Each callable's stems, computed by [`SnapshotView::preload`].
    bodies: OnceLock<BodyStems>,
    /// Every file's rows and text, compressed, once [`SnapshotView::preload`] has read them.
    packed: OnceLock<Packed>,
    limits: Limits,
}

/// The stems of each callable's text and then its doc comment, in order (what a body score
/// counts), as ids into one dictionary: stemmed once per snapshot instead of once per question.
#[derive(Default)]
struct BodyStems {
    ids: rustc_hash::FxHashMap<Box<str>, u32>,
    /// Symbol `i`'s stems are `stems[starts[i]..starts[i + 1]]` (none for other symbols).
    starts: Vec<u32>,
    stems: Vec<u32>,
}

impl BodyStems {
    fn push(&mut self, stem: &str) {
        let next = self.ids.len() as u32;
        let id = match self.ids.get(stem) {
            Some(&id) => id,
            None => {
                self.ids.insert(stem.into(), next);
                next
            }
        };
        self.stems.push(id);
    }
}

impl SharedView {
    /// The tables of the snapshot `index` shows now, from `index_dir`'s cache when given.
    pub fn open(index: &dyn IndexRead, index_dir: Option<&Path>) -> Result<SharedView, QueryError> {
        SharedView::open_bounded(index, index_dir, Limits::default())
    }

    /// [`SharedView::open`] keeping at most what `limits` say of what it reads back.
    pub fn open_bounded(
        index: &dyn IndexRead,
        index_dir: Option<&Path>,
        limits: Limits,
    ) -> Result<SharedView, QueryError> {
        let data = viewdata::open(index, index_dir)?;
        Ok(SharedView {
            data,
            syms: Mutex::new(SymCache::new(limits.symbols)),
            lines: Mutex::new(LineCache::new(limits.lines)),
            stale: AtomicBool::new(false),
            summaries: index_dir
                .and_then(crate::summarize::SummaryStore::open_read)
                .map(Mutex::new),
            bodies: OnceLock::new(),
            packed: OnceLock::new(),
            limits,
        })
    }

    /// Key of the snapshot content these tables were built from ([`viewdata::current_key`]).
    pub fn key(&self) -> &str {
        &self.data.key
    }

    /// Whether something read from the index no longer matched the tables.
    pub fn is_stale(&self) -> bool {
        self.stale.load(Ordering::Relaxed)
    }
}

/// One repository's current [`SharedView`], shared by the readers (threads) answering from it:
/// built by the first reader that needs a snapshot's tables while the others wait for it, swapped
/// when the index moves on. Readers keep their own connections; only the tables are shared.
pub struct SharedViews {
    current: Mutex<Option<Arc<SharedView>>>,
    /// What each snapshot's view keeps ([`SharedView::open_bounded`]).
    limits: Limits,
}

impl Default for SharedViews {
    fn default() -> SharedViews {
        SharedViews::bounded(Limits::default())
    }
}

impl SharedViews {
    pub fn new() -> SharedViews {
        SharedViews::default()
    }

    /// Views keeping at most what `limits` say each.
    pub fn bounded(limits: Limits) -> SharedViews {
        SharedViews {
            current: Mutex::new(None),
            limits,
        }
    }

    /// The shared tables for snapshot `key` (what [`viewdata::current_key`] says `index` shows),
    /// opened through `index` if nobody has them yet.
    pub fn get(
        &self,
        index: &dyn IndexRead,
        index_dir: Option<&Path>,
        key: &str,
    ) -> Result<Arc<SharedView>, QueryError> {
        // Held while opening: a second reader waits for these tables instead of building a copy.
        let mut current = self
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(v) = current.as_ref()
            && v.key() == key
            && !v.is_stale()
        {
            return Ok(v.clone());
        }
        let fresh = Arc::new(SharedView::open_bounded(index, index_dir, self.limits)?);
        *current = Some(fresh.clone());
        Ok(fresh)
    }
}

/// Lines of text a view keeps at most by default (about 80 bytes each, held as lines), the
/// least recently read files going first (a bot answers for days). A snapshot up to this size can
/// be held whole ([`SnapshotView::preload`]).
pub const MAX_CACHED_LINES: usize = 4_000_000;

/// Symbol rows a view keeps at most by default, the least recently read going first:
/// room for a snapshot of [`MAX_CACHED_LINES`] held whole at three times the density of the
/// Java measured (one symbol per 12 lines on openjdk-17 and corpus-1m, bench/RESULTS.md).
pub const MAX_CACHED_SYMBOLS: usize = 1_000_000;

/// Symbol rows a preloaded view keeps decoded, the rows read last: the rows an answer reads
/// again (its candidates, their callers' files) without decoding them every time. The others
/// are packed ([`crate::packed`]).
pub const HOT_SYMBOLS: usize = 16_384;

/// Lines of text a preloaded view keeps decoded, the files read last (see [`HOT_SYMBOLS`]).
pub const HOT_LINES: usize = 200_000;

/// What a view keeps of what it reads back from the index, the least recently read going
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Lines of file text.
    pub lines: usize,
    /// Full symbol rows (each with its strings: about 1 KB).
    pub symbols: usize,
    /// Once preloaded, lines kept decoded beside the packed text of every file.
    pub hot_lines: usize,
    /// Once preloaded, symbol rows kept decoded beside the packed rows of every file.
    pub hot_symbols: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            lines: MAX_CACHED_LINES,
            symbols: MAX_CACHED_SYMBOLS,
            hot_lines: HOT_LINES,
            hot_symbols: HOT_SYMBOLS,
        }
    }
}

/// The text of the files read so far, by file, weighed in lines.
type LineCache = Bounded<usize, Arc<FileLines>>;

/// The full symbol rows read so far, by symbol, each weighing one.
type SymCache = Bounded<SymIdx, Arc<Sym>>;

/// One symbol's full row ([`SnapshotView::sym`]): it stays readable after the view's cache lets
/// it go.
#[derive(Clone)]
pub struct SymRef(Arc<Sym>);

impl std::ops::Deref for SymRef {
    type Target = Sym;
    fn deref(&self) -> &Sym {
        &self.0
    }
}

/// Files per batched read while preloading.
const PRELOAD_BATCH: usize = 256;

impl<'a> SnapshotView<'a> {
    /// A view built in memory (no index folder to keep its tables in).
    pub fn new(index: &'a dyn IndexRead) -> Result<SnapshotView<'a>, QueryError> {
        SnapshotView::open(index, None)
    }

    /// A view whose tables are kept in (and read from) `index_dir`'s cache when given.
    pub fn open(
        index: &'a dyn IndexRead,
        index_dir: Option<&Path>,
    ) -> Result<SnapshotView<'a>, QueryError> {
        Ok(SnapshotView::over(
            index,
            Arc::new(SharedView::open(index, index_dir)?),
        ))
    }

    /// A view over tables opened elsewhere (by another reader of the same snapshot).
    pub fn over(index: &'a dyn IndexRead, shared: Arc<SharedView>) -> SnapshotView<'a> {
        SnapshotView { index, shared }
    }

    /// The reader-independent part, to share with readers on other threads.
    pub fn shared(&self) -> &Arc<SharedView> {
        &self.shared
    }

    /// The cached LLM summary under `key` ([`crate::summarize::symbol_key`], `file_key`).
    pub fn llm_summary(&self, key: &str) -> Option<String> {
        self.shared.summaries.as_ref()?.lock().ok()?.get(key)
    }

    /// Content hash of a file, for its summary key (`None` when there are no summaries, so
    /// answers without them make no extra read).
    pub fn file_hash(&self, path: &str) -> Option<String> {
        self.shared.summaries.as_ref()?;
        Some(self.index.file(path).ok()??.hash)
    }

    /// Key of the snapshot content these tables were built from ([`viewdata::current_key`]).
    pub fn key(&self) -> &str {
        self.shared.key()
    }

    /// Whether something read from the index no longer matched the tables.
    pub fn is_stale(&self) -> bool {
        self.shared.is_stale()
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.shared.data.sym_count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The full row of a symbol: decoded from the preload's packed rows, or read from the
    /// index with the rest of its file's rows, when not kept.
    pub fn sym(&self, i: SymIdx) -> SymRef {
        if let Some(row) = self.syms().get(&i).cloned() {
            return SymRef(row);
        }
        // Read outside the lock: two readers may read the same row once each, none waits.
        let f = self.shared.data.file_of(i);
        let at = i - self.shared.data.file_syms(f).start;
        let packed = self.shared.packed.get().and_then(|p| p.sym(f, at));
        let row = match packed {
            Some(symbol) => {
                let path = self.shared.data.file_path(f).to_string();
                let row = Arc::new(Sym { path, symbol });
                self.syms().insert(i, row.clone(), 1);
                row
            }
            None => {
                let rows = self.load_file_syms(f);
                let row = rows[at].clone();
                self.keep_syms(f, rows);
                row
            }
        };
        SymRef(row)
    }

    fn syms(&self) -> std::sync::MutexGuard<'_, SymCache> {
        // A panic while holding the lock left a map that is still valid.
        self.shared
            .syms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keeps file `f`'s `rows` (all of them, in order).
    fn keep_syms(&self, f: usize, rows: Vec<Arc<Sym>>) {
        let first = self.shared.data.file_syms(f).start;
        let mut kept = self.syms();
        for (k, row) in rows.into_iter().enumerate() {
            kept.insert(first + k, row, 1);
        }
    }

    /// Reads the symbol rows of every file in `paths` not read yet, in one batched request
    /// where the backend pays a round trip per read; what [`SnapshotView::sym`] then finds.
    pub fn prefetch_syms(&self, paths: &[&str]) -> Result<(), QueryError> {
        if self.shared.packed.get().is_some() {
            return Ok(());
        }
        let mut missing: Vec<(&str, usize)> = Vec::new();
        {
            let kept = self.syms();
            for &p in paths {
                if let Some(f) = self.shared.data.file_index(p)
                    && !self.shared.data.file_syms(f).all(|i| kept.contains_key(&i))
                    && !missing.iter().any(|(_, g)| *g == f)
                {
                    missing.push((p, f));
                }
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = missing.iter().map(|(p, _)| *p).collect();
        let mut read = self.index.symbols_of_many(&names)?;
        for (p, f) in missing {
            let rows = read.remove(p).unwrap_or_default();
            // Another reader may have kept it meanwhile: the same rows either way.
            let rows = self.match_file_syms(f, rows);
            self.keep_syms(f, self.with_path(f, rows));
        }
        Ok(())
    }

    fn load_file_syms(&self, f: usize) -> Vec<Arc<Sym>> {
        let path = self.shared.data.file_path(f);
        let rows = match self.index.symbols_of(path) {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(error = %e, path, "reading symbols");
                Vec::new()
            }
        };
        self.with_path(f, self.match_file_syms(f, rows))
    }

    /// File `f`'s symbols as rows with their path.
    fn with_path(&self, f: usize, symbols: Vec<Symbol>) -> Vec<Arc<Sym>> {
        let path = self.shared.data.file_path(f);
        symbols
            .into_iter()
            .map(|symbol| {
                Arc::new(Sym {
                    path: path.to_string(),
                    symbol,
                })
            })
            .collect()
    }

    /// The view's symbols of file `f`, each the full row from `rows` (the file's rows as the
    /// index holds them now); a symbol no row matches marks the view stale.
    fn match_file_syms(&self, f: usize, rows: Vec<SymbolRow>) -> Vec<Symbol> {
        let range = self.shared.data.file_syms(f);
        let mut used = vec![false; rows.len()];
        let mut out = Vec::with_capacity(range.len());
        for (k, i) in range.enumerate() {
            let (start, end) = self.shared.data.span(i);
            let (name, kind) = (self.shared.data.name(i), self.shared.data.kind(i));
            let same = |r: &SymbolRow| {
                r.symbol.name == name
                    && r.symbol.kind == kind
                    && r.symbol.start_line == start
                    && r.symbol.end_line == end
            };
            // In order when nothing changed; else the first unused row that matches.
            let pick = if rows.get(k).is_some_and(|r| !used[k] && same(r)) {
                Some(k)
            } else {
                (0..rows.len()).find(|&j| !used[j] && same(&rows[j]))
            };
            match pick {
                Some(j) => {
                    used[j] = true;
                    out.push(rows[j].symbol.clone());
                }
                None => {
                    self.shared.stale.store(true, Ordering::Relaxed);
                    out.push(Symbol {
                        id: SymbolId(self.shared.data.id(i).to_string()),
                        kind,
                        name: name.to_string(),
                        qualified_name: name.to_string(),
                        signature: name.to_string(),
                        doc: None,
                        parent: self
                            .shared
                            .data
                            .parent(i)
                            .map(|p| SymbolId(self.shared.data.id(p).to_string())),
                        start_line: start,
                        end_line: end,
                        name_line: start,
                        annotations: Vec::new(),
                        visibility: String::new(),
                        is_static: self.shared.data.flags(i) & viewdata::FLAG_STATIC != 0,
                        body_hash: String::new(),
                        params: Vec::new(),
                        value_type: String::new(),
                        body_line: 0,
                        supertypes: Vec::new(),
                        has_body: self.shared.data.flags(i) & viewdata::FLAG_HAS_BODY != 0,
                        literals: Vec::new(),
                        throws: Vec::new(),
                        thrown: Vec::new(),
                    });
                }
            }
        }
        if rows.len() != out.len() {
            self.shared.stale.store(true, Ordering::Relaxed);
        }
        out
    }

    /// Kind of a symbol (no row read).
    pub fn kind(&self, i: SymIdx) -> SymbolKind {
        self.shared.data.kind(i)
    }

    /// Simple name of a symbol (no row read).
    pub fn name(&self, i: SymIdx) -> &str {
        self.shared.data.name(i)
    }

    /// Id of a symbol (no row read).
    pub fn id(&self, i: SymIdx) -> &str {
        self.shared.data.id(i)
    }

    /// First doc sentence of a symbol (no row read).
    pub fn doc(&self, i: SymIdx) -> Option<&str> {
        self.shared.data.doc(i)
    }

    /// Path of a symbol's file.
    pub fn path(&self, i: SymIdx) -> &str {
        self.shared.data.file_path(self.shared.data.file_of(i))
    }

    /// Whether two symbols are in the same file.
    pub fn same_file(&self, a: SymIdx, b: SymIdx) -> bool {
        self.shared.data.file_of(a) == self.shared.data.file_of(b)
    }

    /// First and last line of a symbol.
    pub fn span(&self, i: SymIdx) -> (u32, u32) {
        self.shared.data.span(i)
    }

    /// Lines of a symbol's declaration.
    pub fn line_span(&self, i: SymIdx) -> u32 {
        let (s, e) = self.shared.data.span(i);
        e.saturating_sub(s) + 1
    }

    /// Derived flags ([`viewdata::FLAG_HAS_BODY`] …).
    pub fn flags(&self, i: SymIdx) -> u8 {
        self.shared.data.flags(i)
    }

    /// The simple names of the symbol's annotations, `,`-joined (`GetMapping,Transactional`).
    pub fn annotation_names(&self, i: SymIdx) -> &str {
        self.shared.data.annotation_names(i)
    }

    /// A callable with at least one statement in its body (not abstract, not `{}`).
    pub fn has_body(&self, i: SymIdx) -> bool {
        self.shared.data.flags(i) & viewdata::FLAG_HAS_BODY != 0
    }

    /// Parameter types of a callable, simple names ([`indexer::model::Param::ty`]).
    pub fn param_types(&self, i: SymIdx) -> Vec<String> {
        let (joined, n) = self.shared.data.params(i);
        if n == 0 {
            return Vec::new();
        }
        let mut out: Vec<String> = joined.split(',').map(str::to_string).collect();
        out.resize(n, String::new());
        out
    }

    /// Provenance of a symbol's file.
    pub fn provenance_of(&self, i: SymIdx) -> Provenance {
        self.shared
            .data
            .file_provenance(self.shared.data.file_of(i))
    }

    pub fn provenance(&self, path: &str) -> Provenance {
        self.shared
            .data
            .file_index(path)
            .map(|f| self.shared.data.file_provenance(f))
            .unwrap_or_default()
    }

    pub fn module(&self, path: &str) -> &str {
        self.shared
            .data
            .file_index(path)
            .map(|f| self.shared.data.file_module(f))
            .unwrap_or("")
    }

    /// Whether `path` is a file of the snapshot.
    pub fn has_file(&self, path: &str) -> bool {
        self.shared.data.file_index(path).is_some()
    }

    /// Paths of the snapshot, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.shared.data.file_count()).map(|f| self.shared.data.file_path(f))
    }

    /// Symbols whose simple name is `name` (case-insensitive), in symbol order.
    pub fn named(&self, name: &str) -> Vec<SymIdx> {
        self.shared.data.named(&name.to_lowercase())
    }

    pub fn by_id(&self, id: &str) -> Option<SymIdx> {
        self.shared.data.by_id(id)
    }

    /// Symbols of a file in source order.
    pub fn in_file(&self, path: &str) -> std::ops::Range<SymIdx> {
        self.shared
            .data
            .file_index(path)
            .map(|f| self.shared.data.file_syms(f))
            .unwrap_or(0..0)
    }

    /// The innermost symbol of `path` covering `line` whose kind passes `keep`.
    pub fn enclosing(
        &self,
        path: &str,
        line: u32,
        keep: impl Fn(SymbolKind) -> bool,
    ) -> Option<SymIdx> {
        self.in_file(path)
            .filter(|&i| {
                let (s, e) = self.shared.data.span(i);
                s <= line && line <= e && keep(self.shared.data.kind(i))
            })
            .min_by_key(|&i| {
                let (s, e) = self.shared.data.span(i);
                (e - s, std::cmp::Reverse(s))
            })
    }

    /// The string literals written on lines `start..=end` of `path`, in source order, as the
    /// indexer read them from the tree (comments hold none).
    pub fn literals_in(&self, path: &str, start: u32, end: u32) -> Vec<Literal> {
        let mut out: Vec<Literal> = Vec::new();
        for i in self.in_file(path) {
            let (s, e) = self.shared.data.span(i);
            if e < start || end < s {
                continue;
            }
            let sym = self.sym(i);
            out.extend(
                sym.symbol
                    .literals
                    .iter()
                    .filter(|l| start <= l.line && l.line <= end)
                    .cloned(),
            );
        }
        out.sort_by_key(|l| l.line);
        out
    }

    /// The literals of a symbol's lines (its nested declarations' included).
    pub fn literals_of(&self, i: SymIdx) -> Vec<Literal> {
        let (s, e) = self.span(i);
        self.literals_in(self.path(i), s, e)
    }

    /// The types a symbol's code throws or declares it throws (its nested declarations'
    /// included), by simple name, in source order.
    pub fn thrown_by(&self, i: SymIdx) -> Vec<String> {
        let (s, e) = self.span(i);
        let mut out: Vec<String> = Vec::new();
        for j in self.in_file(self.path(i)) {
            let (js, je) = self.shared.data.span(j);
            if js < s || e < je {
                continue;
            }
            let sym = self.sym(j);
            for t in sym.symbol.throws.iter().chain(&sym.symbol.thrown) {
                if !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        out
    }

    /// The type a member belongs to (its nearest enclosing type symbol).
    pub fn owner_type(&self, i: SymIdx) -> Option<SymIdx> {
        let mut cur = self.shared.data.parent(i);
        let mut hops = 0;
        while let Some(c) = cur {
            if self.shared.data.kind(c).is_type() {
                return Some(c);
            }
            cur = self.shared.data.parent(c);
            hops += 1;
            if hops > 64 {
                break;
            }
        }
        None
    }

    /// Simple name of the owning type (`FileUtils` for `FileUtils.copyFile`).
    pub fn owner_name(&self, i: SymIdx) -> Option<&str> {
        self.owner_type(i).map(|t| self.shared.data.name(t))
    }

    /// Direct members of a type.
    pub fn members(&self, t: SymIdx) -> Vec<SymIdx> {
        let f = self.shared.data.file_of(t);
        self.shared
            .data
            .file_syms(f)
            .filter(|&i| self.shared.data.parent(i) == Some(t))
            .collect()
    }

    /// Lines of a file as indexed (1-based: line `n` is `lines[n-1]`); lines no chunk covers are
    /// blank.
    pub fn file_lines(&self, path: &str) -> Result<Arc<FileLines>, QueryError> {
        let Some(f) = self.shared.data.file_index(path) else {
            // Not in the tables (changed since): read it anyway.
            return Ok(Arc::new(viewdata::lines_from_chunks(
                &self.index.chunks_of(path)?,
                0,
            )));
        };
        if let Some(l) = self.lines().get(&f).cloned() {
            return Ok(l);
        }
        // Read outside the lock: two readers may read the same file once each, none waits.
        let lines = Arc::new(match self.shared.packed.get().and_then(|p| p.lines(f)) {
            Some(lines) => lines,
            None => viewdata::lines_from_chunks(
                &self.index.chunks_of(path)?,
                self.shared.data.file_lines(f) as usize,
            ),
        });
        self.lines().insert(f, lines.clone(), lines.len());
        Ok(lines)
    }

    /// Reads the lines of every snapshot file in `paths` not read yet, in one batched request
    /// where the backend pays a round trip per read (Meilisearch); what
    /// [`SnapshotView::file_lines`] then finds in its cache.
    pub fn prefetch_files(&self, paths: &[&str]) -> Result<(), QueryError> {
        if self.shared.packed.get().is_some() {
            return Ok(());
        }
        let missing: Vec<(&str, usize)> = {
            let cache = self.lines();
            let mut out: Vec<(&str, usize)> = Vec::new();
            for &p in paths {
                if let Some(f) = self.shared.data.file_index(p)
                    && !cache.contains_key(&f)
                    && !out.iter().any(|(_, g)| *g == f)
                {
                    out.push((p, f));
                }
            }
            out
        };
        if missing.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = missing.iter().map(|(p, _)| *p).collect();
        let mut read = self.index.chunks_of_many(&names)?;
        let mut cache = self.lines();
        for (p, f) in missing {
            let chunks = read.remove(p).unwrap_or_default();
            let lines =
                viewdata::lines_from_chunks(&chunks, self.shared.data.file_lines(f) as usize);
            let n = lines.len();
            cache.insert(f, Arc::new(lines), n);
        }
        Ok(())
    }

    /// Lines of code in the snapshot (every file's).
    pub fn total_lines(&self) -> usize {
        let data = &self.shared.data;
        (0..data.file_count())
            .map(|f| data.file_lines(f) as usize)
            .sum()
    }

    /// Reads every file's symbol rows and text into the shared view, in batches, so that answers
    /// read nothing per file afterwards: packed, with the rows and files read last kept decoded
    /// ([`Limits::hot_symbols`]). Skipped (`false`) when the snapshot holds more lines or
    /// symbols than the view keeps.
    pub fn preload(&self) -> Result<bool, QueryError> {
        let data = &self.shared.data;
        let limits = self.shared.limits;
        // Symbol rows weigh one each, and a file without symbols one.
        let sym_weight = self.len() + data.file_count();
        if self.total_lines() > limits.lines || sym_weight > limits.symbols {
            return Ok(false);
        }
        if self.shared.packed.get().is_none() {
            let packed = self.pack()?;
            tracing::debug!(bytes = packed.size(), "view packed");
            // Another reader may have done the same meanwhile: the same rows either way.
            let _ = self.shared.packed.set(packed);
            self.syms().set_limit(limits.hot_symbols);
            self.lines().set_limit(limits.hot_lines);
        }
        if self.shared.bodies.get().is_none() {
            let mut b = BodyStems::default();
            b.starts.push(0);
            for i in 0..self.len() {
                if self.kind(i).is_callable() {
                    let (start, end) = self.span(i);
                    for_each_stem(&self.text(self.path(i), start, end)?, |s| b.push(s));
                    if let Some(doc) = self.doc(i) {
                        for_each_stem(doc, |s| b.push(s));
                    }
                }
                b.starts.push(b.stems.len() as u32);
            }
            // Grown by doubling: up to half of it would be room never used, for the process's life.
            b.stems.shrink_to_fit();
            // Another reader may have done the same meanwhile: the same stems either way.
            let _ = self.shared.bodies.set(b);
        }
        Ok(true)
    }

    /// Every file's rows and text, read in batches and packed.
    fn pack(&self) -> Result<Packed, QueryError> {
        let data = &self.shared.data;
        let mut packed = Packed::with_files(data.file_count());
        let files: Vec<usize> = (0..data.file_count()).collect();
        for batch in files.chunks(PRELOAD_BATCH) {
            let paths: Vec<&str> = batch.iter().map(|&f| data.file_path(f)).collect();
            let mut rows = self.index.symbols_of_many(&paths)?;
            let mut chunks = self.index.chunks_of_many(&paths)?;
            for (&f, p) in batch.iter().zip(&paths) {
                let symbols = self.match_file_syms(f, rows.remove(*p).unwrap_or_default());
                packed.put_syms(f, &symbols);
                let chunks = chunks.remove(*p).unwrap_or_default();
                let lines = viewdata::lines_from_chunks(&chunks, data.file_lines(f) as usize);
                packed.put_lines(f, &lines);
            }
        }
        Ok(packed)
    }

    /// The stems of callable `i`'s text and then its doc comment, in order, as ids (see
    /// [`SnapshotView::stem_id`]); `None` before a preload, and for other symbols.
    pub fn body_stems(&self, i: SymIdx) -> Option<&[u32]> {
        let b = self.shared.bodies.get()?;
        if !self.kind(i).is_callable() {
            return None;
        }
        let (from, to) = (*b.starts.get(i)?, *b.starts.get(i + 1)?);
        b.stems.get(from as usize..to as usize)
    }

    /// The id of `stem` among the preloaded body stems (`None`: no body holds it, or no preload).
    pub fn stem_id(&self, stem: &str) -> Option<u32> {
        self.shared.bodies.get()?.ids.get(stem).copied()
    }

    fn lines(&self) -> std::sync::MutexGuard<'_, LineCache> {
        // A panic while holding the lock left a map that is still valid.
        self.shared
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Text of lines `start..=end` of a file.
    pub fn text(&self, path: &str, start: u32, end: u32) -> Result<String, QueryError> {
        Ok(self.file_lines(path)?.slice(start, end).to_string())
    }

    /// Number of lines of an indexed file, if it is in the snapshot.
    pub fn line_count(&self, path: &str) -> Option<u32> {
        self.shared
            .data
            .file_index(path)
            .map(|f| self.shared.data.file_lines(f))
    }

    /// Symbols whose card holds `stem`, with the card fields it is in
    /// ([`viewdata::CARD_NAME`] …), in symbol order.
    pub fn card_postings(&self, stem: &str) -> Option<viewdata::CardPostings<'_>> {
        self.shared.data.stem(stem).map(|(p, _)| p)
    }

    /// Whether some symbol's name holds `stem` (`cach` for `LRUCache`, `getCached`).
    pub fn names_stem(&self, stem: &str) -> bool {
        self.card_postings(stem)
            .is_some_and(|mut p| p.any(|(_, fields)| fields & viewdata::CARD_NAME != 0))
    }

    /// Number of stems of a symbol's name (with repeats: `getGet` has 2).
    pub fn card_name_len(&self, i: SymIdx) -> usize {
        self.shared.data.card_name_len(i)
    }

    /// Inverse document frequency of a stem over the symbol cards.
    /// How many declarations' cards hold `stem`.
    pub fn card_df(&self, stem: &str) -> u32 {
        self.shared.data.stem(stem).map(|(_, df)| df).unwrap_or(0)
    }

    pub fn idf(&self, stem: &str) -> f32 {
        let n = self.len().max(1) as f32;
        let d = self.shared.data.stem(stem).map(|(_, df)| df).unwrap_or(0) as f32;
        ((n - d + 0.5) / (d + 0.5) + 1.0).ln()
    }

    /// Path and lines of a chunk: from the tables, else (a chunk newer than them) from the index.
    pub fn chunk_span(&self, id: &str) -> Result<Option<(String, u32, u32)>, QueryError> {
        if let Some((f, s, e)) = self.shared.data.chunk(id) {
            return Ok(Some((self.shared.data.file_path(f).to_string(), s, e)));
        }
        Ok(self.index.chunk(id)?.map(|r| {
            (
                r.path.as_str().to_string(),
                r.chunk.start_line,
                r.chunk.end_line,
            )
        }))
    }
}

/// Stems of prose or code text, words only (whole identifiers dropped).
pub fn prose_stems(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_stem(text, |s| out.push(s.to_string()));
    out
}

/// Calls `f` with each stem of prose or code text, in order (what [`prose_stems`] lists).
pub fn for_each_stem(text: &str, mut f: impl FnMut(&str)) {
    for w in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
        if w.is_empty() {
            continue;
        }
        terms::with_word_stems(w, |stems| {
            for s in stems {
                f(s);
            }
        });
    }
}
