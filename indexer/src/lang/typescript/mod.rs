//! TypeScript and JavaScript: two languages of the registry from one folder, since the
//! TypeScript grammar extends the JavaScript one and their declarations, imports and calls are
//! read by the same code. `.ts`/`.mts`/`.cts` parse with tree-sitter-typescript, `.tsx` with its
//! TSX dialect, `.js`/`.jsx`/`.mjs`/`.cjs` with tree-sitter-javascript; a Vue single-file
//! component is its `<script>` block ([`vue`]), parsed as TypeScript when `lang="ts"`.
//!
//! A module's dotted name comes from its path: the extension (`.d.ts` whole) and a trailing
//! `index` dropped, everything up to the last `src/` directory dropped, `/` read as `.` — so
//! `src/services/orders.ts` is `services.orders` and `src/api/index.ts` is `api`. Symbol ids are
//! `ts:` or `js:` and the qualified name, the module's name then the chain of enclosing
//! declarations (`ts:services.orders.OrderService.pay`).

mod facts;
mod http;
mod resolve;
mod symbols;
mod trace;
mod tsconfig;
mod vue;

pub use facts::TsFacts;
pub use resolve::resolve;

use crate::chunk::{self, ChunkContext};
use crate::lang::preorder::Preorder;
use crate::lang::support::Support;
use crate::lang::{BuildFile, Described, ParseLimits, Spec, no_frames, no_null_use, no_thrown};
use crate::model::{FileAnalysis, Language, RepoPath};

pub const LANGUAGE: Language = Language::named("typescript");

/// The `name` a package.json declares: an npm package (a workspace member) is a module.
fn package_name(text: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    v.get("name")?
        .as_str()
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}
pub const JAVASCRIPT: Language = Language::named("javascript");

const FRAMEWORKS: &[&str] = &[
    "Express / NestJS routes",
    "axios / fetch / wx.request requests, and those of wrappers given a URL (from constants and other modules' exported objects), met with the routes they reach, any language",
];

pub const SPEC: Spec = Spec {
    language: LANGUAGE,
    id_prefix: "ts",
    member_separator: '.',
    extensions: &["ts", "tsx", "mts", "cts", "vue"],
    // Their `paths` and `baseUrl` aliases, and packages' names, are how imports name files.
    file_names: PROJECT_FILES,
    analyze,
    trace: trace::frames,
    thrown: no_thrown,
    runtime_written: &[],
    null_use: trace::null_use,
    // One resolver for both languages: a TypeScript file imports JavaScript and back.
    resolve: Some(resolve),
    reads_java: false,
    build_files: &[BuildFile::package("package.json", package_name)],
    descriptions: &[Described {
        name: "package.json",
        description: package_description,
    }],
    runtime: &[],
    support: Support {
        symbols: true,
        imports: true,
        calls: true,
        frameworks: FRAMEWORKS,
        traces: "Node.js stack traces",
    },
};

pub const JS_SPEC: Spec = Spec {
    language: JAVASCRIPT,
    id_prefix: "js",
    member_separator: '.',
    extensions: &["js", "jsx", "mjs", "cjs"],
    // `jsconfig.json` is read with `tsconfig.json`, by the TypeScript entry.
    file_names: &[],
    analyze,
    // Node's stack traces are read once, by the TypeScript entry.
    trace: no_frames,
    thrown: no_thrown,
    runtime_written: &[],
    null_use: no_null_use,
    // Resolved with TypeScript's files by [`SPEC`]'s resolver.
    resolve: None,
    reads_java: false,
    // package.json is the TypeScript entry's.
    build_files: &[],
    descriptions: &[],
    runtime: &[],
    support: Support {
        symbols: true,
        imports: true,
        calls: true,
        frameworks: FRAMEWORKS,
        traces: "Node.js stack traces",
    },
};

const PROJECT_FILES: &[&str] = &["tsconfig.json", "jsconfig.json", "package.json"];

/// Which grammar a file is parsed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Ts,
    Tsx,
    Js,
}

impl Dialect {
    fn of(path: &RepoPath) -> Dialect {
        let name = path.file_name();
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        match ext.to_ascii_lowercase().as_str() {
            "ts" | "mts" | "cts" => Dialect::Ts,
            "tsx" => Dialect::Tsx,
            _ => Dialect::Js,
        }
    }

    fn parse(self, src: &[u8], limits: &ParseLimits) -> Result<tree_sitter::Tree, String> {
        match self {
            Dialect::Ts => crate::lang::parse("typescript", ts_grammar, src, limits),
            Dialect::Tsx => crate::lang::parse("tsx", tsx_grammar, src, limits),
            Dialect::Js => crate::lang::parse("javascript", js_grammar, src, limits),
        }
    }

