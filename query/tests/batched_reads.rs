//! Batched reads: a walk's level and a ranking's candidate files are read in one call each
//! (what makes a server backend answer in a few round trips), and the answers are the same as
//! with one read per key.
//!
//! The reader under test is the real embedded index behind a wrapper that counts the calls
//! made to it by name.

use indexer::graph::Edge;
use indexer::model::{RepoPath, Snapshot, SymbolId};
use indexer::pipeline::{self, IndexOptions};
use indexer::store::catalog::{ChunkRow, FileRow, SymbolRow};
use indexer::store::{EmbeddedIndex, IndexDir, IndexRead, StoreError, TextHit};
use query::graph::reads::read_by;
use query::graph::walked;
use query::view::{Limits, MAX_CACHED_LINES, SharedView, SnapshotView};
use query::{AskOptions, Asker, CallGraph, EdgeTable, StoredGraph};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The embedded index, counting each method's calls.
struct Counting {
    inner: EmbeddedIndex,
    calls: RefCell<HashMap<&'static str, usize>>,
}

impl Counting {
    fn new(inner: EmbeddedIndex) -> Counting {
        Counting {
            inner,
            calls: RefCell::default(),
        }
    }
    fn count(&self, name: &'static str) {
        *self.calls.borrow_mut().entry(name).or_default() += 1;
    }
    fn calls(&self, name: &str) -> usize {
        self.calls.borrow().get(name).copied().unwrap_or(0)
    }
    /// Reads of some file's symbol rows or text.
    fn file_reads(&self) -> usize {
        [
            "chunks_of",
            "chunks_of_many",
            "symbols_of",
            "symbols_of_many",
        ]
        .iter()
        .map(|n| self.calls(n))
        .sum()
    }
}

impl IndexRead for Counting {
    fn last_snapshot(&self) -> Result<Option<Snapshot>, StoreError> {
        self.inner.last_snapshot()
    }
    fn current_files(&self) -> Result<HashMap<RepoPath, FileRow>, StoreError> {
        self.inner.current_files()
    }
    fn file(&self, path: &str) -> Result<Option<FileRow>, StoreError> {
        self.inner.file(path)
    }
    fn symbols_named(&self, name: &str) -> Result<Vec<SymbolRow>, StoreError> {
        self.inner.symbols_named(name)
    }
    fn symbols_of(&self, path: &str) -> Result<Vec<SymbolRow>, StoreError> {
        self.count("symbols_of");
        self.inner.symbols_of(path)
    }
    fn symbols_of_many(
        &self,
        paths: &[&str],
    ) -> Result<HashMap<String, Vec<SymbolRow>>, StoreError> {
        self.count("symbols_of_many");
        self.inner.symbols_of_many(paths)
    }
    fn all_symbols(&self) -> Result<Vec<SymbolRow>, StoreError> {
        self.inner.all_symbols()
    }
    fn chunk(&self, id: &str) -> Result<Option<ChunkRow>, StoreError> {
        self.inner.chunk(id)
    }
    fn chunks_of(&self, path: &str) -> Result<Vec<ChunkRow>, StoreError> {
        self.count("chunks_of");
        self.inner.chunks_of(path)
    }
    fn chunks_of_many(&self, paths: &[&str]) -> Result<HashMap<String, Vec<ChunkRow>>, StoreError> {
        self.count("chunks_of_many");
        self.inner.chunks_of_many(paths)
    }
    fn search_chunks(&self, query: &str, limit: usize) -> Result<Vec<TextHit>, StoreError> {
        self.inner.search_chunks(query, limit)
    }
    fn symbol_by_id(&self, id: &str) -> Result<Option<SymbolRow>, StoreError> {
        self.inner.symbol_by_id(id)
    }
    fn edges_from(&self, caller: &str) -> Result<Vec<Edge>, StoreError> {
        self.count("edges_from");
        self.inner.edges_from(caller)
    }
    fn edges_to(&self, callee: &str) -> Result<Vec<Edge>, StoreError> {
        self.count("edges_to");
        self.inner.edges_to(callee)
    }
    fn edges_to_many(&self, callees: &[&str]) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        self.count("edges_to_many");
        self.inner.edges_to_many(callees)
    }
    fn edges_from_many(&self, callers: &[&str]) -> Result<HashMap<String, Vec<Edge>>, StoreError> {
        self.count("edges_from_many");
        self.inner.edges_from_many(callers)
    }
    fn edge_count(&self) -> Result<u64, StoreError> {
        self.inner.edge_count()
    }
    fn graph_built(&self) -> Result<bool, StoreError> {
        self.inner.graph_built()
    }
    fn for_each_edge(
        &self,
        f: &mut dyn FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.inner.for_each_edge(f)
    }
}

