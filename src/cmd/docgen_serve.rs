//! `codemap docgen serve --config FILE`: the after-merge bot (docgen::serve). Reads and checks the
//! config (errors name the key), then serves webhooks and/or the cron poll until SIGINT/SIGTERM.
//! Logs go to stderr through CODEMAP_LOG (`CODEMAP_LOG=info` shows every job).

use anyhow::{Context, Result};
use docgen::serve::{Config, Indexed, Reindex};
use indexer::pipeline::{self, IndexOptions};
use indexer::store::{IndexDir, WriteLock};
use std::path::Path;
use std::sync::Arc;

pub fn serve(config: &Path) -> Result<()> {
    let resolved = Config::load(config)?
        .resolve(&|name| std::env::var(name).ok())
        .with_context(|| format!("checking {}", config.display()))?;
    eprintln!(
        "docgen serve: {} repositories, listening on {} (CODEMAP_LOG=info for job logs)",
        resolved.config.repos.len(),
        resolved.listen
    );
    docgen::serve::serve_blocking(resolved, docgen::serve::code_maps(), Arc::new(Pipeline))?;
    Ok(())
}

/// The re-index step of docgen serve's jobs: the indexer's incremental pipeline, as
/// `codemap index` runs it (docgen itself reaches indexes only through `query`).
struct Pipeline;

impl Reindex for Pipeline {
    fn index(&self, tree: &Path, index: &Path) -> Result<Indexed, String> {
        let s = pipeline::run(
            tree,
            &IndexDir::new(index),
            &IndexOptions::default(),
            &|_| {},
        )
        .map_err(|e| e.to_string())?;
        Ok(Indexed {
            files: s.snapshot.files,
            changed: (s.added + s.changed + s.removed) as u64,
            generation: s.snapshot.generation,
            dirty: s.snapshot.dirty,
        })
    }

    fn locked(
        &self,
        index: &Path,
        f: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> Result<(), String> {
        let _lock = WriteLock::acquire(&IndexDir::new(index)).map_err(|e| e.to_string())?;
        f().map_err(|e| e.to_string())
    }
}
