//! The repository walk: which files of a work tree codemap reads, and which it skips and why.
//!
//! The walk itself ([`walk`]) only looks at paths and metadata; what needs the bytes is
//! [`classify_content`], run by the caller after reading a file. Rules (research B1–B4, B6):
//!
//! - `.gitignore`, `.ignore` and `.git/info/exclude` are respected whether or not the root is a
//!   git repository; the user's global gitignore is not, so two machines index the same files.
//!   [`WalkOptions::extra_ignores`] adds gitignore-syntax patterns.
//! - Hidden directories (`.git/`, `.pc/`, `.codemap/`) are never descended unless
//!   [`WalkOptions::include_hidden`]; `.git`, `.hg`, `.svn` and `.codemap` never are.
//!   Hidden files are dropped silently, except that secret-looking ones are reported.
//! - Secret-looking names (`.env`, `*.pem`, `id_rsa*`, … see [`SECRET_PATTERNS`]) are reported as
//!   [`SkipReason::Secret`] and never read.
//! - Symlinks are never followed: one resolving outside the root is reported as
//!   [`SkipReason::SymlinkOutsideRoot`], one resolving inside is dropped silently (its target is
//!   walked under its own path), one that does not resolve is reported as unreadable.
//! - Files whose type [`lang::detect`] does not know are not listed, only counted
//!   ([`WalkResult::unsupported_count`]); FIFOs, sockets and devices are never opened.
//! - Files over [`WalkOptions::max_file_size`] are reported as [`SkipReason::TooLarge`] from their
//!   metadata, before anything reads them.

use crate::lang;
use crate::model::{Language, Provenance, RepoPath, SkipReason};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::UNIX_EPOCH;

/// Default for [`WalkOptions::max_file_size`]: 1 MiB, as zoekt and Gitea.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 20;

/// File-name patterns of files that commonly hold credentials (research B6). Matched
/// case-insensitively against the file name only; the pattern is the reported rule.
pub const SECRET_PATTERNS: &[&str] = &[
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "credentials*.json",
    ".npmrc",
    ".pypirc",
    "kubeconfig",
    ".netrc",
    "*.gpg",
    "secrets.y*ml",
];

/// Directories never descended, even with [`WalkOptions::include_hidden`]: version-control
/// internals and codemap's own index.
const NEVER_DESCENDED: &[&str] = &[".git", ".hg", ".svn", ".codemap"];

/// What to walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    /// Files larger than this many bytes are skipped as [`SkipReason::TooLarge`].
    pub max_file_size: u64,
    /// Walk hidden files and directories (names starting with `.`) too.
    pub include_hidden: bool,
    /// More paths to leave out, in `.gitignore` syntax, relative to the root (`*.log`, `docs/`).
    pub extra_ignores: Vec<String>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            include_hidden: false,
            extra_ignores: Vec::new(),
        }
    }
}

/// A file the walk selected for indexing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkedFile {
    pub path: RepoPath,
    /// Absolute path, under the canonicalized root.
    pub abs: PathBuf,
    /// Size in bytes, from metadata at walk time.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 when the platform has none).
    pub mtime_ns: i64,
    pub language: Language,
}

/// Everything one walk found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkResult {
    /// Files to index, sorted by path.
    pub files: Vec<WalkedFile>,
    /// Files not indexed and why, sorted by path.
    pub skipped: Vec<(RepoPath, SkipReason)>,
    /// Only computed when `files` is empty (it costs a second walk), else 0: how many files of a
    /// type codemap indexes the ignore rules (`.gitignore`, `.ignore`, exclude, extra ignores)
    /// left out. Lets the CLI say "0 files indexed: N excluded by .gitignore".
    pub ignored_count: u64,
    /// Files left out because codemap does not index their type (images, class files, …).
    pub unsupported_count: u64,
}

/// Why a walk could not start. Problems with single files never fail a walk; they end up in
/// [`WalkResult::skipped`].
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{} does not exist", path.display())]
    NotFound { path: PathBuf },
    #[error("{} is not a directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error("{} cannot be opened: {source}", path.display())]
    Inaccessible {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid ignore pattern {pattern:?}: {error}")]
    InvalidIgnorePattern { pattern: String, error: String },
}

