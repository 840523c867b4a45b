//! `callers`, `callees`, `path` and `export edges`: the stored call graph.

use super::{Outcome, open_index, open_reader, print_json};
use crate::cli::{Global, GraphArgs};
use anyhow::{Result, bail};
use indexer::graph::EdgeKind;
use indexer::store::IndexRead;
use query::calls::{self, Hop, Node};
use std::collections::HashMap;
use std::io::Write;

/// `export edges`: one JSON object per line, ordered by use site.
pub fn export_edges(g: &Global, kinds: &[String]) -> Result<Outcome> {
    let idx = open_index(g)?;
    require_graph(&idx)?;
    let wanted: Vec<EdgeKind> = if kinds.is_empty() {
        EdgeKind::ALL.into_iter().filter(|k| k.is_flow()).collect()
    } else if kinds.iter().any(|k| k == "all") {
        EdgeKind::ALL.to_vec()
    } else {
        let mut v = Vec::new();
        for k in kinds {
            match EdgeKind::parse(k) {
                Some(k) => v.push(k),
                None => bail!(
                    "unknown edge kind {k:?}; kinds are {} (or all)",
                    EdgeKind::ALL.map(|k| k.as_str()).join(", ")
                ),
            }
        }
        v
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut n = 0u64;
    idx.catalog.for_each_edge(|e| {
        if !wanted.contains(&e.kind) {
            return Ok(());
        }
        n += 1;
        let rec = serde_json::json!({
            "caller_file": e.caller_file, "caller_symbol": e.caller_name,
            "callee_file": e.callee_file, "callee_symbol": e.callee_name,
            "line": e.line, "kind": e.kind.as_str(),
            "callee_line": e.callee_line, "confidence": e.confidence,
            "caller_id": e.caller, "callee_id": e.callee, "detail": e.detail,
        });
        writeln!(out, "{rec}").map_err(indexer::store::StoreError::Io)
    })?;
    out.flush()?;
    Ok(if n == 0 {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

/// Graph queries on an index built without the graph would answer "(none)" for everything.
fn require_graph(r: &dyn IndexRead) -> Result<()> {
    if !r.graph_built()? {
        bail!(
            "this index was built without its call graph (CODEMAP_SKIP_GRAPH=1 was set), so it \
             cannot say who calls what; run `codemap index` without CODEMAP_SKIP_GRAPH to build it"
        );
    }
    Ok(())
}

pub fn callers(g: &Global, a: &GraphArgs) -> Result<Outcome> {
    let r = open_reader(g)?;
    require_graph(r.as_ref())?;
    let targets = targets(r.as_ref(), &a.symbol)?;
    let hops = calls::callers(r.as_ref(), &targets, a.depth, a.limit)?;
    report(g, "callers", &targets, &hops, true)
}

pub fn callees(g: &Global, a: &GraphArgs) -> Result<Outcome> {
    let r = open_reader(g)?;
    require_graph(r.as_ref())?;
    let targets = targets(r.as_ref(), &a.symbol)?;
    let hops = calls::callees(r.as_ref(), &targets, a.depth, a.limit)?;
    report(g, "callees", &targets, &hops, false)
}

pub fn path(g: &Global, from: &str, to: &str, max_depth: usize, limit: usize) -> Result<Outcome> {
    let r = open_reader(g)?;
    require_graph(r.as_ref())?;
    let sources = targets(r.as_ref(), from)?;
    let sinks = targets(r.as_ref(), to)?;
    let chains = calls::paths(r.as_ref(), &sources, &sinks, max_depth, limit)?;
    if g.json {
        print_json(&serde_json::json!({
            "from": sources, "to": sinks, "chains": chains,
        }))?;
    } else if chains.is_empty() {
        println!(
            "no call chain of at most {max_depth} hops from {} to {}",
            names(&sources),
            names(&sinks)
        );
    } else {
        for (i, chain) in chains.iter().enumerate() {
            println!("chain {} ({} hops)", i + 1, chain.len());
            if let Some(first) = chain.first() {
                println!("  {}{}", first.from.name, location(&first.from));
            }
            for h in chain {
                println!(
                    "    → {}  {}:{}  {}{}",
                    h.to.name,
                    h.path,
                    h.line,
                    h.kind.as_str(),
                    annotations(h)
                );
            }
        }
    }
    Ok(if chains.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

fn targets(catalog: &dyn IndexRead, name: &str) -> Result<Vec<Node>> {
    let nodes = calls::find_nodes(catalog, name)?;
    if nodes.is_empty() {
        bail!(
            "no symbol named {name:?} in the index (try a qualified name such as Type.method, or `codemap symbol {name}`)"
        );
    }
    Ok(nodes)
}

fn names(nodes: &[Node]) -> String {
    nodes
        .iter()
        .map(|n| n.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn location(n: &Node) -> String {
    match (&n.path, n.line) {
        (Some(p), Some(l)) => format!("  ({p}:{l})"),
        (Some(p), None) => format!("  ({p})"),
        _ => String::new(),
    }
}

fn annotations(h: &Hop) -> String {
    let mut s = String::new();
    if let Some(v) = &h.via {
        s.push_str(&format!("  via {v}"));
    }
    if !h.detail.is_empty() {
        s.push_str(&format!("  [{}]", h.detail));
    }
    if h.confidence < 1.0 {
        s.push_str(&format!("  (confidence {:.1})", h.confidence));
    }
    s
}

/// Prints hops as a tree under each target (`up`: callers, else callees).
fn report(g: &Global, what: &str, targets: &[Node], hops: &[Hop], up: bool) -> Result<Outcome> {
    if g.json {
        print_json(&serde_json::json!({ "targets": targets, what: hops }))?;
        return Ok(if hops.is_empty() {
            Outcome::NothingFound
        } else {
            Outcome::Done
        });
    }
    // Children of a node: the hops that expand it.
    let mut children: HashMap<&str, Vec<&Hop>> = HashMap::new();
    for h in hops {
        let key = if up {
            h.to.id.as_str()
        } else {
            h.from.id.as_str()
        };
        children.entry(key).or_default().push(h);
    }
    for t in targets {
        println!("{what} of {}{}", t.name, location(t));
        let mut printed = std::collections::HashSet::new();
        print_tree(&children, &t.id, 1, up, &mut printed);
        if !children.contains_key(t.id.as_str()) {
            println!("  (none)");
        }
    }
    Ok(if hops.is_empty() {
        Outcome::NothingFound
    } else {
        Outcome::Done
    })
}

fn print_tree<'h>(
    children: &HashMap<&str, Vec<&'h Hop>>,
    id: &str,
    depth: usize,
    up: bool,
    printed: &mut std::collections::HashSet<&'h str>,
) {
    let Some(list) = children.get(id) else {
        return;
    };
    for h in list {
        if h.depth != depth {
            continue;
        }
        let other = if up { &h.from } else { &h.to };
        let arrow = if up { "←" } else { "→" };
        println!(
            "{}{arrow} {}  {}:{}  {}{}",
            "  ".repeat(depth),
            other.name,
            h.path,
            h.line,
            h.kind.as_str(),
            annotations(h)
        );
        if printed.insert(other.id.as_str()) {
            print_tree(children, &other.id, depth + 1, up, printed);
        }
    }
}
