use super::*;
use std::fs;
use tempfile::TempDir;

fn repo(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write(dir.path(), path, content.as_bytes());
    }
    dir
}

fn write(root: &Path, path: &str, content: &[u8]) {
    let abs = root.join(path);
    fs::create_dir_all(abs.parent().unwrap()).unwrap();
    fs::write(abs, content).unwrap();
}

fn rp(s: &str) -> RepoPath {
    RepoPath::new(s).unwrap()
}

fn listed(result: &WalkResult) -> Vec<&str> {
    result.files.iter().map(|f| f.path.as_str()).collect()
}

fn skipped(result: &WalkResult) -> Vec<(&str, &SkipReason)> {
    result
        .skipped
        .iter()
        .map(|(p, r)| (p.as_str(), r))
        .collect()
}

fn walk_default(root: &Path) -> WalkResult {
    walk(root, &WalkOptions::default()).unwrap()
}

#[test]
fn lists_supported_files_sorted_with_metadata() {
    let dir = repo(&[
        ("b/Z.java", "class Z {}"),
        ("a.md", "# a"),
        ("b/A.java", "class A {}"),
        ("img/logo.png", "\u{89}PNG"),
        ("lib/x.class", "\u{ca}\u{fe}"),
    ]);
    let result = walk_default(dir.path());
    assert_eq!(listed(&result), ["a.md", "b/A.java", "b/Z.java"]);
    assert_eq!(result.unsupported_count, 2);
    assert!(result.skipped.is_empty());
    assert_eq!(result.ignored_count, 0);
    let a = &result.files[1];
    assert_eq!(a.language, crate::lang::java::LANGUAGE);
    assert_eq!(a.size, 10);
    assert!(a.abs.is_absolute() && a.abs.ends_with("b/A.java"));
    assert!(a.mtime_ns > 0);
    // Deterministic across runs.
    assert_eq!(walk_default(dir.path()), result);
}

#[test]
fn gitignore_is_respected_without_a_git_dir() {
    let dir = repo(&[
        (".gitignore", "out/\nGen*.java\n"),
        ("src/A.java", ""),
        ("src/GenB.java", ""),
        ("out/C.java", ""),
        (".ignore", "docs/\n"),
        ("docs/d.md", ""),
    ]);
    assert_eq!(listed(&walk_default(dir.path())), ["src/A.java"]);
}

#[test]
fn gitignore_and_info_exclude_are_respected_in_a_git_repo() {
    let dir = repo(&[
        (".gitignore", "*.txt\n"),
        (".git/info/exclude", "local/\n"),
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("keep.md", ""),
        ("notes.txt", ""),
        ("local/L.java", ""),
        ("sub/.gitignore", "!special.txt\n"),
        ("sub/special.txt", ""),
    ]);
    assert_eq!(
        listed(&walk_default(dir.path())),
        ["keep.md", "sub/special.txt"]
    );
}

#[test]
fn extra_ignores_use_gitignore_syntax() {
    let dir = repo(&[("a/A.java", ""), ("b/B.java", ""), ("c.md", "")]);
    let opts = WalkOptions {
        extra_ignores: vec!["a/".into(), "*.md".into()],
        ..WalkOptions::default()
    };
    assert_eq!(listed(&walk(dir.path(), &opts).unwrap()), ["b/B.java"]);
}

#[test]
fn invalid_extra_ignore_is_an_error() {
    let dir = repo(&[("A.java", "")]);
    let opts = WalkOptions {
        extra_ignores: vec!["[z-a]".into()],
        ..WalkOptions::default()
    };
    let err = walk(dir.path(), &opts).unwrap_err();
    assert!(
        matches!(err, WalkError::InvalidIgnorePattern { .. }),
        "{err}"
    );
}

