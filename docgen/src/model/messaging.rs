//! Topics and events: per channel (a queue, an exchange and routing key, a Kafka or RocketMQ
//! topic, a Spring event), the code that sends to it and the code that listens on it, on both
//! sides of a module boundary. From the `event` edges of the graph (sender → listener, with
//! the channel in the edge's detail), and from listener annotations nobody is seen sending to.

use super::{Cite, Entry, EntryKind, Graph, Item};
use query::model::EdgeKind;
use serde::Serialize;
use std::collections::BTreeMap;

/// One channel a module sends to or listens on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Channel {
    pub name: String,
    /// Sending code, named with its module when another module's.
    pub senders: Vec<Item>,
    pub listeners: Vec<Item>,
}

/// Channels listed per module at most.
pub const MAX_CHANNELS: usize = 20;

pub fn find(g: &Graph<'_>, module: &str, entries: &[Entry]) -> Vec<Channel> {
    let mut channels: BTreeMap<String, Channel> = BTreeMap::new();
    let named = |id: &str, path: &str| match g.module_of(path) {
        Some(m) if m != module => format!("{} ({m})", g.short_id(id)),
        _ => g.short_id(id),
    };
    let deliveries = g
        .edges_in(module)
        .chain(
            g.symbols_of(module)
                .flat_map(|s| g.edges_to(&s.symbol.id.0)),
        )
        .filter(|e| e.kind == EdgeKind::Event && !e.caller.starts_with("schedule:"));
    for e in deliveries {
        let Some(callee) = e.callee.as_deref() else {
            continue;
        };
        let sender = Item {
            name: named(&e.caller, &e.caller_file),
            cite: Cite::at(&e.caller_file, e.line),
        };
        let listener = g.sym(callee).map(|s| Item {
            name: named(callee, &s.path),
            cite: Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
        });
        add(
            &mut channels,
            channel_of(&e.detail, callee),
            Some(sender),
            listener,
        );
    }
    // Listeners nobody is seen sending to (the sender builds the name at run time, or lives in
    // another repository): the annotation names the channel.
    for en in entries.iter().filter(|e| e.kind == EntryKind::Listener) {
        let listening = channels
            .values()
            .any(|c| c.listeners.iter().any(|l| l.cite == en.handler.cite));
        if !listening {
            add(
                &mut channels,
                en.label.clone(),
                None,
                Some(en.handler.clone()),
            );
        }
    }
    channels.into_values().take(MAX_CHANNELS).collect()
}

/// Adds a sender and a listener to `channel`, each once.
fn add(
    channels: &mut BTreeMap<String, Channel>,
    channel: String,
    sender: Option<Item>,
    listener: Option<Item>,
) {
    let c = channels.entry(channel.clone()).or_insert(Channel {
        name: channel,
        senders: Vec::new(),
        listeners: Vec::new(),
    });
    for (list, item) in [(&mut c.senders, sender), (&mut c.listeners, listener)] {
        if let Some(i) = item
            && !list.iter().any(|x| x.name == i.name)
        {
            list.push(i);
        }
    }
}

/// What a delivery edge says about where the message goes: its detail (the whole route, a
/// dead-letter hop included), else the listener's name.
fn channel_of(detail: &str, callee: &str) -> String {
    if detail.is_empty() {
        callee.to_string()
    } else {
        detail.to_string()
    }
}
