//! `codemap docgen serve --config FILE`: one typed TOML tree, read once at start and validated
//! whole, so a typo is an error naming its key rather than a webhook that never fires.
//! Secrets and tokens are named by environment variable, never written in the file.

use crate::host::HostKind;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

/// A configuration error, naming the key it is about.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{key}: {message}")]
    Invalid { key: String, message: String },
}

fn invalid(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        message: message.into(),
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: Server,
    /// Who the bot commits as; its commits are the only ones it will ever move a docs branch past.
    #[serde(default)]
    pub bot: Bot,
    #[serde(rename = "repo")]
    pub repos: Vec<Repo>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// Address the webhook endpoint listens on, e.g. "0.0.0.0:8787".
    pub listen: String,
    /// Folder for the bot's clones, indexes and per-repository state.
    pub state_dir: PathBuf,
    /// Largest webhook body accepted, in bytes (default 1 MiB; GitHub caps payloads at 25 MB).
    #[serde(default = "default_max_body")]
    pub max_body_bytes: usize,
}

fn default_max_body() -> usize {
    1 << 20
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bot {
    pub name: String,
    pub email: String,
    /// The trailer every bot commit carries (`<trailer>: docgen`); a commit with it is never
    /// regenerated from, which is what keeps the bot from looping on its own commits.
    #[serde(default = "default_trailer")]
    pub trailer: String,
}

fn default_trailer() -> String {
    "Codemap-Bot".into()
}

impl Default for Bot {
    fn default() -> Bot {
        Bot {
            name: "codemap-docgen".into(),
            email: "codemap-docgen@users.noreply.invalid".into(),
            trailer: default_trailer(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repo {
    /// Short name: the webhook path is `/hooks/<name>`, the state folder `<state_dir>/<name>`.
    pub name: String,
    /// Git remote URL (https, ssh or a local path) the bot clones and pushes to.
    pub remote: String,
    /// The branch whose pushes regenerate the maps.
    #[serde(default = "default_branch")]
    pub branch: String,
    /// The branch the bot commits the maps to.
    #[serde(default = "default_docs_branch")]
    pub docs_branch: String,
    /// Webhook format and pull-request API: "github" or "gitlab".
    pub host: HostKind,
    /// Environment variable holding the webhook secret (GitHub) or token (GitLab); no webhook
    /// route for this repository when absent.
    #[serde(default)]
    pub webhook_secret_env: Option<String>,
    /// Push the docs branch to the remote (otherwise the commit stays in the bot's clone).
    #[serde(default)]
    pub push: bool,
    /// Cron expression (seconds first: "0 */15 * * * *") to poll the remote.
    #[serde(default)]
    pub cron: Option<String>,
    /// Open or update one pull / merge request from the docs branch (needs `push = true`).
    #[serde(default)]
    pub pull_request: Option<PullRequest>,
    /// Comment the impact of each pull / merge request on it (needs `webhook_secret_env`).
    #[serde(default)]
    pub review: Option<Review>,
}

fn default_branch() -> String {
    "main".into()
}

fn default_docs_branch() -> String {
    "codemap/docs".into()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PullRequest {
    /// REST API base: "https://api.github.com", "https://gitlab.example.com/api/v4".
    pub api: String,
    /// "owner/repo" on GitHub; the numeric id or "group/project" path on GitLab.
    pub project: String,
    /// Environment variable holding the API token.
    pub token_env: String,
    #[serde(default = "default_title")]
    pub title: String,
}

fn default_title() -> String {
    "codemap: update code maps".into()
}

/// Review comments: request webhooks index the request's head beside the docs clone and post or
/// update one impact comment on the request. Settings come from here only, never from the
/// request's own files.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// REST API base; defaults to `pull_request.api`.
    #[serde(default)]
    pub api: Option<String>,
    /// "owner/repo" (GitHub) or the id or path (GitLab) the comments go to; defaults to
    /// `pull_request.project`.
    #[serde(default)]
    pub project: Option<String>,
    /// Environment variable holding the API token; defaults to `pull_request.token_env`.
    #[serde(default)]
    pub token_env: Option<String>,
    /// Levels of callers listed (1 to 8).
    #[serde(default = "default_review_depth")]
    pub depth: usize,
    /// Callers visited at most.
    #[serde(default = "default_review_callers")]
    pub max_callers: usize,
}

fn default_review_depth() -> usize {
    3
}

fn default_review_callers() -> usize {
    300
}

/// A repository's review settings with the defaults filled in and the token read.
#[derive(Clone)]
pub struct ResolvedReview {
    pub api: String,
    pub project: String,
    pub token: String,
    pub depth: usize,
    pub max_callers: usize,
}

/// The configuration with its environment variables read: what the server runs on.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub config: Config,
    pub listen: SocketAddr,
    /// Per repository, in `config.repos` order.
    pub repos: Vec<ResolvedRepo>,
}

#[derive(Clone)]
pub struct ResolvedRepo {
    pub webhook_secret: Option<String>,
    pub api_token: Option<String>,
    pub schedule: Option<cron::Schedule>,
    pub review: Option<ResolvedReview>,
}

impl std::fmt::Debug for ResolvedRepo {
    // Secrets stay out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedRepo")
            .field(
                "webhook_secret",
                &self.webhook_secret.as_ref().map(|_| "***"),
            )
            .field("api_token", &self.api_token.as_ref().map(|_| "***"))
            .field("schedule", &self.schedule.as_ref().map(|s| s.to_string()))
            .field(
                "review",
                &self
                    .review
                    .as_ref()
                    .map(|r| (&r.api, &r.project, r.depth, "token ***")),
            )
            .finish()
    }
}

impl Config {
    pub fn load(path: &std::path::Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Config::parse(&text).map_err(|e| match e {
            ConfigError::Parse { message, .. } => ConfigError::Parse {
                path: path.to_path_buf(),
                message,
            },
            other => other,
        })
    }

    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: PathBuf::from("config"),
            message: e.to_string(),
        })
    }

    /// Checks every key and reads the named environment variables through `env`.
    pub fn resolve(self, env: &dyn Fn(&str) -> Option<String>) -> Result<Resolved, ConfigError> {
        let listen = SocketAddr::from_str(&self.server.listen).map_err(|e| {
            invalid(
                "server.listen",
                format!("{:?} is not an address:port ({e})", self.server.listen),
            )
        })?;
        if self.server.max_body_bytes == 0 {
            return Err(invalid("server.max_body_bytes", "must be above 0"));
        }
        check_text("bot.name", &self.bot.name)?;
        if !self.bot.email.contains('@') || self.bot.email.contains(['<', '>', '\n']) {
            return Err(invalid(
                "bot.email",
                format!("{:?} is not an e-mail address", self.bot.email),
            ));
        }
        if self.bot.trailer.is_empty()
            || !self
                .bot
                .trailer
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-')
        {
            return Err(invalid(
                "bot.trailer",
                "must be a git trailer key (letters, digits, '-')",
            ));
        }
        if self.repos.is_empty() {
            return Err(invalid("repo", "at least one [[repo]] is needed"));
        }
        let mut names = BTreeSet::new();
        let mut repos = Vec::with_capacity(self.repos.len());
        for (i, r) in self.repos.iter().enumerate() {
            let key = |field: &str| format!("repo[{i}].{field}");
            if r.name.is_empty()
                || !r
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                || r.name.starts_with('.')
            {
                return Err(invalid(
                    key("name"),
                    format!("{:?}: use letters, digits, '-', '_', '.'", r.name),
                ));
            }
            if !names.insert(r.name.clone()) {
                return Err(invalid(key("name"), format!("{:?} is used twice", r.name)));
            }
            let key = |field: &str| format!("repo[{i}] ({}).{field}", r.name);
            check_text(&key("remote"), &r.remote)?;
            check_branch(&key("branch"), &r.branch)?;
            check_branch(&key("docs_branch"), &r.docs_branch)?;
            if r.branch == r.docs_branch {
                return Err(invalid(
                    key("docs_branch"),
                    "must differ from `branch` (the bot would regenerate from its own commits)",
                ));
            }
            let webhook_secret = match &r.webhook_secret_env {
                None => None,
                Some(var) => Some(read_env(env, &key("webhook_secret_env"), var)?),
            };
            let schedule = match &r.cron {
                None => None,
                // The crate's own message is a multi-line caret drawing; the field list helps more.
                Some(expr) => Some(cron::Schedule::from_str(expr).map_err(|_| {
                    invalid(
                        key("cron"),
                        format!(
                            "{expr:?} is not a cron expression ({} fields; it takes 6 or 7: \
                             sec min hour day-of-month month day-of-week [year])",
                            expr.split_whitespace().count()
                        ),
                    )
                })?),
            };
            if webhook_secret.is_none() && schedule.is_none() {
                return Err(invalid(
                    key("webhook_secret_env"),
                    "set `webhook_secret_env` or `cron` (or both): otherwise nothing triggers a job",
                ));
            }
            let api_token = match &r.pull_request {
                None => None,
                Some(pr) => {
                    if !r.push {
                        return Err(invalid(
                            key("pull_request"),
                            "needs `push = true`: a pull request needs the docs branch on the remote",
                        ));
                    }
                    if !(pr.api.starts_with("http://") || pr.api.starts_with("https://")) {
                        return Err(invalid(
                            key("pull_request.api"),
                            format!("{:?} is not an http(s) URL", pr.api),
                        ));
                    }
                    check_text(&key("pull_request.project"), &pr.project)?;
                    if r.host == HostKind::Github && pr.project.split('/').count() != 2 {
                        return Err(invalid(
                            key("pull_request.project"),
                            format!("{:?}: GitHub wants \"owner/repo\"", pr.project),
                        ));
                    }
                    check_text(&key("pull_request.title"), &pr.title)?;
                    Some(read_env(
                        env,
                        &key("pull_request.token_env"),
                        &pr.token_env,
                    )?)
                }
            };
            let review = match &r.review {
                None => None,
                Some(rv) => Some(resolve_review(rv, r, webhook_secret.is_some(), &key, env)?),
            };
            repos.push(ResolvedRepo {
                webhook_secret,
                api_token,
                schedule,
                review,
            });
        }
        Ok(Resolved {
            config: self,
            listen,
            repos,
        })
    }
}