fn shop_index(tmp: &Path) -> IndexDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/shop");
    let dir = IndexDir::new(tmp.join("idx"));
    pipeline::run(&root, &dir, &IndexOptions::default(), &|_| {}).expect("the shop indexes");
    dir
}

/// Every method of the shop that something calls.
fn called_methods(index: &EmbeddedIndex) -> Vec<SymbolId> {
    let mut ids: Vec<String> = Vec::new();
    index
        .for_each_edge(&mut |e| {
            if let Some(c) = e.callee
                && c.starts_with("java:")
                && c.contains('#')
                && !ids.contains(&c)
            {
                ids.push(c);
            }
            Ok(())
        })
        .unwrap();
    ids.into_iter().map(SymbolId).collect()
}

#[test]
fn a_level_read_ahead_answers_its_callers_and_entries_without_another_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let ids = called_methods(&EmbeddedIndex::open(&dir).unwrap());
    assert!(ids.len() >= 5, "{ids:?}");

    let plain = EmbeddedIndex::open(&dir).unwrap();
    let one_by_one = StoredGraph::new(&plain);
    let counting = Counting::new(EmbeddedIndex::open(&dir).unwrap());
    let batched = StoredGraph::new(&counting);
    batched.prefetch_callers(&ids).unwrap();
    batched.prefetch_callees(&ids).unwrap();
    let (to, from) = (counting.calls("edges_to"), counting.calls("edges_from"));
    assert_eq!(
        (
            counting.calls("edges_to_many"),
            counting.calls("edges_from_many")
        ),
        (1, 1),
        "one read for the level's edges out (overrides and calls: the callees need nothing \
         more), one for the edges into it and the methods it overrides"
    );
    for id in &ids {
        assert_eq!(
            batched.callers(id).unwrap(),
            one_by_one.callers(id).unwrap(),
            "{id:?}"
        );
        assert_eq!(
            batched.entries(id).unwrap(),
            one_by_one.entries(id).unwrap(),
            "{id:?}"
        );
        assert_eq!(
            batched.callees(id).unwrap(),
            one_by_one.callees(id).unwrap(),
            "{id:?}"
        );
    }
    assert_eq!(
        (counting.calls("edges_to"), counting.calls("edges_from")),
        (to, from),
        "callers, entries and callees of a read-ahead level read nothing more"
    );
}

#[test]
fn answers_read_candidate_files_and_walk_levels_in_batches_and_match_one_read_per_key() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let questions = [
        "who calls the stock deduction?",
        "how does an order get created? show the flow from the controller",
        "where is the order status changed after payment?",
    ];
    let plain = EmbeddedIndex::open(&dir).unwrap();
    let counting = Counting::new(EmbeddedIndex::open(&dir).unwrap());
    let one_by_one = Asker::from_reader(&plain, None).unwrap();
    let batched = Asker::from_reader(&counting, None).unwrap();
    // What the view's tables read is not what is counted: only the answers' reads.
    counting.calls.borrow_mut().clear();
    for q in questions {
        let answer = |asker: &Asker<'_>, r: &dyn IndexRead| {
            let graph = StoredGraph::new(r);
            let opts = AskOptions {
                graph: Some(&graph),
                ..AskOptions::default()
            };
            asker.ask(q, &opts).unwrap()
        };
        let a = answer(&one_by_one, &plain);
        let b = answer(&batched, &counting);
        assert_eq!(a.answer, b.answer, "{q}");
        assert_eq!(
            format!("{:?}", a.citations),
            format!("{:?}", b.citations),
            "{q}"
        );
    }
    assert!(
        counting.calls("chunks_of_many") > 0 && counting.calls("symbols_of_many") > 0,
        "candidate files' text and symbols read in batches"
    );
    assert!(
        counting.calls("edges_from_many") + counting.calls("edges_to_many") > 0,
        "walk levels read in batches"
    );
}

