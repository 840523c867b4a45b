//! Entry points: where calls from outside a module come in.
//!
//! Routes and schedules are pseudo callers in the graph (`route:POST /api/orders`,
//! `schedule:cron=…`); listeners are the targets of `event` edges (the edge's detail names the
//! topic) or carry a listener annotation nobody sends to yet ([`crate::entry`]'s list); `main`
//! is a static `main(String[])`; API types are the public types other modules use.

use super::{EntryKind, EntryPoint, Place};
use crate::entry::{HANDLER_ANNOTATIONS, LISTENER_ANNOTATIONS, annotation_name};
use crate::model::EdgeKind;
use crate::snapshot::{Graph, Sym};
use std::collections::BTreeMap;

/// The listener annotation that makes method `s` a listener: its own, or its class's when the
/// method is the class listener's handler.
fn listener_annotation<'f>(g: &Graph<'f>, s: &'f Sym) -> Option<&'f str> {
    let is = |a: &&String, names: &[&str]| names.contains(&annotation_name(a));
    if let Some(a) = s
        .symbol
        .annotations
        .iter()
        .find(|a| is(a, LISTENER_ANNOTATIONS))
    {
        return Some(a);
    }
    if !s
        .symbol
        .annotations
        .iter()
        .any(|a| is(&a, HANDLER_ANNOTATIONS))
    {
        return None;
    }
    let class = g.sym(&s.symbol.parent.as_ref()?.0)?;
    class
        .symbol
        .annotations
        .iter()
        .find(|a| is(a, LISTENER_ANNOTATIONS))
        .map(String::as_str)
}

/// API types listed when no other module uses the module (a library's public surface).
const MAX_API_TYPES: usize = 12;

/// The entry points of `module`: routes, listeners, schedules and `main`s ordered by kind, then
/// label, then handler; then its API types (the ones other modules use, else for a library
/// nobody here serves, its public types most used inside), at most [`MAX_API_TYPES`], by id.
pub fn entry_points(g: &Graph<'_>, module: &str) -> Vec<EntryPoint> {
    let mut out: Vec<EntryPoint> = Vec::new();
    let mut api_uses: BTreeMap<String, usize> = BTreeMap::new();
    for s in g.symbols_of(module) {
        let sym = &s.symbol;
        let entry = |kind, label: String| EntryPoint {
            kind,
            label,
            name: g.short_name(s),
            place: Place::new(&s.path, sym.start_line, sym.end_line),
            id: sym.id.0.clone(),
            doc: None,
        };
        if sym.kind.is_callable() {
            for e in g.edges_to(&sym.id.0) {
                if let Some(r) = e.caller.strip_prefix("route:") {
                    out.push(entry(EntryKind::Route, r.to_string()));
                } else if let Some(c) = e.caller.strip_prefix("schedule:") {
                    out.push(entry(EntryKind::Schedule, c.to_string()));
                } else if e.kind == EdgeKind::Event {
                    out.push(entry(EntryKind::Listener, topic_of(&e.detail)));
                }
            }
            if !out.iter().any(|e| e.id == sym.id.0)
                && let Some(a) = listener_annotation(g, s)
            {
                out.push(entry(EntryKind::Listener, a.to_string()));
            }
            if sym.name == "main"
                && sym.is_static
                && sym.signature.contains("String")
                && sym.visibility == "public"
            {
                out.push(entry(EntryKind::Main, "main".into()));
            }
        } else if sym.kind.is_type() && sym.visibility == "public" && g.is_top_level(s) {
            let outside = g
                .edges_to(&sym.id.0)
                .filter(|e| g.module_of(&e.caller_file).is_some_and(|m| m != module))
                .filter(|e| g.is_source_path(&e.caller_file))
                .count();
            api_uses.insert(sym.id.0.clone(), outside);
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.kind == b.kind && a.label == b.label && a.id == b.id);
    // API types: the ones other modules use, most used first; for a library nobody here uses
    // (no routes, listeners or schedules either), its public types most used inside, capped.
    let used: Vec<(&String, &usize)> = api_uses.iter().filter(|(_, n)| **n > 0).collect();
    let served = out.iter().any(|e| e.kind != EntryKind::Main);
    let mut api: Vec<(String, usize)> = if used.is_empty() && served {
        Vec::new()
    } else if used.is_empty() {
        api_uses
            .keys()
            .map(|id| {
                let inside = g.sym(id).map(|s| g.inbound(&s.path)).unwrap_or(0);
                (id.clone(), g.edges_to(id).count() + inside)
            })
            .collect()
    } else {
        used.into_iter().map(|(k, n)| (k.clone(), *n)).collect()
    };
    api.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    api.truncate(MAX_API_TYPES);
    api.sort_by(|a, b| a.0.cmp(&b.0));
    for (id, _) in api {
        let Some(s) = g.sym(&id) else { continue };
        out.push(EntryPoint {
            kind: EntryKind::Api,
            label: s.symbol.kind.as_str().to_string(),
            name: s.symbol.qualified_name.clone(),
            place: Place::new(&s.path, s.symbol.start_line, s.symbol.end_line),
            id,
            doc: s.symbol.doc.clone(),
        });
    }
    out
}

/// What a delivery edge's detail says about where the message goes: the last queue or topic.
fn topic_of(detail: &str) -> String {
    let last = detail.rsplit('→').next().unwrap_or(detail).trim();
    if last.is_empty() {
        "event".to_string()
    } else {
        last.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_come_from_the_last_hop_of_a_delivery() {
        assert_eq!(
            topic_of("kafka topic=inventory-low-stock"),
            "kafka topic=inventory-low-stock"
        );
        assert_eq!(
            topic_of(
                "rabbitmq exchange=a key=b → queue q1, dead-letter → rabbitmq exchange=c key=d → queue q2"
            ),
            "queue q2"
        );
        assert_eq!(topic_of(""), "event");
    }
}
