//! The configured platforms, wired: credentials read from the environment (by the names the
//! configuration gives), each platform's router mounted and its sender built. A platform whose
//! settings cannot work is an error naming its config key, never a platform left out.

use crate::check::Problem;
use crate::config::{Config, Connection};
use crate::inbox::Inbox;
use crate::platform::ChatSender;
use axum::Router;
use std::sync::Arc;

/// Production Web API bases; a configuration's `api_base` replaces them (tests, proxies).
const SLACK_API: &str = "https://slack.com/api";
const SLACK_HOOKS: &str = "https://hooks.slack.com";
const DISCORD_API: &str = "https://discord.com/api/v10";
const FEISHU_API: &str = "https://open.feishu.cn";

fn env(var: &str) -> String {
    std::env::var(var).unwrap_or_default()
}

/// The config key behind an adapter's setting, so an error names what the operator edits.
fn config_key(adapter_key: &str) -> String {
    let key = match adapter_key {
        "slack.signing_secret" => "platforms.slack.signing_secret_env",
        "slack.bot_token" => "platforms.slack.bot_token_env",
        "discord.public_key" => "platforms.discord.public_key_env",
        "feishu.verification_token" => "platforms.feishu.verification_token_env",
        "feishu.encrypt_key" => "platforms.feishu.encrypt_key_env",
        "feishu.app_id" => "platforms.feishu.app_id_env",
        "feishu.app_secret" => "platforms.feishu.app_secret_env",
        other => return format!("platforms.{other}"),
    };
    key.to_string()
}

/// An adapter's refusal as a problem with its config key and the variable the value came from.
fn problem(e: crate::platform::ConfigError, var: Option<&str>) -> Problem {
    let from = var
        .map(|v| format!("the value of {v}: "))
        .unwrap_or_default();
    Problem::new(config_key(e.key), format!("{from}{}", e.problem))
}

/// Collects the problems of building each platform's part.
struct Built<T> {
    parts: Vec<T>,
    problems: Vec<Problem>,
}

impl<T> Default for Built<T> {
    fn default() -> Built<T> {
        Built {
            parts: Vec::new(),
            problems: Vec::new(),
        }
    }
}

impl<T> Built<T> {
    fn add(&mut self, r: Result<T, Problem>) {
        match r {
            Ok(t) => self.parts.push(t),
            Err(p) => self.problems.push(p),
        }
    }

    fn done(self) -> Result<Vec<T>, Vec<Problem>> {
        if self.problems.is_empty() {
            Ok(self.parts)
        } else {
            Err(self.problems)
        }
    }
}

/// The routes of every platform configured with `connection = "http"`: `POST /slack/events`,
/// `POST /slack/commands`, `POST /discord/interactions`, `POST /feishu/events`, each behind its
/// signature check. A secret that is unset or does not parse is an error naming its key.
pub fn routes(config: &Config, inbox: &Inbox) -> Result<Router, Vec<Problem>> {
    use crate::platform::{discord, feishu, slack};
    let p = &config.platforms;
    let http = |c: Connection| c == Connection::Http;
    let mut built = Built::default();
    if let Some(s) = p.slack.as_ref().filter(|s| http(s.connection)) {
        let var = s.signing_secret_env.as_deref();
        built.add(
            slack::SlackConfig::new(&var.map(env).unwrap_or_default(), None)
                .map(|c| slack::router(c, inbox.clone()))
                .map_err(|e| problem(e, var)),
        );
    }
    if let Some(d) = p.discord.as_ref().filter(|d| http(d.connection)) {
        let var = d.public_key_env.as_deref();
        built.add(
            discord::DiscordConfig::new(&var.map(env).unwrap_or_default())
                .map(|c| discord::router(c, inbox.clone()))
                .map_err(|e| problem(e, var)),
        );
    }
    if let Some(f) = p.feishu.as_ref().filter(|f| http(f.connection)) {
        let (tv, kv) = (
            f.verification_token_env.as_deref(),
            f.encrypt_key_env.as_deref(),
        );
        let token = tv.map(env).unwrap_or_default();
        let key = kv.map(env).unwrap_or_default();
        built.add(
            feishu::FeishuConfig::new(&token, &key, None)
                .map(|c| feishu::router(c, inbox.clone()))
                .map_err(|e| {
                    let var = if e.key == "feishu.encrypt_key" {
                        kv
                    } else {
                        tv
                    };
                    problem(e, var)
                }),
        );
    }
    let routers = built.done()?;
    Ok(routers.into_iter().fold(Router::new(), Router::merge))
}