#[test]
fn a_graph_over_the_edge_table_reads_no_edge_and_matches_the_stored_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let plain = EmbeddedIndex::open(&dir).unwrap();
    let ids = called_methods(&plain);
    let table = Arc::new(EdgeTable::read(&plain).unwrap().expect("a snapshot"));
    assert_eq!(
        table.snapshot(),
        plain.last_snapshot().unwrap().unwrap().key()
    );
    let mut held = 0;
    plain
        .for_each_edge(&mut |e| {
            held += usize::from(walked(&e));
            Ok(())
        })
        .unwrap();
    assert!(held > 0 && (held as u64) < plain.edge_count().unwrap());
    assert_eq!(table.len(), held, "the table holds the edges walks follow");

    let one_by_one = StoredGraph::new(&plain);
    let counting = Counting::new(EmbeddedIndex::open(&dir).unwrap());
    let warm = StoredGraph::with_table(&counting, table.clone());
    warm.prefetch_callers(&ids).unwrap();
    let mut most_callers = 0;
    for id in &ids {
        assert_eq!(
            warm.callers(id).unwrap(),
            one_by_one.callers(id).unwrap(),
            "{id:?}"
        );
        assert_eq!(
            warm.entries(id).unwrap(),
            one_by_one.entries(id).unwrap(),
            "{id:?}"
        );
        // Counted on the table without making an edge: the distinct callers the edges name.
        let mut callers: Vec<_> = one_by_one.callers(id).unwrap();
        callers.sort_by(|a, b| a.from.0.cmp(&b.from.0));
        callers.dedup_by(|a, b| a.from == b.from);
        for cap in [1, 2, usize::MAX] {
            assert_eq!(
                warm.caller_count(id, cap).unwrap(),
                callers.len().min(cap),
                "{id:?} up to {cap}"
            );
        }
        most_callers = most_callers.max(callers.len());
        assert_eq!(
            warm.callees(id).unwrap(),
            one_by_one.callees(id).unwrap(),
            "{id:?}"
        );
        // The same walked edges, in the same order, as the index's own lookups.
        let walked_only = |v: Vec<Edge>| -> Vec<_> { v.into_iter().filter(walked).collect() };
        assert_eq!(
            owned(table.edges_to(&id.0)),
            walked_only(plain.edges_to(&id.0).unwrap()),
            "{id:?}"
        );
        assert_eq!(
            owned(table.edges_from(&id.0)),
            walked_only(plain.edges_from(&id.0).unwrap()),
            "{id:?}"
        );
    }
    assert!(most_callers > 2, "a method with several callers counted");
    assert!(table.edges_to("java:no.such#thing()").is_empty());
    let edge_reads: usize = ["edges_to", "edges_from", "edges_to_many", "edges_from_many"]
        .iter()
        .map(|n| counting.calls(n))
        .sum();
    assert_eq!(
        edge_reads, 0,
        "a graph over the table reads no edge from the index"
    );
}

/// The fields each method reads, from the table as from the index: the same, in the same order.
#[test]
fn reads_from_the_edge_table_equal_the_indexs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let plain = EmbeddedIndex::open(&dir).unwrap();
    let view = SnapshotView::new(&plain).unwrap();
    let table = Arc::new(EdgeTable::read(&plain).unwrap().expect("a snapshot"));
    let (from_index, from_table) = (
        StoredGraph::new(&plain),
        StoredGraph::with_table(&plain, table),
    );
    let mut reading = 0;
    for i in 0..view.len() {
        let by_index = read_by(&view, &from_index, i).unwrap();
        assert_eq!(
            read_by(&view, &from_table, i).unwrap(),
            by_index,
            "{}",
            view.id(i)
        );
        reading += usize::from(!by_index.is_empty());
    }
    assert!(reading > 0, "some method of the shop reads a field");
}

