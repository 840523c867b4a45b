//! What code says rather than what it is named: a message a question reports in its own words
//! is matched against the string literals that build it, and the exception a question asks for
//! is the one the matching code throws. Each builds a small repository, indexes it and asks
//! through the public API with the stored call graph.

mod support;
use query::question::Intent;
use support::{ask_stored, assert_citations_resolve, index_repo, symbols};

/// "I get an error saying no writer was found": the method whose literal says "No writer found
/// for …" comes first, ahead of methods that use the same words more often but say no such thing.
#[test]
fn a_message_reported_in_the_questions_words_finds_the_code_that_builds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("out");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/out/{p}"), text.to_string()));
    write(
        "WriterRegistry.java",
        "package com.out;\n\nimport java.util.HashMap;\nimport java.util.Map;\n\n/** Keeps a writer per value type. */\npublic class WriterRegistry {\n    private final Map<Class<?>, Writer> writers = new HashMap<>();\n\n    /** Registers a writer for a value type. */\n    public void register(Class<?> type, Writer writer) {\n        writers.put(type, writer);\n    }\n\n    /** The writer of a value: its type's writer, else the writer of a supertype. */\n    public Writer writerFor(Object value) {\n        Writer writer = writers.get(value.getClass());\n        if (writer == null) {\n            writer = writers.get(value.getClass().getSuperclass());\n        }\n        return writer;\n    }\n}\n",
    );
    write(
        "Writer.java",
        "package com.out;\n\n/** Writes one kind of value. */\npublic interface Writer {\n    void write(Object value, StringBuilder out);\n}\n",
    );
    write(
        "EmptyWriter.java",
        "package com.out;\n\n/** Stands in when a value has nothing to write. */\npublic class EmptyWriter implements Writer {\n    @Override\n    public void write(Object value, StringBuilder out) {\n        fail(value);\n    }\n\n    void fail(Object value) {\n        throw new IllegalStateException(String.format(\"No writer found for class %s and no fields to write\", value.getClass().getName()));\n    }\n}\n",
    );
    write(
        "Output.java",
        "package com.out;\n\n/** Writes objects with the writer found for each. */\npublic class Output {\n    private final WriterRegistry registry = new WriterRegistry();\n    private final Writer errorWriter = new EmptyWriter();\n\n    /** Writes an object with its writer; an object without fields gets the empty writer. */\n    public String writeObject(Object value) {\n        StringBuilder out = new StringBuilder();\n        find(value).write(value, out);\n        return out.toString();\n    }\n\n    /**\n     * Finds the writer of an object. When no writer is found for its class, or the class has\n     * no fields, the error writer is used: no writer found means an error, raised when written.\n     */\n    Writer find(Object value) {\n        Writer writer = registry.writerFor(value); // the writer found, if any\n        if (writer == null || value.getClass().getDeclaredFields().length == 0) {\n            writer = errorWriter; // no writer found: the error writer raises the error\n        }\n        return writer;\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "When I write an object that has no fields, I get an error saying no writer was found. Where is that error raised?",
    );
    assert_eq!(symbols(&a)[0], "EmptyWriter.fail", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
}

/// "Which exception do I get when …" is answered by what the matching code throws, even when
/// the exception's own name shares no word with the question.
#[test]
fn the_exception_a_question_asks_for_is_the_one_the_matching_code_throws() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("arc");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/arc/{p}"), text.to_string()));
    write(
        "LimitExceededException.java",
        "package com.arc;\n\npublic class LimitExceededException extends RuntimeException {\n    public LimitExceededException(String message) {\n        super(message);\n    }\n}\n",
    );
    write(
        "ChecksumMismatchException.java",
        "package com.arc;\n\npublic class ChecksumMismatchException extends RuntimeException {\n    public ChecksumMismatchException(String message) {\n        super(message);\n    }\n}\n",
    );
    write(
        "ArchiveWriter.java",
        "package com.arc;\n\npublic class ArchiveWriter {\n    static final int MAX_NAME = 100;\n\n    /** Adds an entry; its name must fit the header. */\n    public void putEntry(String entryName) {\n        if (entryName.length() > MAX_NAME) {\n            throw new LimitExceededException(\"entry name too long: \" + entryName);\n        }\n        System.out.println(entryName);\n    }\n\n    public void verify(long expected, long actual) {\n        if (expected != actual) {\n            throw new ChecksumMismatchException(\"checksum \" + actual);\n        }\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "Which exception do I get when an archive entry name is too long, and where is it declared?",
    );
    assert_eq!(a.intent, Intent::Definition);
    let got = symbols(&a);
    let at = |name: &str| got.iter().position(|s| s == name);
    assert!(
        at("LimitExceededException").is_some_and(|k| k < 3),
        "{got:?}"
    );
    assert!(
        at("ChecksumMismatchException").is_none_or(|k| k > at("LimitExceededException").unwrap()),
        "{got:?}"
    );
    assert_citations_resolve(&a, &root);
}

