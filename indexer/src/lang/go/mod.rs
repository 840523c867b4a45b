//! Go: symbols, imports and chunks from a tree-sitter-go parse, graph facts from the same
//! tree ([`facts`]) and calls, routes and requests resolved across the repository
//! ([`resolve`], [`routes`]).
//!
//! Names: a package is its directory (`internal/orders`), so a declaration's qualified name is
//! the directory, a dot and the declaration chain (`internal/orders.Service.Pay`); ids are `go:`
//! and that. A method belongs to its receiver's type. `go.mod` is read too: its module path
//! maps import paths to directories.

mod expr;
mod facts;
mod literals;
mod manifest;
mod resolve;
mod routes;
mod symbols;
mod trace;

pub use facts::GoFacts;
pub use resolve::resolve;

use crate::chunk::{self, ChunkContext};
use crate::lang::support::Support;
use crate::lang::{ParseLimits, Spec, no_null_use};
use crate::model::{FileAnalysis, Language, RepoPath};

pub const LANGUAGE: Language = Language::named("go");

pub const SPEC: Spec = Spec {
    language: LANGUAGE,
    id_prefix: "go",
    member_separator: '.',
    extensions: &["go"],
    file_names: &["go.mod"],
    analyze,
    trace: trace::frames,
    thrown: trace::thrown,
    runtime_written: trace::RUNTIME_WRITTEN,
    null_use: no_null_use,
    resolve: Some(resolve),
    reads_java: false,
    build_files: manifest::BUILD_FILES,
    descriptions: &[],
    runtime: &[],
    support: Support {
        symbols: true,
        imports: true,
        calls: true,
        frameworks: &[
            "net/http, gorilla/mux, gin, echo and chi routes (group prefixes)",
            "net/http client calls met with the routes they reach, any language",
            "interface calls dispatched to the types with all their methods",
        ],
        traces: "Go panics and goroutine dumps",
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
    if path.file_name() == "go.mod" {
        return Ok(go_mod(path, module, src, limits));
    }
    let depth = crate::lang::bracket_depth(src);
    if depth > limits.max_depth {
        return Err(format!("nesting depth {depth} over {}", limits.max_depth));
    }
    let tree = crate::lang::parse("go", grammar, src, limits)?;
    let root = tree.root_node();
    let package = package_of(path);
    let mut x = symbols::extract(root, src, &package);
    literals::attach(&mut x.symbols, literals::collect(root, src));
    let ctx = ChunkContext {
        path,
        module,
        package: Some(&package),
        imports: &x.imports,
        symbols: &x.symbols,
    };
    let chunks = chunk::chunk_tree(root, src, &ctx, limits.max_chunk_chars);
    let facts = crate::graph::enabled().then(|| {
        Box::new(crate::graph::FileFacts {
            lang: Some(facts::extract(root, src, &package, &x.symbols).encode()),
            ..Default::default()
        })
    });
    Ok(FileAnalysis {
        package: Some(package),
        imports: x.imports,
        symbols: x.symbols,
        chunks,
        degraded: None,
        facts,
        shape: None,
    })
}

/// `go.mod`: text chunks, and its module path as facts.
fn go_mod(path: &RepoPath, module: &str, src: &[u8], limits: &ParseLimits) -> FileAnalysis {
    let ctx = ChunkContext {
        path,
        module,
        package: None,
        imports: &[],
        symbols: &[],
    };
    let declared = manifest::module_name(&String::from_utf8_lossy(src));
    let facts = declared.filter(|_| crate::graph::enabled()).map(|m| {
        let facts = GoFacts {
            dir: package_of(path),
            module: Some(m),
            ..GoFacts::default()
        };
        Box::new(crate::graph::FileFacts {
            lang: Some(facts.encode()),
            ..Default::default()
        })
    });
    FileAnalysis {
        chunks: chunk::chunk_text(src, &ctx, limits.max_chunk_chars),
        facts,
        ..FileAnalysis::default()
    }
}

#[cfg(test)]
mod tests;
