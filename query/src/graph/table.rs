//! A snapshot's whole call graph held in memory, by endpoint: what a long-running service keeps
//! warm so that a question's walk reads no edge from the index (each read decodes a file's edges
//! on the embedded index, and is a round trip on Meilisearch).

use crate::QueryError;
use hashbrown::HashTable;
use indexer::graph::Edge as Stored;
use indexer::graph::{CallSite, EdgeKind};
use indexer::model::SnapshotKey;
use indexer::node::NodeId;
use indexer::store::{IndexRead, StoreError};
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

/// Reads that saw a run publish in between are tried again this many times.
const READ_RETRIES: usize = 3;

/// The edges of one snapshot that a walk follows ([`walked`]), found by caller and by callee
/// key the way [`IndexRead::edges_from`] and [`IndexRead::edges_to`] find them, in the same
/// order.
///
/// Held compact: each distinct string once ([`Strings`]), each edge as ids into them, and the
/// two lookups as index ranges. An edge is made whole only when a question reads it, so the
/// table weighs a fraction of the edges it holds (corpus-1m: ~50 MB, where its 301k edges
/// held whole took ~250 MB).
pub struct EdgeTable {
    snapshot: SnapshotKey,
    strings: Strings,
    edges: Vec<Compact>,
    /// Receiver chains of every call site, as string ids; an edge's is a range of it.
    receivers: Vec<u32>,
    to: Lookup,
    from: Lookup,
}

/// One edge as ids into the table's strings ([`NONE`]: absent).
struct Compact {
    caller_file: u32,
    caller: u32,
    caller_name: u32,
    callee: u32,
    callee_name: u32,
    callee_file: u32,
    detail: u32,
    line: u32,
    callee_line: Option<u32>,
    confidence: f32,
    receivers_from: u32,
    receivers_len: u16,
    kind: EdgeKind,
    caller_flags: u8,
    site_flags: u8,
}

/// An absent optional string.
const NONE: u32 = u32::MAX;

/// Whether a walk over the table ([`super::StoredGraph`]) can use `e`: a flow edge whose both
/// ends are in the project (callers, callees, entry points), a read of a project field (what a
/// chain step reads, [`super::reads`]), or an override (callers through the methods a method
/// overrides). Constants, type hierarchy and calls into libraries are never asked of the table.
pub fn walked(e: &Stored) -> bool {
    let in_project = e.callee_file.is_some() && (e.kind.is_flow() || e.kind == EdgeKind::Read);
    e.callee.is_some() && (in_project || e.kind == EdgeKind::Overrides)
}

impl EdgeTable {
    /// The graph of the snapshot `index` shows now, read whole; `None` before the first run.
    /// A run that publishes during the read makes it start over: a table never mixes two
    /// snapshots.
    pub fn read(index: &dyn IndexRead) -> Result<Option<EdgeTable>, QueryError> {
        for _ in 0..READ_RETRIES {
            let Some(before) = index.last_snapshot()? else {
                return Ok(None);
            };
            let mut table = Builder::default();
            index.for_each_edge_unordered(&mut |ord, e| {
                table.push(ord, &e);
                Ok(())
            })?;
            if index.last_snapshot()?.map(|s| s.key()) == Some(before.key()) {
                return Ok(Some(table.finish(before.key())));
            }
        }
        Err(StoreError::KeptChanging(READ_RETRIES).into())
    }

    /// A table over the [`walked`] ones of `edges` (ordered by use-site file, then source order, as
    /// [`IndexRead::for_each_edge`] gives them).
    pub fn new(snapshot: SnapshotKey, edges: Vec<Stored>) -> EdgeTable {
        let mut table = Builder::default();
        let mut ord = 0;
        for (i, e) in edges.iter().enumerate() {
            let same_file = i > 0 && edges[i - 1].caller_file == e.caller_file;
            ord = if same_file { ord + 1 } else { 0 };
            table.push(ord, e);
        }
        table.finish(snapshot)
    }

    /// The snapshot the table was read from.
    pub fn snapshot(&self) -> SnapshotKey {
        self.snapshot
    }

    /// Number of edges held (the [`walked`] ones).
    pub fn len(&self) -> usize {
        self.edges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.edges.is_empty()
    }

    /// The [`walked`] ones of what [`IndexRead::edges_to`] gives for `callee`.
    pub fn edges_to(&self, callee: &str) -> Vec<Arc<Stored>> {
        self.pick(&self.to, callee)
    }

