//! One job for one repository: fetch, check out the tracked branch's tip, re-index incrementally,
//! regenerate, and — when the maps changed — commit them on the docs branch, push, and open or
//! update the one pull request.
//!
//! Nothing outside the bot's own clone changes before the single push at the end, and that push
//! is a compare-and-swap (`--force-with-lease` on the tip the safety check accepted): a job that
//! fails anywhere leaves the remote and its docs branch as they were.

use super::config::{Bot, Repo};
use super::policy;
use super::reindex::Reindexer;
use super::state::{RepoPaths, RepoState};
use crate::git::{Git, GitError, Identity};
use crate::host::{Host, HostError, PullRef, PullRequest};
use query::model::{IndexRead, StoreError};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a generator reports: the files it wrote (relative to the work tree) and whether any
/// content changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenOutcome {
    pub files: Vec<PathBuf>,
    pub changed: bool,
}

/// The map generator a job calls after re-indexing: `(work tree, index) → outcome`. Injected so
/// the server does not depend on how the maps are made (`docgen::generate` in the binary).
pub type Generate =
    Arc<dyn Fn(&Path, &dyn IndexRead) -> Result<GenOutcome, String> + Send + Sync + 'static>;

/// Why a job runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Trigger {
    /// A verified push to the tracked branch; `after` is the pushed head.
    Push { after: String },
    /// The cron schedule.
    Poll,
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trigger::Push { after } => write!(f, "push of {}", policy::short(after)),
            Trigger::Poll => f.write_str("poll"),
        }
    }
}

/// How a job ended (failures are [`JobError`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The tracked branch is where the last job left it.
    Unmoved { commit: String },
    /// The tracked branch's tip is the bot's own commit: nothing to regenerate from.
    OwnCommit { commit: String },
    /// The maps are already up to date: no commit.
    NoChange { commit: String },
    Committed {
        commit: String,
        docs_commit: String,
        pushed: bool,
        pull: Option<PullRef>,
    },
    /// Nothing new to commit, but the request call that failed after the last push went through.
    PullRetried {
        docs_commit: String,
        pull: Option<PullRef>,
    },
    /// The docs branch was moved by someone else; the bot left it alone.
    Refused { reason: String },
}

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("indexing failed: {0}")]
    Index(String),
    #[error("opening the index failed: {0}")]
    Store(#[from] StoreError),
    #[error("generating the maps failed: {0}")]
    Generate(String),
    #[error("bot state: {0}")]
    State(#[from] std::io::Error),
    #[error("the tracked branch {0} does not exist on the remote")]
    NoBranch(String),
    #[error(
        "docs commit {docs_commit} is on the docs branch, but the pull request call failed (retried next job): {source}"
    )]
    Pull {
        docs_commit: String,
        source: HostError,
    },
    /// The checkout indexed as something other than the commit: its maps would describe code no
    /// commit holds, so none is committed.
    #[error(
        "the checkout of {commit} in {dir} has uncommitted changes right after `git checkout --force` (`git -C {dir} status` lists them; usually a clean/smudge filter or a line-ending rule in .gitattributes), so its maps would not describe the commit: nothing was committed. Fix the attributes on the tracked branch or the filter in {dir}/.git/config, or delete {dir} so the next job clones afresh"
    )]
    DirtyTree { commit: String, dir: String },
    #[error("the job stopped unexpectedly: {0}")]
    Panicked(String),
}

/// Everything a job of one repository needs.
pub struct JobContext {
    pub repo: Repo,
    pub bot: Bot,
    pub paths: RepoPaths,
    pub host: Option<Host>,
    pub generate: Generate,
    pub reindex: Reindexer,
}

