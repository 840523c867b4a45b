//! `codemap docgen`: regenerate the code maps once (CI jobs).

use super::{Outcome, open_reader};
use crate::cli::{DocgenArgs, DocgenMode, Global};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

pub fn docgen(g: &Global, a: &DocgenArgs) -> Result<Outcome> {
    if let Some(DocgenMode::Serve(s)) = &a.mode {
        return super::docgen_serve::serve(&s.config).map(|()| Outcome::Done);
    }
    let root = g.repo.clone().unwrap_or_else(|| PathBuf::from("."));
    let root = root
        .canonicalize()
        .with_context(|| format!("repository root {} not found", root.display()))?;
    let reader = open_reader(g)?;
    let mut opts = docgen::Options::new(&root);
    opts.out_dir = resolved(&a.generate.out);
    if a.generate.readme_markers {
        opts.mode = docgen::OutputMode::ReadmeMarkers;
    }
    opts.templates = a.generate.templates.clone();
    if let Some(url) = &a.generate.llm.llm_url {
        let chat = super::ask::chat(url, &a.generate.llm, 300)?;
        opts.llm = Some(docgen::Llm(std::sync::Arc::new(chat)));
    }
    let out = docgen::generate(reader.as_ref(), &opts)
        .with_context(|| format!("generating the code maps of {}", root.display()))?;
    if g.json {
        super::print_json(&serde_json::json!({
            "changed": out.changed,
            "written": out.written,
            "modules_changed": out.modules_changed,
            "commit": out.commit,
        }))?;
    } else if out.changed {
        for w in &out.written {
            println!("wrote {w}");
        }
    } else {
        println!("code maps are up to date: nothing written");
    }
    Ok(if out.changed {
        Outcome::Done
    } else {
        Outcome::NothingFound
    })
}

/// An absolute `--out` with its existing part's symlinks resolved, so it compares with the
/// canonical repository root (a relative one is taken under the root as it is).
fn resolved(out: &Path) -> PathBuf {
    if out.is_relative() {
        return out.to_path_buf();
    }
    let mut existing = out;
    let mut rest = Vec::new();
    while let Some(parent) = existing.parent() {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |p, c| p.join(c));
        }
        rest.push(existing.file_name().unwrap_or(std::ffi::OsStr::new("..")));
        existing = parent;
    }
    out.to_path_buf()
}