/// Walks the work tree at `root` (rules in the module documentation).
pub fn walk(root: &Path, opts: &WalkOptions) -> Result<WalkResult, WalkError> {
    let root = canonical_root(root)?;
    let extra = Arc::new(extra_ignores(&root, &opts.extra_ignores)?);
    let filtered = scan(&root, opts, Some(extra));
    let ignored_count = if filtered.files.is_empty() {
        let unfiltered = scan(&root, opts, None);
        unfiltered.candidates.saturating_sub(filtered.candidates)
    } else {
        0
    };
    let Scan {
        mut files,
        mut skipped,
        unsupported,
        ..
    } = filtered;
    files.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    skipped.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.label().cmp(b.1.label())));
    tracing::debug!(
        root = %root.display(),
        files = files.len(),
        skipped = skipped.len(),
        unsupported,
        ignored_count,
        "walked"
    );
    Ok(WalkResult {
        files,
        skipped,
        ignored_count,
        unsupported_count: unsupported,
    })
}

fn canonical_root(root: &Path) -> Result<PathBuf, WalkError> {
    let canonical = std::fs::canonicalize(root).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            WalkError::NotFound {
                path: root.to_path_buf(),
            }
        } else {
            WalkError::Inaccessible {
                path: root.to_path_buf(),
                source,
            }
        }
    })?;
    if !canonical.is_dir() {
        return Err(WalkError::NotADirectory {
            path: root.to_path_buf(),
        });
    }
    Ok(canonical)
}

fn extra_ignores(root: &Path, patterns: &[String]) -> Result<Gitignore, WalkError> {
    let mut builder = GitignoreBuilder::new(root);
    for pattern in patterns {
        builder
            .add_line(None, pattern)
            .map_err(|e| WalkError::InvalidIgnorePattern {
                pattern: pattern.clone(),
                error: e.to_string(),
            })?;
    }
    builder
        .build()
        .map_err(|e| WalkError::InvalidIgnorePattern {
            pattern: patterns.join(", "),
            error: e.to_string(),
        })
}

/// What one pass over the tree collected, unsorted.
#[derive(Default)]
struct Scan {
    files: Vec<WalkedFile>,
    skipped: Vec<(RepoPath, SkipReason)>,
    unsupported: u64,
    /// Non-hidden, non-secret entries of a supported type: what ignore rules could have hidden.
    candidates: u64,
}

impl Scan {
    fn merge(&mut self, other: Scan) {
        self.files.extend(other.files);
        self.skipped.extend(other.skipped);
        self.unsupported += other.unsupported;
        self.candidates += other.candidates;
    }
}

/// One parallel pass; `rules` is `None` to walk with every ignore rule off.
fn scan(root: &Path, opts: &WalkOptions, rules: Option<Arc<Gitignore>>) -> Scan {
    let use_rules = rules.is_some();
    let include_hidden = opts.include_hidden;
    let mut builder = WalkBuilder::new(root);
    builder
        .follow_links(false)
        .hidden(false) // hidden entries are handled below: secret files among them are reported
        .parents(use_rules)
        .ignore(use_rules)
        .git_ignore(use_rules)
        .git_exclude(use_rules)
        .git_global(false)
        .require_git(false)
        .filter_entry(move |entry| keep_entry(entry, include_hidden, rules.as_deref()));
    let sink = Mutex::new(Scan::default());
    builder.build_parallel().visit(&mut CollectorBuilder {
        root,
        opts,
        sink: &sink,
    });
    sink.into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Prunes what the walk must not descend or list: hidden and VCS directories, extra ignores.
fn keep_entry(entry: &DirEntry, include_hidden: bool, rules: Option<&Gitignore>) -> bool {
    if entry.depth() == 0 {
        return true;
    }
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    if is_dir {
        let name = entry.file_name().to_string_lossy();
        if NEVER_DESCENDED.contains(&name.as_ref()) || (!include_hidden && name.starts_with('.')) {
            return false;
        }
    }
    rules.is_none_or(|rules| !rules.matched(entry.path(), is_dir).is_ignore())
}

struct CollectorBuilder<'a> {
    root: &'a Path,
    opts: &'a WalkOptions,
    sink: &'a Mutex<Scan>,
}

impl<'a> ParallelVisitorBuilder<'a> for CollectorBuilder<'a> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(Collector {
            root: self.root,
            opts: self.opts,
            sink: self.sink,
            local: Scan::default(),
        })
    }
}

/// One walker thread's visitor: collects locally, merges into the sink when the thread ends.
struct Collector<'a> {
    root: &'a Path,
    opts: &'a WalkOptions,
    sink: &'a Mutex<Scan>,
    local: Scan,
}

