use super::*;
use proptest::prelude::*;

fn m(path: &str, src: &str) -> String {
    let p = RepoPath::new(path).unwrap();
    let out = mask(&p, src.as_bytes());
    let out = String::from_utf8(out.into_owned()).unwrap();
    assert_eq!(
        out.split('\n').count(),
        src.split('\n').count(),
        "line count changed:\n{src}\n---\n{out}"
    );
    out
}

#[test]
fn secret_keys_are_judged_by_their_last_word() {
    for k in [
        "spring.datasource.password",
        "jwt.secret",
        "API_TOKEN",
        "DB_PASSWD",
        "clientSecret",
        "client-secret",
        "aws.secret-access-key",
        "stripe.apiKey",
        "APIKEY",
        "private_key",
        "jwt.signing.key",
        "server.ssl.key-store-password",
        "dbpassword",
        "githubToken",
        "spring.rabbitmq.pass",
        "bcrypt.salt",
        "credentials",
        "Authorization",
    ] {
        assert!(is_secret_key(k), "{k} should be secret");
    }
    for k in [
        "token.expiry-seconds",
        "tokenTtl",
        "password-min-length",
        "spring.security.oauth2.client.provider.x.token-uri",
        "DB_PASSWORD_FILE",
        "cache.key",
        "access-key-id",
        "passwordEncoder",
        "bypass",
        "spring.datasource.username",
        "",
    ] {
        assert!(!is_secret_key(k), "{k} should not be secret");
    }
}

#[test]
fn properties_mask_values_and_keep_keys_placeholders_and_comments() {
    let src = "# the password is in the vault\n\
               spring.datasource.url=jdbc:mysql://db:3306/shop\n\
               spring.datasource.username=shop\n\
               spring.datasource.password=hunter2-sekrit\n\
               jwt.secret = s3cr3t-jwt-key\n\
               jwt.token.expiry-seconds=3600\n\
               mail.password=${MAIL_PASSWORD}\n\
               redis.password=${REDIS_PASSWORD:redis-dev-pw}\n\
               empty.password=\n\
               api.token: abc\\\n    def\\\n    ghi\n\
               after=visible\n";
    assert_eq!(
        m("src/main/resources/application.properties", src),
        "# the password is in the vault\n\
         spring.datasource.url=jdbc:mysql://db:3306/shop\n\
         spring.datasource.username=shop\n\
         spring.datasource.password=********\n\
         jwt.secret = ********\n\
         jwt.token.expiry-seconds=3600\n\
         mail.password=${MAIL_PASSWORD}\n\
         redis.password=${REDIS_PASSWORD:********}\n\
         empty.password=\n\
         api.token: ********\\\n    ********\\\n    ********\n\
         after=visible\n"
    );
}

#[test]
fn message_bundles_keep_their_prose() {
    let src = "login.password=Enter your password\n";
    assert_eq!(m("web/messages_fr.properties", src), src);
    assert_eq!(m("org/apache/LocalStrings.properties", src), src);
    assert_ne!(m("conf/app_db.properties", src), src);
}

#[test]
fn yaml_masks_nested_quoted_listed_and_block_values() {
    let src = "spring:\n  datasource:\n    username: shop\n    password: hunter2-sekrit # prod\n\
               \x20   \"api-key\": 'k-123'\nshop:\n  tokenTtl: 30\n  token: \"\"\n  secret: ${SHOP_SECRET}\n\
               users:\n  - name: a\n    password: p1\n  - password: p2\n\
               tls:\n  private-key: |\n    line-one\n\n    line-two\n  port: 8443\n";
    assert_eq!(
        m("app/src/main/resources/application.yml", src),
        "spring:\n  datasource:\n    username: shop\n    password: ******** # prod\n\
         \x20   \"api-key\": '********'\nshop:\n  tokenTtl: 30\n  token: \"\"\n  secret: ${SHOP_SECRET}\n\
         users:\n  - name: a\n    password: ********\n  - password: ********\n\
         tls:\n  private-key: |\n    ********\n\n    ********\n  port: 8443\n"
    );
}

