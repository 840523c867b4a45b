//! The query side's front door for long-running fronts (the bot, docgen's server, an MCP server):
//! named repositories kept warm, questions answered inside a caller's repository scope.
//!
//! Each repository gets a few worker threads. A worker opens its own reader (the embedded index
//! folder or the Meilisearch scope: connections are per thread) and keeps one [`Asker`] across
//! questions; the snapshot's view tables, with the symbol rows and file text read so far, are one
//! [`SharedView`](crate::view::SharedView) per repository that all its workers answer from, so memory and the first
//! question's cost do not grow with the workers. An `Asker` notices a new snapshot by itself
//! (`codemap index` or docgen updated the index); the first worker to see it opens the new tables
//! for all, without a restart. The query types are single-threaded by design; the pool makes
//! [`Service`] `Send + Sync` without changing them.
//!
//! Scopes are enforced here, before any index is touched: a repository outside the caller's
//! [`Scope`] gives exactly the error of a repository that does not exist.

use crate::across::Across;
use crate::answer::{Answer, Level};
use crate::ask::{AskOptions, Asker};
use crate::graph::{CallGraph, EdgeTable, NoGraph, StoredGraph};
use crate::llm::{ChatModel, LlmConfig, OpenAiChat};
use crate::view::{Limits, SharedViews, SnapshotView};
use crate::{QueryError, freshness};
use indexer::model::SnapshotKey;
pub use indexer::store::meilisearch::MeiliConfig;
use indexer::store::{IndexDir, IndexRead};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

/// Where one repository's index lives.
#[derive(Debug, Clone)]
pub enum IndexLocation {
    /// An embedded index folder (`<repo>/.codemap`); `repo_root` is where HEAD is read for
    /// freshness (default: the folder holding the index folder).
    Embedded {
        index_dir: PathBuf,
        repo_root: Option<PathBuf>,
    },
    /// A repository published to Meilisearch; `cache_dir` keeps the derived view tables.
    Meilisearch {
        config: MeiliConfig,
        cache_dir: Option<PathBuf>,
        repo_root: Option<PathBuf>,
    },
}

/// One repository a [`Service`] serves.
#[derive(Debug, Clone)]
pub struct RepoConfig {
    /// The name scopes and requests use (`shop`, `tomcat`).
    pub name: String,
    pub location: IndexLocation,
    /// Worker threads, each with its own reader over the repository's shared view (at least 1).
    pub workers: usize,
    /// Hold each snapshot's call graph, symbol rows and text in memory, read in the background
    /// when the snapshot is first asked about, so that answers read only the search index
    /// (about 300 MB for a million lines of Java; larger snapshots keep the graph only). On
    /// Meilisearch this is also a copy of the snapshot's chunks searched in memory instead of
    /// on the server. Off, a team index (Meilisearch) is searched on the server, answers read
    /// only their candidates' rows, and what they read is kept in caches bounded in size
    /// ([`WORKING_SET_LINES`], [`WORKING_SET_SYMBOLS`]; the index keeps call-graph
    /// neighbourhoods itself).
    pub preload: bool,
    /// A limit on the preloaded copy: a snapshot whose copy would take more (estimated at
    /// [`PRELOAD_BYTES_PER_LINE`] a line) is not copied, and answers read what they need as
    /// without a preload. `None`: only the view's own limit ([`crate::view::MAX_CACHED_LINES`]).
    pub preload_limit_mb: Option<usize>,
}

/// Memory a preloaded snapshot takes per line of code, for [`RepoConfig::preload_limit_mb`]:
/// the whole bot with the copy of a million lines on Meilisearch (graph, packed rows and text,
/// the chunks' search index) peaked at 399-401 MB answering 50 questions at once
/// (bench/RESULTS.md, "Team mode: packed rows and a streamed graph"), so the estimate errs high.
pub const PRELOAD_BYTES_PER_LINE: usize = 500;

/// Lines of file text a view without a preload keeps across questions on a team index, the
/// least recently read going first: about 20 MB, several answers' worth of candidate files.
pub const WORKING_SET_LINES: usize = 250_000;

