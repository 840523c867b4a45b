//! Shows what the ask pipeline sees for one question: the understood question, the ranked units
//! with the legs that found them, the plan and the chain.
//!
//! ```sh
//! cargo run -p query --example ask_debug -- INDEX_DIR "who calls Foo.bar?"
//! ```

use indexer::store::{EmbeddedIndex, IndexDir};
use query::answer::{citation_of, plan};
use query::question::understand_named;
use query::retrieve::{RecallOptions, Retriever};
use query::view::SnapshotView;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, question, ..] = args.as_slice() else {
        eprintln!("usage: ask_debug INDEX_DIR QUESTION");
        std::process::exit(2);
    };
    let index = EmbeddedIndex::open(&IndexDir::new(dir.as_str()))?;
    let view = SnapshotView::open(&index, Some(index.dir.root()))?;
    // As `ask` does: a Chinese word's senses that this code names come first.
    let q = understand_named(question, &|w| view.names_stem(&query::terms::stem(w)));
    println!("intent: {:?}  kind: {:?}", q.intent, q.kind_hint);
    println!(
        "identifiers: {:?}",
        q.identifiers.iter().map(|i| &i.text).collect::<Vec<_>>()
    );
    println!(
        "terms: {}",
        q.terms
            .iter()
            .map(|t| format!("{}:{:.1}", t.stem, t.weight))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if !q.message.is_empty() {
        println!("message: {:?}", q.message);
    }
    let stored = query::graph::StoredGraph::available(&index)
        .then(|| query::graph::StoredGraph::new(&index));
    let graph: &dyn query::graph::CallGraph = match &stored {
        Some(s) => s,
        None => &query::graph::NoGraph,
    };
    let r = Retriever::new(&view);
    let ranked = r.rank(&q, &RecallOptions::default())?;
    for (k, x) in ranked.iter().take(25).enumerate() {
        let c = citation_of(&view, &x.key);
        println!(
            "{:>3} {:.4} {:<45} {}:{}-{} {:?}",
            k + 1,
            x.score,
            c.symbol.unwrap_or_default(),
            c.path.rsplit('/').next().unwrap_or(""),
            c.start_line,
            c.end_line,
            x.legs
        );
    }
    // An optional third argument: where the units whose symbol contains it rank.
    if let Some(needle) = args.get(2) {
        for (k, x) in ranked.iter().enumerate() {
            let c = citation_of(&view, &x.key);
            let sym = c.symbol.unwrap_or_default();
            if sym.contains(needle.as_str()) {
                let literals = match &x.key {
                    query::retrieve::UnitKey::Sym(i) => view.literals_of(*i).len(),
                    _ => 0,
                };
                println!(
                    "  {needle}: #{} {:.4} {sym} {:?} ({literals} literals)",
                    k + 1,
                    x.score,
                    x.legs
                );
            }
        }
        // And where the card leg alone puts them.
        for (k, i) in r.card_leg(&q, 5000).into_iter().enumerate() {
            let c = citation_of(&view, &query::retrieve::UnitKey::Sym(i));
            let sym = c.symbol.unwrap_or_default();
            if sym.contains(needle.as_str()) {
                println!("  {needle}: card leg #{} {sym}", k + 1);
            }
        }
    }
    let p = plan(&r, &q, &ranked, graph)?;
    println!("chain:");
    for link in &p.chain {
        let c = citation_of(&view, &query::retrieve::UnitKey::Sym(link.sym));
        let indent = "  ".repeat(link.depth);
        println!(
            "  {indent}{} {}",
            c.symbol.clone().unwrap_or_default(),
            c.label()
        );
    }
    Ok(())
}
