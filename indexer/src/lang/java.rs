//! Java: a tree-sitter-java parse under a time budget, then symbols from one iterative cursor walk.
//!
//! Symbols (and the naming scheme of their ids) come from [`symbols`]; graph facts from [`calls`].

pub mod calls;
mod frameworks;
pub(crate) mod generated;
mod javadoc;
mod signature;
mod symbols;

use symbols::{K, extract, kind};

use crate::chunk::{self, ChunkContext};
use crate::lang::preorder::Preorder;
use crate::lang::{ParseLimits, bracket_depth};
use crate::model::{FileAnalysis, RepoPath};
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::Instant;
use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// The tree-sitter grammar.
pub fn language() -> tree_sitter::Language {
    tree_sitter_java::LANGUAGE.into()
}

/// Parses and extracts one Java file; `Err(reason)` when it must be indexed as text instead.
pub(crate) fn analyze(
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
) -> Result<FileAnalysis, String> {
    let depth = bracket_depth(src);
    if depth > limits.max_depth {
        return Err(format!(
            "nesting depth {depth} exceeds the limit of {}",
            limits.max_depth
        ));
    }
    let tree = parse(src, limits)?;
    let root = tree.root_node();
    // One flattening for both whole-tree walks; neither goes into these nodes' children.
    let preorder = Preorder::new(root, |n| kind(n) == K::Opaque && calls::opaque(n));
    let (package, imports, symbols) = extract(&preorder, src);
    let ctx = ChunkContext {
        path,
        module,
        package: package.as_deref(),
        imports: &imports,
        symbols: &symbols,
    };
    let chunks = chunk::chunk_tree(root, src, &ctx, limits.max_chunk_chars);
    // The call graph's facts come from the same tree.
    let facts = crate::graph::enabled().then(|| {
        let java = calls::extract(&preorder, src, package.as_deref(), &imports, &symbols);
        Box::new(crate::graph::FileFacts {
            java: Some(java),
            ..Default::default()
        })
    });
    let shape = generated::shape(package.as_deref(), &imports, &symbols);
    Ok(FileAnalysis {
        package,
        imports,
        symbols,
        chunks,
        degraded: None,
        facts,
        shape,
    })
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses with this thread's parser, giving up after `limits.timeout`.
pub(crate) fn parse(src: &[u8], limits: &ParseLimits) -> Result<Tree, String> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = match &mut *slot {
            Some(p) => p,
            empty => {
                let mut p = Parser::new();
                p.set_language(&language())
                    .map_err(|e| format!("tree-sitter-java unusable: {e}"))?;
                empty.insert(p)
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
        let tree = parser.parse_with_options(&mut read, None, Some(options));
        match tree {
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

#[cfg(test)]
mod tests;
