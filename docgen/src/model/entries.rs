//! The page's entry table: query's entry points of a module ([`query::flows::entry_points`])
//! as the model lists them, an API type described by its doc comment's first sentence, and the
//! cap that gives every kind its turn.

use super::{Entry, EntryKind, Item};
use query::flows::EntryPoint;

/// The page's entry for an entry point.
pub fn page_entry(p: EntryPoint) -> Entry {
    Entry {
        kind: p.kind,
        label: p.label,
        about: p
            .doc
            .as_deref()
            .map(|d| super::clip(first_sentence(&super::purpose::strip(d)), ABOUT_CHARS))
            .unwrap_or_default(),
        handler: Item {
            name: p.name,
            cite: p.place.into(),
        },
        handler_id: p.id,
    }
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
                cite: crate::model::Cite::at("A.java", 1),
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
}
