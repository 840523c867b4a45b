//! The LLM rerank end to end: the shop repository asked through a loopback OpenAI-compatible
//! server whose model picks candidates by name ([`support::rerank_reply`]), or answers badly.

use indexer::store::EmbeddedIndex;
use query::question::Intent;
use query::{Answer, AskOptions, Asker, ChatModel};
mod support;
use std::time::Duration;
use support::shop::fixture;
use support::{assert_citations_resolve, chat, opts, serve, symbols};

/// Asks `q` through a model whose every reply is `reply(request body)`, without the rewrite;
/// returns the answer and the request bodies the model saw.
fn ask_through(
    asker: &Asker<'_>,
    q: &str,
    rerank: bool,
    reply: impl Fn(&str) -> String + Send + 'static,
) -> (Answer, Vec<String>) {
    let (base, seen) = serve(move |body| (Duration::ZERO, reply(body)));
    let llm = chat(&base, 5.0, 0);
    let a = asker
        .ask(
            q,
            &AskOptions {
                llm: Some(&llm as &dyn ChatModel),
                llm_rewrite: false,
                llm_rerank: rerank,
                ..opts()
            },
        )
        .unwrap();
    let requests = seen.lock().unwrap().clone();
    (a, requests)
}

/// A model that picks the candidate called `name`, and answers everything else with prose that
/// cites nothing (so the citations are the ranking's).
fn picking(name: &str) -> impl Fn(&str) -> String + Send + 'static {
    let name = name.to_string();
    move |body| support::rerank_reply(body, &name).unwrap_or_else(|| "No places to add.".into())
}

fn asked_to_rerank(requests: &[String]) -> bool {
    requests.iter().any(|r| r.contains("rank places"))
}

#[test]
fn llm_rerank_puts_the_models_pick_first_and_cannot_add_a_place() {
    let f = fixture();
    let index = EmbeddedIndex::open(&f.dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let q = "Where are orders cancelled when they were not paid in time?";
    let baseline = symbols(&asker.ask(q, &opts()).unwrap());
    assert!(baseline.len() >= 3, "{baseline:?}");
    // The model prefers the index's third place.
    let target = baseline[2].clone();

    let (a, requests) = ask_through(&asker, q, true, picking(&target));
    assert_eq!(symbols(&a)[0], target, "{:?}", symbols(&a));
    let mut shown = symbols(&a);
    shown.sort();
    let mut indexed = baseline.clone();
    indexed.sort();
    assert_eq!(shown, indexed, "the same places, in the model's order");
    assert_citations_resolve(&a, &f.root);
    let rerank = requests.iter().find(|r| r.contains("rank places")).unwrap();
    assert!(
        rerank.contains("<<<CANDIDATES>>>") && rerank.contains("[2] "),
        "{rerank}"
    );

    // A thinking model's reasoning before its reply is not read as the order.
    let pick = picking(&target);
    let (a, _) = ask_through(&asker, q, true, move |body| {
        let reply = pick(body);
        match body.contains("rank places") {
            true => format!("<think>\nMaybe [1]? No: 1 is not it.\n</think>\n\n{reply}"),
            false => reply,
        }
    });
    assert_eq!(symbols(&a)[0], target, "{:?}", symbols(&a));

    // Numbers of no candidate change nothing; prose is not read as an order, and says so.
    let (a, _) = ask_through(&asker, q, true, |_| "41 99".into());
    assert_eq!(symbols(&a), baseline);
    let (a, _) = ask_through(&asker, q, true, |_| {
        "The best is candidate 3, at line 12.".into()
    });
    assert_eq!(symbols(&a), baseline);
    assert!(
        a.notes.iter().any(|n| n.contains("ranking was not used")),
        "{:?}",
        a.notes
    );

    // Switched off: no rerank request at all.
    let (a, requests) = ask_through(&asker, q, false, picking(&target));
    assert_eq!(symbols(&a), baseline);
    assert!(!asked_to_rerank(&requests));

    // A graph question is answered from the graph, not reordered.
    let (_, requests) = ask_through(
        &asker,
        "Who calls deductStock?",
        true,
        picking("OrderService.doCancel"),
    );
    assert!(!asked_to_rerank(&requests));
}

#[test]
fn a_flow_grows_from_the_candidate_the_model_picks() {
    let f = fixture();
    let index = EmbeddedIndex::open(&f.dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let q = "How does a payment callback end up with the order marked as paid?";
    let chain = |a: &Answer| -> Vec<String> { a.chain.iter().map(|c| c.symbol.clone()).collect() };

    // A model that picks nothing leaves the index's chain.
    let (a, requests) = ask_through(&asker, q, true, picking("-"));
    assert_eq!(a.intent, Intent::Flow);
    let before = chain(&a);
    // A method with a body among the candidates shown, off that chain.
    let shown = requests.iter().find(|r| r.contains("rank places")).unwrap();
    let shown: serde_json::Value = serde_json::from_str(shown).unwrap();
    let pick = shown["messages"][1]["content"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.strip_prefix('[')?.split_once("] ")?;
            let (title, place) = rest.split_once("  ")?;
            let (name, kind) = title.split_once(' ')?;
            let (start, end) = place.rsplit_once(':')?.1.split_once('-')?;
            let body = end.parse::<u32>().ok()? > start.parse::<u32>().ok()? + 1;
            (kind == "(method)" && body && !place.contains("/test/")).then(|| name.to_string())
        })
        .find(|name| !before.contains(name))
        .unwrap_or_else(|| panic!("no method off the chain {before:?} among the candidates"));

    let (a, _) = ask_through(&asker, q, true, picking(&pick));
    let after = chain(&a);
    assert!(
        after.contains(&pick),
        "{pick} not in {after:?} (before: {before:?})"
    );
}
