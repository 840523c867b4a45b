//! The language seam: which files are parsed structurally, and the one entry point that turns a
//! file's bytes into symbols, chunks and graph facts.
//!
//! Each structural language lives in one folder under `lang/` and declares a [`Spec`]; adding a
//! language means that folder and one line in [`REGISTRY`]. Everything above the indexer sees
//! only the language-neutral [`FileAnalysis`]. Analysis never fails: when structural parsing is
//! abandoned (too deep, too slow, parser error) the file is chunked as text and
//! [`FileAnalysis::degraded`] says why.

pub mod config;
pub mod go;
pub mod java;
pub mod kotlin;
pub mod mybatis;
mod parse;
mod preorder;
pub mod python;
pub mod support;
pub(crate) mod text;
pub mod typescript;

pub(crate) use parse::parse;

use crate::chunk::{self, ChunkContext};
use crate::model::{FileAnalysis, Language, RepoPath};
use std::panic::{self, AssertUnwindSafe};
use std::time::Duration;

/// A language's resolver: the repository's files and their facts in, each file's edges out.
pub type Resolver = fn(&[(&RepoPath, &crate::graph::FileFacts)]) -> Vec<Vec<crate::graph::Edge>>;

/// One structural language: how its files are recognised and analysed, and what it supports.
pub struct Spec {
    pub language: Language,
    /// What its symbol ids start with, before the colon (`java`, `py`): [`crate::node::NodeId`].
    pub id_prefix: &'static str,
    /// What stands between a type and its member in the language's ids (`#` in
    /// `java:org.x.Foo#bar(int)`, `.` in `py:shop.Order.pay`).
    pub member_separator: char,
    /// File extensions, without the dot, compared case-insensitively.
    pub extensions: &'static [&'static str],
    /// Files of another type the language also reads, by exact name (a project file such as
    /// `tsconfig.json`, whose settings its resolver needs).
    pub file_names: &'static [&'static str],
    /// Symbols, imports, chunks and graph facts of one file; `Err(reason)` when the file must be
    /// indexed as text instead.
    pub analyze: fn(&RepoPath, &str, &[u8], &ParseLimits) -> Result<FileAnalysis, String>,
    /// The frames of pasted failure output in this language's format (stack trace, traceback).
    pub trace: fn(&str) -> Vec<TraceFrame>,
    /// A line of failure output in a form only this language writes (Go's `panic: …`): what
    /// was thrown and its message. Lines of the `Class: message` form that Java, Python and
    /// JavaScript share are read by the query crate.
    pub thrown: fn(&str) -> Option<Thrown>,
    /// Exceptions whose message the runtime writes, not the repository's code
    /// (`java.lang.NullPointerException`, `KeyError`): no code line holds their message.
    pub runtime_written: &'static [&'static str],
    /// What a runtime's message about a null (`None`, `undefined`) dereference says was used on
    /// it, from the exception's class and message: the member and, when the message names it,
    /// the null expression ([`null_use`]).
    pub null_use: fn(&str, &str) -> Option<NullUse>,
    /// The edges of this language's files, by index into the repository's files, from the
    /// [`crate::graph::LangFacts`] its `analyze` stored (`None`: the graph resolves it itself,
    /// as it does Java).
    pub resolve: Option<Resolver>,
    /// Whether its resolver reads the Java files' declarations (Kotlin calls into the
    /// repository's Java classes): a run that cannot hold every file's declarations then
    /// decodes them for it ([`crate::graph::Declarations::Decoded`]).
    pub reads_java: bool,
    /// The package manifests that make a directory a module ([`crate::module`]).
    pub build_files: &'static [BuildFile],
    /// The manifests that say in a field what their module is for (`<description>` of a
    /// `pom.xml`, `"description"` of a `package.json`), in the order they are looked at.
    pub descriptions: &'static [Described],
    /// Namespaces of the runtime's own values (collections, strings, time), as the start of a
    /// library id after its prefix: a call into them stays in the process
    /// ([`stays_in_process`]).
    pub runtime: &'static [&'static str],
    /// What the language has, for the support matrix ([`support`]).
    pub support: support::Support,
}

