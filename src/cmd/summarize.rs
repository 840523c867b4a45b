//! `codemap summarize`: LLM one-liners for undocumented code, cached beside the index.

use super::ask::{chat, query_dirs};
use super::{Outcome, open_reader, print_json};
use crate::cli::{Global, SummarizeArgs};
use anyhow::{Context, Result, bail};
use query::summarize::{SummaryStore, summarize};

pub fn run(g: &Global, a: &SummarizeArgs) -> Result<Outcome> {
    let Some(url) = &a.llm.llm_url else {
        bail!(
            "summarize needs an OpenAI-compatible endpoint: --llm-url URL (or CODEMAP_LLM_URL), \
             e.g. http://127.0.0.1:11434/v1 for Ollama"
        );
    };
    let reader = open_reader(g)?;
    let (_, dir) = query_dirs(g)?;
    let dir =
        dir.context("no folder to keep summaries in (set --index-dir, or --repo in team mode)")?;
    let llm = chat(url, &a.llm, 600)?;
    let mut store = SummaryStore::open(&dir)
        .with_context(|| format!("opening the summary cache in {}", dir.display()))?;
    let bar = (!a.quiet && !g.json).then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template("summarizing {bar:30} {pos}/{len} files {eta}")
                .expect("valid template"),
        );
        b
    });
    let progress = |done: usize, total: usize| {
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    };
    let model_id = format!("{} @ {url}", a.llm.llm_model);
    let report = summarize(
        reader.as_ref(),
        &mut store,
        &llm,
        &model_id,
        a.limit,
        &progress,
    )
    .context("summarizing (what was finished is kept; run again to continue)")?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if g.json {
        print_json(&report)?;
    } else {
        println!(
            "summarized {} methods and {} files in {} requests ({} already cached, {} not answered); cache: {} summaries in {}",
            report.methods,
            report.files,
            report.requests,
            report.cached,
            report.missing,
            store.len(),
            SummaryStore::path(&dir).display()
        );
    }
    Ok(Outcome::Done)
}