/// A message kept in a resource bundle: the code names only its key
/// (`sm.getString("host.deployFailed", name)`), so the logged text a question repeats is found in
/// `LocalStrings.properties` and answered by the method that names the key, ahead of methods
/// whose own words are closer to the question's.
#[test]
fn a_message_from_a_resource_bundle_finds_the_method_naming_its_key() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("srv");
    let file = |p: &str, text: &str| (format!("src/main/java/com/srv/{p}"), text.to_string());
    // Work before the logging line, so that the method's first lines do not show it.
    let steps = (1..=20)
        .map(|k| format!("System.out.println(\"step {k} of \" + name);"))
        .collect::<Vec<_>>()
        .join("\n        ");
    let files = vec![
        file(
            "LocalStrings.properties",
            "# Messages of com.srv\nhost.deployed=Deployment of web application [{0}] has finished in [{1}] ms\nhost.deployFailed=Error deploying web application archive [{0}]: the archive is \\\n    corrupt or unreadable\nhost.undeployed=Undeployed web application [{0}]\n",
        ),
        file(
            "LocalStrings_fr.properties",
            "host.deployFailed=Erreur lors du déploiement de l''archive [{0}]\n",
        ),
        file(
            "StringManager.java",
            "package com.srv;\n\nimport java.util.ResourceBundle;\n\n/** Messages of a package, by key. */\npublic class StringManager {\n    private final ResourceBundle bundle = ResourceBundle.getBundle(\"com.srv.LocalStrings\");\n\n    public String getString(String key, Object... args) {\n        return java.text.MessageFormat.format(bundle.getString(key), args);\n    }\n}\n",
        ),
        file(
            "HostConfig.java",
            &"package com.srv;\n\n/** Deploys the web applications of a host. */\npublic class HostConfig {\n    private static final StringManager sm = new StringManager();\n\n    /** Deploys one archive. */\n    protected void deployWar(String name) {\n        STEPS\n        try {\n            expand(name);\n        } catch (RuntimeException e) {\n            System.err.println(sm.getString(\"host.deployFailed\", name));\n        }\n    }\n\n    private void expand(String name) {\n        System.out.println(sm.getString(\"host.deployed\", name, 0));\n    }\n}\n"
                .replace("STEPS", &steps),
        ),
        file(
            "ArchiveReader.java",
            "package com.srv;\n\n/** Reads web application archives. */\npublic class ArchiveReader {\n    /** Checks that a web application archive is readable: a corrupt archive is an error. */\n    public boolean readable(String archive) {\n        // an unreadable or corrupt web application archive cannot be deployed\n        return archive != null && archive.endsWith(\".war\");\n    }\n}\n",
        ),
    ];
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "The log says: Error deploying web application archive [shop.war]: the archive is corrupt or unreadable. Where does that come from?",
    );
    assert_eq!(symbols(&a)[0], "HostConfig.deployWar", "{:?}", symbols(&a));
    // The code shown is where the message is logged, not the method's first lines (the steps).
    let shown = &a.snippets[0];
    assert!(
        shown.code.contains("\"host.deployFailed\""),
        "{}",
        shown.code
    );
    assert!(shown.start_line > a.citations[0].start_line, "{shown:?}");
    // The note says where the message is worded: the bundle's line 3 holds that entry.
    assert!(
        a.notes.iter().any(|n| n.contains("`host.deployFailed`")
            && n.contains("src/main/java/com/srv/LocalStrings.properties:3:")),
        "{:?}",
        a.notes
    );
    assert_citations_resolve(&a, &root);
}

/// A bundle key kept in a constant (`static final String INVALID_TOKEN = "token.invalid"`) is
/// named by the methods that read the constant: those answer the message, not the constant.
#[test]
fn a_bundle_key_kept_in_a_constant_finds_the_methods_reading_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("auth");
    let file = |p: &str, text: &str| (format!("src/main/java/com/auth/{p}"), text.to_string());
    let files = vec![
        // Spring keeps the bundle in resources/, away from the code naming its keys.
        (
            "src/main/resources/messages.properties".to_string(),
            "token.invalid=The access token has expired or was revoked by the server\ntoken.missing=No access token was sent\n".to_string(),
        ),
        file(
            "Messages.java",
            "package com.auth;\n\n/** Keys of the user-facing messages. */\npublic final class Messages {\n    public static final String INVALID_TOKEN = \"token.invalid\";\n    public static final String MISSING_TOKEN = \"token.missing\";\n}\n",
        ),
        file(
            "TokenFilter.java",
            "package com.auth;\n\n/** Checks the access token of each request. */\npublic class TokenFilter {\n    private final Translator t = new Translator();\n\n    /** Rejects a request whose token is not valid. */\n    public String check(String token) {\n        if (token == null) {\n            return t.text(Messages.MISSING_TOKEN);\n        }\n        if (!token.startsWith(\"v1.\")) {\n            return t.text(Messages.INVALID_TOKEN);\n        }\n        return null;\n    }\n}\n",
        ),
        file(
            "Translator.java",
            "package com.auth;\n\n/** Looks messages up by key. */\npublic class Translator {\n    public String text(String key) {\n        return key;\n    }\n}\n",
        ),
        file(
            "TokenStore.java",
            "package com.auth;\n\n/** Keeps issued access tokens; an expired or revoked token is dropped by the server. */\npublic class TokenStore {\n    /** Drops an access token that has expired or was revoked. */\n    public void revoke(String token) {\n        System.out.println(token);\n    }\n}\n",
        ),
    ];
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "Users get 'The access token has expired or was revoked by the server'. Which code sends that?",
    );
    assert_eq!(symbols(&a)[0], "TokenFilter.check", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
}
