//! Where a pasted diff lands in the indexed code. Each hunk is checked against the indexed text
//! of its file (and found again nearby when the file moved on since the diff's base); the lines
//! it removes or inserts at are mapped to the innermost symbols covering them, and each symbol is
//! told how it changed. A hunk that matches nothing in the index is reported, never guessed at:
//! every line shown comes from the indexed revision. [`report`] turns that into a reviewer's
//! impact report; [`render`] prints it.

pub mod render;
pub mod report;

use crate::QueryError;
use crate::graph::CallGraph;
use crate::question::patch::{FilePatch, Hunk, Insertion};
use crate::signature::annotation_name;
use crate::view::{SnapshotView, SymIdx};
use crate::viewdata::FileLines;
use indexer::model::{Provenance, SymbolId, SymbolKind};
use serde::Serialize;

/// How a symbol changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// All of it is deleted (or its file is).
    Removed,
    /// Its declaration: signature, annotations, or a field's whole line.
    Declaration,
    /// Lines inside its body.
    Body,
    /// A type gains or loses code between its members (a new method, an initializer).
    Members,
    /// All of it is new. Only a report read from the new side of a diff says this (a review
    /// comment over the request's head, where the diff is taken head → base and so "removes"
    /// what the request adds).
    Added,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Removed => "removed",
            ChangeKind::Declaration => "declaration changed",
            ChangeKind::Body => "body changed",
            ChangeKind::Members => "members added or removed",
            ChangeKind::Added => "added",
        }
    }
}

/// One changed symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub sym: SymIdx,
    pub kind: ChangeKind,
    /// Lines of the indexed revision the diff removes or inserts next to (none listed when the
    /// whole file goes).
    pub lines: Vec<u32>,
}

/// What a diff touches in the index, and what could not be placed.
#[derive(Debug, Clone, Default)]
pub struct Located {
    pub changes: Vec<Change>,
    pub notes: Vec<String>,
}

/// Places every file patch of a diff in the indexed snapshot.
pub fn locate(v: &SnapshotView<'_>, patches: &[FilePatch]) -> Result<Located, QueryError> {
    let mut out = Located::default();
    for fp in patches {
        let Some(old) = fp.old_path.as_deref() else {
            out.notes.push(format!(
                "{} is a new file: nothing in the index depends on it yet",
                fp.path()
            ));
            continue;
        };
        let path = match resolve(v, old) {
            Resolved::One(p) => p,
            Resolved::None => {
                out.notes.push(format!(
                    "{old} is not in the index (`codemap status -v` lists what was skipped)"
                ));
                continue;
            }
            Resolved::Many(n) => {
                out.notes.push(format!(
                    "{old} matches {n} indexed files; give the path from the repository root"
                ));
                continue;
            }
        };
        if fp.new_path.is_none() {
            // A deleted file: every declaration in it goes (its package stays).
            for i in v
                .in_file(&path)
                .filter(|&i| v.kind(i) != SymbolKind::Package)
            {
                push(&mut out.changes, i, ChangeKind::Removed, &[]);
            }
            continue;
        }
        let lines = v.file_lines(&path)?;
        let first_new = out.changes.len();
        let mut removed: Vec<u32> = Vec::new();
        for h in &fp.hunks {
            let Some(offset) = place(&lines, h) else {
                out.notes.push(format!(
                    "the hunk at {path}:{} does not match the indexed revision; re-index, or check the diff's base",
                    h.old_start
                ));
                continue;
            };
            if offset != 0 {
                out.notes.push(format!(
                    "the hunk at {path}:{} was found at line {} of the indexed revision",
                    h.old_start,
                    shift(h.old_start.max(1), offset)
                ));
            }
            let touched = h.touched();
            removed.extend(touched.0.iter().map(|&(l, _)| shift(l, offset)));
            map_hunk(v, &path, touched, offset, &mut out.changes);
        }
        // A symbol whose every non-blank line goes is removed, whatever its pieces said.
        for c in &mut out.changes[first_new..] {
            let (s, e) = v.span(c.sym);
            let gone = (s..=e).all(|l| {
                removed.contains(&l)
                    || lines
                        .get(l as usize - 1)
                        .is_none_or(|t| t.trim().is_empty())
            });
            if gone {
                c.kind = ChangeKind::Removed;
            }
        }
    }
    Ok(out)
}

enum Resolved {
    One(String),
    None,
    Many(usize),
}

