//! The difference of two snapshots: files and symbols added, removed and changed.
//!
//! Pure functions over the versions the catalog returns; `codemap diff` prints this and docgen
//! regenerates only the modules it touches. A symbol is identified by (file, symbol id, n-th
//! occurrence) and counts as changed when its body hash differs — a symbol that only moved lines
//! is unchanged, so an edit above it makes no noise.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileVersion {
    pub path: String,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SymbolVersion {
    pub path: String,
    pub id: String,
    pub kind: String,
    pub qualified_name: String,
    pub start_line: u32,
    pub end_line: u32,
    pub body_hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedSymbol {
    pub old: SymbolVersion,
    pub new: SymbolVersion,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotDiff {
    pub from: u64,
    pub to: u64,
    pub files_added: Vec<String>,
    pub files_removed: Vec<String>,
    pub files_changed: Vec<String>,
    pub symbols_added: Vec<SymbolVersion>,
    pub symbols_removed: Vec<SymbolVersion>,
    pub symbols_changed: Vec<ChangedSymbol>,
}

impl SnapshotDiff {
    pub fn is_empty(&self) -> bool {
        self.files_added.is_empty()
            && self.files_removed.is_empty()
            && self.files_changed.is_empty()
            && self.symbols_added.is_empty()
            && self.symbols_removed.is_empty()
            && self.symbols_changed.is_empty()
    }
}

/// Computes the diff from `old` to `new`. Output lists are sorted by path, then line.
pub fn diff(
    from: u64,
    to: u64,
    old_files: &[FileVersion],
    new_files: &[FileVersion],
    old_symbols: &[SymbolVersion],
    new_symbols: &[SymbolVersion],
) -> SnapshotDiff {
    let mut d = SnapshotDiff {
        from,
        to,
        ..Default::default()
    };
    let old_f: BTreeMap<&str, &str> = old_files
        .iter()
        .map(|f| (f.path.as_str(), f.hash.as_str()))
        .collect();
    let new_f: BTreeMap<&str, &str> = new_files
        .iter()
        .map(|f| (f.path.as_str(), f.hash.as_str()))
        .collect();
    for (p, h) in &new_f {
        match old_f.get(p) {
            None => d.files_added.push(p.to_string()),
            Some(oh) if oh != h => d.files_changed.push(p.to_string()),
            Some(_) => {}
        }
    }
    d.files_removed = old_f
        .keys()
        .filter(|p| !new_f.contains_key(*p))
        .map(|p| p.to_string())
        .collect();

    let old_s = keyed(old_symbols);
    let new_s = keyed(new_symbols);
    for (k, n) in &new_s {
        match old_s.get(k) {
            None => d.symbols_added.push((*n).clone()),
            Some(o) if o.body_hash != n.body_hash => d.symbols_changed.push(ChangedSymbol {
                old: (*o).clone(),
                new: (*n).clone(),
            }),
            Some(_) => {}
        }
    }
    d.symbols_removed = old_s
        .iter()
        .filter(|(k, _)| !new_s.contains_key(*k))
        .map(|(_, s)| (*s).clone())
        .collect();
    let by_place = |a: &SymbolVersion, b: &SymbolVersion| {
        (&a.path, a.start_line).cmp(&(&b.path, b.start_line))
    };
    d.symbols_added.sort_by(by_place);
    d.symbols_removed.sort_by(by_place);
    d.symbols_changed.sort_by(|a, b| by_place(&a.new, &b.new));
    d
}

fn keyed(symbols: &[SymbolVersion]) -> BTreeMap<(&str, &str, usize), &SymbolVersion> {
    let mut seen: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    let mut sorted: Vec<&SymbolVersion> = symbols.iter().collect();
    sorted.sort_by(|a, b| (&a.path, a.start_line, &a.id).cmp(&(&b.path, b.start_line, &b.id)));
    for s in sorted {
        let n = seen.entry((s.path.as_str(), s.id.as_str())).or_insert(0);
        out.insert((s.path.as_str(), s.id.as_str(), *n), s);
        *n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sym(path: &str, id: &str, line: u32, hash: &str) -> SymbolVersion {
        SymbolVersion {
            path: path.into(),
            id: id.into(),
            kind: "method".into(),
            qualified_name: id.into(),
            start_line: line,
            end_line: line + 2,
            body_hash: hash.into(),
        }
    }

    fn file(path: &str, hash: &str) -> FileVersion {
        FileVersion {
            path: path.into(),
            hash: hash.into(),
        }
    }

    #[test]
    fn moved_symbol_is_unchanged_and_edited_one_is_changed() {
        let old = [
            sym("A.java", "A#a()", 10, "h1"),
            sym("A.java", "A#b()", 20, "h2"),
        ];
        let new = [
            sym("A.java", "A#a()", 12, "h1"),
            sym("A.java", "A#b()", 22, "h3"),
            sym("A.java", "A#c()", 30, "h4"),
        ];
        let d = diff(
            1,
            2,
            &[file("A.java", "x")],
            &[file("A.java", "y")],
            &old,
            &new,
        );
        assert_eq!(d.files_changed, vec!["A.java"]);
        assert_eq!(d.symbols_changed.len(), 1);
        assert_eq!(d.symbols_changed[0].new.id, "A#b()");
        assert_eq!(
            d.symbols_added
                .iter()
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>(),
            vec!["A#c()"]
        );
        assert!(d.symbols_removed.is_empty());
    }

    #[test]
    fn removed_file_takes_its_symbols() {
        let old = [sym("B.java", "B", 1, "h")];
        let d = diff(1, 2, &[file("B.java", "x")], &[], &old, &[]);
        assert_eq!(d.files_removed, vec!["B.java"]);
        assert_eq!(d.symbols_removed.len(), 1);
        assert!(!d.is_empty());
        assert!(
            diff(
                1,
                1,
                &[file("B.java", "x")],
                &[file("B.java", "x")],
                &old,
                &old
            )
            .is_empty()
        );
    }

    fn arb_symbols() -> impl Strategy<Value = Vec<SymbolVersion>> {
        prop::collection::vec((0..3u8, 0..6u8, 1..50u32, 0..3u8), 0..20).prop_map(|v| {
            v.into_iter()
                .map(|(f, i, l, h)| {
                    sym(&format!("F{f}.java"), &format!("S{i}"), l, &format!("h{h}"))
                })
                .collect()
        })
    }

    proptest! {
        /// Applying a diff to the old symbol set gives the new one (as a multiset of keys + hashes).
        #[test]
        fn diff_round_trips(old in arb_symbols(), new in arb_symbols()) {
            let d = diff(1, 2, &[], &[], &old, &new);
            let mut state: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
            for s in &old { state.entry((s.path.clone(), s.id.clone())).or_default().push(s.body_hash.clone()); }
            for s in &d.symbols_removed {
                let v = state.get_mut(&(s.path.clone(), s.id.clone())).unwrap();
                let pos = v.iter().position(|h| *h == s.body_hash).unwrap();
                v.remove(pos);
            }
            for c in &d.symbols_changed {
                let v = state.get_mut(&(c.old.path.clone(), c.old.id.clone())).unwrap();
                let pos = v.iter().position(|h| *h == c.old.body_hash).unwrap();
                v[pos] = c.new.body_hash.clone();
            }
            for s in &d.symbols_added { state.entry((s.path.clone(), s.id.clone())).or_default().push(s.body_hash.clone()); }
            let mut expect: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
            for s in &new { expect.entry((s.path.clone(), s.id.clone())).or_default().push(s.body_hash.clone()); }
            for v in state.values_mut() { v.sort(); }
            for v in expect.values_mut() { v.sort(); }
            state.retain(|_, v| !v.is_empty());
            prop_assert_eq!(state, expect);
        }
    }
}
