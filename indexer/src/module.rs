//! Module detection: which build module, or top-level folder, each file of a repository belongs to.
//!
//! - Maven: every directory holding a `pom.xml`, named by the pom's own `<artifactId>` (the one
//!   directly under `<project>`, not the `<parent>`'s), else by the directory name.
//! - Gradle: every directory holding `build.gradle(.kts)`, `settings.gradle(.kts)` or
//!   `<dir>.gradle(.kts)` (the per-project build file names Spring uses), plus every project
//!   `include`d by the root settings file whose directory holds files. Named by the directory
//!   name; the root by `rootProject.name` from the settings file.
//!   A directory with both a pom and a Gradle build is a Maven module.
//! - A language's package manifest (the `build_files` of its [`crate::lang::Spec`]: Python's
//!   `pyproject.toml`, `setup.cfg`, `setup.py`), named by the name it declares, else by the
//!   directory name; Maven and Gradle win in the same directory.
//! - Without any build file: one module per top-level folder.
//!
//! Files outside every module belong to a root folder module named after the repository
//! directory. Names are unique: when two modules would share one, the non-root ones are named by
//! their path instead (`a/core`, `b/core`).

use crate::model::RepoPath;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModuleKind {
    Maven,
    Gradle,
    /// A language's own package manifest (`pyproject.toml`, `setup.cfg`, `setup.py`, …: the
    /// `build_files` of the language registry).
    Package,
    /// A top-level folder (or the repository root) of a repository without build files.
    Folder,
}

impl ModuleKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ModuleKind::Maven => "maven",
            ModuleKind::Gradle => "gradle",
            ModuleKind::Package => "package",
            ModuleKind::Folder => "folder",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    pub name: String,
    /// Repo-relative directory, `""` for the repository root.
    pub root: String,
    pub kind: ModuleKind,
}

/// The modules of one repository, and which module a path belongs to.
#[derive(Debug, Clone, Default)]
pub struct ModuleMap {
    /// Sorted by root.
    modules: Vec<Module>,
    by_root: HashMap<String, usize>,
    /// Name for paths outside every module: the repository directory's name.
    repo_name: String,
}

impl ModuleMap {
    /// Detects the modules of the repository at `root` from its walked `files`, reading build
    /// files from disk. Unreadable build files fall back to directory names.
    pub fn detect(root: &Path, files: &[RepoPath]) -> ModuleMap {
        let repo_name = std::fs::canonicalize(root)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .or_else(|| root.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "root".to_string());
        ModuleMap::from_files(&repo_name, files, |path| {
            std::fs::read(root.join(path.as_str())).ok()
        })
    }

    /// Pure detection: `read` returns a build file's bytes (`None` when unreadable).
    pub fn from_files(
        repo_name: &str,
        files: &[RepoPath],
        mut read: impl FnMut(&RepoPath) -> Option<Vec<u8>>,
    ) -> ModuleMap {
        let mut read_text =
            |path: &RepoPath| read(path).map(|b| String::from_utf8_lossy(&b).into_owned());
        // root dir → module, so one directory yields one module.
        let mut found: BTreeMap<&str, Module> = BTreeMap::new();
        let mut settings: Vec<&RepoPath> = Vec::new();
        for path in files {
            let (dir, name) = split_dir(path.as_str());
            match name {
                "pom.xml" => {
                    let artifact = read_text(path).and_then(|xml| pom_artifact_id(&xml));
                    let name = artifact.unwrap_or_else(|| dir_name(dir, repo_name).to_string());
                    found.insert(dir, module(name, dir, ModuleKind::Maven));
                }
                "settings.gradle" | "settings.gradle.kts" => settings.push(path),
                _ if is_gradle_build_file(dir, name)
                    && found.get(dir).is_none_or(|m| m.kind != ModuleKind::Maven) =>
                {
                    let name = dir_name(dir, repo_name).to_string();
                    found.insert(dir, module(name, dir, ModuleKind::Gradle));
                }
                _ => {
                    let Some(build) = crate::lang::build_file(name) else {
                        continue;
                    };
                    let taken = found.get(dir).map(|m| m.kind);
                    if matches!(taken, Some(ModuleKind::Maven | ModuleKind::Gradle)) {
                        continue;
                    }
                    let declared = read_text(path).and_then(|t| (build.module_name)(&t));
                    match (taken, declared) {
                        // A manifest that names the package wins over one that does not.
                        (Some(_), None) => {}
                        (_, declared) => {
                            let name =
                                declared.unwrap_or_else(|| dir_name(dir, repo_name).to_string());
                            found.insert(dir, module(name, dir, ModuleKind::Package));
                        }
                    }
                }
            }
        }
        let mut included: Vec<String> = Vec::new();
        for path in settings {
            let (dir, _) = split_dir(path.as_str());
            let text = read_text(path).unwrap_or_default();
            if dir.is_empty() {
                included = gradle_includes(&text);
            }
            if found.get(dir).is_some_and(|m| m.kind == ModuleKind::Maven) {
                continue;
            }
            let name = gradle_root_project_name(&text)
                .unwrap_or_else(|| dir_name(dir, repo_name).to_string());
            found.insert(dir, module(name, dir, ModuleKind::Gradle));
        }
        let mut modules: Vec<Module> = found.into_values().collect();
        if !included.is_empty() {
            let dirs = all_dirs(files);
            for dir in included {
                let known = modules.iter().any(|m| m.root == dir);
                if !known && dirs.contains(dir.as_str()) {
                    let name = dir_name(&dir, repo_name).to_string();
                    modules.push(module(name, &dir, ModuleKind::Gradle));
                }
            }
        }
        if modules.is_empty() {
            modules = folder_modules(repo_name, files);
        }
        let mut map = ModuleMap {
            modules,
            by_root: HashMap::new(),
            repo_name: repo_name.to_string(),
        };
        map.index();
        if !map.by_root.contains_key("") && files.iter().any(|f| map.lookup(f).is_none()) {
            map.modules
                .push(module(repo_name.to_string(), "", ModuleKind::Folder));
            map.index();
        }
        map.make_names_unique();
        map
    }

