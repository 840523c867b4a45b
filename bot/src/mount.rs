//! The configured platforms, wired: credentials read from the environment (by the names the
//! configuration gives), each platform's router mounted and its sender built.

use crate::config::{Config, Connection};
use crate::inbox::Inbox;
use crate::platform::ChatSender;
use axum::Router;
use std::sync::Arc;

/// A credential the configuration names but the environment lacks.
#[derive(Debug, thiserror::Error)]
#[error("{key}: the environment variable {var} is not set")]
pub struct MissingSecret {
    pub key: String,
    pub var: String,
}

/// Reads every configured credential now, so a missing one stops the start with its key path.
pub fn check_secrets(config: &Config) -> Result<(), Vec<MissingSecret>> {
    let mut missing = Vec::new();
    let mut need = |key: &str, var: &str| {
        if std::env::var(var)
            .map(|v| v.trim().is_empty())
            .unwrap_or(true)
        {
            missing.push(MissingSecret {
                key: key.to_string(),
                var: var.to_string(),
            });
        }
    };
    for n in config.platforms.needed() {
        if let Some(var) = n.var {
            need(n.key, var);
        }
    }
    for (i, r) in config.repositories.iter().enumerate() {
        if let Some(k) = r.meilisearch.as_ref().and_then(|m| m.key_env.as_ref()) {
            need(&format!("repositories[{i}].meilisearch.key_env"), k);
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// Production Web API bases; a configuration's `api_base` replaces them (tests, proxies).
const SLACK_API: &str = "https://slack.com/api";
const SLACK_HOOKS: &str = "https://hooks.slack.com";
const DISCORD_API: &str = "https://discord.com/api/v10";
const FEISHU_API: &str = "https://open.feishu.cn";

fn env(var: &str) -> String {
    std::env::var(var).unwrap_or_default()
}

fn skip(platform: &str, e: crate::platform::ConfigError) {
    tracing::error!(platform, key = e.key, problem = %e.problem, "platform not mounted");
}

/// The routes of every configured platform: `POST /slack/events`, `POST /slack/commands`,
/// `POST /discord/interactions`, `POST /feishu/events`. Credentials are read by the names the
/// configuration gives ([`check_secrets`] ran before); a platform whose settings cannot work is
/// logged with its key and left unmounted (its callbacks answer 404).
pub fn routes(config: &Config, inbox: &Inbox) -> Router {
    use crate::platform::{discord, feishu, slack};
    let p = &config.platforms;
    let mut router = Router::new();
    if let Some(s) = p
        .slack
        .as_ref()
        .filter(|s| s.connection == Connection::Http)
    {
        let secret = s.signing_secret_env.as_deref().map(env).unwrap_or_default();
        match slack::SlackConfig::new(&secret, None) {
            Ok(c) => router = router.merge(slack::router(c, inbox.clone())),
            Err(e) => skip("slack", e),
        }
    }
    if let Some(d) = p
        .discord
        .as_ref()
        .filter(|d| d.connection == Connection::Http)
    {
        let key = d.public_key_env.as_deref().map(env).unwrap_or_default();
        match discord::DiscordConfig::new(&key) {
            Ok(c) => router = router.merge(discord::router(c, inbox.clone())),
            Err(e) => skip("discord", e),
        }
    }
    if let Some(f) = p
        .feishu
        .as_ref()
        .filter(|f| f.connection == Connection::Http)
    {
        let encrypt = f.encrypt_key_env.as_deref().map(env);
        let token = f
            .verification_token_env
            .as_deref()
            .map(env)
            .unwrap_or_default();
        match feishu::FeishuConfig::new(&token, encrypt, None) {
            Ok(c) => router = router.merge(feishu::router(c, inbox.clone())),
            Err(e) => skip("feishu", e),
        }
    }
    router
}

/// The senders of every configured platform, each pointed at its production Web API unless the
/// configuration names another base.
pub fn senders(config: &Config) -> Vec<Arc<dyn ChatSender>> {
    use crate::platform::{discord, feishu, slack};
    let p = &config.platforms;
    let mut out: Vec<Arc<dyn ChatSender>> = Vec::new();
    if let Some(s) = &p.slack {
        let api = s.api_base.as_deref().unwrap_or(SLACK_API);
        match slack::SlackSender::new(env(&s.bot_token_env), api, SLACK_HOOKS) {
            Ok(x) => out.push(Arc::new(x)),
            Err(e) => skip("slack", e),
        }
    }
    if let Some(d) = &p.discord {
        let api = d.api_base.as_deref().unwrap_or(DISCORD_API);
        match discord::DiscordSender::new(api, Some(env(&d.bot_token_env))) {
            Ok(x) => out.push(Arc::new(x)),
            Err(e) => skip("discord", e),
        }
    }
    if let Some(f) = &p.feishu {
        let api = f.api_base.as_deref().unwrap_or(FEISHU_API);
        match feishu::FeishuSender::new(api, &env(&f.app_id_env), &env(&f.app_secret_env)) {
            Ok(x) => out.push(Arc::new(x)),
            Err(e) => skip("feishu", e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_secret_names_its_key_and_variable_never_a_value() {
        let text = r#"
[[repositories]]
name = "shop"
index_dir = "/x"
[platforms.feishu]
app_id_env = "CODEMAP_TEST_UNSET_FEISHU_ID"
app_secret_env = "CODEMAP_TEST_UNSET_FEISHU_SECRET"
verification_token_env = "PATH"
encrypt_key_env = "PATH"
"#;
        let c = Config::parse(text, "bot.toml").unwrap();
        let m = check_secrets(&c).unwrap_err();
        let lines: Vec<String> = m.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            [
                "platforms.feishu.app_id_env: the environment variable CODEMAP_TEST_UNSET_FEISHU_ID is not set",
                "platforms.feishu.app_secret_env: the environment variable CODEMAP_TEST_UNSET_FEISHU_SECRET is not set",
            ]
        );
    }
}