/// The indexed path a diff's path names: itself, or the one indexed path that ends with it (a
/// diff made in a subfolder) or that it ends with (an index of a subfolder).
fn resolve(v: &SnapshotView<'_>, p: &str) -> Resolved {
    let p = p.trim_start_matches("./").trim_start_matches('/');
    if v.has_file(p) {
        return Resolved::One(p.to_string());
    }
    let found: Vec<&str> = v
        .paths()
        .filter(|q| {
            q.strip_suffix(p).is_some_and(|head| head.ends_with('/'))
                || p.strip_suffix(q).is_some_and(|head| head.ends_with('/'))
        })
        .collect();
    match found.len() {
        0 => Resolved::None,
        1 => Resolved::One(found[0].to_string()),
        n => Resolved::Many(n),
    }
}

fn shift(line: u32, offset: i64) -> u32 {
    (line as i64 + offset).max(0) as u32
}

/// How far the hunk's old side sits from where it says it does in `lines` (1-based file lines):
/// 0 when it matches in place, else the nearest place where it matches; `None` when it matches
/// nowhere. Lines compare without their leading and trailing whitespace (chat pastes lose it).
fn place(lines: &FileLines, h: &Hunk) -> Option<i64> {
    let old = h.old_side();
    if old.is_empty() {
        // A pure insertion without context: trust the line number if the file has it.
        return (h.old_start as usize <= lines.len()).then_some(0);
    }
    let fits = |start: usize| -> bool {
        // `start` is the 0-based index of the hunk's first old line.
        old.iter().enumerate().all(|(k, (_, text))| {
            lines
                .get(start + k)
                .is_some_and(|l| l.trim() == text.trim())
        })
    };
    let stated = h.old_start.max(1) as usize - 1;
    if fits(stated) {
        return Some(0);
    }
    // Blank lines alone cannot be found again.
    if old.iter().all(|(_, t)| t.trim().is_empty()) {
        return None;
    }
    let last = lines.len().checked_sub(old.len())?;
    (0..=last)
        .filter(|&s| fits(s))
        .min_by_key(|&s| s.abs_diff(stated))
        .map(|s| s as i64 - stated as i64)
}

/// What a change can be about: anything declared but a package (one line shared by a folder).
fn declaration(k: SymbolKind) -> bool {
    k != SymbolKind::Package
}

/// Blank lines and comments change no behaviour.
fn trivial(text: &str) -> bool {
    let t = text.trim();
    t.is_empty() || t.starts_with("//") || t.starts_with("/*") || t.starts_with('*')
}

fn map_hunk(
    v: &SnapshotView<'_>,
    path: &str,
    (removed, inserted): (Vec<(u32, &str)>, Vec<Insertion<'_>>),
    offset: i64,
    changes: &mut Vec<Change>,
) {
    for (line, text) in removed {
        if trivial(text) {
            continue;
        }
        let line = shift(line, offset);
        if let Some(i) = v.enclosing(path, line, declaration) {
            let kind = classify(v, i, line, false);
            push(changes, i, kind, &[line]);
        }
    }
    for ins in inserted {
        if ins.lines.iter().all(|t| trivial(t)) {
            continue;
        }
        let (before, after) = (shift(ins.before, offset), shift(ins.after, offset));
        // The innermost symbol around the insertion point: one that covers both neighbours, or
        // the one the inserted lines continue at the start or end of a body.
        let around = covering(v, path, before, after)
            .or_else(|| v.enclosing(path, after, declaration))
            .or_else(|| v.enclosing(path, before, declaration));
        if let Some(i) = around {
            let at = if v.span(i).0 <= before { before } else { after };
            let kind = classify(v, i, at, true);
            push(changes, i, kind, &[at]);
        }
    }
}

/// The innermost symbol of `path` whose span holds both `a` and `b`.
fn covering(v: &SnapshotView<'_>, path: &str, a: u32, b: u32) -> Option<SymIdx> {
    v.in_file(path)
        .filter(|&i| {
            let (s, e) = v.span(i);
            s <= a && b <= e && declaration(v.kind(i))
        })
        .min_by_key(|&i| {
            let (s, e) = v.span(i);
            e - s
        })
}

/// How a change at `line` changes symbol `i`.
fn classify(v: &SnapshotView<'_>, i: SymIdx, line: u32, insertion: bool) -> ChangeKind {
    let kind = v.kind(i);
    let (_, end) = v.span(i);
    if !kind.is_type() && !kind.is_callable() {
        return ChangeKind::Declaration; // a field, a constant: its line is all there is
    }
    // The line that ends the header: the one opening the body, else the declaration's last.
    let head = match v.sym(i).symbol.body_line {
        0 => end,
        l => l,
    };
    // An insertion right after the line that opens the body goes into the body.
    if line < head || (line == head && !insertion) {
        ChangeKind::Declaration
    } else if kind.is_type() {
        // Inside a type but outside its members: code between members.
        ChangeKind::Members
    } else {
        ChangeKind::Body
    }
}

fn push(changes: &mut Vec<Change>, i: SymIdx, kind: ChangeKind, lines: &[u32]) {
    match changes.iter_mut().find(|c| c.sym == i) {
        Some(c) => {
            // The strongest change wins: removed, then declaration, then body.
            c.kind = c.kind.min(kind);
            for &l in lines {
                if !c.lines.contains(&l) {
                    c.lines.push(l);
                }
            }
        }
        None => changes.push(Change {
            sym: i,
            kind,
            lines: lines.to_vec(),
        }),
    }
}

/// Where outside callers come in: an HTTP route, a schedule, or a message listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// `POST /api/payments/callback`, `cron=0 */5 * * * ?`, `@KafkaListener(topics = "x")`.
    pub entry: String,
    /// The method it enters.
    pub handler: SymIdx,
}