#[test]
fn env_style_lines_in_env_ini_toml_and_shell_files() {
    let env = "# local\nAPI_TOKEN=tok-abc-123\nexport DB_PASSWORD=\"pw with space\" # note\n\
               DB_PASSWORD_FILE=/run/secrets/db\nDB_USER=shop\nSECRET=$VAULT_SECRET\n";
    let want = "# local\nAPI_TOKEN=********\nexport DB_PASSWORD=\"********\" # note\n\
                DB_PASSWORD_FILE=/run/secrets/db\nDB_USER=shop\nSECRET=$VAULT_SECRET\n";
    assert_eq!(m(".env", env), want);
    assert_eq!(m("deploy/prod.env", env), want);
    assert_eq!(m("scripts/run.sh", env), want);
    assert_eq!(
        m(
            "conf/app.ini",
            "[db]\npassword = pa55\n; password = old\nhost = x\n"
        ),
        "[db]\npassword = ********\n; password = old\nhost = x\n"
    );
    assert_eq!(
        m(
            "Cargo.toml",
            "[registry]\napi_key = \"abc\"\nname = \"x\"\n"
        ),
        "[registry]\napi_key = \"********\"\nname = \"x\"\n"
    );
}

#[test]
fn json_members_on_one_line_or_many() {
    assert_eq!(
        m(
            "config/creds.json",
            "{\"user\":\"u\",\"password\":\"p\\\"w\",\"apiKey\":12345,\"auth\":{\"token\":\"t\"},\"secret\":null}\n"
        ),
        "{\"user\":\"u\",\"password\":\"********\",\"apiKey\":********,\"auth\":{\"token\":\"********\"},\"secret\":null}\n"
    );
    assert_eq!(
        m(
            "a.json",
            "{\n  \"clientSecret\": \"cs-1\",\n  \"tokenTtl\": 5\n}\n"
        ),
        "{\n  \"clientSecret\": \"********\",\n  \"tokenTtl\": 5\n}\n"
    );
}

#[test]
fn xml_element_text_attributes_and_named_values() {
    let src = "<settings>\n  <server><id>nexus</id><password>mvn-pw</password></server>\n\
               <spring.datasource.password>x1</spring.datasource.password>\n\
               <db:password><![CDATA[cd-pw]]></db:password>\n\
               <password>${env.PW}</password>\n\
               <Resource name=\"jdbc/shop\" username=\"shop\" password=\"res-pw\"/>\n\
               <property name=\"password\" value=\"bean-pw\"/>\n\
               <property name=\"url\" value=\"jdbc:h2:mem\"/>\n</settings>\n";
    assert_eq!(
        m("pom.xml", src),
        "<settings>\n  <server><id>nexus</id><password>********</password></server>\n\
         <spring.datasource.password>********</spring.datasource.password>\n\
         <db:password><![CDATA[********]]></db:password>\n\
         <password>${env.PW}</password>\n\
         <Resource name=\"jdbc/shop\" username=\"shop\" password=\"********\"/>\n\
         <property name=\"password\" value=\"********\"/>\n\
         <property name=\"url\" value=\"jdbc:h2:mem\"/>\n</settings>\n"
    );
}

const KEY_LINES: [&str; 3] = [
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj",
    "MZxQ9m3nqCfKSp0sLo8Q0p8nTl1wR0lqvUaWqoFbYjyIbYxdJ0EJmGNv+k3sVuNf",
    "AQAB",
];

#[test]
fn private_key_blocks_in_any_file_keep_their_lines() {
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n{}\n-----END RSA PRIVATE KEY-----\n",
        KEY_LINES[0], KEY_LINES[1], KEY_LINES[2]
    );
    assert_eq!(
        m("docs/notes.md", &pem),
        "-----BEGIN RSA PRIVATE KEY-----\n********\n********\n********\n-----END RSA PRIVATE KEY-----\n"
    );
    let java = format!(
        "class K {{\n    static final String KEY = \"-----BEGIN PRIVATE KEY-----\\n\" +\n        \"{}\\n\" +\n        \"{}\\n\" +\n        \"Hw==\\n\" +\n        \"-----END PRIVATE KEY-----\";\n    int after = 1;\n}}\n",
        KEY_LINES[0], KEY_LINES[1]
    );
    assert_eq!(
        m("src/K.java", &java),
        "class K {\n    static final String KEY = \"-----BEGIN PRIVATE KEY-----\\n\" +\n        \"********\\n\" +\n        \"********\\n\" +\n        \"********\\n\" +\n        \"-----END PRIVATE KEY-----\";\n    int after = 1;\n}\n"
    );
    let json = format!(
        "{{\"pem\": \"-----BEGIN EC PRIVATE KEY-----\\n{}\\n-----END EC PRIVATE KEY-----\\n\"}}\n",
        KEY_LINES[0]
    );
    assert_eq!(
        m("x.txt", &json),
        "{\"pem\": \"-----BEGIN EC PRIVATE KEY-----\\n********\\n-----END EC PRIVATE KEY-----\\n\"}\n"
    );
}

