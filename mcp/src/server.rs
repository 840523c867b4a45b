//! The MCP handler: tools over [`query::Service`] inside one [`Scope`], and code maps as
//! resources. Each tool runs its query on a blocking thread (the service blocks) and answers
//! text whose places are `path:start-end`. Any failure is a tool error the agent can read.

use crate::params::{
    AskArgs, DefinitionArgs, FlowsArgs, GraphArgs, ImpactArgs, ImpactFormat, Level, PathArgs,
    ReadArgs, RepoMapArgs, SearchArgs, TraceArgs,
};
use crate::{ServeError, disclose, render};
use query::impact::render as impact_render;
use query::impact::report::{ReportOptions, report};
use query::{Request, Scope, Service, ServiceError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use std::path::PathBuf;
use std::sync::Arc;

type ToolResult = Result<CallToolResult, ErrorData>;

/// The server one client talks to: the shared service, the client's scope, and the work trees
/// where code maps are looked for.
#[derive(Clone)]
pub struct CodemapMcp {
    service: Arc<Service>,
    scope: Scope,
    roots: Arc<Vec<(String, PathBuf)>>,
    tool_router: ToolRouter<Self>,
}

/// Serves one client over standard input and output until it hangs up.
pub async fn serve_stdio(server: CodemapMcp) -> Result<(), ServeError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Protocol(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Protocol(e.to_string()))?;
    Ok(())
}

