//! Module detection: which build module, or top-level folder, each file of a repository belongs to.
//!
//! - A directory holding a build file of a registered language (the `build_files` of its
//!   [`crate::lang::Spec`]: Maven's `pom.xml`, Gradle's builds and settings, Python's
//!   `pyproject.toml`, npm's `package.json`, `go.mod`) is a module, named by the name the file
//!   declares, else by the directory name. Of several in one directory the highest ranked makes
//!   the module, and of equal rank one that declares a name wins over one that does not.
//! - A root build file may include projects in other directories (Gradle's settings): each that
//!   holds files is a module named by its directory.
//! - Without any build file: one module per top-level folder.
//!
//! Files outside every module belong to a root folder module named after the repository
//! directory. Names are unique: when two modules would share one, the non-root ones are named by
//! their path instead (`a/core`, `b/core`).

use crate::lang::BuildFile;
use crate::model::RepoPath;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

/// The kind of a module without a build file.
pub const FOLDER: &str = "folder";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    /// Repo-relative directory, `""` for the repository root.
    pub root: String,
    /// The build system of the file that made it a module (`maven`, `gradle`, `package`), or
    /// [`FOLDER`].
    pub kind: &'static str,
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
        let mut found: BTreeMap<&str, Found> = BTreeMap::new();
        let mut included: Vec<(String, &'static str)> = Vec::new();
        for path in files {
            let (dir, name) = split_dir(path.as_str());
            let Some(build) = crate::lang::build_file(dir_name(dir, ""), name) else {
                continue;
            };
            let taken = found.get(dir);
            let outranked = taken.is_some_and(|t| t.rank > build.rank);
            if outranked && !dir.is_empty() {
                continue;
            }
            let text = read_text(path);
            if dir.is_empty() {
                let dirs = text.as_deref().map(build.includes).unwrap_or_default();
                included.extend(dirs.into_iter().map(|d| (d, build.system)));
            }
            let declared = text.as_deref().and_then(build.module_name);
            let named_before = taken.is_some_and(|t| t.rank == build.rank && t.declared);
            if outranked || (named_before && declared.is_none()) {
                continue;
            }
            found.insert(dir, Found::new(build, dir, declared, repo_name));
        }
        let mut modules: Vec<Module> = found.into_values().map(|f| f.module).collect();
        if !included.is_empty() {
            let dirs = all_dirs(files);
            for (dir, kind) in included {
                let known = modules.iter().any(|m| m.root == dir);
                if !known && dirs.contains(dir.as_str()) {
                    let name = dir_name(&dir, repo_name).to_string();
                    modules.push(module(name, &dir, kind));
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
            map.modules.push(module(repo_name.to_string(), "", FOLDER));
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

/// A module a build file made, and what decides whether another in its directory replaces it.
struct Found {
    module: Module,
    rank: u8,
    declared: bool,
}

impl Found {
    fn new(build: &BuildFile, dir: &str, declared: Option<String>, repo_name: &str) -> Found {
        Found {
            rank: build.rank,
            declared: declared.is_some(),
            module: module(
                declared.unwrap_or_else(|| dir_name(dir, repo_name).to_string()),
                dir,
                build.system,
            ),
        }
    }
}

fn module(name: String, root: &str, kind: &'static str) -> Module {
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
    let root = root_files.then(|| module(repo_name.to_string(), "", FOLDER));
    (root.into_iter())
        .chain(
            tops.into_iter()
                .map(|top| module(top.to_string(), top, FOLDER)),
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

    fn summary(map: &ModuleMap) -> Vec<(&str, &str, &str)> {
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
                ("acme-parent", "", "maven"),
                ("acme-core", "core", "maven"),
                ("sub", "core/sub", "maven"),
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
                ("shop", "", "gradle"),
                ("api", "api", "gradle"),
                ("util", "libs/util", "gradle"),
                ("spring-core", "spring-core", "gradle"),
                ("web", "web", "gradle"),
            ]
        );
        assert_eq!(of(&m, "libs/util/src/U.java"), "util");
        assert_eq!(of(&m, "build.gradle.kts"), "shop");
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
                .all(|x| x.kind == "package" || x.root.is_empty())
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
        assert_eq!(summary(&m), [("m", "", "maven")]);
    }

    #[test]
    fn the_highest_ranked_build_file_makes_the_module_whatever_the_order() {
        let files = [
            ("svc/package.json", "{\"name\": \"web\"}"),
            ("svc/build.gradle", ""),
            (
                "svc/pom.xml",
                "<project><artifactId>svc-api</artifactId></project>",
            ),
            ("tools/pyproject.toml", "[project]\nname = \"tools\"\n"),
            ("tools/build.gradle.kts", ""),
            ("settings.gradle", "include ':lib'"),
            (
                "pom.xml",
                "<project><artifactId>shop</artifactId></project>",
            ),
            ("lib/L.java", ""),
        ];
        let mut reversed = files;
        reversed.reverse();
        let (m, r) = (map(&files), map(&reversed));
        assert_eq!(summary(&m), summary(&r));
        assert_eq!(
            summary(&m),
            [
                ("shop", "", "maven"),
                ("lib", "lib", "gradle"),
                ("svc-api", "svc", "maven"),
                ("tools", "tools", "gradle"),
            ],
            "a root pom still reads the root settings' includes"
        );
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
                ("repo", "", FOLDER),
                ("client", "client", FOLDER),
                ("server", "server", FOLDER),
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
