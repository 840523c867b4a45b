//! Entry points: where calls from outside the module come in.
//!
//! Routes and schedules are pseudo callers in the graph (`route:POST /api/orders`,
//! `schedule:cron=…`); listeners are the targets of `event` edges (the edge's detail names the
//! topic) or carry a listener annotation nobody sends to yet; `main` is a static
//! `main(String[])`; API types are the public types other modules use.

use super::{Cite, Entry, EntryKind, Graph, Item};
use query::model::EdgeKind;
use std::collections::BTreeMap;

use query::entry::{HANDLER_ANNOTATIONS, LISTENER_ANNOTATIONS, annotation_name};

/// The listener annotation that makes method `s` a listener: its own, or its class's when the
/// method is the class listener's handler.
fn listener_annotation<'f>(g: &Graph<'f>, s: &'f crate::facts::Sym) -> Option<&'f str> {
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

/// The module's entry points, ordered by kind, then label, then handler.
pub fn find(g: &Graph<'_>, module: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut api_uses: BTreeMap<String, usize> = BTreeMap::new();
    for s in g.symbols_of(module) {
        let sym = &s.symbol;
        let item = || Item {
            name: g.short_name(s),
            cite: Cite::new(&s.path, sym.start_line, sym.end_line),
        };
        let entry = |kind, label: String| Entry {
            kind,
            label,
            about: String::new(),
            handler: item(),
            handler_id: sym.id.0.clone(),
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
            if !out.iter().any(|e| e.handler_id == sym.id.0)
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
    out.dedup_by(|a, b| a.kind == b.kind && a.label == b.label && a.handler_id == b.handler_id);
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
        out.push(Entry {
            kind: EntryKind::Api,
            label: s.symbol.kind.as_str().to_string(),
            about: s
                .symbol
                .doc
                .as_deref()
                .map(|d| super::clip(first_sentence(&super::purpose::strip(d)), ABOUT_CHARS))
                .unwrap_or_default(),
            handler: Item {
                name: s.symbol.qualified_name.clone(),
                cite: Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
            },
            handler_id: id,
        });
    }
    out
}

/// At most `max` entries, each kind given its turn (one route, one listener, one schedule, one
/// `main`, one API type, again) so that a module with many routes still shows its listeners
/// and `main`; kept in their order.
pub fn fair_cut(entries: Vec<Entry>, max: usize) -> Vec<Entry> {
    if entries.len() <= max {
        return entries;
    }
    let mut by_kind: Vec<Vec<usize>> = Vec::new();
    let mut kinds: Vec<EntryKind> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match kinds.iter().position(|k| *k == e.kind) {
            Some(k) => by_kind[k].push(i),
            None => {
                kinds.push(e.kind);
                by_kind.push(vec![i]);
            }
        }
    }
    let mut keep: Vec<usize> = Vec::with_capacity(max);
    let mut turn = 0;
    while keep.len() < max {
        for list in &by_kind {
            if let Some(&i) = list.get(turn)
                && keep.len() < max
            {
                keep.push(i);
            }
        }
        turn += 1;
    }
    keep.sort_unstable();
    let mut entries: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    keep.into_iter().filter_map(|i| entries[i].take()).collect()
}

/// Longest "what it is for" shown beside an API type.
const ABOUT_CHARS: usize = 100;

/// The first sentence of a doc comment (up to its first `. ` or `。`), whole when it has none.
fn first_sentence(doc: &str) -> &str {
    let doc = doc.trim();
    let end = [
        doc.find(". ").map(|i| i + 1),
        doc.find('。').map(|i| i + '。'.len_utf8()),
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap_or(doc.len());
    &doc[..end]
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
    fn an_api_type_is_described_by_its_first_sentence() {
        assert_eq!(
            first_sentence("Manages sessions. Each context has one."),
            "Manages sessions."
        );
        assert_eq!(first_sentence("管理会话。每个上下文一个。"), "管理会话。");
        assert_eq!(first_sentence("  No full stop here "), "No full stop here");
        // A dot inside a name is no sentence end.
        assert_eq!(
            first_sentence("Wraps java.util.Map for the pool"),
            "Wraps java.util.Map for the pool"
        );
    }

    #[test]
    fn a_cut_gives_every_kind_its_turn() {
        let e = |kind, label: &str| Entry {
            kind,
            label: label.into(),
            about: String::new(),
            handler: Item {
                name: label.into(),
                cite: Cite::at("A.java", 1),
            },
            handler_id: label.into(),
        };
        let mut all: Vec<Entry> = (0..10)
            .map(|i| e(EntryKind::Route, &format!("r{i}")))
            .collect();
        all.push(e(EntryKind::Listener, "l"));
        all.push(e(EntryKind::Main, "m"));
        let kept: Vec<String> = fair_cut(all, 5).into_iter().map(|e| e.label).collect();
        assert_eq!(kept, ["r0", "r1", "r2", "l", "m"]);
    }

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
        assert_eq!(
            annotation_name("@org.x.KafkaListener(topics = \"a\")"),
            "KafkaListener"
        );
    }
}
