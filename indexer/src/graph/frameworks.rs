//! Framework edges (filled in below).

use crate::graph::edge::Edge;
use crate::graph::facts::FileFacts;
use crate::graph::types::TypeTable;
use crate::model::RepoPath;

pub fn edges(_table: &TypeTable, _files: &[(&RepoPath, &FileFacts)]) -> Vec<Edge> {
    Vec::new()
}
