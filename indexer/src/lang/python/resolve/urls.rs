//! Django URLconfs → `route:` edges: each urls module's `urlpatterns` (and the lists an
//! `include(name)` mounts) under the prefixes of the entries that include it, from the
//! URLconfs nobody includes (the root, mounted at `/`); a view function answers any method
//! (unless `@require_POST`, `@require_http_methods([…])` or DRF's `@api_view([…])` say
//! which); a class-based view's `get`/`post`/… methods answer theirs; a DRF router's
//! `register(prefix, ViewSet)` gives the viewset's actions (`list`, `retrieve`, …, `@action`).

use super::{Repo, V, join_path};
use crate::graph::{CallSite, Edge, EdgeKind};
use crate::lang::python::urlconf::UrlView;
use crate::model::SymbolKind;
use rustc_hash::FxHashMap as HashMap;

/// A list of URL entries: (file, module-level name); a router is one too.
type Group = (usize, String);

/// How many prefixes one group is mounted under at most (a URLconf included in many places).
const MAX_MOUNTS: usize = 16;

const VERBS: [&str; 7] = ["get", "post", "put", "patch", "delete", "head", "options"];

/// DRF viewset actions: (action, verb, on one object).
const ACTIONS: [(&str, &str, bool); 6] = [
    ("list", "GET", false),
    ("create", "POST", false),
    ("retrieve", "GET", true),
    ("update", "PUT", true),
    ("partial_update", "PATCH", true),
    ("destroy", "DELETE", true),
];

/// A router registration: `router.register(r"orders", OrderViewSet)`.
struct Registered {
    fi: usize,
    line: u32,
    prefix: String,
    viewset: (usize, u32),
}