/// Runs one job. Blocking work goes to the blocking pool; only the pull request call is async.
pub async fn run(ctx: Arc<JobContext>, trigger: Trigger) -> Result<Outcome, JobError> {
    let c = ctx.clone();
    let t = trigger.clone();
    let local = tokio::task::spawn_blocking(move || local_work(&c, &t))
        .await
        .map_err(|e| JobError::Panicked(e.to_string()))??;
    let (commit, docs_commit, new_commit) = match local {
        Local::Done(o) => return Ok(o),
        Local::PullNeeded {
            commit,
            docs_commit,
            new_commit,
        } => (commit, docs_commit, new_commit),
    };
    let pull = match &ctx.host {
        None => None,
        Some(host) => {
            let req = PullRequest {
                head: ctx.repo.docs_branch.clone(),
                base: ctx.repo.branch.clone(),
                title: ctx
                    .repo
                    .pull_request
                    .as_ref()
                    .map(|p| p.title.clone())
                    .unwrap_or_default(),
                body: policy::pull_body(&ctx.repo.branch, &commit),
            };
            let pull = host
                .open_or_update(&req)
                .await
                .map_err(|source| JobError::Pull {
                    docs_commit: docs_commit.clone(),
                    source,
                })?;
            tracing::info!(
                repo = %ctx.repo.name, number = pull.number, url = %pull.url, created = pull.created,
                "pull request {}", if pull.created { "opened" } else { "updated" }
            );
            let path = ctx.paths.state();
            let p = pull.clone();
            tokio::task::spawn_blocking(move || -> std::io::Result<()> {
                let mut s = RepoState::load(&path)?;
                s.pull = Some(p);
                s.pull_pending = false;
                s.save(&path)
            })
            .await
            .map_err(|e| JobError::Panicked(e.to_string()))??;
            Some(pull)
        }
    };
    Ok(if new_commit {
        Outcome::Committed {
            commit,
            docs_commit,
            pushed: true,
            pull,
        }
    } else {
        Outcome::PullRetried { docs_commit, pull }
    })
}

enum Local {
    Done(Outcome),
    /// The docs branch on the remote holds `docs_commit`; the request must point at it.
    PullNeeded {
        commit: String,
        docs_commit: String,
        /// Made by this job (false: a request call that failed last time, retried).
        new_commit: bool,
    },
}

