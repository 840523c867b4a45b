//! The maps' view of one snapshot: query's lookups over the whole snapshot
//! ([`query::snapshot::Graph`]: symbols by id, edges by caller, callee and module, display
//! names) plus what only the pages ask: the names a module goes by and its symbols' digest.
//! Built once per run; every section of the model reads through it.

use crate::facts::Facts;

pub struct Graph<'f> {
    pub facts: &'f Facts,
    snapshot: query::snapshot::Graph<'f>,
}

/// The snapshot's lookups, read as the maps' own (`g.edges_from(id)`, `g.sym(id)`).
impl<'f> std::ops::Deref for Graph<'f> {
    type Target = query::snapshot::Graph<'f>;
    fn deref(&self) -> &Self::Target {
        &self.snapshot
    }
}

impl<'f> Graph<'f> {
    pub fn new(facts: &'f Facts) -> Graph<'f> {
        Graph {
            facts,
            snapshot: query::snapshot::Graph::new(&facts.whole),
        }
    }

    /// The names a repository may call a module by: its own and its root folder's.
    pub fn module_names(&self, module: &str) -> Vec<String> {
        let mut names = vec![module.to_string()];
        if let Some(dir) = self
            .facts
            .roots
            .get(module)
            .and_then(|r| r.rsplit('/').next())
            && !dir.is_empty()
            && dir != module
        {
            names.push(dir.to_string());
        }
        names
    }

    /// Ids and body hashes of the module's symbols, hashed (hex).
    pub fn symbols_digest(&self, module: &str) -> String {
        let mut h = sha2::Sha256::default();
        for s in self.symbols_of(module) {
            for part in [
                s.path.as_str(),
                s.symbol.id.0.as_str(),
                s.symbol.body_hash.as_str(),
            ] {
                sha2::Digest::update(&mut h, part.as_bytes());
                sha2::Digest::update(&mut h, [0u8]);
            }
        }
        hex::encode(&sha2::Digest::finalize(h)[..12])
    }
}