fn ok(text: impl Into<String>) -> ToolResult {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

fn fail(text: impl Into<String>) -> ToolResult {
    Ok(CallToolResult::error(vec![ContentBlock::text(text)]))
}

/// A service error as the agent sees it.
fn failed(e: ServiceError) -> ToolResult {
    match e {
        ServiceError::Internal(_) => {
            tracing::error!(error = %e, "MCP tool failed");
            fail("internal error; the server log has the details")
        }
        e => fail(e.to_string()),
    }
}

fn clamp(x: Option<usize>, default: usize, max: usize) -> usize {
    x.unwrap_or(default).clamp(1, max)
}

#[tool_router]
impl CodemapMcp {
    pub fn new(service: Arc<Service>, scope: Scope, roots: Vec<(String, PathBuf)>) -> CodemapMcp {
        CodemapMcp {
            service,
            scope,
            roots: Arc::new(roots),
            tool_router: Self::tool_router(),
        }
    }

    /// The repository a call is about: the one named (if the scope has it), else the only one.
    fn repo(&self, asked: Option<String>) -> Result<String, String> {
        let served = self.service.repositories(&self.scope);
        match asked {
            Some(r) => Ok(r), // the service answers NotFound for one outside the scope
            None if served.len() == 1 => Ok(served[0].clone()),
            None if served.is_empty() => Err("no repository is available to you".into()),
            None => Err(format!(
                "several repositories are available; pass `repo`, one of: {}",
                served.join(", ")
            )),
        }
    }

    /// Runs `f` with the service and scope on a blocking thread.
    async fn blocking<T, F>(&self, f: F) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&Service, &Scope) -> Result<T, ServiceError> + Send + 'static,
    {
        let service = self.service.clone();
        let scope = self.scope.clone();
        tokio::task::spawn_blocking(move || f(&service, &scope))
            .await
            .unwrap_or_else(|e| Err(ServiceError::Internal(format!("a query panicked: {e}"))))
    }

    /// Runs `f` on a blocking thread over the repository a call names (or the only one). `f`'s
    /// `Ok(Err(msg))` is a tool error the caller can fix; `Err` is the service's.
    async fn on_repo<F>(&self, asked: Option<String>, f: F) -> ToolResult
    where
        F: FnOnce(&Service, &Scope, &str) -> Result<Result<String, String>, ServiceError>
            + Send
            + 'static,
    {
        let repo = match self.repo(asked) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        match self.blocking(move |s, scope| f(s, scope, &repo)).await {
            Ok(Ok(text)) => ok(text),
            Ok(Err(msg)) => fail(msg),
            Err(e) => failed(e),
        }
    }

    #[tool(
        description = "Full-text and symbol search over the indexed code. Returns one `path:start-end  symbol  first line` per hit, best first."
    )]
    async fn search(&self, Parameters(a): Parameters<SearchArgs>) -> ToolResult {
        if a.query.trim().is_empty() {
            return fail("`query` is empty");
        }
        let limit = clamp(a.limit, 10, 100);
        let q = a.query;
        self.on_repo(a.repo, move |s, scope, repo| {
            s.read(scope, repo, move |r| {
                query::search(r, &q, limit).map(|h| Ok(render::hits(&h)))
            })?
            .map_err(|e| ServiceError::Query(e.into()))
        })
        .await
    }

    #[tool(
        description = "Where a symbol is declared: `path:start-end`, kind, qualified name, signature and doc sentence of every declaration of that simple or qualified name."
    )]
    async fn definition(&self, Parameters(a): Parameters<DefinitionArgs>) -> ToolResult {
        let name = a.name;
        let asked = name.clone();
        self.on_repo(a.repo, move |s, scope, repo| {
            let (text, found) = s
                .read(scope, repo, move |r| render::definitions(r, &asked))?
                .map_err(ServiceError::Query)?;
            Ok(Ok(if found == 0 {
                format!("no declaration named {name:?}; try `search` with words from its name")
            } else {
                text
            }))
        })
        .await
    }

    #[tool(
        description = "Who calls a method (or uses a class, route, table or config key), to a depth, from the stored call graph; each caller with its declaration and the use site."
    )]
    async fn callers(&self, Parameters(a): Parameters<GraphArgs>) -> ToolResult {
        self.graph(a, true).await
    }

    #[tool(
        description = "What a method calls, to a depth (calls through interfaces list their implementations); each callee with its declaration and the use site."
    )]
    async fn callees(&self, Parameters(a): Parameters<GraphArgs>) -> ToolResult {
        self.graph(a, false).await
    }

    async fn graph(&self, a: GraphArgs, up: bool) -> ToolResult {
        let depth = clamp(a.depth, 1, 6);
        let limit = clamp(a.limit, 50, 500);
        let symbol = a.symbol;
        self.on_repo(a.repo, move |s, scope, repo| {
            s.read(scope, repo, move |r| {
                let targets = query::calls::find_nodes(r, &symbol)?;
                if targets.is_empty() {
                    return Ok(Err(format!(
                        "no symbol named {symbol:?} in the index (try Type.method, or `search`)"
                    )));
                }
                let hops = if up {
                    query::calls::callers(r, &targets, depth, limit)?
                } else {
                    query::calls::callees(r, &targets, depth, limit)?
                };
                let what = if up { "callers" } else { "callees" };
                render::hops(r, what, &targets, &hops, up).map(Ok)
            })?
            .map_err(ServiceError::Query)
        })
        .await
    }

    #[tool(
        description = "Call chains from one symbol to another (a route, method, table or config key), shortest first, every hop with its use site."
    )]
    async fn path(&self, Parameters(a): Parameters<PathArgs>) -> ToolResult {
        let max_depth = clamp(a.max_depth, 8, 12);
        let limit = clamp(a.limit, 5, 20);
        let (from, to) = (a.from, a.to);
        self.on_repo(a.repo, move |s, scope, repo| {
            s.read(scope, repo, move |r| {
                let sources = query::calls::find_nodes(r, &from)?;
                let sinks = query::calls::find_nodes(r, &to)?;
                for (name, found) in [(&from, &sources), (&to, &sinks)] {
                    if found.is_empty() {
                        return Ok(Err(format!("no symbol named {name:?} in the index")));
                    }
                }
                let chains = query::calls::paths(r, &sources, &sinks, max_depth, limit)?;
                if chains.is_empty() {
                    return Ok(Ok(format!(
                        "no call chain of at most {max_depth} hops from {from} to {to}"
                    )));
                }
                render::chains(r, &chains).map(Ok)
            })?
            .map_err(ServiceError::Query)
        })
        .await
    }

    #[tool(
        description = "Answer a question about the code (English or Chinese) with checked citations: locations, call chains, callers, config. Level surface, structured (default) or full (with code)."
    )]
    async fn ask(&self, Parameters(a): Parameters<AskArgs>) -> ToolResult {
        if a.question.trim().is_empty() {
            return fail("`question` is empty");
        }
        let level = match a.level.unwrap_or(Level::Structured) {
            Level::Surface => query::Level::Surface,
            Level::Structured => query::Level::Structured,
            Level::Full => query::Level::Full,
        };
        self.answer(a.repo, a.question, level).await
    }

    #[tool(
        description = "Where a pasted Java stack trace fails in the indexed code: its frames, the origin line and where the exception message is written, cited."
    )]
    async fn trace(&self, Parameters(a): Parameters<TraceArgs>) -> ToolResult {
        if !a.trace.contains("at ") && !a.trace.contains("Exception") {
            return fail(
                "`trace` does not look like a stack trace (an exception line and `at …` frames)",
            );
        }
        self.answer(a.repo, a.trace, query::Level::Structured).await
    }

    async fn answer(&self, repo: Option<String>, text: String, level: query::Level) -> ToolResult {
        let mut req = Request::new(text);
        req.level = level;
        self.on_repo(repo, move |s, scope, repo| {
            s.ask(scope, repo, &req).map(|a| Ok(query::render_text(&a)))
        })
        .await
    }

    #[tool(
        description = "Impact of a unified diff: the declarations it changes (signature or body), callers transitively with depth, entry points reached (routes, listeners, jobs), modules, tables, topics, remote calls and config keys crossed, and the tests that reach it."
    )]
    async fn impact(&self, Parameters(a): Parameters<ImpactArgs>) -> ToolResult {
        let repo = match self.repo(a.repo) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        if !a.diff.contains("@@") {
            return fail("`diff` is not a unified diff (no `@@` hunk header)");
        }
        let opts = ReportOptions {
            depth: clamp(a.depth, 4, 8),
            ..ReportOptions::default()
        };
        let format = a.format.unwrap_or(ImpactFormat::Markdown);
        let diff = a.diff;
        let r = self
            .blocking(move |s, scope| s.view(scope, &repo, move |v, g| report(v, g, &diff, &opts)))
            .await;
        let r = match r {
            Ok(r) => r,
            Err(e) => return failed(e),
        };
        let text = match format {
            ImpactFormat::Markdown => impact_render::markdown(
                &r,
                impact_render::REVIEW_COMMENT_LIMIT,
                "call `impact` with format json for the whole report",
            ),
            ImpactFormat::Text => impact_render::text(&r),
            ImpactFormat::Json => serde_json::to_string_pretty(&r).unwrap_or_default(),
        };
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = serde_json::to_value(&r).ok();
        Ok(result)
    }

    #[tool(
        description = "The repository at a glance: its modules with file and declaration counts, and each file's one-liner (`path:1-N — what it is`); narrow it to one module with `module`."
    )]
    async fn repo_map(&self, Parameters(a): Parameters<RepoMapArgs>) -> ToolResult {
        let max_files = clamp(a.max_files, 200, 2000);
        let module = a.module;
        self.on_repo(a.repo, move |s, scope, repo| {
            s.view(scope, repo, move |v, _| {
                Ok(disclose::repo_map(v, module.as_deref(), max_files))
            })
        })
        .await
    }

    #[tool(
        description = "A module's entry points (routes, listeners, schedules, mains, API types) and its key flows: from each entry, the calls it makes breadth first (state-changing paths first), with the tables, SQL statements and remote services reached; every step and call site cited. The flows docgen's code maps draw."
    )]
    async fn flows(&self, Parameters(a): Parameters<FlowsArgs>) -> ToolResult {
        let module = a.module;
        self.on_repo(a.repo, move |s, scope, repo| {
            s.read(scope, repo, move |r| {
                match query::flows::of_module(r, &module) {
                    Ok(Some(m)) => Ok(render::flows(&module, &m)),
                    Ok(None) => Err(format!(
                        "no module named {module:?} in the index; repo_map lists the modules"
                    )),
                    Err(e) => Err(e.to_string()),
                }
            })
        })
        .await
    }

    #[tool(
        description = "Read a file or symbol at a level of detail: surface (names and one-liners), structured (signatures, callers, callees), full (code with line numbers, under a token budget)."
    )]
    async fn read(&self, Parameters(a): Parameters<ReadArgs>) -> ToolResult {
        let budget = clamp(a.budget, 4000, 100_000);
        let (target, level) = (a.target, a.level);
        self.on_repo(a.repo, move |s, scope, repo| {
            s.view(scope, repo, move |v, g| {
                disclose::read(v, g, &target, level, budget)
            })
        })
        .await
    }
}

