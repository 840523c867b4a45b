//! `codemap docgen serve`: the host of two kinds of job, run from one [`queue`] (one job per
//! key at a time, later ones coalesced). Push webhooks (GitHub HMAC, GitLab token) and/or a cron
//! poll start code-map jobs ([`job`], one per repository) that re-index, regenerate and commit
//! the maps on a docs branch, and keep one pull request open; it never moves a docs branch a
//! human pushed to, and never regenerates from its own commits. With `[repo.review]`, pull /
//! merge request webhooks start reviews ([`crate::review`], one per request) that keep one
//! impact comment on each request. Re-indexing is injected ([`Reindex`]).

pub mod config;
mod http;
pub mod job;
pub mod policy;
pub mod queue;
pub mod reindex;
mod schedule;
pub mod state;
pub mod webhook;

pub use config::{Config, ConfigError, Resolved};
pub use job::{GenOutcome, Generate, Outcome, Trigger};
pub use reindex::{Indexed, Reindex, Reindexer};

use crate::host::Host;
use crate::review::{self, ReviewContext};
use http::{AppState, Hook};
use job::JobContext;
use queue::{Finished, Key, Queue, Task};
use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("listening on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("state folder {path}: {source}")]
    StateDir {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("serving: {0}")]
    Serve(std::io::Error),
    #[error("starting the async runtime: {0}")]
    Runtime(std::io::Error),
}

/// The code-map generator a job runs on the freshly indexed work tree: [`crate::generate`] with
/// the default options, its written files reported relative to the tree.
pub fn code_maps() -> Generate {
    Arc::new(|tree, read| {
        crate::generate(read, &crate::Options::new(tree))
            .map(|o| GenOutcome {
                files: o.written.iter().map(Into::into).collect(),
                changed: o.changed,
            })
            .map_err(|e| e.to_string())
    })
}

/// Runs the server until SIGINT or SIGTERM, on a runtime of its own (for the binary, which has
/// none). Running jobs finish before it returns.
pub fn serve_blocking(
    resolved: Resolved,
    generate: Generate,
    reindex: Reindexer,
) -> Result<(), ServeError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    rt.block_on(async move {
        let server = Server::bind(resolved, generate, reindex).await?;
        server.run(shutdown_signal()).await
    })
}

/// Completes on Ctrl-C or SIGTERM (what systemd and docker send).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => tracing::info!("Ctrl-C received"),
        _ = term => tracing::info!("SIGTERM received"),
    }
}

/// A bound server, not yet serving.
pub struct Server {
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    schedules: Vec<(String, cron::Schedule)>,
    max_body: usize,
}

