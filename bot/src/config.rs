//! The bot's configuration: one typed tree read from a TOML file once at start, validated before
//! anything listens. Secrets are never in the file: every credential is the NAME of an environment
//! variable. Errors name the key path (`scopes.slack.C123: unknown repository "shp"`).

use crate::links::LinkTemplate;
use crate::model::Platform;
use query::LlmConfig;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The scope key that DMs with the bot use, on every platform.
pub const DM: &str = "dm";

/// `codemap bot --config FILE`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Address the HTTP server listens on (platform callbacks and `/healthz`).
    #[serde(default = "default_listen")]
    pub listen: String,
    /// Folder for the bot's own state (the event-id dedupe file). Default: the system temp
    /// folder, which loses dedupe across reboots.
    #[serde(default)]
    pub state_dir: Option<PathBuf>,
    /// The repositories the bot answers from; scopes refer to them by name.
    pub repositories: Vec<RepoEntry>,
    /// Per platform: conversation id → repository names. Deny by default.
    #[serde(default)]
    pub scopes: Scopes,
    /// Platform credentials (by env-var name). A platform without a section is not served.
    #[serde(default)]
    pub platforms: Platforms,
    #[serde(default)]
    pub limits: Limits,
    /// An OpenAI-compatible endpoint for prose answers; without it answers come from the index.
    #[serde(default)]
    pub llm: Option<LlmConfig>,
    /// Several Meilisearch instances joined by Meilisearch's `network` feature: each repository
    /// on the network names its instance (`meilisearch.remote`), and the bot searches them all
    /// in one federated request through `via` (deploy/README.md, "Two instances").
    #[serde(default)]
    pub meilisearch_network: Option<MeiliNetwork>,
}

/// `[meilisearch_network]`: the instances and the one the bot asks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeiliNetwork {
    /// The instance the bot sends its federated searches to (one of `remotes`); the bot calls
    /// it with that remote's search key.
    pub via: String,
    /// Every instance by name (the names the instances know each other by).
    pub remotes: BTreeMap<String, NetworkRemote>,
}

/// One instance of the network.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkRemote {
    /// Where the other instances reach it (inside the deployment's network).
    pub url: String,
    /// Name of the environment variable holding a search key of this instance: the other
    /// instances search it with that key. Required.
    #[serde(default)]
    pub search_key_env: Option<String>,
    /// Name of the environment variable holding a key allowed to change this instance's
    /// network (its master key); only `codemap bot --join-network` reads it.
    #[serde(default)]
    pub admin_key_env: Option<String>,
}

fn default_listen() -> String {
    "127.0.0.1:8080".into()
}

/// One repository.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepoEntry {
    /// The name scopes and `repo:NAME` use.
    pub name: String,
    /// Embedded index folder (`<repo>/.codemap`). Exactly one of `index_dir` and `meilisearch`.
    #[serde(default)]
    pub index_dir: Option<PathBuf>,
    /// The repository's work tree, where HEAD is read for freshness (default: the index
    /// folder's parent).
    #[serde(default)]
    pub repo_root: Option<PathBuf>,
    #[serde(default)]
    pub meilisearch: Option<MeiliEntry>,
    /// How citations become links to the code host.
    #[serde(default)]
    pub link: LinkTemplate,
    /// Worker threads, each with its own warm reader.
    #[serde(default = "default_workers")]
    pub workers: usize,
    /// Hold the index's call graph and text in memory (read in the background after start and
    /// after each `codemap index`): about 300 MB per million lines, for answers that read only
    /// the search index. `false` reads them per question: on Meilisearch the server then searches
    /// and the bot reads only each answer's candidates, keeping what it read in caches bounded in
    /// size. Default: on, within `preload_limit_mb` (a team index over it is searched on the
    /// server: the copy answers faster and ranks as the embedded index does, bench/RESULTS.md).
    #[serde(default)]
    pub preload: Option<bool>,
    /// The most memory a preload may take, in MB, estimated from the snapshot's lines (about
    /// 0.9 GB per million lines): a larger snapshot is not copied and answers read what they
    /// need. Default: none for an embedded index, 1024 for Meilisearch.
    #[serde(default)]
    pub preload_limit_mb: Option<usize>,
}

/// [`RepoEntry::preload_limit_mb`] on Meilisearch when the entry does not say.
const MEILI_PRELOAD_LIMIT_MB: usize = 1024;

fn default_workers() -> usize {
    2
}

