//! The per-intent plan: which units an answer cites, in which order, and the chain it shows —
//! callers, callees, a diff's reach, a trace's frames, a flow's chain.

use crate::QueryError;
use crate::chain;
use crate::graph::CallGraph;
use crate::impact::{self, Change, ChangeKind, EntryPoint};
use crate::question::code::{pasted_call_args, split_top_level};
use crate::question::{Intent, Question};
use crate::retrieve::{Ranked, Retriever, SHARED_NAME_OWNERS, UnitKey};
use crate::view::{SnapshotView, SymIdx};
use indexer::model::{Provenance, SymbolId, SymbolKind};
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

/// What an answer will cite and show.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Units in citation order.
    pub units: Vec<UnitKey>,
    /// The symbols the question is about (named target, entry).
    pub targets: Vec<SymIdx>,
    pub chain: Vec<chain::Link>,
    /// Callers (callers, impact) or callees (callees) of the targets, in citation order.
    pub related: Vec<SymIdx>,
    /// How many of `related` are direct callers (a diff's impact); the rest are one hop further.
    pub direct: usize,
    /// How many of the direct callers (first) call a declaration a diff changes or removes.
    pub breaking: usize,
    /// The symbols a pasted diff changes (impact), in diff order.
    pub changes: Vec<Change>,
    /// Routes, schedules and listeners whose calls reach the targets (callers, impact), nearest
    /// first.
    pub entries: Vec<EntryPoint>,
    /// For callers of methods of several types: each caller with the target it calls.
    pub via: Vec<(SymIdx, SymIdx)>,
    /// A pasted stack trace's frames found in the index, in trace order.
    pub frames: Vec<crate::trace::FrameHit>,
    /// Where the trace's deepest exception message is written.
    pub message_site: Option<crate::trace::MessageSite>,
    /// The line to show first of a unit's code, when one matters more than its declaration: a
    /// trace's frame, where the message a question repeats is written.
    pub focus: HashMap<SymIdx, u32>,
    /// The library methods or types a callers question names, as the answer shows them
    /// (`RedisTemplate.opsForValue (a library method)`): the index holds no declaration of them,
    /// only the calls the code makes through them (`related`).
    pub library: Vec<String>,
    pub notes: Vec<String>,
    /// The identifiers a callers or callees question names that no method here is called.
    pub unresolved: Vec<String>,
}

