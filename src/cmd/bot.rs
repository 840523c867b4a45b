//! `codemap bot --config FILE`: the team bot's server, until SIGTERM or ctrl-c. `--check` proves
//! the configuration works (the same proof the start makes) and says what it proved;
//! `--join-network` joins the Meilisearch instances of `[meilisearch_network]`.

use super::Outcome;
use crate::cli::BotArgs;
use anyhow::{Context, Result, anyhow};

pub fn bot(a: &BotArgs) -> Result<Outcome> {
    let config = bot::Config::load(&a.config)
        .with_context(|| format!("the bot configuration {} is not usable", a.config.display()))?;
    let refused = |lines: Vec<String>| {
        anyhow!(
            "{} cannot work:\n{}\nfix each key named above in {} (or export the variable it names)",
            a.config.display(),
            lines.join("\n"),
            a.config.display()
        )
    };
    if a.join_network {
        let lines = bot::network::join(&config)
            .map_err(|p| refused(p.iter().map(|p| p.to_string()).collect()))?;
        println!("{}: the Meilisearch network is joined", a.config.display());
        for line in lines {
            println!("  {line}");
        }
        return Ok(Outcome::Done);
    }
    if a.check {
        let proof = bot::check::prove(&config)
            .map_err(|p| refused(p.iter().map(|p| p.to_string()).collect()))?;
        println!("{}: the configuration works", a.config.display());
        for line in proof.lines() {
            println!("  {line}");
        }
        println!("  listening on {} when started", config.listen);
        return Ok(Outcome::Done);
    }
    if config.repositories.iter().any(|r| r.meilisearch.is_some()) {
        crate::team_index_allocator();
    }
    match bot::run(config) {
        Ok(()) => Ok(Outcome::Done),
        Err(bot::server::ServeError::Check(p)) => {
            Err(refused(p.iter().map(|p| p.to_string()).collect()))
        }
        Err(e) => Err(anyhow!(e).context("the bot stopped with an error")),
    }
}
