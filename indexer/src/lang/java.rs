//! Java: a tree-sitter-java parse under a time budget, then symbols from one iterative cursor walk.
//!
//! Symbols (and the naming scheme of their ids) come from [`symbols`]; graph facts from [`calls`].

mod build;
pub mod calls;
mod frameworks;
pub(crate) mod generated;
mod javadoc;
mod signature;
mod symbols;
mod trace;

use symbols::{K, extract, kind};

use crate::chunk::{self, ChunkContext};
use crate::lang::ParseLimits;
use crate::lang::preorder::Preorder;
use crate::lang::support::Support;
use crate::lang::{Described, Spec, description_field, no_thrown};
use crate::model::Language;
use crate::model::{FileAnalysis, RepoPath};
use tree_sitter::Tree;

pub const LANGUAGE: Language = Language::named("java");

/// Maven's `<description>` and Gradle's `description = "…"`.
const DESCRIBED: &[Described] = &[
    Described {
        name: "pom.xml",
        description: pom_description,
    },
    Described {
        name: "build.gradle",
        description: description_field,
    },
    Described {
        name: "build.gradle.kts",
        description: description_field,
    },
];

/// `<description>…</description>` on a line of its own.
fn pom_description(text: &str) -> Option<(u32, String)> {
    text.lines().enumerate().find_map(|(i, l)| {
        let v = l
            .trim()
            .strip_prefix("<description>")?
            .strip_suffix("</description>")?;
        Some((i as u32 + 1, v.to_string()))
    })
}

pub const SPEC: Spec = Spec {
    language: LANGUAGE,
    id_prefix: "java",
    member_separator: '#',
    extensions: &["java"],
    file_names: &[],
    analyze,
    trace: trace::frames,
    thrown: no_thrown,
    runtime_written: trace::RUNTIME_WRITTEN,
    null_use: trace::null_use,
    resolve: None,
    reads_java: false,
    build_files: build::BUILD_FILES,
    descriptions: DESCRIBED,
    runtime: &[
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
            "Spring MVC routes",
            "Spring beans",
            "Feign",
            "Dubbo",
            "RabbitMQ / Kafka / RocketMQ",
            "Spring events",
            "MyBatis",
            "configuration keys",
            "scheduled jobs",
        ],
        traces: "Java stack traces",
    },
};

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

/// Parses with this thread's Java parser, giving up after `limits.timeout`.
pub(crate) fn parse(src: &[u8], limits: &ParseLimits) -> Result<Tree, String> {
    crate::lang::parse("java", language, src, limits)
}

#[cfg(test)]
mod tests;