/// A repository published to Meilisearch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeiliEntry {
    pub url: String,
    /// Prefix of codemap's index names.
    #[serde(default = "default_prefix")]
    pub prefix: String,
    /// The repository scope name the indexer published under (default: the entry's name).
    #[serde(default)]
    pub repo: Option<String>,
    /// Name of the environment variable holding a search key (none for an open server).
    #[serde(default)]
    pub key_env: Option<String>,
    /// The instance of `[meilisearch_network]` that holds this repository (the one `codemap
    /// index --backend meilisearch` publishes it to); unset: not searched over the network.
    #[serde(default)]
    pub remote: Option<String>,
    /// Where the derived view tables and the copy of the keyword index (`search/`, one folder
    /// per snapshot) are kept, so that a restart maps them instead of reading every symbol and
    /// chunk from the server again, and the copy's pages are the page cache's, not the bot's
    /// heap. Default: `<state_dir>/views/<name>` when `state_dir` is set; else none (built in
    /// memory at each start).
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
}

fn default_prefix() -> String {
    "codemap_".into()
}

/// Conversation id → repository names, per platform. Keys: a channel id (Slack channel, Discord
/// channel, Feishu chat), a workspace id (Slack team, Discord guild, Feishu tenant) for every
/// channel of it, or `dm` for direct messages. The most specific entry wins: channel, then
/// workspace; a DM only ever matches `dm`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scopes {
    #[serde(default)]
    pub slack: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub discord: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub feishu: BTreeMap<String, Vec<String>>,
}

impl Scopes {
    pub fn of(&self, p: Platform) -> &BTreeMap<String, Vec<String>> {
        match p {
            Platform::Slack => &self.slack,
            Platform::Discord => &self.discord,
            Platform::Feishu => &self.feishu,
        }
    }
}

/// How a platform reaches the bot. The same two words on every platform.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Connection {
    /// The platform calls the bot's public HTTPS URL (Slack Events API and slash commands,
    /// Discord interactions endpoint, Feishu event callback). Needs the signing secret.
    #[default]
    Http,
    /// The bot dials out and keeps a WebSocket open (Slack Socket Mode, the Discord gateway,
    /// Feishu's long connection): no public URL needed.
    Websocket,
}

impl Connection {
    pub fn as_str(self) -> &'static str {
        match self {
            Connection::Http => "http",
            Connection::Websocket => "websocket",
        }
    }
}

/// Credentials, each the name of an environment variable.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Platforms {
    pub slack: Option<SlackCreds>,
    pub discord: Option<DiscordCreds>,
    pub feishu: Option<FeishuCreds>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlackCreds {
    /// `http`: the Events API and `/codemap` call the bot; `websocket`: Socket Mode.
    #[serde(default)]
    pub connection: Connection,
    /// Request signing secret; needed with `connection = "http"`.
    #[serde(default)]
    pub signing_secret_env: Option<String>,
    pub bot_token_env: String,
    /// App-level token (`xapp-`, `connections:write`); needed with `connection = "websocket"`.
    #[serde(default)]
    pub app_token_env: Option<String>,
    /// Web API base, `https://slack.com/api` by default; Socket Mode's WebSocket URL comes from
    /// its `apps.connections.open` (tests point it at a loopback server).
    #[serde(default)]
    pub api_base: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscordCreds {
    /// `http`: the interactions endpoint; `websocket`: the gateway (mentions and `/ask`).
    #[serde(default)]
    pub connection: Connection,
    /// The application's public key (64 hex characters); needed with `connection = "http"`.
    #[serde(default)]
    pub public_key_env: Option<String>,
    /// The application id; needed with `connection = "http"` (the gateway reads it at READY).
    #[serde(default)]
    pub application_id_env: Option<String>,
    pub bot_token_env: String,
    /// Web API base, `https://discord.com/api/v10` by default; the gateway's WebSocket URL
    /// comes from its `GET /gateway/bot`.
    #[serde(default)]
    pub api_base: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeishuCreds {
    /// `http`: the event callback; `websocket`: the long connection.
    #[serde(default)]
    pub connection: Connection,
    pub app_id_env: String,
    pub app_secret_env: String,
    /// Needed with `connection = "http"`.
    #[serde(default)]
    pub verification_token_env: Option<String>,
    /// Needed with `connection = "http"`: events arrive encrypted and signed.
    #[serde(default)]
    pub encrypt_key_env: Option<String>,
    /// Open API base, `https://open.feishu.cn` by default (`https://open.larksuite.com` for
    /// Lark); the long connection's WebSocket URL comes from its `/callback/ws/endpoint`.
    #[serde(default)]
    pub api_base: Option<String>,
}

/// Bounds of what the bot shows, keeps and accepts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Citations per answer at most.
    #[serde(default = "d_citations")]
    pub citations: usize,
    /// Questions a user may ask per minute (token bucket refill).
    #[serde(default = "d_per_minute")]
    pub questions_per_minute: u32,
    /// Questions a user may ask at once before the per-minute rate applies.
    #[serde(default = "d_burst")]
    pub burst: u32,
    /// Threads remembered for follow-ups.
    #[serde(default = "d_threads")]
    pub thread_memory: usize,
    /// Seconds a thread's last answer is remembered.
    #[serde(default = "d_thread_ttl")]
    pub thread_ttl_secs: u64,
    /// Questions waiting to be answered at most; beyond it platforms are told to retry.
    #[serde(default = "d_queue")]
    pub queue: usize,
    /// Questions answered at once.
    #[serde(default = "d_concurrency")]
    pub concurrency: usize,
    /// Hours an event id is remembered (at least 8: Feishu retries for about 7.1 h).
    #[serde(default = "d_dedupe_hours")]
    pub dedupe_hours: u64,
    /// Event ids remembered at most.
    #[serde(default = "d_dedupe_entries")]
    pub dedupe_entries: usize,
}

fn d_citations() -> usize {
    5
}
fn d_per_minute() -> u32 {
    6
}
fn d_burst() -> u32 {
    3
}
fn d_threads() -> usize {
    10_000
}
fn d_thread_ttl() -> u64 {
    3600
}
fn d_queue() -> usize {
    256
}
fn d_concurrency() -> usize {
    4
}
fn d_dedupe_hours() -> u64 {
    24
}
fn d_dedupe_entries() -> usize {
    100_000
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            citations: d_citations(),
            questions_per_minute: d_per_minute(),
            burst: d_burst(),
            thread_memory: d_threads(),
            thread_ttl_secs: d_thread_ttl(),
            queue: d_queue(),
            concurrency: d_concurrency(),
            dedupe_hours: d_dedupe_hours(),
            dedupe_entries: d_dedupe_entries(),
        }
    }
}

