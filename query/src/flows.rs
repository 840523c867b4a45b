//! Key flows of a module: from each entry point ([`entry_points`]: routes, listeners,
//! schedules, `main`s, API types), the calls it makes, breadth first to a depth, as a small
//! graph a flowchart can show. One operation for every front over a whole snapshot
//! ([`crate::snapshot::Graph`]): docgen turns the flows into its pages, MCP's `flows` tool lists
//! them.
//!
//! Not `ask`'s chain builder: that one ranks callees by their relevance to a question. A map has
//! no question, so it keeps every call into the repository's own code (and the tables, topics and
//! remote services reached), nearest first, and cuts by depth and size: the state-changing paths
//! first, generated mappers followed, accessors and result wrappers left out ([`walk`]).

mod entries;
mod walk;

pub use entries::entry_points;

use crate::model::{Edge, EdgeKind, IndexRead, StoreError, SymbolKind};
use crate::snapshot::{Graph, Whole};
use serde::Serialize;
use walk::{Walk, is_noise};

/// A place in the snapshot: `path:line`, or `path:line-end` for a range.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub path: String,
    pub line: u32,
    pub end: u32,
}

impl Place {
    pub fn new(path: &str, line: u32, end: u32) -> Place {
        Place {
            path: path.to_string(),
            line,
            end: end.max(line),
        }
    }
    pub fn at(path: &str, line: u32) -> Place {
        Place::new(path, line, line)
    }
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.end > self.line {
            write!(f, "{}:{}-{}", self.path, self.line, self.end)
        } else {
            write!(f, "{}:{}", self.path, self.line)
        }
    }
}

/// How calls from outside come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    Route,
    Listener,
    Schedule,
    Main,
    /// A public type other modules use (or, for a module nobody uses, its public types).
    Api,
}

impl EntryKind {
    /// The word a flow's title starts with.
    pub fn word(self) -> &'static str {
        match self {
            EntryKind::Route => "route",
            EntryKind::Listener => "listener",
            EntryKind::Schedule => "schedule",
            EntryKind::Main => "main",
            EntryKind::Api => "API",
        }
    }
}

/// Where calls from outside a module come in. Ordered by kind, then label, then handler.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct EntryPoint {
    pub kind: EntryKind,
    /// `POST /api/orders`, `cron=0 */5 * * * ?`, `queue order.cancel`, `main`, a type's kind.
    pub label: String,
    /// The method or type it enters: display name (`Type.method`, an API type's qualified name).
    pub name: String,
    /// Its declaration.
    pub place: Place,
    /// Its symbol id (flows start from it).
    pub id: String,
    /// An API type's doc comment, as written (`None` for the other kinds).
    pub doc: Option<String>,
}

/// What a step of a flow is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepKind {
    Method,
    /// A MyBatis statement.
    Sql,
    Table,
    /// A method reached by a remote call (Feign, Dubbo).
    Remote,
    /// A call out of the repository through a client the class is handed (a payment SDK, a
    /// mail sender, an HTTP client): cited at the call site.
    External,
}

impl StepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Method => "method",
            StepKind::Sql => "sql",
            StepKind::Table => "table",
            StepKind::Remote => "remote",
            StepKind::External => "external",
        }
    }
}

/// A step of a flow: a method, or a terminal such as a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub name: String,
    pub kind: StepKind,
    /// Declaration of a method or statement; the use site for a table or an external call.
    pub place: Place,
    /// Module of a method outside the flow's own (`None` inside it, and for terminals).
    pub module: Option<String>,
    /// A statement that changes rows (`<insert>`, `<update>`, `<delete>`).
    pub writes: bool,
}

/// `from` → `to` in a flow, by index into [`Flow::steps`], with the edge kind and its use site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    pub site: Place,
}

/// A depth-limited call graph from one entry point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flow {
    /// Its title: the entry's kind and label (`route GET /x`), overloads numbered.
    pub entry: String,
    pub steps: Vec<Step>,
    pub hops: Vec<Hop>,
    /// Calls left out by the depth or size caps.
    pub cut: usize,
}