/// Symbol rows a view without a preload keeps across questions on a team index, the least
/// recently read files going first: about 20 MB (a row with its strings is about 1 KB), the
/// symbols of about as many files as [`WORKING_SET_LINES`] (one symbol per 12 lines of Java).
pub const WORKING_SET_SYMBOLS: usize = 20_000;

/// The repositories a caller may see. Deny by default: an empty scope sees nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    repos: BTreeSet<String>,
}

impl Scope {
    pub fn of<I, S>(repos: I) -> Scope
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Scope {
            repos: repos.into_iter().map(Into::into).collect(),
        }
    }
    pub fn allows(&self, repo: &str) -> bool {
        self.repos.contains(repo)
    }
    /// The repositories in the scope, in name order.
    pub fn repos(&self) -> impl Iterator<Item = &str> {
        self.repos.iter().map(String::as_str)
    }
}

/// One question to a repository.
#[derive(Debug, Clone)]
pub struct Request {
    pub question: String,
    pub level: Level,
    /// Citations at most.
    pub limit: usize,
    /// Token budget of the assembled context.
    pub budget: usize,
}

impl Request {
    pub fn new(question: impl Into<String>) -> Request {
        let d = AskOptions::default();
        Request {
            question: question.into(),
            level: d.level,
            limit: d.limit,
            budget: d.token_budget,
        }
    }
}

/// What a front may need to know about a repository without asking a question.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RepoStatus {
    pub name: String,
    pub freshness: freshness::Freshness,
    pub files: usize,
    pub graph_built: bool,
    /// The current snapshot's call graph and text are held in memory ([`RepoConfig::preload`]).
    pub preloaded: bool,
}

/// Errors a front classifies for its users.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// No such repository, or one outside the caller's scope (the same message on purpose).
    #[error("no repository named {0:?} is available here")]
    NotFound(String),
    /// The index could not be opened or read (missing folder, server down).
    #[error("repository {repo:?} is unavailable: {reason}")]
    Unavailable { repo: String, reason: String },
    /// The question failed inside the query side.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A worker died (a bug); the service keeps serving with the others.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Named repositories kept warm, answering inside scopes. `Send + Sync`: share it behind an
/// `Arc` and call it from blocking tasks.
pub struct Service {
    repos: BTreeMap<String, Pool>,
}

impl Service {
    /// Starts the workers of every repository. Opening an index happens in the workers, lazily:
    /// a repository whose index is missing answers `Unavailable` until it appears, and the
    /// others serve meanwhile.
    pub fn start(repos: Vec<RepoConfig>, llm: Option<LlmConfig>) -> Service {
        let repos = repos
            .into_iter()
            .map(|r| (r.name.clone(), Pool::start(r, llm.clone())))
            .collect();
        Service { repos }
    }

    /// The repositories of the scope that this service serves, in name order.
    pub fn repositories(&self, scope: &Scope) -> Vec<String> {
        scope
            .repos()
            .filter(|r| self.repos.contains_key(*r))
            .map(str::to_string)
            .collect()
    }

    /// Answers a question from one repository of the scope. Blocks the calling thread.
    pub fn ask(&self, scope: &Scope, repo: &str, req: &Request) -> Result<Answer, ServiceError> {
        let req = req.clone();
        self.run(scope, repo, move |w| w.ask(&req))?
    }

    /// Answers a question from each of `repos` (all in the scope) at once, and merges the
    /// answers ([`crate::across`]). A repository that fails is named in the result; the others
    /// still answer. Blocks the calling thread until every repository has answered.
    pub fn ask_across(&self, scope: &Scope, repos: &[String], req: &Request) -> Across {
        // Every repository's question is queued before any is waited for.
        let pending: Vec<_> = repos
            .iter()
            .map(|repo| {
                let req = req.clone();
                (repo.clone(), self.submit(scope, repo, move |w| w.ask(&req)))
            })
            .collect();
        let results = pending
            .into_iter()
            .map(|(repo, p)| (repo, p.and_then(Pending::wait).and_then(|r| r)))
            .collect();
        crate::across::merge(results)
    }

    /// Freshness and size of one repository of the scope.
    pub fn status(&self, scope: &Scope, repo: &str) -> Result<RepoStatus, ServiceError> {
        let name = repo.to_string();
        self.run(scope, repo, move |w| w.status(&name))?
    }

