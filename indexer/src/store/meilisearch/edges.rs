//! The call graph in Meilisearch: one `edges` document per edge, and one `edge_files` document
//! per use-site file holding the hash of that file's edges.
//!
//! The graph is re-resolved across the whole repository on every run, so a file's edges can
//! change while its text does not. Publishing therefore compares edge hashes per use-site file
//! (local catalog against `edge_files`) rather than following changed paths. Order makes it
//! converge after a crash: a file's edges are deleted and re-added first, and only once those
//! tasks succeeded is its `edge_files` hash written; an interrupted publish leaves the old hash
//! behind, so the next one redoes that file.

use super::{BATCH_PATHS, MeiliStore, doc_id, meili_err, quote};

/// Edge documents per add request (~300 bytes each: a few MB, far under the 100 MB limit).
const EDGE_PAYLOAD: usize = 20_000;
use crate::graph::CallSite;
use crate::graph::{Edge, EdgeKind};
use crate::store::StoreError;
use crate::store::catalog::Catalog;
use meilisearch_sdk::documents::{DocumentDeletionQuery, DocumentsQuery};
use meilisearch_sdk::task_info::TaskInfo;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct EdgeDoc {
    id: String,
    repo: String,
    caller_file: String,
    /// Position within the use-site file's edges: reads sort by (caller_file, ord), the order
    /// the embedded catalog returns.
    ord: u32,
    caller: String,
    caller_flags: u8,
    line: u32,
    kind: EdgeKind,
    callee: Option<String>,
    callee_name: String,
    callee_file: Option<String>,
    callee_line: Option<u32>,
    confidence: f32,
    detail: String,
    /// Documents published before call sites were recorded read as an empty site.
    #[serde(default)]
    site: CallSite,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct EdgeFileDoc {
    id: String,
    repo: String,
    file: String,
    hash: String,
}

impl EdgeDoc {
    fn new(repo: &str, ord: u32, e: &Edge) -> EdgeDoc {
        EdgeDoc {
            id: doc_id(repo, &["edge", &e.caller_file, &ord.to_string()]),
            repo: repo.to_string(),
            caller_file: e.caller_file.clone(),
            ord,
            caller: e.caller.clone(),
            caller_flags: e.caller_flags,
            line: e.line,
            kind: e.kind,
            callee: e.callee.clone(),
            callee_name: e.callee_name.clone(),
            callee_file: e.callee_file.clone(),
            callee_line: e.callee_line,
            confidence: e.confidence,
            detail: e.detail.clone(),
            site: e.site.clone(),
        }
    }

    fn into_edge(self) -> Edge {
        let mut e = Edge {
            caller_file: self.caller_file,
            caller: self.caller,
            caller_name: String::new(),
            line: self.line,
            kind: self.kind,
            callee: self.callee,
            callee_name: self.callee_name,
            callee_file: self.callee_file,
            callee_line: self.callee_line,
            caller_flags: self.caller_flags,
            confidence: self.confidence,
            detail: self.detail,
            site: self.site,
        };
        e.normalize_names();
        e
    }
}

/// What publishing the graph did: use-site files whose edges were replaced or removed.
#[derive(Debug, Default)]
pub(super) struct EdgePublish {
    pub files: usize,
    pub tasks: usize,
}

impl MeiliStore {
    /// Brings the server's edges in line with the catalog's (see the module comment). Waits for
    /// every task; the caller writes the snapshot document afterwards.
    pub(super) fn publish_edges(&self, catalog: &Catalog) -> Result<EdgePublish, StoreError> {
        let local = catalog.edge_hashes()?;
        let remote: HashMap<String, String> = self
            .fetch_all::<EdgeFileDoc>("edge_files", None)?
            .into_iter()
            .map(|d| (d.file, d.hash))
            .collect();
        let mut stale: Vec<&String> = local
            .iter()
            .filter(|(f, h)| remote.get(*f) != Some(h))
            .map(|(f, _)| f)
            .chain(remote.keys().filter(|f| !local.contains_key(*f)))
            .collect();
        stale.sort();
        let mut out = EdgePublish {
            files: stale.len(),
            ..Default::default()
        };
        if stale.is_empty() {
            return Ok(out);
        }
        // Every delete first, then every add in large payloads, awaited once: the server merges
        // consecutive tasks of one kind into one batch (a task per group of files, each awaited,
        // kept it at ~3,000 edges a batch: 88 of a 1M-line publish's 136 s). Tasks of one index
        // run in the order they were sent, so a file's old edges go before its new ones arrive.
        let mut tasks = Vec::new();
        if remote.is_empty() {
            // Nothing recorded on the server (a first publish, or one that died before any
            // hash): whatever edges it holds for this repository are stale.
            tasks.push(self.delete_where("edges", &self.scope())?);
        } else {
            for batch in stale.chunks(BATCH_PATHS) {
                let list: Vec<String> = batch.iter().map(|p| quote(p)).collect();
                let filter = format!("{} AND caller_file IN [{}]", self.scope(), list.join(", "));
                tasks.push(self.delete_where("edges", &filter)?);
            }
        }
        crate::pipeline::crash_point("meili-between-edge-delete-and-add");
        let mut docs = Vec::new();
        let mut hashes = Vec::new();
        for f in &stale {
            let Some(hash) = local.get(*f) else { continue };
            let edges = catalog.edges_in_file(f)?;
            docs.extend(
                edges
                    .iter()
                    .enumerate()
                    .map(|(i, e)| EdgeDoc::new(&self.cfg.repo, i as u32, e)),
            );
            hashes.push(EdgeFileDoc {
                id: doc_id(&self.cfg.repo, &["edge_file", f]),
                repo: self.cfg.repo.clone(),
                file: f.to_string(),
                hash: hash.clone(),
            });
            // Sent as it fills, so the documents in memory stay one payload.
            if docs.len() >= EDGE_PAYLOAD {
                tasks.extend(self.add_sized("edges", &docs, EDGE_PAYLOAD)?);
                docs.clear();
            }
        }
        tasks.extend(self.add_sized("edges", &docs, EDGE_PAYLOAD)?);
        out.tasks += tasks.len();
        for t in tasks {
            self.wait(t)?;
        }
        // The hashes last: only now are these files' edges on the server.
        let mut tasks = Vec::new();
        for batch in stale.chunks(BATCH_PATHS).filter(|_| !remote.is_empty()) {
            let list: Vec<String> = batch.iter().map(|p| quote(p)).collect();
            let filter = format!("{} AND file IN [{}]", self.scope(), list.join(", "));
            tasks.push(self.delete_where("edge_files", &filter)?);
        }
        tasks.extend(self.add_sized("edge_files", &hashes, EDGE_PAYLOAD)?);
        out.tasks += tasks.len();
        for t in tasks {
            self.wait(t)?;
        }
        Ok(out)
    }

    /// Enqueues a delete of the documents of index `name` matching `filter`.
    pub(super) fn delete_where(&self, name: &str, filter: &str) -> Result<TaskInfo, StoreError> {
        let idx = self.index(name);
        let mut q = DocumentDeletionQuery::new(&idx);
        q.with_filter(filter);
        self.rt
            .block_on(idx.delete_documents_with(&q))
            .map_err(meili_err)
    }

    /// Every edge of the repo scope to `f`, in catalog order (by use-site file, then position).
    /// The server gives its own order, so each page's edges are held encoded until all are read
    /// and sorted: corpus-1m's 300k edges held as documents took ~180 MB at once.
    pub(super) fn each_edge(
        &self,
        f: &mut dyn FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut held = HeldEdges::default();
        let mut failed = None;
        self.fetch_pages::<EdgeDoc>("edges", None, None, |page| {
            if let Err(e) = held.page(page) {
                failed.get_or_insert(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        held.each_sorted(f)
    }

    /// Every edge of the repo scope to `f` with its position in its use-site file, a page at a
    /// time in the server's order.
    pub(super) fn each_edge_unordered(
        &self,
        f: &mut dyn FnMut(u32, Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut failed = None;
        self.fetch_pages::<EdgeDoc>("edges", None, None, |page| {
            for d in page {
                if failed.is_some() {
                    return;
                }
                let ord = d.ord;
                if let Err(e) = f(ord, d.into_edge()) {
                    failed = Some(e);
                }
            }
        })?;
        failed.map_or(Ok(()), Err)
    }

    /// Edges matching `filter` within the repo scope, in catalog order.
    pub(super) fn edges_where(&self, filter: &str) -> Result<Vec<Edge>, StoreError> {
        let mut docs = self.fetch_all::<EdgeDoc>("edges", Some(filter))?;
        docs.sort_by(|a, b| (&a.caller_file, a.ord).cmp(&(&b.caller_file, b.ord)));
        Ok(docs.into_iter().map(EdgeDoc::into_edge).collect())
    }

    /// Exact number of this repo's documents in index `name`, optionally narrowed by `filter`
    /// (the documents route reports a total; search's estimate stops at `maxTotalHits`).
    pub(super) fn count_where(
        &self,
        name: &str,
        filter: Option<&str>,
    ) -> Result<usize, StoreError> {
        let idx = self.index(name);
        let filter = match filter {
            Some(f) => format!("{} AND ({f})", self.scope()),
            None => self.scope(),
        };
        let mut q = DocumentsQuery::new(&idx);
        q.with_filter(&filter).with_fields(["id"]).with_limit(1);
        match self
            .rt
            .block_on(idx.get_documents_with::<serde_json::Value>(&q))
        {
            Ok(page) => Ok(page.total as usize),
            Err(meilisearch_sdk::errors::Error::Meilisearch(e))
                if e.error_code == meilisearch_sdk::errors::ErrorCode::IndexNotFound =>
            {
                Ok(0)
            }
            Err(e) => Err(meili_err(e)),
        }
    }

    pub(super) fn count(&self, name: &str) -> Result<usize, StoreError> {
        self.count_where(name, None)
    }
}

/// Edges read page by page, each page's encoded in one buffer, with their sort keys.
#[derive(Default)]
struct HeldEdges {
    files: Vec<String>,
    file_ids: std::collections::HashMap<String, u32>,
    pages: Vec<Vec<u8>>,
    /// (use-site file, position in it, page, offset in the page).
    keys: Vec<(u32, u32, u32, u32)>,
}

impl HeldEdges {
    fn page(&mut self, docs: Vec<EdgeDoc>) -> Result<(), StoreError> {
        let page = self.pages.len() as u32;
        let mut buf = Vec::new();
        for d in docs {
            let next = self.files.len() as u32;
            let file = *self.file_ids.entry(d.caller_file.clone()).or_insert(next);
            if file == next {
                self.files.push(d.caller_file.clone());
            }
            self.keys.push((file, d.ord, page, buf.len() as u32));
            bincode::serialize_into(&mut buf, &d.into_edge()).map_err(encoding)?;
        }
        buf.shrink_to_fit();
        self.pages.push(buf);
        Ok(())
    }

    fn each_sorted(
        self,
        f: &mut dyn FnMut(Edge) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut by_path: Vec<u32> = (0..self.files.len() as u32).collect();
        by_path.sort_by(|&a, &b| self.files[a as usize].cmp(&self.files[b as usize]));
        let mut rank = vec![0u32; self.files.len()];
        for (r, &file) in by_path.iter().enumerate() {
            rank[file as usize] = r as u32;
        }
        let mut keys = self.keys;
        keys.sort_by_key(|&(file, ord, _, _)| (rank[file as usize], ord));
        for (_, _, page, at) in keys {
            let bytes = &self.pages[page as usize][at as usize..];
            f(bincode::deserialize(bytes).map_err(encoding)?)?;
        }
        Ok(())
    }
}

fn encoding(e: bincode::Error) -> StoreError {
    StoreError::Backend(format!("meilisearch: edges held while read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{SITE_PARAM, SITE_RETURNED};

    fn edge(kind: EdgeKind, site: CallSite) -> Edge {
        Edge {
            caller_file: "src/A.java".into(),
            caller: "java:p.A#run()".into(),
            caller_name: String::new(),
            line: 7,
            kind,
            callee: Some("java:p.B#go(int)".into()),
            callee_name: String::new(),
            callee_file: Some("src/B.java".into()),
            callee_line: Some(3),
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site,
        }
    }

    #[test]
    fn call_sites_and_read_edges_round_trip_and_old_documents_read_as_empty_sites() {
        let site = CallSite {
            receiver: vec!["engine".into(), "getHost".into()],
            flags: SITE_RETURNED | SITE_PARAM,
        };
        for e in [
            edge(EdgeKind::Call, site),
            edge(EdgeKind::Read, CallSite::default()),
        ] {
            let json = serde_json::to_value(EdgeDoc::new("r", 0, &e)).unwrap();
            let back: EdgeDoc = serde_json::from_value(json).unwrap();
            let mut want = e.clone();
            want.normalize_names();
            assert_eq!(back.into_edge(), want);
        }
        // Published before call sites were recorded: read, not rejected.
        let mut old = serde_json::to_value(EdgeDoc::new(
            "r",
            0,
            &edge(EdgeKind::Call, CallSite::default()),
        ))
        .unwrap();
        old.as_object_mut().unwrap().remove("site");
        let back: EdgeDoc = serde_json::from_value(old).unwrap();
        assert_eq!(back.into_edge().site, CallSite::default());
    }

    #[test]
    fn edges_read_in_the_servers_order_come_out_by_use_site_file_then_position() {
        let at = |file: &str, line: u32| {
            let mut e = edge(EdgeKind::Call, CallSite::default());
            e.caller_file = file.into();
            e.line = line;
            e
        };
        // (file, position): files and positions interleaved over two pages.
        let pages = [
            vec![("src/B.java", 1), ("src/A.java", 2), ("a/Z.java", 0)],
            vec![("src/A.java", 0), ("src/B.java", 0), ("src/A.java", 1)],
        ];
        let mut held = HeldEdges::default();
        for page in &pages {
            let docs = page
                .iter()
                .map(|&(f, ord)| EdgeDoc::new("r", ord, &at(f, 100 + ord)))
                .collect();
            held.page(docs).unwrap();
        }
        let mut out = Vec::new();
        held.each_sorted(&mut |e| {
            out.push((e.caller_file.clone(), e.line));
            Ok(())
        })
        .unwrap();
        let want = [
            ("a/Z.java", 100),
            ("src/A.java", 100),
            ("src/A.java", 101),
            ("src/A.java", 102),
            ("src/B.java", 100),
            ("src/B.java", 101),
        ];
        let want: Vec<(String, u32)> = want.iter().map(|&(f, l)| (f.into(), l)).collect();
        assert_eq!(out, want);
        // Whole edges come back, names normalised as a read gives them.
        let mut held = HeldEdges::default();
        let site = CallSite {
            receiver: vec!["engine".into()],
            flags: SITE_RETURNED,
        };
        let e = edge(EdgeKind::Call, site);
        held.page(vec![EdgeDoc::new("r", 0, &e)]).unwrap();
        let mut back = Vec::new();
        held.each_sorted(&mut |e| {
            back.push(e);
            Ok(())
        })
        .unwrap();
        let mut want = e;
        want.normalize_names();
        assert_eq!(back, [want]);
    }
}
