//! Past one machine: several Meilisearch instances joined by Meilisearch's `network` feature,
//! each owning some repositories, searched together through one of them.
//!
//! Two things live here: [`configure`] sets an instance's network from codemap's configuration
//! (the `network` experimental feature on, `self`, every remote with its search key), and
//! [`federated_chunks`] runs one federated `/multi-search` whose queries may name a remote, and
//! splits the merged hits back per query.
//!
//! What the server does (Meilisearch 1.50 community edition, observed on loopback; the
//! exchanges are in deploy/README.md, "Two instances"):
//! - A federated search has ONE limit (`federation.limit`); per-query limits are refused. The
//!   merged list is ordered by weighted ranking score, so one query with many good hits can
//!   crowd out another. [`federated_chunks`] asks for the sum of the wanted counts, and asks
//!   again, in a further round, for the queries that got fewer than they wanted while the merged
//!   list was full (the list was cut, so they may have more). A full list holds at least one
//!   query's wanted count, so every round completes one query at least; a list that is not full
//!   holds every hit of every query.
//! - A document found by several queries on the same instance and index comes back ONCE,
//!   credited to the query where it scored best. Queries over disjoint documents (one query per
//!   repository: the `repo` filter) never collide; queries over the same documents (the words of
//!   one question on one repository) share their hits out.
//! - A remote that fails does not fail the request: its queries have no hits and
//!   `remoteErrors` names it (`{"b": {"message", "code", "type", "link"}}`; a stopped instance
//!   is `remote_could_not_send_request`, a wrong key `remote_invalid_api_key`, a missing index
//!   `remote_bad_request`). An unknown remote name, or a missing index on the instance asked,
//!   fails the whole request (HTTP 400).
//! - Per-query hit counts are not reported in federation (only one estimate for the merged list).

use super::quote;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

/// Longest wait for one request to the instance asked (it waits for its remotes in turn).
const TIMEOUT: Duration = Duration::from_secs(30);
/// The attributes a chunk hit carries back.
const HIT_FIELDS: [&str; 2] = ["chunk_id", "path"];

#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// A remote of the configuration has no search key in the environment: it would fail every
    /// query sent to it, so nothing starts without it.
    #[error(
        "network remote {remote:?}: the environment variable {var} (its search key) is not set"
    )]
    MissingKey { remote: String, var: String },
    /// The configuration names a `self` that is not one of its remotes.
    #[error("network: self {0:?} is not one of the remotes")]
    UnknownSelf(String),
    #[error("Meilisearch at {url} did not answer: {message}")]
    Unreachable { url: String, message: String },
    #[error("Meilisearch at {url} refused {what} (HTTP {status}, {code}): {message}")]
    Refused {
        url: String,
        what: &'static str,
        status: u16,
        code: String,
        message: String,
    },
    #[error("Meilisearch at {url} answered {what} with something unexpected: {message}")]
    BadAnswer {
        url: String,
        what: &'static str,
        message: String,
    },
}

impl From<NetworkError> for crate::store::StoreError {
    fn from(e: NetworkError) -> Self {
        crate::store::StoreError::Backend(e.to_string())
    }
}

/// One remote as codemap's configuration names it: where it is and which environment variable
/// holds the search key the other instances use to query it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSpec {
    pub url: String,
    pub search_key_env: String,
}

/// A network as configured: every instance by name. The same list is given to every instance,
/// each with itself as `self`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetworkSpec {
    pub remotes: BTreeMap<String, RemoteSpec>,
}

/// A remote with its search key read.
#[derive(Clone, PartialEq, Eq)]
pub struct Remote {
    pub url: String,
    pub search_key: String,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("url", &self.url)
            .field("search_key", &"<redacted>")
            .finish()
    }
}

