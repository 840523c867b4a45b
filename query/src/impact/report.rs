//! The impact report of a diff, for a reviewer (`codemap impact`, MCP's `impact`, a merge-request
//! comment): the declarations it changes, everything that calls them to a depth, the entry points
//! and tests that reach them, the modules it spans and the framework edges on the way (RPC, MQ,
//! tables, configuration keys). Hunks in MyBatis mapper XML and Spring configuration files are
//! placed too: a changed SQL statement changes the mapper methods bound to it, a changed key the
//! code that reads it. Pure over a [`SnapshotView`] and a [`CallGraph`]; every place it names is
//! a symbol of the indexed snapshot.

use super::{Change, ChangeKind, EntryPoint, Resolved, locate, resolve};
use crate::QueryError;
use crate::answer::{EntryPointRef, entry_point_ref};
use crate::graph::{CallGraph, EdgeKind};
use crate::question::patch::{FilePatch, parse_patch};
use crate::view::{SnapshotView, SymIdx};
use indexer::graph::EdgeKind as StoredKind;
use indexer::model::{Provenance, RepoPath, SymbolId, SymbolKind};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// How far the report looks.
#[derive(Debug, Clone, Copy)]
pub struct ReportOptions {
    /// Levels of callers followed up from a change.
    pub depth: usize,
    /// Callers visited at most (each is a graph lookup).
    pub max_callers: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            depth: 4,
            max_callers: 300,
        }
    }
}

/// A declaration the diff changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedDecl {
    pub symbol: String,
    /// `method`, `class`, `field`, …
    pub kind: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub change: ChangeKind,
    /// The declaration head as indexed (before the change).
    pub signature: String,
    pub module: String,
    /// Lines of the indexed revision the diff touches in it (or in the XML or configuration
    /// file that binds it).
    pub lines: Vec<u32>,
    /// What outside the Java code changed it: `mybatis:ns.id` (a mapper statement) or
    /// `config:key` (a configuration key), with where that is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// A symbol that reaches a change through calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reached {
    pub symbol: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// 1 for a direct caller of a changed declaration, 2 for its callers, …
    pub depth: usize,
    /// The symbol it calls one step nearer the change, and the line of that call.
    pub calls: String,
    pub call_line: u32,
    pub module: String,
}

/// A framework edge the change or its callers use: a table, a topic, a remote call, a key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Crossing {
    /// `db`, `rpc`, `mq`, `event`, `config`.
    pub kind: String,
    /// `table:t_order`, `config:order.timeout`, `mq:order-paid`, or the remote method.
    pub target: String,
    /// The symbol that uses it, at `path:line`.
    pub from: String,
    pub path: String,
    pub line: u32,
}

/// A module the change or its callers live in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModuleTouch {
    pub module: String,
    pub changed: usize,
    pub callers: usize,
    pub tests: usize,
}

/// Everything a reviewer needs about a diff.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ImpactReport {
    pub changes: Vec<ChangedDecl>,
    /// Source code that calls the changes, nearest first.
    pub callers: Vec<Reached>,
    pub entry_points: Vec<EntryPointRef>,
    pub modules: Vec<ModuleTouch>,
    pub crossings: Vec<Crossing>,
    /// Test code whose calls reach the changes.
    pub tests: Vec<Reached>,
    /// Callers left unvisited at the depth or visit limit: there may be more.
    pub truncated: bool,
    pub notes: Vec<String>,
}

impl ImpactReport {
    /// The report of a diff read backwards (from an index of its newer end) told the right way
    /// round: declarations it calls removed are the ones the change adds, and files it calls
    /// new are the ones the change deletes (`deleted`, which that index cannot cite).
    pub fn seen_from_head(mut self, deleted: &[String]) -> ImpactReport {
        for c in &mut self.changes {
            if c.change == ChangeKind::Removed {
                c.change = ChangeKind::Added;
            }
        }
        self.notes.retain(|n| {
            !deleted
                .iter()
                .any(|d| n.starts_with(&format!("{d} is a new file")))
        });
        self.notes.extend(
            deleted
                .iter()
                .map(|d| format!("`{d}` is deleted by this change")),
        );
        self
    }
}

