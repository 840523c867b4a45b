//! `codemap index` and `codemap watch`.

use super::{Outcome, write_target};
use crate::cli::{Global, IndexArgs};
use anyhow::{Context, Result};
use indexer::pipeline::budget::MemoryBudget;
use indexer::pipeline::{self, IndexOptions, Progress, RunSummary};
use indexer::walk::WalkOptions;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;

pub fn options(a: &IndexArgs) -> IndexOptions {
    IndexOptions {
        walk: WalkOptions {
            max_file_size: a.max_file_size,
            extra_ignores: a.exclude.clone(),
            ..Default::default()
        },
        threads: a.threads,
        rebuild: a.rebuild,
        memory_budget: a.memory_budget,
        ..Default::default()
    }
}

pub fn index(g: &Global, a: &IndexArgs) -> Result<Outcome> {
    let (root, dir) = write_target(g, a.path.as_deref())?;
    let bar = if a.quiet || g.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} files ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message("indexing");
    let progress = |p: Progress| match p {
        Progress::Planned { to_analyse, .. } => bar.set_length(to_analyse as u64),
        Progress::Analysed { done, .. } => bar.set_position(done as u64),
        Progress::Writing => bar.set_message("writing"),
    };
    let summary = pipeline::run(&root, &dir, &options(a), &progress)
        .with_context(|| format!("indexing {} into {}", root.display(), dir.root().display()))?;
    bar.finish_and_clear();
    report(g, &summary, a.memory_budget)?;
    if g.backend == crate::cli::Backend::Meilisearch {
        let repo = g
            .repo_name
            .clone()
            .unwrap_or_else(|| super::repo_name(&root));
        let store = super::meili(g, &repo)?;
        let catalog = indexer::store::catalog::Catalog::open_read(&dir.catalog())?;
        let publish = || {
            if a.rebuild {
                // A full rebuild goes to staging indexes and is swapped in, so readers never see
                // half an index.
                store.stage_rebuild(&catalog)?.swap_in()
            } else {
                store.publish(&catalog)
            }
        };
        let p = publish().with_context(|| {
            format!(
                "publishing snapshot {} to Meilisearch (the server keeps its previous snapshot)",
                summary.snapshot.generation
            )
        })?;
        if !g.json {
            println!(
                "published snapshot {} of {repo} to Meilisearch ({} files {}, edges of {} files, {} tasks)",
                p.to_generation,
                p.paths,
                if p.full { "in full" } else { "changed" },
                p.edge_files,
                p.tasks
            );
        }
    }
    Ok(if summary.snapshot.files == 0 {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// The process's peak resident memory so far (the run's, for `codemap index`), in MiB.
fn peak_mib() -> Option<u64> {
    indexer::pipeline::mem::peak().map(|b| b >> 20)
}

/// One summary line, plus an explanation when nothing was indexed.
fn report(g: &Global, s: &RunSummary, budget: MemoryBudget) -> Result<()> {
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, r) in &s.skipped {
        *reasons.entry(r.label()).or_default() += 1;
    }
    if g.json {
        return super::print_json(&serde_json::json!({
            "snapshot": s.snapshot,
            "added": s.added, "changed": s.changed, "removed": s.removed, "unchanged": s.unchanged,
            "skipped": reasons, "degraded": s.degraded.len(), "reconciled": s.reconciled,
            "elapsed_ms": s.elapsed.as_millis() as u64,
            "peak_memory_mib": peak_mib(),
            "memory_budget_mib": budget.bytes() >> 20,
        }));
    }
    let skipped = if reasons.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = reasons.iter().map(|(k, v)| format!("{v} {k}")).collect();
        format!(", skipped {}", parts.join(", "))
    };
    let degraded = if s.degraded.is_empty() {
        String::new()
    } else {
        format!(", {} as text only", s.degraded.len())
    };
    let peak = peak_mib().map_or(String::new(), |m| {
        format!("; peak memory {m} MiB of a {budget} budget")
    });
    println!(
        "indexed {} files ({} added, {} changed, {} removed, {} unchanged){}{}; {} symbols, {} chunks; snapshot {} in {:.2}s{}",
        s.snapshot.files,
        s.added,
        s.changed,
        s.removed,
        s.unchanged,
        skipped,
        degraded,
        s.snapshot.symbols,
        s.snapshot.chunks,
        s.snapshot.generation,
        s.elapsed.as_secs_f64(),
        peak
    );
    if let Some(m) = peak_mib().filter(|&m| m > budget.bytes() >> 20) {
        println!(
            "note: the run used {m} MiB, over its {budget} budget: the type table and the call \
             graph grow with the repository; give it more with --memory-budget"
        );
    }
    if s.reconciled {
        println!("note: the previous run had been interrupted; the index was reconciled");
    }
    if s.snapshot.files == 0 {
        let mut why = Vec::new();
        if s.ignored_count > 0 {
            why.push(format!(
                "{} excluded by .gitignore/.ignore or hidden",
                s.ignored_count
            ));
        }
        if !s.skipped.is_empty() {
            why.push(format!(
                "{} skipped (`codemap status -v` lists them)",
                s.skipped.len()
            ));
        }
        if why.is_empty() {
            why.push("no source or text files found".to_string());
        }
        println!("0 files indexed: {}", why.join("; "));
    }
    Ok(())
}
