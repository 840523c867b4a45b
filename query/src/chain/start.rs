//! Where a flow starts when the question chains calls: `Jsoup.connect(url).get()` runs `get()`
//! on what `connect` returns.

use super::MAX_IMPLEMENTATIONS;
use crate::graph::hierarchy::overriders;
use crate::question::code::{pasted_call_args, pasted_call_at, split_top_level};
use crate::view::{SnapshotView, SymIdx};
use indexer::model::Provenance;
use std::collections::HashMap;

/// For a question that chains a call on the result of `first` (`Jsoup.connect(url).get()`):
/// the method the second call runs, found in the type `first` returns (an implementation with a
/// body when that type only declares it), with the arity the question shows.
pub(crate) fn fluent_target(v: &SnapshotView<'_>, text: &str, first: SymIdx) -> Option<SymIdx> {
    let name = v.name(first);
    let at = pasted_call_at(text, name)?;
    let args = pasted_call_args(&text[at..], name)?;
    // Just past the `)` closing the first call (`args` is a slice of `text`).
    let after = args.as_ptr() as usize - text.as_ptr() as usize + args.len() + 1;
    let rest = text.get(after..)?.strip_prefix('.')?;
    let next: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    let next_args = pasted_call_args(rest, &next)?;
    let arity = if next_args.trim().is_empty() {
        0
    } else {
        split_top_level(next_args).len()
    };
    let first = v.sym(first);
    let returns = returned_class(&first.symbol.value_type)?;
    let mut memo = HashMap::new();
    let mut found = Vec::new();
    for t in v.named(returns) {
        if !(v.kind(t).is_type() && v.name(t) == returns) {
            continue;
        }
        for m in v.members(t) {
            if v.name(m) != next || v.param_types(m).len() != arity {
                continue;
            }
            if v.has_body(m) {
                found.push(m);
            } else {
                found.extend(overriders(v, m, MAX_IMPLEMENTATIONS, |_| true, &mut memo)?);
            }
        }
    }
    found
        .into_iter()
        .filter(|&m| v.provenance_of(m) == Provenance::Source)
        .min()
}

/// The simple name of the type a method returns (`Connection` for `public static Connection
/// connect(String url)`, `Element` for `Element[]`); `None` for `void` and primitives.
fn returned_class(returns: &str) -> Option<&str> {
    let simple = returns.trim_end_matches("[]");
    let primitive = matches!(
        simple,
        "void" | "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double"
    );
    (!primitive && simple.chars().next()?.is_uppercase()).then_some(simple)
}

#[cfg(test)]
mod tests {
    use super::returned_class;

    #[test]
    fn the_returned_class_is_a_class_name_not_void_or_a_primitive() {
        assert_eq!(returned_class("Connection"), Some("Connection"));
        assert_eq!(returned_class("Element[]"), Some("Element"));
        assert_eq!(returned_class("void"), None);
        assert_eq!(returned_class("int"), None);
        assert_eq!(returned_class(""), None);
    }
}