impl NetworkSpec {
    /// The remotes with their keys read through `env` (`std::env::var(..).ok()` in the
    /// binary). Every missing or empty key is an error: a remote is never dropped silently.
    pub fn resolve(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<BTreeMap<String, Remote>, Vec<NetworkError>> {
        let mut out = BTreeMap::new();
        let mut errs = Vec::new();
        for (name, r) in &self.remotes {
            match env(&r.search_key_env).filter(|k| !k.trim().is_empty()) {
                Some(key) => {
                    out.insert(
                        name.clone(),
                        Remote {
                            url: r.url.clone(),
                            search_key: key,
                        },
                    );
                }
                None => errs.push(NetworkError::MissingKey {
                    remote: name.clone(),
                    var: r.search_key_env.clone(),
                }),
            }
        }
        if errs.is_empty() { Ok(out) } else { Err(errs) }
    }
}

/// An instance to call, and the key to call it with (`None`: an open server).
#[derive(Clone)]
pub struct Endpoint {
    pub url: String,
    pub key: Option<String>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// The body of `PATCH /network` that makes an instance `self_name` of `remotes`: `current` is
/// the instance's remote names now, the ones no longer configured are removed (`null`).
pub fn network_patch(
    self_name: &str,
    remotes: &BTreeMap<String, Remote>,
    current: &[String],
) -> Value {
    let mut map = serde_json::Map::new();
    for name in current {
        if !remotes.contains_key(name) {
            map.insert(name.clone(), Value::Null);
        }
    }
    for (name, r) in remotes {
        map.insert(
            name.clone(),
            json!({ "url": r.url, "searchApiKey": r.search_key }),
        );
    }
    json!({ "self": self_name, "remotes": map })
}

/// Makes the instance at `admin` the member `self_name` of `remotes`: turns the `network`
/// experimental feature on, then sets `self` and every remote, removing remotes it had that the
/// configuration no longer names. Idempotent. `admin` needs a key allowed to update
/// experimental features and the network (the master key). Returns the remote names the
/// instance reports afterwards.
pub fn configure(
    admin: &Endpoint,
    self_name: &str,
    remotes: &BTreeMap<String, Remote>,
) -> Result<Vec<String>, NetworkError> {
    if !remotes.contains_key(self_name) {
        return Err(NetworkError::UnknownSelf(self_name.to_string()));
    }
    let http = Http::new(admin)?;
    http.call(
        "the network feature",
        reqwest::Method::PATCH,
        "/experimental-features",
        Some(&json!({ "network": true })),
    )?;
    let now = http.call("the network", reqwest::Method::GET, "/network", None)?;
    let current: Vec<String> = now["remotes"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let after = http.call(
        "the network update",
        reqwest::Method::PATCH,
        "/network",
        Some(&network_patch(self_name, remotes, &current)),
    )?;
    Ok(after["remotes"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default())
}

/// Where a query runs: on the instance asked, or on one of its network's remotes (by name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Local,
    Remote(String),
}

/// One keyword search over a chunk index, for up to `wanted` hits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkQuery {
    pub target: Target,
    /// The chunk index on that instance (`<prefix>chunks`).
    pub index_uid: String,
    /// The words; empty: every chunk the filter lets through, unranked.
    pub text: String,
    pub wanted: usize,
    /// A Meilisearch filter expression (`repo = "shop"`), if any.
    pub filter: Option<String>,
}

impl ChunkQuery {
    /// The query over repository `repo`'s chunks in codemap's indexes under `prefix` (the
    /// layout [`super::MeiliStore::publish`] writes) on `target`.
    pub fn repository(
        target: Target,
        prefix: &str,
        repo: &str,
        text: impl Into<String>,
        wanted: usize,
    ) -> ChunkQuery {
        ChunkQuery {
            target,
            index_uid: format!("{prefix}chunks"),
            text: text.into(),
            wanted,
            filter: Some(format!("repo = {}", quote(repo))),
        }
    }
}

/// One hit: the chunk, its file, and the score the server ranked it by (0..=1).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHit {
    pub chunk_id: String,
    pub path: String,
    pub score: f64,
}

/// A remote that failed, as the instance asked reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteFailure {
    /// Meilisearch's error code (`remote_could_not_send_request`, `remote_invalid_api_key`, …).
    pub code: String,
    pub message: String,
}

/// What [`federated_chunks`] found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FederatedHits {
    /// Per query, in the order given: its hits, best first, at most its `wanted`.
    pub per_query: Vec<Vec<ChunkHit>>,
    /// Remotes that failed, by name; their queries have no hits. Empty when all answered.
    pub failed: BTreeMap<String, RemoteFailure>,
    /// Requests sent (1, or more when the one limit cut some query's list short).
    pub requests: usize,
}