#[test]
fn hidden_dirs_are_not_descended_unless_asked() {
    let dir = repo(&[
        (".pc/patch/A.java", ""),
        (".codemap/index.json", ""),
        (".git/config.json", ""),
        (".hidden.md", ""),
        ("B.java", ""),
    ]);
    let result = walk_default(dir.path());
    assert_eq!(listed(&result), ["B.java"]);
    assert!(result.skipped.is_empty());
    let opts = WalkOptions {
        include_hidden: true,
        ..WalkOptions::default()
    };
    // VCS internals and codemap's own index stay out even then.
    assert_eq!(
        listed(&walk(dir.path(), &opts).unwrap()),
        [".hidden.md", ".pc/patch/A.java", "B.java"]
    );
}

#[test]
fn oversized_file_is_skipped_from_metadata() {
    let dir = repo(&[("Small.java", "class Small {}")]);
    let big = fs::File::create(dir.path().join("Big.java")).unwrap();
    big.set_len(5 << 20).unwrap();
    let result = walk_default(dir.path());
    assert_eq!(listed(&result), ["Small.java"]);
    assert_eq!(
        skipped(&result),
        [(
            "Big.java",
            &SkipReason::TooLarge {
                size: 5 << 20,
                cap: DEFAULT_MAX_FILE_SIZE
            }
        )]
    );
}

#[test]
fn secret_files_are_reported_even_when_hidden_or_unsupported() {
    let dir = repo(&[
        (
            ".env",
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
        ),
        (".env.local", "TOKEN=x"),
        ("certs/server.pem", "-----BEGIN PRIVATE KEY-----\n"),
        ("deploy/ID_RSA", ""),
        ("conf/credentials-prod.json", "{}"),
        ("conf/secrets.yaml", "a: b"),
        ("conf/app.yaml", "a: b"),
        (".pc/.env", "hidden dir: never seen"),
    ]);
    let result = walk_default(dir.path());
    assert_eq!(listed(&result), ["conf/app.yaml"]);
    let secret = |rule: &str| SkipReason::Secret { rule: rule.into() };
    assert_eq!(
        skipped(&result),
        [
            (".env", &secret(".env")),
            (".env.local", &secret(".env.*")),
            ("certs/server.pem", &secret("*.pem")),
            ("conf/credentials-prod.json", &secret("credentials*.json")),
            ("conf/secrets.yaml", &secret("secrets.y*ml")),
            ("deploy/ID_RSA", &secret("id_rsa*")),
        ]
    );
}

#[test]
fn secret_rules_match_names_not_lookalikes() {
    assert_eq!(secret_rule("id_ed25519.pub"), Some("id_ed25519*"));
    assert_eq!(secret_rule("release.keystore"), Some("*.keystore"));
    assert_eq!(secret_rule("kubeconfig"), Some("kubeconfig"));
    assert_eq!(secret_rule("environment.java"), None);
    assert_eq!(secret_rule("KeyStore.java"), None);
    assert_eq!(secret_rule("credentials.md"), None);
}

#[cfg(unix)]
#[test]
fn symlink_loop_does_not_hang() {
    let dir = repo(&[("a/A.java", "")]);
    std::os::unix::fs::symlink("..", dir.path().join("a/loop")).unwrap();
    std::os::unix::fs::symlink("self", dir.path().join("self")).unwrap();
    let result = walk_default(dir.path());
    assert_eq!(listed(&result), ["a/A.java"]);
    assert!(result.skipped.is_empty(), "{:?}", result.skipped);
}

#[cfg(unix)]
#[test]
fn symlinks_are_never_followed() {
    let outside = repo(&[("Secret.java", "class Secret {}"), ("dir/D.java", "")]);
    let dir = repo(&[("A.java", "")]);
    let link = |target: &Path, name: &str| {
        std::os::unix::fs::symlink(target, dir.path().join(name)).unwrap();
    };
    link(&outside.path().join("Secret.java"), "Out.java");
    link(&outside.path().join("dir"), "outdir");
    link(Path::new("A.java"), "Alias.java");
    link(Path::new("missing.java"), "Dangling.java");
    link(Path::new("missing.png"), "dangling.png");
    let result = walk_default(dir.path());
    assert_eq!(listed(&result), ["A.java"]);
    let reasons: Vec<(&str, &str)> = result
        .skipped
        .iter()
        .map(|(p, r)| (p.as_str(), r.label()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("Dangling.java", "unreadable"),
            ("Out.java", "symlink_outside_root"),
            ("outdir", "symlink_outside_root"),
        ]
    );
}

