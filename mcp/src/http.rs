//! Streamable HTTP: one MCP endpoint (`/mcp`) where the bearer token picks the repository
//! scope. Each token gets its own session manager, so a session opened with one token is unknown
//! to every other. A missing or wrong token is refused with 401 before anything is parsed.

use crate::ServeError;
use crate::server::CodemapMcp;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use query::{Scope, Service};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::path::PathBuf;
use std::sync::Arc;
use subtle::ConstantTimeEq;
use tower_service::Service as _;

/// Bearer tokens (the secrets themselves) with the repositories each may see.
pub struct Tokens(pub Vec<(String, Vec<String>)>);

type Mcp = StreamableHttpService<CodemapMcp, LocalSessionManager>;

struct Endpoint {
    /// (token bytes, the service for its scope)
    by_token: Vec<(Vec<u8>, Mcp)>,
}

/// Serves `/mcp` on `addr` until the process ends; `ready` gets the bound address (the port
/// when `addr` asks for port 0).
pub async fn serve_http(
    service: Arc<Service>,
    roots: Vec<(String, PathBuf)>,
    tokens: Tokens,
    addr: &str,
    allowed_hosts: Vec<String>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServeError> {
    let mut config = StreamableHttpServerConfig::default();
    if !allowed_hosts.is_empty() {
        config.allowed_hosts.extend(allowed_hosts);
    }
    let by_token = tokens
        .0
        .into_iter()
        .map(|(secret, repos)| {
            let (service, roots, scope) = (service.clone(), roots.clone(), Scope::of(repos));
            let mcp: Mcp = StreamableHttpService::new(
                move || {
                    Ok(CodemapMcp::new(
                        service.clone(),
                        scope.clone(),
                        roots.clone(),
                    ))
                },
                Arc::new(LocalSessionManager::default()),
                config.clone(),
            );
            (secret.into_bytes(), mcp)
        })
        .collect();
    let endpoint = Arc::new(Endpoint { by_token });
    let app = axum::Router::new()
        .route("/mcp", axum::routing::any(handle))
        .with_state(endpoint);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })?;
    ready(listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

async fn handle(State(e): State<Arc<Endpoint>>, req: Request) -> Response {
    let Some(mut mcp) = bearer(&req).and_then(|t| e.matching(t)) else {
        tracing::info!("MCP request refused: missing or unknown bearer token");
        let mut r = (
            StatusCode::UNAUTHORIZED,
            "a valid bearer token is required\n",
        )
            .into_response();
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"codemap\""),
        );
        return r;
    };
    match mcp.call(req).await {
        Ok(resp) => resp.map(Body::new),
        Err(never) => match never {},
    }
}

/// The token of an `Authorization: Bearer …` header.
fn bearer(req: &Request) -> Option<&[u8]> {
    let v = req.headers().get(header::AUTHORIZATION)?.as_bytes();
    let (scheme, token) = v.split_at_checked(7)?;
    (scheme.eq_ignore_ascii_case(b"bearer ") && !token.is_empty()).then_some(token)
}

impl Endpoint {
    /// The service of the token that matches, compared in constant time against every token.
    fn matching(&self, token: &[u8]) -> Option<Mcp> {
        let mut found = None;
        for (secret, mcp) in &self.by_token {
            if bool::from(secret.as_slice().ct_eq(token)) && found.is_none() {
                found = Some(mcp.clone());
            }
        }
        found
    }
}