    /// Runs `f` over the repository's reader in a worker: for fronts that read the index
    /// directly (docgen's model, MCP's `read`). The scope is checked first.
    pub fn read<R, F>(&self, scope: &Scope, repo: &str, f: F) -> Result<R, ServiceError>
    where
        R: Send + 'static,
        F: FnOnce(&dyn IndexRead) -> R + Send + 'static,
    {
        self.run(scope, repo, move |w| Ok(f(w.reader())))?
    }

    /// Runs `f` over the repository's warm snapshot view and call graph (the stored graph when
    /// the index has one, else call sites read from the text): for fronts that compose their own
    /// results from the view (MCP's `read` and `repo_map`, `impact`). The scope is checked first.
    pub fn view<R, F>(&self, scope: &Scope, repo: &str, f: F) -> Result<R, ServiceError>
    where
        R: Send + 'static,
        F: FnOnce(&SnapshotView<'_>, &dyn CallGraph) -> Result<R, QueryError> + Send + 'static,
    {
        self.run(scope, repo, move |w| w.with_view(f))?
    }

    fn run<R, F>(&self, scope: &Scope, repo: &str, f: F) -> Result<R, ServiceError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Warm<'_>) -> R + Send + 'static,
    {
        self.submit(scope, repo, f)?.wait()
    }

    fn submit<R, F>(&self, scope: &Scope, repo: &str, f: F) -> Result<Pending<R>, ServiceError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Warm<'_>) -> R + Send + 'static,
    {
        if !scope.allows(repo) {
            return Err(ServiceError::NotFound(repo.to_string()));
        }
        let pool = self
            .repos
            .get(repo)
            .ok_or_else(|| ServiceError::NotFound(repo.to_string()))?;
        pool.submit(f)
    }
}

/// A job queued in a repository's pool: its result, once a worker has run it.
struct Pending<R> {
    repo: String,
    rx: mpsc::Receiver<Result<R, ServiceError>>,
}

impl<R> Pending<R> {
    fn wait(self) -> Result<R, ServiceError> {
        self.rx.recv().unwrap_or_else(|_| {
            Err(ServiceError::Internal(format!(
                "a worker of {:?} failed while answering",
                self.repo
            )))
        })
    }
}

type Job = Box<dyn FnOnce(Result<&mut Warm<'_>, ServiceError>) + Send>;

/// The worker threads of one repository, fed from one queue.
struct Pool {
    name: String,
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    handles: Vec<thread::JoinHandle<()>>,
}

impl Pool {
    fn start(cfg: RepoConfig, llm: Option<LlmConfig>) -> Pool {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let bounded = !cfg.preload && matches!(cfg.location, IndexLocation::Meilisearch { .. });
        let shared = Shared {
            views: Arc::new(if bounded {
                SharedViews::bounded(Limits {
                    lines: WORKING_SET_LINES,
                    symbols: WORKING_SET_SYMBOLS,
                    ..Limits::default()
                })
            } else {
                SharedViews::new()
            }),
            preload: Arc::new(Mutex::new(Preload::default())),
        };
        let handles = (0..cfg.workers.max(1))
            .map(|i| {
                let rx = rx.clone();
                let cfg = cfg.clone();
                let llm = llm.clone();
                let shared = shared.clone();
                thread::Builder::new()
                    .name(format!("codemap-{}-{i}", cfg.name))
                    .spawn(move || worker(cfg, llm, rx, shared))
                    .expect("spawning a query worker thread")
            })
            .collect();
        Pool {
            name: cfg.name,
            jobs: Mutex::new(Some(tx)),
            handles,
        }
    }

    fn submit<R, F>(&self, f: F) -> Result<Pending<R>, ServiceError>
    where
        R: Send + 'static,
        F: FnOnce(&mut Warm<'_>) -> R + Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel::<Result<R, ServiceError>>(1);
        let job: Job = Box::new(move |warm| {
            let _ = tx.send(warm.map(f));
        });
        let sent = match self.jobs.lock() {
            Ok(guard) => guard.as_ref().map(|s| s.send(job).is_ok()).unwrap_or(false),
            Err(_) => false,
        };
        if !sent {
            return Err(ServiceError::Internal(format!(
                "the workers of {:?} have stopped",
                self.name
            )));
        }
        Ok(Pending {
            repo: self.name.clone(),
            rx,
        })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the queue ends the workers after the jobs already queued.
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.take();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// What the workers of one repository share: the snapshot's view tables and what was read into
/// them, and the preloaded call graph, or (a team index without a preload) the neighbourhoods
/// read so far.
#[derive(Clone)]
struct Shared {
    views: Arc<SharedViews>,
    preload: Arc<Mutex<Preload>>,
}

/// The background preload of one repository ([`RepoConfig::preload`]).
#[derive(Default)]
struct Preload {
    /// The newest call graph read whole, and the snapshot it was read from.
    table: Option<(Stamp, Arc<EdgeTable>)>,
    /// The snapshot a preload was last started for (one at a time per snapshot).
    started: Option<Stamp>,
    /// The snapshot whose graph and text are held whole.
    done: Option<Stamp>,
}

/// Which snapshot: its key ([`SnapshotKey`]: generation and publish), and which index
/// (generations start over when an index folder is rebuilt, or a staged rebuild is swapped into
/// a team index, so the generation alone can name two snapshots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    snapshot: SnapshotKey,
    index: u64,
}

impl Shared {
    fn preload(&self) -> std::sync::MutexGuard<'_, Preload> {
        // A panic while holding the lock left a state that is still valid.
        self.preload
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The preloaded graph of snapshot `stamp`, if it is ready; starts reading it (and the
    /// view's rows and text) in the background when nobody has.
    fn table(&self, cfg: &RepoConfig, stamp: Stamp) -> Option<Arc<EdgeTable>> {
        let mut p = self.preload();
        if let Some((s, t)) = &p.table
            && *s == stamp
        {
            return Some(t.clone());
        }
        if p.started != Some(stamp) {
            p.started = Some(stamp);
            let (job, shared) = (cfg.clone(), self.clone());
            let spawned = thread::Builder::new()
                .name(format!("codemap-{}-preload", cfg.name))
                .spawn(move || shared.run_preload(&job, stamp));
            if let Err(e) = spawned {
                tracing::warn!(repo = %cfg.name, error = %e, "could not start the preload");
            }
        }
        None
    }

    /// Reads the snapshot's call graph whole, then its symbol rows and text into the shared
    /// view, then readies keyword search ([`IndexRead::warm_search`]), on a reader of its own.
    /// Answers go on meanwhile, reading what they need.
    fn run_preload(&self, cfg: &RepoConfig, stamp: Stamp) {
        let started = std::time::Instant::now();
        // Chinese questions need the segmenter and dictionary: off the answer path too.
        crate::question::zh::warm();
        let generation = stamp.snapshot.generation;
        let result = (|| -> Result<(), String> {
            let reader = open_reader(&cfg.location)?;
            let asker = Asker::sharing(
                reader.as_ref(),
                repo_root(&cfg.location),
                cache_dir(&cfg.location),
                self.views.clone(),
            )
            .map_err(|e| e.to_string())?;
            if let Some(limit) = cfg.preload_limit_mb {
                let lines = asker.view().map_err(|e| e.to_string())?.total_lines();
                let need = (lines * PRELOAD_BYTES_PER_LINE) >> 20;
                if need > limit {
                    return Err(format!(
                        "{lines} lines would take about {need} MB, over the preload limit of {limit} MB"
                    ));
                }
            }
            let table = EdgeTable::read(reader.as_ref()).map_err(|e| e.to_string())?;
            let Some(table) = table.filter(|t| {
                t.snapshot() == stamp.snapshot && index_identity(&cfg.location) == stamp.index
            }) else {
                return Err("the index moved on while it was read".into());
            };
            let edges = table.len();
            self.preload().table = Some((stamp, Arc::new(table)));
            let ms = || started.elapsed().as_millis() as u64;
            tracing::debug!(repo = %cfg.name, edges, ms = ms(), "preload: edge table read");
            let whole = asker
                .view()
                .and_then(|v| v.preload())
                .map_err(|e| e.to_string())?;
            tracing::debug!(repo = %cfg.name, ms = ms(), "preload: rows and text read");
            reader.warm_search().map_err(|e| e.to_string())?;
            let mut p = self.preload();
            if p.table.as_ref().is_some_and(|(s, _)| *s == stamp) {
                p.done = whole.then_some(stamp);
            }
            tracing::info!(repo = %cfg.name, generation, edges, text = whole,
                ms = started.elapsed().as_millis() as u64, "preloaded");
            Ok(())
        })();
        if let Err(reason) = result {
            tracing::warn!(repo = %cfg.name, generation, %reason, "preload stopped; answers read from the index");
        }
    }
}

/// A worker's loop: open the reader when first needed (and again after a failure), answer jobs.
fn worker(
    cfg: RepoConfig,
    llm: Option<LlmConfig>,
    rx: Arc<Mutex<mpsc::Receiver<Job>>>,
    shared: Shared,
) {
    let chat = llm.and_then(|c| match OpenAiChat::new(c) {
        Ok(chat) => Some(chat),
        Err(e) => {
            tracing::warn!(repo = %cfg.name, error = %e, "LLM endpoint not usable; answering from the index");
            None
        }
    });
    let mut reader: Option<Box<dyn IndexRead>> = None;
    // Which index file the reader opened: a rebuild (`--rebuild`, a format change, the graph
    // turned on) replaces the folder's files, and a reader of the old ones would go on seeing
    // the old snapshot for good.
    let mut opened = 0u64;
    let mut pending: Option<Job> = None;
    loop {
        let job = match pending.take() {
            Some(job) => job,
            None => match next_job(&rx) {
                Some(job) => job,
                None => return,
            },
        };
        if reader.is_none() {
            opened = index_identity(&cfg.location);
            match open_reader(&cfg.location) {
                Ok(r) => reader = Some(r),
                Err(reason) => {
                    tracing::warn!(repo = %cfg.name, %reason, "index unavailable");
                    job(Err(ServiceError::Unavailable {
                        repo: cfg.name.clone(),
                        reason,
                    }));
                    continue;
                }
            }
        }
        let r = reader.as_deref().expect("opened above");
        // One Asker per reader, kept across jobs: it reopens its view when the snapshot moves.
        let asker = match Asker::sharing(
            r,
            repo_root(&cfg.location),
            cache_dir(&cfg.location),
            shared.views.clone(),
        ) {
            Ok(a) => a,
            Err(e) => {
                job(Err(ServiceError::Unavailable {
                    repo: cfg.name.clone(),
                    reason: e.to_string(),
                }));
                reader = None;
                continue;
            }
        };
        let mut warm = Warm {
            cfg: &cfg,
            shared: &shared,
            reader: r,
            index: opened,
            asker,
            chat: chat.as_ref(),
            graph: None,
        };
        job(Ok(&mut warm));
        // Keep serving with the same Asker until the queue closes or the index is replaced.
        loop {
            let Some(job) = next_job(&rx) else { return };
            if index_identity(&cfg.location) != opened {
                tracing::info!(repo = %cfg.name, "index folder rebuilt; reopening");
                pending = Some(job);
                break;
            }
            job(Ok(&mut warm));
        }
        drop(warm);
        reader = None;
    }
}

/// The next job of the queue; `None` once it is closed.
fn next_job(rx: &Mutex<mpsc::Receiver<Job>>) -> Option<Job> {
    rx.lock().ok()?.recv().ok()
}

/// Which index file an embedded location holds now (its inode and device): it changes when
/// the folder is rebuilt. 0 for Meilisearch, whose scope survives a rebuild, and where the
/// platform has no such number.
fn index_identity(loc: &IndexLocation) -> u64 {
    match loc {
        IndexLocation::Embedded { index_dir, .. } => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                std::fs::metadata(IndexDir::new(index_dir).catalog())
                    .map(|m| m.ino() ^ m.dev().rotate_left(32))
                    .unwrap_or(0)
            }
            #[cfg(not(unix))]
            {
                let _ = index_dir;
                0
            }
        }
        IndexLocation::Meilisearch { .. } => 0,
    }
}

/// What a worker keeps between questions.
struct Warm<'r> {
    cfg: &'r RepoConfig,
    shared: &'r Shared,
    reader: &'r dyn IndexRead,
    /// [`index_identity`] of the index file `reader` opened.
    index: u64,
    asker: Asker<'r>,
    chat: Option<&'r OpenAiChat>,
    /// Whether this snapshot has a call graph.
    graph: Option<(SnapshotKey, bool)>,
}

impl<'r> Warm<'r> {
    fn reader(&self) -> &dyn IndexRead {
        self.reader
    }