/// A configuration that cannot be used, with the key path that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
    /// Every problem found, one per line, each starting with its key path.
    #[error("invalid configuration:\n{}", .0.join("\n"))]
    Invalid(Vec<String>),
}

impl Config {
    /// Reads, parses and validates a file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Config::parse(&text, &path.display().to_string())
    }

    /// Parses and validates TOML text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_string(),
            message: e.to_string(),
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Every problem at once, each naming its key path.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut errs = Vec::new();
        if self.listen.parse::<std::net::SocketAddr>().is_err() {
            errs.push(format!(
                "listen: {:?} is not an address like 127.0.0.1:8080",
                self.listen
            ));
        }
        if self.repositories.is_empty() {
            errs.push("repositories: at least one repository is needed".into());
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, r) in self.repositories.iter().enumerate() {
            let at = format!("repositories[{i}]");
            if !valid_name(&r.name) {
                errs.push(format!(
                    "{at}.name: {:?} must be 1-64 letters, digits, '-', '_' or '.'",
                    r.name
                ));
            } else if !seen.insert(r.name.as_str()) {
                errs.push(format!("{at}.name: {:?} is configured twice", r.name));
            }
            match (&r.index_dir, &r.meilisearch) {
                (Some(_), Some(_)) => errs.push(format!(
                    "{at}: set either index_dir or meilisearch, not both"
                )),
                (None, None) => errs.push(format!(
                    "{at}: set index_dir (embedded index) or meilisearch"
                )),
                (None, Some(m)) => {
                    if !(m.url.starts_with("http://") || m.url.starts_with("https://")) {
                        errs.push(format!(
                            "{at}.meilisearch.url: {:?} is not an http(s) URL",
                            m.url
                        ));
                    }
                    if let Some(k) = &m.key_env {
                        check_env_name(&mut errs, &format!("{at}.meilisearch.key_env"), k);
                    }
                    if let Some(remote) = &m.remote {
                        check_remote_name(
                            &mut errs,
                            &format!("{at}.meilisearch.remote"),
                            remote,
                            self.meilisearch_network.as_ref(),
                        );
                    }
                }
                (Some(_), None) => {}
            }
            if r.workers == 0 || r.workers > 64 {
                errs.push(format!("{at}.workers: {} is not within 1..=64", r.workers));
            }
            if let Err(e) = r.link.check() {
                errs.push(format!("{at}.link: {e}"));
            }
        }
        for p in [Platform::Slack, Platform::Discord, Platform::Feishu] {
            for (key, repos) in self.scopes.of(p) {
                let at = format!("scopes.{}.{key}", p.as_str());
                if repos.is_empty() {
                    errs.push(format!(
                        "{at}: an empty list; remove the entry to deny the conversation"
                    ));
                }
                for name in repos {
                    if !self.repositories.iter().any(|r| &r.name == name) {
                        errs.push(format!("{at}: unknown repository {name:?}"));
                    }
                }
            }
        }
        for need in self.platforms.needed() {
            match need.var {
                Some(var) => check_env_name(&mut errs, need.key, var),
                None => errs.push(format!(
                    "{}: needed with {}; name the environment variable that holds it",
                    need.key, need.why
                )),
            }
        }
        if let Some(n) = &self.meilisearch_network {
            n.check(&mut errs);
        }
        let l = &self.limits;
        if l.citations == 0 || l.citations > 20 {
            errs.push(format!(
                "limits.citations: {} is not within 1..=20",
                l.citations
            ));
        }
        if l.questions_per_minute == 0 {
            errs.push("limits.questions_per_minute: must be at least 1".into());
        }
        if l.burst == 0 {
            errs.push("limits.burst: must be at least 1".into());
        }
        if l.queue == 0 {
            errs.push("limits.queue: must be at least 1".into());
        }
        if l.concurrency == 0 {
            errs.push("limits.concurrency: must be at least 1".into());
        }
        if l.dedupe_hours < 8 {
            errs.push(format!(
                "limits.dedupe_hours: {} is too short; platforms retry for up to ~7.1 h (Feishu), use at least 8",
                l.dedupe_hours
            ));
        }
        if l.dedupe_entries < 1000 {
            errs.push("limits.dedupe_entries: use at least 1000".into());
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::Invalid(errs))
        }
    }

    /// The repositories a conversation may see, in configuration order (the first is the
    /// default when a question names none). Deny by default: no entry, no repositories.
    pub fn scope_of(&self, c: &crate::model::Conversation) -> Vec<String> {
        let map = self.scopes.of(c.platform);
        let entry = if c.direct {
            map.get(DM)
        } else {
            map.get(&c.channel).or_else(|| {
                (!c.workspace.is_empty())
                    .then(|| map.get(&c.workspace))
                    .flatten()
            })
        };
        let Some(names) = entry else {
            return Vec::new();
        };
        self.repositories
            .iter()
            .filter(|r| names.contains(&r.name))
            .map(|r| r.name.clone())
            .collect()
    }

    /// `location`, with a team index's view tables kept under `state_dir` unless it names a
    /// folder of its own ([`MeiliEntry::cache_dir`]).
    fn with_view_cache(&self, location: query::IndexLocation, name: &str) -> query::IndexLocation {
        match location {
            query::IndexLocation::Meilisearch {
                config,
                cache_dir: None,
                repo_root,
            } => query::IndexLocation::Meilisearch {
                config,
                cache_dir: self.state_dir.as_ref().map(|s| s.join("views").join(name)),
                repo_root,
            },
            other => other,
        }
    }

    pub fn repo(&self, name: &str) -> Option<&RepoEntry> {
        self.repositories.iter().find(|r| r.name == name)
    }

    /// What the query service needs: locations with keys read from the environment now.
    pub fn service_repos(&self) -> Vec<query::RepoConfig> {
        self.repositories
            .iter()
            .map(|r| query::RepoConfig {
                name: r.name.clone(),
                location: self.with_view_cache(
                    r.location()
                        .expect("validated: every repository has a location"),
                    &r.name,
                ),
                workers: r.workers,
                preload: r.preload(),
                preload_limit_mb: r
                    .preload_limit_mb
                    .or(r.meilisearch.is_some().then_some(MEILI_PRELOAD_LIMIT_MB)),
            })
            .collect()
    }
}