/// Calls followed below the entry.
const MAX_DEPTH: usize = 4;
/// Steps per flow: a flowchart larger than this stops being read.
const MAX_STEPS: usize = 14;
/// Flows per page.
const MAX_FLOWS: usize = 6;
/// Steps of the walk that measures what an entry reaches, to choose flows by: past the
/// flowchart's cap, so a handler whose writes sit below its first fourteen calls still counts
/// them.
const REACH_STEPS: usize = 96;

/// Entry points whose flows are built before the best are kept.
const MAX_CANDIDATES: usize = 400;

/// A module's entry points and the key flows from them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFlows {
    pub entries: Vec<EntryPoint>,
    pub flows: Vec<Flow>,
}

/// The entry points and key flows of `module`, read from the last published snapshot (whole:
/// for a front asking about one module now and then; docgen reads the snapshot once and calls
/// [`entry_points`] and [`build`] per module). `None` when the snapshot has no such module,
/// or no snapshot yet.
pub fn of_module(r: &dyn IndexRead, module: &str) -> Result<Option<ModuleFlows>, StoreError> {
    // Who reads which field is no flow: read edges, the most numerous kind, are left out.
    let Some(whole) = Whole::read(r, &|e| e.kind != EdgeKind::Read)? else {
        return Ok(None);
    };
    if !whole.files.values().any(|f| f.module == module) {
        return Ok(None);
    }
    let g = Graph::new(&whole);
    let entries = entry_points(&g, module);
    let flows = build(&g, module, &entries);
    Ok(Some(ModuleFlows { entries, flows }))
}