#[test]
fn empty_repo_walks_to_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(walk_default(dir.path()), WalkResult::default());
}

#[test]
fn ignored_count_explains_an_empty_result() {
    let dir = repo(&[
        (".gitignore", "*\n"),
        ("A.java", ""),
        ("b/B.java", ""),
        ("c.md", ""),
        ("logo.png", ""),
    ]);
    let result = walk_default(dir.path());
    assert!(result.files.is_empty());
    assert_eq!(result.ignored_count, 3);
}

#[test]
fn bad_roots_are_errors() {
    let dir = repo(&[("f.md", "")]);
    let missing = dir.path().join("nope");
    assert!(matches!(
        walk(&missing, &WalkOptions::default()),
        Err(WalkError::NotFound { .. })
    ));
    assert!(matches!(
        walk(&dir.path().join("f.md"), &WalkOptions::default()),
        Err(WalkError::NotADirectory { .. })
    ));
}

#[test]
fn binary_content_is_detected_by_nul() {
    let mut bytes = b"class A {}\n".to_vec();
    bytes.push(0);
    assert_eq!(
        classify_content(&rp("A.java"), &bytes),
        Err(SkipReason::Binary)
    );
    // A NUL past the first 8 KiB does not count.
    let mut late = b"a\n".repeat(4500);
    late.push(0);
    assert!(classify_content(&rp("a.txt"), &late).is_ok());
}

#[test]
fn minified_web_assets_are_detected() {
    let minified = "var a=1;".repeat(400); // one 3,200-char line
    assert_eq!(
        classify_content(&rp("static/app.min.js"), minified.as_bytes()),
        Err(SkipReason::Minified)
    );
    let pretty = "function f() {\n  return 1;\n}\n".repeat(100);
    assert_eq!(
        classify_content(&rp("static/app.js"), pretty.as_bytes()),
        Ok(Provenance::Source)
    );
    // One huge line among many short ones.
    let mut mixed = "x\n".repeat(1000);
    mixed.push_str(&"y".repeat(20_001));
    assert_eq!(
        classify_content(&rp("data.json"), mixed.as_bytes()),
        Err(SkipReason::Minified)
    );
    // Tiny one-liners are left alone.
    assert!(classify_content(&rp("package.json"), &[b'x'; 500]).is_ok());
    // Other types need far longer lines.
    assert!(classify_content(&rp("A.java"), minified.as_bytes()).is_ok());
    let long = "z".repeat(6000);
    assert_eq!(
        classify_content(&rp("A.java"), long.as_bytes()),
        Err(SkipReason::Minified)
    );
}

#[test]
fn minified_counts_characters_not_bytes() {
    // 50 Chinese characters a line: 150 bytes but 50 characters.
    let text = format!("{}\n", "订".repeat(50)).repeat(40);
    assert!(classify_content(&rp("a.json"), text.as_bytes()).is_ok());
}

#[test]
fn generated_markers_in_content() {
    let cases: &[(&str, &str, Provenance)] = &[
        (
            "src/main/java/A.java",
            "@Generated(\"protoc\")\nclass A {}",
            Provenance::Generated,
        ),
        (
            "A.java",
            "// Generated by the protocol buffer compiler.  DO NOT EDIT!",
            Provenance::Generated,
        ),
        (
            "src/test/java/ATest.java",
            "// DO NOT EDIT\n",
            Provenance::Generated,
        ),
        ("vendor/x/A.java", "// DO NOT EDIT\n", Provenance::Vendored),
        (
            "app.js",
            "var a = 1;\n//# sourceMappingURL=app.js.map\n",
            Provenance::Generated,
        ),
        (
            "src/main/java/A.java",
            "/** Tokens are generated by the server. */",
            Provenance::Source,
        ),
    ];
    for (path, content, expected) in cases {
        assert_eq!(
            classify_content(&rp(path), content.as_bytes()),
            Ok(*expected),
            "{path}"
        );
    }
    // A marker past the first 2 KiB does not count.
    let late = format!("{}\n// DO NOT EDIT", "a".repeat(3000));
    assert_eq!(
        classify_content(&rp("A.java"), late.as_bytes()),
        Ok(Provenance::Source)
    );
}

