//! codemap's query side: turns a question or a search string into ranked, cited places in the
//! indexed snapshot. Reads the index; never writes it. Knows nothing about chat platforms.

pub mod search;

pub use search::{Hit, HitSource, SearchError, search};
