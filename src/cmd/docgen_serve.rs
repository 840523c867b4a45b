//! `codemap docgen serve --config FILE`: the after-merge bot (docgen::serve). Reads and checks the
//! config (errors name the key), then serves webhooks and/or the cron poll until SIGINT/SIGTERM.
//! Logs go to stderr through CODEMAP_LOG (`CODEMAP_LOG=info` shows every job).

use anyhow::{Context, Result};
use docgen::serve::Config;
use std::path::Path;

pub fn serve(config: &Path) -> Result<()> {
    let resolved = Config::load(config)?
        .resolve(&|name| std::env::var(name).ok())
        .with_context(|| format!("checking {}", config.display()))?;
    eprintln!(
        "docgen serve: {} repositories, listening on {} (CODEMAP_LOG=info for job logs)",
        resolved.config.repos.len(),
        resolved.listen
    );
    docgen::serve::serve_blocking(resolved, docgen::serve::code_maps())?;
    Ok(())
}
