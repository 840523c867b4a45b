//! The facts of every file of a build as one file's resolver sees them. A streaming build
//! ([`super::build_each`]) keeps only the declarations of the other files
//! ([`super::FileFacts::declarations`]) and decodes a file's whole facts when it resolves that
//! file; a whole build ([`super::build`]) hands every file whole.

use super::FileFacts;
use crate::model::RepoPath;

/// File `i`'s declarations ([`FileFacts::declarations`], or its whole facts): borrowed when
/// every file's are held, decoded when they are not; `None` when it has none.
pub type Declared<'s> = dyn Fn(usize) -> Option<std::borrow::Cow<'s, FileFacts>> + Sync + 's;

#[derive(Clone, Copy)]
pub struct Files<'a> {
    all: &'a [(&'a RepoPath, &'a FileFacts)],
    /// The file being resolved, whole, standing in for its entry of `all`.
    own: Option<(usize, &'a FileFacts)>,
}

impl<'a> Files<'a> {
    pub fn new(all: &'a [(&'a RepoPath, &'a FileFacts)]) -> Files<'a> {
        Files { all, own: None }
    }

    /// The same files with `facts` standing for file `i`.
    pub fn with_own(self, i: usize, facts: &'a FileFacts) -> Files<'a> {
        Files {
            own: Some((i, facts)),
            ..self
        }
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<(&'a RepoPath, &'a FileFacts)> {
        let (p, f) = *self.all.get(i)?;
        match self.own {
            Some((o, own)) if o == i => Some((p, own)),
            _ => Some((p, f)),
        }
    }

    /// The path of file `i` (which must exist).
    pub fn path(&self, i: usize) -> &'a RepoPath {
        self.all[i].0
    }

    /// The facts of file `i` (which must exist).
    pub fn facts(&self, i: usize) -> &'a FileFacts {
        match self.own {
            Some((o, own)) if o == i => own,
            _ => self.all[i].1,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'a RepoPath, &'a FileFacts)> + '_ {
        (0..self.all.len()).map(|i| (self.path(i), self.facts(i)))
    }
}
