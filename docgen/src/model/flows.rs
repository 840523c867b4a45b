//! Key flows: from each entry point, the calls it makes, breadth first to a depth, as a small
//! graph a Mermaid flowchart can show.
//!
//! Not `ask`'s chain builder: that one ranks callees by their relevance to a question. A map has
//! no question, so it keeps every call into the repository's own code (and the tables, topics and
//! remote services reached), nearest first, and cuts by depth and size.

use super::{Cite, Entry, EntryKind, Flow, Graph, Hop, Step};
use query::model::{Edge, EdgeKind, SymbolKind};
use std::collections::HashMap;

/// Calls followed below the entry.
const MAX_DEPTH: usize = 4;
/// Steps per flow: a flowchart larger than this stops being read.
const MAX_STEPS: usize = 14;
/// Flows per page.
const MAX_FLOWS: usize = 6;

/// Entry points whose flows are built before the best are kept.
const MAX_CANDIDATES: usize = 400;

/// Flows from the module's routes, listeners, schedules and `main`s (API types have none),
/// chosen for what they do: the best flow of each entry kind first, then the best of the rest
/// ([`worth`]), shown in entry order.
pub fn build(g: &Graph<'_>, module: &str, entries: &[Entry]) -> Vec<Flow> {
    let mut seen_handlers: Vec<&str> = Vec::new();
    let mut flows: Vec<(usize, EntryKind, Flow)> = Vec::new();
    for e in entries.iter().filter(|e| e.kind != EntryKind::Api) {
        if seen_handlers.contains(&e.handler_id.as_str()) {
            continue;
        }
        seen_handlers.push(&e.handler_id);
        let f = flow(g, module, e);
        // A flow of one step says nothing the entry list does not.
        if f.steps.len() > 1 {
            flows.push((flows.len(), e.kind, f));
        }
        if seen_handlers.len() == MAX_CANDIDATES {
            break;
        }
    }
    if flows.is_empty() {
        flows = library_flows(g, module, entries)
            .into_iter()
            .map(|(i, f)| (i, EntryKind::Api, f))
            .collect();
    }
    let mut out: Vec<(usize, Flow)> = choose(flows);
    out.sort_by_key(|f| f.0);
    let mut out: Vec<Flow> = out.into_iter().map(|(_, f)| f).collect();
    // Overloads share a title; headings must not (anchors, MD024).
    let titles: Vec<String> = out.iter().map(|f| f.entry.clone()).collect();
    for (i, f) in out.iter_mut().enumerate() {
        let same = titles[..i].iter().filter(|t| **t == titles[i]).count();
        if same > 0 {
            f.entry = format!("{} ({})", titles[i], same + 1);
        }
    }
    out
}

/// The [`MAX_FLOWS`] flows to show, picked one at a time: an entry kind not shown yet first
/// (a listener, a schedule, a `main` beside the routes), and among those the flow that adds
/// the most [`worth`] the flows already picked do not show (so five routes into the same
/// cancel path do not crowd out order placement and the payment callback).
fn choose(flows: Vec<(usize, EntryKind, Flow)>) -> Vec<(usize, Flow)> {
    let mut left: Vec<Option<(usize, EntryKind, Flow)>> = flows.into_iter().map(Some).collect();
    let mut shown: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut kinds: Vec<EntryKind> = Vec::new();
    let mut out = Vec::new();
    while out.len() < MAX_FLOWS {
        let new_kind = left.iter().flatten().any(|(_, k, _)| !kinds.contains(k));
        let best = left
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_ref().map(|f| (i, f)))
            .filter(|(_, (_, k, _))| !new_kind || !kinds.contains(k))
            .map(|(i, (at, _, f))| (worth(f, &shown), std::cmp::Reverse(*at), i))
            .max();
        let Some((_, _, i)) = best else { break };
        let (at, kind, f) = left[i].take().unwrap();
        shown.extend(f.steps.iter().map(step_key));
        kinds.push(kind);
        out.push((at, f));
    }
    out
}

fn step_key(s: &Step) -> String {
    format!("{}\u{0}{}", s.kind, s.name)
}

/// What a flow does that the flows in `shown` do not, for choosing among them: what it
/// changes and sends outside its code (statements that write, messages, remote calls) weighs
/// most, then how much it reaches (methods, reads, tables).
pub fn worth(f: &Flow, shown: &std::collections::HashSet<String>) -> usize {
    let mut w = 0;
    for s in f.steps.iter().filter(|s| !shown.contains(&step_key(s))) {
        w += match s.kind.as_str() {
            "sql" if writes(&s.name) => 6,
            "remote" => 3,
            // Reads say less about what a flow does than writes, messages and remote calls.
            _ => 1,
        };
    }
    let events = f.hops.iter().filter(|h| h.kind == "event");
    let new_events = events
        .filter(|h| !shown.contains(&step_key(&f.steps[h.to])))
        .count();
    w + 4 * new_events
}

