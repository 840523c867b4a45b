//! codemap's team bot: questions from Slack, Discord and Feishu answered by the query side with
//! verified citations, inside per-channel repository scopes. Reaches the index only through
//! `query::service`.
pub mod model;
pub mod inbox;
pub mod platform;
