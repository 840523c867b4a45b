//! Go: symbols, imports and chunks from a tree-sitter-go parse.
//!
//! Names: a package is its directory (`internal/orders`), so a declaration's qualified name is
//! the directory, a dot and the declaration chain (`internal/orders.Service.Pay`); ids are `go:`
//! and that. A method belongs to its receiver's type.

mod symbols;

use crate::chunk::{self, ChunkContext};
use crate::lang::support::Support;
use crate::lang::{ParseLimits, Spec, no_frames};
use crate::model::{FileAnalysis, Language, RepoPath};

pub const LANGUAGE: Language = Language::named("go");

pub const SPEC: Spec = Spec {
    language: LANGUAGE,
    id_prefix: "go",
    extensions: &["go"],
    file_names: &[],
    analyze,
    trace: no_frames,
    resolve: None,
    build_files: &[],
    support: Support {
        symbols: true,
        imports: false,
        calls: false,
        frameworks: &[],
        traces: "",
    },
};

fn grammar() -> tree_sitter::Language {
    tree_sitter_go::LANGUAGE.into()
}

/// The package a file belongs to: its directory (`.` at the repository root).
pub fn package_of(path: &RepoPath) -> String {
    match path.as_str().rsplit_once('/') {
        Some((dir, _)) => dir.to_string(),
        None => ".".to_string(),
    }
}

fn analyze(
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
) -> Result<FileAnalysis, String> {
    let tree = crate::lang::parse("go", grammar, src, limits)?;
    let root = tree.root_node();
    let package = package_of(path);
    let x = symbols::extract(root, src, &package);
    let ctx = ChunkContext {
        path,
        module,
        package: Some(&package),
        imports: &x.imports,
        symbols: &x.symbols,
    };
    let chunks = chunk::chunk_tree(root, src, &ctx, limits.max_chunk_chars);
    Ok(FileAnalysis {
        package: Some(package),
        imports: x.imports,
        symbols: x.symbols,
        chunks,
        degraded: None,
        facts: None,
        shape: None,
    })
}

#[cfg(test)]
mod tests;