#[test]
fn a_preloaded_view_answers_the_same_and_reads_no_file_afterwards() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let plain = EmbeddedIndex::open(&dir).unwrap();
    let counting = Counting::new(EmbeddedIndex::open(&dir).unwrap());
    let one_by_one = Asker::from_reader(&plain, None).unwrap();
    let warm = Asker::from_reader(&counting, None).unwrap();
    let view: std::rc::Rc<SnapshotView<'_>> = warm.view().unwrap();
    assert!(view.preload().unwrap(), "the shop fits the view's budget");
    let table = Arc::new(EdgeTable::read(&counting).unwrap().unwrap());
    counting.calls.borrow_mut().clear();
    for q in [
        "who calls the stock deduction?",
        "how does an order get created? show the flow from the controller",
        "where is the order status changed after payment?",
    ] {
        let a = {
            let graph = StoredGraph::new(&plain);
            let opts = AskOptions {
                graph: Some(&graph),
                ..AskOptions::default()
            };
            one_by_one.ask(q, &opts).unwrap()
        };
        let b = {
            let graph = StoredGraph::with_table(&counting, table.clone());
            let opts = AskOptions {
                graph: Some(&graph),
                ..AskOptions::default()
            };
            warm.ask(q, &opts).unwrap()
        };
        assert_eq!(a.answer, b.answer, "{q}");
        assert_eq!(
            format!("{:?}", a.citations),
            format!("{:?}", b.citations),
            "{q}"
        );
    }
    let per_file = counting.file_reads();
    assert_eq!(
        per_file, 0,
        "answers over a preloaded view read no file's rows or text"
    );
}

/// A preloaded view holds every file packed and only the files read last decoded: with room
/// for almost nothing decoded, every row and line still comes back as the index holds it, and
/// nothing is read from the index again.
#[test]
fn a_preloaded_view_with_almost_nothing_decoded_reads_every_row_and_line_from_its_packed_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let plain = EmbeddedIndex::open(&dir).unwrap();
    let counting = Counting::new(EmbeddedIndex::open(&dir).unwrap());
    let whole = SnapshotView::new(&plain).unwrap();
    let shared = SharedView::open_bounded(
        &counting,
        None,
        Limits {
            hot_symbols: 1,
            hot_lines: 1,
            ..Limits::default()
        },
    )
    .unwrap();
    let v = SnapshotView::over(&counting, Arc::new(shared));
    assert!(v.preload().unwrap());
    counting.calls.borrow_mut().clear();
    let files: Vec<String> = whole.paths().map(String::from).collect();
    assert!(files.len() > 3);
    for _round in 0..2 {
        for i in 0..whole.len() {
            let (a, b) = (whole.sym(i), v.sym(i));
            assert_eq!((&a.path, &a.symbol), (&b.path, &b.symbol));
        }
        for p in &files {
            assert_eq!(
                whole.file_lines(p).unwrap(),
                v.file_lines(p).unwrap(),
                "{p}"
            );
        }
    }
    v.prefetch_syms(&files.iter().map(String::as_str).collect::<Vec<_>>())
        .unwrap();
    let reads = counting.file_reads();
    assert_eq!(reads, 0, "every row and line came from the packed files");
    assert!(!v.is_stale());
}