impl Repo<'_, '_> {
    /// Route edges of every URLconf, by the file that declares them.
    pub(super) fn url_routes(&self) -> HashMap<usize, Vec<Edge>> {
        let routers = self.registrations();
        let mounts = self.url_mounts(&routers);
        let mut out: HashMap<usize, Vec<Edge>> = HashMap::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for u in &f.urls {
                let Some(prefixes) = mounts.get(&(fi, u.list.clone())) else {
                    continue;
                };
                let handlers = match &u.view {
                    UrlView::View(c) => self.view_handlers(fi, u.scope, c, u.line, false),
                    UrlView::AsView(c) => self.view_handlers(fi, u.scope, c, u.line, true),
                    UrlView::Include(_) | UrlView::IncludeChain(_) => continue,
                };
                for p in prefixes {
                    let path = join_path(&[p, &u.route]);
                    for (verb, h) in &handlers {
                        out.entry(fi)
                            .or_default()
                            .push(self.route_to(fi, u.line, verb, &path, *h));
                    }
                }
            }
        }
        for (group, regs) in &routers {
            let prefixes = mounts
                .get(group)
                .or_else(|| mounts.get(&(group.0, "urlpatterns".to_string())));
            for r in regs {
                for p in prefixes.into_iter().flatten() {
                    for (verb, sub, h) in self.viewset_actions(r.viewset) {
                        let path = join_path(&[p, &r.prefix, &sub]);
                        out.entry(r.fi)
                            .or_default()
                            .push(self.route_to(r.fi, r.line, &verb, &path, h));
                    }
                }
            }
        }
        out
    }

    /// Every group's prefixes: the roots' `/`, and down each `include` the includer's
    /// prefixes joined with the entry's route.
    fn url_mounts(&self, routers: &HashMap<Group, Vec<Registered>>) -> HashMap<Group, Vec<String>> {
        let mut includes: Vec<(Group, String, Group)> = Vec::new();
        let mut groups: Vec<Group> = Vec::new();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for u in &f.urls {
                let g = (fi, u.list.clone());
                if !groups.contains(&g) {
                    groups.push(g.clone());
                }
                let to = match &u.view {
                    UrlView::Include(m) => self
                        .modules
                        .get(m.as_str())
                        .map(|&t| (t, "urlpatterns".to_string())),
                    UrlView::IncludeChain(c) => self.url_group(fi, u.scope, c),
                    _ => None,
                };
                if let Some(to) = to {
                    includes.push((g, u.route.clone(), to));
                }
            }
        }
        groups.extend(routers.keys().cloned());
        let mut mounts: HashMap<Group, Vec<String>> = HashMap::default();
        let mut todo: Vec<Group> = Vec::new();
        for g in groups {
            let included = includes.iter().any(|(_, _, to)| *to == g);
            if g.1 == "urlpatterns" && !included {
                mounts.insert(g.clone(), vec![String::new()]);
                todo.push(g);
            }
        }
        while let Some(g) = todo.pop() {
            let from = mounts.get(&g).cloned().unwrap_or_default();
            for (_, route, to) in includes.iter().filter(|(at, _, _)| *at == g) {
                let there = mounts.entry(to.clone()).or_default();
                let mut grew = false;
                for p in &from {
                    let path = join_path(&[p, route]);
                    if there.len() < MAX_MOUNTS && !there.contains(&path) {
                        there.push(path);
                        grew = true;
                    }
                }
                if grew {
                    todo.push(to.clone());
                }
            }
        }
        mounts
    }

    /// The group `include(chain)` names: a urls module, a router (`router.urls`), a list.
    fn url_group(&self, fi: usize, scope: u32, chain: &[String]) -> Option<Group> {
        if let Some(V::Module(m)) = self.chain(fi, scope, chain, 0) {
            return Some((*self.modules.get(m.as_str())?, "urlpatterns".to_string()));
        }
        match chain {
            [.., last] if last == "urls" && chain.len() > 1 => {
                let receiver = &chain[..chain.len() - 1];
                match self.chain(fi, scope, receiver, 0) {
                    Some(V::Module(m)) => {
                        Some((*self.modules.get(m.as_str())?, "urlpatterns".to_string()))
                    }
                    _ => self.group_binding(fi, scope, receiver),
                }
            }
            _ => self.group_binding(fi, scope, chain),
        }
    }

    /// `router.register(prefix, ViewSet)` calls, by router.
    fn registrations(&self) -> HashMap<Group, Vec<Registered>> {
        let mut out: HashMap<Group, Vec<Registered>> = HashMap::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for c in &f.calls {
                let Some((last, receiver)) = c.chain.split_last() else {
                    continue;
                };
                if last != "register" || receiver.is_empty() || c.args.len() < 2 {
                    continue;
                }
                let is_router = match self.chain_at(fi, c.scope, receiver, c.line, 0) {
                    Some(V::External(x)) => x.contains("Router"),
                    Some(V::Instance(cf, cd)) => self.def(cf, cd).name.contains("Router"),
                    _ => false,
                };
                let (Some(prefix), Some(viewset)) = (
                    c.args[0].literals.first(),
                    c.args[1].value.as_ref().and_then(|v| {
                        match self.chain_at(fi, c.scope, v, c.line, 0)? {
                            V::Def(vf, vd) if self.def(vf, vd).kind == SymbolKind::Class => {
                                Some((vf, vd))
                            }
                            _ => None,
                        }
                    }),
                ) else {
                    continue;
                };
                let Some(group) = is_router
                    .then(|| self.group_binding(fi, c.scope, receiver))
                    .flatten()
                else {
                    continue;
                };
                out.entry(group).or_default().push(Registered {
                    fi,
                    line: c.line,
                    prefix: prefix.clone(),
                    viewset,
                });
            }
        }
        out
    }

    /// The handlers of a view: a function (its verbs from its decorators, else `ANY`), or a
    /// class's verb methods (the class itself, for `ANY`, when it defines none in the project).
    fn view_handlers(
        &self,
        fi: usize,
        scope: u32,
        chain: &[String],
        line: u32,
        as_view: bool,
    ) -> Vec<(String, (usize, u32))> {
        // A property given as a view (`admin.site.urls`) is the code that builds it.
        let view = match self.property_at(fi, scope, chain, line) {
            Some((pf, pd)) => Some(V::Def(pf, pd)),
            None => self.chain_at(fi, scope, chain, line, 0),
        };
        let Some(V::Def(vf, vd)) = view else {
            return Vec::new();
        };
        let def = self.def(vf, vd);
        match def.kind {
            SymbolKind::Class => {
                let mut out: Vec<(String, (usize, u32))> = VERBS
                    .iter()
                    .filter_map(|v| {
                        let m = self.member(vf, vd, v, 0)?;
                        (self.def(m.0, m.1).kind == SymbolKind::Method)
                            .then(|| (v.to_uppercase(), m))
                    })
                    .collect();
                if out.is_empty() {
                    out.push(("ANY".to_string(), (vf, vd)));
                }
                out
            }
            SymbolKind::Function | SymbolKind::Method if !as_view => self
                .view_verbs(vf, vd)
                .into_iter()
                .map(|v| (v, (vf, vd)))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The methods a view function's decorators allow.
    fn view_verbs(&self, f: usize, d: u32) -> Vec<String> {
        let facts = self.facts(f).expect("python file");
        for k in self.decos.get(&(f, d)).into_iter().flatten() {
            let deco = &facts.decorations[*k];
            let name = deco.chain.last().map(String::as_str).unwrap_or("");
            let fixed = match name {
                "require_POST" => Some("POST"),
                "require_GET" | "require_safe" => Some("GET"),
                _ => None,
            };
            if let Some(v) = fixed {
                return vec![v.to_string()];
            }
            if matches!(name, "require_http_methods" | "api_view") {
                let listed: Vec<String> = deco
                    .args
                    .first()
                    .map(|a| a.literals.iter().map(|v| v.to_uppercase()).collect())
                    .unwrap_or_default();
                if !listed.is_empty() {
                    return listed;
                }
                if name == "api_view" {
                    return vec!["GET".to_string()];
                }
            }
        }
        vec!["ANY".to_string()]
    }

    /// A viewset's actions under a router prefix: (verb, path under the prefix, handler).
    fn viewset_actions(&self, (vf, vd): (usize, u32)) -> Vec<(String, String, (usize, u32))> {
        let mut out = Vec::new();
        for (action, verb, detail) in ACTIONS {
            if let Some(m) = self.member(vf, vd, action, 0) {
                let sub = if detail { "{pk}" } else { "" };
                out.push((verb.to_string(), sub.to_string(), m));
            }
        }
        let facts = self.facts(vf).expect("python file");
        for (di, d) in facts.defs.iter().enumerate() {
            if d.parent != Some(vd) || d.kind != SymbolKind::Method {
                continue;
            }
            let Some(deco) = self
                .decos
                .get(&(vf, di as u32))
                .into_iter()
                .flatten()
                .find_map(|k| {
                    let x = &facts.decorations[*k];
                    (x.chain.last().map(String::as_str) == Some("action")).then_some(x)
                })
            else {
                continue;
            };
            let arg = |k: &str| {
                deco.args
                    .iter()
                    .find(|a| a.keyword.as_deref() == Some(k))
                    .map(|a| a.literals.clone())
                    .unwrap_or_default()
            };
            let detail = arg("detail").first().is_some_and(|v| v == "True");
            let url = arg("url_path")
                .first()
                .cloned()
                .unwrap_or_else(|| d.name.clone());
            let methods = arg("methods");
            let verbs = if methods.is_empty() {
                vec!["get".to_string()]
            } else {
                methods
            };
            let sub = if detail { format!("{{pk}}/{url}") } else { url };
            for v in verbs {
                out.push((v.to_uppercase(), sub.clone(), (vf, di as u32)));
            }
        }
        if out.is_empty() {
            out.push(("ANY".to_string(), String::new(), (vf, vd)));
            out.push(("ANY".to_string(), "{pk}".to_string(), (vf, vd)));
        }
        out
    }

    /// `route:VERB path` declared on `line` of file `fi` → handler.
    pub(super) fn route_to(
        &self,
        fi: usize,
        line: u32,
        verb: &str,
        path: &str,
        h: (usize, u32),
    ) -> Edge {
        let d = self.def(h.0, h.1);
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: format!("route:{verb} {path}"),
            caller_name: String::new(),
            line,
            kind: EdgeKind::Route,
            callee: Some(d.id.clone()),
            callee_name: d.name.clone(),
            callee_file: Some(self.files[h.0].0.to_string()),
            callee_line: Some(d.line),
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site: CallSite::default(),
        }
    }
}
