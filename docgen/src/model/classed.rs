//! A module's code that is not production code (example, test, generated, vendored): entry
//! points are looked for in production code only, so a module whose code is all classed away
//! (a `*-demo` module) would read as having none. This says what that code holds instead.

use super::{Cite, Classed, Graph, Item};
use query::model::{Provenance, SymbolKind};
use std::collections::BTreeMap;

/// Routes, schedules and `main` methods listed per class of code.
const MAX_FOUND: usize = 8;

/// The module's non-production code files by class (example first), each with the folder that
/// holds them and the routes, schedules and `main` methods declared in them.
pub fn find(g: &Graph<'_>, module: &str) -> Vec<Classed> {
    let mut by_class: BTreeMap<u8, (Provenance, Vec<&str>)> = BTreeMap::new();
    for (path, f) in &g.facts.whole.files {
        if f.module == module && f.code && !g.is_source(f) {
            by_class
                .entry(rank(f.provenance))
                .or_insert((f.provenance, Vec::new()))
                .1
                .push(path);
        }
    }
    by_class
        .into_values()
        .map(|(class, paths)| {
            let mut found = found_in(g, &paths);
            let found_cut = found.len().saturating_sub(MAX_FOUND);
            found.truncate(MAX_FOUND);
            Classed {
                class: class.as_str().to_string(),
                files: paths.len(),
                folder: common_folder(&paths),
                found,
                found_cut,
            }
        })
        .collect()
}

fn rank(p: Provenance) -> u8 {
    match p {
        Provenance::Example => 0,
        Provenance::Test => 1,
        Provenance::Generated => 2,
        Provenance::Vendored => 3,
        Provenance::Source => 4,
    }
}

/// Routes and schedules (pseudo callers in the graph) entering methods of `paths`, and static
/// `main` methods, in path and line order.
fn found_in(g: &Graph<'_>, paths: &[&str]) -> Vec<Item> {
    let mut out = Vec::new();
    for s in &g.facts.whole.symbols {
        if !s.symbol.kind.is_callable() || paths.binary_search(&s.path.as_str()).is_err() {
            continue;
        }
        let cite = Cite::new(&s.path, s.symbol.start_line, s.symbol.end_line);
        let handler = g.short_name(s);
        for e in g.edges_to(&s.symbol.id.0) {
            let label = e
                .caller
                .strip_prefix("route:")
                .or_else(|| e.caller.strip_prefix("schedule:"));
            if let Some(label) = label {
                out.push(Item {
                    name: format!("{label} → {handler}"),
                    cite: cite.clone(),
                });
            }
        }
        if s.symbol.kind == SymbolKind::Method && s.symbol.name == "main" && s.symbol.is_static {
            out.push(Item {
                name: handler,
                cite,
            });
        }
    }
    out
}

/// The deepest folder holding every path (`""`: the repository root).
fn common_folder(paths: &[&str]) -> String {
    let mut common: Option<Vec<&str>> = None;
    for p in paths {
        let dirs: Vec<&str> = p
            .rsplit_once('/')
            .map_or(vec![], |(d, _)| d.split('/').collect());
        common = Some(match common {
            None => dirs,
            Some(c) => c
                .iter()
                .zip(&dirs)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    common.unwrap_or_default().join("/")
}

#[cfg(test)]
mod tests {
    use super::common_folder;

    #[test]
    fn the_common_folder_is_the_deepest_shared_one() {
        assert_eq!(
            common_folder(&["d/src/main/java/x/A.java", "d/src/main/java/x/web/B.java"]),
            "d/src/main/java/x"
        );
        assert_eq!(common_folder(&["a/B.java", "b/C.java"]), "");
        assert_eq!(common_folder(&["A.java"]), "");
    }
}