impl FederatedHits {
    /// Whether query `i`'s list is missing because its remote failed.
    pub fn query_failed(&self, queries: &[ChunkQuery], i: usize) -> bool {
        matches!(&queries[i].target, Target::Remote(r) if self.failed.contains_key(r))
    }
}

/// The body of one federated `/multi-search` over `queries` (positions in the request follow
/// `queries`): one global limit, the sum of the wanted counts.
pub fn federated_body(queries: &[&ChunkQuery]) -> Value {
    let limit: usize = queries.iter().map(|q| q.wanted).sum();
    let list: Vec<Value> = queries
        .iter()
        .map(|q| {
            let mut v = json!({
                "indexUid": q.index_uid,
                "attributesToRetrieve": HIT_FIELDS,
                "showRankingScore": true,
            });
            if !q.text.is_empty() {
                v["q"] = json!(q.text);
            }
            if let Some(f) = &q.filter {
                v["filter"] = json!(f);
            }
            if let Target::Remote(r) = &q.target {
                v["federationOptions"] = json!({ "remote": r });
            }
            v
        })
        .collect();
    json!({ "federation": { "limit": limit }, "queries": list })
}

#[derive(Deserialize)]
struct Answer {
    hits: Vec<RawHit>,
    #[serde(default, rename = "remoteErrors")]
    remote_errors: Option<BTreeMap<String, RawError>>,
}

#[derive(Deserialize)]
struct RawHit {
    #[serde(default)]
    chunk_id: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(rename = "_federation")]
    federation: RawFederation,
    #[serde(default, rename = "_rankingScore")]
    ranking_score: Option<f64>,
}

#[derive(Deserialize)]
struct RawFederation {
    #[serde(rename = "queriesPosition")]
    queries_position: usize,
    #[serde(default, rename = "weightedRankingScore")]
    weighted: Option<f64>,
}

#[derive(Deserialize)]
struct RawError {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
}

/// One request's answer split per request position (`n` queries): hits best first, and the
/// failed remotes. Hits without a chunk id or path (not codemap's documents) are skipped.
fn split(answer: Answer, n: usize) -> (Vec<Vec<ChunkHit>>, BTreeMap<String, RemoteFailure>) {
    let mut per: Vec<Vec<ChunkHit>> = vec![Vec::new(); n];
    for h in answer.hits {
        let (Some(chunk_id), Some(path)) = (h.chunk_id, h.path) else {
            continue;
        };
        if let Some(list) = per.get_mut(h.federation.queries_position) {
            list.push(ChunkHit {
                chunk_id,
                path,
                score: h.ranking_score.or(h.federation.weighted).unwrap_or(0.0),
            });
        }
    }
    let failed = answer
        .remote_errors
        .unwrap_or_default()
        .into_iter()
        .map(|(name, e)| {
            (
                name,
                RemoteFailure {
                    code: e.code,
                    message: e.message,
                },
            )
        })
        .collect();
    (per, failed)
}

/// Which of the asked queries (`asked`, indexes into the caller's list) need another round: the
/// merged list was full (`returned == limit`), so a query with fewer hits than it wanted may
/// have been cut; one whose remote failed is done.
fn short_of(
    queries: &[ChunkQuery],
    asked: &[usize],
    got: &[Vec<ChunkHit>],
    returned: usize,
    failed: &BTreeMap<String, RemoteFailure>,
) -> Vec<usize> {
    let limit: usize = asked.iter().map(|&i| queries[i].wanted).sum();
    if returned < limit {
        return Vec::new();
    }
    asked
        .iter()
        .zip(got)
        .filter(|(i, hits)| {
            let q = &queries[**i];
            let dead = matches!(&q.target, Target::Remote(r) if failed.contains_key(r));
            !dead && hits.len() < q.wanted
        })
        .map(|(i, _)| *i)
        .collect()
}

