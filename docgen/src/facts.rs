//! What the code maps are built from: one snapshot's files, symbols and edges, read through
//! [`IndexRead`] (either backend) into plain data, so that everything after it is pure.

use crate::DocgenError;
use query::model::{EdgeKind, IndexRead};
use query::snapshot::{Whole, file_text};
use std::collections::BTreeMap;

pub use query::snapshot::{FileInfo, Sym};

/// One snapshot, read once, with the pages and build files the maps quote.
#[derive(Debug, Clone)]
pub struct Facts {
    /// Files, symbols and edges (read edges left out).
    pub whole: Whole,
    /// Text of each module's README (`<root>/README.md`), by module name, with its path.
    pub readmes: BTreeMap<String, (String, String)>,
    /// The repository's top-level README, with its path: where modules are often listed.
    pub root_readme: Option<(String, String)>,
    /// Markdown pages of the repository's documentation folder (`doc/`, `docs/`), by path:
    /// where a section per module often says what it is.
    pub doc_pages: BTreeMap<String, String>,
    /// Text of each module's describing manifest at its root (`pom.xml`, `package.json`, …:
    /// [`query::model::described_files`]), by module name, with its path.
    pub build_files: BTreeMap<String, (String, String)>,
    /// Each module's root folder (`""` for the repository root), by module name.
    pub roots: BTreeMap<String, String>,
}

impl Facts {
    /// Reads the snapshot. `None` before the first index run.
    pub fn read(r: &dyn IndexRead) -> Result<Option<Facts>, DocgenError> {
        // Who reads which field is no part of the maps: kept, every constant read would count
        // as a use and a module dependency; left out as the edges stream in, the most numerous
        // kind never takes memory.
        let Some(whole) = Whole::read(r, &|e| e.kind != EdgeKind::Read)? else {
            return Ok(None);
        };
        let mut facts = Facts {
            whole,
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
            if facts
                .whole
                .files
                .get(&path)
                .is_some_and(|f| f.module == module)
            {
                let text = file_text(r, &path)?;
                facts.readmes.insert(module.clone(), (path, text));
            }
            if let Some(path) = query::model::described_files()
                .map(|b| at(b.name))
                .find(|p| facts.whole.files.contains_key(p))
            {
                let text = file_text(r, &path)?;
                facts.build_files.insert(module, (path, text));
            }
        }
        if facts.whole.files.contains_key("README.md") {
            facts.root_readme = Some(("README.md".into(), file_text(r, "README.md")?));
        }
        let pages: Vec<String> = facts
            .whole
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
        self.whole.exclude_under(prefix);
    }

    /// Each module's root folder: the deepest folder holding all its files (`""` for the
    /// repository root), by module name.
    pub fn module_roots(&self) -> BTreeMap<String, String> {
        self.whole.module_roots()
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