impl ParallelVisitor for Collector<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        match entry {
            Ok(entry) => visit_entry(self.root, self.opts, entry, &mut self.local),
            Err(err) => record_error(self.root, &err, &mut self.local),
        }
        WalkState::Continue
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        let local = std::mem::take(&mut self.local);
        self.sink
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .merge(local);
    }
}

fn visit_entry(root: &Path, opts: &WalkOptions, entry: DirEntry, out: &mut Scan) {
    if entry.depth() == 0 {
        return;
    }
    let Some(file_type) = entry.file_type() else {
        return;
    };
    if file_type.is_dir() {
        return;
    }
    let Some(path) = repo_path(root, entry.path(), out) else {
        return;
    };
    let name = path.file_name();
    if let Some(rule) = secret_rule(name) {
        out.skipped.push((
            path,
            SkipReason::Secret {
                rule: rule.to_string(),
            },
        ));
        return;
    }
    if !opts.include_hidden && name.starts_with('.') {
        return;
    }
    let language = lang::detect(&path);
    if language.is_some() {
        out.candidates += 1;
    }
    if file_type.is_symlink() {
        match std::fs::canonicalize(entry.path()) {
            Ok(target) if target.starts_with(root) => {}
            Ok(_) => out.skipped.push((path, SkipReason::SymlinkOutsideRoot)),
            Err(e) if language.is_some() => out.skipped.push((
                path,
                SkipReason::Unreadable {
                    error: format!("symlink does not resolve: {e}"),
                },
            )),
            Err(_) => {}
        }
        return;
    }
    if !file_type.is_file() {
        return; // FIFO, socket, device: never opened
    }
    let Some(language) = language else {
        out.unsupported += 1;
        return;
    };
    let meta = match entry.metadata() {
        Ok(meta) => meta,
        Err(e) => {
            let error = e.to_string();
            out.skipped.push((path, SkipReason::Unreadable { error }));
            return;
        }
    };
    let size = meta.len();
    if size > opts.max_file_size {
        let cap = opts.max_file_size;
        out.skipped.push((path, SkipReason::TooLarge { size, cap }));
        return;
    }
    out.files.push(WalkedFile {
        path,
        abs: entry.into_path(),
        size,
        mtime_ns: mtime_ns(&meta),
        language,
    });
}

/// The repo path of `abs`; a path that is not UTF-8 is reported (under its lossy spelling) and
/// `None` returned.
fn repo_path(root: &Path, abs: &Path, out: &mut Scan) -> Option<RepoPath> {
    let rel = abs.strip_prefix(root).ok()?;
    if let Some(s) = rel.to_str() {
        let path = RepoPath::new(s);
        if path.is_none() {
            tracing::warn!(path = %abs.display(), "walked path is not a valid repo path");
        }
        return path;
    }
    let lossy = RepoPath::new(&rel.to_string_lossy())?;
    let error = "path is not valid UTF-8".to_string();
    out.skipped.push((lossy, SkipReason::Unreadable { error }));
    None
}

/// An I/O error on a path under the root (an unreadable directory) becomes a skip; anything
/// else (a malformed `.gitignore` line) is logged.
fn record_error(root: &Path, err: &ignore::Error, out: &mut Scan) {
    let mut inner = err;
    let path = loop {
        match inner {
            ignore::Error::WithPath { path, .. } => break Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                inner = err
            }
            _ => break None,
        }
    };
    if let (Some(path), Some(io)) = (path, err.io_error())
        && let Some(path) = path
            .strip_prefix(root)
            .ok()
            .and_then(|rel| RepoPath::new(&rel.to_string_lossy()))
    {
        let error = io.to_string();
        out.skipped.push((path, SkipReason::Unreadable { error }));
        return;
    }
    tracing::warn!(error = %err, "walk problem");
}

fn mtime_ns(meta: &Metadata) -> i64 {
    let Ok(modified) = meta.modified() else {
        return 0;
    };
    match modified.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_nanos()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_nanos()).map_or(i64::MIN, |n| -n),
    }
}

static SECRETS: LazyLock<GlobSet> = LazyLock::new(|| {
    let mut set = GlobSetBuilder::new();
    for pattern in SECRET_PATTERNS {
        let glob = GlobBuilder::new(pattern)
            .case_insensitive(true)
            .literal_separator(true)
            .build()
            .expect("SECRET_PATTERNS are valid globs");
        set.add(glob);
    }
    set.build().expect("SECRET_PATTERNS build a glob set")
});

/// The [`SECRET_PATTERNS`] entry a file name matches, if any.
pub fn secret_rule(file_name: &str) -> Option<&'static str> {
    if !SECRETS.is_match(file_name) {
        return None;
    }
    let first = SECRETS.matches(file_name).into_iter().min()?;
    SECRET_PATTERNS.get(first).copied()
}

