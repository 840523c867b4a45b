//! `codemap bot --config FILE`: the team bot's server, until SIGTERM or ctrl-c.

use super::Outcome;
use crate::cli::BotArgs;
use anyhow::{Context, Result, bail};

pub fn bot(a: &BotArgs) -> Result<Outcome> {
    let config = bot::Config::load(&a.config)
        .with_context(|| format!("the bot configuration {} is not usable", a.config.display()))?;
    if let Err(missing) = bot::mount::check_secrets(&config) {
        let lines: Vec<String> = missing.iter().map(|m| m.to_string()).collect();
        bail!(
            "{}\nexport each variable (or fix its name in {})",
            lines.join("\n"),
            a.config.display()
        );
    }
    if a.check {
        println!(
            "{}: {} repositories, listening on {} when started",
            a.config.display(),
            config.repositories.len(),
            config.listen
        );
        return Ok(Outcome::Done);
    }
    bot::run(config).context("the bot stopped with an error")?;
    Ok(Outcome::Done)
}