/// The senders of every configured platform, each pointed at its production Web API unless the
/// configuration names another base.
pub fn senders(config: &Config) -> Result<Vec<Arc<dyn ChatSender>>, Vec<Problem>> {
    use crate::platform::{discord, feishu, slack};
    let p = &config.platforms;
    let mut built: Built<Arc<dyn ChatSender>> = Built::default();
    if let Some(s) = &p.slack {
        let api = s.api_base.as_deref().unwrap_or(SLACK_API);
        built.add(
            slack::SlackSender::new(env(&s.bot_token_env), api, SLACK_HOOKS)
                .map(|x| Arc::new(x) as Arc<dyn ChatSender>)
                .map_err(|e| problem(e, Some(&s.bot_token_env))),
        );
    }
    if let Some(d) = &p.discord {
        let api = d.api_base.as_deref().unwrap_or(DISCORD_API);
        built.add(
            discord::DiscordSender::new(api, Some(env(&d.bot_token_env)))
                .map(|x| Arc::new(x) as Arc<dyn ChatSender>)
                .map_err(|e| problem(e, None)),
        );
    }
    if let Some(f) = &p.feishu {
        let api = f.api_base.as_deref().unwrap_or(FEISHU_API);
        built.add(
            feishu::FeishuSender::new(api, &env(&f.app_id_env), &env(&f.app_secret_env))
                .map(|x| Arc::new(x) as Arc<dyn ChatSender>)
                .map_err(|e| problem(e, None)),
        );
    }
    built.done()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(platforms: &str) -> Config {
        let text = format!("[[repositories]]\nname = \"shop\"\nindex_dir = \"/x\"\n{platforms}");
        Config::parse(&text, "bot.toml").unwrap()
    }

    fn keys(r: Result<Router, Vec<Problem>>) -> Vec<String> {
        r.err()
            .unwrap_or_default()
            .iter()
            .map(|p| p.to_string())
            .collect()
    }

    #[test]
    fn a_discord_key_that_is_not_hex_stops_the_mount_naming_the_config_key() {
        // PATH holds '/', never a hex key.
        let c = config(
            "[platforms.discord]\npublic_key_env = \"PATH\"\napplication_id_env = \"PATH\"\nbot_token_env = \"PATH\"\n",
        );
        let (tx, _rx) = tokio::sync::mpsc::channel(1);
        let e = keys(routes(&c, &Inbox::new(tx)));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("platforms.discord.public_key_env: the value of PATH: not hex"),
            "{e:?}"
        );
    }

    #[test]
    fn feishu_over_http_without_an_encrypt_key_is_not_mounted() {
        let c = config(
            "[platforms.feishu]\napp_id_env = \"PATH\"\napp_secret_env = \"PATH\"\nverification_token_env = \"PATH\"\nencrypt_key_env = \"CODEMAP_TEST_MOUNT_UNSET_ENCRYPT\"\n",
        );
        let (tx, _rx) = tokio::sync::mpsc::channel(1);
        let e = keys(routes(&c, &Inbox::new(tx)));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with(
                "platforms.feishu.encrypt_key_env: the value of CODEMAP_TEST_MOUNT_UNSET_ENCRYPT: is empty"
            ),
            "{e:?}"
        );
    }

    #[test]
    fn adapter_keys_map_to_config_keys() {
        assert_eq!(
            config_key("discord.public_key"),
            "platforms.discord.public_key_env"
        );
        assert_eq!(config_key("slack.hooks_base"), "platforms.slack.hooks_base");
    }
}
