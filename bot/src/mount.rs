//! The configured platforms, wired: credentials read from the environment (by the names the
//! configuration gives), each platform's router mounted and its sender built.

use crate::config::Config;
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
    let p = &config.platforms;
    if let Some(s) = &p.slack {
        need("platforms.slack.signing_secret_env", &s.signing_secret_env);
        need("platforms.slack.bot_token_env", &s.bot_token_env);
    }
    if let Some(d) = &p.discord {
        need("platforms.discord.public_key_env", &d.public_key_env);
        need(
            "platforms.discord.application_id_env",
            &d.application_id_env,
        );
        need("platforms.discord.bot_token_env", &d.bot_token_env);
    }
    if let Some(f) = &p.feishu {
        need("platforms.feishu.app_id_env", &f.app_id_env);
        need("platforms.feishu.app_secret_env", &f.app_secret_env);
        need(
            "platforms.feishu.verification_token_env",
            &f.verification_token_env,
        );
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

/// The routes of every configured platform.
///
/// TODO(bot-platforms merge): mount the platform helper's routers here, reading the secrets by
/// the configured names:
/// - `crate::platform::slack::router(slack::SlackConfig::new(&signing_secret, None)?, inbox)`
///   (`POST /slack/events`, `POST /slack/commands`);
/// - `crate::platform::discord::router(discord::DiscordConfig::new(..public_key..)?, inbox)`
///   (`POST /discord/interactions`);
/// - `crate::platform::feishu::router(feishu::FeishuConfig::new(..token, encrypt_key..)?, inbox)`
///   (`POST /feishu/events`).
///
/// Until then a configured platform is logged as not mounted and its callbacks answer 404.
pub fn routes(config: &Config, inbox: &Inbox) -> Router {
    let _ = inbox;
    let p = &config.platforms;
    for (name, configured) in [
        ("slack", p.slack.is_some()),
        ("discord", p.discord.is_some()),
        ("feishu", p.feishu.is_some()),
    ] {
        if configured {
            tracing::warn!(
                platform = name,
                "platform configured, but its adapter is not mounted in this build yet"
            );
        }
    }
    Router::new()
}

/// The senders of every configured platform.
///
/// TODO(bot-platforms merge): `slack::SlackSender::new(bot_token, api_base, hooks_base)`,
/// `discord::DiscordSender::new(api_base, bot_token)`,
/// `feishu::FeishuSender::new(api_base, app_id, app_secret)`, each as `Arc<dyn ChatSender>`.
pub fn senders(config: &Config) -> Vec<Arc<dyn ChatSender>> {
    let _ = config;
    Vec::new()
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
