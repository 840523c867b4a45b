//! `tsconfig.json` / `jsconfig.json`: the module aliases of `compilerOptions.paths` and
//! `baseUrl`, made relative to the repository root, for the resolver. The file is JSON with
//! comments and trailing commas; `extends` is not followed. A `package.json` is read the same
//! way: the package's name and subpaths (`exports`, `main`…) are aliases of its files, which is
//! how a workspace member or a package's own tests import it (`zod/v4` → `src/v4/index.ts`).

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
    /// The package's name, for a `package.json` (its aliases apply to the whole repository).
    pub package: Option<String>,
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
        package: None,
    })
}

/// The aliases a `package.json` at `path` declares for its package's name: each `exports`
/// subpath, then the bare name's entry fields and `src/index`, then (without `exports`) any
/// subpath under the package's folder. `None` without a name or when it is not JSON.
pub fn parse_package(path: &str, src: &[u8]) -> Option<TsConfig> {
    let json: serde_json::Value = serde_json::from_slice(src).ok()?;
    let name = json.get("name")?.as_str().filter(|n| !n.is_empty())?;
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let mut paths: Vec<(String, Vec<String>)> = Vec::new();
    let exports = json.get("exports");
    match exports {
        Some(serde_json::Value::Object(m)) if m.keys().any(|k| k.starts_with('.')) => {
            for (sub, v) in m.iter().filter(|(k, _)| k.starts_with('.')) {
                let pattern = format!("{name}{}", &sub[1..]);
                paths.push((pattern, export_targets(&dir, v)));
            }
        }
        Some(v) => paths.push((name.to_string(), export_targets(&dir, v))),
        None => {}
    }
    let mut bare: Vec<(u8, String)> = ["source", "module", "main", "types", "typings"]
        .iter()
        .filter_map(|k| json.get(*k)?.as_str())
        .map(|t| (rank(t, false), join(&dir, t)))
        .collect();
    bare.extend(["src/index", "index"].map(|t| (2, join(&dir, t))));
    bare.sort_by_key(|t| t.0);
    paths.push((name.to_string(), bare.into_iter().map(|t| t.1).collect()));
    if exports.is_none() {
        paths.push((
            format!("{name}/*"),
            vec![join(&dir, "*"), join(&dir, "src/*")],
        ));
    }
    Some(TsConfig {
        dir,
        base_url: None,
        paths,
        package: Some(name.to_string()),
    })
}

/// The files one `exports` entry may name (conditions nested in any order), the package's
/// sources first: a `source`-like condition, then TypeScript, then JavaScript, then `.d.ts`.
fn export_targets(dir: &str, v: &serde_json::Value) -> Vec<String> {
    fn walk(v: &serde_json::Value, source: bool, out: &mut Vec<(u8, String)>) {
        match v {
            serde_json::Value::String(t) => out.push((rank(t, source), t.clone())),
            serde_json::Value::Array(vs) => vs.iter().for_each(|v| walk(v, source, out)),
            serde_json::Value::Object(m) => {
                for (cond, v) in m {
                    walk(v, source || cond.contains("source"), out);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(v, false, &mut found);
    found.sort_by_key(|t| t.0);
    found.into_iter().map(|(_, t)| join(dir, &t)).collect()
}

/// How much a target looks like the package's own source (lower first).
fn rank(target: &str, source_condition: bool) -> u8 {
    let ts = [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|e| target.ends_with(e));
    match () {
        _ if source_condition => 0,
        _ if target.ends_with(".d.ts")
            || target.ends_with(".d.cts")
            || target.ends_with(".d.mts") =>
        {
            4
        }
        _ if ts => 1,
        _ => 3,
    }
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

    #[test]
    fn a_package_names_its_files_through_exports_sources_first() {
        let src = br#"{
  "name": "zod",
  "main": "./index.cjs",
  "exports": {
    ".": { "@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js" },
    "./v4": { "import": { "types": "./v4/index.d.ts", "default": "./v4/index.js" }, "@zod/source": "./src/v4/index.ts" },
    "./locales/*": "./src/locales/*.ts"
  }
}"#;
        let c = parse_package("packages/zod/package.json", src).expect("parses");
        assert_eq!(c.package.as_deref(), Some("zod"));
        assert_eq!(
            c.candidates("zod/v4"),
            [
                "packages/zod/src/v4/index.ts",
                "packages/zod/v4/index.js",
                "packages/zod/v4/index.d.ts"
            ]
        );
        assert_eq!(
            c.candidates("zod/locales/en"),
            ["packages/zod/src/locales/en.ts"]
        );
        assert_eq!(c.candidates("zod")[0], "packages/zod/src/index.ts");
        assert!(
            c.candidates("zod/unknown").is_empty(),
            "exports close the package"
        );
        let plain = parse_package(
            "package.json",
            br#"{"name":"@acme/ui","main":"dist/index.js"}"#,
        )
        .unwrap();
        assert_eq!(
            plain.candidates("@acme/ui"),
            ["src/index", "index", "dist/index.js"]
        );
        assert_eq!(
            plain.candidates("@acme/ui/button"),
            ["button", "src/button"]
        );
        assert_eq!(parse_package("package.json", br#"{"private":true}"#), None);
    }
}