fn local_work(ctx: &JobContext, trigger: &Trigger) -> Result<Local, JobError> {
    let repo = &ctx.repo;
    let span = tracing::info_span!("job", repo = %repo.name, trigger = %trigger);
    let _g = span.enter();
    std::fs::create_dir_all(&ctx.paths.root)?;
    let mut state = RepoState::load(&ctx.paths.state())?;
    let git = open_clone(ctx)?;
    git.run(["remote", "set-url", "origin", repo.remote.as_str()])?;
    git.run(["fetch", "--quiet", "--prune", "--no-tags", "origin"])?;

    let tracked_ref = format!("refs/remotes/origin/{}", repo.branch);
    let commit = git
        .resolve(&tracked_ref)?
        .ok_or_else(|| JobError::NoBranch(repo.branch.clone()))?;
    if let Trigger::Push { after } = trigger
        && git.resolve(after)?.is_none()
    {
        // The tip is what the request goes against either way; a later push superseded this one.
        tracing::info!(pushed = %after, tip = %commit, "pushed commit not on the remote any more; using the tip");
    }
    if state.last_tracked.as_deref() == Some(commit.as_str()) && !state.pull_pending {
        tracing::info!(%commit, "tracked branch did not move");
        return Ok(Local::Done(Outcome::Unmoved { commit }));
    }
    let head = git.commit_info(&commit)?;
    if policy::is_bot_commit(&head, &ctx.bot) {
        tracing::info!(%commit, "tip is the bot's own commit; nothing to regenerate");
        state.last_tracked = Some(commit.clone());
        state.save(&ctx.paths.state())?;
        return Ok(Local::Done(Outcome::OwnCommit { commit }));
    }

    // The branch the bot would move: the remote's when it pushes, its own clone's otherwise.
    let docs_ref = if repo.push {
        format!("refs/remotes/origin/{}", repo.docs_branch)
    } else {
        format!("refs/heads/{}", repo.docs_branch)
    };
    let docs_tip = git.resolve(&docs_ref)?;
    let tip_info = docs_tip
        .as_deref()
        .map(|t| git.commit_info(t))
        .transpose()?;
    if let Err(reason) = policy::may_move_docs_branch(
        &repo.docs_branch,
        tip_info.as_ref(),
        recorded_tip(&state, docs_tip.as_deref()),
        &ctx.bot,
    ) {
        tracing::warn!(docs_branch = %repo.docs_branch, "{reason}");
        return Ok(Local::Done(Outcome::Refused { reason }));
    }

    // A pushed docs commit whose request failed last time: the request is all that is missing.
    if state.pull_pending
        && state.last_tracked.as_deref() == Some(commit.as_str())
        && let Some(tip) = &docs_tip
        && state.docs_tip.as_deref() == Some(tip.as_str())
    {
        return Ok(Local::PullNeeded {
            commit,
            docs_commit: tip.clone(),
            new_commit: false,
        });
    }

    git.run([
        "checkout",
        "--quiet",
        "--force",
        "--detach",
        commit.as_str(),
    ])?;
    git.run(["clean", "-ffdxq"])?;
    // The index's stat cache makes `git status` trust a file written in an earlier clock tick than
    // the index, so a clean filter's change would show only when the checkout happened to be racy.
    // Reading the tree afresh drops the cache: the status the indexer takes compares contents.
    git.run(["read-tree", "HEAD"])?;
    let dir = ctx.paths.index();
    let indexed = ctx
        .reindex
        .index(git.dir(), &dir)
        .map_err(JobError::Index)?;
    tracing::info!(
        files = indexed.files,
        changed = indexed.changed,
        generation = indexed.generation,
        "re-indexed"
    );
    if indexed.dirty {
        return Err(JobError::DirtyTree {
            commit: policy::short(&commit).to_string(),
            dir: git.dir().display().to_string(),
        });
    }
    // After indexing, so the index holds exactly the tracked commit.
    let carried = match &docs_tip {
        Some(tip) => carry_forward(&git, tip, &commit)?,
        None => 0,
    };
    let index = query::snapshot::open_embedded(&dir)?;
    let generated = (ctx.generate)(git.dir(), index.as_ref()).map_err(JobError::Generate)?;
    drop(index);
    tracing::info!(
        files = generated.files.len(),
        changed = generated.changed,
        "generated"
    );

    git.run(["add", "--all", "."])?;
    let tree = git.run(["write-tree"])?;
    let unchanged_from_tracked = tree == git.tree_of(&commit)?;
    let same_as_docs_tip = match &docs_tip {
        Some(t) => tree == git.tree_of(t)?,
        None => false,
    };
    // With last time's maps carried in, "the generator wrote nothing" is the answer: the open
    // request already holds these maps, and rebuilding it on every unrelated merge is noise.
    let nothing_new = carried > 0 && !generated.changed;
    if unchanged_from_tracked || same_as_docs_tip || nothing_new {
        tracing::info!(%commit, "maps up to date; nothing to commit");
        git.run(["reset", "--quiet", "--hard"])?;
        state.last_tracked = Some(commit.clone());
        state.save(&ctx.paths.state())?;
        return Ok(Local::Done(Outcome::NoChange { commit }));
    }
    let message = policy::commit_message(&ctx.bot, &repo.branch, &commit);
    git.run(["commit", "--quiet", "-m", message.as_str()])?;
    let docs_commit = git.resolve("HEAD")?.expect("HEAD exists after a commit");

    if repo.push {
        let lease = format!(
            "--force-with-lease=refs/heads/{}:{}",
            repo.docs_branch,
            docs_tip.as_deref().unwrap_or("")
        );
        let refspec = format!("{docs_commit}:refs/heads/{}", repo.docs_branch);
        state.pushing = Some(docs_commit.clone());
        state.save(&ctx.paths.state())?;
        git.run([
            "push",
            "--quiet",
            lease.as_str(),
            "origin",
            refspec.as_str(),
        ])?;
        git.run(["update-ref", docs_ref.as_str(), docs_commit.as_str()])?;
        git.run([
            "update-ref",
            &format!("refs/heads/{}", repo.docs_branch),
            docs_commit.as_str(),
        ])?;
    } else {
        git.update_branch(&repo.docs_branch, &docs_commit, docs_tip.as_deref())?;
    }
    tracing::info!(%commit, %docs_commit, pushed = repo.push, "committed the maps on {}", repo.docs_branch);
    state.last_tracked = Some(commit.clone());
    state.docs_tip = Some(docs_commit.clone());
    state.pushing = None;
    state.pull_pending = repo.push && ctx.host.is_some();
    state.save(&ctx.paths.state())?;
    if state.pull_pending {
        Ok(Local::PullNeeded {
            commit,
            docs_commit,
            new_commit: true,
        })
    } else {
        Ok(Local::Done(Outcome::Committed {
            commit,
            docs_commit,
            pushed: repo.push,
            pull: None,
        }))
    }
}

