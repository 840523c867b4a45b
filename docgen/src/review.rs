//! The impact reviewer: a pull / merge request webhook starts a review of that request — one per
//! (repository, request) at a time, later pushes coalesced by the server's queue
//! ([`crate::serve::queue`]) — that fetches the request's head by the base repository's own
//! request ref into a work tree of its own, indexes it incrementally (seeded from the docs
//! job's index), computes the impact of the request's diff with `query::impact`, and posts or
//! edits one marked comment on the request. `docgen serve` hosts it as one kind of job beside
//! the code maps; it shares the server's config, state folder, git and code-host clients.
//!
//! A request is read-only input, from a fork or not: nothing is pushed, no branch is checked
//! out or moved, the docs clone and its branch are never touched, and no setting is read from
//! the request's files — where and what the reviewer writes comes from the server config.

pub mod comment;
pub mod job;
pub mod merge;

pub use job::{ReviewContext, ReviewError, ReviewOutcome, ReviewTrigger};
