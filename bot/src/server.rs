//! The HTTP server: the platforms' callback routes and `/healthz`, served until SIGTERM or
//! ctrl-c, then the question queue drained before the process ends.

use crate::config::Config;
use crate::connect::{self, Links};
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
    #[error("{}", .0.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n"))]
    Secrets(Vec<mount::MissingSecret>),
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

/// `/healthz` and the platforms' routes.
pub fn app(core: Arc<Core>, platforms: Router) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .with_state(core)
        .merge(platforms)
}

/// Each repository's freshness; 503 when one cannot be read.
async fn healthz(State(core): State<Arc<Core>>) -> (StatusCode, Json<serde_json::Value>) {
    let c = core.clone();
    let report = tokio::task::spawn_blocking(move || {
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
                }),
                Err(e) => {
                    tracing::warn!(repo = %n, error = %e, "health: repository not readable");
                    serde_json::json!({"name": n, "ok": false, "error": "unavailable"})
                }
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap_or_default();
    let ok = !report.is_empty() && report.iter().all(|r| r["ok"] == true);
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        status,
        Json(
            serde_json::json!({"status": if ok { "ok" } else { "degraded" }, "repositories": report}),
        ),
    )
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
    mount::check_secrets(&config).map_err(ServeError::Secrets)?;
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
    let running = Running::start(core.clone(), mount::senders(&config), dedupe);
    let links = Links::default();
    let router = app(core, mount::routes(&config, &running.inbox));
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
