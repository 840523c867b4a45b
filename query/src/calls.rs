//! Graph queries over the stored call graph: callers and callees to a depth, and call chains
//! between two symbols (shortest first), every hop with the `path:line` of its use site.
//!
//! Dispatch is followed both ways: a call to an interface or overridden method reaches its
//! implementations (callees, chains), and callers of an implementation include calls made
//! through the interface (marked `via`). Type edges (inherits, implements, overrides) are not
//! hops themselves.

use crate::QueryError;
use indexer::Symbol;
use indexer::graph::{Edge, EdgeKind};
use indexer::node::{NodeId, NodeKind};
use indexer::store::IndexRead;
use indexer::store::catalog::SymbolRow;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

/// A graph node: a symbol (or pseudo id) with where it is declared, when known.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Node {
    pub id: String,
    pub name: String,
    pub path: Option<String>,
    pub line: Option<u32>,
}

/// One hop: `from` uses `to` at `path:line`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hop {
    /// 1 for direct callers/callees, 2 for theirs, …
    pub depth: usize,
    pub from: Node,
    pub to: Node,
    pub kind: EdgeKind,
    /// Use site.
    pub path: String,
    pub line: u32,
    pub confidence: f32,
    pub detail: String,
    /// The method actually named at the use site when the hop goes through dispatch (an
    /// interface method for a call that reaches its implementation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// Symbols (or pseudo ids) a name designates: a simple or qualified name, a symbol id, or a
/// pseudo id (`route:GET /api/orders/{}`, `table:t_order`, `config:order.timeout`); a bare
/// configuration key or table name is tried as a pseudo id too.
pub fn find_nodes(catalog: &dyn IndexRead, name: &str) -> Result<Vec<Node>, QueryError> {
    let name = name.trim();
    if NodeId::parse(name).kind != NodeKind::Other {
        return Ok(vec![node_of(catalog, name, name)?]);
    }
    let mut out = Vec::new();
    for r in catalog.symbols_named(name)? {
        let s = &r.symbol;
        if s.kind == indexer::SymbolKind::Package {
            continue;
        }
        out.push(symbol_node(&r));
    }
    if out.is_empty() {
        out = declared_elsewhere(catalog, name)?;
    }
    if out.is_empty() {
        let kinds = [
            NodeKind::Config,
            NodeKind::Table,
            NodeKind::Topic,
            NodeKind::Route,
        ];
        for prefix in kinds.into_iter().filter_map(NodeId::prefix_of) {
            let id = format!("{prefix}:{name}");
            if !catalog.edges_to(&id)?.is_empty() || !catalog.edges_from(&id)?.is_empty() {
                out.push(node_of(catalog, &id, &id)?);
            }
        }
    }
    Ok(out)
}

/// Supertypes climbed at most when a member is looked up where it is inherited.
const MAX_SUPER_DEPTH: usize = 8;

/// A symbol row as a graph node.
fn symbol_node(r: &SymbolRow) -> Node {
    let s = &r.symbol;
    Node {
        id: s.id.0.clone(),
        name: display_name(&s.id.0, &s.qualified_name),
        path: Some(r.path.to_string()),
        line: Some(s.name_line),
    }
}

/// The indexed types a simple or qualified name designates.
fn types_named(catalog: &dyn IndexRead, name: &str) -> Result<Vec<Symbol>, QueryError> {
    Ok(catalog
        .symbols_named(name)?
        .into_iter()
        .map(|r| r.symbol)
        .filter(|s| s.kind.is_type())
        .collect())
}

/// `Type.member` that `Type` does not declare: the declaration it inherits when `Type` is
/// indexed, else the library method `Type` names.
fn declared_elsewhere(catalog: &dyn IndexRead, name: &str) -> Result<Vec<Node>, QueryError> {
    let q = name.replace('#', ".");
    let Some((owner, member)) = q.rsplit_once('.') else {
        return Ok(Vec::new());
    };
    let owners = types_named(catalog, owner)?;
    if owners.is_empty() {
        let simple = owner.rsplit('.').next().unwrap_or(owner);
        library_member(catalog, simple, member)
    } else {
        inherited(catalog, owners, member)
    }
}

