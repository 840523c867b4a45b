//! Whole-snapshot reads, for the fronts that render a repository rather than answer one
//! question (docgen's code maps, its reviewer): open an index where it lies, read the last
//! snapshot whole into plain data ([`Whole`]) and look it up ([`Graph`]), read a file's text back
//! from its chunks. The diff since an earlier snapshot is a method of the reader
//! (`IndexRead::diff_since`, [`crate::model::IndexRead`]).

mod graph;
mod whole;

pub use graph::Graph;
pub use whole::{FileInfo, Sym, Whole};

use crate::model::{IndexRead, StoreError};
use crate::service::IndexLocation;
use indexer::store::meilisearch::MeiliStore;
use indexer::store::{EmbeddedIndex, IndexDir};

/// Opens the index at `loc` for reading. An embedded folder holding no index is
/// [`StoreError::NoIndex`]; a Meilisearch scope is connected to, not yet read.
pub fn open(loc: &IndexLocation) -> Result<Box<dyn IndexRead>, StoreError> {
    match loc {
        IndexLocation::Embedded { index_dir, .. } => {
            if !embedded_exists(index_dir) {
                return Err(StoreError::NoIndex(index_dir.clone()));
            }
            Ok(Box::new(EmbeddedIndex::open(&IndexDir::new(index_dir))?))
        }
        IndexLocation::Meilisearch {
            config, cache_dir, ..
        } => {
            // The copy of the chunks' search index goes beside the view tables.
            let mut config = config.clone();
            if config.search_dir.is_none() {
                config.search_dir = cache_dir.as_ref().map(|d| d.join("search"));
            }
            Ok(Box::new(MeiliStore::connect(config)?))
        }
    }
}

/// The embedded index in folder `index_dir` (a `.codemap` folder or a server's copy of one).
pub fn open_embedded(index_dir: &std::path::Path) -> Result<Box<dyn IndexRead>, StoreError> {
    open(&IndexLocation::Embedded {
        index_dir: index_dir.to_path_buf(),
        repo_root: None,
    })
}

/// Whether folder `index_dir` holds an embedded index (a run has published into it).
pub fn embedded_exists(index_dir: &std::path::Path) -> bool {
    IndexDir::new(index_dir).exists()
}

/// A file's text from its chunks. Chunks leave out the blank lines between them: lines are put
/// back at their numbers, so the text's line numbers are the file's. Empty for a file the
/// snapshot does not hold.
pub fn file_text(r: &dyn IndexRead, path: &str) -> Result<String, StoreError> {
    let mut lines: Vec<String> = Vec::new();
    for c in r.chunks_of(path)? {
        let start = c.chunk.start_line.max(1) as usize;
        for (k, l) in c.chunk.text.lines().enumerate() {
            let at = start - 1 + k;
            if lines.len() <= at {
                lines.resize(at + 1, String::new());
            }
            lines[at] = l.to_string();
        }
    }
    Ok(lines.join("\n"))
}