/// Code maps docgen wrote (`docs/codemap/*.md`) in the work trees of the scope's repositories.
fn code_maps(roots: &[(String, PathBuf)], scope: &Scope) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for (repo, root) in roots.iter().filter(|(r, _)| scope.allows(r)) {
        let dir = root.join("docs/codemap");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
            .collect();
        files.sort();
        for f in files {
            if let Some(name) = f.file_name().and_then(|n| n.to_str()) {
                out.push((format!("codemap://{repo}/docs/codemap/{name}"), f));
            }
        }
    }
    out
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CodemapMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("codemap", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "codemap answers questions about an indexed code repository with cited `path:start-end` places. \
             Start with repo_map or search, then read (surface → structured → full), callers/callees/path \
             for the call graph, flows for a module's entry points and what they do, impact for a \
             diff, trace for a stack trace.",
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let items = code_maps(&self.roots, &self.scope)
            .into_iter()
            .map(|(uri, path)| {
                let name = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let mut r = Resource::new(uri, format!("code map: {name}"));
                r.mime_type = Some("text/markdown".into());
                r
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(items))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // Only URIs listed for this scope resolve: no path from the request reaches the disk.
        let found = code_maps(&self.roots, &self.scope)
            .into_iter()
            .find(|(uri, _)| *uri == request.uri);
        let Some((uri, path)) = found else {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            ErrorData::internal_error(format!("reading {}: {e}", path.display()), None)
        })?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("text/markdown"),
        ])
        .into())
    }
}

/// Runs a server future on a multi-threaded runtime of its own, for a synchronous `main`.
pub fn block_on<T>(f: impl Future<Output = Result<T, ServeError>>) -> Result<T, ServeError> {
    tokio::runtime::Runtime::new()?.block_on(f)
}