/// Orders what to cite for the question's intent.
pub fn plan(
    r: &Retriever<'_, '_>,
    q: &Question,
    ranked: &[Ranked],
    graph: &dyn CallGraph,
) -> Result<Plan, QueryError> {
    let v = r.view;
    let exact: Vec<SymIdx> = ranked
        .iter()
        .filter(|x| x.exact)
        .filter_map(|x| match x.key {
            UnitKey::Sym(i) => Some(i),
            _ => None,
        })
        .collect();
    let exact_callables: Vec<SymIdx> = exact
        .iter()
        .copied()
        .filter(|&i| v.kind(i).is_callable())
        .collect();
    let top_callable = ranked.iter().find_map(|x| match x.key {
        UnitKey::Sym(i) if v.kind(i).is_callable() => Some(i),
        _ => None,
    });
    // "Who calls publish?": the best-ranked method the question names by a plain word, before
    // a method that merely mentions it (its caller, whose body holds the word).
    let written_callable = ranked.iter().find_map(|x| match x.key {
        UnitKey::Sym(i) if v.kind(i).is_callable() && written_in(q, v.name(i)) => Some(i),
        _ => None,
    });
    let mut p = Plan::default();
    let library = match q.intent {
        Intent::Callers => library_methods(v, q, exact_callables.is_empty())?,
        _ => Vec::new(),
    };
    match q.intent {
        // Calls made through a library type: the graph records them under the library's id.
        // The indexed types implementing it are named too, and their callers listed with them.
        Intent::Callers if !library.is_empty() => {
            let implementing: Vec<SymIdx> = exact_callables
                .iter()
                .copied()
                .filter(|&i| {
                    v.owner_type(i).is_some_and(|o| {
                        let sup = &v.sym(o).symbol.supertypes;
                        library.iter().any(|t| sup.contains(&t.ty))
                    })
                })
                .collect();
            let ids: Vec<String> = library.iter().map(|t| t.id.clone()).collect();
            let callers = callers_with_library(v, graph, &ids, &implementing)?;
            if callers.is_empty() {
                p.notes.push("no callers found in the indexed code".into());
            }
            p.units.extend(callers.iter().map(|&c| UnitKey::Sym(c)));
            p.related = callers;
            p.units
                .extend(implementing.iter().map(|&t| UnitKey::Sym(t)));
            p.targets = implementing;
            for t in library {
                if !p.library.contains(&t.shown) {
                    p.library.push(t.shown);
                }
            }
        }
        Intent::Impact if !q.patch.is_empty() => {
            let located = impact::locate(v, &q.patch)?;
            p.notes.extend(located.notes);
            if located.changes.is_empty() {
                p.notes.push(
                    "the diff changes no declaration of the indexed code (only comments, blank lines, imports or files the index does not hold)"
                        .into(),
                );
            }
            let targets: Vec<SymIdx> = located.changes.iter().map(|c| c.sym).collect();
            // Callers of a declaration that changes or goes away must change too: they first.
            let (breaking, other): (Vec<&Change>, Vec<&Change>) = located
                .changes
                .iter()
                .partition(|c| matches!(c.kind, ChangeKind::Removed | ChangeKind::Declaration));
            let syms = |cs: &[&Change]| cs.iter().map(|c| c.sym).collect::<Vec<_>>();
            let mut direct = callers_of(v, graph, &syms(&breaking))?;
            direct.retain(|c| !targets.contains(c));
            p.breaking = direct.len();
            for c in callers_of(v, graph, &syms(&other))? {
                if !targets.contains(&c) && !direct.contains(&c) {
                    direct.push(c);
                }
            }
            let mut further: Vec<SymIdx> = callers_of(v, graph, &direct)?
                .into_iter()
                .filter(|c| !targets.contains(c) && !direct.contains(c))
                .collect();
            dedup(&mut further);
            p.units.extend(targets.iter().map(|&t| UnitKey::Sym(t)));
            p.units.extend(direct.iter().map(|&c| UnitKey::Sym(c)));
            p.units.extend(further.iter().map(|&c| UnitKey::Sym(c)));
            p.direct = direct.len();
            p.related = direct;
            p.related.extend(further);
            let entries = impact::entry_points(v, graph, &targets)?;
            p.notes.extend(entries.note());
            p.entries = entries.points;
            p.units
                .extend(p.entries.iter().map(|e| UnitKey::Sym(e.handler)));
            p.targets = targets;
            p.changes = located.changes;
        }
        Intent::Callers | Intent::Impact => {
            let targets = match (exact_callables.is_empty(), q.identifiers.is_empty()) {
                (false, _) => source_first(v, exact_callables),
                // Named, but not in the index: say so rather than answer about something else.
                // A type named alone: who calls it means who creates it.
                (true, false) => {
                    let created = creations_of_named_types(v, &exact);
                    if created.is_empty() {
                        unresolved(&mut p, v, q);
                    } else {
                        p.notes.push(format!(
                            "{} is a type: listing where it is created; name a method (Type.method) for its callers",
                            v.name(created[0])
                        ));
                    }
                    created
                }
                (true, true) => {
                    same_name_as_top(v, q, written_callable.or(top_callable), &mut p.notes)
                }
            };
            let mut callers = callers_of(v, graph, &targets)?;
            if q.intent == Intent::Impact {
                let second = callers_of(v, graph, &callers)?;
                callers.extend(second.into_iter().filter(|c| !targets.contains(c)));
                dedup(&mut callers);
            }
            // Where the calls come from outside: routes, schedules, listeners.
            let entries = impact::entry_points(v, graph, &targets)?;
            p.notes.extend(entries.note());
            p.entries = entries.points;
            if callers.is_empty() && !targets.is_empty() {
                p.notes.push("no callers found in the indexed code".into());
            }
            let owners: HashSet<Option<SymIdx>> =
                targets.iter().map(|&t| v.owner_type(t)).collect();
            if q.intent == Intent::Callers && owners.len() > 1 {
                p.via = called_targets(v, graph, &targets, &callers)?;
            }
            p.units.extend(callers.iter().map(|&c| UnitKey::Sym(c)));
            p.related = callers.clone();
            p.units.extend(targets.iter().map(|&t| UnitKey::Sym(t)));
            p.targets = targets;
        }
        Intent::Callees => {
            let targets = match (exact_callables.is_empty(), q.identifiers.is_empty()) {
                (false, _) => exact_callables,
                (true, false) => {
                    unresolved(&mut p, v, q);
                    Vec::new()
                }
                (true, true) => top_callable.into_iter().collect(),
            };
            p.units.extend(targets.iter().map(|&t| UnitKey::Sym(t)));
            for &t in &targets {
                for e in graph.callees(&SymbolId(v.id(t).to_string()))? {
                    if let Some(c) = v.by_id(&e.to.0) {
                        p.units.push(UnitKey::Sym(c));
                        if !p.related.contains(&c) {
                            p.related.push(c);
                        }
                    }
                }
            }
            p.targets = targets;
        }
        Intent::Flow => {
            let entry = flow_entry(v, q, ranked, &exact);
            p.chain = chain::build(r, q, ranked, graph, entry)?;
            p.units.extend(p.chain.iter().map(|l| UnitKey::Sym(l.sym)));
            p.targets = entry.into_iter().collect();
        }
        Intent::Trace => {
            p.frames = crate::trace::frames(v, &q.frames);
            // The failure started at the deepest cause's first frame in the indexed code.
            let origin = p.frames.iter().max_by_key(|h| (h.cause, Reverse(h.order)));
            if let Some(o) = origin {
                p.targets.push(o.sym);
            }
            p.message_site = crate::trace::message_site(v, &q.text)?;
            if let Some(m) = &p.message_site
                && !p.targets.contains(&m.sym)
            {
                p.targets.push(m.sym);
            }
            for h in &p.frames {
                if !p.targets.contains(&h.sym) {
                    p.targets.push(h.sym);
                }
            }
            p.units.extend(p.targets.iter().map(|&i| UnitKey::Sym(i)));
            // The origin's frame line first, then where the message is written, then the rest.
            let lines = origin
                .into_iter()
                .chain(&p.frames)
                .filter(|h| h.inside)
                .filter_map(|h| Some((h.sym, h.line?)));
            let site = p.message_site.as_ref().map(|m| (m.sym, m.line));
            for (i, line) in lines.clone().take(1).chain(site).chain(lines.skip(1)) {
                p.focus.entry(i).or_insert(line);
            }
            if p.targets.is_empty() && !q.frames.is_empty() {
                p.notes
                    .push("no frame of the trace is in the indexed code".into());
            }
            let outside = p
                .frames
                .iter()
                .filter(|h| h.line.is_some() && !h.inside)
                .count();
            let with_line = p.frames.iter().filter(|h| h.line.is_some()).count();
            if outside > 0 {
                p.notes.push(format!(
                    "{outside} of {with_line} frame lines fall outside their methods in the indexed revision: the trace may come from another version of the code"
                ));
            }
        }
        Intent::Locate | Intent::Definition | Intent::Config => {}
    }
    // A placed diff is answered by what it changes and reaches; text matches of its code lines
    // would only add noise. One that placed nothing falls back to the closest indexed code.
    if p.changes.is_empty() {
        for x in ranked {
            p.units.push(x.key.clone());
        }
    }
    dedup(&mut p.units);
    for (i, line) in r.focus_lines(q) {
        p.focus.entry(i).or_insert(line);
    }
    // Where the message the best match writes through a bundle key is worded.
    if let Some(UnitKey::Sym(top)) = p.units.first()
        && let Some(h) = r.bundle_hit(q, *top)
    {
        let who = match v.owner_name(*top) {
            Some(o) => format!("{o}.{}", v.name(*top)),
            None => v.name(*top).to_string(),
        };
        p.notes.push(format!(
            "{who} writes its message through bundle key `{}` ({}:{}: {})",
            h.key,
            h.path,
            h.line,
            crate::trace::shorten(&h.value),
        ));
    }
    Ok(p)
}

