//! Links to the code host, built only from a repository's configured template at the indexed
//! commit. These are the only URLs a reply ever carries.

use serde::Deserialize;

/// The code host a repository's citations link to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum LinkTemplate {
    /// `path:12-30` as text, no link.
    #[default]
    Plain,
    /// `{base}/blob/{commit}/{path}#L12-L30`
    Github { base: String },
    /// `{base}/-/blob/{commit}/{path}#L12-30`
    Gitlab { base: String },
    /// `{base}/src/commit/{commit}/{path}#L12-L30`
    Gitea { base: String },
}

impl LinkTemplate {
    /// Checks the base URL: https or http, no query, fragment, credentials or spaces.
    pub fn check(&self) -> Result<(), String> {
        let Some(base) = self.base() else {
            return Ok(());
        };
        let rest = base
            .strip_prefix("https://")
            .or_else(|| base.strip_prefix("http://"))
            .ok_or_else(|| format!("base {base:?} must start with https://"))?;
        let host = rest.split('/').next().unwrap_or("");
        if host.is_empty() {
            return Err(format!("base {base:?} has no host"));
        }
        if rest.contains(['?', '#', '@', ' ', '<', '>', '|', '"']) {
            return Err(format!(
                "base {base:?} must be a plain URL (no query, fragment, credentials or spaces)"
            ));
        }
        Ok(())
    }

    fn base(&self) -> Option<&str> {
        match self {
            LinkTemplate::Plain => None,
            LinkTemplate::Github { base }
            | LinkTemplate::Gitlab { base }
            | LinkTemplate::Gitea { base } => Some(base.trim_end_matches('/')),
        }
    }

    /// The URL of `path` lines `start..=end` at `commit`; `None` for plain repositories.
    pub fn url(&self, commit: &str, path: &str, start: u32, end: u32) -> Option<String> {
        let base = self.base()?;
        if !is_commit(commit) {
            return None;
        }
        let path = encode_path(path);
        let lines = |sep: &str| {
            if start == end {
                format!("#L{start}")
            } else {
                format!("#L{start}{sep}{end}")
            }
        };
        Some(match self {
            LinkTemplate::Plain => return None,
            LinkTemplate::Github { .. } => format!("{base}/blob/{commit}/{path}{}", lines("-L")),
            LinkTemplate::Gitlab { .. } => format!("{base}/-/blob/{commit}/{path}{}", lines("-")),
            LinkTemplate::Gitea { .. } => {
                format!("{base}/src/commit/{commit}/{path}{}", lines("-L"))
            }
        })
    }
}

/// A full or abbreviated hex object id (anything else would be a path injection).
fn is_commit(c: &str) -> bool {
    (7..=64).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Percent-encodes what may not stand in a URL path; keeps `/`.
fn encode_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~' | b'$' | b'+')
        {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    fn each_host_links_lines_at_the_commit() {
        let gh = LinkTemplate::Github {
            base: "https://github.com/acme/shop/".into(),
        };
        assert_eq!(
            gh.url(C, "a/B.java", 12, 30).unwrap(),
            format!("https://github.com/acme/shop/blob/{C}/a/B.java#L12-L30")
        );
        assert_eq!(
            gh.url(C, "a/B.java", 7, 7).unwrap(),
            format!("https://github.com/acme/shop/blob/{C}/a/B.java#L7")
        );
        let gl = LinkTemplate::Gitlab {
            base: "https://gitlab.example.com/g/shop".into(),
        };
        assert_eq!(
            gl.url(C, "a/B.java", 12, 30).unwrap(),
            format!("https://gitlab.example.com/g/shop/-/blob/{C}/a/B.java#L12-30")
        );
        let gt = LinkTemplate::Gitea {
            base: "https://git.example.com/o/shop".into(),
        };
        assert_eq!(
            gt.url(C, "a/B.java", 1, 2).unwrap(),
            format!("https://git.example.com/o/shop/src/commit/{C}/a/B.java#L1-L2")
        );
        assert_eq!(LinkTemplate::Plain.url(C, "a/B.java", 1, 2), None);
    }

    #[test]
    fn odd_paths_are_encoded_and_bad_commits_give_no_link() {
        let gh = LinkTemplate::Github {
            base: "https://github.com/acme/shop".into(),
        };
        assert_eq!(
            gh.url("abcdef0", "docs/a b#c?.md", 1, 1).unwrap(),
            "https://github.com/acme/shop/blob/abcdef0/docs/a%20b%23c%3F.md#L1"
        );
        assert_eq!(gh.url("HEAD", "a.java", 1, 1), None);
        assert_eq!(gh.url("../../evil", "a.java", 1, 1), None);
    }

    #[test]
    fn bases_must_be_plain_http_urls() {
        let t = |b: &str| LinkTemplate::Github { base: b.into() }.check();
        assert!(t("https://github.com/acme/shop").is_ok());
        assert!(t("http://gitea.local:3000/o/r").is_ok());
        assert!(t("javascript:alert(1)").is_err());
        assert!(t("https://user:pw@github.com/a").is_err());
        assert!(t("https://github.com/a?x=1").is_err());
        assert!(t("https:///a").is_err());
        assert!(LinkTemplate::Plain.check().is_ok());
    }
}
