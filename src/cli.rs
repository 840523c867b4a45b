//! Command-line surface (clap derive). Only argument shapes live here.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "codemap",
    version,
    about = "Makes a large code repository answerable: index, search, symbols, snapshots."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct Global {
    /// Index folder (default: <repo>/.codemap).
    #[arg(long, global = true, env = "CODEMAP_INDEX_DIR")]
    pub index_dir: Option<PathBuf>,
    /// Repository the query commands read (default: the current directory or the nearest parent
    /// holding a .codemap folder).
    #[arg(long, global = true)]
    pub repo: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Where the index is read from (and, for `index`, published to).
    #[arg(long, global = true, value_enum, default_value_t = Backend::Embedded, env = "CODEMAP_BACKEND")]
    pub backend: Backend,
    /// Meilisearch URL (team mode).
    #[arg(long, global = true, env = "MEILI_URL")]
    pub meili_url: Option<String>,
    /// Name of the environment variable holding the Meilisearch API key.
    #[arg(long, global = true, default_value = "MEILI_MASTER_KEY")]
    pub meili_key_env: String,
    /// Prefix of codemap's Meilisearch index names.
    #[arg(long, global = true, default_value = "codemap_")]
    pub meili_prefix: String,
    /// Repository scope in a shared server (default: the repository folder's name).
    #[arg(long, global = true)]
    pub repo_name: Option<String>,
    /// How log lines on stderr look: `text` (colours only on a terminal) or `json` (one object
    /// per line, for log collectors).
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text, env = "CODEMAP_LOG_FORMAT")]
    pub log_format: LogFormat,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The local index folder.
    Embedded,
    /// A Meilisearch server (the local folder stays the indexer's working copy).
    Meilisearch,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Index a repository (incremental: only changed files are parsed).
    Index(IndexArgs),
    /// Keep the index current while files change.
    Watch(IndexArgs),
    /// What is indexed, what was skipped and why.
    Status {
        /// List files (indexed, degraded and skipped).
        #[arg(short, long)]
        verbose: bool,
    },
    /// Full-text and symbol search; one `path:start-end` per hit.
    Search {
        query: String,
        #[arg(short = 'n', long, default_value_t = 20)]
        limit: usize,
    },
    /// Answer a question with cited places in the code (index-only, or prose through an LLM).
    Ask(AskArgs),
    /// One-line LLM summaries of undocumented methods and files, cached by content hash and
    /// used by `ask`'s map and one-liners (needs --llm-url).
    Summarize(SummarizeArgs),
    /// Compute vectors for the indexed chunks that have none for the model (incremental,
    /// resumable; `ask` then uses them as its vector leg).
    Embed(EmbedArgs),
    /// Definitions by simple or qualified name.
    Symbol { name: String },
    /// Show what the pipeline produced for one file.
    Dump { what: DumpWhat, file: String },
    /// Export the index as JSONL on stdout.
    Export {
        what: ExportWhat,
        /// Edge kinds to export (repeatable): call, rpc, db, event, route, config, inherits,
        /// implements, overrides, constant, read, or `all`. Default: the call graph (all but the
        /// type edges and the data uses: constant, read).
        #[arg(long = "kind")]
        kinds: Vec<String>,
    },
    /// Who calls SYMBOL (a method, class, route, table or config key), to a depth.
    Callers(GraphArgs),
    /// What SYMBOL calls, to a depth (calls through interfaces list their implementations).
    Callees(GraphArgs),
    /// Call chains from one symbol to another, shortest first.
    Path {
        from: String,
        to: String,
        /// Longest chain considered, in hops.
        #[arg(long, default_value_t = 8)]
        max_depth: usize,
        /// Chains shown at most.
        #[arg(short = 'n', long, default_value_t = 5)]
        limit: usize,
    },
    /// Files and symbols added, removed and changed between two snapshots (default: the last two).
    Diff { from: Option<u64>, to: Option<u64> },
    /// Regenerate the per-module code maps from the index (one shot, for CI jobs): only pages
    /// whose module changed are written. Exit 0 when something was written, 1 when nothing
    /// changed, 2 on error.
    Docgen(DocgenArgs),
    /// The team bot: answers Slack, Discord and Feishu questions inside per-channel repository
    /// scopes (deploy/bot.toml is a sample configuration).
    Bot(BotCli),
    /// What a diff changes and reaches: changed declarations, callers to a depth, entry points,
    /// modules, tables, topics and keys, and the tests that reach it.
    Impact(ImpactArgs),
    /// Serve the index to coding agents over MCP (stdio, or streamable HTTP with --http).
    Mcp(McpArgs),
}

#[derive(Args, Debug, Clone)]
pub struct DocgenServeArgs {
    /// The TOML config (deploy/docgen-serve.toml is a commented sample).
    #[arg(long)]
    pub config: PathBuf,
}

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DocgenArgs {
    #[command(flatten)]
    pub generate: DocgenGenerate,
    /// Long-running modes (added beside the one-shot run).
    #[command(subcommand)]
    pub mode: Option<DocgenMode>,
}

