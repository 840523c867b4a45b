//! The HTTP server: the platforms' callback routes and `/healthz`, served until SIGTERM or
//! ctrl-c, then the question queue drained before the process ends.

use crate::check::{self, Problem};
use crate::config::Config;
use crate::connect::{self, LinkState, Links};
use crate::core::Core;
use crate::dedupe::Dedupe;
use crate::mount;
use crate::runtime::Running;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use query::{Scope, Service};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The configuration cannot work; one line per problem, each naming its key.
    #[error("the configuration cannot work:\n{}", .0.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n"))]
    Check(Vec<Problem>),
    #[error(transparent)]
    Dedupe(#[from] crate::dedupe::DedupeError),
    #[error("listening on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("starting the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("serving HTTP: {0}")]
    Serve(std::io::Error),
    #[error(transparent)]
    Connection(connect::ConnectError),
}

/// What `/healthz` reads.
#[derive(Clone)]
struct Health {
    core: Arc<Core>,
    links: Links,
}

/// `/healthz` and the platforms' routes; `links` holds the platforms' connection states.
pub fn app(core: Arc<Core>, platforms: Router, links: Links) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .with_state(Health { core, links })
        .merge(platforms)
}

/// Each repository's freshness and each platform's connection; 503 when a repository cannot be
/// read or a platform is not connected.
async fn healthz(State(h): State<Health>) -> (StatusCode, Json<serde_json::Value>) {
    let c = h.core.clone();
    let repos = tokio::task::spawn_blocking(move || repositories(&c))
        .await
        .unwrap_or_default();
    let platforms = platforms(h.core.config(), &h.links);
    let ok = !repos.is_empty() && repos.iter().all(|r| r["ok"] == true) && h.links.all_up();
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = serde_json::json!({
        "status": if ok { "ok" } else { "degraded" },
        "repositories": repos,
        "platforms": platforms,
    });
    (status, Json(body))
}

fn repositories(c: &Core) -> Vec<serde_json::Value> {
    let names: Vec<String> = c
        .config()
        .repositories
        .iter()
        .map(|r| r.name.clone())
        .collect();
    let scope = Scope::of(names.iter().cloned());
    names
        .iter()
        .map(|n| match c.service().status(&scope, n) {
            Ok(s) => serde_json::json!({
                "name": n,
                "ok": true,
                "freshness": s.freshness.summary,
                "commit": s.freshness.commit,
                "generation": s.freshness.generation,
                "files": s.files,
                "graph_built": s.graph_built,
                "preloaded": s.preloaded,
            }),
            Err(e) => {
                tracing::warn!(repo = %n, error = %e, "health: repository not readable");
                serde_json::json!({"name": n, "ok": false, "error": "unavailable"})
            }
        })
        .collect()
}

/// Each configured platform: its connection mode and where that connection stands.
fn platforms(config: &Config, links: &Links) -> Vec<serde_json::Value> {
    let states = links.snapshot();
    check::platforms(config)
        .into_iter()
        .map(|(p, connection)| {
            let state = states
                .iter()
                .find(|(q, _)| *q == p)
                .map(|(_, s)| s.clone())
                .unwrap_or(LinkState::Connecting);
            let mut v = serde_json::json!({
                "platform": p.as_str(),
                "connection": connection.as_str(),
            });
            if let (Some(o), Ok(serde_json::Value::Object(s))) =
                (v.as_object_mut(), serde_json::to_value(&state))
            {
                o.extend(s);
            }
            v
        })
        .collect()
}

/// Resolves on SIGTERM or ctrl-c.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutdown requested");
}

/// Where the event-id store lives.
pub fn dedupe_path(config: &Config) -> PathBuf {
    config
        .state_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("codemap-bot"))
        .join("events.sqlite")
}

/// Runs the bot until a shutdown signal: blocking, with its own runtime. `config` is validated.
pub fn run(config: Config) -> Result<(), ServeError> {
    // Blocking (it reads the indexes and asks Meilisearch): before the runtime exists.
    let proof = check::prove(&config).map_err(ServeError::Check)?;
    for line in proof.lines() {
        tracing::info!("{line}");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("codemap-bot")
        .build()
        .map_err(ServeError::Runtime)?;
    rt.block_on(serve(config, shutdown_signal()))
}

/// Serves until `stop` resolves, then drains. Inside a runtime.
pub async fn serve(
    config: Config,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let config = Arc::new(config);
    let dedupe = Arc::new(Dedupe::open(
        &dedupe_path(&config),
        Duration::from_secs(config.limits.dedupe_hours * 3600),
        config.limits.dedupe_entries,
    )?);
    let service = Arc::new(Service::start(config.service_repos(), config.llm.clone()));
    let core = Arc::new(Core::new(config.clone(), service));
    let senders = mount::senders(&config).map_err(ServeError::Check)?;
    let running = Running::start(core.clone(), senders, dedupe);
    let routes = match mount::routes(&config, &running.inbox) {
        Ok(r) => r,
        Err(problems) => {
            running.shutdown().await;
            return Err(ServeError::Check(problems));
        }
    };
    let links = Links::default();
    let router = app(core, routes, links.clone());
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|source| ServeError::Listen {
            addr: config.listen.clone(),
            source,
        })?;
    let (down_tx, down_rx) = tokio::sync::watch::channel(false);
    let (fatal_tx, mut fatal_rx) = tokio::sync::mpsc::unbounded_channel();
    let ctx = connect::Ctx {
        inbox: running.inbox.clone(),
        links: links.clone(),
        stop: down_rx,
        fatal: fatal_tx,
    };
    let connections = connect::start(&config, &ctx);
    drop(ctx);
    tracing::info!(
        listen = %config.listen,
        repositories = config.repositories.len(),
        "codemap bot serving"
    );
    let failure = Arc::new(std::sync::Mutex::new(None));
    let failed = failure.clone();
    let trigger = async move {
        tokio::select! {
            () = stop => {}
            Some(e) = fatal_rx.recv() => {
                tracing::error!(error = %e, "a platform connection cannot work; stopping");
                *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            }
        }
        let _ = down_tx.send(true);
    };
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(trigger)
        .await
        .map_err(ServeError::Serve);
    for c in connections {
        if tokio::time::timeout(Duration::from_secs(5), c)
            .await
            .is_err()
        {
            tracing::warn!("a platform connection did not close within 5 s");
        }
    }
    running.shutdown().await;
    tracing::info!("codemap bot stopped");
    let failure = failure.lock().unwrap_or_else(|p| p.into_inner()).take();
    match failure {
        Some(e) => Err(ServeError::Connection(e)),
        None => served,
    }
}
