//! The page's flows: query's key flows of a module ([`query::flows::build`]: breadth first
//! from each entry point, state-changing calls first) as the model shows them.

use super::{Flow, Graph, Hop, Step};
use query::flows::EntryPoint;

/// The flows a module's page shows, from its entry points.
pub fn build(g: &Graph<'_>, module: &str, points: &[EntryPoint]) -> Vec<Flow> {
    query::flows::build(g, module, points)
        .into_iter()
        .map(page_flow)
        .collect()
}

fn page_flow(f: query::flows::Flow) -> Flow {
    Flow {
        entry: f.entry,
        steps: f
            .steps
            .into_iter()
            .map(|s| Step {
                name: s.name,
                kind: s.kind.as_str().to_string(),
                cite: s.place.into(),
                module: s.module,
            })
            .collect(),
        hops: f
            .hops
            .into_iter()
            .map(|h| Hop {
                from: h.from,
                to: h.to,
                kind: h.kind.as_str().to_string(),
                site: h.site.into(),
            })
            .collect(),
        cut: f.cut,
    }
}
