//! codemap's living code maps: one page per module, built from the index, regenerated only where a
//! snapshot diff changed something, and committed by a bot. Reads the index only through
//! `query::service`.

pub mod git;
pub mod host;
pub mod serve;