/// Whether a statement's name says it writes (`SQL updateStatus`, `SQL insertSelective`).
fn writes(step: &str) -> bool {
    let name = step.trim_start_matches("SQL ").to_lowercase();
    [
        "insert", "update", "delete", "save", "remove", "batch", "set", "replace", "merge",
    ]
    .iter()
    .any(|w| name.starts_with(w))
}

/// Public methods of API types tried as flow starts in a module nobody enters from outside
/// (a library): the most called ones.
const LIBRARY_CANDIDATES: usize = 20;

/// Flows of a library: from the most called public methods of its API types.
fn library_flows(g: &Graph<'_>, module: &str, entries: &[Entry]) -> Vec<(usize, Flow)> {
    let api: Vec<&str> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Api)
        .map(|e| e.handler_id.as_str())
        .collect();
    let mut methods: Vec<(usize, &crate::facts::Sym)> = g
        .symbols_of(module)
        .filter(|s| {
            s.symbol.kind == SymbolKind::Method
                && s.symbol.visibility == "public"
                && s.symbol
                    .parent
                    .as_ref()
                    .is_some_and(|p| api.contains(&p.0.as_str()))
                && !is_noise(g, s)
        })
        .map(|s| (g.edges_to(&s.symbol.id.0).count(), s))
        .collect();
    methods.sort_by_key(|m| std::cmp::Reverse(m.0));
    methods
        .into_iter()
        .take(LIBRARY_CANDIDATES)
        .map(|(_, s)| {
            let e = Entry {
                kind: EntryKind::Api,
                label: g.short_name(s),
                about: String::new(),
                handler: super::Item {
                    name: g.short_name(s),
                    cite: Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
                },
                handler_id: s.symbol.id.0.clone(),
            };
            flow(g, module, &e)
        })
        // An overload handing off to another says little: a library flow shows some depth.
        .filter(|f| f.steps.len() > 2)
        .enumerate()
        .collect()
}

fn flow(g: &Graph<'_>, module: &str, e: &Entry) -> Flow {
    let mut w = Walk {
        g,
        module,
        steps: vec![Step {
            name: e.handler.name.clone(),
            kind: "method".into(),
            cite: e.handler.cite.clone(),
            module: None,
        }],
        index: HashMap::from([(e.handler_id.clone(), 0)]),
        hops: Vec::new(),
        cut: 0,
        known: HashMap::new(),
    };
    // The paths that change state first, then the rest while the flowchart has room: a
    // handler calling twenty readers still shows the call that writes.
    w.breadth_first(&e.handler_id, true);
    w.breadth_first(&e.handler_id, false);
    Flow {
        entry: match e.kind {
            EntryKind::Main => format!("main {}", e.handler.name),
            k => format!("{} {}", kind_word(k), e.label),
        },
        steps: w.steps,
        hops: w.hops,
        cut: w.cut,
    }
}

/// One flow being built: its steps (by key in `index`), hops, and how much was left out.
struct Walk<'g, 'f> {
    g: &'g Graph<'f>,
    module: &'g str,
    steps: Vec<Step>,
    index: HashMap<String, usize>,
    hops: Vec<Hop>,
    cut: usize,
    /// Callees already judged by [`changes`].
    known: HashMap<String, bool>,
}

impl Walk<'_, '_> {
    /// Follows calls from `root` breadth first to [`MAX_DEPTH`]; with `changing`, only the
    /// edges that lead to a change of state (and nothing counts as cut).
    fn breadth_first(&mut self, root: &str, changing: bool) {
        let (g, module) = (self.g, self.module);
        let mut frontier: Vec<(String, usize)> = vec![(root.to_string(), 0)];
        for depth in 0..MAX_DEPTH {
            let mut next = Vec::new();
            for (id, from) in &frontier {
                for edge in g.edges_from(id) {
                    if changing && !changes(g, edge, CHANGE_DEPTH, &mut self.known) {
                        continue;
                    }
                    let Some(t) = target(g, module, edge) else {
                        continue;
                    };
                    let Some((to, fresh)) = self.step(t, depth, changing) else {
                        continue;
                    };
                    if let Some(key) = fresh {
                        next.push((key, to));
                    }
                    let hop = Hop {
                        from: *from,
                        to,
                        kind: edge.kind.as_str().to_string(),
                        site: Cite::at(&edge.caller_file, edge.line),
                    };
                    if to != *from
                        && !self
                            .hops
                            .iter()
                            .any(|h| h.from == hop.from && h.to == hop.to)
                    {
                        self.hops.push(hop);
                    }
                }
            }
            frontier = next;
        }
    }