/// The impact of a unified diff (`git diff` output, or a pasted one) on the indexed snapshot.
pub fn report(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    diff: &str,
    opts: &ReportOptions,
) -> Result<ImpactReport, QueryError> {
    let patches = parse_patch(diff);
    let mut r = ImpactReport::default();
    if patches.is_empty() {
        r.notes
            .push("no unified diff found (expected `--- a/…`, `+++ b/…` and `@@` hunks)".into());
        return Ok(r);
    }
    let located = locate(v, &patches)?;
    r.notes.extend(located.notes);
    let mut changes: Vec<(Change, Option<String>)> =
        located.changes.into_iter().map(|c| (c, None)).collect();
    for (c, via) in bound_changes(v, &patches, &mut r.notes)? {
        if !changes.iter().any(|(x, _)| x.sym == c.sym) {
            changes.push((c, Some(via)));
        }
    }
    if changes.is_empty() {
        r.notes.push(
            "the diff changes no declaration of the indexed code (only comments, blank lines, imports or files the index does not hold)"
                .into(),
        );
        return Ok(r);
    }
    // The callers walk and the entry-point walk climb the same methods.
    let memo = crate::ask::MemoGraph::new(graph);
    let graph: &dyn CallGraph = &memo;
    let targets: Vec<SymIdx> = changes.iter().map(|(c, _)| c.sym).collect();
    let walk = walk_callers(v, graph, &targets, opts)?;
    r.truncated = walk.truncated;
    let entries = super::entry_points(v, graph, &targets)?;
    r.notes.extend(entries.note());
    r.entry_points = entries
        .points
        .iter()
        .map(|e: &EntryPoint| entry_point_ref(v, e))
        .collect();
    r.changes = changes
        .iter()
        .map(|(c, via)| changed_decl(v, c, via.clone()))
        .collect();
    for (i, step) in &walk.reached {
        let reached = reached(v, *i, step);
        if v.provenance_of(*i) == Provenance::Test {
            r.tests.push(reached);
        } else {
            r.callers.push(reached);
        }
    }
    // The tables and remote services the changed code reaches through the mappers and clients
    // it calls, cited at the call.
    let mut mappers: Vec<(SymIdx, SymIdx, String, u32)> = Vec::new();
    for &t in &targets {
        for e in graph.callees(&SymbolId(v.id(t).to_string()))? {
            if let Some(c) = v.by_id(&e.to.0)
                && !mappers.iter().any(|m| m.0 == t && m.1 == c)
            {
                mappers.push((t, c, e.path.clone(), e.line));
            }
        }
    }
    r.crossings = crossings(v, &targets, &mappers, &walk.crossed)?;
    r.modules = modules(&r);
    if r.truncated {
        r.notes.push(format!(
            "callers: the walk stopped at {} levels or {} symbols; there may be more",
            opts.depth, opts.max_callers
        ));
    }
    Ok(r)
}

/// How a reached symbol was reached: depth, the symbol it calls, the line of the call.
#[derive(Debug, Clone)]
struct Step {
    depth: usize,
    calls: SymIdx,
    line: u32,
}

struct Walk {
    /// In visit order: depth, then the order callers came in.
    reached: Vec<(SymIdx, Step)>,
    /// Remote and asynchronous hops on the way: (kind, caller, callee, path, line).
    crossed: Vec<(EdgeKind, SymIdx, SymIdx, String, u32)>,
    truncated: bool,
}

