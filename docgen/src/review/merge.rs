//! What only the base can show, carried to the head. The report over the head misses the code
//! a request breaks: a caller of a method whose signature changed still calls the old one, so at
//! the head no call edge reaches the new one; a deleted method has no callers left to find. The
//! report over the merge base (the diff read forwards) has them. Each such caller, test and
//! entry point is found again at the head — same file, same name — and cited there; one that is
//! gone from the head is left out (the head's own report covers the code that replaced it).

use query::QueryError;
use query::impact::ChangeKind;
use query::impact::report::{ImpactReport, Reached};
use query::view::{SnapshotView, SymIdx};

/// The symbol named `name` (a short name, `Class.method`) in `path` at the head, when exactly
/// one has that name (overloads that cannot be told apart are left out rather than guessed).
fn at_head(v: &SnapshotView<'_>, path: &str, name: &str) -> Option<SymIdx> {
    if !v.has_file(path) {
        return None;
    }
    let mut found = v.in_file(path).filter(|&i| v.sym(i).short_name() == name);
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The line in `i`'s span at the head that calls `callee` (by its simple name), else its first.
fn call_line(v: &SnapshotView<'_>, i: SymIdx, callee: &str) -> Result<u32, QueryError> {
    let (s, e) = v.span(i);
    let simple = callee.rsplit('.').next().unwrap_or(callee);
    let lines = v.file_lines(&v.sym(i).path)?;
    Ok((s..=e)
        .find(|&l| {
            lines
                .get(l as usize - 1)
                .is_some_and(|t| t.contains(&format!("{simple}(")))
        })
        .unwrap_or(s))
}

fn moved(v: &SnapshotView<'_>, r: &Reached) -> Result<Option<Reached>, QueryError> {
    let Some(i) = at_head(v, &r.path, &r.symbol) else {
        return Ok(None);
    };
    let (start_line, end_line) = v.span(i);
    Ok(Some(Reached {
        start_line,
        end_line,
        call_line: call_line(v, i, &r.calls)?,
        ..r.clone()
    }))
}

/// Adds to `head` (the report over the head) the callers, tests and entry points the report
/// over the merge base found, as they are at the head, and names what the request removes.
/// Returns how many places were carried.
pub fn carry_base(
    head: &mut ImpactReport,
    base: &ImpactReport,
    v: &SnapshotView<'_>,
) -> Result<usize, QueryError> {
    let mut carried = 0;
    for (from, to) in [
        (&base.callers, &mut head.callers),
        (&base.tests, &mut head.tests),
    ] {
        for r in from {
            if to.iter().any(|x| x.path == r.path && x.symbol == r.symbol) {
                continue;
            }
            if let Some(m) = moved(v, r)? {
                to.push(m);
                carried += 1;
            }
        }
    }
    for e in &base.entry_points {
        let dup = head
            .entry_points
            .iter()
            .any(|x| x.entry == e.entry && x.symbol == e.symbol);
        if dup {
            continue;
        }
        if let Some(i) = at_head(v, &e.path, &e.symbol) {
            let (start_line, end_line) = v.span(i);
            head.entry_points.push(query::answer::EntryPointRef {
                start_line,
                end_line,
                ..e.clone()
            });
            carried += 1;
        }
    }
    for c in &base.changes {
        if c.change == ChangeKind::Removed {
            head.notes.push(format!(
                "`{}` ({}) is removed by this request; its callers are listed as they are at the head",
                c.symbol, c.kind
            ));
        }
    }
    head.callers.sort_by_key(|r| r.depth);
    head.tests.sort_by_key(|r| r.depth);
    head.truncated |= base.truncated;
    head.modules = query::impact::report::modules(head);
    Ok(carried)
}
