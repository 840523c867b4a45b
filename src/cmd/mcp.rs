//! `codemap mcp`: placeholder until the server lands.
use super::Outcome;
use crate::cli::{Global, McpArgs};
use anyhow::Result;

pub fn mcp(_g: &Global, _a: &McpArgs) -> Result<Outcome> {
    anyhow::bail!("not yet")
}