/// NUL bytes in this many leading bytes mark a file binary (as ripgrep and GNU grep).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Content markers of generated files are looked for in this many leading bytes.
const GENERATED_SNIFF_BYTES: usize = 2 * 1024;
/// Files smaller than this are never called minified: skipping them gains nothing.
const MIN_MINIFIED_BYTES: usize = 1024;

/// Markers that a file was written by a tool (annotations, protoc, Go, Thrift headers).
const GENERATED_MARKERS: &[&[u8]] = &[
    b"@Generated",
    b"@generated",
    b"Generated by",
    b"DO NOT EDIT",
    b"Code generated by",
    b"Autogenerated by",
];

/// Content checks after reading a file's bytes.
///
/// - a NUL byte in the first 8 KiB → [`SkipReason::Binary`];
/// - minified → [`SkipReason::Minified`]: for web assets (`js`, `mjs`, `cjs`, `css`, `json`,
///   `map`) an average line over 110 characters (GitHub linguist's rule) or any line over 20,000;
///   for anything else an average line over 5,000. Files under 1 KiB never count as minified.
///   Line lengths count characters, not bytes.
///
/// Otherwise the file's provenance: [`path_provenance`], upgraded from source or test to
/// [`Provenance::Generated`] when the first 2 KiB hold a generator marker (`@Generated`,
/// `@generated`, `Generated by`, `DO NOT EDIT`, `Code generated by`, `Autogenerated by`) or a
/// web asset ends with a `sourceMappingURL` trailer.
pub fn classify_content(path: &RepoPath, bytes: &[u8]) -> Result<Provenance, SkipReason> {
    if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
        return Err(SkipReason::Binary);
    }
    let web = is_web_asset(path);
    if is_minified(bytes, web) {
        return Err(SkipReason::Minified);
    }
    let provenance = path_provenance(path);
    let upgradable = matches!(provenance, Provenance::Source | Provenance::Test);
    if upgradable && (has_generated_marker(bytes) || (web && has_source_map_trailer(bytes))) {
        return Ok(Provenance::Generated);
    }
    Ok(provenance)
}

fn is_web_asset(path: &RepoPath) -> bool {
    let ext = path.file_name().rsplit_once('.').map_or("", |(_, e)| e);
    ["js", "mjs", "cjs", "css", "json", "map"]
        .iter()
        .any(|w| ext.eq_ignore_ascii_case(w))
}

fn is_minified(bytes: &[u8], web: bool) -> bool {
    if bytes.len() < MIN_MINIFIED_BYTES {
        return false;
    }
    // Counting chars: every byte that is not a UTF-8 continuation byte starts one.
    let char_count = |s: &[u8]| s.iter().filter(|&&b| (b as i8) >= -0x40).count();
    if web {
        let (mut lines, mut chars, mut longest) = (0usize, 0usize, 0usize);
        for line in bytes.split(|&b| b == b'\n') {
            let n = char_count(line);
            lines += 1;
            chars += n;
            longest = longest.max(n);
        }
        if bytes.last() == Some(&b'\n') {
            lines -= 1; // `split` yields an empty tail after a final newline
        }
        longest > 20_000 || chars / lines.max(1) > 110
    } else {
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        let lines = newlines + usize::from(bytes.last() != Some(&b'\n'));
        let chars = char_count(bytes) - newlines;
        chars / lines.max(1) > 5_000
    }
}

fn has_generated_marker(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(GENERATED_SNIFF_BYTES)];
    GENERATED_MARKERS.iter().any(|m| contains(head, m))
}