    /// Name of the deepest module containing `path`; the repository name when none does.
    pub fn module_of(&self, path: &RepoPath) -> &str {
        match self.lookup(path) {
            Some(i) => &self.modules[i].name,
            None => &self.repo_name,
        }
    }

    /// All modules, sorted by root directory.
    pub fn modules(&self) -> &[Module] {
        &self.modules
    }

    fn index(&mut self) {
        self.modules.sort_by(|a, b| a.root.cmp(&b.root));
        self.by_root = (self.modules.iter().enumerate())
            .map(|(i, m)| (m.root.clone(), i))
            .collect();
    }

    fn lookup(&self, path: &RepoPath) -> Option<usize> {
        let mut dir = path.as_str();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if let Some(&i) = self.by_root.get(parent) {
                return Some(i);
            }
            dir = parent;
        }
        self.by_root.get("").copied()
    }

    fn make_names_unique(&mut self) {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for m in &self.modules {
            *seen.entry(m.name.as_str()).or_default() += 1;
        }
        let clashing: HashSet<String> = (seen.into_iter())
            .filter(|&(_, n)| n > 1)
            .map(|(name, _)| name.to_string())
            .collect();
        for m in &mut self.modules {
            if !m.root.is_empty() && clashing.contains(&m.name) {
                m.name = m.root.clone();
            }
        }
    }
}

fn module(name: String, root: &str, kind: ModuleKind) -> Module {
    Module {
        name,
        root: root.to_string(),
        kind,
    }
}

/// `("a/b", "C.java")` for `a/b/C.java`, `("", "C.java")` for `C.java`.
fn split_dir(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// Last component of `dir`, or the repository name for the root.
fn dir_name<'a>(dir: &'a str, repo_name: &'a str) -> &'a str {
    if dir.is_empty() {
        repo_name
    } else {
        dir.rsplit('/').next().unwrap_or(dir)
    }
}

fn is_gradle_build_file(dir: &str, name: &str) -> bool {
    let Some(stem) = name
        .strip_suffix(".gradle")
        .or_else(|| name.strip_suffix(".gradle.kts"))
    else {
        return false;
    };
    stem == "build" || (!dir.is_empty() && stem == dir_name(dir, ""))
}

/// One module per top-level folder; files at the root belong to a root module.
fn folder_modules(repo_name: &str, files: &[RepoPath]) -> Vec<Module> {
    let mut tops: BTreeSet<&str> = BTreeSet::new();
    let mut root_files = false;
    for path in files {
        match path.as_str().split_once('/') {
            Some((top, _)) => {
                tops.insert(top);
            }
            None => root_files = true,
        }
    }
    let root = root_files.then(|| module(repo_name.to_string(), "", ModuleKind::Folder));
    (root.into_iter())
        .chain(
            tops.into_iter()
                .map(|top| module(top.to_string(), top, ModuleKind::Folder)),
        )
        .collect()
}

/// Every directory that holds a file, directly or below.
fn all_dirs(files: &[RepoPath]) -> HashSet<&str> {
    let mut dirs = HashSet::new();
    for path in files {
        let mut dir = path.as_str();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if !dirs.insert(parent) {
                break;
            }
            dir = parent;
        }
    }
    dirs
}