impl RepoEntry {
    /// Whether the repository is preloaded ([`RepoEntry::preload`], by default within its limit).
    pub fn preload(&self) -> bool {
        self.preload.unwrap_or(true)
    }

    /// Where the repository's index lives, with the Meilisearch key read from the environment
    /// now; `None` when the entry names neither an index folder nor a server.
    pub fn location(&self) -> Option<query::IndexLocation> {
        match (&self.index_dir, &self.meilisearch) {
            (_, Some(m)) => Some(query::IndexLocation::Meilisearch {
                config: query::MeiliConfig::new(
                    m.url.clone(),
                    m.key_env.as_ref().and_then(|k| std::env::var(k).ok()),
                    m.prefix.clone(),
                    m.repo.clone().unwrap_or_else(|| self.name.clone()),
                ),
                cache_dir: m.cache_dir.clone(),
                repo_root: self.repo_root.clone(),
            }),
            (Some(dir), None) => Some(query::IndexLocation::Embedded {
                index_dir: dir.clone(),
                repo_root: self.repo_root.clone(),
            }),
            (None, None) => None,
        }
    }
}

/// One credential a platform's connection needs: its key, the variable it names (`None` when
/// the configuration leaves it out), and why it is needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed<'a> {
    pub key: &'static str,
    pub var: Option<&'a str>,
    pub why: &'static str,
}

