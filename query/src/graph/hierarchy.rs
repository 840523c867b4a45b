//! Overriders from declared supertypes. A type's signature names what it extends and implements
//! (`final class StandardEngineValve extends ValveBase`); following those names upward says which
//! methods a call through an interface or an abstract method can reach. Names are simple names,
//! so two types sharing one are not told apart: good enough to rank candidates, not to prove an
//! edge.

use crate::view::{SnapshotView, SymIdx};
use indexer::model::SymbolKind;
use std::collections::HashMap;

/// Deepest supertype chain followed.
const MAX_DEPTH: usize = 8;

/// Simple names of the supertypes a type signature declares, in order: `extends` and
/// `implements` lists at the top level (not the bounds of its type parameters).
pub fn supertypes(signature: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut listing = false;
    let mut word_start: Option<usize> = None;
    let mut flush = |start: Option<usize>, end: usize, depth: i32, listing: &mut bool| {
        let Some(s) = start else { return };
        let word = &signature[s..end];
        if depth != 0 {
            return;
        }
        match word {
            "extends" | "implements" => *listing = true,
            "permits" | "throws" => *listing = false,
            _ if *listing => {
                let simple = word.rsplit('.').next().unwrap_or(word);
                if !simple.is_empty() && !out.contains(&simple) {
                    out.push(simple);
                }
            }
            _ => {}
        }
    };
    for (k, c) in signature.char_indices() {
        if c.is_alphanumeric() || c == '_' || c == '$' || c == '.' {
            word_start.get_or_insert(k);
            continue;
        }
        // A generic argument list belongs to the word before it (`AbstractMap<K, V>`).
        flush(word_start.take(), k, depth, &mut listing);
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '{' => break,
            _ => {}
        }
    }
    flush(word_start.take(), signature.len(), depth, &mut listing);
    out
}

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
            let sig = v.sym(x).symbol.signature.clone();
            for s in supertypes(&sig) {
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
    let sig = v.sym(t).symbol.signature.clone();
    let found = supertypes(&sig).into_iter().any(|s| {
        s == target
            || v.named(s)
                .into_iter()
                .filter(|&x| v.kind(x).is_type() && v.name(x) == s)
                .any(|x| descends(v, x, target, memo, depth + 1))
    });
    memo.insert(t, found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supertypes_at_the_top_level_only() {
        assert_eq!(
            supertypes(
                "public abstract class ValveBase extends LifecycleMBeanBase implements Contained, Valve"
            ),
            vec!["LifecycleMBeanBase", "Contained", "Valve"]
        );
        assert_eq!(
            supertypes(
                "class Box<T extends Comparable<T>> extends java.util.AbstractList<T> implements Cloneable"
            ),
            vec!["AbstractList", "Cloneable"]
        );
        assert_eq!(
            supertypes("public interface Deque<E> extends Queue<E>, SequencedCollection<E>"),
            vec!["Queue", "SequencedCollection"]
        );
        assert_eq!(
            supertypes("public sealed interface Shape permits Circle, Square"),
            Vec::<&str>::new()
        );
        assert!(supertypes("public final class Plain").is_empty());
    }
}