/// Runs `queries` as federated multi-searches through the instance `via` (the instance the bot
/// asks; remotes are those of its network), and returns each query's hits. One request when no
/// list was cut by the global limit; otherwise further rounds for the cut queries only (at most
/// one round per query). A remote that fails is reported in [`FederatedHits::failed`], never an
/// error; the instance `via` failing, or refusing the request (a remote name it does not know, an
/// index it lacks), is.
pub fn federated_chunks(
    via: &Endpoint,
    queries: &[ChunkQuery],
) -> Result<FederatedHits, NetworkError> {
    let http = Http::new(via)?;
    let mut out = FederatedHits {
        per_query: vec![Vec::new(); queries.len()],
        ..FederatedHits::default()
    };
    let mut pending: Vec<usize> = (0..queries.len())
        .filter(|&i| queries[i].wanted > 0)
        .collect();
    while !pending.is_empty() && out.requests < queries.len() {
        let asked: Vec<&ChunkQuery> = pending.iter().map(|&i| &queries[i]).collect();
        let value = http.call(
            "a federated search",
            reqwest::Method::POST,
            "/multi-search",
            Some(&federated_body(&asked)),
        )?;
        out.requests += 1;
        let answer: Answer =
            serde_json::from_value(value).map_err(|e| NetworkError::BadAnswer {
                url: via.url.clone(),
                what: "a federated search",
                message: e.to_string(),
            })?;
        let returned = answer.hits.len();
        let (got, failed) = split(answer, pending.len());
        out.failed.extend(failed);
        let next = short_of(queries, &pending, &got, returned, &out.failed);
        for (&i, mut hits) in pending.iter().zip(got) {
            hits.truncate(queries[i].wanted);
            out.per_query[i] = hits;
        }
        pending = next;
    }
    Ok(out)
}

/// A blocking JSON client of one instance.
struct Http<'a> {
    endpoint: &'a Endpoint,
    client: reqwest::blocking::Client,
}

impl<'a> Http<'a> {
    fn new(endpoint: &'a Endpoint) -> Result<Http<'a>, NetworkError> {
        let client = reqwest::blocking::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| NetworkError::Unreachable {
                url: endpoint.url.clone(),
                message: e.to_string(),
            })?;
        Ok(Http { endpoint, client })
    }

