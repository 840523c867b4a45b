//! Nothing secret leaves the index: a repository whose configuration holds a database password,
//! a JWT secret, API tokens and a private key (in a Java string literal) is indexed, and none of
//! those values can be found in the index folder's bytes, in anything the read API returns, in
//! `search` or `ask` output, or (with `MEILI_URL`) in the Meilisearch documents. Their keys stay
//! findable at their lines.
//!
//! The fixture is written by the test rather than committed, so the repository holds no
//! private-key block for secret scanners to trip on.

mod support;
use indexer::store::catalog::Catalog;
use indexer::store::meilisearch::{MeiliConfig, MeiliStore};
use indexer::store::{EmbeddedIndex, IndexDir, IndexRead};
use std::path::{Path, PathBuf};
use support::{codemap, run, stdout, write};

const DB_PASSWORD: &str = "hunter2-sekrit";
const URL_PASSWORD: &str = "url-pw-9f3k";
const JWT_SECRET: &str = "jwt-s3cr3t-Zq8v";
const ENV_TOKEN: &str = "tok-env-77Hq";
const CONF_TOKEN: &str = "tok-conf-5Wm2";
const JSON_KEY: &str = "sk-json-Lp4r";
/// Body lines of the private key: distinctive, so a leak of any one of them is found.
const KEY_BODY: [&str; 3] = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCzPemBodyOne11",
    "XyZ9pemBodyTwo2LkQwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUiOpAsDfGhJk22",
    "Zm9vPemTail3==",
];

fn secrets() -> Vec<&'static str> {
    let mut s = vec![
        DB_PASSWORD,
        "hunter2",
        "sekrit",
        URL_PASSWORD,
        JWT_SECRET,
        ENV_TOKEN,
        CONF_TOKEN,
        JSON_KEY,
    ];
    s.extend(KEY_BODY);
    s.extend(["PemBodyOne", "pemBodyTwo", "PemTail"]);
    s
}

/// Words of the secrets as the full-text analyzer indexes them, none of which occurs elsewhere
/// in the fixture: a search for any of them must find nothing.
const SECRET_WORDS: [&str; 11] = [
    "hunter2", "sekrit", "9f3k", "s3cr3t", "zq8v", "77hq", "5wm2", "lp4r", "one11", "jk22", "tail3",
];

const APPLICATION_YML: &str = "server:\n  port: 8080\nspring:\n  application:\n    name: vault-demo\n  datasource:\n    url: jdbc:mysql://shop:url-pw-9f3k@db:3306/shop\n    username: shop\n    password: hunter2-sekrit\n  mail:\n    password: ${MAIL_PASSWORD}\n";
/// 1-based line of `password: hunter2-sekrit` above.
const DB_PASSWORD_LINE: u64 = 9;

const PROD_PROPERTIES: &str = "# JWT settings\njwt.issuer=vault-demo\njwt.secret=jwt-s3cr3t-Zq8v\njwt.token.expiry-seconds=3600\n";
const JWT_SECRET_LINE: u64 = 3;

fn private_key_java() -> String {
    // Assembled here so that this source file holds no key block itself.
    let (begin, end) = (
        format!("-----BEGIN {} KEY-----", "PRIVATE"),
        format!("-----END {} KEY-----", "PRIVATE"),
    );
    format!(
        "package vault.security;\n\n/** Signs tokens with the service key. */\npublic class KeyHolder {{\n    static final String SERVICE_KEY = \"{begin}\\n\" +\n        \"{}\\n\" +\n        \"{}\\n\" +\n        \"{}\\n\" +\n        \"{end}\";\n\n    public String keyAlgorithm() {{\n        return \"RSA\";\n    }}\n}}\n",
        KEY_BODY[0], KEY_BODY[1], KEY_BODY[2]
    )
}

