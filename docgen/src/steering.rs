//! The steering file a team commits beside its code: `codemap-docs.toml` at the repository root.
//!
//! ```toml
//! skip = ["shop-gateway"]              # modules left out of the maps
//!
//! [links]                              # how citations link to the code host
//! host = "github"                      # github | gitlab | gitea | plain (default: plain)
//! base = "https://github.com/acme/shop"
//!
//! [notes]                              # human notes, included verbatim on the module's page
//! shop-order = "Orders are cancelled by the timeout job, never by hand."
//!
//! [[pages]]                            # extra pages listed on the global page
//! title = "Onboarding"
//! path = "docs/onboarding.md"
//! ```
//!
//! At the root rather than in `.codemap/` because that folder holds the index and is usually
//! ignored by git. Read once at the start of a run; an unknown key, a module name that is not a
//! module, or an extra page that does not exist is an error naming it.

use crate::DocgenError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Name of the steering file at the repository root.
pub const FILE_NAME: &str = "codemap-docs.toml";

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Steering {
    /// Modules (by name) that get no page and stay out of the global page.
    #[serde(default)]
    pub skip: Vec<String>,
    /// How `path:line` citations link to the code host.
    #[serde(default)]
    pub links: Links,
    /// Human notes per module (by name), Markdown, included verbatim under "Notes".
    #[serde(default)]
    pub notes: BTreeMap<String, String>,
    /// Hand-written pages listed on the global page.
    #[serde(default)]
    pub pages: Vec<ExtraPage>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Links {
    #[serde(default)]
    pub host: Host,
    /// The repository's web address (`https://github.com/acme/shop`); required unless `plain`.
    pub base: Option<String>,
}

/// Code hosts whose line links docgen knows.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Host {
    Github,
    Gitlab,
    Gitea,
    /// Relative links to the files in the repository (no line anchor a host could scroll to).
    #[default]
    Plain,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExtraPage {
    pub title: String,
    /// Repository-relative path of the page; it must exist.
    pub path: String,
    /// One line said about it on the global page.
    #[serde(default)]
    pub about: String,
}

impl Steering {
    /// Parses and checks the steering text. `modules` are the repository's module names;
    /// `exists` says whether a repository-relative path exists.
    pub fn parse(
        text: &str,
        modules: &[&str],
        exists: impl Fn(&str) -> bool,
    ) -> Result<Steering, String> {
        let s: Steering = toml::from_str(text).map_err(|e| e.to_string())?;
        let known = |m: &str| modules.contains(&m);
        for m in &s.skip {
            if !known(m) {
                return Err(format!(
                    "skip: {m:?} is not a module ({})",
                    modules.join(", ")
                ));
            }
        }
        for m in s.notes.keys() {
            if !known(m) {
                return Err(format!(
                    "notes.{m}: {m:?} is not a module ({})",
                    modules.join(", ")
                ));
            }
        }
        for (i, p) in s.pages.iter().enumerate() {
            if !exists(&p.path) {
                return Err(format!("pages[{i}].path: {:?} does not exist", p.path));
            }
        }
        if s.links.host != Host::Plain && s.links.base.is_none() {
            return Err("links.base: required when links.host is not \"plain\"".into());
        }
        Ok(s)
    }

    /// Reads the steering file of `root`; no file means defaults.
    pub fn load(root: &Path, modules: &[&str]) -> Result<Steering, DocgenError> {
        let path = root.join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Steering::default()),
            Err(e) => return Err(DocgenError::io(path)(e)),
        };
        Steering::parse(&text, modules, |p| root.join(p).exists())
            .map_err(|message| DocgenError::Steering { path, message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULES: &[&str] = &["shop-order", "shop-gateway"];

    #[test]
    fn a_full_file_parses() {
        let s = Steering::parse(
            r#"skip = ["shop-gateway"]
[links]
host = "gitlab"
base = "https://gitlab.example.com/acme/shop"
[notes]
shop-order = "Read *this* first."
[[pages]]
title = "Onboarding"
path = "docs/onboarding.md"
"#,
            MODULES,
            |p| p == "docs/onboarding.md",
        )
        .unwrap();
        assert_eq!(s.skip, vec!["shop-gateway"]);
        assert_eq!(s.links.host, Host::Gitlab);
        assert_eq!(s.notes["shop-order"], "Read *this* first.");
        assert_eq!(s.pages[0].title, "Onboarding");
    }

    #[test]
    fn an_unknown_key_is_named() {
        let e = Steering::parse("skp = []", MODULES, |_| true).unwrap_err();
        assert!(e.contains("skp"), "{e}");
        let e = Steering::parse("[links]\nhots = \"github\"", MODULES, |_| true).unwrap_err();
        assert!(e.contains("hots"), "{e}");
    }

    #[test]
    fn unknown_modules_hosts_and_missing_pages_are_named() {
        let e = Steering::parse("skip = [\"shop-ordr\"]", MODULES, |_| true).unwrap_err();
        assert!(e.contains("shop-ordr"), "{e}");
        let e = Steering::parse("[notes]\nnope = \"x\"", MODULES, |_| true).unwrap_err();
        assert!(e.starts_with("notes.nope"), "{e}");
        let e = Steering::parse("[links]\nhost = \"bitbucket\"", MODULES, |_| true).unwrap_err();
        assert!(e.contains("bitbucket"), "{e}");
        let e = Steering::parse("[links]\nhost = \"github\"", MODULES, |_| true).unwrap_err();
        assert!(e.starts_with("links.base"), "{e}");
        let e = Steering::parse(
            "[[pages]]\ntitle = \"x\"\npath = \"no.md\"",
            MODULES,
            |_| false,
        )
        .unwrap_err();
        assert!(e.starts_with("pages[0].path"), "{e}");
    }
}
