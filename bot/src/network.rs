//! `[meilisearch_network]` at the edge: joining the instances into one network
//! (`codemap bot --join-network`), and proving at start that one federated search through `via`
//! reaches every repository on it. Problems name their config keys; keys are read from the
//! environment and never shown.

use crate::check::Problem;
use crate::config::{Config, MeiliNetwork};
use query::meili_network::{self as net, Endpoint, Remote};
use std::collections::BTreeMap;

const AT: &str = "meilisearch_network";

/// The remotes with their search keys, or a problem per missing key.
fn remotes(n: &MeiliNetwork) -> Result<BTreeMap<String, Remote>, Vec<Problem>> {
    n.spec().resolve(env).map_err(|errs| {
        errs.into_iter()
            .map(|e| {
                let key = match &e {
                    net::NetworkError::MissingKey { remote, .. } => {
                        format!("{AT}.remotes.{remote}.search_key_env")
                    }
                    _ => AT.to_string(),
                };
                Problem::new(key, e.to_string())
            })
            .collect()
    })
}

fn env(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}

/// Makes every instance of the network a member of it (the `network` feature on, `self`, every
/// remote), each with its admin key (`admin_key_env`). One line per instance joined. Blocking.
pub fn join(config: &Config) -> Result<Vec<String>, Vec<Problem>> {
    let Some(n) = &config.meilisearch_network else {
        return Err(vec![Problem::new(
            AT,
            "no [meilisearch_network] in the configuration: nothing to join",
        )]);
    };
    let remotes = remotes(n)?;
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    for (name, r) in &n.remotes {
        let at = format!("{AT}.remotes.{name}");
        let Some(var) = &r.admin_key_env else {
            problems.push(Problem::new(
                format!("{at}.admin_key_env"),
                format!(
                    "needed to change {name}'s network: name the variable holding its master key"
                ),
            ));
            continue;
        };
        let Some(key) = env(var) else {
            problems.push(Problem::new(
                format!("{at}.admin_key_env"),
                format!("the environment variable {var} is not set"),
            ));
            continue;
        };
        let admin = Endpoint {
            url: r.url.clone(),
            key: Some(key),
        };
        match net::configure(&admin, name, &remotes) {
            Ok(names) => lines.push(format!(
                "instance {name} ({}): network feature on, remotes {}",
                r.url,
                names.join(", ")
            )),
            Err(e) => problems.push(Problem::new(format!("{at}.url"), e.to_string())),
        }
    }
    if problems.is_empty() {
        Ok(lines)
    } else {
        Err(problems)
    }
}

/// The instance the bot sends its federated searches to, with its search key read now; `None`
/// without `[meilisearch_network]`. Pass it to [`net::federated_chunks`] with
/// [`Config::network_query`]'s queries.
pub fn via(config: &Config) -> Result<Option<Endpoint>, Vec<Problem>> {
    let Some(n) = &config.meilisearch_network else {
        return Ok(None);
    };
    let remotes = remotes(n)?;
    let via = remotes.get(&n.via).ok_or_else(|| {
        vec![Problem::new(
            format!("{AT}.via"),
            format!("{:?} is not one of the remotes", n.via),
        )]
    })?;
    Ok(Some(Endpoint {
        url: via.url.clone(),
        key: Some(via.search_key.clone()),
    }))
}

/// One federated search through `via` over every repository on the network (one hit each):
/// every instance must answer. One line saying what was reached.
pub fn prove(config: &Config) -> Result<Option<String>, Vec<Problem>> {
    let (Some(n), Some(endpoint)) = (&config.meilisearch_network, via(config)?) else {
        return Ok(None);
    };
    let names: Vec<&str> = config
        .repositories
        .iter()
        .filter(|r| r.meilisearch.as_ref().is_some_and(|m| m.remote.is_some()))
        .map(|r| r.name.as_str())
        .collect();
    let queries: Vec<net::ChunkQuery> = names
        .iter()
        .filter_map(|name| config.network_query(name, "", 1))
        .collect();
    let hint = "run `codemap bot --config FILE --join-network` once the instances are up";
    let got = net::federated_chunks(&endpoint, &queries)
        .map_err(|e| vec![Problem::new(format!("{AT}.via"), format!("{e} ({hint})"))])?;
    let failed: Vec<Problem> = got
        .failed
        .iter()
        .map(|(name, f)| {
            Problem::new(
                format!("{AT}.remotes.{name}"),
                format!("searched through {}: {} ({})", n.via, f.message, f.code),
            )
        })
        .collect();
    if !failed.is_empty() {
        return Err(failed);
    }
    Ok(Some(format!(
        "meilisearch network: one federated search through {} reached {} ({})",
        n.via,
        n.remotes.keys().cloned().collect::<Vec<_>>().join(", "),
        names.join(", ")
    )))
}