/// A build file or package manifest that makes its directory a module ([`crate::module`]).
pub struct BuildFile {
    /// Its file name.
    pub name: &'static str,
    /// Also a file named after its directory with this ending (`spring-core/spring-core.gradle`).
    pub dir_named: Option<&'static str>,
    /// The build system, as the module's kind (`maven`, `gradle`; `package` for a language's
    /// own package manifest).
    pub system: &'static str,
    /// Of several build files in one directory, the highest ranked makes the module (a Maven pom
    /// over a Gradle build over a package manifest).
    pub rank: u8,
    /// The module name the file declares.
    pub module_name: fn(&str) -> Option<String>,
    /// In a root build file, the directories of the projects it includes (Gradle's settings).
    pub includes: fn(&str) -> Vec<String>,
}

impl BuildFile {
    /// A language's package manifest (`pyproject.toml`, `package.json`, `go.mod`): the lowest
    /// rank, named by what it declares, including nothing.
    pub const fn package(name: &'static str, module_name: fn(&str) -> Option<String>) -> Self {
        BuildFile {
            name,
            dir_named: None,
            system: "package",
            rank: 1,
            module_name,
            includes: includes_nothing,
        }
    }

    fn is(&self, dir_name: &str, file_name: &str) -> bool {
        file_name == self.name
            || self.dir_named.is_some_and(|end| {
                !dir_name.is_empty() && file_name.strip_suffix(end) == Some(dir_name)
            })
    }
}

/// For a build file that declares no module name: the directory names it.
pub fn no_module_name(_: &str) -> Option<String> {
    None
}

fn includes_nothing(_: &str) -> Vec<String> {
    Vec::new()
}

/// A manifest that describes its module: its file name, and the line and text of that
/// description (`None`: it gives none).
pub struct Described {
    pub name: &'static str,
    pub description: fn(&str) -> Option<(u32, String)>,
}

/// The describing manifests of every registered language, in registry order.
pub fn described_files() -> impl Iterator<Item = &'static Described> {
    REGISTRY.iter().flat_map(|s| s.descriptions)
}

/// `description = "…"` (or `description: …`) on a line of its own, as Gradle, pyproject.toml
/// and setup.cfg write it: its line and value, quotes dropped.
pub fn description_field(text: &str) -> Option<(u32, String)> {
    text.lines().enumerate().find_map(|(i, l)| {
        let r = l.trim().strip_prefix("description")?;
        let r = r.trim_start();
        (r.starts_with('=') || r.starts_with(':')).then(|| {
            let v = r.trim_start_matches([' ', '=', ':']).trim();
            (i as u32 + 1, v.trim_matches(['"', '\'']).to_string())
        })
    })
}

/// The build file of a registered language named `file_name` in a directory named `dir_name`
/// (`""` at the repository root).
pub fn build_file(dir_name: &str, file_name: &str) -> Option<&'static BuildFile> {
    REGISTRY
        .iter()
        .flat_map(|s| s.build_files)
        .find(|b| b.is(dir_name, file_name))
}

/// A frame of pasted failure output, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceFrame {
    /// The enclosing type as the trace names it (`org.x.Foo`, inner classes dotted); empty when
    /// the format names the file instead (Python).
    pub owner: String,
    /// The function as the source names it (`<init>` for a Java constructor, `<clinit>` for a
    /// static initializer, `<module>` for Python module code); empty when not given.
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    /// Which exception it belongs to: 0 for the one raised last, higher for its causes; the
    /// highest is where the failure started.
    pub cause: u16,
}

/// What a line of failure output says was thrown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thrown {
    /// The exception's class, or the kind of failure (`panic`, `runtime error`).
    pub class: String,
    pub message: Option<String>,
}

/// The failure-line reader of a language without a form of its own.
pub fn no_thrown(_line: &str) -> Option<Thrown> {
    None
}

