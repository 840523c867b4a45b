//! The state file (`docs/codemap/.state.json`, committed with the pages): for each page, the
//! fingerprint of the model it was rendered from, the commit and snapshot generation at which
//! that model last changed, and its change list. A run compares fresh models with it and
//! rewrites only the pages whose model changed.
//!
//! Why the commit lives here and on each page, not "the commit of this run": a page states the
//! commit at which *its* module last changed. An unchanged module keeps that commit, so its
//! page stays byte-identical while other pages move on, and its citations (unchanged, since
//! they are part of the model) resolve at the commit it names.

use crate::DocgenError;
use crate::changes::Changes;
use crate::llm::LlmPurpose;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Bump when the model or the state's meaning changes: every page is then rewritten once.
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub version: u32,
    /// Hash of the templates the pages were rendered with.
    pub templates: String,
    pub global: Option<PageState>,
    pub modules: BTreeMap<String, PageState>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageState {
    pub fingerprint: String,
    /// Snapshot commit at which the model last changed.
    pub commit: Option<String>,
    /// The snapshot was of a work tree with uncommitted changes on top of `commit`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dirty: bool,
    /// Snapshot generation at which the model last changed (the base of the next diff).
    pub generation: u64,
    /// When that snapshot was indexed (Unix seconds): with the commit, it tells the snapshot
    /// apart from another index's snapshot under the same number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed_at: Option<i64>,
    /// Entry-point keys and using modules, to tell what appeared next time.
    #[serde(default)]
    pub entries: Vec<String>,
    #[serde(default)]
    pub used_by: Vec<String>,
    #[serde(default)]
    pub changes: Changes,
    /// The LLM purpose paragraph and the key of the facts it was written from (absent without
    /// a chat model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm_purpose: Option<LlmPurpose>,
}

impl State {
    /// Reads the state file; a missing one is an empty state (every page is new), a malformed
    /// one an error (it is committed: a broken merge should be seen, not papered over).
    pub fn load(path: &Path) -> Result<State, DocgenError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::default()),
            Err(e) => return Err(DocgenError::io(path)(e)),
        };
        let s: State = serde_json::from_str(&text).map_err(|e| DocgenError::State {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        // An older format: start over rather than misread it.
        Ok(if s.version == VERSION {
            s
        } else {
            State::default()
        })
    }

    /// The file's text: pretty JSON, keys in order, one final newline.
    pub fn to_text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}