impl Platforms {
    /// Every credential the configured platforms need in their connection modes.
    pub fn needed(&self) -> Vec<Needed<'_>> {
        let mut out: Vec<Needed<'_>> = Vec::new();
        let mut need = |key, var, why| out.push(Needed { key, var, why });
        const HTTP: &str = "connection = \"http\"";
        const WS: &str = "connection = \"websocket\"";
        const ALWAYS: &str = "every connection";
        if let Some(s) = &self.slack {
            need(
                "platforms.slack.bot_token_env",
                Some(s.bot_token_env.as_str()),
                ALWAYS,
            );
            match s.connection {
                Connection::Http => need(
                    "platforms.slack.signing_secret_env",
                    s.signing_secret_env.as_deref(),
                    HTTP,
                ),
                Connection::Websocket => need(
                    "platforms.slack.app_token_env",
                    s.app_token_env.as_deref(),
                    WS,
                ),
            }
        }
        if let Some(d) = &self.discord {
            need(
                "platforms.discord.bot_token_env",
                Some(d.bot_token_env.as_str()),
                ALWAYS,
            );
            if d.connection == Connection::Http {
                need(
                    "platforms.discord.public_key_env",
                    d.public_key_env.as_deref(),
                    HTTP,
                );
                need(
                    "platforms.discord.application_id_env",
                    d.application_id_env.as_deref(),
                    HTTP,
                );
            } else if let Some(a) = &d.application_id_env {
                need("platforms.discord.application_id_env", Some(a.as_str()), WS);
            }
        }
        if let Some(f) = &self.feishu {
            need(
                "platforms.feishu.app_id_env",
                Some(f.app_id_env.as_str()),
                ALWAYS,
            );
            need(
                "platforms.feishu.app_secret_env",
                Some(f.app_secret_env.as_str()),
                ALWAYS,
            );
            if f.connection == Connection::Http {
                need(
                    "platforms.feishu.verification_token_env",
                    f.verification_token_env.as_deref(),
                    HTTP,
                );
                need(
                    "platforms.feishu.encrypt_key_env",
                    f.encrypt_key_env.as_deref(),
                    HTTP,
                );
            }
        }
        out
    }
}

impl MeiliNetwork {
    /// Every problem of the section: `via` among the remotes, each remote an http(s) URL with
    /// a search key's variable named.
    fn check(&self, errs: &mut Vec<String>) {
        const AT: &str = "meilisearch_network";
        if self.remotes.is_empty() {
            errs.push(format!(
                "{AT}.remotes: name at least the instance `via` asks"
            ));
        } else if !self.remotes.contains_key(&self.via) {
            errs.push(format!(
                "{AT}.via: {:?} is not one of {AT}.remotes ({})",
                self.via,
                self.names()
            ));
        }
        for (name, r) in &self.remotes {
            let at = format!("{AT}.remotes.{name}");
            if !valid_name(name) {
                errs.push(format!(
                    "{at}: the name must be 1-64 letters, digits, '-', '_' or '.'"
                ));
            }
            if !(r.url.starts_with("http://") || r.url.starts_with("https://")) {
                errs.push(format!("{at}.url: {:?} is not an http(s) URL", r.url));
            }
            match &r.search_key_env {
                Some(k) => check_env_name(errs, &format!("{at}.search_key_env"), k),
                None => errs.push(format!(
                    "{at}.search_key_env: needed: the other instances search {name} with it; name the environment variable holding a search key of {name}"
                )),
            }
            if let Some(k) = &r.admin_key_env {
                check_env_name(errs, &format!("{at}.admin_key_env"), k);
            }
        }
    }

    fn names(&self) -> String {
        self.remotes.keys().cloned().collect::<Vec<_>>().join(", ")
    }

    /// The network as the indexer's module takes it (keys still by variable name).
    pub fn spec(&self) -> query::meili_network::NetworkSpec {
        query::meili_network::NetworkSpec {
            remotes: self
                .remotes
                .iter()
                .map(|(name, r)| {
                    (
                        name.clone(),
                        query::meili_network::RemoteSpec {
                            url: r.url.clone(),
                            search_key_env: r.search_key_env.clone().unwrap_or_default(),
                        },
                    )
                })
                .collect(),
        }
    }
}

