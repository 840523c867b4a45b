//! Dependencies: modules used and using, remote services, topics and configuration keys.

use super::{Cite, Deps, Graph, Item, ModuleLink};
use query::model::EdgeKind;
use std::collections::{BTreeMap, BTreeSet};

/// Items listed per dependency kind.
const MAX_ITEMS: usize = 20;

pub fn find(g: &Graph<'_>, module: &str) -> Deps {
    let mut uses: BTreeMap<&str, (usize, Item)> = BTreeMap::new();
    let mut remote: BTreeMap<String, Item> = BTreeMap::new();
    let mut topics: BTreeMap<String, Item> = BTreeMap::new();
    let mut config: BTreeMap<String, Item> = BTreeMap::new();
    let mut runtime: BTreeSet<(String, String)> = BTreeSet::new();
    for e in g.edges_in(module) {
        let site = Cite::at(&e.caller_file, e.line);
        let callee = e.callee.as_deref().unwrap_or_default();
        match e.kind {
            EdgeKind::Config => {
                if let Some(k) = callee.strip_prefix("config:") {
                    keep_first(&mut config, k.to_string(), site.clone());
                }
            }
            EdgeKind::Rpc => {
                let what = if e.detail.is_empty() {
                    g.short_id(callee)
                } else {
                    format!("{} ({})", e.detail, g.short_id(callee))
                };
                keep_first(&mut remote, what, site.clone());
            }
            EdgeKind::Event if !e.caller.starts_with("schedule:") => {
                let what = if e.detail.is_empty() {
                    g.short_id(callee)
                } else {
                    e.detail.clone()
                };
                keep_first(&mut topics, format!("sends {what}"), site.clone());
            }
            _ => {}
        }
        // Another module reached at run time (a remote call, a message): a link, not a code
        // dependency.
        if matches!(e.kind, EdgeKind::Rpc | EdgeKind::Event)
            && let Some(m) = e.callee_file.as_deref().and_then(|f| g.module_of(f))
            && m != module
        {
            runtime.insert((m.to_string(), e.kind.as_str().to_string()));
        }
        // Module dependencies: code that uses another module's code (generated code included).
        // A configuration key is no dependency: two modules defining the same key do not use
        // each other (the key's item above cites where it is read).
        if let Some(f) = e.callee_file.as_deref()
            && is_code_use(e.kind)
            && let Some(m) = g.module_of(f)
            && m != module
            && g.is_code_path(f)
        {
            let entry = uses.entry(m).or_insert_with(|| {
                (
                    0,
                    Item {
                        name: format!("{} → {}", g.short_id(&e.caller), g.short_id(callee)),
                        cite: site.clone(),
                    },
                )
            });
            entry.0 += 1;
        }
    }
    // Listeners: deliveries into this module from anywhere.
    for s in g.symbols_of(module).filter(|s| s.symbol.kind.is_callable()) {
        for e in g
            .edges_to(&s.symbol.id.0)
            .filter(|e| e.kind == EdgeKind::Event)
        {
            if e.caller.starts_with("schedule:") || e.detail.is_empty() {
                continue;
            }
            keep_first(
                &mut topics,
                format!("listens {}", e.detail),
                Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
            );
        }
    }
    let mut used_by: BTreeMap<&str, (usize, Item)> = BTreeMap::new();
    for e in g.edges_into(module) {
        let Some(callee) = e.callee.as_deref() else {
            continue;
        };
        let Some(m) = g.module_of(&e.caller_file) else {
            continue;
        };
        if m == module || !g.is_user_path(&e.caller_file) || !is_code_use(e.kind) {
            continue;
        }
        let entry = used_by.entry(m).or_insert_with(|| {
            (
                0,
                Item {
                    name: format!("{} → {}", g.short_id(&e.caller), g.short_id(callee)),
                    cite: Cite::at(&e.caller_file, e.line),
                },
            )
        });
        entry.0 += 1;
    }
    let links = |m: BTreeMap<&str, (usize, Item)>| {
        m.into_iter()
            .map(|(module, (count, example))| ModuleLink {
                module: module.to_string(),
                count,
                example,
            })
            .collect()
    };
    let capped = |m: BTreeMap<String, Item>| m.into_values().take(MAX_ITEMS).collect();
    Deps {
        uses: links(uses),
        used_by: links(used_by),
        remote: capped(remote),
        topics: capped(topics),
        config: capped(config),
        runtime: runtime.into_iter().collect(),
    }
}

/// Edges that are one module's code using another's: calls, type hierarchy, constants, data
/// access. Remote calls, messages, routes and configuration keys are not.
fn is_code_use(kind: EdgeKind) -> bool {
    matches!(
        kind,
        EdgeKind::Call
            | EdgeKind::Inherits
            | EdgeKind::Implements
            | EdgeKind::Overrides
            | EdgeKind::Constant
            | EdgeKind::Db
    )
}

fn keep_first(map: &mut BTreeMap<String, Item>, name: String, cite: Cite) {
    map.entry(name.clone()).or_insert(Item { name, cite });
}
