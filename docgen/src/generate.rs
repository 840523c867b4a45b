//! One run: read the snapshot, build every model, compare with the state file, render, check,
//! and write only what differs.

use crate::changes::{self, Changes};
use crate::facts::Facts;
use crate::global::GlobalModel;
use crate::llm::{self, LlmPurpose};
use crate::model::{self, Cite, ModuleModel};
use crate::options::{self, Llm, Options, Outcome, OutputMode};
use crate::render::{self, Templates};
use crate::state::{PageState, State, VERSION};
use crate::steering::Steering;
use crate::{DocgenError, markdown, write};
use query::model::{IndexRead, SnapshotDiff};
use std::collections::{BTreeMap, HashMap};

pub fn run(read: &dyn IndexRead, opts: &Options) -> Result<Outcome, DocgenError> {
    let t0 = std::time::Instant::now();
    // Pages and the state file go to the same folder, inside the work tree, however it was given.
    let opts = &Options {
        out_dir: options::out_dir_in(&opts.repo_root, &opts.out_dir)?,
        ..opts.clone()
    };
    let mut facts = Facts::read(read)?.ok_or(DocgenError::NoSnapshot)?;
    let t_read = t0.elapsed();
    // The maps themselves are indexed once committed; leaving them out keeps a run from
    // changing the next one's models.
    let out_prefix = format!(
        "{}/",
        opts.out_dir
            .to_string_lossy()
            .replace('\\', "/")
            .trim_matches('/')
    );
    facts.exclude_under(&out_prefix);
    let roots = facts.module_roots();
    let names: Vec<&str> = roots.keys().map(String::as_str).collect();
    let steering = Steering::load(&opts.repo_root, &names)?;
    let templates = Templates::load(opts.templates.as_deref())?;
    let state_rel = opts.state_path().to_string_lossy().replace('\\', "/");
    let prev = State::load(&opts.repo_root.join(&state_rel))?;
    // New templates: every page re-renders, but models (and so commits, change lists) stand.
    let models = model::build_all(&facts, &steering.skip, &steering.notes);
    let t_models = t0.elapsed();
    let commit = facts.whole.snapshot.commit.clone();
    let generation = facts.whole.snapshot.generation;
    let (dirty, indexed_at) = (
        facts.whole.snapshot.dirty,
        Some(facts.whole.snapshot.created_at),
    );

    let mut diffs: HashMap<u64, Option<SnapshotDiff>> = HashMap::new();
    let mut t_diff = std::time::Duration::ZERO;
    let mut next = State {
        version: VERSION,
        templates: templates.hash.clone(),
        global: None,
        modules: BTreeMap::new(),
    };
    let mut modules_changed = Vec::new();
    for m in &models {
        let fp = m.fingerprint();
        let entry = match prev.modules.get(&m.name) {
            Some(p) if p.fingerprint == fp => p.clone(),
            p => {
                modules_changed.push(m.name.clone());
                let changes = match p {
                    None => Changes::first_map(),
                    Some(p) => {
                        let d = diffs.entry(p.generation).or_insert_with(|| {
                            let t = std::time::Instant::now();
                            let d = diff_since(read, p).ok().flatten();
                            t_diff += t.elapsed();
                            d
                        });
                        let in_module = |path: &str| {
                            facts
                                .whole
                                .files
                                .get(path)
                                .map(|f| f.module == m.name)
                                .unwrap_or_else(|| {
                                    m.root.is_empty() || path.starts_with(&format!("{}/", m.root))
                                })
                        };
                        let mut c = changes::since(
                            m,
                            p.commit.clone(),
                            &p.entries,
                            &p.used_by,
                            d.as_ref(),
                            in_module,
                        );
                        c.since_dirty = p.dirty;
                        c
                    }
                };
                PageState {
                    fingerprint: fp,
                    commit: commit.clone(),
                    dirty,
                    generation,
                    indexed_at,
                    entries: changes::entry_keys(m),
                    used_by: changes::user_keys(m),
                    changes,
                    llm_purpose: None,
                }
            }
        };
        next.modules.insert(m.name.clone(), entry);
    }
    // Purpose paragraphs: asked for only when the facts they are written from changed.
    for m in &models {
        let cached = prev
            .modules
            .get(&m.name)
            .and_then(|p| p.llm_purpose.as_ref());
        let paragraph = opts.llm.as_ref().and_then(|l| llm_purpose(l, m, cached));
        if let Some(st) = next.modules.get_mut(&m.name) {
            st.llm_purpose = paragraph;
        }
    }
    let extra: Vec<(String, String, String)> = steering
        .pages
        .iter()
        .map(|p| (p.title.clone(), p.path.clone(), p.about.clone()))
        .collect();
    let global = GlobalModel::build(&models, extra);
    let gfp = global.fingerprint();
    next.global = Some(match &prev.global {
        Some(p) if p.fingerprint == gfp => p.clone(),
        _ => PageState {
            fingerprint: gfp,
            commit: commit.clone(),
            dirty,
            generation,
            indexed_at,
            ..Default::default()
        },
    });

    // Render every page; unchanged models render to the bytes already on disk.
    let mut pages: BTreeMap<String, String> = BTreeMap::new();
    for m in &models {
        let page = write::module_page(opts, &m.name, &m.root);
        if has_page(opts, m, &page)? {
            pages.insert(m.name.clone(), page);
        }
    }
    let page_of = |name: &str| pages.get(name).cloned();
    let index_rel = write::global_page(opts);
    let mut out: Vec<(String, String)> = Vec::new();
    // What the checks read: the generated part only (a human's text around README markers is
    // theirs; a broken link there must not stop the maps).
    let mut generated: Vec<(String, String)> = Vec::new();
    let mut cites: Vec<(&Cite, String)> = Vec::new();
    for m in &models {
        let st = &next.modules[&m.name];
        let Some(page) = pages.get(&m.name) else {
            continue;
        };
        let body = render::module_page(
            &templates,
            m,
            st,
            &steering.links,
            page,
            &index_rel,
            &page_of,
        )?;
        generated.push((page.clone(), body.clone()));
        let text = match opts.mode {
            OutputMode::Pages => body,
            OutputMode::ReadmeMarkers => {
                let path = opts.repo_root.join(page);
                let existing = match std::fs::read_to_string(&path) {
                    Ok(t) => t,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                    Err(e) => return Err(DocgenError::io(path)(e)),
                };
                // The module's own title stays the human's: the block starts one level down.
                let body = demote(&body);
                write::splice(&existing, &body).map_err(|message| DocgenError::Markdown {
                    page: page.clone(),
                    message,
                })?
            }
        };
        cites.extend(m.cites().into_iter().map(|c| (c, m.name.clone())));
        cites.extend(st.changes.cites().map(|c| (c, m.name.clone())));
        out.push((page.clone(), text));
    }
    let gst = next.global.clone().unwrap_or_default();
    out.push((
        index_rel.clone(),
        render::index_page(&templates, &global, &gst, &index_rel, &page_of)?,
    ));

    let t_render = t0.elapsed();
    // Checks before anything is written: citations resolve, links and anchors resolve.
    let bad: Vec<String> = cites
        .iter()
        .filter(|(c, _)| !resolves(&facts, c))
        .map(|(c, m)| format!("{c} (module {m})"))
        .collect();
    if !bad.is_empty() {
        return Err(DocgenError::BadCitations(bad));
    }
    let produced: Vec<&str> = out.iter().map(|(p, _)| p.as_str()).collect();
    for (page, text) in &generated {
        let problems = markdown::check(page, text, |p| {
            facts.whole.files.contains_key(p)
                || produced.contains(&p)
                || opts.repo_root.join(p).is_file()
        });
        if !problems.is_empty() {
            return Err(DocgenError::Markdown {
                page: page.clone(),
                message: problems.join("; "),
            });
        }
    }

    let t_checked = t0.elapsed();
    let mut written = Vec::new();
    for (page, text) in &out {
        if write::write_if_changed(&opts.repo_root, page, text)? {
            written.push(page.clone());
        }
    }
    // Pages of modules that are gone (or now skipped) go too.
    if opts.mode == OutputMode::Pages {
        for name in prev
            .modules
            .keys()
            .filter(|n| !next.modules.contains_key(*n))
        {
            let rel = write::module_page(opts, name, "");
            let path = opts.repo_root.join(&rel);
            if path.is_file() {
                std::fs::remove_file(&path).map_err(DocgenError::io(path))?;
                written.push(rel);
            }
        }
    }
    if (!written.is_empty() || next != prev)
        && write::write_if_changed(&opts.repo_root, &state_rel, &next.to_text())?
    {
        written.push(state_rel);
    }
    written.sort();
    tracing::info!(
        read_ms = t_read.as_millis() as u64,
        models_ms = (t_models - t_read).as_millis() as u64,
        diff_ms = t_diff.as_millis() as u64,
        render_ms = (t_render - t_models - t_diff).as_millis() as u64,
        check_ms = (t_checked - t_render).as_millis() as u64,
        total_ms = t0.elapsed().as_millis() as u64,
        written = written.len(),
        modules = models.len(),
        changed = modules_changed.len(),
        "docgen run"
    );
    Ok(Outcome {
        changed: !written.is_empty(),
        written,
        modules_changed,
        commit,
    })
}

