//! What a docgen run is asked to do, and what it did.

use crate::DocgenError;
use query::ChatModel;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Where the module pages go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputMode {
    /// One page per module at `<out_dir>/<module>.md` (the default).
    #[default]
    Pages,
    /// Into each module's `README.md`, between `<!-- codemap:begin -->` and
    /// `<!-- codemap:end -->`; the human text around the markers is kept byte for byte. A README
    /// without markers gets them appended at its end; a missing README is created.
    ReadmeMarkers,
}

/// Options of one run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The repository's work tree: pages are written under it, and the steering file
    /// ([`crate::steering::FILE_NAME`]) is read from it.
    pub repo_root: PathBuf,
    /// Folder of the global page, the module pages ([`OutputMode::Pages`]) and the state file,
    /// relative to `repo_root` (default `docs/codemap`); an absolute path must lie under
    /// `repo_root` ([`out_dir_in`]).
    pub out_dir: PathBuf,
    pub mode: OutputMode,
    /// A folder whose `module.md.hbs` / `index.md.hbs` replace the built-in templates (each file
    /// is optional; absolute, or relative to the current directory).
    pub templates: Option<PathBuf>,
    /// The previous-state file, relative to `repo_root` (default `<out_dir>/.state.json`):
    /// fingerprints of the models the pages were rendered from. Committed with the pages.
    pub state_file: Option<PathBuf>,
    /// An OpenAI-compatible chat model: each module page then opens with a short purpose
    /// paragraph written from the module's facts, cached in the state file and asked for again
    /// only when the module changed. `None`: no paragraph.
    pub llm: Option<Llm>,
}

/// The chat model that writes purpose paragraphs (shared, so options stay cheap to clone).
#[derive(Clone)]
pub struct Llm(pub Arc<dyn ChatModel + Send + Sync>);

impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.describe())
    }
}

impl Options {
    /// Defaults for a repository: pages under `docs/codemap`, built-in templates.
    pub fn new(repo_root: impl Into<PathBuf>) -> Options {
        Options {
            repo_root: repo_root.into(),
            out_dir: PathBuf::from("docs/codemap"),
            mode: OutputMode::Pages,
            templates: None,
            state_file: None,
            llm: None,
        }
    }

    /// The state file's path relative to the repository root.
    pub fn state_path(&self) -> PathBuf {
        self.state_file
            .clone()
            .unwrap_or_else(|| self.out_dir.join(".state.json"))
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Files written (created or rewritten), relative to the repository root, `/`-separated,
    /// sorted. Includes the state file when it changed.
    pub written: Vec<String>,
    /// Whether anything was written; false means the docs already matched the index.
    pub changed: bool,
    /// Modules whose model changed since the state file's record (or all, without one).
    pub modules_changed: Vec<String>,
    /// The snapshot commit the run read (`None` when the index was not built from a git tree).
    pub commit: Option<String>,
}

/// `out` as a folder relative to `repo_root`, where [`Options::out_dir`] wants it: a relative
/// path stays as it is, an absolute one under `repo_root` loses that prefix. One outside the
/// repository (absolute elsewhere, or climbing out with `..`) is refused: pages link to the code
/// by relative paths and are committed with it. Lexical: the caller resolves symlinks first.
pub fn out_dir_in(repo_root: &Path, out: &Path) -> Result<PathBuf, DocgenError> {
    let outside = || DocgenError::OutsideRepo(out.to_path_buf(), repo_root.to_path_buf());
    if !out.is_absolute() {
        return normal(out).ok_or_else(outside);
    }
    let (root, abs) = (normal(repo_root), normal(out));
    match (root, abs) {
        (Some(root), Some(abs)) => abs
            .strip_prefix(&root)
            .map(Path::to_path_buf)
            .map_err(|_| outside()),
        _ => Err(outside()),
    }
}

/// `.` and `..` folded away; `None` when `..` climbs above the start.
fn normal(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_folder_is_taken_relative_to_the_repository() {
        let root = Path::new("/w/shop");
        let rel = |o: &str| out_dir_in(root, Path::new(o)).map_err(|e| e.to_string());
        assert_eq!(rel("docs/codemap").unwrap(), PathBuf::from("docs/codemap"));
        assert_eq!(rel("./a/../maps").unwrap(), PathBuf::from("maps"));
        assert_eq!(
            rel("/w/shop/site/maps").unwrap(),
            PathBuf::from("site/maps")
        );
        assert_eq!(rel("/w/shop/x/../maps").unwrap(), PathBuf::from("maps"));
        for bad in [
            "/w/maps",
            "/w/shopping/maps",
            "../maps",
            "a/../../maps",
            "/w/shop/../maps",
        ] {
            let e = rel(bad).unwrap_err();
            assert!(e.contains("outside the repository /w/shop"), "{bad}: {e}");
        }
    }
}