impl Server {
    /// Binds the listen address and prepares the jobs of every repository. `reindex` is the
    /// indexing step every job runs before it reads an index.
    pub async fn bind(
        resolved: Resolved,
        generate: Generate,
        reindex: Reindexer,
    ) -> Result<Server, ServeError> {
        let Resolved {
            config,
            listen,
            repos,
        } = resolved;
        std::fs::create_dir_all(&config.server.state_dir).map_err(|source| {
            ServeError::StateDir {
                path: config.server.state_dir.clone(),
                source,
            }
        })?;
        let (mut hooks, mut schedules) = (BTreeMap::new(), Vec::new());
        let mut jobs = Jobs::default();
        for (repo, r) in config.repos.iter().zip(repos) {
            let paths = || state::RepoPaths::new(&config.server.state_dir, &repo.name);
            let host = match (&repo.pull_request, &r.api_token) {
                (Some(pr), Some(token)) => Some(Host::new(repo.host, &pr.api, &pr.project, token)),
                _ => None,
            };
            let ctx = JobContext {
                repo: repo.clone(),
                bot: config.bot.clone(),
                paths: paths(),
                host,
                generate: generate.clone(),
                reindex: reindex.clone(),
            };
            jobs.docs.insert(repo.name.clone(), Arc::new(ctx));
            if let Some(s) = r.schedule {
                schedules.push((repo.name.clone(), s));
            }
            let review_project = r.review.as_ref().map(|s| s.project.clone());
            if let Some(settings) = r.review {
                let ctx = ReviewContext {
                    repo: repo.clone(),
                    bot: config.bot.clone(),
                    paths: paths(),
                    host: Host::new(repo.host, &settings.api, &settings.project, &settings.token),
                    settings,
                    reindex: reindex.clone(),
                    git_lock: std::sync::Mutex::new(()),
                };
                jobs.reviews.insert(repo.name.clone(), Arc::new(ctx));
            }
            let hook = Hook {
                repo: repo.clone(),
                kind: repo.host,
                secret: r.webhook_secret,
                review_project,
            };
            hooks.insert(repo.name.clone(), hook);
        }
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| ServeError::Bind {
                addr: listen,
                source,
            })?;
        let jobs = Arc::new(jobs);
        let queue = Queue::new(Arc::new(move |key, task| {
            Box::pin(jobs.clone().run(key, task))
        }));
        Ok(Server {
            listener,
            state: Arc::new(AppState {
                hooks,
                bot: config.bot.clone(),
                queue,
            }),
            schedules,
            max_body: config.server.max_body_bytes,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `shutdown` completes, then stops taking requests, lets running jobs finish
    /// (waiting ones are dropped: the next push or poll brings them back) and returns.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut polls = Vec::new();
        for (repo, s) in self.schedules {
            let queue = self.state.queue.clone();
            polls.push(tokio::spawn(schedule::poll(
                queue,
                repo,
                s,
                stop_rx.clone(),
            )));
        }
        let app = http::router(self.state.clone(), self.max_body);
        tracing::info!(addr = %self.listener.local_addr().map_err(ServeError::Serve)?, repos = self.state.hooks.len(), "docgen serve listening");
        let served = axum::serve(self.listener, app)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(ServeError::Serve);
        tracing::info!("shutting down: waiting for running jobs");
        let _ = stop_tx.send(true);
        for p in polls {
            let _ = p.await;
        }
        self.state.queue.close().await;
        tracing::info!("stopped");
        served
    }
}

/// Every repository's job contexts, by repository name: what the queue runs jobs with.
#[derive(Default)]
struct Jobs {
    docs: BTreeMap<String, Arc<JobContext>>,
    reviews: BTreeMap<String, Arc<ReviewContext>>,
}

impl Jobs {
    /// Runs one job with its repository's context: the host's dispatch over the job kinds. A
    /// failure is logged and recorded; what a failed job leaves behind is its kind's to say.
    async fn run(self: Arc<Self>, key: Key, task: Task) -> Finished {
        let repo = &key.repo;
        let failed = |error: String| Finished::Failed {
            outcome: "failed",
            error,
        };
        match task {
            Task::Docs(t) => {
                let Some(ctx) = self.docs.get(repo) else {
                    return failed(format!("no repository {repo}"));
                };
                match job::run(ctx.clone(), t.clone()).await {
                    Ok(o) => {
                        tracing::info!(%repo, trigger = %t, outcome = ?o, "job finished");
                        Finished::Docs(o)
                    }
                    Err(e) => {
                        tracing::error!(%repo, trigger = %t, error = %e, "job failed; the docs branch was left as it was");
                        failed(e.to_string())
                    }
                }
            }
            Task::Review(t) => {
                let Some(ctx) = self.reviews.get(repo) else {
                    return failed(format!("reviews are off for {repo}"));
                };
                match review::job::run(ctx.clone(), t.clone()).await {
                    Ok(o) => {
                        tracing::info!(%repo, trigger = %t, outcome = ?o, "review finished");
                        Finished::Review(o)
                    }
                    Err(e) => {
                        tracing::error!(%repo, trigger = %t, error = %e, "review failed");
                        failed(e.to_string())
                    }
                }
            }
        }
    }
}