/// The key flows of `module`: from its routes, listeners, schedules and `main`s (API types have
/// none), chosen for what they do: the best flow of each entry kind first, then the best of the
/// rest ([`worth`]), shown in entry order.
pub fn build(g: &Graph<'_>, module: &str, entries: &[EntryPoint]) -> Vec<Flow> {
    let mut seen_handlers: Vec<&str> = Vec::new();
    let mut flows: Vec<Candidate> = Vec::new();
    for e in entries.iter().filter(|e| e.kind != EntryKind::Api) {
        if seen_handlers.contains(&e.id.as_str()) {
            continue;
        }
        seen_handlers.push(&e.id);
        let f = flow(g, module, e, MAX_STEPS);
        // A flow of one step says nothing the entry list does not.
        if f.steps.len() > 1 {
            let reach = flow(g, module, e, REACH_STEPS);
            flows.push((flows.len(), e.kind, f, reach));
        }
        if seen_handlers.len() == MAX_CANDIDATES {
            break;
        }
    }
    if flows.is_empty() {
        flows = library_flows(g, module, entries)
            .into_iter()
            .map(|(i, f, reach)| (i, EntryKind::Api, f, reach))
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

/// A flow to choose from: its entry's position, its kind, the flowchart and what the entry
/// reaches (the same walk past the flowchart's size cap).
type Candidate = (usize, EntryKind, Flow, Flow);

/// The [`MAX_FLOWS`] flows to show, picked one at a time: an entry kind not shown yet first
/// (a listener, a schedule, a `main` beside the routes), and among those the entry whose reach
/// adds the most [`worth`] the flows already picked do not show (so five routes into the same
/// cancel path do not crowd out order placement and the payment callback).
fn choose(flows: Vec<Candidate>) -> Vec<(usize, Flow)> {
    let mut left: Vec<Option<Candidate>> = flows.into_iter().map(Some).collect();
    let mut shown: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut kinds: Vec<EntryKind> = Vec::new();
    let mut out = Vec::new();
    while out.len() < MAX_FLOWS {
        let new_kind = left.iter().flatten().any(|(_, k, ..)| !kinds.contains(k));
        let best = left
            .iter()
            .enumerate()
            .filter_map(|(i, f)| f.as_ref().map(|f| (i, f)))
            .filter(|(_, (_, k, ..))| !new_kind || !kinds.contains(k))
            .map(|(i, (at, _, _, reach))| (worth(reach, &shown), std::cmp::Reverse(*at), i))
            .max();
        let Some((_, _, i)) = best else { break };
        let (at, kind, f, _) = left[i].take().unwrap();
        shown.extend(f.steps.iter().map(step_key));
        kinds.push(kind);
        out.push((at, f));
    }
    out
}

/// A step's identity across flows: its kind and name, and for a declaration its place too
/// (statements of different mappers share names such as `SQL insert`); a table or an external
/// call is its name wherever it is used.
fn step_key(s: &Step) -> String {
    match s.kind {
        StepKind::Table | StepKind::External => format!("{}\u{0}{}", s.kind.as_str(), s.name),
        k => format!(
            "{}\u{0}{}\u{0}{}:{}",
            k.as_str(),
            s.name,
            s.place.path,
            s.place.line
        ),
    }
}

/// What a flow does that the flows in `shown` do not, for choosing among them: first what it
/// changes and sends outside its code (statements that write, messages, remote and external
/// calls), then how much else it reaches (methods, reads, tables) to break ties. A chain of
/// fifty reads says less about what a module does than one write, so reads never outweigh a
/// change.
pub fn worth(f: &Flow, shown: &std::collections::HashSet<String>) -> (usize, usize) {
    let (mut changes, mut reach) = (0, 0);
    for s in f.steps.iter().filter(|s| !shown.contains(&step_key(s))) {
        match s.kind {
            StepKind::Sql if s.writes => changes += 3,
            StepKind::Remote | StepKind::External => changes += 2,
            _ => reach += 1,
        }
    }
    let events = f.hops.iter().filter(|h| h.kind == EdgeKind::Event);
    let new_events = events
        .filter(|h| !shown.contains(&step_key(&f.steps[h.to])))
        .count();
    (changes + 2 * new_events, reach)
}

/// Whether the statement a [`EdgeKind::Db`] edge reaches changes rows: its XML element
/// (the edge's detail), else its name (`updateStatus`, `insertSelective`) for statements whose
/// element is unknown.
fn writes(e: &Edge) -> bool {
    match e.detail.as_str() {
        "insert" | "update" | "delete" => true,
        "select" => false,
        _ => {
            let name = e.callee.as_deref().unwrap_or_default();
            let name = name
                .rsplit(['.', '#'])
                .next()
                .unwrap_or(name)
                .to_lowercase();
            [
                "insert", "update", "delete", "save", "remove", "batch", "set", "replace", "merge",
            ]
            .iter()
            .any(|w| name.starts_with(w))
        }
    }
}

/// Public methods of API types tried as flow starts in a module nobody enters from outside
/// (a library): the most called ones.
const LIBRARY_CANDIDATES: usize = 20;

/// Flows of a library: from the most called public methods of its API types.
fn library_flows(g: &Graph<'_>, module: &str, entries: &[EntryPoint]) -> Vec<(usize, Flow, Flow)> {
    let api: Vec<&str> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Api)
        .map(|e| e.id.as_str())
        .collect();
    let mut methods: Vec<(usize, &crate::snapshot::Sym)> = g
        .symbols_of(module)
        .filter(|s| {
            let in_api = s.symbol.kind == SymbolKind::Method
                && s.symbol
                    .parent
                    .as_ref()
                    .is_some_and(|p| api.contains(&p.0.as_str()));
            // A module's own functions are its API too (Python).
            let module_function = s.symbol.kind == SymbolKind::Function && g.is_top_level(s);
            (in_api || module_function) && s.symbol.visibility == "public" && !is_noise(g, s)
        })
        .map(|s| (g.edges_to(&s.symbol.id.0).count(), s))
        .collect();
    methods.sort_by_key(|m| std::cmp::Reverse(m.0));
    methods
        .into_iter()
        .take(LIBRARY_CANDIDATES)
        .map(|(_, s)| {
            let e = EntryPoint {
                kind: EntryKind::Api,
                label: g.short_name(s),
                name: g.short_name(s),
                place: Place::new(&s.path, s.symbol.start_line, s.symbol.end_line),
                id: s.symbol.id.0.clone(),
                doc: None,
            };
            (flow(g, module, &e, MAX_STEPS), e)
        })
        // An overload handing off to another says little: a library flow shows some depth.
        .filter(|(f, _)| f.steps.len() > 2)
        .enumerate()
        .map(|(i, (f, e))| (i, f, flow(g, module, &e, REACH_STEPS)))
        .collect()
}

/// The flow from entry `e`, of at most `max_steps` steps.
fn flow(g: &Graph<'_>, module: &str, e: &EntryPoint, max_steps: usize) -> Flow {
    let first = Step {
        name: e.name.clone(),
        kind: StepKind::Method,
        place: e.place.clone(),
        module: None,
        writes: false,
    };
    let mut w = Walk::new(g, module, &e.id, first, max_steps);
    // The paths that change state first, then the rest while the flowchart has room: a
    // handler calling twenty readers still shows the call that writes.
    w.breadth_first(&e.id, true);
    w.breadth_first(&e.id, false);
    Flow {
        entry: match e.kind {
            EntryKind::Main => format!("main {}", e.name),
            k => format!("{} {}", k.word(), e.label),
        },
        steps: w.steps,
        hops: w.hops,
        cut: w.cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Edge, Provenance, Snapshot, Symbol, SymbolId};
    use crate::snapshot::{FileInfo, Sym, Whole};

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

    /// A snapshot of files of 40 lines in module `a`, with these symbols and edges.
    fn whole_of(paths: &[&str], symbols: Vec<Sym>, edges: Vec<Edge>) -> Whole {
        let file = FileInfo {
            module: "a".into(),
            lines: 40,
            provenance: Provenance::Source,
            code: true,
        };
        Whole {
            snapshot: Snapshot {
                generation: 1,
                commit: None,
                dirty: false,
                created_at: 0,
                files: paths.len() as u64,
                symbols: symbols.len() as u64,
                chunks: 0,
                publish_id: None,
            },
            files: paths
                .iter()
                .map(|p| (p.to_string(), file.clone()))
                .collect(),
            symbols,
            edges,
        }
    }

    fn step(name: &str, kind: StepKind, line: u32, writes: bool) -> Step {
        Step {
            name: name.into(),
            kind,
            place: Place::at("m/Order.xml", line),
            module: None,
            writes,
        }
    }

    fn flow_of(steps: Vec<Step>) -> Flow {
        Flow {
            entry: "route GET /x".into(),
            steps,
            hops: vec![],
            cut: 0,
        }
    }

    /// One write outweighs any number of reads; a write already shown counts no more, and a
    /// statement of another mapper with the same name is not the one shown.
    #[test]
    fn a_flow_is_worth_what_it_changes_before_what_it_reads() {
        let reads = flow_of(
            (0..40)
                .map(|i| step(&format!("M.read{i}"), StepKind::Method, i, false))
                .collect(),
        );
        let write = flow_of(vec![
            step("M.pay", StepKind::Method, 1, false),
            step("SQL insert", StepKind::Sql, 5, true),
        ]);
        let none = std::collections::HashSet::new();
        assert!(worth(&write, &none) > worth(&reads, &none));
        let shown: std::collections::HashSet<String> = write.steps.iter().map(step_key).collect();
        assert_eq!(worth(&write, &shown), (0, 0));
        let other_mapper = flow_of(vec![step("SQL insert", StepKind::Sql, 9, true)]);
        assert_eq!(worth(&other_mapper, &shown), (3, 0));
    }

    /// A statement writes by its XML element; its name decides only when the element is unknown.
    #[test]
    fn a_statement_writes_by_its_element() {
        let db = |callee: &str, detail: &str| Edge {
            detail: detail.into(),
            ..edge("m/M.java", "java:M#m()", 1, EdgeKind::Db, callee)
        };
        assert!(writes(&db("mybatis:m.StockMapper.deduct", "update")));
        assert!(!writes(&db("mybatis:m.StockMapper.updatedSince", "select")));
        assert!(writes(&db("mybatis:m.StockMapper.insertAll", "")));
        assert!(!writes(&db("mybatis:m.StockMapper.findAll", "")));
    }

    /// A library call on a field the class is handed (no initializer, not static) leaves the
    /// repository: a step of its own, cited at the call site, and a change that ranks the flow.
    /// A call on a field the class makes itself (a logger), on a static one, into the
    /// runtime's values (a list) or one a framework edge already says (a key read) is not.
    #[test]
    fn a_call_on_a_handed_in_client_leaves_the_repository() {
        let c = "a/Pay.java";
        let field = |name: &str, initialized: bool, is_static: bool| {
            let mut f = method(c, "a.Pay", name, 3, 3);
            f.symbol.id = SymbolId(format!("java:a.Pay#{name}"));
            f.symbol.kind = SymbolKind::Field;
            f.symbol.has_body = initialized;
            f.symbol.is_static = is_static;
            f
        };
        let on = |receiver: &str, line: u32, callee: &str| {
            let mut e = edge(c, "java:a.Pay#notify()", line, EdgeKind::Call, callee);
            e.site.receiver = vec![receiver.to_string()];
            e
        };
        let whole = whole_of(
            &[c],
            vec![
                method(c, "a.Pay", "notify", 10, 30),
                field("client", false, false),
                field("log", true, false),
                field("FORMAT", false, true),
                field("items", false, false),
                field("env", false, false),
            ],
            vec![
                edge(
                    c,
                    "route:POST /pay",
                    10,
                    EdgeKind::Route,
                    "java:a.Pay#notify()",
                ),
                on("log", 11, "java:org.log.Log#info"),
                on("FORMAT", 12, "java:org.fmt.Fmt#format"),
                on("client", 13, "java:com.pay.PayClient#parse"),
                on("items", 14, "java:java.util.List#add(Object)"),
                on("env", 15, "java:org.env.Env#getProperty"),
                edge(
                    c,
                    "java:a.Pay#notify()",
                    15,
                    EdgeKind::Config,
                    "config:pay.key",
                ),
            ],
        );
        let g = Graph::new(&whole);
        let entries = entry_points(&g, "a");
        let flows = build(&g, "a", &entries);
        let f = &flows[0];
        let names: Vec<&str> = f.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["Pay.notify", "PayClient.parse"]);
        assert_eq!(f.steps[1].kind, StepKind::External);
        assert_eq!(f.steps[1].place, Place::at(c, 13));
        let none = std::collections::HashSet::new();
        assert_eq!(worth(f, &none), (2, 1));
    }

    /// A route → controller → service → table, with an accessor call that the chart drops.
    #[test]
    fn a_flow_follows_calls_to_tables_and_drops_accessors() {
        let (c, s) = ("a/C.java", "a/S.java");
        let whole = whole_of(
            &[c, s],
            vec![
                method(c, "a.C", "get", 10, 20),
                method(s, "a.S", "load", 5, 15),
                method(s, "a.S", "getId", 20, 22),
            ],
            vec![
                edge(c, "route:GET /x", 10, EdgeKind::Route, "java:a.C#get()"),
                edge(c, "java:a.C#get()", 12, EdgeKind::Call, "java:a.S#load()"),
                edge(c, "java:a.C#get()", 13, EdgeKind::Call, "java:a.S#getId()"),
                edge(s, "java:a.S#load()", 7, EdgeKind::Db, "table:t_x"),
            ],
        );
        let g = Graph::new(&whole);
        let entries = entry_points(&g, "a");
        assert_eq!(entries[0].label, "GET /x");
        let flows = build(&g, "a", &entries);
        assert_eq!(flows.len(), 1);
        let f = &flows[0];
        let names: Vec<&str> = f.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["C.get", "S.load", "t_x"]);
        assert_eq!(f.steps[2].kind, StepKind::Table);
        assert_eq!(f.hops[1].kind, EdgeKind::Db);
        assert_eq!(f.hops[1].site, Place::at(s, 7));
        assert_eq!(f.entry, "route GET /x");
    }
}