/// What `line` says was thrown, in the form of a registered language that has its own.
pub fn thrown(line: &str) -> Option<Thrown> {
    REGISTRY.iter().find_map(|s| (s.thrown)(line))
}

/// A member used on a null value, as a runtime's message names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NullUse {
    /// The member called or read (`getManager`).
    pub member: String,
    /// The expression that was null (`context`); empty when the message does not say.
    pub on: String,
}

/// The null-use reader of a language whose runtime messages are not read.
pub fn no_null_use(_class: &str, _message: &str) -> Option<NullUse> {
    None
}

/// Whether exception `class` has its message written by a registered language's runtime.
pub fn runtime_written(class: &str) -> bool {
    REGISTRY.iter().any(|s| s.runtime_written.contains(&class))
}

/// What the message of exception `class` says was used on a null value, if a registered
/// language's runtime wrote it.
pub fn null_use(class: &str, message: &str) -> Option<NullUse> {
    REGISTRY.iter().find_map(|s| (s.null_use)(class, message))
}

/// The trace parser of a language whose traces are not read (yet).
pub fn no_frames(_: &str) -> Vec<TraceFrame> {
    Vec::new()
}

/// The frames of every format found in `text`, in the order each language's parser gives them.
pub fn trace_frames(text: &str) -> Vec<TraceFrame> {
    REGISTRY.iter().flat_map(|s| (s.trace)(text)).collect()
}

/// Every structural language, one line each.
pub const REGISTRY: &[&Spec] = &[
    &java::SPEC,
    &python::SPEC,
    &typescript::SPEC,
    &typescript::JS_SPEC,
    &go::SPEC,
    &kotlin::SPEC,
];

/// Whether `id` is a member of a registered language's runtime values ([`Spec::runtime`]): a
/// call to it does not leave the process (`java:java.util.List#add`).
pub fn stays_in_process(id: &str) -> bool {
    let n = crate::node::NodeId::parse(id);
    n.is_symbol()
        && REGISTRY
            .iter()
            .filter(|s| s.id_prefix == n.prefix)
            .any(|s| s.runtime.iter().any(|r| n.rest.starts_with(r)))
}

/// The registered language stored under `name`.
pub fn by_name(name: &str) -> Option<Language> {
    REGISTRY
        .iter()
        .find(|s| s.language.as_str() == name)
        .map(|s| s.language)
}

fn spec(language: Language) -> Option<&'static Spec> {
    REGISTRY.iter().copied().find(|s| s.language == language)
}

/// Budgets that keep one pathological file from stalling or crashing an index run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseLimits {
    /// Wall-clock budget for the tree-sitter parse of one file.
    pub timeout: Duration,
    /// Bracket nesting depth above which a file is not parsed structurally (tree-sitter recurses
    /// per nesting level in places; real files reach about 3,300).
    pub max_depth: usize,
    /// Chunk size limit, in non-whitespace characters.
    pub max_chunk_chars: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits {
            timeout: Duration::from_secs(2),
            max_depth: 5000,
            max_chunk_chars: 1500,
        }
    }
}

/// Extensions indexed as plain text (compared case-insensitively) when no registered language
/// claims them: a language added to the registry takes its extensions from this list.
const TEXT_EXTENSIONS: &[&str] = &[
    "md",
    "markdown",
    "txt",
    "adoc",
    "rst",
    "xml",
    "yml",
    "yaml",
    "properties",
    "json",
    "gradle",
    "kts",
    "sql",
    "sh",
    "html",
    "js",
    "ts",
    "go",
    "rs",
    "c",
    "h",
    "cpp",
    "kt",
    "scala",
    "toml",
    "ini",
    "cfg",
    "conf",
];

/// Extension-less file names indexed as plain text.
const TEXT_FILE_NAMES: &[&str] = &["README", "Dockerfile", "Makefile", "Jenkinsfile"];