impl Config {
    /// The federated query over repository `name`'s chunks, as the network's `via` instance
    /// runs it (`Local` when `via` holds the repository); `None` when the repository is not on
    /// the network.
    pub fn network_query(
        &self,
        name: &str,
        text: &str,
        wanted: usize,
    ) -> Option<query::meili_network::ChunkQuery> {
        let net = self.meilisearch_network.as_ref()?;
        let r = self.repo(name)?;
        let m = r.meilisearch.as_ref()?;
        let remote = m.remote.as_ref()?;
        let target = match remote == &net.via {
            true => query::meili_network::Target::Local,
            false => query::meili_network::Target::Remote(remote.clone()),
        };
        let repo = m.repo.clone().unwrap_or_else(|| r.name.clone());
        Some(query::meili_network::ChunkQuery::repository(
            target, &m.prefix, &repo, text, wanted,
        ))
    }
}

/// A repository's `meilisearch.remote` names an instance of `[meilisearch_network]`.
fn check_remote_name(errs: &mut Vec<String>, at: &str, remote: &str, net: Option<&MeiliNetwork>) {
    match net {
        None => errs.push(format!(
            "{at}: {remote:?} names a network instance, but there is no [meilisearch_network]"
        )),
        Some(n) if !n.remotes.contains_key(remote) => errs.push(format!(
            "{at}: unknown network instance {remote:?} (meilisearch_network.remotes has {})",
            n.names()
        )),
        Some(_) => {}
    }
}

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// An env-var NAME, not a secret pasted in by mistake.
fn check_env_name(errs: &mut Vec<String>, at: &str, name: &str) {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !ok {
        errs.push(format!(
            "{at}: {:?} is not an environment variable name (UPPER_CASE); put the secret in the environment and its name here",
            redact(name)
        ));
    }
}

