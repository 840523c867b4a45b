//! Whether an index location can serve, proved before a front starts (`codemap bot --check`):
//! the folder or server is there, the index opens and holds a snapshot. Fronts learn this here
//! instead of opening the stores themselves.

use crate::service::IndexLocation;
use indexer::store::meilisearch::MeiliStore;
use indexer::store::{EmbeddedIndex, IndexDir, IndexRead};
use std::path::PathBuf;

/// Indexed paths returned for the caller to look for in the work tree: enough to tell another
/// repository apart.
pub const SAMPLE: usize = 20;

/// What an index that opened holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub generation: u64,
    pub files: u64,
    /// HEAD when the snapshot was taken, if the root was a git work tree.
    pub commit: Option<String>,
    /// The first [`SAMPLE`] indexed paths in name order.
    pub sample: Vec<String>,
}

/// Why a location cannot serve. Each says what to run or fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("{0} does not exist; run `codemap index` in the repository or fix the path")]
    Missing(PathBuf),
    #[error("{0} holds no codemap index; run `codemap index` in the repository")]
    NoIndex(PathBuf),
    #[error("{0} does not open: {1}")]
    Broken(PathBuf, String),
    #[error("{0}: the index is empty; run `codemap index`")]
    Empty(PathBuf),
    #[error("{url} does not answer: {reason}")]
    Unreachable { url: String, reason: String },
    #[error(
        "{url} has nothing published for repository {repo:?} under prefix {prefix:?}; run `codemap index --backend meilisearch --repo-name {repo}`"
    )]
    Unpublished {
        url: String,
        repo: String,
        prefix: String,
    },
}

/// Opens the index at `location` and reads its last snapshot. Blocking.
pub fn probe(location: &IndexLocation) -> Result<Probe, ProbeError> {
    match location {
        IndexLocation::Embedded { index_dir, .. } => embedded(index_dir),
        IndexLocation::Meilisearch { config, .. } => {
            let unreachable = |e: &dyn std::fmt::Display| ProbeError::Unreachable {
                url: config.url.clone(),
                reason: e.to_string(),
            };
            let store = MeiliStore::connect(config.clone()).map_err(|e| unreachable(&e))?;
            match store.last_snapshot() {
                Ok(Some(s)) => Ok(Probe {
                    generation: s.generation,
                    files: s.files,
                    commit: s.commit,
                    sample: Vec::new(),
                }),
                Ok(None) => Err(ProbeError::Unpublished {
                    url: config.url.clone(),
                    repo: config.repo.clone(),
                    prefix: config.prefix.clone(),
                }),
                Err(e) => Err(unreachable(&e)),
            }
        }
    }
}

fn embedded(dir: &std::path::Path) -> Result<Probe, ProbeError> {
    let shown = dir.to_path_buf();
    if !dir.is_dir() {
        return Err(ProbeError::Missing(shown));
    }
    let idx = IndexDir::new(dir);
    if !idx.exists() {
        return Err(ProbeError::NoIndex(shown));
    }
    let broken = |e: &dyn std::fmt::Display| ProbeError::Broken(shown.clone(), e.to_string());
    let index = EmbeddedIndex::open(&idx).map_err(|e| broken(&e))?;
    let snapshot = index
        .last_snapshot()
        .map_err(|e| broken(&e))?
        .ok_or_else(|| ProbeError::Empty(shown.clone()))?;
    let mut sample: Vec<String> = index
        .current_files()
        .map_err(|e| broken(&e))?
        .into_keys()
        .map(|p| p.as_str().to_string())
        .collect();
    sample.sort();
    sample.truncate(SAMPLE);
    Ok(Probe {
        generation: snapshot.generation,
        files: snapshot.files,
        commit: snapshot.commit,
        sample,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(dir: PathBuf) -> IndexLocation {
        IndexLocation::Embedded {
            index_dir: dir,
            repo_root: None,
        }
    }

    #[test]
    fn a_missing_folder_and_a_folder_without_an_index_are_told_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = tmp.path().join("gone");
        assert_eq!(probe(&at(gone.clone())), Err(ProbeError::Missing(gone)));
        assert_eq!(
            probe(&at(tmp.path().to_path_buf())),
            Err(ProbeError::NoIndex(tmp.path().to_path_buf()))
        );
    }

    #[test]
    fn an_index_reports_its_snapshot_and_a_sorted_sample_of_its_files() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        for name in ["B.java", "A.java"] {
            std::fs::write(src.join(name), format!("class {} {{}}\n", &name[..1])).unwrap();
        }
        let dir = tmp.path().join(".codemap");
        indexer::pipeline::run(
            tmp.path(),
            &IndexDir::new(&dir),
            &indexer::pipeline::IndexOptions::default(),
            &|_| {},
        )
        .unwrap();
        let p = probe(&at(dir)).unwrap();
        assert_eq!(p.files, 2);
        assert_eq!(p.sample, ["src/A.java", "src/B.java"]);
        assert!(p.generation >= 1);
    }
}
