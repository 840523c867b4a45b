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