    /// The stored call graph, if the snapshot has one. Asked once per snapshot: counting the
    /// edges reads every edge file's row.
    fn stored_graph(&mut self) -> Option<StoredGraph<'r>> {
        let snapshot = self.reader.last_snapshot().ok().flatten().map(|s| s.key());
        let has = match (self.graph, snapshot) {
            (Some((g, has)), Some(now)) if g == now => has,
            _ => {
                let has = StoredGraph::available(self.reader);
                self.graph = snapshot.map(|g| (g, has));
                has
            }
        };
        // Asked even without a graph: the preload holds the view's rows and text as well.
        let table = match snapshot {
            Some(snapshot) if self.cfg.preload => self.shared.table(
                self.cfg,
                Stamp {
                    snapshot,
                    index: self.index,
                },
            ),
            _ => None,
        };
        if !has {
            return None;
        }
        Some(match table {
            Some(t) => StoredGraph::with_table(self.reader, t),
            None => StoredGraph::new(self.reader),
        })
    }

    fn ask(&mut self, req: &Request) -> Result<Answer, ServiceError> {
        let stored = self.stored_graph();
        let opts = AskOptions {
            level: req.level,
            limit: req.limit,
            token_budget: req.budget,
            llm: self.chat.map(|c| c as &dyn ChatModel),
            graph: stored.as_ref().map(|s| s as &dyn CallGraph),
            ..Default::default()
        };
        Ok(self.asker.ask(&req.question, &opts)?)
    }

