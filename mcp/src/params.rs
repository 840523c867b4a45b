//! Tool arguments: each a JSON schema the client sees (doc comments become descriptions).
//! Unknown fields are refused so a misspelt argument is an error, not silently ignored.

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words or identifiers to look for (`deductStock`, `payment callback signature`).
    pub query: String,
    /// Results at most (1-100, default 10).
    pub limit: Option<usize>,
    /// Repository name; optional when only one is served to you.
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DefinitionArgs {
    /// A simple or qualified name (`deductStock`, `InventoryService.deductStock`).
    pub name: String,
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphArgs {
    /// A method or class name, a symbol id, or a pseudo id (`route:POST /api/orders`,
    /// `table:t_order`, `config:order.timeout`).
    pub symbol: String,
    /// Levels to follow (1-6, default 1).
    pub depth: Option<usize>,
    /// Hops at most (default 50).
    pub limit: Option<usize>,
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// Where the chain starts (a caller).
    pub from: String,
    /// Where it ends (a callee, table or config key).
    pub to: String,
    /// Longest chain in hops (default 8).
    pub max_depth: Option<usize>,
    /// Chains at most (default 5).
    pub limit: Option<usize>,
    pub repo: Option<String>,
}

/// How much to disclose.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Names and one-liners.
    Surface,
    /// Signatures, callers and callees.
    Structured,
    /// Code, under the token budget.
    Full,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskArgs {
    /// A question in English or Chinese.
    pub question: String,
    /// Detail of the answer (default structured).
    pub level: Option<Level>,
    pub repo: Option<String>,
}

/// How the impact report is written.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ImpactFormat {
    Markdown,
    Text,
    Json,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactArgs {
    /// A unified diff (`git diff` output).
    pub diff: String,
    /// Levels of callers followed (1-8, default 4).
    pub depth: Option<usize>,
    /// Default markdown.
    pub format: Option<ImpactFormat>,
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceArgs {
    /// A Java stack trace as text (exception line and `at …` frames).
    pub trace: String,
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapArgs {
    /// Show only this module's files.
    pub module: Option<String>,
    /// Files listed at most (default 200).
    pub max_files: Option<usize>,
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowsArgs {
    /// The module (as `repo_map` names it: `shop-order`).
    pub module: String,
    pub repo: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// A file path from the repository root, or a symbol name (`OrderServiceImpl.cancelOrder`).
    pub target: String,
    /// surface: names and one-liners; structured: signatures, callers, callees; full: code.
    pub level: Level,
    /// Token budget of the result (default 4000; about 4 characters a token).
    pub budget: Option<usize>,
    pub repo: Option<String>,
}