/// The best-ranked callable, or every method of its name when the question writes that name as
/// a plain word ("who calls publish?") and few enough types declare it.
fn same_name_as_top(
    v: &SnapshotView<'_>,
    q: &Question,
    top: Option<SymIdx>,
    notes: &mut Vec<String>,
) -> Vec<SymIdx> {
    let Some(t) = top else { return Vec::new() };
    let name = v.name(t);
    if !written_in(q, name) {
        return vec![t];
    }
    let (all, owners) = callables_named(v, name);
    if owners > SHARED_NAME_OWNERS {
        notes.push(format!(
            "{name} is declared by {owners} types; showing the best match only; name one (Type.{name}) to narrow it"
        ));
        return vec![t];
    }
    let mut rest: Vec<SymIdx> = all.into_iter().filter(|&i| i != t).collect();
    rest.insert(0, t);
    source_first(v, owners_the_question_names(v, q, name, rest))
}

/// Of the declarations of a name several types share, those of the types the question's own
/// words name ("when does a session expire?" → `Session.expire`, `StandardSession.expire`, not
/// `Membership.expire`), and only source code unless the question asks for tests or examples.
/// Each filter applies only when something is left after it.
fn owners_the_question_names(
    v: &SnapshotView<'_>,
    q: &Question,
    name: &str,
    xs: Vec<SymIdx>,
) -> Vec<SymIdx> {
    let own = crate::terms::identifier_stems(name);
    let words: HashSet<&str> = q
        .terms
        .iter()
        .filter(|t| t.origin.weight() >= 1.0 && !own.contains(&t.stem))
        .map(|t| t.stem.as_str())
        .collect();
    let named = |i: &SymIdx| {
        v.owner_name(*i).is_some_and(|o| {
            crate::terms::identifier_stems(o)
                .iter()
                .any(|w| words.contains(w.as_str()))
        })
    };
    let asked = |i: &SymIdx| match v.provenance_of(*i) {
        Provenance::Source => true,
        Provenance::Test => q.wants_tests,
        Provenance::Example => q.wants_examples,
        _ => q.wants_generated,
    };
    let mut xs = xs;
    for keep in [&named as &dyn Fn(&SymIdx) -> bool, &asked] {
        if xs.iter().any(keep) {
            xs.retain(keep);
        }
    }
    xs
}

