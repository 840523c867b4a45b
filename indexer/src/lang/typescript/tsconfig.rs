//! `tsconfig.json` / `jsconfig.json`: the module aliases of `compilerOptions.paths` and
//! `baseUrl`, made relative to the repository root, for the resolver. The file is JSON with
//! comments and trailing commas; `extends` is not followed.

use serde::{Deserialize, Serialize};

/// The aliases one project file declares.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TsConfig {
    /// The folder holding the file ("" at the root): it applies to the files below it.
    pub dir: String,
    /// `baseUrl`, from the repository root ("" for the root).
    pub base_url: Option<String>,
    /// `paths`: a pattern (`@app/*`) and its targets from the repository root (`src/app/*`).
    pub paths: Vec<(String, Vec<String>)>,
}

impl TsConfig {
    /// The paths a bare specifier may name, in the order TypeScript tries them: each `paths`
    /// entry matching it, then the specifier under `baseUrl`.
    pub fn candidates(&self, spec: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (pattern, targets) in &self.paths {
            let star = match pattern.split_once('*') {
                Some((pre, post)) => spec
                    .strip_prefix(pre)
                    .and_then(|r| r.strip_suffix(post))
                    .map(str::to_string),
                None => (pattern == spec).then(String::new),
            };
            if let Some(star) = star {
                out.extend(targets.iter().map(|t| t.replacen('*', &star, 1)));
            }
        }
        if let Some(base) = &self.base_url {
            out.push(join(base, spec));
        }
        out
    }
}

/// The aliases of the project file at `path`; `None` when it is not readable JSON.
pub fn parse(path: &str, src: &[u8]) -> Option<TsConfig> {
    let json: serde_json::Value =
        serde_json::from_str(&plain_json(&String::from_utf8_lossy(src))).ok()?;
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let options = json.get("compilerOptions");
    let base_url = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .map(|b| join(&dir, b));
    // `paths` are relative to `baseUrl`, or to the file's folder without one.
    let root = base_url.clone().unwrap_or_else(|| dir.clone());
    let paths = options
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
        .map(|p| {
            p.iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .as_array()
                        .map(|ts| {
                            ts.iter()
                                .filter_map(|t| t.as_str())
                                .map(|t| join(&root, t))
                                .collect()
                        })
                        .unwrap_or_default();
                    (pattern.clone(), targets)
                })
                .collect()
        })
        .unwrap_or_default();
    Some(TsConfig {
        dir,
        base_url,
        paths,
    })
}

/// `dir` joined with a relative path, `.` and `..` resolved.
fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// JSON with comments and trailing commas made plain JSON (strings left as they are).
fn plain_json(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push_str(&text[start..i]);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b',' => {
                // A comma before a closing bracket is dropped.
                let next = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if !matches!(next, Some(b'}') | Some(b']')) {
                    out.push(',');
                }
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
                continue;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_base_url_become_repository_paths() {
        let src = br#"{
  // the web app
  "compilerOptions": {
    "baseUrl": "./src", /* relative to this file */
    "paths": { "@app/*": ["app/*", "legacy/*"], "config": ["../config/index.ts"], },
  },
}"#;
        let c = parse("web/tsconfig.json", src).expect("parses");
        assert_eq!(c.dir, "web");
        assert_eq!(c.base_url.as_deref(), Some("web/src"));
        assert_eq!(
            c.candidates("@app/orders/api"),
            [
                "web/src/app/orders/api",
                "web/src/legacy/orders/api",
                "web/src/@app/orders/api"
            ]
        );
        assert_eq!(
            c.candidates("config"),
            ["web/config/index.ts", "web/src/config"]
        );
        let no_base = parse(
            "tsconfig.json",
            br#"{"compilerOptions":{"paths":{"~/*":["./src/*"]}}}"#,
        )
        .unwrap();
        assert_eq!(no_base.candidates("~/x"), ["src/x"]);
        assert_eq!(parse("tsconfig.json", b"{ not json"), None);
    }
}
