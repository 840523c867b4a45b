//! "Changed since the last map": what a snapshot diff says about one module, plus the entry
//! points and using modules that appeared or went since the module's previous model.
//!
//! Computed only when a module's model changed, and stored in the state file beside the model's
//! fingerprint: an unchanged module re-renders its page from the stored list, byte for byte.

use crate::model::{Cite, Item, ModuleModel};
use query::model::{SnapshotDiff, SymbolVersion};
use serde::{Deserialize, Serialize};

/// Symbols listed per kind of change.
const MAX_LISTED: usize = 15;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// The commit of the previous map (`None` for a first map, or a map of a tree without git).
    pub since: Option<String>,
    /// The previous map was of a work tree with uncommitted changes on top of `since`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub since_dirty: bool,
    /// No previous map of this module.
    pub first: bool,
    /// False when the index no longer holds the snapshot of the previous map, so symbol-level
    /// changes could not be listed.
    pub history: bool,
    pub added: Vec<Item>,
    pub changed: Vec<Item>,
    /// Removed symbols: name and the file they were in (no line: it is not in the snapshot).
    pub removed: Vec<String>,
    pub entries_added: Vec<String>,
    pub entries_removed: Vec<String>,
    /// Modules that use this one and did not before.
    pub new_users: Vec<String>,
    /// Symbols left out by the caps.
    pub cut: usize,
}

impl Changes {
    pub fn first_map() -> Changes {
        Changes {
            first: true,
            history: true,
            ..Default::default()
        }
    }

    pub fn cites(&self) -> impl Iterator<Item = &Cite> {
        self.added.iter().chain(&self.changed).map(|i| &i.cite)
    }
}

/// The keys an entry point is compared by across maps.
pub fn entry_keys(m: &ModuleModel) -> Vec<String> {
    m.entries
        .iter()
        .map(|e| format!("{:?} {} → {}", e.kind, e.label, e.handler.name).to_lowercase())
        .collect()
}

/// Modules using `m`.
pub fn user_keys(m: &ModuleModel) -> Vec<String> {
    m.deps.used_by.iter().map(|l| l.module.clone()).collect()
}

/// What changed in module `m` since its previous map. `diff` is the snapshot diff from the
/// previous map's snapshot (`None` when the index no longer holds it); `in_module` says
/// whether a path belongs to the module.
pub fn since(
    m: &ModuleModel,
    prev_commit: Option<String>,
    prev_entries: &[String],
    prev_users: &[String],
    diff: Option<&SnapshotDiff>,
    in_module: impl Fn(&str) -> bool,
) -> Changes {
    let mut c = Changes {
        since: prev_commit,
        history: diff.is_some(),
        ..Default::default()
    };
    let listed = |s: &SymbolVersion| s.kind != "package" && in_module(&s.path);
    if let Some(d) = diff {
        let item = |s: &SymbolVersion| Item {
            name: short(&s.qualified_name, &s.kind),
            cite: Cite::new(&s.path, s.start_line, s.end_line),
        };
        let mut added: Vec<Item> = d
            .symbols_added
            .iter()
            .filter(|s| listed(s))
            .map(item)
            .collect();
        let news: Vec<&SymbolVersion> = d
            .symbols_changed
            .iter()
            .map(|x| &x.new)
            .filter(|s| listed(s))
            .collect();
        // A type changes with any member: listed only when no changed member says why.
        let mut changed: Vec<Item> = news
            .iter()
            .filter(|s| {
                !is_type(&s.kind)
                    || !news.iter().any(|o| {
                        o.path == s.path
                            && !std::ptr::eq(*o, **s)
                            && o.start_line >= s.start_line
                            && o.end_line <= s.end_line
                    })
            })
            .map(|s| item(s))
            .collect();
        let mut removed: Vec<String> = d
            .symbols_removed
            .iter()
            .filter(|s| listed(s))
            .map(|s| format!("{} ({})", short(&s.qualified_name, &s.kind), s.path))
            .collect();
        c.cut = [added.len(), changed.len(), removed.len()]
            .iter()
            .map(|n| n.saturating_sub(MAX_LISTED))
            .sum();
        added.truncate(MAX_LISTED);
        changed.truncate(MAX_LISTED);
        removed.truncate(MAX_LISTED);
        (c.added, c.changed, c.removed) = (added, changed, removed);
    }
    let now = entry_keys(m);
    c.entries_added = now
        .iter()
        .filter(|e| !prev_entries.contains(e))
        .cloned()
        .collect();
    c.entries_removed = prev_entries
        .iter()
        .filter(|e| !now.contains(e))
        .cloned()
        .collect();
    c.new_users = user_keys(m)
        .into_iter()
        .filter(|u| !prev_users.contains(u))
        .collect();
    c
}

fn is_type(kind: &str) -> bool {
    matches!(
        kind,
        "class" | "interface" | "enum" | "record" | "annotation"
    )
}

/// `pkg.Type.method` → `Type.method`; a type keeps its simple name.
fn short(qname: &str, kind: &str) -> String {
    let mut parts = qname.rsplit('.');
    let last = parts.next().unwrap_or(qname);
    match (kind, parts.next()) {
        ("class" | "interface" | "enum" | "record" | "annotation", _) | (_, None) => {
            last.to_string()
        }
        (_, Some(owner)) => format!("{owner}.{last}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_keep_the_owner_of_members() {
        assert_eq!(short("a.b.Order", "class"), "Order");
        assert_eq!(short("a.b.Order.cancel", "method"), "Order.cancel");
        assert_eq!(short("x", "method"), "x");
    }
}
