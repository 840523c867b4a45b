//! What the code maps are built from: one snapshot's files, symbols and edges, read through
//! [`IndexRead`] (either backend) into plain data, so that everything after it is pure.

use crate::DocgenError;
use query::model::{Edge, EdgeKind, IndexRead, Provenance, Snapshot, Symbol};
use query::snapshot::file_text;
use std::collections::BTreeMap;

/// A file of the snapshot as the maps need it.
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
pub struct Facts {
    pub snapshot: Snapshot,
    /// By repository path.
    pub files: BTreeMap<String, FileInfo>,
    /// Every symbol, ordered by path then line.
    pub symbols: Vec<Sym>,
    /// Every edge, ordered by use-site file then source order.
    pub edges: Vec<Edge>,
    /// Text of each module's README (`<root>/README.md`), by module name, with its path.
    pub readmes: BTreeMap<String, (String, String)>,
    /// The repository's top-level README, with its path: where modules are often listed.
    pub root_readme: Option<(String, String)>,
    /// Markdown pages of the repository's documentation folder (`doc/`, `docs/`), by path:
    /// where a section per module often says what it is.
    pub doc_pages: BTreeMap<String, String>,
    /// Text of each module's build file (`pom.xml`, `build.gradle(.kts)`, `package.json`,
    /// `pyproject.toml`, `setup.cfg` at its root), by module name, with its path.
    pub build_files: BTreeMap<String, (String, String)>,
    /// Each module's root folder (`""` for the repository root), by module name.
    pub roots: BTreeMap<String, String>,
}

/// Build files whose description field can say what a module is for, in the order looked at.
const BUILD_FILES: &[&str] = &[
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
];

impl Facts {
    /// Reads the snapshot. `None` before the first index run.
    pub fn read(r: &dyn IndexRead) -> Result<Option<Facts>, DocgenError> {
        // Who reads which field is no part of the maps: kept, every constant read would count
        // as a use and a module dependency; left out as the edges stream in, the most numerous
        // kind never takes memory.
        let Some(whole) = r.whole_snapshot_keeping(&|e| e.kind != EdgeKind::Read)? else {
            return Ok(None);
        };
        let files: BTreeMap<String, FileInfo> = whole
            .files
            .into_values()
            .map(|f| {
                (
                    f.path.as_str().to_string(),
                    FileInfo {
                        module: f.module,
                        lines: f.lines,
                        provenance: f.provenance,
                        code: f.language != query::model::Language::Text,
                    },
                )
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
        let (snapshot, edges) = (whole.snapshot, whole.edges);
        let mut facts = Facts {
            snapshot,
            files,
            symbols,
            edges,
            readmes: BTreeMap::new(),
            root_readme: None,
            doc_pages: BTreeMap::new(),
            build_files: BTreeMap::new(),
            roots: BTreeMap::new(),
        };
        facts.roots = facts.module_roots();
        for (module, root) in facts.roots.clone() {
            let at = |name: &str| match root.is_empty() {
                true => name.to_string(),
                false => format!("{root}/{name}"),
            };
            let path = at("README.md");
            if facts.files.get(&path).is_some_and(|f| f.module == module) {
                let text = file_text(r, &path)?;
                facts.readmes.insert(module.clone(), (path, text));
            }
            if let Some(path) = BUILD_FILES
                .iter()
                .map(|b| at(b))
                .find(|p| facts.files.contains_key(p))
            {
                let text = file_text(r, &path)?;
                facts.build_files.insert(module, (path, text));
            }
        }
        if facts.files.contains_key("README.md") {
            facts.root_readme = Some(("README.md".into(), file_text(r, "README.md")?));
        }
        let pages: Vec<String> = facts
            .files
            .keys()
            .filter(|p| is_doc_page(p))
            .take(MAX_DOC_PAGES)
            .cloned()
            .collect();
        for p in pages {
            let text = file_text(r, &p)?;
            facts.doc_pages.insert(p, text);
        }
        Ok(Some(facts))
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

/// Documentation pages read at most (a docs site can hold thousands).
const MAX_DOC_PAGES: usize = 50;

/// A Markdown page directly in a top-level documentation folder.
fn is_doc_page(path: &str) -> bool {
    let Some((dir, name)) = path.split_once('/') else {
        return false;
    };
    matches!(dir, "doc" | "docs" | "documentation")
        && !name.contains('/')
        && name.ends_with(".md")
        && !name.starts_with("codemap")
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
