//! Context assembly under a token budget, in a fixed order: the map (modules and file
//! one-liners), the chain (A → B → C with lines), the key methods (signatures and one hop of the
//! graph at the structured level, code at the full level), then the rest as one-liners.
//!
//! The same assembly feeds the index-only answer and the LLM prompt; code goes in fenced and
//! stripped of invisible characters.

use crate::QueryError;
use crate::answer::{ChainStep, Level, MapEntry, Plan, Snippet, citation_of};
use crate::graph::CallGraph;
use crate::retrieve::UnitKey;
use crate::sanitize;
use crate::signature::short_qualified;
use crate::summary;
use crate::terms::approx_tokens;
use crate::view::SnapshotView;

/// What an answer shows, and the same as prompt text.
#[derive(Debug, Clone, Default)]
pub struct Assembled {
    pub map: Vec<MapEntry>,
    pub chain: Vec<ChainStep>,
    pub snippets: Vec<Snippet>,
    pub related: Vec<String>,
    /// Signatures and graph neighbours of key methods (structured level and up).
    pub details: Vec<String>,
    /// Everything above as one text, for a prompt.
    pub text: String,
    pub truncated: bool,
}

/// Files shown in the map.
const MAP_FILES: usize = 6;
/// Methods whose details (and code, at the full level) are shown.
const KEY_UNITS: usize = 4;
/// Longest code shown for one method, in lines.
const MAX_SNIPPET_LINES: usize = 60;
/// Code shown for one method below the full level, in lines.
const SHORT_SNIPPET_LINES: usize = 12;
/// Lines shown above a focus line that the declaration's first lines would leave out.
const ABOVE_FOCUS: u32 = 4;

/// The first line of a unit's code to show (`shown` lines from there): its declaration, unless
/// that would leave the line to focus on out.
fn snippet_start(start: u32, end: u32, focus: Option<u32>, shown: u32) -> u32 {
    match focus {
        Some(f) if f >= start + shown && f <= end => f.saturating_sub(ABOVE_FOCUS).max(start),
        _ => start,
    }
}

