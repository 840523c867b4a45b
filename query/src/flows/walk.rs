//! One flow's walk: breadth first from the entry's handler over the call graph, what a step
//! is ([`target`]), what changes state ([`changes`]), what leaves the repository
//! ([`calls_out`]) and what is noise ([`is_noise`]).

use super::{Hop, MAX_DEPTH, Place, Step, StepKind, writes};
use crate::model::{Edge, EdgeKind, SymbolKind};
use crate::snapshot::{Graph, Sym};
use std::collections::HashMap;

/// One flow being built: its steps (by key in `index`), hops, and how much was left out.
pub(super) struct Walk<'g, 'f> {
    g: &'g Graph<'f>,
    module: &'g str,
    pub(super) steps: Vec<Step>,
    index: HashMap<String, usize>,
    pub(super) hops: Vec<Hop>,
    pub(super) cut: usize,
    /// Steps at most (the flowchart's size, or a larger bound when measuring what it reaches).
    max_steps: usize,
    /// Callees already judged by [`changes`].
    known: HashMap<String, bool>,
}

impl<'g, 'f> Walk<'g, 'f> {
    /// A walk of at most `max_steps` steps whose first step is `first`, the symbol `id`.
    pub(super) fn new(
        g: &'g Graph<'f>,
        module: &'g str,
        id: &str,
        first: Step,
        max_steps: usize,
    ) -> Self {
        Walk {
            g,
            module,
            steps: vec![first],
            index: HashMap::from([(id.to_string(), 0)]),
            hops: Vec::new(),
            cut: 0,
            max_steps,
            known: HashMap::new(),
        }
    }

    /// Follows calls from `root` breadth first to [`MAX_DEPTH`]; with `changing`, only the
    /// edges that lead to a change of state (and nothing counts as cut).
    pub(super) fn breadth_first(&mut self, root: &str, changing: bool) {
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
                        kind: edge.kind,
                        site: Place::at(&edge.caller_file, edge.line),
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
        if self.steps.len() >= self.max_steps {
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
/// that writes, a message sent, a remote or external call. `known` remembers callees already
/// judged.
fn changes(g: &Graph<'_>, e: &Edge, depth: usize, known: &mut HashMap<String, bool>) -> bool {
    let Some(callee) = e.callee.as_deref() else {
        return false;
    };
    if calls_out(g, e) {
        return true;
    }
    match e.kind {
        EdgeKind::Event | EdgeKind::Rpc => return true,
        EdgeKind::Db => {
            if callee.starts_with("mybatis:") && writes(e) {
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
pub(super) fn is_noise(g: &Graph<'_>, s: &Sym) -> bool {
    noise_within(g, s, NOISE_DEPTH)
}

/// Whether a call leaves the repository through a client its class is handed: a library
/// method called on a field of the caller's type that is not static and not initialized where
/// declared (injected, or set by a setter or constructor: a payment service, a mail sender, an
/// HTTP client). A logger or a formatter the class makes itself does not count, nor a static
/// utility, nor the runtime's own values (a list the constructor fills), nor a call the
/// framework edges already say (a message sent, a configuration key read at the same site).
pub(super) fn calls_out(g: &Graph<'_>, e: &Edge) -> bool {
    let [receiver] = e.site.receiver.as_slice() else {
        return false;
    };
    let external = e.kind == EdgeKind::Call
        && e.callee_file.is_none()
        && e.callee
            .as_deref()
            .is_some_and(|c| g.sym(c).is_none() && !indexer::lang::stays_in_process(c));
    let handed_in = || {
        g.sym(&e.caller)
            .and_then(|m| m.symbol.parent.as_ref())
            .and_then(|owner| g.field(&owner.0, receiver))
            .is_some_and(|f| !f.symbol.is_static && !f.symbol.has_body)
    };
    // Last: a scan of the caller's edges, for the few calls that got this far.
    let framework = || {
        g.edges_from(&e.caller).any(|x| {
            x.line == e.line && matches!(x.kind, EdgeKind::Event | EdgeKind::Rpc | EdgeKind::Config)
        })
    };
    external && handed_in() && !framework()
}

/// How many calls deep a short method is looked into before its calls count as real.
const NOISE_DEPTH: usize = 2;

fn noise_within(g: &Graph<'_>, s: &Sym, depth: usize) -> bool {
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
                    matches!(c.symbol.kind, SymbolKind::Method | SymbolKind::Function)
                        && g.is_source_path(&c.path)
                        && (depth == 0 || !noise_within(g, c, depth - 1))
                })
        });
    !real
}

/// Where an edge leads in a flow: (key, step, whether to follow it further). Calls into the
/// repository's source and generated code are followed; tables, statements, config keys and
/// calls out through a held client ([`calls_out`]) are terminals; other library calls, tests
/// and the type hierarchy are left out.
fn target(g: &Graph<'_>, module: &str, e: &Edge) -> Option<(String, Step, bool)> {
    if !e.kind.is_flow() || e.kind == EdgeKind::Config || e.kind == EdgeKind::Route {
        return None;
    }
    let callee = e.callee.as_deref()?;
    if calls_out(g, e) {
        return Some((
            callee.to_string(),
            Step {
                name: g.short_id(callee),
                kind: StepKind::External,
                place: Place::at(&e.caller_file, e.line),
                module: None,
                writes: false,
            },
            false,
        ));
    }
    if let Some(t) = callee.strip_prefix("table:") {
        return Some((
            callee.to_string(),
            Step {
                name: t.to_string(),
                kind: StepKind::Table,
                place: Place::at(&e.caller_file, e.line),
                module: None,
                writes: false,
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
                kind: StepKind::Sql,
                place: Place::at(file, line),
                module: None,
                writes: writes(e),
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
                StepKind::Remote
            } else {
                StepKind::Method
            },
            place: Place::new(&s.path, s.symbol.start_line, s.symbol.end_line),
            module: (m != module).then(|| m.to_string()),
            writes: false,
        },
        true,
    ))
}