/// A member the `owners` inherit (`ByteBuf.release` is `ReferenceCounted.release`): the nearest
/// supertypes that declare it, level by level.
fn inherited(
    catalog: &dyn IndexRead,
    owners: Vec<Symbol>,
    member: &str,
) -> Result<Vec<Node>, QueryError> {
    let mut seen: HashSet<String> = owners.iter().map(|t| t.id.0.clone()).collect();
    let mut level = owners;
    for _ in 0..MAX_SUPER_DEPTH {
        let mut next = Vec::new();
        for t in &level {
            for sup in &t.supertypes {
                for st in types_named(catalog, sup)? {
                    if seen.insert(st.id.0.clone()) {
                        next.push(st);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for st in &next {
            let declared = format!("{}.{member}", st.qualified_name);
            for r in catalog.symbols_named(&declared)? {
                if r.symbol.parent.as_ref() == Some(&st.id) {
                    out.push(symbol_node(&r));
                }
            }
        }
        if !out.is_empty() || next.is_empty() {
            return Ok(out);
        }
        level = next;
    }
    Ok(Vec::new())
}

/// `member` of a library type the index does not hold (`HttpServletRequest.getParameter`, by
/// its simple name `ty`): the library method itself, known by the id its calls are recorded
/// under (found through an indexed type that implements or extends `ty`, else through the calls
/// of the code that mentions it), and those indexed types' own `member`s.
fn library_member(
    catalog: &dyn IndexRead,
    ty: &str,
    member: &str,
) -> Result<Vec<Node>, QueryError> {
    let mut out: Vec<Node> = Vec::new();
    let mut library: BTreeSet<String> = BTreeSet::new();
    for r in catalog.symbols_named(member)? {
        let s = &r.symbol;
        let Some(parent) = s.parent.as_ref().filter(|_| s.name == member) else {
            continue;
        };
        let Some(p) = catalog.symbol_by_id(&parent.0)? else {
            continue;
        };
        if !p.symbol.supertypes.iter().any(|t| t == ty) {
            continue;
        }
        out.push(symbol_node(&r));
        // The supertype's id as the implementing type's edges record it.
        for e in catalog.edges_from(&parent.0)? {
            let Some(target) = e.callee.as_deref().map(NodeId::parse) else {
                continue;
            };
            let names_it = target.rest.ends_with(&format!(".{ty}")) || target.rest == ty;
            if matches!(e.kind, EdgeKind::Implements | EdgeKind::Inherits)
                && names_it
                && e.callee_file.is_none()
            {
                library.insert(target.member(member));
            }
        }
    }
    if library.is_empty() {
        library = library_ids_by_use(catalog, ty, Some(member))?;
    }
    let mut nodes = Vec::new();
    for id in library {
        if !catalog.edges_to(&id)?.is_empty() {
            let display = NodeId::parse(&id).readable();
            nodes.push(node_of(catalog, &id, &display)?);
        }
    }
    nodes.extend(out);
    Ok(nodes)
}

/// Files the full-text index finds for `ty member` whose use sites are read for a library id.
const USE_SITE_FILES: usize = 20;

/// The ids a library `ty.member` that no indexed type implements (`RedisTemplate.opsForValue`)
/// has in the graph, or with no member those of every method of `ty` the code calls, read from
/// the calls recorded in the code that mentions the names: the full-text index finds the
/// files, their methods' stored edges name the callee by its full id.
fn library_ids_by_use(
    catalog: &dyn IndexRead,
    ty: &str,
    member: Option<&str>,
) -> Result<BTreeSet<String>, QueryError> {
    let member_part = member.unwrap_or("");
    // `ty` and the member as the target's language writes them (`RedisTemplate#opsForValue`).
    let names_it = |target: &str| {
        let t = NodeId::parse(target);
        let bare = format!("{ty}{}{member_part}", t.member_separator());
        let owned = format!(".{bare}");
        match member {
            Some(_) => t.rest.ends_with(&owned) || t.rest == bare,
            None => t.rest.contains(&owned) || t.rest.starts_with(&bare),
        }
    };
    let mut paths: Vec<String> = Vec::new();
    let query = format!("{ty} {member_part}");
    for (_, path, _) in catalog.search_chunks(query.trim(), USE_SITE_FILES * 3)? {
        if !paths.contains(&path) && paths.len() < USE_SITE_FILES {
            paths.push(path);
        }
    }
    let mut callers: Vec<String> = Vec::new();
    for path in &paths {
        callers.extend(
            catalog
                .symbols_of(path)?
                .into_iter()
                .filter(|r| r.symbol.kind != indexer::SymbolKind::Package)
                .map(|r| r.symbol.id.0),
        );
    }
    let refs: Vec<&str> = callers.iter().map(String::as_str).collect();
    let mut ids = BTreeSet::new();
    for edges in catalog.edges_from_many(&refs)?.into_values() {
        for e in edges {
            if let Some(target) = e.callee.as_deref()
                && e.callee_file.is_none()
                && names_it(target)
            {
                ids.insert(target.to_string());
            }
        }
    }
    Ok(ids)
}

/// The ids of the methods of a library type the index does not hold (`RedisTemplate`, by its
/// simple name) that the code calls, as the calls of the code mentioning it record them.
pub fn library_type_method_ids(
    catalog: &dyn IndexRead,
    ty: &str,
) -> Result<Vec<String>, QueryError> {
    Ok(library_ids_by_use(catalog, ty, None)?.into_iter().collect())
}

/// The ids a library type's method (`RedisTemplate.opsForValue`, by the type's simple name) has
/// in the graph: those its calls are recorded under, when the index holds such calls.
pub fn library_method_ids(
    catalog: &dyn IndexRead,
    ty: &str,
    member: &str,
) -> Result<Vec<String>, QueryError> {
    Ok(library_member(catalog, ty, member)?
        .into_iter()
        .filter(|n| n.path.is_none())
        .map(|n| n.id)
        .collect())
}

/// A node for an id, located through the symbol table when it is a symbol.
fn node_of(catalog: &dyn IndexRead, id: &str, fallback_name: &str) -> Result<Node, QueryError> {
    Ok(match catalog.symbol_by_id(id)? {
        Some(r) => symbol_node(&r),
        None => Node {
            id: id.to_string(),
            name: fallback_name.to_string(),
            path: None,
            line: None,
        },
    })
}

/// Reads adjacency from the catalog once per node.
struct Adjacency<'c> {
    catalog: &'c dyn IndexRead,
    out: HashMap<String, Vec<Edge>>,
    inn: HashMap<String, Vec<Edge>>,
}

impl<'c> Adjacency<'c> {
    fn new(catalog: &'c dyn IndexRead) -> Adjacency<'c> {
        Adjacency {
            catalog,
            out: HashMap::new(),
            inn: HashMap::new(),
        }
    }

    fn from(&mut self, id: &str) -> Result<&[Edge], QueryError> {
        if !self.out.contains_key(id) {
            let e = self.catalog.edges_from(id)?;
            self.out.insert(id.to_string(), e);
        }
        Ok(&self.out[id])
    }

    fn to(&mut self, id: &str) -> Result<&[Edge], QueryError> {
        if !self.inn.contains_key(id) {
            let e = self.catalog.edges_to(id)?;
            self.inn.insert(id.to_string(), e);
        }
        Ok(&self.inn[id])
    }

    /// Methods that `id` overrides or implements.
    fn overridden(&mut self, id: &str) -> Result<Vec<String>, QueryError> {
        Ok(self
            .from(id)?
            .iter()
            .filter(|e| e.kind == EdgeKind::Overrides)
            .filter_map(|e| e.callee.clone())
            .collect())
    }

    /// Methods that override or implement `id`, with where they are declared.
    fn implementations(&mut self, id: &str) -> Result<Vec<Node>, QueryError> {
        Ok(self
            .to(id)?
            .iter()
            .filter(|e| e.kind == EdgeKind::Overrides)
            .map(|e| Node {
                id: e.caller.clone(),
                name: display_name(&e.caller, &e.caller_name),
                path: Some(e.caller_file.clone()),
                line: Some(e.line),
            })
            .collect())
    }

    /// Flow edges into `id`: direct ones, then calls through the methods it overrides.
    fn callers(&mut self, id: &str) -> Result<Vec<(Edge, Option<String>)>, QueryError> {
        let mut out: Vec<(Edge, Option<String>)> = self
            .to(id)?
            .iter()
            .filter(|e| e.kind.is_flow())
            .map(|e| (e.clone(), None))
            .collect();
        for sup in self.overridden(id)? {
            for e in self.to(&sup)?.to_vec() {
                if e.kind.is_flow() {
                    let via = e.callee_name.clone();
                    out.push((e, Some(via)));
                }
            }
        }
        Ok(out)
    }

    /// Flow edges out of `id`, each followed by hops to the implementations of its callee.
    fn callees(&mut self, id: &str) -> Result<Vec<(Edge, Option<String>)>, QueryError> {
        let direct: Vec<Edge> = self
            .from(id)?
            .iter()
            .filter(|e| e.kind.is_flow())
            .cloned()
            .collect();
        let mut out = Vec::new();
        for e in direct {
            let impls = match (&e.callee, &e.callee_file) {
                (Some(c), Some(_)) => self.implementations(c)?,
                _ => Vec::new(),
            };
            let via = e.callee_name.clone();
            out.push((e.clone(), None));
            for imp in impls {
                let mut d = e.clone();
                d.callee = Some(imp.id);
                d.callee_name = imp.name;
                d.callee_file = imp.path;
                d.callee_line = imp.line;
                d.confidence = d.confidence.min(0.8);
                out.push((d, Some(via.clone())));
            }
        }
        Ok(out)
    }
}

/// A qualified name with the parameter list of its id (`pkg.T.m(int,String)`), so overloads
/// read apart.
pub fn display_name(id: &str, qname: &str) -> String {
    match (id.find('#'), id.find('(')) {
        (Some(h), Some(p)) if p > h && !qname.contains('(') => format!("{qname}{}", &id[p..]),
        _ => qname.to_string(),
    }
}

fn caller_node(e: &Edge) -> Node {
    Node {
        id: e.caller.clone(),
        name: display_name(&e.caller, &e.caller_name),
        path: Some(e.caller_file.clone()),
        line: None,
    }
}

fn callee_node(e: &Edge) -> Node {
    Node {
        id: e.callee.clone().unwrap_or_else(|| e.callee_name.clone()),
        name: display_name(e.callee.as_deref().unwrap_or_default(), &e.callee_name),
        path: e.callee_file.clone(),
        line: e.callee_line,
    }
}

fn hop(depth: usize, from: Node, to: Node, e: &Edge, via: Option<String>) -> Hop {
    Hop {
        depth,
        from,
        to,
        kind: e.kind,
        path: e.caller_file.clone(),
        line: e.line,
        confidence: e.confidence,
        detail: e.detail.clone(),
        via,
    }
}

/// Callers of `targets` to `depth` levels, breadth first (each node expanded once), at most
/// `limit` hops. Within a level, most confident first, then by use site.
pub fn callers(
    catalog: &dyn IndexRead,
    targets: &[Node],
    depth: usize,
    limit: usize,
) -> Result<Vec<Hop>, QueryError> {
    let mut adj = Adjacency::new(catalog);
    let mut seen: HashSet<String> = targets.iter().map(|t| t.id.clone()).collect();
    let mut frontier: Vec<Node> = targets.to_vec();
    let mut out = Vec::new();
    for d in 1..=depth.max(1) {
        let mut level = Vec::new();
        let mut next = Vec::new();
        for t in &frontier {
            for (e, via) in adj.callers(&t.id)? {
                let from = caller_node(&e);
                if seen.insert(from.id.clone()) {
                    next.push(from.clone());
                }
                level.push(hop(d, from, t.clone(), &e, via));
            }
        }
        sort_level(&mut level);
        out.extend(level);
        if out.len() >= limit || next.is_empty() {
            break;
        }
        frontier = next;
    }
    out.truncate(limit);
    Ok(out)
}

/// Callees of `targets` to `depth` levels (external callees are listed, not expanded).
pub fn callees(
    catalog: &dyn IndexRead,
    targets: &[Node],
    depth: usize,
    limit: usize,
) -> Result<Vec<Hop>, QueryError> {
    let mut adj = Adjacency::new(catalog);
    let mut seen: HashSet<String> = targets.iter().map(|t| t.id.clone()).collect();
    let mut frontier: Vec<Node> = targets.to_vec();
    let mut out = Vec::new();
    for d in 1..=depth.max(1) {
        let mut next = Vec::new();
        for t in &frontier {
            for (e, via) in adj.callees(&t.id)? {
                let to = callee_node(&e);
                let expandable = e.callee.is_some() && (to.path.is_some() || is_pseudo(&to.id));
                if expandable && seen.insert(to.id.clone()) {
                    next.push(to.clone());
                }
                out.push(hop(d, t.clone(), to, &e, via));
            }
        }
        if out.len() >= limit || next.is_empty() {
            break;
        }
        frontier = next;
    }
    out.truncate(limit);
    Ok(out)
}

fn is_pseudo(id: &str) -> bool {
    NodeId::parse(id).is_pseudo()
}

fn sort_level(level: &mut [Hop]) {
    level.sort_by(|a, b| {
        b.confidence
            .partial_cmp(&a.confidence)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| (&a.path, a.line).cmp(&(&b.path, b.line)))
            .then_with(|| a.from.id.cmp(&b.from.id))
    });
}

/// Call chains from any of `from` to any of `to`, shortest first, at most `limit`, each at most
/// `max_len` hops. Chains are simple (no node twice) and deterministic.
pub fn paths(
    catalog: &dyn IndexRead,
    from: &[Node],
    to: &[Node],
    max_len: usize,
    limit: usize,
) -> Result<Vec<Vec<Hop>>, QueryError> {
    let mut adj = Adjacency::new(catalog);
    // Distance to the target set, backwards over the same edges the forward walk follows.
    let mut dist: HashMap<String, usize> = HashMap::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    for t in to {
        dist.insert(t.id.clone(), 0);
        queue.push_back(t.id.clone());
    }
    while let Some(n) = queue.pop_front() {
        let d = dist[&n];
        if d >= max_len {
            continue;
        }
        // Predecessors: direct callers, callers through overridden methods.
        for (e, _) in adj.callers(&n)? {
            if !dist.contains_key(&e.caller) {
                dist.insert(e.caller.clone(), d + 1);
                queue.push_back(e.caller.clone());
            }
        }
    }
    let mut found: Vec<Vec<Hop>> = Vec::new();
    let mut keys: BTreeSet<Vec<(String, u32, String)>> = BTreeSet::new();
    let shortest = from.iter().filter_map(|f| dist.get(&f.id).copied()).min();
    let Some(shortest) = shortest else {
        return Ok(found);
    };
    let targets: HashSet<&str> = to.iter().map(|t| t.id.as_str()).collect();
    for len in shortest.max(1)..=max_len {
        for f in from {
            let mut chain = Vec::new();
            let mut on_path: HashSet<String> = HashSet::from([f.id.clone()]);
            walk(
                &mut adj,
                f.clone(),
                len,
                &dist,
                &targets,
                &mut chain,
                &mut on_path,
                &mut found,
                &mut keys,
                limit,
            )?;
            if found.len() >= limit {
                return Ok(found);
            }
        }
    }
    Ok(found)
}

/// Depth-first enumeration of chains of exactly `left` more hops, pruned by `dist`.
#[allow(clippy::too_many_arguments)]
fn walk(
    adj: &mut Adjacency<'_>,
    at: Node,
    left: usize,
    dist: &HashMap<String, usize>,
    targets: &HashSet<&str>,
    chain: &mut Vec<Hop>,
    on_path: &mut HashSet<String>,
    found: &mut Vec<Vec<Hop>>,
    keys: &mut BTreeSet<Vec<(String, u32, String)>>,
    limit: usize,
) -> Result<(), QueryError> {
    if found.len() >= limit {
        return Ok(());
    }
    if left == 0 {
        if targets.contains(at.id.as_str()) {
            let key: Vec<(String, u32, String)> = chain
                .iter()
                .map(|h| (h.path.clone(), h.line, h.to.id.clone()))
                .collect();
            if keys.insert(key) {
                found.push(chain.clone());
            }
        }
        return Ok(());
    }
    let mut steps = adj.callees(&at.id)?;
    steps.sort_by(|a, b| (a.0.line, &a.0.callee).cmp(&(b.0.line, &b.0.callee)));
    for (e, via) in steps {
        let Some(next) = e.callee.clone() else {
            continue;
        };
        if dist.get(&next).is_none_or(|d| *d > left - 1) || on_path.contains(&next) {
            continue;
        }
        let to = callee_node(&e);
        chain.push(hop(chain.len() + 1, at.clone(), to.clone(), &e, via));
        on_path.insert(next.clone());
        walk(
            adj,
            to,
            left - 1,
            dist,
            targets,
            chain,
            on_path,
            found,
            keys,
            limit,
        )?;
        on_path.remove(&next);
        chain.pop();
        if found.len() >= limit {
            break;
        }
    }
    Ok(())
}