/// The types among the exact hits, each followed by its constructors: a creation calls the
/// constructor, or the type itself when it declares none.
fn creations_of_named_types(v: &SnapshotView<'_>, exact: &[SymIdx]) -> Vec<SymIdx> {
    let mut out = Vec::new();
    for &t in exact.iter().filter(|&&t| v.kind(t).is_type()) {
        out.push(t);
        out.extend(
            v.named(v.name(t))
                .into_iter()
                .filter(|&i| v.kind(i) == SymbolKind::Constructor && v.owner_type(i) == Some(t)),
        );
    }
    out
}

/// Whether the question writes `name` as a word of its own.
fn written_in(q: &Question, name: &str) -> bool {
    q.text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|w| w == name)
}

/// The methods and constructors named exactly `name`, and how many types declare them.
fn callables_named(v: &SnapshotView<'_>, name: &str) -> (Vec<SymIdx>, usize) {
    let all: Vec<SymIdx> = v
        .named(name)
        .into_iter()
        .filter(|&i| v.name(i) == name && v.kind(i).is_callable())
        .collect();
    let owners: HashSet<Option<SymIdx>> = all.iter().map(|&i| v.owner_type(i)).collect();
    let n = owners.len();
    (all, n)
}

/// Why a named method was not taken as the target: absent, or declared by too many types.
/// Says which named identifiers the index does not resolve, and keeps those it has no method of.
fn unresolved(p: &mut Plan, v: &SnapshotView<'_>, q: &Question) {
    let mut parts = Vec::new();
    for id in &q.identifiers {
        let (_, owners) = callables_named(v, &id.name);
        parts.push(if owners == 0 {
            p.unresolved.push(id.text.clone());
            format!("{} is not a method in the indexed code", id.text)
        } else {
            format!(
                "{} is declared by {owners} types; name one (Type.{}) to narrow it",
                id.text, id.name
            )
        });
    }
    p.notes
        .push(format!("{}; showing the closest matches", parts.join("; ")));
}