    /// The step a target is, added when new and there is room: its index, and its key when
    /// the walk goes on from it.
    fn step(
        &mut self,
        t: (String, Step, bool),
        depth: usize,
        changing: bool,
    ) -> Option<(usize, Option<String>)> {
        let (key, step, follow) = t;
        if let Some(&i) = self.index.get(&key) {
            // Seen in the first pass: the second goes on from it too.
            let again = !changing && follow && depth + 1 < MAX_DEPTH;
            return Some((i, again.then_some(key)));
        }
        if self.steps.len() >= MAX_STEPS {
            self.cut += usize::from(!changing);
            return None;
        }
        self.steps.push(step);
        let i = self.steps.len() - 1;
        self.index.insert(key.clone(), i);
        if follow && depth + 1 < MAX_DEPTH {
            return Some((i, Some(key)));
        }
        if follow
            && !changing
            && self
                .g
                .edges_from(&key)
                .any(|x| target(self.g, self.module, x).is_some())
        {
            self.cut += 1;
        }
        Some((i, None))
    }
}

/// How many calls deep an edge is followed to see whether it changes state.
const CHANGE_DEPTH: usize = 3;

/// Whether edge `e` leads, within `depth` calls, to a change outside the code: a statement
/// that writes, a message sent, a remote call. `known` remembers callees already judged.
fn changes(g: &Graph<'_>, e: &Edge, depth: usize, known: &mut HashMap<String, bool>) -> bool {
    let Some(callee) = e.callee.as_deref() else {
        return false;
    };
    match e.kind {
        EdgeKind::Event | EdgeKind::Rpc => return true,
        EdgeKind::Db => {
            let name = callee.rsplit(['.', '#']).next().unwrap_or(callee);
            if callee.starts_with("mybatis:") && writes(name) {
                return true;
            }
        }
        EdgeKind::Call => {}
        _ => return false,
    }
    if depth == 0 {
        return false;
    }
    if let Some(&k) = known.get(callee) {
        return k;
    }
    known.insert(callee.to_string(), false);
    let found = g
        .edges_from(callee)
        .any(|x| changes(g, x, depth - 1, known));
    known.insert(callee.to_string(), found);
    found
}

/// Lines up to which a method with no calls of its own is a trivial leaf (an accessor, a
/// factory of a result wrapper): it says nothing about the flow.
const TRIVIAL_LINES: u32 = 4;

/// Calls a flowchart leaves out: constructors and implicit ones (a call to a type), bodiless
/// declarations the call dispatches through (the implementation is reached by its own edge),
/// and short methods whose calls reach nothing but such noise (an accessor, a result wrapper
/// built from accessors, a logging helper): boilerplate collapses out of the flow.
fn is_noise(g: &Graph<'_>, s: &crate::facts::Sym) -> bool {
    noise_within(g, s, NOISE_DEPTH)
}

/// How many calls deep a short method is looked into before its calls count as real.
const NOISE_DEPTH: usize = 2;

fn noise_within(g: &Graph<'_>, s: &crate::facts::Sym, depth: usize) -> bool {
    let sym = &s.symbol;
    if sym.kind == SymbolKind::Constructor || sym.kind.is_type() {
        return true;
    }
    let in_interface = sym
        .parent
        .as_ref()
        .and_then(|p| g.sym(&p.0))
        .is_some_and(|p| p.symbol.kind == SymbolKind::Interface);
    let short = sym.end_line.saturating_sub(sym.start_line) < TRIVIAL_LINES;
    if !in_interface && !short {
        return false;
    }
    // The type hierarchy (an override's link to what it implements) is no call.
    let real = g
        .edges_from(&sym.id.0)
        .filter(|x| x.kind.is_flow())
        .any(|x| {
            x.kind != EdgeKind::Call
                || x.callee.as_deref().and_then(|c| g.sym(c)).is_some_and(|c| {
                    c.symbol.kind == SymbolKind::Method
                        && g.is_source_path(&c.path)
                        && (depth == 0 || !noise_within(g, c, depth - 1))
                })
        });
    !real
}

fn kind_word(k: EntryKind) -> &'static str {
    match k {
        EntryKind::Route => "route",
        EntryKind::Listener => "listener",
        EntryKind::Schedule => "schedule",
        EntryKind::Main => "main",
        EntryKind::Api => "API",
    }
}