/// Flags of a one-shot docgen run.
#[derive(Args, Debug, Clone)]
pub struct DocgenGenerate {
    /// Folder of the global page, the module pages and the state file: relative to the
    /// repository root, or absolute inside it.
    #[arg(long, default_value = "docs/codemap")]
    pub out: PathBuf,
    /// Write each module's map into its README.md between `<!-- codemap:begin -->` and
    /// `<!-- codemap:end -->` instead of one page per module.
    #[arg(long)]
    pub readme_markers: bool,
    /// Folder whose module.md.hbs / index.md.hbs replace the built-in templates.
    #[arg(long)]
    pub templates: Option<PathBuf>,
    /// With --llm-url: each page opens with a purpose paragraph written from the module's
    /// facts, cached in the state file and asked for again only when the module changed.
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum DocgenMode {
    /// Keep the code maps current after merges: push webhooks (GitHub HMAC, GitLab token) and/or
    /// a cron poll start jobs that re-index, regenerate, commit the maps on a docs branch with
    /// `[skip ci]`, push, and open or update one pull / merge request.
    Serve(DocgenServeArgs),
}

/// `codemap bot --config FILE`, or a setup step (`codemap bot register-commands`).
#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BotCli {
    #[command(subcommand)]
    pub action: Option<BotAction>,
    #[command(flatten)]
    pub run: Option<BotArgs>,
}

#[derive(Subcommand, Debug, Clone)]
pub enum BotAction {
    /// Register the `/ask` command with Discord (the bot does it at start too), then exit.
    RegisterCommands(BotRegisterArgs),
}