fn dedup<T: PartialEq + Clone>(v: &mut Vec<T>) {
    let mut out: Vec<T> = Vec::with_capacity(v.len());
    for x in v.drain(..) {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    *v = out;
}

fn source_first(v: &SnapshotView<'_>, mut xs: Vec<SymIdx>) -> Vec<SymIdx> {
    xs.sort_by_key(|&i| v.provenance_of(i) != Provenance::Source);
    xs
}

/// A library method a callers question names, as the graph knows it.
struct LibraryTarget {
    /// The id its calls are recorded under (`java:org.springframework…RedisTemplate#opsForValue`).
    id: String,
    /// The library type's simple name, as written.
    ty: String,
    /// How the answer names what was asked.
    shown: String,
}

/// Library methods a callers question names as `Type.method`, where `Type` is written as a type
/// (capitalized) that the index does not hold, or every called method of such a `Type` named
/// alone when the question names no indexed method (`getSessionCookie(HttpSession, …)` asks
/// about the method, not its parameter's type). A guess by name (a `LocalRedisTemplate` of the
/// code) would answer about another type.
fn library_methods(
    v: &SnapshotView<'_>,
    q: &Question,
    types_alone: bool,
) -> Result<Vec<LibraryTarget>, QueryError> {
    let mut out: Vec<LibraryTarget> = Vec::new();
    for ident in &q.identifiers {
        let ty = match &ident.qualifier {
            Some(qual) => qual.rsplit('.').next().unwrap_or(qual),
            None if types_alone => ident.name.as_str(),
            None => continue,
        };
        // Alone, any symbol of that exact name is what the question names; qualified, a type.
        let indexed = v
            .named(ty)
            .into_iter()
            .any(|i| v.name(i) == ty && (ident.qualifier.is_none() || v.kind(i).is_type()));
        if indexed || !ty.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        let (ids, shown) = match &ident.qualifier {
            Some(_) => (
                crate::calls::library_method_ids(v.index, ty, &ident.name)?,
                format!("{ty}.{} (a library method)", ident.name),
            ),
            None => (
                crate::calls::library_type_method_ids(v.index, ty)?,
                format!("{ty} (a library type: calls of its methods)"),
            ),
        };
        for id in ids {
            if !out.iter().any(|t| t.id == id) {
                out.push(LibraryTarget {
                    id,
                    ty: ty.to_string(),
                    shown: shown.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// Callers of any of `targets`: source before tests, confident first, then by place.
fn callers_of(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    targets: &[SymIdx],
) -> Result<Vec<SymIdx>, QueryError> {
    callers_with_library(v, graph, &[], targets)
}

/// Callers of any of `targets` and of the library methods `library` (graph ids whose calls the
/// index records but the call graph between symbols leaves out): source before tests,
/// confident first, then by place.
fn callers_with_library(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    library: &[String],
    targets: &[SymIdx],
) -> Result<Vec<SymIdx>, QueryError> {
    let mut found: Vec<(SymIdx, f32)> = Vec::new();
    let mut add = |c: Option<SymIdx>, confidence: f32| {
        if let Some(c) = c.filter(|c| !targets.contains(c)) {
            match found.iter_mut().find(|(x, _)| *x == c) {
                Some(f) => f.1 = f.1.max(confidence),
                None => found.push((c, confidence)),
            }
        }
    };
    for &t in targets {
        for e in graph.callers(&SymbolId(v.id(t).to_string()))? {
            add(v.by_id(&e.from.0), e.confidence);
        }
    }
    for id in library {
        for e in v.index.edges_to(id)? {
            if e.kind.is_flow() {
                add(v.by_id(&e.caller), e.confidence);
            }
        }
    }
    found.sort_by(|a, b| {
        let pa = v.provenance_of(a.0) != Provenance::Source;
        let pb = v.provenance_of(b.0) != Provenance::Source;
        pa.cmp(&pb)
            .then(b.1.total_cmp(&a.1))
            .then_with(|| (v.path(a.0), v.span(a.0).0).cmp(&(v.path(b.0), v.span(b.0).0)))
    });
    Ok(found.into_iter().map(|(c, _)| c).collect())
}

/// Each of `callers` with the target it calls most surely: a call through an interface also
/// reaches its implementations, less surely than the method the code names.
fn called_targets(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    targets: &[SymIdx],
    callers: &[SymIdx],
) -> Result<Vec<(SymIdx, SymIdx)>, QueryError> {
    let wanted: HashSet<SymIdx> = callers.iter().copied().collect();
    let mut best: HashMap<SymIdx, (SymIdx, f32)> = HashMap::new();
    for &t in targets {
        for e in graph.callers(&SymbolId(v.id(t).to_string()))? {
            let Some(c) = v.by_id(&e.from.0).filter(|c| wanted.contains(c)) else {
                continue;
            };
            let b = best.entry(c).or_insert((t, e.confidence));
            if e.confidence > b.1 {
                *b = (t, e.confidence);
            }
        }
    }
    Ok(callers
        .iter()
        .filter_map(|c| best.get(c).map(|&(t, _)| (*c, t)))
        .collect())
}

/// Where a flow starts: the named method (the overload whose arity the question shows), or the
/// best-ranked member of a named type, or nothing (the chain builder then picks and climbs).
fn flow_entry(
    v: &SnapshotView<'_>,
    q: &Question,
    ranked: &[Ranked],
    exact: &[SymIdx],
) -> Option<SymIdx> {
    let callables: Vec<SymIdx> = exact
        .iter()
        .copied()
        .filter(|&i| v.kind(i).is_callable())
        .collect();
    // `Jsoup.connect(url).get()`: what happens is the last call, on what the first returns.
    for &c in &callables {
        if let Some(t) = chain::fluent_target(v, &q.text, c) {
            return Some(t);
        }
    }
    if !callables.is_empty() {
        let args = q
            .identifiers
            .iter()
            .find_map(|id| args_in_text(&q.text, &id.name));
        // The overload whose arity the question shows, then the one whose parameter types its
        // arguments show (`readValue(jsonString, Person.class)`: `String`, `Class`).
        let pick = callables
            .iter()
            .copied()
            .filter(|&i| v.provenance_of(i) == Provenance::Source)
            .min_by_key(|&i| {
                let params = v.param_types(i);
                let n = params.len();
                match &args {
                    Some(a) => {
                        let shown = a
                            .iter()
                            .zip(&params)
                            .filter(|(arg, p)| arg_shows_type(arg, p))
                            .count();
                        (n.abs_diff(a.len()), usize::MAX - shown, n)
                    }
                    None => (0, 0, n),
                }
            });
        return pick.or(callables.first().copied());
    }
    // A named type's flow often runs in what it inherits (`ConsoleAppender` writes through
    // `OutputStreamAppender.subAppend`): its supertypes' members are candidates too.
    let types: Vec<SymIdx> = exact
        .iter()
        .copied()
        .filter(|&i| v.kind(i).is_type())
        .flat_map(|t| crate::graph::hierarchy::ancestors(v, t))
        .collect();
    if !types.is_empty() {
        return ranked.iter().find_map(|x| match x.key {
            UnitKey::Sym(i)
                if v.kind(i).is_callable()
                    && v.owner_type(i).is_some_and(|o| types.contains(&o)) =>
            {
                Some(i)
            }
            _ => None,
        });
    }
    None
}

/// The arguments written after `name(` in the question, if any.
pub(crate) fn args_in_text(text: &str, name: &str) -> Option<Vec<String>> {
    let inside = pasted_call_args(text, name)?.trim();
    Some(if inside.is_empty() {
        Vec::new()
    } else {
        split_top_level(inside)
            .into_iter()
            .map(|a| a.trim().to_string())
            .collect()
    })
}

/// Whether an argument as written shows the parameter's type: `Person.class` a `Class`, a
/// quoted string a `String`, a number a numeric type, a variable named after the type
/// (`jsonString`, `srcFile`, `mapper` for `ObjectMapper`).
fn arg_shows_type(arg: &str, param: &str) -> bool {
    let simple = param
        .split('<')
        .next()
        .unwrap_or(param)
        .trim_end_matches("[]")
        .trim_end_matches("...")
        .rsplit('.')
        .next()
        .unwrap_or(param)
        .trim();
    if simple.is_empty() {
        return false;
    }
    if arg.ends_with(".class") {
        return simple == "Class";
    }
    if arg.starts_with('"') {
        return matches!(simple, "String" | "CharSequence");
    }
    if arg.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return matches!(
            simple,
            "int" | "long" | "short" | "byte" | "double" | "float" | "Integer" | "Long" | "Number"
        );
    }
    let is_var = !arg.is_empty() && arg.chars().all(|c| c.is_alphanumeric() || c == '_');
    let lower = arg.to_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    let ty = simple.to_lowercase();
    is_var
        && (lower.ends_with(&ty)
            || singular.ends_with(&ty)
            || crate::retrieve::names_its_type(arg, simple))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_from_question_text() {
        assert_eq!(
            args_in_text(
                "What happens when I call copyDirectory(src, dest)?",
                "copyDirectory"
            ),
            Some(vec!["src".to_string(), "dest".to_string()])
        );
        assert_eq!(args_in_text("call run()", "run"), Some(Vec::new()));
        assert_eq!(args_in_text("call run", "run"), None);
    }

    #[test]
    fn arguments_show_parameter_types() {
        assert!(arg_shows_type("Person.class", "Class<T>"));
        assert!(arg_shows_type("jsonString", "String"));
        assert!(arg_shows_type("\"a,b\"", "String"));
        assert!(arg_shows_type("42", "int"));
        assert!(arg_shows_type("mapper", "com.x.ObjectMapper"));
        assert!(arg_shows_type("files", "File[]"));
        assert!(!arg_shows_type("jsonString", "JsonParser"));
        assert!(!arg_shows_type("Person.class", "JavaType"));
        assert!(!arg_shows_type("x + 1", "int"));
    }
}
