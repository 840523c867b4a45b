//! Notable types: the module's top-level types, most used first (uses of the type and of what
//! its file declares, from other files), with their doc one-liners.

use super::{Cite, Graph, TypeNote};

pub fn notable(g: &Graph<'_>, module: &str) -> Vec<TypeNote> {
    let mut scored: Vec<(usize, TypeNote)> = g
        .symbols_of(module)
        .filter(|s| s.symbol.kind.is_type() && g.is_top_level(s))
        .map(|s| {
            let uses = g.edges_to(&s.symbol.id.0).count() + g.inbound(&s.path);
            let doc = super::purpose::strip(s.symbol.doc.as_deref().unwrap_or_default());
            // Documented types first among equals: a one-liner is what the list is for.
            let score = uses * 2 + usize::from(!doc.is_empty());
            (
                score,
                TypeNote {
                    name: s.symbol.qualified_name.clone(),
                    kind: s.symbol.kind.as_str().to_string(),
                    doc,
                    cite: Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line),
                },
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
    scored.into_iter().map(|(_, t)| t).collect()
}