#[test]
fn marker_constants_public_keys_and_cut_off_blocks() {
    // Code between two marker constants is not key material.
    let consts = "static final String B = \"-----BEGIN PRIVATE KEY-----\";\nstatic final String E = \"-----END PRIVATE KEY-----\";\n";
    assert_eq!(m("P.java", consts), consts);
    let public = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        KEY_LINES[0], KEY_LINES[1]
    );
    assert_eq!(m("k.txt", &public), public);
    // No END marker: masked up to the first line without key material.
    let cut = format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n{}\nThe end of the note.\n",
        KEY_LINES[0], KEY_LINES[1]
    );
    assert_eq!(
        m("notes.txt", &cut),
        "-----BEGIN OPENSSH PRIVATE KEY-----\n********\n********\nThe end of the note.\n"
    );
}

#[test]
fn url_credentials_in_any_file() {
    let src = "String url = \"jdbc:mysql://root:r00t-pw@db:3306/shop?useSSL=false&password=qp&user=a\";\n\
               // see http://example.com:8080/x?page=2\n\
               amqp://${RABBIT_USER}:${RABBIT_PASS}@mq/\n\
               jdbc:sqlserver://h;user=sa;password=Sq1-pw;db=x\n";
    assert_eq!(
        m("src/Db.java", src),
        "String url = \"jdbc:mysql://root:********@db:3306/shop?useSSL=false&password=********&user=a\";\n\
         // see http://example.com:8080/x?page=2\n\
         amqp://${RABBIT_USER}:${RABBIT_PASS}@mq/\n\
         jdbc:sqlserver://h;user=sa;password=********;db=x\n"
    );
}

#[test]
fn text_without_secrets_is_borrowed_unchanged() {
    let src = b"package a;\nclass A { String tokenUri = \"https://x/oauth/token\"; }\n";
    let p = RepoPath::new("A.java").unwrap();
    assert!(matches!(mask(&p, src), Cow::Borrowed(_)));
    let p = RepoPath::new("application.yml").unwrap();
    assert!(matches!(
        mask(&p, b"server:\n  port: 8080\n"),
        Cow::Borrowed(_)
    ));
}

#[test]
fn crlf_lines_keep_their_carriage_returns() {
    assert_eq!(
        m("a.properties", "db.password=x\r\nother=y\r\n"),
        "db.password=********\r\nother=y\r\n"
    );
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("password: ".to_string()),
        Just("db.password=".to_string()),
        Just("API_TOKEN=".to_string()),
        Just("\"secret\": \"".to_string()),
        Just("<password>".to_string()),
        Just("</password>".to_string()),
        Just("-----BEGIN PRIVATE KEY-----".to_string()),
        Just("-----END PRIVATE KEY-----".to_string()),
        Just("jdbc:mysql://u:p@h/?password=".to_string()),
        Just("private-key: |".to_string()),
        Just("${X:y}".to_string()),
        Just("\\".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("  ".to_string()),
        Just("- ".to_string()),
        "[a-zA-Z0-9+/=\"'#:;&?@<>{}\\[\\], .-]{0,12}",
    ]
}

proptest! {
    #[test]
    fn masking_never_changes_the_line_count(
        parts in prop::collection::vec(fragment(), 0..40),
        ext in prop::sample::select(vec!["properties", "yml", "env", "json", "xml", "java", "ini"]),
    ) {
        let src = parts.concat();
        let path = RepoPath::new(&format!("dir/file.{ext}")).unwrap();
        let once = mask(&path, src.as_bytes()).into_owned();
        let count = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
        prop_assert_eq!(count(&once), count(src.as_bytes()));
    }

    #[test]
    fn arbitrary_bytes_keep_their_line_count(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        ext in prop::sample::select(vec!["properties", "yml", "env", "json", "xml", "java"]),
    ) {
        let path = RepoPath::new(&format!("f.{ext}")).unwrap();
        let out = mask(&path, &bytes);
        let count = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
        prop_assert_eq!(count(&out), count(&bytes));
    }
}