    /// The [`walked`] ones of what [`IndexRead::edges_from`] gives for `caller`.
    pub fn edges_from(&self, caller: &str) -> Vec<Arc<Stored>> {
        self.pick(&self.from, caller)
    }

    /// Adds to `seen` the callers (string ids) of the flow edges from symbols to `callee`
    /// (what [`super::StoredGraph`]'s callers keep), until `seen` holds `cap`; no edge is made
    /// whole.
    pub(crate) fn callers_into(&self, callee: &str, seen: &mut HashSet<u32>, cap: usize) {
        let Some(key) = self.strings.get(callee) else {
            return;
        };
        for &i in self.to.of(key) {
            if seen.len() >= cap {
                return;
            }
            let c = &self.edges[i as usize];
            let from_symbol = || NodeId::parse(self.strings.str(c.caller)).is_symbol();
            if c.kind.is_flow() && c.callee_file != NONE && from_symbol() {
                seen.insert(c.caller);
            }
        }
    }

    /// The read edges from (`outgoing`) or to `id`, as the other end and the line.
    pub(crate) fn reads(&self, id: &str, outgoing: bool) -> Vec<(String, u32)> {
        let lookup = if outgoing { &self.from } else { &self.to };
        let edges = self.strings.get(id).map_or(&[][..], |k| lookup.of(k));
        edges
            .iter()
            .map(|&i| &self.edges[i as usize])
            .filter(|c| c.kind == EdgeKind::Read)
            .map(|c| {
                let other = if outgoing { c.callee } else { c.caller };
                (self.strings.str(other).to_string(), c.line)
            })
            .collect()
    }

    /// The methods `method` overrides (its override edges' callees).
    pub(crate) fn overridden<'t>(&'t self, method: &str) -> impl Iterator<Item = &'t str> {
        let edges = self
            .strings
            .get(method)
            .map_or(&[][..], |k| self.from.of(k));
        edges
            .iter()
            .map(|&i| &self.edges[i as usize])
            .filter(|c| c.kind == EdgeKind::Overrides && c.callee != NONE)
            .map(|c| self.strings.str(c.callee))
    }

    fn pick(&self, lookup: &Lookup, key: &str) -> Vec<Arc<Stored>> {
        let Some(key) = self.strings.get(key) else {
            return Vec::new();
        };
        lookup
            .of(key)
            .iter()
            .map(|&i| Arc::new(self.edge(&self.edges[i as usize])))
            .collect()
    }

    /// Edge `c` made whole again.
    fn edge(&self, c: &Compact) -> Stored {
        let s = |id: u32| self.strings.str(id).to_owned();
        let opt = |id: u32| (id != NONE).then(|| s(id));
        let from = c.receivers_from as usize;
        let receiver = self.receivers[from..from + c.receivers_len as usize]
            .iter()
            .map(|&r| s(r))
            .collect();
        Stored {
            caller_file: s(c.caller_file),
            caller: s(c.caller),
            caller_name: s(c.caller_name),
            line: c.line,
            kind: c.kind,
            callee: opt(c.callee),
            callee_name: s(c.callee_name),
            callee_file: opt(c.callee_file),
            callee_line: c.callee_line,
            caller_flags: c.caller_flags,
            confidence: c.confidence,
            detail: s(c.detail),
            site: CallSite {
                receiver,
                flags: c.site_flags,
            },
        }
    }
}

/// Builds an [`EdgeTable`] one edge at a time, so that a whole graph of full edges is never
/// held while it is read.
#[derive(Default)]
struct Builder {
    strings: Strings,
    /// Each edge with its position among its use-site file's edges: edges may come in any
    /// order, and are held by use-site file, then position.
    edges: Vec<(u32, Compact)>,
    receivers: Vec<u32>,
}

impl Builder {
    /// Holds `e` if a walk uses it; `ord` is its position among its use-site file's edges.
    fn push(&mut self, ord: u32, e: &Stored) {
        if !walked(e) {
            return;
        }
        let st = &mut self.strings;
        let receivers_from = self.receivers.len() as u32;
        for r in &e.site.receiver {
            self.receivers.push(st.intern(r));
        }
        let opt =
            |st: &mut Strings, v: &Option<String>| v.as_deref().map_or(NONE, |v| st.intern(v));
        let callee = opt(st, &e.callee);
        let c = Compact {
            caller_file: st.intern(&e.caller_file),
            caller: st.intern(&e.caller),
            caller_name: st.intern(&e.caller_name),
            callee,
            callee_name: st.intern(&e.callee_name),
            callee_file: opt(st, &e.callee_file),
            detail: st.intern(&e.detail),
            line: e.line,
            callee_line: e.callee_line,
            confidence: e.confidence,
            receivers_from,
            receivers_len: e.site.receiver.len().min(u16::MAX as usize) as u16,
            kind: e.kind,
            caller_flags: e.caller_flags,
            site_flags: e.site.flags,
        };
        self.receivers
            .truncate(receivers_from as usize + c.receivers_len as usize);
        self.edges.push((ord, c));
    }