    /// The id prefix of the file's symbols.
    fn prefix(self) -> &'static str {
        match self {
            Dialect::Ts | Dialect::Tsx => "ts",
            Dialect::Js => "js",
        }
    }
}

fn ts_grammar() -> tree_sitter::Language {
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
}

fn tsx_grammar() -> tree_sitter::Language {
    tree_sitter_typescript::LANGUAGE_TSX.into()
}

fn js_grammar() -> tree_sitter::Language {
    tree_sitter_javascript::LANGUAGE.into()
}

/// Extensions a module specifier may leave out, in the order Node and bundlers try them.
pub(crate) const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue",
];

/// The path without its extension (`.d.ts` whole).
fn strip_extension(p: &str) -> &str {
    if let Some(s) = p.strip_suffix(".d.ts") {
        return s;
    }
    match p.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') && !stem.ends_with('/') => stem,
        _ => p,
    }
}

/// The dotted module name of a file (see the module docs).
pub fn module_name(path: &RepoPath) -> String {
    let p = strip_extension(path.as_str());
    let mut parts: Vec<&str> = p.split('/').collect();
    if let Some(i) = parts[..parts.len() - 1].iter().rposition(|c| *c == "src") {
        parts.drain(..=i);
    }
    if parts.len() > 1 && parts.last() == Some(&"index") {
        parts.pop();
    }
    parts.join(".")
}

fn analyze(
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
) -> Result<FileAnalysis, String> {
    if PROJECT_FILES.contains(&path.file_name()) {
        return Ok(project_file(path, module, src, limits));
    }
    let script = path
        .file_name()
        .to_ascii_lowercase()
        .ends_with(".vue")
        .then(|| vue::script(src));
    let (code, dialect) = match &script {
        Some(s) if s.typescript => (&s.masked[..], Dialect::Ts),
        Some(s) => (&s.masked[..], Dialect::Js),
        None => (src, Dialect::of(path)),
    };
    let tree = dialect.parse(code, limits)?;
    let root = tree.root_node();
    let preorder = Preorder::new(root, |_| false);
    let name = module_name(path);
    let x = symbols::extract(&preorder, root, code, &name, dialect.prefix());
    let ctx = ChunkContext {
        path,
        module,
        package: Some(&name),
        imports: &x.imports,
        symbols: &x.symbols,
    };
    let chunks = match &script {
        // The template and styles are text; the script's lines keep their numbers.
        Some(s) => vue::chunks(root, src, s, &ctx, limits.max_chunk_chars),
        None => chunk::chunk_tree(root, src, &ctx, limits.max_chunk_chars),
    };
    let facts = crate::graph::enabled().then(|| {
        let language = if dialect == Dialect::Js {
            JAVASCRIPT
        } else {
            LANGUAGE
        };
        Box::new(crate::graph::FileFacts {
            lang: Some({
                let mut f =
                    facts::extract(&preorder, code, dialect.prefix(), &x.symbols, &x.scopes);
                http::inline_constants(&mut f.requests, &x.symbols);
                for (_, url) in &mut f.urls {
                    *url = http::with_constants(url, &x.symbols);
                }
                f.urls.extend(http::string_constants(&x.symbols));
                f.encode(language)
            }),
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

/// A `tsconfig.json` or `package.json`: text chunks, and its aliases as facts.
fn project_file(path: &RepoPath, module: &str, src: &[u8], limits: &ParseLimits) -> FileAnalysis {
    let ctx = ChunkContext {
        path,
        module,
        package: None,
        imports: &[],
        symbols: &[],
    };
    let config = if path.file_name() == "package.json" {
        tsconfig::parse_package(path.as_str(), src)
    } else {
        tsconfig::parse(path.as_str(), src)
    };
    let facts = config.filter(|_| crate::graph::enabled()).map(|c| {
        let facts = TsFacts {
            config: Some(c),
            ..TsFacts::default()
        };
        Box::new(crate::graph::FileFacts {
            lang: Some(facts.encode(LANGUAGE)),
            ..Default::default()
        })
    });
    FileAnalysis {
        chunks: chunk::chunk_text(src, &ctx, limits.max_chunk_chars),
        facts,
        ..FileAnalysis::default()
    }
}

/// `"description": "…"` of a `package.json`.
fn package_description(text: &str) -> Option<(u32, String)> {
    text.lines().enumerate().find_map(|(i, l)| {
        let r = l.trim().strip_prefix("\"description\"")?;
        let v = r.trim_start_matches([' ', ':']).trim_end_matches(',');
        Some((i as u32 + 1, v.trim_matches('"').to_string()))
    })
}

#[cfg(test)]
mod tests;
