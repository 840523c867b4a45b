//! Python package manifests: a directory with `pyproject.toml`, `setup.cfg` or `setup.py` is a
//! module, named by the distribution name the manifest declares.

use crate::lang::{BuildFile, Described, description_field};

/// `description = "…"` in pyproject.toml and setup.cfg.
pub(super) const DESCRIBED: &[Described] = &[
    Described {
        name: "pyproject.toml",
        description: description_field,
    },
    Described {
        name: "setup.cfg",
        description: description_field,
    },
];

pub(super) const BUILD_FILES: &[BuildFile] = &[
    BuildFile::package("pyproject.toml", pyproject_name),
    BuildFile::package("setup.cfg", setup_cfg_name),
    BuildFile::package("setup.py", setup_py_name),
];

/// `name = "x"` under `[project]` or `[tool.poetry]`.
fn pyproject_name(text: &str) -> Option<String> {
    let mut section = "";
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            section = l;
            continue;
        }
        if matches!(section, "[project]" | "[tool.poetry]")
            && let Some(v) = assignment(l, "name")
        {
            return Some(v);
        }
    }
    None
}

/// `name = x` under `[metadata]`.
fn setup_cfg_name(text: &str) -> Option<String> {
    let mut in_metadata = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_metadata = l == "[metadata]";
            continue;
        }
        if in_metadata && let Some(v) = assignment(l, "name") {
            return Some(v);
        }
    }
    None
}

/// `name="x"` as a literal keyword argument of `setup(…)`.
fn setup_py_name(text: &str) -> Option<String> {
    let at = text.find("setup(")?;
    let rest = &text[at..];
    let i = rest.find("name=").or_else(|| rest.find("name ="))?;
    let v = rest[i..].split_once('=')?.1.trim_start();
    let quote = v.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let end = v[1..].find(quote)?;
    Some(v[1..1 + end].to_string()).filter(|n| !n.is_empty())
}

/// `key = value` with the value unquoted (`"x"`, `'x'` or bare).
fn assignment(line: &str, key: &str) -> Option<String> {
    let (k, v) = line.split_once('=')?;
    if k.trim() != key {
        return None;
    }
    let v = v
        .split('#')
        .next()?
        .trim()
        .trim_matches(|c| c == '"' || c == '\'');
    (!v.is_empty()).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_declare_their_names() {
        assert_eq!(
            pyproject_name("[build-system]\nname = \"no\"\n[project]\nname = \"flask\"\n"),
            Some("flask".into())
        );
        assert_eq!(
            pyproject_name("[tool.poetry]\nname = 'svc'  # the service\n"),
            Some("svc".into())
        );
        assert_eq!(pyproject_name("[tool.black]\nline-length = 88\n"), None);
        assert_eq!(
            setup_cfg_name("[metadata]\nname = click\nversion = 8\n"),
            Some("click".into())
        );
        assert_eq!(
            setup_py_name("from setuptools import setup\nsetup(\n    name=\"requests\",\n)\n"),
            Some("requests".into())
        );
        assert_eq!(setup_py_name("setup(name=NAME)"), None);
    }
}