#[derive(Args, Debug, Clone)]
pub struct BotRegisterArgs {
    /// The bot's TOML configuration (its `[platforms.discord]`).
    #[arg(long, env = "CODEMAP_BOT_CONFIG")]
    pub config: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct BotArgs {
    /// The bot's TOML configuration.
    #[arg(long, env = "CODEMAP_BOT_CONFIG")]
    pub config: PathBuf,
    /// Validate the configuration and the credentials' variables, then exit.
    #[arg(long)]
    pub check: bool,
    /// Join the Meilisearch instances of `[meilisearch_network]` into one network (turn the
    /// `network` feature on, set each one's `self` and remotes with their search keys; each
    /// instance's `admin_key_env` is needed), then exit.
    #[arg(long, conflicts_with = "check")]
    pub join_network: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ImpactArgs {
    /// A unified diff file, or `-` for standard input (the default).
    #[arg(long, conflicts_with = "git")]
    pub diff: Option<String>,
    /// A git revision range (`main..HEAD`, `main...topic`) diffed in the repository (--repo);
    /// the index may be at either end of it, and the lines cited are the indexed commit's.
    #[arg(long)]
    pub git: Option<String>,
    #[arg(long, value_enum, default_value_t = ImpactFormat::Text)]
    pub format: ImpactFormat,
    /// Levels of callers followed up from each change.
    #[arg(long, default_value_t = 4)]
    pub depth: usize,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImpactFormat {
    Text,
    Json,
    /// Sized for a review comment (at most 65,000 characters).
    Markdown,
}

#[derive(Args, Debug, Clone)]
pub struct McpArgs {
    /// Repositories and HTTP tokens (TOML); default: the one repository of --repo/--index-dir.
    #[arg(long)]
    pub repo_config: Option<PathBuf>,
    /// Serve streamable HTTP on this address (`127.0.0.1:8808`) instead of stdio.
    #[arg(long)]
    pub http: Option<String>,
    /// With --http and no config: the environment variable holding the bearer token.
    #[arg(long, requires = "http")]
    pub token_env: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct IndexArgs {
    /// Repository root (default: current directory).
    pub path: Option<PathBuf>,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = 1024 * 1024)]
    pub max_file_size: u64,
    /// Parser threads (0 = all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Throw the index away and build it again.
    #[arg(long)]
    pub rebuild: bool,
    /// Extra ignore globs (gitignore syntax), repeatable.
    #[arg(long = "exclude")]
    pub exclude: Vec<String>,
    /// Memory the run may use (2G, 1536M): over it, declarations are decoded pass by pass
    /// instead of held and the full-text writer flushes sooner. The end line gives the peak.
    #[arg(long, env = "CODEMAP_MEMORY_BUDGET", default_value = "1536M")]
    pub memory_budget: indexer::pipeline::budget::MemoryBudget,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug, Clone)]
pub struct SummarizeArgs {
    /// Ask about at most this many files this run (the rest come next run).
    #[arg(long)]
    pub limit: Option<usize>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
}

#[derive(Args, Debug, Clone)]
pub struct AskArgs {
    /// The question, in English or Chinese; `-` reads it from standard input (`git diff |
    /// codemap ask -` asks what a diff changes and what that reaches).
    #[arg(required_unless_present_any = ["batch", "list_rules"])]
    pub question: Option<String>,
    /// Answer every `{"id","question"}` line of this JSONL file; writes one
    /// `{"id","answer","citations"}` line per question to stdout.
    #[arg(long, conflicts_with = "question")]
    pub batch: Option<std::path::PathBuf>,
    /// Team mode, with `--batch`: first copy the snapshot's chunks into a keyword index kept
    /// under the cache folder (`$XDG_CACHE_HOME/codemap`, one copy per snapshot, reused by the
    /// next batch while the snapshot is the last one) instead of asking Meilisearch for every
    /// question, which is the default, as for a one-shot question.
    #[arg(long, requires = "batch")]
    pub memory_copy: bool,
    /// Team mode, with `--batch`: search in Meilisearch for every question (the default; kept
    /// for scripts written when a batch copied the chunks by default).
    #[arg(long, requires = "batch", conflicts_with = "memory_copy", hide = true)]
    pub server_search: bool,
    /// Disclosure level: surface, structured or full.
    #[arg(long, default_value = "structured")]
    pub level: String,
    /// Token budget of the assembled context.
    #[arg(long, default_value_t = 6000)]
    pub budget: usize,
    /// Citations at most.
    #[arg(short = 'n', long, default_value_t = 10)]
    pub limit: usize,
    /// Ranking rules to switch off (`-name`) or back on (`+name`), comma-separated:
    /// `--rules -value-factory,-accessor`. All run by default; `--list-rules` names them.
    #[arg(
        long,
        env = "CODEMAP_RULES",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub rules: String,
    /// Print the ranking rules in the order they run (name, stage, weight, what each reads and
    /// changes) and exit.
    #[arg(long)]
    pub list_rules: bool,
    /// With an LLM: keep the index's order instead of letting the model put the best 30
    /// candidates of a locate, definition, config or flow question in order (one request less).
    #[arg(long)]
    pub no_rerank: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub embedder: EmbedderArgs,
}

/// An OpenAI-compatible chat endpoint.
#[derive(Args, Debug, Clone)]
pub struct LlmArgs {
    /// OpenAI-compatible endpoint base URL (e.g. http://127.0.0.1:11434/v1); none = index-only.
    #[arg(long, env = "CODEMAP_LLM_URL")]
    pub llm_url: Option<String>,
    /// Model name for the endpoint.
    #[arg(long, env = "CODEMAP_LLM_MODEL", default_value = "gpt-4o-mini")]
    pub llm_model: String,
    /// Name of the environment variable holding the endpoint's API key.
    #[arg(long, default_value = "CODEMAP_LLM_KEY")]
    pub llm_key_env: String,
    /// Per-request timeout of the endpoint, seconds.
    #[arg(long, default_value_t = 60.0)]
    pub llm_timeout: f64,
}

/// Which embedder gives the vector leg (`ask`) or computes vectors (`embed`).
#[derive(Args, Debug, Clone)]
pub struct EmbedderArgs {
    /// pocket (built in with the local-embedders feature), minilm:DIR (a sentence-transformers folder), openai (--embed-url),
    /// none, or auto (`ask`: pocket vectors when `codemap embed` stored some; `embed`: pocket).
    #[arg(long, env = "CODEMAP_EMBEDDER", default_value = "auto")]
    pub embedder: String,
    /// OpenAI-compatible embeddings endpoint base URL (e.g. http://127.0.0.1:11434/v1).
    #[arg(long, env = "CODEMAP_EMBED_URL")]
    pub embed_url: Option<String>,
    /// Model name for the embeddings endpoint.
    #[arg(long, env = "CODEMAP_EMBED_MODEL", default_value = "nomic-embed-text")]
    pub embed_model: String,
    /// Dimension of the endpoint model's vectors.
    #[arg(long, default_value_t = 768)]
    pub embed_dim: usize,
    /// Name of the environment variable holding the embeddings endpoint's API key.
    #[arg(long, default_value = "CODEMAP_EMBED_KEY")]
    pub embed_key_env: String,
}

#[derive(Args, Debug, Clone)]
pub struct EmbedArgs {
    #[command(flatten)]
    pub embedder: EmbedderArgs,
    /// Embed at most this many texts now (the rest on the next run).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Texts per model call and per committed batch.
    #[arg(long, default_value_t = 32)]
    pub batch: usize,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum DumpWhat {
    Chunks,
    Symbols,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum ExportWhat {
    Symbols,
    /// Call-graph edges: `{"caller_file","caller_symbol","callee_file","callee_symbol","line","kind"}`.
    Edges,
}

#[derive(Args, Debug, Clone)]
pub struct GraphArgs {
    /// A simple or qualified name (`deductStock`, `InventoryService.deductStock`), a symbol id,
    /// or a pseudo id (`route:POST /api/orders`, `table:t_order`, `config:order.timeout`).
    pub symbol: String,
    /// Levels to follow.
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    /// Hops shown at most.
    #[arg(short = 'n', long, default_value_t = 200)]
    pub limit: usize,
}
