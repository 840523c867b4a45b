//! Python: a tree-sitter-python parse under a time budget, then symbols and imports from one
//! walk ([`symbols`]) and AST chunks from the generic chunker.
//!
//! A module's dotted name comes from its path: `.py`/`.pyi` and a trailing `__init__` dropped,
//! and everything up to a `src/` directory (the "src layout"), so `src/flask/app.py` is
//! `flask.app`. Symbol ids are `py:` and the qualified name (`py:flask.app.Flask.run`).

mod facts;
mod fields;
mod manifest;
mod resolve;
mod symbols;
mod trace;
mod urlconf;

pub use facts::PyFacts;
pub use resolve::resolve;

use crate::chunk::{self, ChunkContext};
use crate::lang::preorder::Preorder;
use crate::lang::support::Support;
use crate::lang::{ParseLimits, Spec, no_thrown};
use crate::model::{FileAnalysis, Language, RepoPath};

pub const LANGUAGE: Language = Language::named("python");

pub const SPEC: Spec = Spec {
    language: LANGUAGE,
    id_prefix: "py",
    member_separator: '.',
    extensions: &["py", "pyi"],
    file_names: &[],
    analyze,
    trace: trace::frames,
    thrown: no_thrown,
    runtime_written: trace::RUNTIME_WRITTEN,
    null_use: trace::null_use,
    resolve: Some(resolve),
    reads_java: false,
    build_files: manifest::BUILD_FILES,
    descriptions: manifest::DESCRIBED,
    runtime: &[],
    support: Support {
        symbols: true,
        imports: true,
        calls: true,
        frameworks: &[
            "Flask / FastAPI routes (blueprint and router prefixes)",
            "Django URLconfs (include prefixes, class-based views, DRF routers)",
            "requests / httpx calls met with the routes they reach, any language",
            "Celery tasks reached from .delay / .apply_async / send_task / signatures",
            "Django and blinker signals: senders and model signals → receivers",
            "Django / SQLAlchemy models → tables, and the queries that use them",
            "os.environ / getenv, pydantic-settings fields, Django settings → config keys",
            "pytest fixtures",
            "decorators",
        ],
        traces: "Python tracebacks, pytest reports",
    },
};

fn grammar() -> tree_sitter::Language {
    tree_sitter_python::LANGUAGE.into()
}

/// The dotted module name of a Python file, and whether it is a package's `__init__`.
pub fn module_name(path: &RepoPath) -> (String, bool) {
    let p = path.as_str();
    let p = p
        .strip_suffix(".py")
        .or_else(|| p.strip_suffix(".pyi"))
        .unwrap_or(p);
    let mut parts: Vec<&str> = p.split('/').collect();
    if let Some(i) = parts[..parts.len() - 1].iter().rposition(|c| *c == "src") {
        parts.drain(..=i);
    }
    let is_package = parts.last() == Some(&"__init__") && parts.len() > 1;
    if is_package {
        parts.pop();
    }
    (parts.join("."), is_package)
}

fn analyze(
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
) -> Result<FileAnalysis, String> {
    let tree = crate::lang::parse("python", grammar, src, limits)?;
    let root = tree.root_node();
    let preorder = Preorder::new(root, |_| false);
    let (name, is_package) = module_name(path);
    let x = symbols::extract(&preorder, root, src, &name, is_package);
    let ctx = ChunkContext {
        path,
        module,
        package: Some(&name),
        imports: &x.imports,
        symbols: &x.symbols,
    };
    let chunks = chunk::chunk_tree(root, src, &ctx, limits.max_chunk_chars);
    let facts = crate::graph::enabled().then(|| {
        Box::new(crate::graph::FileFacts {
            lang: Some(facts::extract(&preorder, src, &name, is_package, &x.symbols).encode()),
            ..Default::default()
        })
    });
    Ok(FileAnalysis {
        package: Some(name),
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