/// Callers of `targets`, breadth first, to `opts.depth` levels and `opts.max_callers` symbols.
/// Test code is recorded but not followed further (nothing calls a test).
fn walk_callers(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    targets: &[SymIdx],
    opts: &ReportOptions,
) -> Result<Walk, QueryError> {
    let mut seen: HashMap<SymIdx, ()> = targets.iter().map(|&t| (t, ())).collect();
    let mut out = Walk {
        reached: Vec::new(),
        crossed: Vec::new(),
        truncated: false,
    };
    let mut frontier: Vec<SymIdx> = targets.to_vec();
    for depth in 1..=opts.depth {
        let mut next = Vec::new();
        for &m in &frontier {
            let mut edges = graph.callers(&SymbolId(v.id(m).to_string()))?;
            // Confident first, then by place: the order a reader checks them in.
            edges.sort_by(|a, b| {
                b.confidence
                    .total_cmp(&a.confidence)
                    .then_with(|| (&a.path, a.line).cmp(&(&b.path, b.line)))
            });
            for e in edges {
                let Some(c) = v.by_id(&e.from.0) else {
                    continue;
                };
                if matches!(e.kind, EdgeKind::Rpc | EdgeKind::Event) {
                    out.crossed.push((e.kind, c, m, e.path.clone(), e.line));
                }
                if seen.contains_key(&c) {
                    continue;
                }
                if seen.len() - targets.len() >= opts.max_callers {
                    out.truncated = true;
                    break;
                }
                seen.insert(c, ());
                out.reached.push((
                    c,
                    Step {
                        depth,
                        calls: m,
                        line: e.line,
                    },
                ));
                if v.provenance_of(c) != Provenance::Test {
                    next.push(c);
                }
            }
        }
        if next.is_empty() {
            return Ok(out);
        }
        frontier = next;
    }
    // Callers of the last level were not looked at.
    for &m in &frontier {
        if !graph.callers(&SymbolId(v.id(m).to_string()))?.is_empty() {
            out.truncated = true;
            break;
        }
    }
    Ok(out)
}

/// Changes a diff makes outside the Java code, as the symbols they change: a mapper XML
/// statement changes the mapper methods bound to it; a configuration key the code reading it.
fn bound_changes(
    v: &SnapshotView<'_>,
    patches: &[FilePatch],
    notes: &mut Vec<String>,
) -> Result<Vec<(Change, String)>, QueryError> {
    let mut out = Vec::new();
    for fp in patches {
        let Some(old) = fp.old_path.as_deref() else {
            continue;
        };
        let is_xml = old.to_ascii_lowercase().ends_with(".xml");
        let is_config =
            RepoPath::new(old).is_some_and(|p| indexer::lang::config::is_config_file(&p));
        if !is_xml && !is_config {
            continue;
        }
        let Resolved::One(path) = resolve(v, old) else {
            continue; // `locate` already said why
        };
        let lines = v.file_lines(&path)?;
        let text = lines.text();
        let touched = touched_lines(fp);
        let bound: Vec<(String, u32, Vec<u32>)> = if is_xml {
            statements_touched(text, &touched)
        } else {
            keys_touched(&path, text, &touched)
        };
        for (id, line, at) in bound {
            let via = format!("{id} ({path}:{line})");
            let before = out.len();
            users_changed(v, &id, &at, &via, &mut out)?;
            if out.len() == before {
                notes.push(format!("{via} changes, but no indexed code uses it"));
            }
        }
    }
    Ok(out)
}

/// Lines of the indexed revision a patch's hunks remove or insert next to, in order.
fn touched_lines(fp: &FilePatch) -> Vec<u32> {
    let mut touched: Vec<u32> = Vec::new();
    for h in &fp.hunks {
        let (removed, inserted) = h.touched();
        touched.extend(removed.iter().map(|&(l, _)| l));
        touched.extend(inserted.iter().map(|i| i.before.max(1)));
    }
    touched.sort_unstable();
    touched.dedup();
    touched
}