/// The language a file is analysed as, from its name; `None` for files codemap does not index.
pub fn detect(path: &RepoPath) -> Option<Language> {
    let name = path.file_name();
    if let Some(spec) = REGISTRY.iter().find(|s| s.file_names.contains(&name)) {
        return Some(spec.language);
    }
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return TEXT_FILE_NAMES.contains(&name).then_some(Language::TEXT);
    };
    if stem.is_empty() {
        return None; // dot files such as `.gitignore`
    }
    let structural = REGISTRY
        .iter()
        .find(|s| s.extensions.iter().any(|e| ext.eq_ignore_ascii_case(e)));
    if let Some(spec) = structural {
        Some(spec.language)
    } else if TEXT_EXTENSIONS.iter().any(|t| ext.eq_ignore_ascii_case(t)) {
        Some(Language::TEXT)
    } else {
        None
    }
}

/// Analyses one file: symbols, imports and chunks for structural languages, chunks only for text.
///
/// Never panics and never recurses on the syntax tree. When structural parsing is abandoned
/// (nesting deeper than `limits.max_depth`, parse slower than `limits.timeout`, parser failure)
/// the result is a text-only analysis with `degraded: Some(reason)`. `src` may be invalid UTF-8:
/// line numbers count `\n` bytes of the original; stored text is converted lossily.
pub fn analyze(
    lang: Language,
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
) -> FileAnalysis {
    let Some(structural) = spec(lang).map(|s| s.analyze) else {
        let mut a = text_analysis(path, module, src, limits, None);
        a.facts = resource_facts(path, src);
        if path.file_name().ends_with(".xml") {
            a.shape = mybatis::generator_shape(src);
        }
        return a;
    };
    // A bug in extraction must cost one file, not the run.
    match panic::catch_unwind(AssertUnwindSafe(|| structural(path, module, src, limits))) {
        Ok(Ok(analysis)) => analysis,
        Ok(Err(reason)) => text_analysis(path, module, src, limits, Some(reason)),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(path = %path, panic = %msg, "structural analysis panicked");
            text_analysis(
                path,
                module,
                src,
                limits,
                Some(format!("internal error: {msg}")),
            )
        }
    }
}

/// Call-graph facts of framework resource files: Spring configuration keys, MyBatis mappers.
fn resource_facts(path: &RepoPath, src: &[u8]) -> Option<Box<crate::graph::FileFacts>> {
    if !crate::graph::enabled() {
        return None;
    }
    let facts = if config::is_config_file(path) {
        crate::graph::FileFacts {
            config: config::keys(path, src),
            ..Default::default()
        }
    } else if path.file_name().ends_with(".xml") {
        crate::graph::FileFacts {
            mapper: Some(mybatis::mapper(src)?),
            ..Default::default()
        }
    } else {
        return None;
    };
    (!facts.is_empty()).then(|| Box::new(facts))
}

fn text_analysis(
    path: &RepoPath,
    module: &str,
    src: &[u8],
    limits: &ParseLimits,
    degraded: Option<String>,
) -> FileAnalysis {
    let ctx = ChunkContext {
        path,
        module,
        package: None,
        imports: &[],
        symbols: &[],
    };
    FileAnalysis {
        chunks: chunk::chunk_text(src, &ctx, limits.max_chunk_chars),
        degraded,
        ..FileAnalysis::default()
    }
}

