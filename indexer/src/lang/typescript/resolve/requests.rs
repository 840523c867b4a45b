//! HTTP requests, for [`crate::graph::http::link`] to meet with the routes that serve them in
//! whatever language. A URL may be a property of another module's exported object
//! (`api.GoodsList` from `module.exports = { GoodsList: WxApiRoot + 'goods/list' }`). A request
//! wrapper, a function whose request takes its URL (and method) from its parameters
//! (`function request(url, data, method) { wx.request({ url: url, method: method }) }`), makes
//! the request each of its callers names (`util.request(api.GoodsList, {}, 'POST')`) instead.

use super::super::facts::{TsCall, TsDef, TsFacts};
use super::super::http::TsRequest;
use super::{Repo, Target, V};
use crate::graph::{CallSite, Edge, EdgeKind};
use std::collections::HashMap;

/// Which of a wrapper's parameters give its request's URL and method.
#[derive(Debug, Clone)]
pub(super) struct Wrapper {
    url: usize,
    method: Option<usize>,
    /// The method when the caller gives none (`ANY` when it is a parameter or not written).
    verb: String,
}

/// The parameter of `d` a request's URL is, when it is one whole.
fn url_param(d: &TsDef, r: &TsRequest) -> Option<usize> {
    let name = r.url.strip_prefix('{')?.strip_suffix('}')?;
    d.params.iter().position(|(p, _)| p == name)
}

/// Whether request `r` is a wrapper's, made with whatever URL its callers give.
pub(super) fn is_wrapped(f: &TsFacts, r: &TsRequest) -> bool {
    url_param(&f.defs[r.scope as usize], r).is_some()
}

/// Every wrapper of the repository, by (file, definition).
pub(super) fn wrappers(ts: &[Option<TsFacts>]) -> HashMap<(usize, u32), Wrapper> {
    let mut out = HashMap::new();
    for (fi, f) in ts.iter().enumerate() {
        let Some(f) = f else { continue };
        for r in &f.requests {
            let d = &f.defs[r.scope as usize];
            let Some(url) = url_param(d, r) else { continue };
            let method = (!r.method_from.is_empty())
                .then(|| d.params.iter().position(|(p, _)| *p == r.method_from))
                .flatten();
            out.insert(
                (fi, r.scope),
                Wrapper {
                    url,
                    method,
                    verb: r.verb.clone(),
                },
            );
        }
    }
    out
}

const VERBS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

impl Repo<'_> {
    /// The requests file `fi` makes itself (a wrapper's is made by its callers).
    pub(super) fn request_edges(&self, fi: usize, f: &TsFacts) -> Vec<Edge> {
        f.requests
            .iter()
            .filter(|q| !is_wrapped(f, q))
            .map(|q| {
                let url = self.expanded(fi, q.scope, q.line, &q.url);
                self.request_edge(fi, f, q.scope, q.line, &q.verb, &url)
            })
            .collect()
    }

    /// The requests call `c` of file `fi` makes through the wrappers among its `targets`.
    pub(super) fn wrapped_requests(
        &self,
        fi: usize,
        f: &TsFacts,
        c: &TsCall,
        targets: &[Target],
    ) -> Vec<Edge> {
        let mut out = Vec::new();
        for t in targets {
            let Target::Def(tf, td) = t else { continue };
            let Some(w) = self.wrappers.get(&(*tf, *td)) else {
                continue;
            };
            let Some(Some(url)) = c.args.get(w.url) else {
                continue;
            };
            let verb = w
                .method
                .and_then(|m| c.args.get(m).cloned().flatten())
                .map(|v| v.to_ascii_uppercase())
                .filter(|v| VERBS.contains(&v.as_str()))
                .unwrap_or_else(|| w.verb.clone());
            let url = self.expanded(fi, c.scope, c.line, url);
            out.push(self.request_edge(fi, f, c.scope, c.line, &verb, &url));
        }
        out
    }

    fn request_edge(
        &self,
        fi: usize,
        f: &TsFacts,
        scope: u32,
        line: u32,
        verb: &str,
        url: &str,
    ) -> Edge {
        let mut e = Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: f.defs[scope as usize].id.clone(),
            caller_name: String::new(),
            line,
            kind: EdgeKind::Rpc,
            callee: None,
            callee_name: String::new(),
            callee_file: None,
            callee_line: None,
            caller_flags: 0,
            confidence: 0.3,
            detail: String::new(),
            site: CallSite::default(),
        };
        crate::graph::http::make_request(&mut e, verb, url);
        e
    }

    /// `url` with each `{module.NAME}` whose module exports a URL under `NAME`, and each `{NAME}`
    /// imported from a module's string constant, replaced by it, the names seen from `scope` on
    /// `line` of file `fi`.
    fn expanded(&self, fi: usize, scope: u32, line: u32, url: &str) -> String {
        let mut out = url.to_string();
        let mut from = 0;
        while let Some(open) = out[from..].find('{').map(|i| from + i) {
            let Some(close) = out[open..].find('}').map(|i| open + i) else {
                break;
            };
            let name = &out[open + 1..close];
            let (head, prop) = name.split_once('.').unwrap_or((name, ""));
            let exported = |mf: usize, key: &str| {
                let urls = &self.facts(mf)?.urls;
                urls.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
            };
            let value = match self.chain_at(fi, scope, &[head.to_string()], line, 0) {
                Some(V::Module(mf)) if !prop.is_empty() => exported(mf, prop),
                // A constant imported by name (`import { ORDERS } from './urls'`).
                Some(V::Def(mf, md)) if prop.is_empty() && mf != fi => {
                    exported(mf, &self.def(mf, md).name)
                }
                _ => None,
            };
            match value {
                Some(v) => {
                    out.replace_range(open..=close, &v);
                    from = open + v.len();
                }
                None => from = close + 1,
            }
        }
        out
    }
}