/// Calls followed up from a change when looking for entry points.
const ENTRY_DEPTH: usize = 8;
/// Methods visited at most on the way: each is a graph lookup, and 150 keep a callers question
/// on corpus-1m near 100 ms (500 took up to 590 ms).
const ENTRY_VISITS: usize = 150;

/// Entry points found, and whether the walk saw every caller it could reach.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    pub points: Vec<EntryPoint>,
    /// False when the walk stopped at [`ENTRY_DEPTH`] calls or [`ENTRY_VISITS`] methods with
    /// callers left to follow: there may be more.
    pub complete: bool,
}

impl Entries {
    /// What an answer says when the walk was cut short.
    pub fn note(&self) -> Option<String> {
        (!self.complete).then(|| {
            format!(
                "entry points: the walk up the callers stopped at {ENTRY_DEPTH} calls or {ENTRY_VISITS} methods; there may be more"
            )
        })
    }
}

/// The entry points whose calls reach any of `targets` (callers followed up to
/// [`ENTRY_DEPTH`] calls, tests left out), nearest first.
pub fn entry_points(
    v: &SnapshotView<'_>,
    graph: &dyn CallGraph,
    targets: &[SymIdx],
) -> Result<Entries, QueryError> {
    let mut complete = true;
    let mut out: Vec<EntryPoint> = Vec::new();
    let mut seen: Vec<SymIdx> = targets.to_vec();
    let mut frontier: Vec<SymIdx> = targets.to_vec();
    for _ in 0..=ENTRY_DEPTH {
        let level: Vec<SymbolId> = frontier
            .iter()
            .map(|&m| SymbolId(v.id(m).to_string()))
            .collect();
        graph.prefetch_callers(&level)?;
        let mut next = Vec::new();
        for &m in &frontier {
            let id = SymbolId(v.id(m).to_string());
            let named = graph.entries(&id)?;
            // The graph's route has the whole path (class prefix included); an annotation is
            // what a graph without framework edges can show.
            match (named.is_empty(), entry_annotation(v, m)) {
                (false, _) => named.into_iter().for_each(|e| push_entry(&mut out, e, m)),
                (true, Some(a)) => push_entry(&mut out, a, m),
                (true, None) => {}
            }
            for e in graph.callers(&id)? {
                if let Some(c) = v.by_id(&e.from.0)
                    && !seen.contains(&c)
                    && v.provenance_of(c) != Provenance::Test
                {
                    if seen.len() >= ENTRY_VISITS {
                        complete = false;
                        continue;
                    }
                    seen.push(c);
                    next.push(c);
                }
            }
        }
        if next.is_empty() {
            return Ok(Entries {
                points: out,
                complete,
            });
        }
        frontier = next;
    }
    // Callers were left at the last depth.
    Ok(Entries {
        points: out,
        complete: false,
    })
}

fn push_entry(out: &mut Vec<EntryPoint>, entry: String, handler: SymIdx) {
    if !out.iter().any(|x| x.entry == entry && x.handler == handler) {
        out.push(EntryPoint { entry, handler });
    }
}

/// The entry annotation a method with a body carries, as written (a Feign client's mapping
/// describes the remote endpoint, not one of this code's).
fn entry_annotation(v: &SnapshotView<'_>, m: SymIdx) -> Option<String> {
    if !v.has_body(m) {
        return None;
    }
    v.sym(m)
        .symbol
        .annotations
        .iter()
        .find(|a| crate::entry::is_entry(annotation_name(a)))
        .cloned()
}
