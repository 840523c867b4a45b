//! One review of one request: fetch its head and base by the base repository's refs, check the
//! head out (detached) in the request's own work tree, index it incrementally, compute the
//! impact of merge base → head over that index, and post or edit the one marked comment.
//!
//! Writes only under `<state_dir>/<repo>/review/`: the reviewer's bare repository (refs under
//! `refs/codemap/requests/`), and per request a work tree, an index and a state file. Never
//! pushes, never checks out a branch, never reads the request's files as settings.

use super::{comment, merge};
use crate::git::{Git, GitError, Identity};
use crate::host::{CommentRef, Host, HostError, HostKind};
use crate::serve::config::{Bot, Repo, ResolvedReview};
use crate::serve::reindex::Reindex;
use crate::serve::state::RepoPaths;
use query::graph::{CallGraph, NoGraph, StoredGraph};
use query::impact::report::{ImpactReport, ReportOptions, report};
use query::view::SnapshotView;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Why a review runs: a verified request webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewTrigger {
    pub number: u64,
    /// The head the hook named (the job reviews the head the remote has when it fetches).
    pub head_sha: String,
    pub base_branch: String,
    pub fork: bool,
    /// The request was closed or merged: remove its work tree, indexes and refs (the comment
    /// stays; a reopened request is reviewed afresh and edits it).
    pub closed: bool,
}

impl ReviewTrigger {
    /// The cleanup of a closed request.
    pub fn close(number: u64) -> ReviewTrigger {
        ReviewTrigger {
            number,
            head_sha: String::new(),
            base_branch: String::new(),
            fork: false,
            closed: true,
        }
    }
}

impl std::fmt::Display for ReviewTrigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.closed {
            return write!(f, "request {} closed", self.number);
        }
        write!(
            f,
            "request {} at {}",
            self.number,
            crate::serve::policy::short(&self.head_sha)
        )
    }
}