fn fixture(root: &Path) {
    write(root, "src/main/resources/application.yml", APPLICATION_YML);
    write(
        root,
        "src/main/resources/application-prod.properties",
        PROD_PROPERTIES,
    );
    // `.env` files are skipped by name; `*.conf` ones are read and masked.
    write(root, ".env", format!("API_TOKEN={ENV_TOKEN}\n"));
    write(
        root,
        "deploy/app.conf",
        format!("# deploy\nAPI_TOKEN={CONF_TOKEN}\nREGION=eu\n"),
    );
    write(
        root,
        "config/clients.json",
        format!("{{\"client\": \"web\", \"apiKey\": \"{JSON_KEY}\"}}\n"),
    );
    write(
        root,
        "src/main/java/vault/security/KeyHolder.java",
        private_key_java(),
    );
    write(
        root,
        "src/main/java/vault/db/DataSourceConfig.java",
        "package vault.db;\n\nimport org.springframework.beans.factory.annotation.Value;\n\n/** The database connection settings. */\npublic class DataSourceConfig {\n    @Value(\"${spring.datasource.password}\")\n    private String password;\n\n    public String password() {\n        return password;\n    }\n}\n",
    );
}

/// The fixture under `tmp/repo`, indexed by the binary into `tmp/idx`.
fn indexed(tmp: &Path) -> (PathBuf, PathBuf) {
    let root = tmp.join("repo");
    fixture(&root);
    let idx = tmp.join("idx");
    let o = codemap()
        .arg("--index-dir")
        .arg(&idx)
        .args(["index", "-q"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (root, idx)
}

fn assert_clean(what: &str, text: &str) {
    for s in secrets() {
        assert!(!text.contains(s), "{what} holds the secret {s:?}:\n{text}");
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Everything a reader can get back: files, their chunks' text and headers, symbols, and
/// full-text hits for each secret word.
fn assert_reader_clean(what: &str, r: &dyn IndexRead) {
    let files = r.current_files().unwrap();
    assert!(
        files.keys().any(|p| p.as_str().ends_with("KeyHolder.java")),
        "{what}: the Java file is indexed"
    );
    assert!(
        !files.keys().any(|p| p.as_str() == ".env"),
        "{what}: .env files are never read"
    );
    for p in files.keys() {
        for c in r.chunks_of(p.as_str()).unwrap() {
            assert_clean(&format!("{what}: chunk of {p}"), &c.chunk.text);
            assert_clean(&format!("{what}: chunk header of {p}"), &c.chunk.header);
        }
    }
    for s in r.all_symbols().unwrap() {
        let text = format!("{:?}", s.symbol);
        assert_clean(&format!("{what}: symbol"), &text);
    }
    for s in SECRET_WORDS {
        let hits = r.search_chunks(s, 10).unwrap();
        assert!(hits.is_empty(), "{what}: search for {s:?} found {hits:?}");
    }
}

#[test]
fn secrets_appear_nowhere_in_the_index_folder_or_its_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let (_root, idx) = indexed(tmp.path());
    // Let `ask` write its cached view tables too, so they are checked as well.
    let o = run(&idx, &["ask", "where is the database password configured?"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // (a) The raw bytes of every file of the folder: SQLite, WAL, tantivy segments, caches.
    let all = files_under(&idx);
    assert!(all.iter().any(|p| p.extension().is_some_and(|e| e == "db")));
    for f in &all {
        let bytes = std::fs::read(f).unwrap();
        for s in secrets() {
            assert!(
                memchr_find(&bytes, s.as_bytes()).is_none(),
                "{} holds the secret {s:?}",
                f.display()
            );
        }
    }
    // The stored file contents are zstd-compressed: read them back decompressed.
    let dir = IndexDir::new(&idx);
    let catalog = Catalog::open_read(&dir.catalog()).unwrap();
    for p in catalog.current_files().unwrap().keys() {
        let content = catalog
            .content(p.as_str())
            .unwrap()
            .expect("content stored");
        assert_clean(
            &format!("stored content of {p}"),
            &String::from_utf8_lossy(&content),
        );
    }
    // Everything the read API gives back.
    let index = EmbeddedIndex::open(&dir).unwrap();
    assert_reader_clean("embedded", &index);
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn masked_files_keep_their_lines_and_their_keys_stay_findable() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = indexed(tmp.path());
    let dir = IndexDir::new(&idx);
    let index = EmbeddedIndex::open(&dir).unwrap();

    // Same line count as on disk, and the key on its own line, value masked.
    for (path, line, want) in [
        (
            "src/main/resources/application.yml",
            DB_PASSWORD_LINE,
            "    password: ********",
        ),
        (
            "src/main/resources/application-prod.properties",
            JWT_SECRET_LINE,
            "jwt.secret=********",
        ),
        ("deploy/app.conf", 2, "API_TOKEN=********"),
    ] {
        let on_disk = std::fs::read_to_string(root.join(path)).unwrap();
        let stored = index.catalog.content(path).unwrap().unwrap();
        let stored = String::from_utf8_lossy(&stored);
        assert_eq!(stored.lines().count(), on_disk.lines().count(), "{path}");
        assert_eq!(
            stored.lines().nth(line as usize - 1),
            Some(want),
            "{path}:{line}"
        );
        let f = index.file(path).unwrap().unwrap();
        assert_eq!(f.lines as usize, on_disk.lines().count(), "{path}");
    }
    let java = index
        .catalog
        .content("src/main/java/vault/security/KeyHolder.java")
        .unwrap()
        .unwrap();
    let java = String::from_utf8_lossy(&java).into_owned();
    assert_eq!(java.lines().count(), private_key_java().lines().count());
    assert!(java.contains("        \"********\\n\" +\n"), "{java}");
    // The class is still parsed as Java.
    assert!(!index.symbols_named("keyAlgorithm").unwrap().is_empty());

    // (b) The keys are found by the read API and by `codemap search`, at their lines.
    let hits = index.search_chunks("password", 20).unwrap();
    let yml_hit = hits
        .iter()
        .filter_map(|h| index.chunk(&h.0).unwrap())
        .find(|c| c.path.as_str() == "src/main/resources/application.yml")
        .expect("search_chunks(password) finds application.yml");
    let at = yml_hit
        .chunk
        .text
        .lines()
        .position(|l| l == "    password: ********")
        .expect("the key line is in the chunk") as u64;
    assert_eq!(yml_hit.chunk.start_line as u64 + at, DB_PASSWORD_LINE);

    for (query, path, line) in [
        (
            "password",
            "src/main/resources/application.yml",
            DB_PASSWORD_LINE,
        ),
        (
            "jwt.secret",
            "src/main/resources/application-prod.properties",
            JWT_SECRET_LINE,
        ),
    ] {
        let hits = support::search(&idx, query);
        support::assert_hits_resolve(&root, &hits);
        assert!(
            hits.iter()
                .any(|(p, s, e)| p == path && *s <= line && line <= *e),
            "search {query}: {hits:?}"
        );
        let o = run(&idx, &["search", query]);
        assert_clean(&format!("search {query}"), &stdout(&o));
    }
}

#[test]
fn ask_names_the_key_and_never_the_value() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = indexed(tmp.path());
    for question in [
        "where is the database password configured?",
        "where is spring.datasource.password set?",
        "what is the jwt secret?",
        "which key signs the tokens?",
    ] {
        // `full` shows the most text: every cited range, as an LLM prompt would hold it.
        let o = run(&idx, &["ask", "--level", "full", question]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_clean(&format!("ask {question:?}"), &stdout(&o));
        let o = run(&idx, &["--json", "ask", "--level", "full", question]);
        let json = stdout(&o);
        assert_clean(&format!("ask --json {question:?}"), &json);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        check_citations(&root, &v);
    }
    // The database password question shows where the key is set, at its line, value masked.
    let text = stdout(&run(
        &idx,
        &[
            "ask",
            "--level",
            "full",
            "where is the database password configured?",
        ],
    ));
    assert!(
        text.contains("src/main/resources/application.yml"),
        "ask cites the configuration file:\n{text}"
    );
    let key_line = format!("{DB_PASSWORD_LINE}      password: ********");
    assert!(
        text.lines().any(|l| l.trim_start() == key_line),
        "ask shows the key at line {DB_PASSWORD_LINE}:\n{text}"
    );
}

/// Every `path:line` the JSON answer cites lies inside its file on disk.
fn check_citations(root: &Path, v: &serde_json::Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(o) => {
                if let (Some(p), Some(s)) = (
                    o.get("path").and_then(|p| p.as_str()),
                    o.get("start_line").and_then(|s| s.as_u64()),
                ) {
                    let e = o.get("end_line").and_then(|e| e.as_u64()).unwrap_or(s);
                    support::assert_hits_resolve(root, &[(p.to_string(), s, e)]);
                }
                stack.extend(o.values());
            }
            serde_json::Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

#[test]
#[ignore = "needs a Meilisearch server: MEILI_URL=… [MEILI_MASTER_KEY=…] cargo test -- --include-ignored"]
fn meilisearch_documents_hold_no_secret() {
    let Ok(url) = std::env::var("MEILI_URL") else {
        indexer::testing::skip(
            "meilisearch",
            "meilisearch_documents_hold_no_secret: MEILI_URL is not set \
             (set MEILI_URL and MEILI_MASTER_KEY to run it against a real server)",
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (_root, idx) = indexed(tmp.path());
    let dir = IndexDir::new(&idx);
    let prefix = format!("t{}_secrets_", std::process::id());
    let store = MeiliStore::connect(MeiliConfig::new(
        &url,
        std::env::var("MEILI_MASTER_KEY").ok(),
        &prefix,
        "vault",
    ))
    .unwrap();
    let published = store.publish(&Catalog::open_read(&dir.catalog()).unwrap());
    let checked = published.map(|_| {
        assert_reader_clean("meilisearch", &store);
        let hits = store.search_chunks("password", 20).unwrap();
        assert!(
            hits.iter()
                .any(|h| h.1 == "src/main/resources/application.yml"),
            "{hits:?}"
        );
    });
    let _ = store.drop_indexes();
    checked.unwrap();
}

/// The shop fixture's one secret (`shop.payment.callback-secret: "change-me"`) is masked, and the
/// call graph still leads from its `@Value` to the key's line.
#[test]
fn shop_callback_secret_is_masked_and_its_config_edge_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    support::copy_shop(&root);
    let idx = tmp.path().join("idx");
    let o = run(&idx, &["index", "-q", root.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let yml = "shop-payment/src/main/resources/application.yml";
    let index = EmbeddedIndex::open(&IndexDir::new(&idx)).unwrap();
    let stored = index.catalog.content(yml).unwrap().unwrap();
    let stored = String::from_utf8_lossy(&stored);
    assert_eq!(
        stored.lines().nth(9),
        Some("    callback-secret: \"********\"")
    );
    for f in files_under(&idx) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            memchr_find(&bytes, b"change-me").is_none(),
            "{} holds the callback secret",
            f.display()
        );
    }
    let o = run(&idx, &["export", "edges", "--kind", "config"]);
    let edges = stdout(&o);
    assert!(
        edges.lines().any(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            e["callee_symbol"] == "config:shop.payment.callback-secret"
                && e["callee_file"] == yml
                && e["callee_line"] == 10
        }),
        "{edges}"
    );
}

/// A new password in an otherwise unchanged file changes nothing stored (the stored hash is the
/// masked text's), and the new value is not stored either.
#[test]
fn a_changed_secret_alone_changes_nothing_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, idx) = indexed(tmp.path());
    let path = root.join("src/main/resources/application.yml");
    std::fs::write(
        &path,
        APPLICATION_YML.replace(DB_PASSWORD, "rotated-Tx3w-pw"),
    )
    .unwrap();
    let o = run(&idx, &["index", root.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = String::from_utf8_lossy(&o.stderr).into_owned() + &stdout(&o);
    assert!(summary.contains("0 changed"), "{summary}");
    for f in files_under(&idx) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            memchr_find(&bytes, b"rotated-Tx3w-pw").is_none(),
            "{}",
            f.display()
        );
    }
}