    fn finish(self, snapshot: SnapshotKey) -> EdgeTable {
        let keys = self.strings.len();
        let st = &self.strings;
        let mut placed = self.edges;
        // Stable: edges that came in order stay in it.
        placed.sort_by(|(a_ord, a), (b_ord, b)| {
            (st.str(a.caller_file), a_ord).cmp(&(st.str(b.caller_file), b_ord))
        });
        let mut edges: Vec<Compact> = placed.into_iter().map(|(_, c)| c).collect();
        let mut receivers = self.receivers;
        edges.shrink_to_fit();
        receivers.shrink_to_fit();
        let to: Vec<u32> = edges.iter().map(|c| c.callee).collect();
        let from: Vec<u32> = edges.iter().map(|c| c.caller).collect();
        EdgeTable {
            snapshot,
            to: Lookup::new(keys, &to),
            from: Lookup::new(keys, &from),
            strings: self.strings.done(),
            edges,
            receivers,
        }
    }
}

/// Edge indices grouped by a key (a string id), each group in edge order: group `k` is
/// `order[starts[k]..starts[k + 1]]`.
struct Lookup {
    starts: Vec<u32>,
    order: Vec<u32>,
}

impl Lookup {
    /// `key_of[i]` is edge `i`'s key, below `keys`.
    fn new(keys: usize, key_of: &[u32]) -> Lookup {
        let mut starts = vec![0u32; keys + 1];
        for &k in key_of {
            starts[k as usize + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; key_of.len()];
        for (i, &k) in key_of.iter().enumerate() {
            order[next[k as usize] as usize] = i as u32;
            next[k as usize] += 1;
        }
        Lookup { starts, order }
    }

    fn of(&self, key: u32) -> &[u32] {
        let k = key as usize;
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.order[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Distinct strings, each stored once in one buffer and named by its position in first-seen
/// order.
#[derive(Default)]
struct Strings {
    buf: String,
    /// String `i` is `buf[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<u32>,
    ids: HashTable<u32>,
}

impl Strings {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn str(&self, id: u32) -> &str {
        slice(&self.buf, &self.ends, id)
    }

    fn get(&self, s: &str) -> Option<u32> {
        let (buf, ends) = (&self.buf, &self.ends);
        self.ids
            .find(hash(s), |&id| slice(buf, ends, id) == s)
            .copied()
    }

    fn intern(&mut self, s: &str) -> u32 {
        let Strings { buf, ends, ids } = self;
        let h = hash(s);
        if let Some(&id) = ids.find(h, |&id| slice(buf, ends, id) == s) {
            return id;
        }
        let id = ends.len() as u32;
        buf.push_str(s);
        ends.push(buf.len() as u32);
        ids.insert_unique(h, id, |&id| hash(slice(buf, ends, id)));
        id
    }

    /// Frees what was reserved for growth.
    fn done(mut self) -> Strings {
        self.buf.shrink_to_fit();
        self.ends.shrink_to_fit();
        let (buf, ends) = (&self.buf, &self.ends);
        self.ids.shrink_to_fit(|&id| hash(slice(buf, ends, id)));
        self
    }
}

fn slice<'s>(buf: &'s str, ends: &[u32], id: u32) -> &'s str {
    let i = id as usize;
    let from = if i == 0 { 0 } else { ends[i - 1] as usize };
    &buf[from..ends[i] as usize]
}

fn hash(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexer::model::SnapshotKey;

    fn edge(i: usize) -> Stored {
        let caller = format!("java:p.C{}#m{}()", i % 7, i % 3);
        let resolved = !i.is_multiple_of(5);
        let kinds = [
            EdgeKind::Call,
            EdgeKind::Read,
            EdgeKind::Overrides,
            EdgeKind::Route,
        ];
        Stored {
            caller_file: format!("src/C{}.java", i % 7),
            caller_name: format!("p.C{}.m{}", i % 7, i % 3),
            caller,
            line: i as u32,
            kind: kinds[(i / 2) % 4],
            callee: resolved.then(|| format!("java:p.D{}#n()", i % 4)),
            callee_name: if resolved {
                format!("p.D{}.n", i % 4)
            } else {
                "gone".into()
            },
            callee_file: (resolved && i % 3 != 1).then(|| format!("src/D{}.java", i % 4)),
            callee_line: i.is_multiple_of(3).then_some(i as u32 * 10),
            caller_flags: (i % 3) as u8,
            confidence: 1.0 - (i % 4) as f32 / 10.0,
            detail: if i.is_multiple_of(6) {
                "bean".into()
            } else {
                String::new()
            },
            site: CallSite {
                receiver: (0..i % 3).map(|r| format!("r{r}")).collect(),
                flags: (i % 16) as u8,
            },
        }
    }

    /// The lookups a plain map of whole edges gives, which the compact table must match.
    fn naive(edges: &[Stored], to: bool, key: &str) -> Vec<Stored> {
        let key_of = |e: &Stored| match (to, &e.callee) {
            (false, _) => e.caller.clone(),
            (true, Some(c)) => c.clone(),
            (true, None) => format!("?{}", e.callee_name),
        };
        edges
            .iter()
            .filter(|e| walked(e) && key_of(e) == key)
            .cloned()
            .collect()
    }

    /// 200 edges in catalog order: by use-site file, then position.
    fn catalog() -> Vec<Stored> {
        let mut edges: Vec<Stored> = (0..200).map(edge).collect();
        edges.sort_by(|a, b| a.caller_file.cmp(&b.caller_file));
        edges
    }

    #[test]
    fn every_edge_comes_back_whole_by_caller_and_by_callee_in_order() {
        let edges = catalog();
        let snapshot = SnapshotKey {
            generation: 3,
            publish: 0,
        };
        let table = EdgeTable::new(snapshot, edges.clone());
        let held = edges.iter().filter(|e| walked(e)).count();
        assert!(held > 50 && held < 150, "a mix of kept and left-out edges");
        assert_eq!(table.len(), held);
        let whole = |v: Vec<Arc<Stored>>| v.iter().map(|e| (**e).clone()).collect::<Vec<_>>();
        let mut seen = 0;
        for e in &edges {
            assert_eq!(
                whole(table.edges_from(&e.caller)),
                naive(&edges, false, &e.caller)
            );
            let key = e.callee.clone().unwrap_or(format!("?{}", e.callee_name));
            let to = whole(table.edges_to(&key));
            assert_eq!(to, naive(&edges, true, &key));
            seen += to.iter().filter(|t| *t == e).count();
        }
        assert!(seen >= held, "every edge held is found by its callee key");
        assert!(table.edges_to("java:p.Nobody#x()").is_empty());
        assert!(
            table.edges_from("src/C1.java").is_empty(),
            "a file is not a caller key"
        );
        assert!(
            table.edges_to("?gone").is_empty(),
            "unresolved calls are not walked"
        );
    }

    #[test]
    fn edges_read_in_any_order_with_their_positions_make_the_same_table() {
        let edges = catalog();
        let snapshot = SnapshotKey {
            generation: 3,
            publish: 0,
        };
        let in_order = EdgeTable::new(snapshot, edges.clone());
        let mut placed: Vec<(u32, &Stored)> = Vec::new();
        for (i, e) in edges.iter().enumerate() {
            let ord = edges[..i]
                .iter()
                .filter(|o| o.caller_file == e.caller_file)
                .count();
            placed.push((ord as u32, e));
        }
        // A server's order: every third edge first, the rest backwards.
        let mut shuffled: Vec<(u32, &Stored)> = placed.iter().step_by(3).copied().collect();
        shuffled.extend(
            placed
                .iter()
                .enumerate()
                .rev()
                .filter(|(i, _)| i % 3 != 0)
                .map(|(_, p)| *p),
        );
        let mut b = Builder::default();
        for (ord, e) in shuffled {
            b.push(ord, e);
        }
        let any_order = b.finish(snapshot);
        let whole = |v: Vec<Arc<Stored>>| v.iter().map(|e| (**e).clone()).collect::<Vec<_>>();
        for e in &edges {
            assert_eq!(
                whole(any_order.edges_from(&e.caller)),
                whole(in_order.edges_from(&e.caller))
            );
            if let Some(c) = &e.callee {
                assert_eq!(whole(any_order.edges_to(c)), whole(in_order.edges_to(c)));
            }
        }
        assert_eq!(any_order.len(), in_order.len());
    }
}
