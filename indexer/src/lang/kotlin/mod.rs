//! Kotlin: symbols, imports and chunks from a tree-sitter-kotlin parse, graph facts from the
//! same tree ([`facts`]), calls resolved across the repository and into its Java classes
//! ([`resolve`]), and the Spring annotations the Java side knows ([`spring`]).
//!
//! Names follow the `package` header and the declaration chain (`com.shop.OrderService.pay`);
//! ids are `kt:` and that. Annotations are kept as written, so the Spring annotations the Java
//! side knows are on the symbols.

mod facts;
mod resolve;
mod spring;
mod symbols;

pub use facts::KtFacts;
pub use resolve::resolve;

use crate::chunk::{self, ChunkContext};
use crate::lang::support::Support;
use crate::lang::{ParseLimits, Spec, no_frames, no_null_use, no_thrown};
use crate::model::{FileAnalysis, Language, RepoPath};

pub const LANGUAGE: Language = Language::named("kotlin");

pub const SPEC: Spec = Spec {
    language: LANGUAGE,
    id_prefix: "kt",
    member_separator: '.',
    // `.kts` stays text: build scripts (`build.gradle.kts`) are configuration, not code.
    extensions: &["kt"],
    file_names: &[],
    analyze,
    trace: no_frames,
    thrown: no_thrown,
    runtime_written: &[],
    null_use: no_null_use,
    resolve: Some(resolve),
    reads_java: true,
    build_files: &[],
    descriptions: &[],
    runtime: &[
        "kotlin.",
        "java.lang.",
        "java.util.",
        "java.time.",
        "java.math.",
        "java.text.",
    ],
    support: Support {
        symbols: true,
        imports: true,
        calls: true,
        frameworks: &[
            "Spring MVC routes (class and function mappings)",
            "calls through injected beans to their one implementation",
            "@KafkaListener / @RabbitListener met by KafkaTemplate / RabbitTemplate sends",
            "@Scheduled",
            "calls into the repository's Java classes",
        ],
        traces: "JVM stack traces (top-level functions found by their file)",
    },
};

fn grammar() -> tree_sitter::Language {
    tree_sitter_kotlin_ng::LANGUAGE.into()
}

fn analyze(
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
) -> Result<FileAnalysis, String> {
    let depth = crate::lang::bracket_depth(src);
    if depth > limits.max_depth {
        return Err(format!("nesting depth {depth} over {}", limits.max_depth));
    }
    let tree = crate::lang::parse("kotlin", grammar, src, limits)?;
    let root = tree.root_node();
    let x = symbols::extract(root, src);
    let ctx = ChunkContext {
        path,
        module,
        package: x.package.as_deref(),
        imports: &x.imports,
        symbols: &x.symbols,
    };
    let chunks = chunk::chunk_tree(root, src, &ctx, limits.max_chunk_chars);
    let facts = crate::graph::enabled().then(|| {
        Box::new(crate::graph::FileFacts {
            lang: Some(facts::extract(root, src, &x.symbols).encode()),
            ..Default::default()
        })
    });
    Ok(FileAnalysis {
        package: x.package,
        imports: x.imports,
        symbols: x.symbols,
        chunks,
        degraded: None,
        facts,
        shape: None,
    })
}

#[cfg(test)]
mod tests;