/// The snapshot diff from the snapshot of a page's previous map to the current one; `None`
/// when the index no longer holds that snapshot (or holds another one under its number: a
/// fresh index numbers from 1 again). Reads only the files that changed in between (the index
/// knows which).
fn diff_since(read: &dyn IndexRead, prev: &PageState) -> Result<Option<SnapshotDiff>, DocgenError> {
    Ok(match read.diff_since(prev.generation)? {
        Some((old, d)) if same_snapshot(&old, prev) => Some(d),
        _ => None,
    })
}

/// Whether `old` is the snapshot a page's previous map was made from. Without the recorded
/// index time (an older state file) only a clean commit identifies it.
fn same_snapshot(old: &query::model::Snapshot, prev: &PageState) -> bool {
    old.commit == prev.commit
        && old.dirty == prev.dirty
        && match prev.indexed_at {
            Some(t) => t == old.created_at,
            None => old.commit.is_some() && !old.dirty,
        }
}

/// A module's purpose paragraph: the cached one when its facts are unchanged, else a fresh one.
/// A failed call leaves the page without a paragraph (and says so in the log), never with a
/// stale one; the next run asks again.
fn llm_purpose(l: &Llm, m: &ModuleModel, cached: Option<&LlmPurpose>) -> Option<LlmPurpose> {
    let messages = llm::prompt(m);
    let key = llm::cache_key(m, &messages);
    if let Some(c) = cached.filter(|c| c.key == key) {
        return Some(c.clone());
    }
    match l.0.complete(&messages) {
        Ok(answer) => llm::clean(&answer).map(|text| LlmPurpose { key, text }),
        Err(e) => {
            tracing::warn!(module = %m.name, error = %e, "no purpose paragraph: the LLM call failed");
            None
        }
    }
}

/// Whether a module gets a page. In README-marker mode a module without code (an aggregator
/// pom at the root) has nothing to map: its README gets no block, unless it already holds one.
fn has_page(opts: &Options, m: &ModuleModel, page: &str) -> Result<bool, DocgenError> {
    if opts.mode == OutputMode::Pages || m.files > 0 {
        return Ok(true);
    }
    let path = opts.repo_root.join(page);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.contains(write::BEGIN)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(DocgenError::io(path)(e)),
    }
}

/// Whether a citation names a file of the snapshot and lines within it.
fn resolves(facts: &Facts, c: &Cite) -> bool {
    facts
        .whole
        .files
        .get(&c.path)
        .is_some_and(|f| c.line >= 1 && c.line <= c.end && c.end <= f.lines.max(1))
}

/// Every heading one level down (`#` → `##`), outside code fences.
fn demote(md: &str) -> String {
    let mut out = String::with_capacity(md.len() + 64);
    let mut fence = false;
    for line in md.lines() {
        if line.starts_with("```") {
            fence = !fence;
        }
        if !fence && line.starts_with('#') {
            out.push('#');
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
