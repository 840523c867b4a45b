//! Progressive disclosure over the snapshot view: `read` at three levels and `repo_map`.
//! Pure over a [`SnapshotView`] and a [`CallGraph`]; every place written `path:start-end`.

use crate::params::Level;
use indexer::model::SymbolId;
use query::CallGraph;
use query::QueryError;
use query::summary::{file_line, symbol_line};
use query::view::{SnapshotView, SymIdx};
use std::collections::BTreeMap;
use std::fmt::Write;

/// About four characters make a token of code.
const CHARS_PER_TOKEN: usize = 4;
/// Callers and callees listed per symbol at the structured level.
const NEIGHBOURS: usize = 10;

/// What `read` was asked about, once resolved.
enum Target {
    File(String),
    Symbols(Vec<SymIdx>),
}

/// `read`: a file or symbol at a level, under `budget` tokens. `Err` is a message for the
/// caller (nothing by that name).
pub fn read(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    target: &str,
    level: Level,
    budget: usize,
) -> Result<Result<String, String>, QueryError> {
    let Some(t) = resolve(v, target) else {
        return Ok(Err(format!(
            "{target:?} is neither an indexed file (give the path from the repository root) nor a symbol name; try `search` or `definition`"
        )));
    };
    let limit = budget.max(100) * CHARS_PER_TOKEN;
    let mut out = String::new();
    match (&t, level) {
        (Target::File(p), Level::Surface) => {
            let _ = writeln!(out, "{p} — {}", file_line(v, p));
            for i in v.in_file(p).filter(|&i| shown(v, i)) {
                let (s, e) = v.span(i);
                let indent = if v.kind(i).is_type() { "" } else { "  " };
                let _ = writeln!(out, "{indent}{}  {p}:{s}-{e}", symbol_line(v, i));
            }
        }
        (Target::Symbols(xs), Level::Surface) => {
            for &i in xs {
                let _ = writeln!(out, "{}  {}", symbol_line(v, i), place(v, i));
                if v.kind(i).is_type() {
                    for m in v.members(i).into_iter().filter(|&m| shown(v, m)) {
                        let _ = writeln!(out, "  {}  {}", symbol_line(v, m), place(v, m));
                    }
                }
            }
        }
        (Target::File(p), Level::Structured) => {
            let _ = writeln!(out, "{p} — {}", file_line(v, p));
            let syms: Vec<SymIdx> = v.in_file(p).filter(|&i| shown(v, i)).collect();
            structured(v, graph, &syms, &mut out)?;
        }
        (Target::Symbols(xs), Level::Structured) => {
            let mut syms = Vec::new();
            for &i in xs {
                syms.push(i);
                if v.kind(i).is_type() {
                    syms.extend(v.members(i).into_iter().filter(|&m| shown(v, m)));
                }
            }
            structured(v, graph, &syms, &mut out)?;
        }
        (Target::File(p), Level::Full) => {
            let n = v.line_count(p).unwrap_or(0);
            code(v, p, 1, n, &mut out)?;
        }
        (Target::Symbols(xs), Level::Full) => {
            for &i in xs {
                let (s, e) = v.span(i);
                code(v, v.path(i), s, e, &mut out)?;
            }
        }
    }
    Ok(Ok(cut(out, limit)))
}

/// Whether a symbol is worth a line: declarations, not packages or imports.
fn shown(v: &SnapshotView<'_>, i: SymIdx) -> bool {
    let k = v.kind(i);
    k.is_type() || k.is_callable() || k == indexer::SymbolKind::Field
}

fn place(v: &SnapshotView<'_>, i: SymIdx) -> String {
    let (s, e) = v.span(i);
    format!("{}:{s}-{e}", v.path(i))
}

/// A file path as indexed, else every symbol of that (simple or qualified) name.
fn resolve(v: &SnapshotView<'_>, target: &str) -> Option<Target> {
    let t = target.trim().trim_start_matches("./");
    if t.is_empty() {
        return None;
    }
    if v.has_file(t) {
        return Some(Target::File(t.to_string()));
    }
    let simple = t
        .rsplit(['.', '#'])
        .next()
        .unwrap_or(t)
        .split('(')
        .next()
        .unwrap_or(t);
    let xs: Vec<SymIdx> = v
        .named(simple)
        .into_iter()
        .filter(|&i| v.name(i) == simple && shown(v, i))
        .filter(|&i| {
            // A qualified target must match the end of the qualified name.
            !t.contains('.') || {
                let q = &v.sym(i).symbol.qualified_name;
                // `Type#method(Long)` names `Type.method`; overloads all match.
                let t = t.split('(').next().unwrap_or(t).replace('#', ".");
                q.ends_with(&t) && (q.len() == t.len() || q[..q.len() - t.len()].ends_with('.'))
            }
        })
        .collect();
    (!xs.is_empty()).then_some(Target::Symbols(xs))
}

