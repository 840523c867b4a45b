//! `codemap bot register-commands --config FILE`: registers `/ask` with Discord, for teams that
//! want the command before (or without) starting the gateway.

use super::Outcome;
use crate::cli::BotRegisterArgs;
use anyhow::{Context, Result, anyhow, bail};

pub fn register_commands(a: &BotRegisterArgs) -> Result<Outcome> {
    let config = bot::Config::load(&a.config)
        .with_context(|| format!("the bot configuration {} is not usable", a.config.display()))?;
    let d = config.platforms.discord.as_ref().ok_or_else(|| {
        anyhow!(
            "{} has no [platforms.discord]: nothing to register",
            a.config.display()
        )
    })?;
    let token = set_var("platforms.discord.bot_token_env", &d.bot_token_env)?;
    let app = match d.application_id_env.as_deref() {
        Some(var) => Some(set_var("platforms.discord.application_id_env", var)?),
        None => None,
    };
    let api = d
        .api_base
        .as_deref()
        .unwrap_or(bot::platform::discord::API_BASE);
    let app = bot::platform::discord::register::register_ask(api, &token, app.as_deref())
        .with_context(|| {
            format!("Discord refused the /ask registration (check platforms.discord.bot_token_env and the application id) at {api}")
        })?;
    println!("registered /ask for Discord application {app}");
    Ok(Outcome::Done)
}

/// The value of the variable a config key names; unset or empty is an error naming the key.
fn set_var(key: &str, var: &str) -> Result<String> {
    match std::env::var(var) {
        Ok(v) if !v.trim().is_empty() => Ok(v),
        _ => bail!("{key}: the environment variable {var} is not set"),
    }
}