/// The code using statement or key `id` (database and configuration edges into it), changed at
/// lines `at` of it, pushed to `out` with `via`; a field holding the key changes what the
/// methods reading it do, too.
fn users_changed(
    v: &SnapshotView<'_>,
    id: &str,
    at: &[u32],
    via: &str,
    out: &mut Vec<(Change, String)>,
) -> Result<(), QueryError> {
    let change = |sym, kind| {
        let lines = at.to_vec();
        (Change { sym, kind, lines }, via.to_string())
    };
    for e in v.index.edges_to(id)? {
        if !matches!(e.kind, StoredKind::Db | StoredKind::Config) {
            continue;
        }
        let Some(sym) = v.by_id(&e.caller) else {
            continue;
        };
        let kind = if v.kind(sym).is_type() || !v.kind(sym).is_callable() {
            ChangeKind::Declaration
        } else {
            ChangeKind::Body
        };
        out.push(change(sym, kind));
        if v.kind(sym) == SymbolKind::Field {
            for (m, _) in crate::graph::reads::readers(v, sym)? {
                if v.kind(m).is_callable() {
                    out.push(change(m, ChangeKind::Body));
                }
            }
        }
    }
    Ok(())
}

/// The mapper statements (`mybatis:namespace.id`, with their first line) whose text holds one
/// of `touched`, and the touched lines in each. A statement runs to the next one.
fn statements_touched(text: &str, touched: &[u32]) -> Vec<(String, u32, Vec<u32>)> {
    let Some(m) = indexer::lang::mybatis::mapper(text.as_bytes()) else {
        return Vec::new();
    };
    let mut starts: Vec<(u32, &str)> = m
        .statements
        .iter()
        .map(|s| (s.line, s.id.as_str()))
        .collect();
    starts.sort();
    let mut out: Vec<(String, u32, Vec<u32>)> = Vec::new();
    for &l in touched {
        let Some(&(line, id)) = starts.iter().rev().find(|(s, _)| *s <= l) else {
            continue;
        };
        let sid = format!("mybatis:{}.{}", m.namespace, id);
        match out.iter_mut().find(|x| x.0 == sid) {
            Some(x) => x.2.push(l),
            None => out.push((sid, line, vec![l])),
        }
    }
    out
}

/// The configuration keys (`config:key`, with their line) defined on one of `touched` (or whose
/// value continues there).
fn keys_touched(path: &str, text: &str, touched: &[u32]) -> Vec<(String, u32, Vec<u32>)> {
    let Some(rp) = RepoPath::new(path) else {
        return Vec::new();
    };
    let mut keys = indexer::lang::config::keys(&rp, text.as_bytes());
    keys.sort_by_key(|k| k.line);
    let mut out: Vec<(String, u32, Vec<u32>)> = Vec::new();
    for &l in touched {
        // The key on the line, else the last one above it whose value may run on.
        let Some(k) = keys
            .iter()
            .find(|k| k.line == l)
            .or_else(|| keys.iter().rev().find(|k| k.line < l && k.value.is_empty()))
        else {
            continue;
        };
        let id = format!("config:{}", k.key);
        match out.iter_mut().find(|x| x.0 == id) {
            Some(x) => x.2.push(l),
            None => out.push((id, k.line, vec![l])),
        }
    }
    out
}

fn changed_decl(v: &SnapshotView<'_>, c: &Change, via: Option<String>) -> ChangedDecl {
    let s = v.sym(c.sym);
    let mut lines = c.lines.clone();
    lines.sort_unstable();
    ChangedDecl {
        symbol: s.short_name(),
        kind: s.symbol.kind.as_str().to_string(),
        path: s.path.clone(),
        start_line: s.symbol.start_line,
        end_line: s.symbol.end_line,
        change: c.kind,
        signature: s.symbol.signature.clone(),
        module: v.module(&s.path).to_string(),
        lines,
        via,
    }
}