/// Signatures with their callers and callees (use sites cited).
fn structured(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    syms: &[SymIdx],
    out: &mut String,
) -> Result<(), QueryError> {
    for &i in syms {
        let s = v.sym(i);
        let _ = writeln!(
            out,
            "\n{} {}  {}",
            s.symbol.kind.as_str(),
            s.short_name(),
            place(v, i)
        );
        let _ = writeln!(out, "  {}", s.symbol.signature.trim());
        if let Some(d) = v.doc(i).map(query::summary::first_sentence)
            && !d.is_empty()
        {
            let _ = writeln!(out, "  // {d}");
        }
        if !v.kind(i).is_callable() {
            continue;
        }
        let id = SymbolId(v.id(i).to_string());
        let mut callers = graph.callers(&id)?;
        // A call through an overridden method can come back beside the direct one.
        let mut seen = std::collections::HashSet::new();
        callers.retain(|e| seen.insert((e.from.0.clone(), e.path.clone(), e.line)));
        if !callers.is_empty() {
            let _ = writeln!(out, "  callers ({}):", callers.len());
            for e in callers.iter().take(NEIGHBOURS) {
                let who = v
                    .by_id(&e.from.0)
                    .map(|c| v.sym(c).short_name())
                    .unwrap_or_else(|| e.from.0.clone());
                let _ = writeln!(out, "    ← {who}  {}:{}", e.path, e.line);
            }
        }
        let callees = graph.callees(&id)?;
        if !callees.is_empty() {
            let _ = writeln!(out, "  callees ({}):", callees.len());
            for e in callees.iter().take(NEIGHBOURS) {
                let what = v
                    .by_id(&e.to.0)
                    .map(|c| format!("{}  {}", v.sym(c).short_name(), place(v, c)))
                    .unwrap_or_else(|| e.to.0.clone());
                let _ = writeln!(out, "    → {what}  (at {}:{})", e.path, e.line);
            }
        }
    }
    Ok(())
}

/// Numbered lines `start..=end` of an indexed file under a `path:start-end` header.
fn code(
    v: &SnapshotView<'_>,
    path: &str,
    start: u32,
    end: u32,
    out: &mut String,
) -> Result<(), QueryError> {
    let text = v.text(path, start, end)?;
    let _ = writeln!(out, "{path}:{start}-{end}");
    for (k, l) in text.lines().enumerate() {
        let _ = writeln!(out, "{:>6}  {l}", start as usize + k);
    }
    out.push('\n');
    Ok(())
}

/// Cuts `text` at a line boundary to `limit` characters, saying where it stopped.
fn cut(text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let mut out = String::new();
    let mut last = "";
    for l in text.lines() {
        if out.len() + l.len() + 1 > limit {
            break;
        }
        out.push_str(l);
        out.push('\n');
        last = l;
    }
    let at = last.split_whitespace().next().unwrap_or("");
    let _ = writeln!(
        out,
        "… cut at the token budget (after line {at}); raise `budget` or read a narrower target"
    );
    out
}

/// `repo_map`: modules with their file counts, and each file's one-liner (largest files first),
/// at most `max_files` files; `module` narrows it to one.
pub fn repo_map(
    v: &SnapshotView<'_>,
    module: Option<&str>,
    max_files: usize,
) -> Result<String, String> {
    let mut modules: BTreeMap<&str, Vec<(&str, usize)>> = BTreeMap::new();
    for p in v.paths() {
        let m = v.module(p);
        if module.is_some_and(|x| x != m) {
            continue;
        }
        let n = v.in_file(p).filter(|&i| shown(v, i)).count();
        if n == 0 {
            continue;
        }
        modules.entry(m).or_default().push((p, n));
    }
    if modules.is_empty() {
        return Err(match module {
            Some(m) => format!("no module named {m:?} with code in the index"),
            None => "the index holds no code".to_string(),
        });
    }
    let mut out = String::new();
    let _ = writeln!(out, "{} modules", modules.len());
    for (m, files) in &modules {
        let syms: usize = files.iter().map(|f| f.1).sum();
        let name = if m.is_empty() { "(root)" } else { m };
        let _ = writeln!(out, "- {name}: {} files, {syms} declarations", files.len());
    }
    // Each module gets its share of the files shown, biggest files first.
    let share = (max_files / modules.len()).max(1);
    for (m, files) in &mut modules {
        files.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let name = if m.is_empty() { "(root)" } else { m };
        let _ = writeln!(out, "\n## {name}");
        for (p, _) in files.iter().take(share) {
            let n = v.line_count(p).unwrap_or(1).max(1);
            let _ = writeln!(out, "{p}:1-{n} — {}", file_line(v, p));
        }
        if files.len() > share {
            let _ = writeln!(
                out,
                "… {} more files; call repo_map with module = {name:?}",
                files.len() - share
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_keeps_whole_lines_and_says_so() {
        let text: String = (1..=100).map(|i| format!("{i:>6}  line {i}\n")).collect();
        let c = cut(text, 200);
        assert!(c.len() < 300);
        assert!(c.contains("cut at the token budget"), "{c}");
        assert!(c.lines().all(|l| l.starts_with(' ') || l.starts_with('…')));
    }
}