/// How a review ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ReviewOutcome {
    /// The comment was posted or edited for this head.
    Commented {
        number: u64,
        head: String,
        comment: CommentRef,
        changes: usize,
    },
    /// This head's comment is already there.
    Unchanged { number: u64, head: String },
    /// The request is closed: its work tree, indexes and refs are gone.
    Cleaned { number: u64 },
}

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("indexing the head failed: {0}")]
    Index(String),
    #[error("opening the index failed: {0}")]
    Store(#[from] query::model::StoreError),
    #[error("computing the impact failed: {0}")]
    Query(#[from] query::QueryError),
    #[error("the remote has no {0}")]
    NoRef(String),
    #[error("posting the comment failed (retried on the next push): {0}")]
    Host(#[from] HostError),
    #[error("review state: {0}")]
    State(#[from] std::io::Error),
    #[error("the review stopped unexpectedly: {0}")]
    Panicked(String),
}

/// Everything the reviews of one repository share.
pub struct ReviewContext {
    pub repo: Repo,
    pub bot: Bot,
    pub paths: RepoPaths,
    pub host: Host,
    pub settings: ResolvedReview,
    pub reindex: crate::serve::reindex::Reindexer,
    /// Fetches and work-tree changes in the shared bare repository, one at a time.
    pub git_lock: Mutex<()>,
}

/// What the reviewer remembers per request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct RequestState {
    /// The head the comment describes.
    head: Option<String>,
    comment: Option<CommentRef>,
}

impl RequestState {
    fn load(path: &Path) -> std::io::Result<RequestState> {
        match std::fs::read(path) {
            Ok(b) => serde_json::from_slice(&b).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(RequestState::default()),
            Err(e) => Err(e),
        }
    }

    fn save(&self, path: &Path) -> std::io::Result<()> {
        let tmp = path.with_extension("json.tmp");
        std::fs::write(
            &tmp,
            serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(&tmp, path)
    }
}

/// Runs one review. The git, index and impact work go to the blocking pool; the comment call is
/// async.
pub async fn run(ctx: Arc<ReviewContext>, t: ReviewTrigger) -> Result<ReviewOutcome, ReviewError> {
    let c = ctx.clone();
    let tt = t.clone();
    if t.closed {
        tokio::task::spawn_blocking(move || clean(&c, tt.number))
            .await
            .map_err(|e| ReviewError::Panicked(e.to_string()))??;
        return Ok(ReviewOutcome::Cleaned { number: t.number });
    }
    let prepared = tokio::task::spawn_blocking(move || prepare(&c, &tt))
        .await
        .map_err(|e| ReviewError::Panicked(e.to_string()))??;
    let p = match prepared {
        Prepared::Done(o) => return Ok(o),
        Prepared::Comment(p) => p,
    };
    let posted = ctx
        .host
        .upsert_comment(t.number, comment::MARKER, &p.body)
        .await?;
    tracing::info!(
        repo = %ctx.repo.name, request = t.number, head = %p.head, comment = posted.id,
        created = posted.created, "review comment {}", if posted.created { "posted" } else { "updated" }
    );
    RequestState {
        head: Some(p.head.clone()),
        comment: Some(posted.clone()),
    }
    .save(&p.state)?;
    Ok(ReviewOutcome::Commented {
        number: t.number,
        head: p.head,
        comment: posted,
        changes: p.changes,
    })
}

enum Prepared {
    Done(ReviewOutcome),
    Comment(ToPost),
}

struct ToPost {
    head: String,
    body: String,
    changes: usize,
    state: PathBuf,
}

/// The ref the base repository keeps a request's head under.
fn request_ref(kind: HostKind, number: u64) -> String {
    match kind {
        HostKind::Github => format!("refs/pull/{number}/head"),
        HostKind::Gitlab => format!("refs/merge-requests/{number}/head"),
    }
}

fn prepare(ctx: &ReviewContext, t: &ReviewTrigger) -> Result<Prepared, ReviewError> {
    let span = tracing::info_span!("review", repo = %ctx.repo.name, trigger = %t, fork = t.fork);
    let _g = span.enter();
    let dir = ctx.paths.request(t.number);
    std::fs::create_dir_all(&dir)?;
    let state_path = dir.join("state.json");
    let state = RequestState::load(&state_path)?;
    let identity = Identity {
        name: ctx.bot.name.clone(),
        email: ctx.bot.email.clone(),
    };
    let head_ref = format!("refs/codemap/requests/{}/head", t.number);
    let base_ref = format!("refs/codemap/requests/{}/base", t.number);
    let work = dir.join("work");
    let (head, merge_base) = {
        let _lock = ctx.git_lock.lock().unwrap_or_else(|e| e.into_inner());
        let git = open_review_git(ctx, identity.clone())?;
        // Only the configured remote, only by the base repository's own refs: a fork's URL in
        // the payload is never used.
        let from_head = format!("+{}:{head_ref}", request_ref(ctx.repo.host, t.number));
        let from_base = format!("+refs/heads/{}:{base_ref}", t.base_branch);
        git.run([
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-recurse-submodules",
            ctx.repo.remote.as_str(),
            from_head.as_str(),
            from_base.as_str(),
        ])?;
        let head = git
            .resolve(&head_ref)?
            .ok_or_else(|| ReviewError::NoRef(request_ref(ctx.repo.host, t.number)))?;
        if head != t.head_sha {
            tracing::info!(hooked = %t.head_sha, fetched = %head, "the request moved on; reviewing its newest head");
        }
        if state.head.as_deref() == Some(head.as_str()) && state.comment.is_some() {
            tracing::info!(%head, "this head is reviewed already");
            return Ok(Prepared::Done(ReviewOutcome::Unchanged {
                number: t.number,
                head,
            }));
        }
        let merge_base = git.run(["merge-base", base_ref.as_str(), head.as_str()])?;
        if !work.join(".git").exists() {
            if work.exists() {
                std::fs::remove_dir_all(&work)?;
            }
            git.run(["worktree", "prune"])?;
            let w = work.to_string_lossy().to_string();
            git.run([
                "worktree",
                "add",
                "--quiet",
                "--force",
                "--detach",
                w.as_str(),
                head.as_str(),
            ])?;
        }
        (head, merge_base)
    };
    let tree = Git::new(&work, identity);
    // The merge base first, then the head, each into its own index: the head's report cites
    // the commit under review; the base's finds the callers the request breaks.
    let base_index = dir.join("base-index");
    let head_index = dir.join("index");
    let reindex = ctx.reindex.as_ref();
    if !query::snapshot::embedded_exists(&base_index) {
        seed_index(reindex, &ctx.paths.index(), &base_index);
    }
    index_at(reindex, &tree, &merge_base, &base_index)?;
    if !query::snapshot::embedded_exists(&head_index) {
        seed_index(reindex, &base_index, &head_index);
    }
    index_at(reindex, &tree, &head, &head_index)?;

    let forward = tree.run_raw(diff_args(&[], &merge_base, &head))?;
    // Taken head → merge base, so the diff's old side is the indexed head: every place the
    // report names is a line of the commit under review. `ImpactReport::seen_from_head` turns the labels round.
    let reverse = tree.run_raw(diff_args(&[], &head, &merge_base))?;
    let deleted: Vec<String> = tree
        .run(diff_args(
            &["--name-only", "-z", "--diff-filter=D"],
            &merge_base,
            &head,
        ))?
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let opts = ReportOptions {
        depth: ctx.settings.depth,
        max_callers: ctx.settings.max_callers,
    };
    let base_report = impact_over(&base_index, &forward, &opts, |_, r| Ok(r))?;
    let r = impact_over(&head_index, &reverse, &opts, |v, r| {
        let mut r = r.seen_from_head(&deleted);
        let carried = merge::carry_base(&mut r, &base_report, v)?;
        tracing::info!(carried, "callers only the base shows, cited at the head");
        Ok(r)
    })?;
    tracing::info!(
        changes = r.changes.len(),
        callers = r.callers.len(),
        "impact computed"
    );
    Ok(Prepared::Comment(ToPost {
        body: comment::body(&r, &head, &merge_base, t.fork),
        changes: r.changes.len(),
        head,
        state: state_path,
    }))
}

/// Removes a closed request's folder (work tree, indexes, state) and its refs in the reviewer's
/// repository.
fn clean(ctx: &ReviewContext, number: u64) -> Result<(), ReviewError> {
    let _lock = ctx.git_lock.lock().unwrap_or_else(|e| e.into_inner());
    let dir = ctx.paths.request(number);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    let git_dir = ctx.paths.review_git();
    if git_dir.join("HEAD").exists() {
        let git = Git::new(
            git_dir,
            Identity {
                name: ctx.bot.name.clone(),
                email: ctx.bot.email.clone(),
            },
        );
        git.run(["worktree", "prune"])?;
        let prefix = format!("refs/codemap/requests/{number}/");
        for r in git
            .run(["for-each-ref", "--format=%(refname)", prefix.as_str()])?
            .lines()
        {
            git.run(["update-ref", "-d", r])?;
        }
    }
    tracing::info!(
        request = number,
        "closed: removed its work tree, indexes and refs"
    );
    Ok(())
}

/// `git diff` with nothing the repository's own settings could switch on (external diff drivers,
/// text conversion) and renames as delete + add, which is how the report places them.
fn diff_args(extra: &[&str], from: &str, to: &str) -> Vec<String> {
    let mut a: Vec<String> = [
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a.extend([from.to_string(), to.to_string(), "--".to_string()]);
    a
}

/// Checks `commit` out (detached, cleaned) in the request's work tree and indexes it into `dir`.
fn index_at(
    reindex: &dyn Reindex,
    tree: &Git,
    commit: &str,
    dir: &Path,
) -> Result<(), ReviewError> {
    tree.run(["checkout", "--quiet", "--force", "--detach", commit])?;
    tree.run(["clean", "-ffdxq"])?;
    let indexed = reindex.index(tree.dir(), dir).map_err(ReviewError::Index)?;
    tracing::info!(
        commit = %crate::serve::policy::short(commit),
        index = %dir.display(),
        files = indexed.files,
        changed = indexed.changed,
        "indexed"
    );
    Ok(())
}

/// The impact of `diff` over the index in `dir`, finished by `then` while the view is open.
fn impact_over(
    dir: &Path,
    diff: &str,
    opts: &ReportOptions,
    then: impl FnOnce(&SnapshotView<'_>, ImpactReport) -> Result<ImpactReport, query::QueryError>,
) -> Result<ImpactReport, ReviewError> {
    let index = query::snapshot::open_embedded(dir)?;
    let index = index.as_ref();
    let view = SnapshotView::open(index, Some(dir))?;
    let stored = StoredGraph::available(index).then(|| StoredGraph::new(index));
    let graph: &dyn CallGraph = match &stored {
        Some(s) => s,
        None => &NoGraph,
    };
    let r = report(&view, graph, diff, opts)?;
    Ok(then(&view, r)?)
}

/// The reviewer's bare repository, made on first use (in a side folder, renamed when complete).
fn open_review_git(ctx: &ReviewContext, identity: Identity) -> Result<Git, ReviewError> {
    let dir = ctx.paths.review_git();
    if dir.join("HEAD").exists() {
        return Ok(Git::new(dir, identity));
    }
    let parent = dir.parent().expect("review/git has a parent");
    std::fs::create_dir_all(parent)?;
    let partial = parent.join("git.partial");
    if partial.exists() {
        std::fs::remove_dir_all(&partial)?;
    }
    let p = partial.to_string_lossy().to_string();
    Git::new(parent, identity.clone()).run(["init", "--quiet", "--bare", p.as_str()])?;
    std::fs::rename(&partial, &dir)?;
    Ok(Git::new(dir, identity))
}

/// Starts a request's index as a copy of the docs job's (same layout, same files mostly), so
/// indexing the head re-reads only what differs. Copied under the docs index's write lock, so
/// never half-written; any failure just means indexing from scratch.
fn seed_index(reindex: &dyn Reindex, from: &Path, to: &Path) {
    if !query::snapshot::embedded_exists(from) {
        return;
    }
    match reindex.locked(from, &mut || copy_dir(from, to)) {
        Ok(()) => tracing::info!(from = %from.display(), "seeded the request's index"),
        Err(e) => {
            tracing::info!(error = %e, "not seeded; indexing the head from scratch");
            let _ = std::fs::remove_dir_all(to);
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let name = e.file_name();
        // The lock and a watcher's socket belong to the folder they are in.
        if name == "lock" || name == "watch.sock" {
            continue;
        }
        let ty = e.file_type()?;
        if ty.is_dir() {
            copy_dir(&e.path(), &to.join(&name))?;
        } else if ty.is_file() {
            std::fs::copy(e.path(), to.join(&name))?;
        }
    }
    Ok(())
}