/// `[repo.review]`: request webhooks are its only trigger, and each API setting falls back on
/// `[repo.pull_request]`'s.
fn resolve_review(
    rv: &Review,
    r: &Repo,
    has_webhook: bool,
    key: &dyn Fn(&str) -> String,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ResolvedReview, ConfigError> {
    if !has_webhook {
        return Err(invalid(
            key("review"),
            "needs `webhook_secret_env`: request webhooks are what start a review",
        ));
    }
    let pr = r.pull_request.as_ref();
    let pick = |own: &Option<String>, theirs: Option<&String>, field: &str| {
        own.clone().or_else(|| theirs.cloned()).ok_or_else(|| {
            invalid(
                key(&format!("review.{field}")),
                "must be set (here or in [repo.pull_request])",
            )
        })
    };
    let api = pick(&rv.api, pr.map(|p| &p.api), "api")?;
    let project = pick(&rv.project, pr.map(|p| &p.project), "project")?;
    let token_env = pick(&rv.token_env, pr.map(|p| &p.token_env), "token_env")?;
    if !(api.starts_with("http://") || api.starts_with("https://")) {
        return Err(invalid(
            key("review.api"),
            format!("{api:?} is not an http(s) URL"),
        ));
    }
    check_text(&key("review.project"), &project)?;
    if r.host == HostKind::Github && project.split('/').count() != 2 {
        return Err(invalid(
            key("review.project"),
            format!("{project:?}: GitHub wants \"owner/repo\""),
        ));
    }
    if !(1..=8).contains(&rv.depth) {
        return Err(invalid(
            key("review.depth"),
            format!("{} is not between 1 and 8", rv.depth),
        ));
    }
    if rv.max_callers == 0 {
        return Err(invalid(key("review.max_callers"), "must be above 0"));
    }
    Ok(ResolvedReview {
        token: read_env(env, &key("review.token_env"), &token_env)?,
        api,
        project,
        depth: rv.depth,
        max_callers: rv.max_callers,
    })
}

fn check_text(key: &str, v: &str) -> Result<(), ConfigError> {
    if v.trim().is_empty() {
        return Err(invalid(key, "must not be empty"));
    }
    if v.contains('\n') {
        return Err(invalid(key, "must be one line"));
    }
    Ok(())
}

/// The parts of `git check-ref-format --branch` a config can get wrong.
fn check_branch(key: &str, b: &str) -> Result<(), ConfigError> {
    if !valid_branch(b) {
        return Err(invalid(key, format!("{b:?} is not a valid branch name")));
    }
    Ok(())
}

/// A branch name git accepts and that cannot be read as an option or a refspec trick (also
/// applied to the base branch a request webhook names).
pub(crate) fn valid_branch(b: &str) -> bool {
    let bad = b.is_empty()
        || b.starts_with(['-', '/'])
        || b.ends_with(['/', '.'])
        || b.ends_with(".lock")
        || b.contains("..")
        || b.contains("//")
        || b.contains("@{")
        || b.chars()
            .any(|c| c.is_ascii_control() || " ~^:?*[\\".contains(c));
    !bad
}

fn read_env(
    env: &dyn Fn(&str) -> Option<String>,
    key: &str,
    var: &str,
) -> Result<String, ConfigError> {
    match env(var) {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err(invalid(
            key,
            format!("environment variable {var} is not set (or empty)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[server]
listen = "127.0.0.1:8787"
state_dir = "/var/lib/codemap"

[[repo]]
name = "shop"
remote = "https://github.com/acme/shop.git"
host = "github"
webhook_secret_env = "SHOP_SECRET"
push = true
cron = "0 */15 * * * *"

[repo.pull_request]
api = "https://api.github.com"
project = "acme/shop"
token_env = "GH_TOKEN"
"#;

    fn env(name: &str) -> Option<String> {
        match name {
            "SHOP_SECRET" => Some("s3cret".into()),
            "GH_TOKEN" => Some("ghp_x".into()),
            _ => None,
        }
    }

    fn err(text: &str) -> String {
        match Config::parse(text) {
            Err(e) => e.to_string(),
            Ok(c) => c.resolve(&env).unwrap_err().to_string(),
        }
    }

    #[test]
    fn a_good_file_resolves_with_defaults() {
        let r = Config::parse(GOOD).unwrap().resolve(&env).unwrap();
        let repo = &r.config.repos[0];
        assert_eq!(repo.branch, "main");
        assert_eq!(repo.docs_branch, "codemap/docs");
        assert_eq!(r.config.bot.trailer, "Codemap-Bot");
        assert_eq!(r.repos[0].webhook_secret.as_deref(), Some("s3cret"));
        assert_eq!(r.repos[0].api_token.as_deref(), Some("ghp_x"));
        assert!(r.repos[0].schedule.is_some());
        assert_eq!(r.config.server.max_body_bytes, 1 << 20);
        // Secrets never reach a debug print.
        assert!(!format!("{r:?}").contains("s3cret"));
    }

    #[test]
    fn an_unknown_key_is_named() {
        let e = err(&GOOD.replace("push = true", "push = true\npushh = true"));
        assert!(e.contains("unknown field `pushh`"), "{e}");
    }

    #[test]
    fn bad_values_name_their_key() {
        let cases = [
            (
                "cron = \"0 */15 * * * *\"",
                "cron = \"every day\"",
                "repo[0] (shop).cron",
            ),
            (
                "listen = \"127.0.0.1:8787\"",
                "listen = \"localhost\"",
                "server.listen",
            ),
            (
                "host = \"github\"",
                "host = \"bitbucket\"",
                "unknown variant `bitbucket`",
            ),
            (
                "push = true",
                "push = false",
                "repo[0] (shop).pull_request: needs `push = true`",
            ),
            (
                "token_env = \"GH_TOKEN\"",
                "token_env = \"NOPE\"",
                "pull_request.token_env: environment variable NOPE",
            ),
            (
                "project = \"acme/shop\"",
                "project = \"shop\"",
                "pull_request.project",
            ),
            ("name = \"shop\"", "name = \"../etc\"", "repo[0].name"),
            (
                "push = true",
                "push = true\ndocs_branch = \"main\"",
                "repo[0] (shop).docs_branch: must differ",
            ),
            (
                "push = true",
                "push = true\nbranch = \"a..b\"",
                "repo[0] (shop).branch",
            ),
        ];
        for (from, to, want) in cases {
            let e = err(&GOOD.replace(from, to));
            assert!(e.contains(want), "{to}: {e}");
        }
    }

    #[test]
    fn a_repo_with_no_trigger_is_refused() {
        let text = GOOD
            .replace("webhook_secret_env = \"SHOP_SECRET\"\n", "")
            .replace("cron = \"0 */15 * * * *\"\n", "");
        let e = err(&text);
        assert!(e.contains("nothing triggers a job"), "{e}");
    }

    #[test]
    fn the_deploy_sample_is_valid() {
        let text = include_str!("../../../deploy/docgen-serve.toml");
        let r = Config::parse(text)
            .unwrap()
            .resolve(&|_| Some("x".into()))
            .unwrap();
        assert_eq!(r.config.repos.len(), 2);
        assert_eq!(r.config.repos[1].host, HostKind::Gitlab);
    }

    #[test]
    fn review_falls_back_on_the_pull_request_api_and_names_its_keys() {
        let with = |extra: &str| format!("{GOOD}\n[repo.review]\n{extra}");
        let r = Config::parse(&with("depth = 2"))
            .unwrap()
            .resolve(&env)
            .unwrap();
        let rv = r.repos[0].review.as_ref().unwrap();
        assert_eq!(
            (rv.api.as_str(), rv.project.as_str(), rv.token.as_str()),
            ("https://api.github.com", "acme/shop", "ghp_x")
        );
        assert_eq!((rv.depth, rv.max_callers), (2, 300));
        assert!(!format!("{r:?}").contains("ghp_x"));
        let cases = [
            (
                "depth = 0",
                "repo[0] (shop).review.depth: 0 is not between 1 and 8",
            ),
            ("max_callers = 0", "repo[0] (shop).review.max_callers"),
            ("api = \"ftp://x\"", "repo[0] (shop).review.api"),
            ("project = \"shop\"", "repo[0] (shop).review.project"),
            (
                "token_env = \"NOPE\"",
                "review.token_env: environment variable NOPE",
            ),
            ("dept = 2", "unknown field `dept`"),
        ];
        for (extra, want) in cases {
            let e = err(&with(extra));
            assert!(e.contains(want), "{extra}: {e}");
        }
        // Without [repo.pull_request] the API settings are its own to give.
        let bare = GOOD.split("[repo.pull_request]").next().unwrap();
        let e = err(&format!("{bare}\n[repo.review]\n"));
        assert!(e.contains("repo[0] (shop).review.api: must be set"), "{e}");
        // Request webhooks are what start a review.
        let e = err(&with("").replace("webhook_secret_env = \"SHOP_SECRET\"\n", ""));
        assert!(
            e.contains("repo[0] (shop).review: needs `webhook_secret_env`"),
            "{e}"
        );
    }

    #[test]
    fn duplicate_names_are_refused() {
        let second = GOOD.split("[[repo]]").nth(1).unwrap();
        let e = err(&format!("{GOOD}\n[[repo]]{second}"));
        assert!(e.contains("repo[1].name: \"shop\" is used twice"), "{e}");
    }
}