fn reached(v: &SnapshotView<'_>, i: SymIdx, step: &Step) -> Reached {
    let s = v.sym(i);
    Reached {
        symbol: s.short_name(),
        path: s.path.clone(),
        start_line: s.symbol.start_line,
        end_line: s.symbol.end_line,
        depth: step.depth,
        calls: v.sym(step.calls).short_name(),
        call_line: step.line,
        module: v.module(&s.path).to_string(),
    }
}

/// The framework edges of the changed `syms` (tables through mapper statements, topics, keys,
/// remote calls), the tables of the mappers they call, and the remote and asynchronous hops the
/// callers walk crossed on its way up to the entry points.
fn crossings(
    v: &SnapshotView<'_>,
    syms: &[SymIdx],
    mappers: &[(SymIdx, SymIdx, String, u32)],
    crossed: &[(EdgeKind, SymIdx, SymIdx, String, u32)],
) -> Result<Vec<Crossing>, QueryError> {
    let mut out: Vec<Crossing> = Vec::new();
    for &i in syms {
        let from = v.sym(i).short_name();
        for e in v.index.edges_from(v.id(i))? {
            let Some(callee) = e.callee.as_deref() else {
                continue;
            };
            let kind = match e.kind {
                StoredKind::Db => "db",
                StoredKind::Rpc => "rpc",
                StoredKind::Config => "config",
                StoredKind::Event if callee.starts_with("mq:") || is_mq(&e.detail) => "mq",
                StoredKind::Event => "event",
                _ => continue,
            };
            if callee.starts_with("mybatis:") {
                // The statement stands between the method and its tables.
                for t in v.index.edges_from(callee)? {
                    if let Some(table) = t.callee.as_deref().filter(|c| c.starts_with("table:")) {
                        out.push(Crossing {
                            kind: "db".into(),
                            target: format!("{table} ({} via {callee})", t.detail),
                            from: from.clone(),
                            path: e.caller_file.clone(),
                            line: e.line,
                        });
                    }
                }
                continue;
            }
            let mut target = match v.by_id(callee) {
                Some(c) => v.sym(c).short_name(),
                None => callee.to_string(),
            };
            if !e.detail.is_empty() {
                target = format!("{target} ({})", e.detail);
            }
            out.push(Crossing {
                kind: kind.into(),
                target,
                from: from.clone(),
                path: e.caller_file.clone(),
                line: e.line,
            });
        }
    }
    // Tables of the mapper methods a change calls: `db table:t_stock (update via StockMapper.deduct)`.
    for (changed, callee, at, line) in mappers {
        let (changed, callee) = (*changed, *callee);
        for e in v.index.edges_from(v.id(callee))? {
            let Some(c) = e.callee.as_deref() else {
                continue;
            };
            if e.kind == StoredKind::Rpc {
                // A client method the change calls: the remote side is crossed.
                let remote = v.by_id(c).map(|r| v.sym(r).short_name());
                out.push(Crossing {
                    kind: "rpc".into(),
                    target: format!(
                        "{} ({} via {})",
                        remote.as_deref().unwrap_or(c),
                        e.detail,
                        v.sym(callee).short_name()
                    ),
                    from: v.sym(changed).short_name(),
                    path: at.clone(),
                    line: *line,
                });
                continue;
            }
            if e.kind != StoredKind::Db {
                continue;
            }
            let mut tables: Vec<(String, String)> = Vec::new();
            if c.starts_with("mybatis:") {
                for t in v.index.edges_from(c)? {
                    if let Some(table) = t.callee.filter(|x| x.starts_with("table:")) {
                        tables.push((table, t.detail));
                    }
                }
            } else if c.starts_with("table:") {
                tables.push((c.to_string(), e.detail.clone()));
            }
            for (table, op) in tables {
                out.push(Crossing {
                    kind: "db".into(),
                    target: format!("{table} ({op} via {})", v.sym(callee).short_name()),
                    from: v.sym(changed).short_name(),
                    path: at.clone(),
                    line: *line,
                });
            }
        }
    }
    // Remote and asynchronous hops between callers, with the stored edge's detail (the
    // protocol, the exchange and queue).
    for (kind, caller, callee, path, line) in crossed {
        let detail = v
            .index
            .edges_from(v.id(*caller))?
            .into_iter()
            .find(|e| e.callee.as_deref() == Some(v.id(*callee)) && e.line == *line)
            .map(|e| e.detail)
            .unwrap_or_default();
        let kind = match kind {
            EdgeKind::Rpc => "rpc",
            _ if is_mq(&detail) => "mq",
            _ => "event",
        };
        let mut target = v.sym(*callee).short_name();
        if !detail.is_empty() {
            target = format!("{target} ({detail})");
        }
        out.push(Crossing {
            kind: kind.into(),
            target,
            from: v.sym(*caller).short_name(),
            path: path.clone(),
            line: *line,
        });
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Whether an event edge's detail names a message broker (the sender and listener meet there).
fn is_mq(detail: &str) -> bool {
    let d = detail.to_ascii_lowercase();
    ["rabbitmq", "kafka", "rocketmq", "topic", "queue", "jms"]
        .iter()
        .any(|b| d.contains(b))
}

/// Modules in name order with how much of the change and its reach each holds.
/// The modules a report's changes, callers and tests live in, counted (recounted by a caller
/// that adds places to a report).
pub fn modules(r: &ImpactReport) -> Vec<ModuleTouch> {
    let mut m: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for c in &r.changes {
        m.entry(&c.module).or_default().0 += 1;
    }
    for c in &r.callers {
        m.entry(&c.module).or_default().1 += 1;
    }
    for c in &r.tests {
        m.entry(&c.module).or_default().2 += 1;
    }
    m.into_iter()
        .map(|(module, (changed, callers, tests))| ModuleTouch {
            module: module.to_string(),
            changed,
            callers,
            tests,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_backwards_diff_removes_the_change_adds() {
        let decl = |change| ChangedDecl {
            symbol: "OrderService.pay".into(),
            kind: "method".into(),
            path: "src/OrderService.java".into(),
            start_line: 3,
            end_line: 9,
            change,
            signature: "void pay()".into(),
            module: "order".into(),
            lines: vec![4],
            via: None,
        };
        let r = ImpactReport {
            changes: vec![decl(ChangeKind::Removed), decl(ChangeKind::Body)],
            notes: vec![
                "src/Gone.java is a new file: nothing in the index depends on it yet".into(),
                "other note".into(),
            ],
            ..Default::default()
        };
        let r = r.seen_from_head(&["src/Gone.java".into()]);
        assert_eq!(r.changes[0].change, ChangeKind::Added);
        assert_eq!(r.changes[1].change, ChangeKind::Body);
        assert_eq!(
            r.notes,
            vec![
                "other note".to_string(),
                "`src/Gone.java` is deleted by this change".to_string()
            ]
        );
    }

    const MAPPER: &str = "<?xml version=\"1.0\"?>\n<mapper namespace=\"com.x.OrderMapper\">\n  <select id=\"find\">\n    SELECT * FROM t_order\n  </select>\n  <update id=\"pay\">\n    UPDATE t_order SET status = 1\n  </update>\n</mapper>\n";

    #[test]
    fn a_touched_line_belongs_to_the_statement_above_it() {
        let s = statements_touched(MAPPER, &[7]);
        assert_eq!(
            s,
            vec![("mybatis:com.x.OrderMapper.pay".into(), 6, vec![7])]
        );
        let s = statements_touched(MAPPER, &[1]);
        assert!(s.is_empty(), "{s:?}");
    }

    #[test]
    fn a_touched_yaml_line_names_its_flattened_key() {
        let yml = "order:\n  timeout:\n    minutes: 30\n  name: x\n";
        let k = keys_touched("application.yml", yml, &[3]);
        assert_eq!(k, vec![("config:order.timeout.minutes".into(), 3, vec![3])]);
    }
}