    fn with_view<R>(
        &mut self,
        f: impl FnOnce(&SnapshotView<'_>, &dyn CallGraph) -> Result<R, QueryError>,
    ) -> Result<R, ServiceError> {
        let stored = self.stored_graph();
        let view = self.asker.view()?;
        let graph: &dyn CallGraph = match &stored {
            Some(s) => s,
            None => &NoGraph,
        };
        Ok(f(&view, graph)?)
    }

    fn status(&mut self, name: &str) -> Result<RepoStatus, ServiceError> {
        let snapshot = self.reader.last_snapshot().map_err(QueryError::from)?;
        let files = self.reader.current_files().map_err(QueryError::from)?.len();
        let graph_built = self.reader.graph_built().map_err(QueryError::from)?;
        let head = self.asker.repo_root().and_then(freshness::current_head);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let preloaded = snapshot.as_ref().is_some_and(|s| {
            self.shared.preload().done
                == Some(Stamp {
                    snapshot: s.key(),
                    index: self.index,
                })
        });
        Ok(RepoStatus {
            name: name.to_string(),
            freshness: freshness::describe(snapshot.as_ref(), head, now),
            files,
            graph_built,
            preloaded,
        })
    }
}

fn open_reader(loc: &IndexLocation) -> Result<Box<dyn IndexRead>, String> {
    crate::snapshot::open(loc).map_err(|e| e.to_string())
}

fn repo_root(loc: &IndexLocation) -> Option<PathBuf> {
    match loc {
        IndexLocation::Embedded {
            index_dir,
            repo_root,
        } => repo_root
            .clone()
            .or_else(|| index_dir.parent().map(|p| p.to_path_buf())),
        IndexLocation::Meilisearch { repo_root, .. } => repo_root.clone(),
    }
}

fn cache_dir(loc: &IndexLocation) -> Option<PathBuf> {
    match loc {
        IndexLocation::Embedded { index_dir, .. } => Some(index_dir.clone()),
        IndexLocation::Meilisearch { cache_dir, .. } => cache_dir.clone(),
    }
}
