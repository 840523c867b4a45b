//! Overriders from declared supertypes. The indexer stores the simple names a type extends and
//! implements (`StandardEngineValve`: `ValveBase`); following those names upward says which
//! methods a call through an interface or an abstract method can reach. Names are simple names,
//! so two types sharing one are not told apart: good enough to rank candidates, not to prove an
//! edge.

use crate::view::{SnapshotView, SymIdx};
use indexer::model::SymbolKind;
use std::collections::HashMap;

/// Deepest supertype chain followed.
const MAX_DEPTH: usize = 8;

/// Methods with a body that override `callee` (same name and parameter count, in a type whose
/// declared supertypes lead to `callee`'s type) and that `keep` accepts, in symbol order. `None`
/// when more than `limit` methods share the name and parameter count: a name that common
/// (`start()`, `run()`) is not worth reading every candidate's type for. `keep` runs before any
/// type is read, so a cheap filter saves the reads. `memo` keeps what was found of each type
/// (whether it leads to `callee`'s type) for later calls on the same callee.
pub fn overriders(
    v: &SnapshotView<'_>,
    callee: SymIdx,
    limit: usize,
    keep: impl Fn(SymIdx) -> bool,
    memo: &mut HashMap<SymIdx, bool>,
) -> Option<Vec<SymIdx>> {
    let owner = v.owner_type(callee)?;
    let name = v.name(callee);
    let target = v.name(owner);
    let arity = v.param_types(callee).len();
    let candidates: Vec<SymIdx> = v
        .named(name)
        .into_iter()
        .filter(|&i| {
            i != callee
                && v.name(i) == name
                && v.kind(i) == SymbolKind::Method
                && v.has_body(i)
                && v.param_types(i).len() == arity
                && v.owner_type(i).is_some_and(|o| o != owner)
        })
        .collect();
    if candidates.len() > limit {
        return None;
    }
    Some(
        candidates
            .into_iter()
            .filter(|&i| keep(i))
            .filter(|&i| {
                v.owner_type(i)
                    .is_some_and(|o| descends(v, o, target, memo, 0))
            })
            .collect(),
    )
}

/// `t` and the indexed types it extends or implements, nearest first, up to [`MAX_DEPTH`]
/// levels (a simple name several types share stands for all of them).
pub fn ancestors(v: &SnapshotView<'_>, t: SymIdx) -> Vec<SymIdx> {
    let mut out = vec![t];
    let mut level = vec![t];
    for _ in 0..MAX_DEPTH {
        let mut next = Vec::new();
        for &x in &level {
            let supers = v.sym(x).symbol.supertypes.clone();
            for s in &supers {
                for y in v.named(s) {
                    if v.kind(y).is_type() && v.name(y) == s && !out.contains(&y) {
                        out.push(y);
                        next.push(y);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    out
}

/// Whether type `t` declares `target` among its supertypes, directly or further up.
fn descends(
    v: &SnapshotView<'_>,
    t: SymIdx,
    target: &str,
    memo: &mut HashMap<SymIdx, bool>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some(&known) = memo.get(&t) {
        return known;
    }
    memo.insert(t, false); // a cycle of declarations ends here
    let supers = v.sym(t).symbol.supertypes.clone();
    let found = supers.iter().any(|s| {
        s == target
            || v.named(s)
                .into_iter()
                .filter(|&x| v.kind(x).is_type() && v.name(x) == s)
                .any(|x| descends(v, x, target, memo, depth + 1))
    });
    memo.insert(t, found);
    found
}