/// Where an edge leads in a flow: (key, step, whether to follow it further). Calls into the
/// repository's source and generated code are followed; tables, statements and config keys are terminals;
/// library calls, tests and the type hierarchy are left out.
fn target(g: &Graph<'_>, module: &str, e: &Edge) -> Option<(String, Step, bool)> {
    if !e.kind.is_flow() || e.kind == EdgeKind::Config || e.kind == EdgeKind::Route {
        return None;
    }
    let callee = e.callee.as_deref()?;
    if let Some(t) = callee.strip_prefix("table:") {
        return Some((
            callee.to_string(),
            Step {
                name: t.to_string(),
                kind: "table".into(),
                cite: Cite::at(&e.caller_file, e.line),
                module: None,
            },
            false,
        ));
    }
    if callee.starts_with("mybatis:") {
        // The statement itself is a hop to its tables: follow it without a step of its own
        // would hide the SQL's place, so it is a step.
        let name = callee.rsplit('.').next().unwrap_or(callee).to_string();
        let (file, line) = (e.callee_file.as_deref()?, e.callee_line?);
        return Some((
            callee.to_string(),
            Step {
                name: format!("SQL {name}"),
                kind: "sql".into(),
                cite: Cite::at(file, line),
                module: None,
            },
            true,
        ));
    }
    let s = g.sym(callee)?;
    // Generated mappers are where the rows change: a flow follows into them.
    if !g.is_code_path(&s.path) || (e.kind == EdgeKind::Call && is_noise(g, s)) {
        return None;
    }
    let m = g.module_of(&s.path)?;
    Some((
        callee.to_string(),
        Step {
            name: g.short_name(s),
            kind: if e.kind == EdgeKind::Rpc {
                "remote".into()
            } else {
                "method".into()
            },
            cite: Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
            module: (m != module).then(|| m.to_string()),
        },
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{Facts, FileInfo, Sym};
    use query::model::{Provenance, Snapshot, Symbol, SymbolId};
    use std::collections::BTreeMap;

    fn method(path: &str, owner: &str, name: &str, start: u32, end: u32) -> Sym {
        Sym {
            path: path.into(),
            symbol: Symbol {
                id: SymbolId(format!("java:{owner}#{name}()")),
                kind: SymbolKind::Method,
                name: name.into(),
                qualified_name: format!("{owner}.{name}"),
                signature: format!("void {name}()"),
                doc: None,
                parent: Some(SymbolId(format!("java:{owner}"))),
                start_line: start,
                end_line: end,
                name_line: start,
                annotations: vec![],
                visibility: "public".into(),
                is_static: false,
                body_hash: String::new(),
                params: vec![],
                value_type: "void".into(),
                has_body: true,
                body_line: start,
                supertypes: vec![],
                literals: vec![],
                throws: vec![],
                thrown: vec![],
            },
        }
    }

    fn edge(file: &str, caller: &str, line: u32, kind: EdgeKind, callee: &str) -> Edge {
        Edge {
            caller_file: file.into(),
            caller: caller.into(),
            caller_name: String::new(),
            line,
            kind,
            callee: Some(callee.into()),
            callee_name: String::new(),
            callee_file: None,
            callee_line: None,
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site: Default::default(),
        }
    }

    /// A route → controller → service → table, with an accessor call that the chart drops.
    #[test]
    fn a_flow_follows_calls_to_tables_and_drops_accessors() {
        let (c, s) = ("a/C.java", "a/S.java");
        let file = |lines| FileInfo {
            module: "a".into(),
            lines,
            provenance: Provenance::Source,
            code: true,
        };
        let facts = Facts {
            snapshot: Snapshot {
                generation: 1,
                commit: None,
                dirty: false,
                created_at: 0,
                files: 2,
                symbols: 3,
                chunks: 0,
            },
            files: BTreeMap::from([(c.to_string(), file(40)), (s.to_string(), file(40))]),
            symbols: vec![
                method(c, "a.C", "get", 10, 20),
                method(s, "a.S", "load", 5, 15),
                method(s, "a.S", "getId", 20, 22),
            ],
            edges: vec![
                edge(c, "route:GET /x", 10, EdgeKind::Route, "java:a.C#get()"),
                edge(c, "java:a.C#get()", 12, EdgeKind::Call, "java:a.S#load()"),
                edge(c, "java:a.C#get()", 13, EdgeKind::Call, "java:a.S#getId()"),
                edge(s, "java:a.S#load()", 7, EdgeKind::Db, "table:t_x"),
            ],
            readmes: BTreeMap::new(),
            root_readme: None,
            doc_pages: BTreeMap::new(),
            build_files: BTreeMap::new(),
            roots: BTreeMap::new(),
        };
        let g = Graph::new(&facts);
        let entries = crate::model::entries::find(&g, "a");
        assert_eq!(entries[0].label, "GET /x");
        let flows = build(&g, "a", &entries);
        assert_eq!(flows.len(), 1);
        let f = &flows[0];
        let names: Vec<&str> = f.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["C.get", "S.load", "t_x"]);
        assert_eq!(f.steps[2].kind, "table");
        assert_eq!(f.hops[1].kind, "db");
        assert_eq!(f.hops[1].site, Cite::at(s, 7));
    }
}
