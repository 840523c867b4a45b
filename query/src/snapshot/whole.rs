//! One published snapshot read whole into plain data — files, symbols, edges — for the fronts
//! that look at a whole repository (docgen's maps, the flows of [`crate::flows`]). Everything
//! over it is pure.

use crate::model::{Edge, IndexRead, Provenance, Snapshot, StoreError, Symbol};
use std::collections::BTreeMap;

/// A file of the snapshot as the whole-repository views need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub module: String,
    pub lines: u32,
    pub provenance: Provenance,
    /// Parsed as code (not indexed as plain text).
    pub code: bool,
}

/// A symbol and the file it is declared in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sym {
    pub path: String,
    pub symbol: Symbol,
}

/// One snapshot, read once.
#[derive(Debug, Clone)]
pub struct Whole {
    pub snapshot: Snapshot,
    /// By repository path.
    pub files: BTreeMap<String, FileInfo>,
    /// Every symbol, ordered by path then line.
    pub symbols: Vec<Sym>,
    /// Every edge `keep` accepted, ordered by use-site file then source order.
    pub edges: Vec<Edge>,
}

impl Whole {
    /// Reads the last published snapshot, holding only the edges `keep` accepts (left out as
    /// they stream in, so a kind nobody looks at never takes memory). `None` before the first
    /// index run.
    pub fn read(
        r: &dyn IndexRead,
        keep: &(dyn Fn(&Edge) -> bool + Sync),
    ) -> Result<Option<Whole>, StoreError> {
        let Some(whole) = r.whole_snapshot_keeping(keep)? else {
            return Ok(None);
        };
        let files = whole
            .files
            .into_values()
            .map(|f| {
                let info = FileInfo {
                    module: f.module,
                    lines: f.lines,
                    provenance: f.provenance,
                    code: !f.language.is_text(),
                };
                (f.path.as_str().to_string(), info)
            })
            .collect();
        let symbols = whole
            .symbols
            .into_iter()
            .map(|s| Sym {
                path: s.path.as_str().to_string(),
                symbol: s.symbol,
            })
            .collect();
        Ok(Some(Whole {
            snapshot: whole.snapshot,
            files,
            symbols,
            edges: whole.edges,
        }))
    }

    /// Drops the files under folder `prefix` (`docs/codemap/`) and everything declared in them.
    pub fn exclude_under(&mut self, prefix: &str) {
        self.files.retain(|p, _| !p.starts_with(prefix));
        self.symbols.retain(|s| !s.path.starts_with(prefix));
        self.edges.retain(|e| !e.caller_file.starts_with(prefix));
    }

    /// Each module's root folder: the deepest folder holding all its files (`""` for the
    /// repository root), by module name.
    pub fn module_roots(&self) -> BTreeMap<String, String> {
        let mut roots: BTreeMap<String, String> = BTreeMap::new();
        for (path, f) in &self.files {
            let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
            match roots.get_mut(&f.module) {
                None => {
                    roots.insert(f.module.clone(), dir.to_string());
                }
                Some(r) => {
                    let common = common_dir(r, dir);
                    *r = common;
                }
            }
        }
        roots
    }
}

/// The longest common folder prefix of two folders.
fn common_dir(a: &str, b: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for (x, y) in a.split('/').zip(b.split('/')) {
        if x != y {
            break;
        }
        out.push(x);
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_dir_stops_at_the_first_difference() {
        assert_eq!(common_dir("a/b/c", "a/b/d"), "a/b");
        assert_eq!(common_dir("a/b", "a/b"), "a/b");
        assert_eq!(common_dir("a", "b"), "");
        assert_eq!(common_dir("", "a/b"), "");
    }
}