/// The `<artifactId>` that is a direct child of the root `<project>` element, by a tag scan
/// (no XML parser: comments, CDATA, processing instructions and namespace prefixes handled).
/// `None` when absent, empty or a `${property}`.
pub fn pom_artifact_id(xml: &str) -> Option<String> {
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

    fn map(files: &[(&str, &str)]) -> ModuleMap {
        let paths: Vec<RepoPath> = files
            .iter()
            .map(|(p, _)| RepoPath::new(p).unwrap())
            .collect();
        let contents: HashMap<&str, &str> = files.iter().copied().collect();
        ModuleMap::from_files("repo", &paths, |p| {
            contents.get(p.as_str()).map(|c| c.as_bytes().to_vec())
        })
    }

    fn summary(map: &ModuleMap) -> Vec<(&str, &str, ModuleKind)> {
        (map.modules().iter())
            .map(|m| (m.name.as_str(), m.root.as_str(), m.kind))
            .collect()
    }

    fn of<'a>(map: &'a ModuleMap, path: &str) -> &'a str {
        map.module_of(&RepoPath::new(path).unwrap())
    }

    const PARENT_POM: &str = r#"<?xml version="1.0"?>
<!-- <artifactId>commented</artifactId> -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.acme</groupId>
  <artifactId>acme-parent</artifactId>
  <modules><module>core</module></modules>
</project>"#;

    const CHILD_POM: &str = r#"<project>
  <parent>
    <groupId>org.acme</groupId>
    <artifactId>acme-parent</artifactId>
  </parent>
  <build><plugins><plugin><artifactId>maven-jar-plugin</artifactId></plugin></plugins></build>
  <artifactId> acme-core </artifactId>