/// Deepest nesting of `(`, `[` and `{` in C-family source, ignoring comments, string, text-block
/// and character literals. Linear, allocation-free: decides whether a tree-sitter parse is safe.
pub(crate) fn bracket_depth(src: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    while i < src.len() {
        match src[i] {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'/' if src.get(i + 1) == Some(&b'/') => {
                i = memchr(b'\n', src, i).unwrap_or(src.len());
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                i = find(b"*/", src, i + 2).map_or(src.len(), |j| j + 1);
            }
            b'"' if src[i..].starts_with(b"\"\"\"") => {
                i = find(b"\"\"\"", src, i + 3).map_or(src.len(), |j| j + 2);
            }
            q @ (b'"' | b'\'') => {
                // A literal ends at its closing quote or, if unterminated, at the line end.
                i += 1;
                while i < src.len() && src[i] != q && src[i] != b'\n' {
                    i += if src[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    max
}

fn memchr(b: u8, src: &[u8], from: usize) -> Option<usize> {
    src.get(from..)?
        .iter()
        .position(|&c| c == b)
        .map(|p| p + from)
}

fn find(needle: &[u8], src: &[u8], from: usize) -> Option<usize> {
    src.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The harness every language's fixtures run through: a fixture marks each line that holds a
/// symbol's name with `def: <id> <id>…` (in a comment), and the symbols found must be exactly
/// those, on exactly those lines.
#[cfg(test)]
pub(crate) fn assert_inline_defs(lang: Language, path: &str, src: &[u8]) -> FileAnalysis {
    use std::collections::BTreeMap;
    let path = RepoPath::new(path).expect("fixture path");
    let analysis = analyze(lang, &path, "fixtures", src, &ParseLimits::default());
    assert_eq!(analysis.degraded, None, "{path}");
    let mut expected: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (i, line) in String::from_utf8_lossy(src).lines().enumerate() {
        if let Some((_, ids)) = line.split_once("def: ") {
            expected.insert(
                i as u32 + 1,
                ids.split_whitespace().map(str::to_string).collect(),
            );
        }
    }
    let mut found: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for s in &analysis.symbols {
        found.entry(s.name_line).or_default().push(s.id.0.clone());
    }
    for (line, ids) in expected.iter().chain(&found) {
        assert_eq!(
            found.get(line),
            expected.get(line),
            "{path}:{line}: symbols {ids:?}"
        );
    }
    analysis
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> RepoPath {
        RepoPath::new(s).unwrap()
    }

    /// The runtime's values stay in the process; a library client and a pseudo id do not.
    #[test]
    fn runtime_values_stay_in_process() {
        assert!(stays_in_process("java:java.util.List#add(Object)"));
        assert!(stays_in_process("kt:kotlin.collections.List.add"));
        assert!(!stays_in_process(
            "java:org.springframework.mail.MailSender#send"
        ));
        assert!(!stays_in_process("java:javax.mail.Transport#send"));
        assert!(!stays_in_process("table:java.util"));
    }

    #[test]
    fn detect_maps_extensions() {
        assert_eq!(detect(&path("src/A.java")), Some(java::LANGUAGE));
        assert_eq!(detect(&path("pom.xml")), Some(Language::TEXT));
        assert_eq!(detect(&path("docs/README.MD")), Some(Language::TEXT));
        assert_eq!(detect(&path("README")), Some(Language::TEXT));
        assert_eq!(detect(&path("lib/a.jar")), None);
        assert_eq!(detect(&path(".gitignore")), None);
        assert_eq!(detect(&path("LICENSE")), None);
        assert_eq!(
            detect(&path("web/tsconfig.json")),
            Some(typescript::LANGUAGE)
        );
        // A package's name and `exports` are module aliases, as a tsconfig's `paths` are.
        assert_eq!(
            detect(&path("web/package.json")),
            Some(typescript::LANGUAGE)
        );
    }

    #[test]
    fn bracket_depth_ignores_comments_and_literals() {
        assert_eq!(
            bracket_depth(b"class A { void f() { g(\"((((\", '(', '\\''); } }"),
            3
        );
        assert_eq!(bracket_depth(b"// ((((\n/* {{{{ */ x"), 0);
        assert_eq!(bracket_depth(b"s = \"\"\"\n (((( \n\"\"\"; ((1))"), 2);
        assert_eq!(bracket_depth(b"\"unterminated (((\n(x)"), 1);
        assert_eq!(bracket_depth(b")))((("), 3);
    }

    #[test]
    fn text_files_are_chunked_without_symbols() {
        let a = analyze(
            Language::TEXT,
            &path("a.md"),
            "m",
            b"# T\n\nhello\n",
            &ParseLimits::default(),
        );
        assert!(a.symbols.is_empty() && a.degraded.is_none());
        assert_eq!(a.chunks.len(), 1);
        assert_eq!((a.chunks[0].start_line, a.chunks[0].end_line), (1, 3));
    }
}