#[test]
fn provenance_from_paths() {
    let cases: &[(&str, Provenance)] = &[
        ("src/main/java/org/x/Foo.java", Provenance::Source),
        ("core/src/test/java/org/x/FooTest.java", Provenance::Test),
        ("core/src/test/resources/data.json", Provenance::Test),
        ("src/it/java/FooIT.java", Provenance::Test),
        ("src/integrationTest/java/A.java", Provenance::Test),
        ("src/functionalTest/java/A.java", Provenance::Test),
        ("test/org/x/Helper.java", Provenance::Test),
        ("module/tests/run.sh", Provenance::Test),
        ("src/main/java/org/x/FooTests.java", Provenance::Test),
        ("src/main/java/org/x/ParserIT.java", Provenance::Test),
        ("src/main/java/org/x/AUDIT.java", Provenance::Source),
        ("src/main/java/org/x/Contest.java", Provenance::Source),
        ("web/app.spec.ts", Provenance::Test),
        ("vendor/lib/x.go", Provenance::Vendored),
        ("third_party/y/Y.java", Provenance::Vendored),
        ("ui/node_modules/react/index.js", Provenance::Vendored),
        ("web/src/main/node_modules/a.js", Provenance::Vendored),
        ("vendor/x/src/test/ATest.java", Provenance::Vendored),
        (
            "logback-examples/src/main/java/chapters/A.java",
            Provenance::Example,
        ),
        (
            "webapps/examples/WEB-INF/classes/A.java",
            Provenance::Example,
        ),
        ("samples/demo_app/Main.java", Provenance::Example),
        (
            "microbench/src/main/java/io/x/ByteBufBenchmark.java",
            Provenance::Test,
        ),
        ("tests/jetty-jmh/src/main/java/A.java", Provenance::Test),
        ("netty-benchmarks/src/main/java/A.java", Provenance::Test),
        ("core/src/jmh/java/org/x/ParseBench.java", Provenance::Test),
        ("src/main/java/org/x/bench/Bench.java", Provenance::Source),
        ("src/main/java/org/x/jmh/Runner.java", Provenance::Source),
        ("examples/src/test/java/ATest.java", Provenance::Test),
        (
            "src/main/java/org/x/archivers/examples/Expander.java",
            Provenance::Source,
        ),
        ("java/org/x/ExampleParser.java", Provenance::Source),
        (
            "src/main/java/org/acme/vendor/Vendor.java",
            Provenance::Source,
        ),
        (
            "target/generated-sources/annotations/A.java",
            Provenance::Generated,
        ),
        ("core/build/generated/source/A.java", Provenance::Generated),
        ("core/build/tmp/x.txt", Provenance::Generated),
        ("src/main/generated/A.java", Provenance::Generated),
        ("target/classes/app.properties", Provenance::Generated),
        (
            "spring-aop/src/main/java/org/springframework/aop/target/Pool.java",
            Provenance::Source,
        ),
        (
            "subprojects/core/src/main/java/org/gradle/build/Build.java",
            Provenance::Source,
        ),
        ("src/main/java/org/x/test/Util.java", Provenance::Source),
        ("buildSrc/src/main/kotlin/Conv.kt", Provenance::Source),
        ("README.md", Provenance::Source),
    ];
    for (path, expected) in cases {
        assert_eq!(path_provenance(&rp(path)), *expected, "{path}");
    }
}

proptest::proptest! {
    #[test]
    fn classification_never_panics(
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..3000),
        web in proptest::bool::ANY,
    ) {
        let path = if web { rp("a.js") } else { rp("src/A.java") };
        let _ = classify_content(&path, &bytes);
    }
}