/// Enough of a mistyped value to recognise it, never the whole (it may be a secret).
fn redact(s: &str) -> String {
    let head: String = s.chars().take(4).collect();
    if s.chars().count() > 4 {
        format!("{head}…")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Conversation;

    const GOOD: &str = r#"
listen = "127.0.0.1:9000"

[[repositories]]
name = "shop"
index_dir = "/srv/shop/.codemap"
link = { kind = "github", base = "https://github.com/acme/shop" }

[[repositories]]
name = "tomcat"
meilisearch = { url = "http://127.0.0.1:7700", key_env = "MEILI_SEARCH_KEY" }
workers = 3

[scopes.slack]
C123 = ["shop"]
T999 = ["shop", "tomcat"]
dm = ["tomcat"]

[scopes.discord]
"111" = ["tomcat", "shop"]

[platforms.slack]
signing_secret_env = "SLACK_SIGNING_SECRET"
bot_token_env = "SLACK_BOT_TOKEN"

[limits]
citations = 3
"#;

    fn conv(p: Platform, ws: &str, ch: &str, direct: bool) -> Conversation {
        Conversation {
            platform: p,
            workspace: ws.into(),
            channel: ch.into(),
            thread: None,
            user: "U1".into(),
            direct,
        }
    }

    fn errors(text: &str) -> Vec<String> {
        match Config::parse(text, "bot.toml") {
            Err(ConfigError::Invalid(e)) => e,
            other => panic!("expected validation errors, got {other:?}"),
        }
    }

    #[test]
    fn a_good_file_parses_with_defaults() {
        let c = Config::parse(GOOD, "bot.toml").unwrap();
        assert_eq!(c.listen, "127.0.0.1:9000");
        assert_eq!(c.limits.citations, 3);
        assert_eq!(c.limits.queue, 256);
        assert_eq!(c.repositories[0].workers, 2);
        assert_eq!(c.repositories[1].workers, 3);
        let svc = c.service_repos();
        assert_eq!(
            (svc[0].preload, svc[1].preload),
            (true, true),
            "preloaded unless turned off (a team index within its limit)"
        );
        assert_eq!(
            (svc[0].preload_limit_mb, svc[1].preload_limit_mb),
            (None, Some(1024))
        );
        let text = format!("state_dir = \"/var/lib/codemap\"\n{GOOD}");
        let svc = Config::parse(&text, "bot.toml").unwrap().service_repos();
        assert!(
            matches!(
                &svc[1].location,
                query::IndexLocation::Meilisearch { cache_dir: Some(d), .. }
                    if d == Path::new("/var/lib/codemap/views/tomcat")
            ),
            "a restart maps the view tables kept under the state folder"
        );
        assert!(matches!(
            &svc[1].location,
            query::IndexLocation::Meilisearch { config, .. } if config.repo == "tomcat" && config.prefix == "codemap_"
        ));
    }

    #[test]
    fn a_team_index_is_copied_only_when_asked_and_within_its_limit() {
        let text = GOOD.replace(
            "workers = 3\n",
            "workers = 3\npreload = true\npreload_limit_mb = 300\n",
        );
        let svc = Config::parse(&text, "bot.toml").unwrap().service_repos();
        assert!(svc[1].preload);
        assert_eq!(svc[1].preload_limit_mb, Some(300));
        let text = GOOD.replace(
            "index_dir = \"/srv/shop/.codemap\"\n",
            "index_dir = \"/srv/shop/.codemap\"\npreload = false\n",
        );
        let svc = Config::parse(&text, "bot.toml").unwrap().service_repos();
        assert!(!svc[0].preload, "turned off");
    }

    #[test]
    fn scopes_deny_by_default_and_the_most_specific_entry_wins() {
        let c = Config::parse(GOOD, "bot.toml").unwrap();
        // Channel entry, over its workspace's.
        assert_eq!(
            c.scope_of(&conv(Platform::Slack, "T999", "C123", false)),
            ["shop"]
        );
        // Another channel of the workspace: the workspace entry, in configuration order.
        assert_eq!(
            c.scope_of(&conv(Platform::Slack, "T999", "C555", false)),
            ["shop", "tomcat"]
        );
        // Unknown channel and workspace: nothing.
        assert!(
            c.scope_of(&conv(Platform::Slack, "T1", "C9", false))
                .is_empty()
        );
        // A DM matches only `dm`, never the workspace's channels.
        assert_eq!(
            c.scope_of(&conv(Platform::Slack, "T999", "D1", true)),
            ["tomcat"]
        );
        // Another platform's entries do not leak: Feishu has none.
        assert!(
            c.scope_of(&conv(Platform::Feishu, "T999", "C123", false))
                .is_empty()
        );
        // A Discord guild entry covers its channels; config order, not list order.
        assert_eq!(
            c.scope_of(&conv(Platform::Discord, "111", "222", false)),
            ["shop", "tomcat"]
        );
        // No DM entry on Discord: DMs see nothing.
        assert!(
            c.scope_of(&conv(Platform::Discord, "", "333", true))
                .is_empty()
        );
    }

    #[test]
    fn the_sample_deployment_file_is_valid() {
        let c = Config::parse(include_str!("../../deploy/bot.toml"), "deploy/bot.toml").unwrap();
        assert_eq!(c.repositories.len(), 2);
        assert!(c.platforms.slack.is_some() && c.platforms.feishu.is_some());
        let n = Config::parse(
            include_str!("../../deploy/bot.network.toml"),
            "deploy/bot.network.toml",
        )
        .unwrap();
        let net = n.meilisearch_network.as_ref().unwrap();
        assert_eq!((net.via.as_str(), net.remotes.len()), ("a", 2));
        assert!(n.network_query("bank", "x", 1).is_some());
    }

    #[test]
    fn an_unknown_repository_in_a_scope_names_the_key() {
        let text = GOOD.replace("C123 = [\"shop\"]", "C123 = [\"shp\"]");
        assert_eq!(
            errors(&text),
            ["scopes.slack.C123: unknown repository \"shp\""]
        );
    }

    #[test]
    fn unknown_keys_are_refused_with_their_place() {
        let text = GOOD.replace("citations = 3", "citations = 3\ncitation = 4");
        let err = Config::parse(&text, "bot.toml").unwrap_err().to_string();
        assert!(err.starts_with("bot.toml: "), "{err}");
        assert!(err.contains("unknown field `citation`"), "{err}");
        let text = GOOD.replace("workers = 3", "workers = 3\nindex = \"x\"");
        let err = Config::parse(&text, "bot.toml").unwrap_err().to_string();
        assert!(err.contains("unknown field `index`"), "{err}");
    }

    #[test]
    fn every_problem_is_reported_at_once_with_its_path() {
        let text = r#"
listen = "nowhere"
[[repositories]]
name = "shop"
[[repositories]]
name = "shop"
index_dir = "/a"
meilisearch = { url = "ftp://x" }
workers = 0
link = { kind = "github", base = "javascript:alert(1)" }
[scopes.feishu]
oc_1 = []
[platforms.slack]
signing_secret_env = "8f3a9c0d1e2b"
bot_token_env = "xoxb-123-456"
[limits]
dedupe_hours = 1
citations = 0
"#;
        let e = errors(text);
        let want = [
            "listen: \"nowhere\" is not an address like 127.0.0.1:8080",
            "repositories[0]: set index_dir (embedded index) or meilisearch",
            "repositories[1].name: \"shop\" is configured twice",
            "repositories[1]: set either index_dir or meilisearch, not both",
            "repositories[1].workers: 0 is not within 1..=64",
            "scopes.feishu.oc_1: an empty list; remove the entry to deny the conversation",
            "limits.citations: 0 is not within 1..=20",
        ];
        for w in want {
            assert!(e.iter().any(|x| x == w), "missing {w:?} in {e:#?}");
        }
        assert!(
            e.iter().any(|x| x.starts_with("repositories[1].link: ")),
            "{e:#?}"
        );
        assert!(
            e.iter()
                .any(|x| x.starts_with("limits.dedupe_hours: 1 is too short"))
        );
        // A secret pasted where its variable's name belongs is refused and not echoed whole.
        let slack: Vec<&String> = e
            .iter()
            .filter(|x| x.starts_with("platforms.slack"))
            .collect();
        assert_eq!(slack.len(), 2, "{e:#?}");
        assert!(
            slack
                .iter()
                .all(|x| !x.contains("8f3a9c0d1e2b") && !x.contains("xoxb-123-456"))
        );
    }

    const NETWORK: &str = r#"
[[repositories]]
name = "shop"
meilisearch = { url = "http://127.0.0.1:7701", key_env = "MEILI_A_SEARCH_KEY", remote = "a" }

[[repositories]]
name = "bank"
meilisearch = { url = "http://127.0.0.1:7702", key_env = "MEILI_B_SEARCH_KEY", remote = "b", repo = "bank-core" }

[meilisearch_network]
via = "a"
remotes.a = { url = "http://meili-a:7700", search_key_env = "MEILI_A_SEARCH_KEY", admin_key_env = "MEILI_A_MASTER_KEY" }
remotes.b = { url = "http://meili-b:7700", search_key_env = "MEILI_B_SEARCH_KEY" }
"#;

    #[test]
    fn a_network_config_gives_each_repository_its_federated_query() {
        use query::meili_network::Target;
        let c = Config::parse(NETWORK, "bot.toml").unwrap();
        let shop = c.network_query("shop", "order", 7).unwrap();
        assert_eq!(shop.target, Target::Local, "via holds shop");
        assert_eq!(shop.index_uid, "codemap_chunks");
        assert_eq!(shop.filter.as_deref(), Some(r#"repo = "shop""#));
        let bank = c.network_query("bank", "order", 7).unwrap();
        assert_eq!(bank.target, Target::Remote("b".into()));
        assert_eq!(bank.filter.as_deref(), Some(r#"repo = "bank-core""#));
        assert_eq!(bank.wanted, 7);
        let spec = c.meilisearch_network.as_ref().unwrap().spec();
        assert_eq!(spec.remotes["b"].search_key_env, "MEILI_B_SEARCH_KEY");
        assert!(
            Config::parse(GOOD, "bot.toml")
                .unwrap()
                .network_query("tomcat", "x", 1)
                .is_none()
        );
    }

    #[test]
    fn a_network_that_cannot_work_is_refused() {
        let bad = NETWORK
            .replace(r#"via = "a""#, r#"via = "c""#)
            .replace(r#"remote = "b""#, r#"remote = "z""#)
            .replace(r#", search_key_env = "MEILI_B_SEARCH_KEY" }"#, " }");
        let e = errors(&bad);
        let want = [
            "meilisearch_network.via: \"c\" is not one of meilisearch_network.remotes (a, b)",
            "repositories[1].meilisearch.remote: unknown network instance \"z\" (meilisearch_network.remotes has a, b)",
            "meilisearch_network.remotes.b.search_key_env: needed: the other instances search b with it; name the environment variable holding a search key of b",
        ];
        for w in want {
            assert!(e.iter().any(|x| x == w), "missing {w:?} in {e:#?}");
        }
        let orphan = NETWORK.split("[meilisearch_network]").next().unwrap();
        assert_eq!(
            errors(orphan),
            [
                "repositories[0].meilisearch.remote: \"a\" names a network instance, but there is no [meilisearch_network]",
                "repositories[1].meilisearch.remote: \"b\" names a network instance, but there is no [meilisearch_network]",
            ]
        );
    }
}