#[test]
fn body_scores_from_preloaded_stems_equal_scores_from_the_text() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let index = EmbeddedIndex::open(&dir).unwrap();
    let (cold, warm) = (
        SnapshotView::new(&index).unwrap(),
        SnapshotView::new(&index).unwrap(),
    );
    assert!(warm.preload().unwrap());
    let callables: Vec<usize> = (0..warm.len())
        .filter(|&i| warm.kind(i).is_callable())
        .collect();
    assert!(callables.iter().all(|&i| warm.body_stems(i).is_some()));
    assert!(callables.iter().all(|&i| cold.body_stems(i).is_none()));
    let mut nonzero = 0;
    for q in [
        "who calls the stock deduction?",
        "where is the order status changed after payment?",
        "why does \"insufficient stock\" appear when placing an order",
        "订单支付后状态在哪里修改",
    ] {
        let q = query::question::understand(q);
        let (a, b) = (
            query::retrieve::Retriever::new(&cold),
            query::retrieve::Retriever::new(&warm),
        );
        for &i in &callables {
            let (x, y) = (a.body_score(i, &q).unwrap(), b.body_score(i, &q).unwrap());
            assert_eq!(
                x.to_bits(),
                y.to_bits(),
                "{} for {:?}",
                warm.name(i),
                q.text
            );
            nonzero += usize::from(x > 0.0);
        }
    }
    assert!(nonzero > 10, "the questions match some bodies ({nonzero})");
}

fn owned(edges: Vec<std::sync::Arc<indexer::graph::Edge>>) -> Vec<indexer::graph::Edge> {
    edges.iter().map(|e| (**e).clone()).collect()
}

/// The view's symbol rows are bounded (a bot searching on a team server answers for days): past
/// the limit the least recently read rows go, and their file is read again when one is next
/// needed, while a row handed out before stays readable.
#[test]
fn a_view_bounded_in_symbol_rows_lets_the_least_recently_read_rows_go() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop_index(tmp.path());
    let counting = Counting::new(EmbeddedIndex::open(&dir).unwrap());
    let whole = SnapshotView::new(&counting).unwrap();
    // Three files with symbols, and a limit that holds the first and third but not all three.
    let files: Vec<String> = whole
        .paths()
        .filter(|p| !whole.in_file(p).is_empty())
        .take(3)
        .map(String::from)
        .collect();
    let first = |p: &str| whole.in_file(p).start;
    let weight = |p: &str| whole.in_file(p).len();
    let (a, b, c) = (files[0].as_str(), files[1].as_str(), files[2].as_str());
    let limit = weight(a) + weight(b).max(weight(c));
    assert!(limit < weight(a) + weight(b) + weight(c));
    let shared = SharedView::open_bounded(
        &counting,
        None,
        Limits {
            lines: MAX_CACHED_LINES,
            symbols: limit,
            ..Limits::default()
        },
    )
    .unwrap();
    let v = SnapshotView::over(&counting, Arc::new(shared));
    let reads = || counting.calls("symbols_of") + counting.calls("symbols_of_many");
    // Reads every row of file `p`.
    let read_all = |p: &str| {
        for i in v.in_file(p) {
            v.sym(i);
        }
    };
    counting.calls.borrow_mut().clear();

    let row_b = v.sym(first(b));
    v.sym(first(a));
    assert_eq!(reads(), 2, "a file's rows are read together");
    read_all(b);
    read_all(a);
    assert_eq!(reads(), 2, "kept: not read again");
    // `b`'s rows are now the least recently read: `c`'s take their place.
    read_all(c);
    assert_eq!(reads(), 3);
    read_all(a);
    read_all(c);
    assert_eq!(reads(), 3, "the more recent stay");
    read_all(b);
    assert_eq!(reads(), 4, "the least recent went and are read again");
    assert_eq!(v.sym(first(b)).symbol.name, row_b.symbol.name);
    assert_eq!(row_b.path, b, "a row handed out before stays readable");
    // Rows read back are the snapshot's, whatever the limit.
    for p in [a, b, c] {
        for i in v.in_file(p) {
            assert_eq!(v.sym(i).symbol, whole.sym(i).symbol);
        }
    }
    // A preload that would not fit is refused, not half done.
    assert!(
        !v.preload().unwrap(),
        "the shop has more symbols than the limit"
    );
}