/// Puts the maps the docs branch holds (the files its bot commit added, changed or removed) into
/// the fresh checkout of `target`, so the generator sees what it made last time and rewrites only
/// what changed, as it would after the request was merged. A file the tracked branch itself
/// changed since the docs commit's base is left as the branch has it (a human's README edit wins
/// over the bot's older copy). Returns how many files were carried.
fn carry_forward(git: &Git, docs_tip: &str, target: &str) -> Result<usize, GitError> {
    let base = format!("{docs_tip}^");
    let names = |filter: Option<&str>, from: &str, to: &str| -> Result<Vec<String>, GitError> {
        let mut args = vec!["diff", "--name-only", "--no-renames", "-z"];
        if let Some(f) = filter {
            args.push(f);
        }
        args.extend([from, to]);
        Ok(git
            .run(args)?
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect())
    };
    let moved_on: std::collections::HashSet<String> =
        names(None, &base, target)?.into_iter().collect();
    let made: Vec<String> = names(Some("--diff-filter=AM"), &base, docs_tip)?
        .into_iter()
        .filter(|p| !moved_on.contains(p))
        .collect();
    let removed: Vec<String> = names(Some("--diff-filter=D"), &base, docs_tip)?
        .into_iter()
        .filter(|p| !moved_on.contains(p))
        .collect();
    for chunk in made.chunks(200) {
        let mut args = vec!["checkout", docs_tip, "--"];
        args.extend(chunk.iter().map(String::as_str));
        git.run(args)?;
    }
    for p in &removed {
        match std::fs::remove_file(git.dir().join(p)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(GitError::Spawn(e));
            }
            _ => {}
        }
    }
    // `checkout <rev> -- paths` also stages them; the job stages everything itself later.
    git.run(["reset", "--quiet"])?;
    tracing::info!(
        carried = made.len() + removed.len(),
        "carried the docs branch's maps into the checkout"
    );
    Ok(made.len() + removed.len())
}

/// The docs tip the bot vouches for: the one it recorded, or the one it was pushing when a job
/// ended before recording it.
fn recorded_tip<'a>(state: &'a RepoState, tip: Option<&'a str>) -> Option<&'a str> {
    match (state.pushing.as_deref(), tip) {
        (Some(p), Some(t)) if p == t => Some(t),
        _ => state.docs_tip.as_deref(),
    }
}

/// The bot's clone of the repository, made on first use (into a side folder, renamed when
/// complete, so a killed clone is never mistaken for a good one).
fn open_clone(ctx: &JobContext) -> Result<Git, JobError> {
    let identity = Identity {
        name: ctx.bot.name.clone(),
        email: ctx.bot.email.clone(),
    };
    let work = ctx.paths.work();
    if work.join(".git").exists() {
        return Ok(Git::new(work, identity));
    }
    let partial = ctx.paths.root.join("work.partial");
    if partial.exists() {
        std::fs::remove_dir_all(&partial)?;
    }
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    tracing::info!(remote = %crate::git::redact(&ctx.repo.remote), "cloning");
    Git::clone_from(&ctx.repo.remote, &partial, identity.clone())?;
    std::fs::rename(&partial, &work)?;
    Ok(Git::new(work, identity))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tip_the_bot_was_pushing_counts_as_its_own() {
        let mut s = RepoState {
            docs_tip: Some("old".into()),
            ..Default::default()
        };
        assert_eq!(recorded_tip(&s, Some("new")), Some("old"));
        // The job died after the remote took "new" and before it recorded it.
        s.pushing = Some("new".into());
        assert_eq!(recorded_tip(&s, Some("new")), Some("new"));
        // A push that never arrived vouches for nothing else.
        assert_eq!(recorded_tip(&s, Some("human")), Some("old"));
        assert_eq!(recorded_tip(&s, None), Some("old"));
    }
}
