//! One tree-sitter parse under a time budget, with a parser per language kept per thread.

use super::ParseLimits;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::Instant;
use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

thread_local! {
    static PARSERS: RefCell<HashMap<&'static str, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `src` with `grammar` (named `name`), giving up after `limits.timeout`; refuses a
/// source nested deeper than `limits.max_depth` before parsing (tree-sitter recurses per
/// nesting level in places).
pub(crate) fn parse(
    name: &'static str,
    grammar: fn() -> tree_sitter::Language,
    src: &[u8],
    limits: &ParseLimits,
) -> Result<Tree, String> {
    let depth = super::bracket_depth(src);
    if depth > limits.max_depth {
        return Err(format!(
            "nesting depth {depth} exceeds the limit of {}",
            limits.max_depth
        ));
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(name) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut p = Parser::new();
                p.set_language(&grammar())
                    .map_err(|err| format!("tree-sitter-{name} unusable: {err}"))?;
                e.insert(p)
            }
        };
        // No deadline when the timeout does not fit an `Instant`.
        let deadline = Instant::now().checked_add(limits.timeout);
        let mut timed_out = false;
        let mut progress = |_: &ParseState| {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                timed_out = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut read = |i: usize, _| src.get(i..).unwrap_or_default();
        let options = ParseOptions::new().progress_callback(&mut progress);
        match parser.parse_with_options(&mut read, None, Some(options)) {
            Some(tree) => Ok(tree),
            None => {
                parser.reset(); // otherwise the next parse resumes this one
                Err(if timed_out {
                    format!("parse timed out after {} ms", limits.timeout.as_millis())
                } else {
                    "parser gave up".to_string()
                })
            }
        }
    })
}
