//! codemap's team bot: questions from Slack, Discord and Feishu answered by the query side with
//! verified citations, inside per-channel repository scopes. Reaches the index only through
//! `query::Service`; knows nothing of how an answer is found.
//!
//! A question flows: platform router → [`inbox`] (dedupe, bounded queue) → [`dispatch`] (rate
//! limit, blocking answer, delivery with retries) → [`core`] ([`intent`], [`followup`], the
//! conversation's scope from [`config`], [`compose`] with [`links`] and [`neutralise`],
//! failures through [`classify`]) → the platform's [`platform::ChatSender`].

pub mod check;
pub mod classify;
pub mod compose;
pub mod config;
pub mod connect;
pub mod core;
pub mod dedupe;
pub mod dispatch;
pub mod followup;
pub mod inbox;
pub mod intent;
pub mod links;
pub mod model;
pub mod mount;
pub mod network;
pub mod neutralise;
pub mod platform;
pub mod ratelimit;
pub mod runtime;
pub mod server;

pub use config::Config;
pub use core::Core;
pub use inbox::{Inbox, Submitted};
pub use runtime::Running;
pub use server::run;
#[cfg(feature = "test-support")]
pub mod testing;