/// A `//# sourceMappingURL=` (or `/*# … */`) trailer in the last lines: compiled output.
fn has_source_map_trailer(bytes: &[u8]) -> bool {
    let tail = &bytes[bytes.len().saturating_sub(512)..];
    contains(tail, b"# sourceMappingURL=")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Directories holding third-party code. Outside source trees only (a Java package may be
/// called `vendor`), except for the package-manager folders that are unambiguous anywhere.
const VENDOR_DIRS: &[&str] = &[
    "vendor",
    "vendors",
    "third_party",
    "third-party",
    "thirdparty",
    "3rdparty",
    "3rd_party",
    "3rd-party",
];
const PACKAGE_MANAGER_DIRS: &[&str] = &["node_modules", "bower_components", "jspm_packages"];
/// Directories of generated sources, anywhere.
const GENERATED_DIRS: &[&str] = &[
    "generated",
    "generated-sources",
    "generated-test-sources",
    "generated-src",
];
/// Build output directories. Outside source trees only: Spring has a package `aop.target`,
/// Gradle a package `build`.
const OUTPUT_DIRS: &[&str] = &["target", "build"];

/// Provenance from the path alone; precedence vendored > generated > test > source.
///
/// A *source tree* starts at the first `src` component; inside it, directory names are source
/// sets and packages, so only the source set right after `src` is looked at.
/// - Vendored: a `vendor/`, `third_party/`, … directory outside source trees; `node_modules/`,
///   `bower_components/`, `jspm_packages/` anywhere.
/// - Generated: a `generated/`, `generated-sources/`, … directory anywhere; `target/` or `build/`
///   outside source trees.
/// - Test: a `test/` or `tests/` directory or a benchmark module (`microbench/`, `…-jmh/`)
///   outside source trees; a test source set (`src/test/`, `src/it/`, `src/testFixtures/`,
///   `src/integrationTest/`, `src/jmh/`, `src/…Test/`); a test
///   file name (`*Test`, `*Tests`, `*TestCase`, `*IT` for Java, Kotlin, Groovy, Scala;
///   `*.test.*`, `*.spec.*`, `*_test.*` for the rest).
pub fn path_provenance(path: &RepoPath) -> Provenance {
    let s = path.as_str();
    let (dirs, name) = s.rsplit_once('/').unwrap_or(("", s));
    let (mut vendored, mut generated, mut test, mut example) = (false, false, false, false);
    let mut in_sources = false;
    let mut prev = "";
    for dir in dirs.split('/').filter(|d| !d.is_empty()) {
        vendored |= PACKAGE_MANAGER_DIRS.contains(&dir);
        generated |= GENERATED_DIRS.contains(&dir);
        if !in_sources {
            vendored |= VENDOR_DIRS.contains(&dir);
            generated |= OUTPUT_DIRS.contains(&dir);
            test |= matches!(dir, "test" | "tests") || is_benchmark_dir(dir);
            example |= is_example_dir(dir);
            in_sources = dir == "src";
        } else if prev == "src" {
            test |= is_test_source_set(dir);
        }
        prev = dir;
    }
    if vendored {
        Provenance::Vendored
    } else if generated {
        Provenance::Generated
    } else if test || is_test_file_name(name) {
        Provenance::Test
    } else if example {
        Provenance::Example
    } else {
        Provenance::Source
    }
}

/// A module or folder of example programs. Only above `src/`: a package named `examples`
/// inside the sources (`compress/archivers/examples/Expander.java`) is product code.
fn is_example_dir(dir: &str) -> bool {
    module_named(
        dir,
        &["example", "examples", "sample", "samples", "demo", "demos"],
    )
}

/// A module of benchmarks (`microbench/`, `jetty-jmh/`, `benchmarks/`): like tests, they exercise
/// the product and do not implement it. Only above `src/`, as for examples.
fn is_benchmark_dir(dir: &str) -> bool {
    module_named(
        dir,
        &[
            "bench",
            "benchmark",
            "benchmarks",
            "microbench",
            "microbenchmark",
            "microbenchmarks",
            "jmh",
        ],
    )
}

/// Whether a folder is one of `words` (any case) or ends with `-word` / `_word`
/// (`logback-examples`, `jetty-jmh`).
fn module_named(dir: &str, words: &[&str]) -> bool {
    let dir = dir.to_ascii_lowercase();
    words
        .iter()
        .any(|w| dir == *w || dir.ends_with(&format!("-{w}")) || dir.ends_with(&format!("_{w}")))
}

fn is_test_source_set(dir: &str) -> bool {
    matches!(
        dir,
        "test" | "tests" | "it" | "testFixtures" | "integrationTest" | "androidTest" | "jmh"
    ) || (dir.len() > 4 && dir.ends_with("Test"))
}

fn is_test_file_name(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if matches!(ext, "java" | "kt" | "groovy" | "scala") {
        // `FooIT` but not `AUDIT`: the `IT` must follow a lowercase letter or a digit.
        let it = stem
            .strip_suffix("IT")
            .and_then(|rest| rest.chars().last())
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        it || stem.ends_with("Test") || stem.ends_with("Tests") || stem.ends_with("TestCase")
    } else {
        stem.ends_with(".test") || stem.ends_with(".spec") || stem.ends_with("_test")
    }
}

#[cfg(test)]
mod tests;