pub fn assemble(
    v: &SnapshotView<'_>,
    plan: &Plan,
    graph: &dyn CallGraph,
    level: Level,
    budget_tokens: usize,
    limit: usize,
) -> Result<Assembled, QueryError> {
    let mut a = Assembled::default();
    let mut used = 0usize;
    let mut text = String::new();
    let push = |text: &mut String, s: &str, used: &mut usize, a: &mut Assembled| -> bool {
        let t = approx_tokens(s);
        if *used + t > budget_tokens {
            a.truncated = true;
            return false;
        }
        *used += t;
        text.push_str(s);
        text.push('\n');
        true
    };
    let units: Vec<&UnitKey> = plan.units.iter().take(limit.max(1)).collect();

    // 1. Map: modules and files of the cited units, in citation order.
    let mut files: Vec<String> = Vec::new();
    for u in &units {
        let c = citation_of(v, u);
        if !files.contains(&c.path) {
            files.push(c.path.clone());
        }
    }
    files.truncate(MAP_FILES);
    push(&mut text, "## Map", &mut used, &mut a);
    for f in &files {
        let symbols: Vec<String> = units
            .iter()
            .map(|u| citation_of(v, u))
            .filter(|c| &c.path == f)
            .filter_map(|c| {
                c.symbol
                    .map(|s| s.rsplit('.').next().unwrap_or(&s).to_string())
            })
            .collect();
        let entry = MapEntry {
            module: v.module(f).to_string(),
            path: f.clone(),
            summary: summary::file_line(v, f),
            symbols,
        };
        let line = format!(
            "- [{}] {} — {}{}",
            if entry.module.is_empty() {
                "."
            } else {
                &entry.module
            },
            entry.path,
            entry.summary,
            if entry.symbols.is_empty() {
                String::new()
            } else {
                format!(" (cited: {})", entry.symbols.join(", "))
            }
        );
        if !push(&mut text, &line, &mut used, &mut a) {
            break;
        }
        a.map.push(entry);
    }

    // 2. Chain.
    if !plan.chain.is_empty() {
        for link in &plan.chain {
            let s = v.sym(link.sym);
            a.chain.push(ChainStep {
                depth: link.depth,
                symbol: short_qualified(&s.symbol.qualified_name, &s.path),
                path: s.path.clone(),
                start_line: s.symbol.start_line,
                end_line: s.symbol.end_line,
            });
        }
        // One step a line, indented under the step that calls it.
        let line = a
            .chain
            .iter()
            .map(|c| {
                let indent = "  ".repeat(c.depth);
                format!("{indent}- {} ({}:{})", c.symbol, c.path, c.start_line)
            })
            .collect::<Vec<_>>()
            .join("\n");
        push(&mut text, "## Chain", &mut used, &mut a);
        push(&mut text, &line, &mut used, &mut a);
    }

    // 3. Key methods: the chain, else the first cited units.
    let key: Vec<UnitKey> = if plan.chain.is_empty() {
        units.iter().take(KEY_UNITS).map(|u| (*u).clone()).collect()
    } else {
        plan.chain
            .iter()
            .take(KEY_UNITS + 2)
            .map(|l| UnitKey::Sym(l.sym))
            .collect()
    };
    if level != Level::Surface {
        push(&mut text, "## Key places", &mut used, &mut a);
        for u in &key {
            let c = citation_of(v, u);
            let mut d = format!(
                "- {} at {}",
                c.symbol.clone().unwrap_or_else(|| c.path.clone()),
                c.label()
            );
            if let UnitKey::Sym(i) = u {
                let s = &v.sym(*i).symbol;
                d.push_str(&format!("\n  signature: {}", s.signature));
                if let Some(doc) = &s.doc {
                    d.push_str(&format!("\n  doc: {}", summary::first_sentence(doc)));
                }
                if s.kind.is_callable() {
                    let callers = neighbour_names(
                        v,
                        graph
                            .callers(&s.id)?
                            .iter()
                            .map(|e| (&e.from, &e.path, e.line)),
                    );
                    let callees = neighbour_names(
                        v,
                        graph
                            .callees(&s.id)?
                            .iter()
                            .map(|e| (&e.to, &e.path, e.line)),
                    );
                    if !callers.is_empty() {
                        d.push_str(&format!("\n  called by: {}", callers.join(", ")));
                    }
                    if !callees.is_empty() {
                        d.push_str(&format!("\n  calls: {}", callees.join(", ")));
                    }
                }
            }
            if !push(&mut text, &d, &mut used, &mut a) {
                break;
            }
            a.details.push(d);
        }
    }
    let snippet_count = if level == Level::Full { key.len() } else { 1 };
    if level != Level::Surface {
        for u in key.iter().take(snippet_count) {
            let c = citation_of(v, u);
            let shown = if level == Level::Full {
                MAX_SNIPPET_LINES
            } else {
                SHORT_SNIPPET_LINES
            } as u32;
            let focus = match u {
                UnitKey::Sym(i) => plan.focus.get(i).copied(),
                UnitKey::Range { .. } => None,
            };
            let start = snippet_start(c.start_line, c.end_line, focus, shown);
            let end = c.end_line.min(start + shown - 1);
            let code = v.text(&c.path, start, end)?;
            let (code, _) = sanitize::strip_invisible(&code);
            let shown_end = start + code.lines().count().max(1) as u32 - 1;
            let fenced = sanitize::fence(&format!("{}:{}-{}", c.path, start, shown_end), &code);
            if !push(&mut text, &fenced, &mut used, &mut a) {
                break;
            }
            a.snippets.push(Snippet {
                path: c.path.clone(),
                start_line: start,
                end_line: shown_end,
                symbol: c.symbol.clone(),
                code,
            });
        }
    }

    // 4. The rest, one line each.
    let shown: Vec<UnitKey> = key.clone();
    push(&mut text, "## Also relevant", &mut used, &mut a);
    for u in units.iter().filter(|u| !shown.contains(u)) {
        let c = citation_of(v, u);
        let line = match u {
            UnitKey::Sym(i) => format!("- {} ({})", summary::symbol_line(v, *i), c.label()),
            UnitKey::Range { .. } => format!("- {}", c.label()),
        };
        if !push(&mut text, &line, &mut used, &mut a) {
            break;
        }
        a.related.push(line.trim_start_matches("- ").to_string());
    }
    a.text = text;
    Ok(a)
}

fn neighbour_names<'e>(
    v: &SnapshotView<'_>,
    edges: impl Iterator<Item = (&'e indexer::model::SymbolId, &'e String, u32)>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (id, path, line) in edges {
        if let Some(i) = v.by_id(&id.0) {
            let s = v.sym(i);
            let n = format!(
                "{} ({}:{})",
                short_qualified(&s.symbol.qualified_name, &s.path),
                path,
                line
            );
            if !out.contains(&n) {
                out.push(n);
            }
        }
        if out.len() >= 6 {
            break;
        }
    }
    out
}