</project>"#;

    #[test]
    fn maven_modules_are_named_by_their_own_artifact_id() {
        let m = map(&[
            ("pom.xml", PARENT_POM),
            ("core/pom.xml", CHILD_POM),
            ("core/src/main/java/org/acme/A.java", ""),
            (
                "core/sub/pom.xml",
                "<project><parent><artifactId>x</artifactId></parent></project>",
            ),
            ("core/sub/B.java", ""),
            ("docs/index.md", ""),
        ]);
        assert_eq!(
            summary(&m),
            [
                ("acme-parent", "", ModuleKind::Maven),
                ("acme-core", "core", ModuleKind::Maven),
                ("sub", "core/sub", ModuleKind::Maven),
            ]
        );
        assert_eq!(of(&m, "core/src/main/java/org/acme/A.java"), "acme-core");
        assert_eq!(of(&m, "core/sub/B.java"), "sub");
        assert_eq!(of(&m, "docs/index.md"), "acme-parent");
        assert_eq!(of(&m, "core/pom.xml"), "acme-core");
    }

    #[test]
    fn unreadable_or_odd_poms_fall_back_to_the_directory_name() {
        let m = map(&[
            (
                "a/pom.xml",
                "<project><artifactId>${name}</artifactId></project>",
            ),
            ("b/pom.xml", "not xml at all"),
            ("c/pom.xml", ""),
        ]);
        let names: Vec<&str> = m.modules().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(of(&m, "README.md"), "repo");
    }

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
    }

    #[test]
    fn gradle_modules_by_build_files_and_settings() {
        let m = map(&[
            (
                "settings.gradle.kts",
                "rootProject.name = \"shop\"\ninclude(\n  \":api\",\n  \":libs:util\"\n)\n",
            ),
            ("build.gradle.kts", ""),
            ("api/src/main/java/Api.java", ""),
            ("libs/util/src/U.java", ""),
            ("web/build.gradle", ""),
            ("web/W.java", ""),
            ("spring-core/spring-core.gradle", ""),
            ("spring-core/C.java", ""),
        ]);
        assert_eq!(
            summary(&m),
            [
                ("shop", "", ModuleKind::Gradle),
                ("api", "api", ModuleKind::Gradle),
                ("util", "libs/util", ModuleKind::Gradle),
                ("spring-core", "spring-core", ModuleKind::Gradle),
                ("web", "web", ModuleKind::Gradle),
            ]
        );
        assert_eq!(of(&m, "libs/util/src/U.java"), "util");
        assert_eq!(of(&m, "build.gradle.kts"), "shop");
    }

    #[test]
    fn gradle_includes_in_groovy_syntax() {
        let settings = "rootProject.name = 'x'\ninclude 'a', ':b:c',\n  'd'\nincludeBuild 'e'\n// include is for\ninclude ':f'";
        assert_eq!(gradle_includes(settings), ["a", "b/c", "d", "f"]);
        assert_eq!(gradle_root_project_name(settings).as_deref(), Some("x"));
    }

    #[test]
    fn python_packages_are_modules_named_by_their_manifests() {
        let m = map(&[
            (
                "svc/pyproject.toml",
                "[project]\nname = \"order-service\"\n",
            ),
            ("svc/src/orders/app.py", ""),
            ("lib/setup.py", "setup(name='shoplib')"),
            ("lib/setup.cfg", "[metadata]\nversion = 1\n"),
            ("lib/shoplib/core.py", ""),
            ("tools/setup.cfg", "[metadata]\n"),
            ("tools/run.py", ""),
        ]);
        assert_eq!(of(&m, "svc/src/orders/app.py"), "order-service");
        assert_eq!(of(&m, "lib/shoplib/core.py"), "shoplib");
        assert_eq!(of(&m, "tools/run.py"), "tools");
        assert!(
            m.modules()
                .iter()
                .all(|x| x.kind == ModuleKind::Package || x.root.is_empty())
        );
    }

    #[test]
    fn npm_packages_are_modules_named_by_package_json() {
        let m = map(&[
            (
                "pom.xml",
                "<project><artifactId>shop</artifactId></project>",
            ),
            (
                "web/package.json",
                "{\"name\": \"@shop/web\", \"private\": true}",
            ),
            ("web/src/api/orders.ts", ""),
            ("admin/package.json", "not json"),
            ("admin/src/main.js", ""),
        ]);
        assert_eq!(of(&m, "web/src/api/orders.ts"), "@shop/web");
        assert_eq!(
            of(&m, "admin/src/main.js"),
            "admin",
            "an unreadable manifest: the folder"
        );
        assert_eq!(of(&m, "pom.xml"), "shop");
    }

    #[test]
    fn maven_wins_over_gradle_in_one_directory() {
        let m = map(&[
            ("build.gradle", ""),
            ("pom.xml", "<project><artifactId>m</artifactId></project>"),
        ]);
        assert_eq!(summary(&m), [("m", "", ModuleKind::Maven)]);
    }

    #[test]
    fn without_build_files_top_level_folders_are_modules() {
        let m = map(&[
            ("README.md", ""),
            ("server/S.java", ""),
            ("client/x/C.java", ""),
        ]);
        assert_eq!(
            summary(&m),
            [
                ("repo", "", ModuleKind::Folder),
                ("client", "client", ModuleKind::Folder),
                ("server", "server", ModuleKind::Folder),
            ]
        );
        assert_eq!(of(&m, "client/x/C.java"), "client");
        assert_eq!(of(&m, "README.md"), "repo");
        // A path the detection never saw still gets a name.
        assert_eq!(of(&m, "new/N.java"), "repo");
    }

    #[test]
    fn clashing_names_are_replaced_by_paths() {
        let m = map(&[
            ("a/core/build.gradle", ""),
            ("b/core/build.gradle", ""),
            ("build.gradle", ""),
        ]);
        let names: Vec<&str> = m.modules().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["repo", "a/core", "b/core"]);
    }

    #[test]
    fn empty_repo_has_no_modules() {
        let m = map(&[]);
        assert!(m.modules().is_empty());
        assert_eq!(of(&m, "x/A.java"), "repo");
    }

    #[test]
    fn detect_reads_poms_from_disk() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("m")).unwrap();
        std::fs::write(dir.path().join("m/pom.xml"), CHILD_POM).unwrap();
        let files = [
            RepoPath::new("m/pom.xml").unwrap(),
            RepoPath::new("m/A.java").unwrap(),
        ];
        let m = ModuleMap::detect(dir.path(), &files);
        assert_eq!(of(&m, "m/A.java"), "acme-core");
        let repo_name = dir.path().file_name().unwrap().to_str().unwrap();
        assert_eq!(m.modules().len(), 1);
        assert_eq!(of(&m, "top.md"), repo_name);
    }
}
