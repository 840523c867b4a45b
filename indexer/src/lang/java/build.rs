//! Maven and Gradle: a directory with a `pom.xml` is a module named by the pom's own
//! `<artifactId>` (the one directly under `<project>`, not the `<parent>`'s); one with
//! `build.gradle(.kts)`, `settings.gradle(.kts)` or `<dir>.gradle(.kts)` (the per-project build
//! file names Spring uses) is a module named by the directory, the settings file's by its
//! `rootProject.name`, and every project the root settings file `include`s is a module too. A
//! pom outranks a Gradle build in one directory.

use crate::lang::BuildFile;
use crate::model::RepoPath;

const MAVEN: u8 = 3;
const GRADLE: u8 = 2;

pub(super) const BUILD_FILES: &[BuildFile] = &[
    BuildFile {
        system: "maven",
        rank: MAVEN,
        ..BuildFile::package("pom.xml", pom_artifact_id)
    },
    gradle_build("build.gradle", Some(".gradle")),
    gradle_build("build.gradle.kts", Some(".gradle.kts")),
    BuildFile {
        system: "gradle",
        rank: GRADLE,
        includes: gradle_includes,
        ..BuildFile::package("settings.gradle", gradle_root_project_name)
    },
    BuildFile {
        system: "gradle",
        rank: GRADLE,
        includes: gradle_includes,
        ..BuildFile::package("settings.gradle.kts", gradle_root_project_name)
    },
];

/// A Gradle project's build file: it names no module, so the directory does.
const fn gradle_build(name: &'static str, dir_named: Option<&'static str>) -> BuildFile {
    BuildFile {
        system: "gradle",
        rank: GRADLE,
        dir_named,
        ..BuildFile::package(name, crate::lang::no_module_name)
    }
}

/// The `<artifactId>` that is a direct child of the root `<project>` element, by a tag scan
/// (no XML parser: comments, CDATA, processing instructions and namespace prefixes handled).
/// `None` when absent, empty or a `${property}`.
fn pom_artifact_id(xml: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(lt) = xml[i..].find('<') {
        let start = i + lt;
        let rest = &xml[start..];
        let skip_to = |end: &str| rest.find(end).map(|e| start + e + end.len());
        if rest.starts_with("<!--") {
            i = skip_to("-->")?;
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            i = skip_to("]]>")?;
            continue;
        }
        if rest.starts_with("<?") || rest.starts_with("<!") {
            i = skip_to(">")?;
            continue;
        }
        let gt = rest.find('>')?;
        let tag = &rest[1..gt];
        i = start + gt + 1;
        if tag.starts_with('/') {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return None; // end of <project>
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let name = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        let local = name.rsplit(':').next().unwrap_or(name);
        if depth == 0 && local != "project" {
            return None;
        }
        if depth == 1 && local == "artifactId" && !self_closing {
            let value = xml[i..].split('<').next().unwrap_or("").trim();
            return (!value.is_empty() && !value.contains("${")).then(|| value.to_string());
        }
        if !self_closing {
            depth += 1;
        }
    }
    None
}

/// `rootProject.name = 'x'` (Groovy or Kotlin DSL) from a settings file.
fn gradle_root_project_name(settings: &str) -> Option<String> {
    let at = settings.find("rootProject.name")?;
    let rest = settings[at + "rootProject.name".len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let (value, _) = quoted(rest)?;
    (!value.is_empty()).then(|| value.to_string())
}

/// Project directories named by `include` statements of a settings file: `include 'a', ':b:c'`,
/// `include(":a", ":b")`, over several lines too. `:b:c` is the directory `b/c`.
fn gradle_includes(settings: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = settings[from..].find("include") {
        let start = from + at;
        from = start + "include".len();
        let preceded_by_ident = settings[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        if preceded_by_ident {
            continue;
        }
        let mut rest = settings[from..].trim_start_matches([' ', '\t']);
        let parenthesized = rest.starts_with('(');
        if parenthesized {
            rest = &rest[1..];
        } else if !rest.starts_with(['\'', '"']) {
            continue; // includeBuild, includeFlat, a comment's prose
        }
        loop {
            rest = rest.trim_start();
            let Some((value, after)) = quoted(rest) else {
                break;
            };
            let dir = value.trim_start_matches(':').replace(':', "/");
            if RepoPath::new(&dir).is_some() {
                out.push(dir);
            }
            rest = after.trim_start();
            match rest.strip_prefix(',') {
                Some(next) => rest = next,
                None => break,
            }
        }
        from = settings.len() - rest.len();
    }
    out
}

/// A string literal in single or double quotes at the start of `s`: `(value, rest after it)`.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let quote = s.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let body = &s[1..];
    let end = body.find(quote)?;
    Some((&body[..end], &body[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pom_scan_handles_prefixes_cdata_and_self_closing_tags() {
        let xml = "<?xml version='1.0'?><!DOCTYPE x><p:project xmlns:p='x'><p:parent/>\
                   <description><![CDATA[<artifactId>no</artifactId>]]></description>\
                   <p:artifactId>yes</p:artifactId></p:project>";
        assert_eq!(pom_artifact_id(xml).as_deref(), Some("yes"));
        assert_eq!(
            pom_artifact_id("<settings><artifactId>x</artifactId></settings>"),
            None
        );
        assert_eq!(
            pom_artifact_id("<project><artifactId>unterminated"),
            Some("unterminated".into())
        );
        assert_eq!(pom_artifact_id("<project"), None);
        assert_eq!(
            pom_artifact_id("<project><artifactId>${name}</artifactId></project>"),
            None
        );
    }

    #[test]
    fn gradle_includes_in_groovy_syntax() {
        let settings = "rootProject.name = 'x'\ninclude 'a', ':b:c',\n  'd'\nincludeBuild 'e'\n// include is for\ninclude ':f'";
        assert_eq!(gradle_includes(settings), ["a", "b/c", "d", "f"]);
        assert_eq!(gradle_root_project_name(settings).as_deref(), Some("x"));
    }
}