    fn call(
        &self,
        what: &'static str,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, NetworkError> {
        let url = self.endpoint.url.trim_end_matches('/');
        let mut req = self.client.request(method, format!("{url}{path}"));
        if let Some(k) = &self.endpoint.key {
            req = req.bearer_auth(k);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let res = req.send().map_err(|e| NetworkError::Unreachable {
            url: url.to_string(),
            message: e.to_string(),
        })?;
        let status = res.status();
        let value: Value = res.json().unwrap_or(Value::Null);
        if !status.is_success() {
            return Err(NetworkError::Refused {
                url: url.to_string(),
                what,
                status: status.as_u16(),
                code: value["code"].as_str().unwrap_or("").to_string(),
                message: value["message"].as_str().unwrap_or("").to_string(),
            });
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(target: Target, repo: &str, text: &str, wanted: usize) -> ChunkQuery {
        ChunkQuery::repository(target, "codemap_", repo, text, wanted)
    }

    #[test]
    fn the_request_names_remotes_filters_and_one_limit_summing_the_wanted_counts() {
        let a = q(Target::Local, "shop", "order status", 5);
        let b = q(Target::Remote("b".into()), "bank", "", 3);
        let body = federated_body(&[&a, &b]);
        assert_eq!(
            body,
            json!({
                "federation": { "limit": 8 },
                "queries": [
                    {
                        "indexUid": "codemap_chunks",
                        "q": "order status",
                        "filter": "repo = \"shop\"",
                        "attributesToRetrieve": ["chunk_id", "path"],
                        "showRankingScore": true,
                    },
                    {
                        "indexUid": "codemap_chunks",
                        "filter": "repo = \"bank\"",
                        "attributesToRetrieve": ["chunk_id", "path"],
                        "showRankingScore": true,
                        "federationOptions": { "remote": "b" },
                    },
                ]
            })
        );
    }

    /// A merged answer as Meilisearch 1.50 sends it (remote `b` stopped).
    fn answer() -> Answer {
        serde_json::from_value(json!({
            "hits": [
                {"chunk_id": "c1", "path": "A.java", "_rankingScore": 0.98,
                 "_federation": {"indexUid": "codemap_chunks", "queriesPosition": 1, "weightedRankingScore": 0.98, "remote": "a"}},
                {"chunk_id": "c2", "path": "B.java",
                 "_federation": {"indexUid": "codemap_chunks", "queriesPosition": 0, "weightedRankingScore": 0.5, "remote": null}},
                {"chunk_id": "c3", "path": "C.java", "_rankingScore": 0.4,
                 "_federation": {"indexUid": "codemap_chunks", "queriesPosition": 1, "weightedRankingScore": 0.4}},
                {"other": 1, "_federation": {"indexUid": "x", "queriesPosition": 0}}
            ],
            "limit": 10, "offset": 0, "estimatedTotalHits": 3,
            "remoteErrors": {"b": {"message": "error sending request", "code": "remote_could_not_send_request",
                                   "type": "system", "link": "https://docs.meilisearch.com/errors#remote_could_not_send_request"}}
        }))
        .unwrap()
    }

    #[test]
    fn hits_are_split_back_per_query_in_order_and_failed_remotes_named() {
        let (per, failed) = split(answer(), 3);
        let ids = |i: usize| -> Vec<&str> { per[i].iter().map(|h| h.chunk_id.as_str()).collect() };
        assert_eq!(ids(0), ["c2"]);
        assert_eq!(ids(1), ["c1", "c3"]);
        assert!(per[2].is_empty());
        assert_eq!(per[0][0].score, 0.5, "weighted score when no ranking score");
        assert_eq!(per[1][0].path, "A.java");
        assert_eq!(
            failed.get("b"),
            Some(&RemoteFailure {
                code: "remote_could_not_send_request".into(),
                message: "error sending request".into(),
            })
        );
    }

    fn hits(n: usize) -> Vec<ChunkHit> {
        (0..n)
            .map(|k| ChunkHit {
                chunk_id: format!("c{k}"),
                path: "P".into(),
                score: 0.5,
            })
            .collect()
    }

    #[test]
    fn only_queries_cut_by_a_full_list_are_asked_again() {
        let queries = vec![
            q(Target::Local, "a", "x", 3),
            q(Target::Remote("b".into()), "b", "x", 3),
            q(Target::Remote("c".into()), "c", "x", 2),
        ];
        let asked = [0, 1, 2];
        let none = BTreeMap::new();
        // Full (8 of 8): query 0 took 6, queries 1 and 2 were cut.
        let got = vec![hits(6), hits(1), hits(1)];
        assert_eq!(short_of(&queries, &asked, &got, 8, &none), [1, 2]);
        // Not full: every query has all its hits.
        let got = vec![hits(3), hits(1), hits(0)];
        assert!(short_of(&queries, &asked, &got, 4, &none).is_empty());
        // A failed remote's query is not asked again.
        let failed: BTreeMap<String, RemoteFailure> = [(
            "c".to_string(),
            RemoteFailure {
                code: "x".into(),
                message: "y".into(),
            },
        )]
        .into();
        let got = vec![hits(7), hits(1), hits(0)];
        assert_eq!(short_of(&queries, &asked, &got, 8, &failed), [1]);
    }

    #[test]
    fn a_missing_key_names_the_remote_and_its_variable() {
        let spec = NetworkSpec {
            remotes: [
                (
                    "a".to_string(),
                    RemoteSpec {
                        url: "http://a:7700".into(),
                        search_key_env: "KEY_A".into(),
                    },
                ),
                (
                    "b".to_string(),
                    RemoteSpec {
                        url: "http://b:7700".into(),
                        search_key_env: "KEY_B".into(),
                    },
                ),
            ]
            .into(),
        };
        let env = |v: &str| (v == "KEY_A").then(|| "secret-a".to_string());
        let errs = spec.resolve(env).unwrap_err();
        let lines: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            lines,
            ["network remote \"b\": the environment variable KEY_B (its search key) is not set"]
        );
        let all = spec.resolve(|_| Some("s3cr3t-value".into())).unwrap();
        assert_eq!(all.len(), 2);
        assert!(
            !format!("{all:?}").contains("s3cr3t"),
            "keys never in Debug"
        );
    }

    #[test]
    fn the_network_patch_sets_self_every_remote_and_removes_stale_ones() {
        let remotes: BTreeMap<String, Remote> = [(
            "a".to_string(),
            Remote {
                url: "http://a:7700".into(),
                search_key: "ka".into(),
            },
        )]
        .into();
        let body = network_patch("a", &remotes, &["a".into(), "old".into()]);
        assert_eq!(
            body,
            json!({
                "self": "a",
                "remotes": {
                    "a": {"url": "http://a:7700", "searchApiKey": "ka"},
                    "old": null,
                }
            })
        );
    }
}
