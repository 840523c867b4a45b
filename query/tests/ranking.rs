//! Ranking and answer-shape behaviours found on corpora nobody tuned on (bench/qa.sh): names
//! several types declare, overloads, and flow chains through argument checks. Each builds a small
//! repository, indexes it and asks through the public API with the stored call graph.

mod support;
use indexer::store::EmbeddedIndex;
use query::Asker;
use query::question::Intent;
use support::{ask_stored, assert_citations_resolve, index_repo, opts, pads_java, symbols};

/// A method name several types declare: "who calls it" means all of them, unless the name is
/// too common for that, and then the answer says why instead of claiming it does not exist.
#[test]
fn callers_of_a_name_several_types_declare() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bus");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: String| files.push((format!("src/main/java/com/bus/{p}"), text));
    write(
        "Sink.java",
        "package com.bus;\n\npublic interface Sink {\n    void publish(String m);\n    String describe();\n}\n".into(),
    );
    // Six sinks publish; fourteen types describe themselves.
    for k in 0..14 {
        let publish = if k < 4 {
            "    public void publish(String m) {\n        System.out.println(m);\n    }\n"
        } else {
            ""
        };
        write(
            &format!("Sink{k}.java"),
            format!(
                "package com.bus;\n\npublic class Sink{k} {{\n{publish}    public String describe() {{\n        return \"sink {k}\";\n    }}\n}}\n"
            ),
        );
    }
    write(
        "Bus.java",
        "package com.bus;\n\npublic class Bus {\n    private final Sink sink;\n\n    public Bus(Sink sink) {\n        this.sink = sink;\n    }\n\n    public void send(String m) {\n        sink.publish(m);\n    }\n\n    public String label() {\n        return sink.describe();\n    }\n}\n".into(),
    );
    write(
        "Audit.java",
        "package com.bus;\n\npublic class Audit {\n    public void record(String m) {\n        new MailSink().publish(m);\n    }\n}\n".into(),
    );
    write(
        "MailSink.java",
        "package com.bus;\n\npublic class MailSink {\n    public void publish(String m) {\n        System.err.println(m);\n    }\n}\n".into(),
    );
    let dir = index_repo(&root, &files);

    let a = ask_stored(&dir, "Who calls publish?");
    assert_eq!(a.intent, Intent::Callers);
    let cited = symbols(&a);
    assert_eq!(
        cited[..2].iter().collect::<std::collections::BTreeSet<_>>(),
        ["Audit.record".to_string(), "Bus.send".to_string()]
            .iter()
            .collect(),
        "{cited:?}"
    );
    assert!(
        !a.notes.iter().any(|n| n.contains("not a method")),
        "{:?}",
        a.notes
    );
    assert_citations_resolve(&a, &root);

    // A name several types share, with the type it is asked of: that type's member only.
    let a = ask_stored(&dir, "Which methods call MailSink's publish method?");
    assert_eq!(a.intent, Intent::Callers);
    assert_eq!(symbols(&a)[0], "Audit.record", "{:?}", symbols(&a));
    assert!(
        a.answer
            .starts_with("Callers of MailSink.publish:\n- Audit.record"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, &root);

    // A type named alone: where it is created.
    let a = ask_stored(&dir, "Who calls MailSink?");
    assert!(
        a.answer.starts_with("Callers of MailSink:\n- Audit.record"),
        "{}",
        a.answer
    );
    assert!(
        a.notes.iter().any(|n| n.contains("MailSink is a type")),
        "{:?}",
        a.notes
    );
    assert_citations_resolve(&a, &root);

    let a = ask_stored(&dir, "Who calls describe?");
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("describe is declared by 15 types")),
        "{:?}",
        a.notes
    );
    assert_citations_resolve(&a, &root);
}

/// Overloads of one method are one answer: the top places are not all `pad(…)`.
#[test]
fn overloads_do_not_fill_the_top_places() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("pad");
    let text = pads_java();
    let dir = index_repo(&root, &[("src/main/java/com/pad/Pads.java".into(), text)]);
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let a = asker
        .ask("Where are values padded with spaces to a width?", &opts())
        .unwrap();
    let top: Vec<String> = symbols(&a).into_iter().take(3).collect();
    assert!(top.contains(&"Pads.padColumn".to_string()), "{top:?}");
    assert_eq!(
        top.iter().filter(|s| *s == "Pads.pad").count(),
        1,
        "one overload in the top three: {top:?}"
    );
    assert_citations_resolve(&a, &root);
}

/// A flow goes through the calls that do the work, not the argument checks on the way.
#[test]
fn flow_chains_skip_static_argument_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("imp");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/imp/{p}"), text.to_string()));
    write(
        "Check.java",
        "package com.imp;\n\npublic final class Check {\n    public static void notNull(Object o) {\n        if (o == null) throw new IllegalArgumentException();\n    }\n\n    public static void hasRows(String csv) {\n        if (csv.isEmpty()) throw new ImportException(\"csv import has no rows\");\n    }\n}\n",
    );
    // A check whose exception is the code base's own: it calls further, yet only throws.
    write(
        "ImportException.java",
        "package com.imp;\n\npublic class ImportException extends RuntimeException {\n    public ImportException(String message) {\n        super(message.trim());\n    }\n}\n",
    );
    write(
        "Importer.java",
        "package com.imp;\n\npublic class Importer {\n    private final Store store = new Store();\n\n    public int importRows(String csv) {\n        Check.notNull(csv);\n        Check.hasRows(csv);\n        return store.saveRows(csv.split(\",\"));\n    }\n}\n",
    );
    write(
        "Store.java",
        "package com.imp;\n\npublic class Store {\n    private int saved;\n\n    public int saveRows(String[] rows) {\n        for (String row : rows) {\n            Check.notNull(row);\n            writeRow(row);\n        }\n        return saved;\n    }\n\n    private void writeRow(String row) {\n        saved += row.length();\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(&dir, "What happens when Importer.importRows(csv) runs?");
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|c| c.symbol.as_str()).collect();
    assert_eq!(chain[0], "Importer.importRows", "{chain:?}");
    assert!(chain.contains(&"Store.saveRows"), "{chain:?}");
    assert!(!chain.contains(&"Check.notNull"), "{chain:?}");
    assert!(!chain.contains(&"Check.hasRows"), "{chain:?}");
}

/// Asked for an annotation (an interface, an enum), the type is the answer, not the methods that
/// handle annotations.
#[test]
fn a_definition_question_naming_a_kind_gets_that_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ann");
    let files = [
        (
            "src/main/java/com/ann/SkipField.java".to_string(),
            "package com.ann;\n\nimport java.lang.annotation.Retention;\nimport java.lang.annotation.RetentionPolicy;\n\n/** Leaves a field out of the printed form. */\n@Retention(RetentionPolicy.RUNTIME)\npublic @interface SkipField {\n}\n".to_string(),
        ),
        (
            "src/main/java/com/ann/Fields.java".to_string(),
            "package com.ann;\n\nimport java.lang.reflect.Field;\nimport java.util.ArrayList;\nimport java.util.List;\n\npublic class Fields {\n    /** Which fields of an object are left out when its fields are printed: those with an annotation. */\n    public static List<Field> fieldsLeftOutWhenPrinted(Class<?> type, Class<? extends java.lang.annotation.Annotation> annotation) {\n        List<Field> out = new ArrayList<>();\n        for (Field f : type.getDeclaredFields()) {\n            if (f.isAnnotationPresent(annotation)) {\n                out.add(f);\n            }\n        }\n        return out;\n    }\n\n    /** Prints a field unless its annotation says to leave it out. */\n    public static String printField(Field field, Object o) throws IllegalAccessException {\n        if (field.isAnnotationPresent(SkipField.class)) {\n            return \"\";\n        }\n        return field.getName() + \"=\" + field.get(o);\n    }\n}\n".to_string(),
        ),
    ];
    let dir = index_repo(&root, &files);
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let a = asker
        .ask(
            "Which annotation leaves a field out when an object's fields are printed, and where is it declared?",
            &opts(),
        )
        .unwrap();
    assert_eq!(a.intent, Intent::Definition);
    assert_eq!(symbols(&a)[0], "SkipField", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
}

/// Two methods hold the question's words equally often; the one where they stand together (a
/// message, a `missingNode(..)` call) is where the behaviour is.
#[test]
fn question_words_standing_together_outrank_scattered_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("tree");
    let files = [(
        "src/main/java/com/tree/Walker.java".to_string(),
        "package com.tree;\n\npublic class Walker {\n    public Object first(String key) {\n        Object v = lookup(key);\n        if (v == null) {\n            log(\"node for this lookup of a key is missing\");\n        }\n        return v;\n    }\n\n    public Object second(String key) {\n        Object v = lookup(key);\n        if (v == null) {\n            log(\"lookup of a key gave a missing node\");\n        }\n        return v;\n    }\n\n    private Object lookup(String key) {\n        return null;\n    }\n\n    private void log(String m) {\n    }\n}\n".to_string(),
    )];
    let dir = index_repo(&root, &files);
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let a = asker
        .ask("Where does the lookup report a missing node?", &opts())
        .unwrap();
    let cited = symbols(&a);
    let pos = |s: &str| cited.iter().position(|c| c == s);
    assert!(
        pos("Walker.second").is_some() && pos("Walker.second") < pos("Walker.first"),
        "{cited:?}"
    );
    assert_citations_resolve(&a, &root);
}

/// `mapper.readValue(..)`: the variable is named after its type's last word, so the method is
/// ObjectMapper's, not the first `readValue` in path order.
#[test]
fn a_variable_qualifier_names_its_type_by_its_last_word() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("json");
    let mut files: Vec<(String, String)> = Vec::new();
    for owner in ["Context", "ObjectMapper", "Reader", "Tree"] {
        files.push((
            format!("src/main/java/com/json/{owner}.java"),
            format!(
                "package com.json;\n\npublic class {owner} {{\n    public Object readValue(String json) {{\n        return parse(json);\n    }}\n\n    private Object parse(String json) {{\n        return json.trim();\n    }}\n}}\n"
            ),
        ));
    }
    files.push((
        "src/main/java/com/json/Service.java".into(),
        "package com.json;\n\npublic class Service {\n    private final ObjectMapper objectMapper = new ObjectMapper();\n\n    public Object load(String json) {\n        return objectMapper.readValue(json);\n    }\n}\n".into(),
    ));
    files.push((
        "src/main/java/com/json/Scanner.java".into(),
        "package com.json;\n\npublic class Scanner {\n    private final Context context = new Context();\n\n    public Object scan(String json) {\n        return context.readValue(json);\n    }\n}\n".into(),
    ));
    let dir = index_repo(&root, &files);
    let index = EmbeddedIndex::open(&dir).unwrap();
    let view = query::view::SnapshotView::open(&index, Some(&root)).unwrap();
    let r = query::retrieve::Retriever::new(&view);
    let named = |question: &str| -> Vec<String> {
        r.exact(&query::question::understand(question))
            .into_iter()
            .map(|i| view.sym(i).symbol.qualified_name.clone())
            .collect()
    };
    assert_eq!(
        named("Who calls mapper.readValue?"),
        vec!["com.json.ObjectMapper.readValue"]
    );
    // An abbreviation of the type's last word.
    assert_eq!(
        named("Who calls ctx.readValue?"),
        vec!["com.json.Context.readValue"]
    );
    // A variable no type is named by: every `readValue`.
    assert_eq!(named("Who calls node.readValue?").len(), 4);
    // A line of the asker's code starts a flow; a question about what happens inside it is
    // not asking for the method it calls.
    assert_eq!(
        named("What happens when I call mapper.readValue(json)?"),
        vec!["com.json.ObjectMapper.readValue"]
    );
    assert!(named("If I call mapper.readValue(json), where is the text trimmed?").is_empty());
    let a = ask_stored(&dir, "Who calls mapper.readValue?");
    assert_eq!(symbols(&a)[0], "Service.load", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
}

/// A call through an interface goes on in one of its implementations; the question's words pick
/// which one the chain follows.
#[test]
fn flow_chains_follow_a_call_into_the_implementation_the_question_is_about() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("disp");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/disp/{p}"), text.to_string()));
    write(
        "Handler.java",
        "package com.disp;\n\npublic interface Handler {\n    void handle(Request r);\n}\n",
    );
    write(
        "Request.java",
        "package com.disp;\n\npublic class Request {\n    public String token;\n    public boolean authenticated;\n}\n",
    );
    write(
        "TokenHandler.java",
        "package com.disp;\n\npublic class TokenHandler implements Handler {\n    @Override\n    public void handle(Request r) {\n        if (r.token == null || r.token.isEmpty()) {\n            throw new IllegalStateException(\"no token to authenticate\");\n        }\n        r.authenticated = verifyToken(r.token);\n    }\n\n    private boolean verifyToken(String token) {\n        return token.startsWith(\"ok\");\n    }\n}\n",
    );
    write(
        "LogHandler.java",
        "package com.disp;\n\npublic class LogHandler implements Handler {\n    @Override\n    public void handle(Request r) {\n        System.out.println(r);\n    }\n}\n",
    );
    write(
        "Dispatcher.java",
        "package com.disp;\n\npublic class Dispatcher {\n    private final Handler handler;\n\n    public Dispatcher(Handler handler) {\n        this.handler = handler;\n    }\n\n    public void dispatch(Request r) {\n        handler.handle(r);\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "What happens when I call Dispatcher.dispatch — where does the request's token get verified?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(chain[0], "Dispatcher.dispatch", "{chain:?}");
    assert!(chain.contains(&"TokenHandler.handle"), "{chain:?}");
    assert!(!chain.contains(&"LogHandler.handle"), "{chain:?}");
    assert_citations_resolve(&a, &root);
}

/// A name the question writes that only a test declares (the example getter of a test bean) is
/// not pinned above the code that does the work.
#[test]
fn a_name_only_tests_declare_is_not_pinned_first() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bean");
    let files = [
        (
            "examples/src/main/java/demo/ServerBean.java".to_string(),
            "package demo;\n\npublic class ServerBean {\n    public String getHostName() {\n        return \"localhost\";\n    }\n}\n".to_string(),
        ),
        (
            "src/main/java/com/bean/Naming.java".to_string(),
            "package com.bean;\n\npublic class Naming {\n    /** Strips the get prefix and lower-cases the leading capitals of a getter name. */\n    public static String propertyName(String getter) {\n        String rest = getter.substring(3);\n        int i = 0;\n        while (i < rest.length() && Character.isUpperCase(rest.charAt(i))) {\n            i++;\n        }\n        return rest.substring(0, i).toLowerCase() + rest.substring(i);\n    }\n}\n".to_string(),
        ),
        (
            "src/test/java/com/bean/NamingTest.java".to_string(),
            "package com.bean;\n\npublic class NamingTest {\n    static class UrlBean {\n        public String getURL() {\n            return \"x\";\n        }\n    }\n\n    public void testUrl() {\n        assert Naming.propertyName(\"getURL\").equals(\"url\");\n    }\n}\n".to_string(),
        ),
    ];
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "Why does a getter called getURL() end up as url? Where is the get prefix stripped and the leading capitals lower-cased?",
    );
    assert_eq!(symbols(&a)[0], "Naming.propertyName", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
    // Asked about tests, the test's getter is the named thing.
    let a = ask_stored(&dir, "Where is getURL in the tests?");
    assert_eq!(
        symbols(&a)[0],
        "NamingTest.UrlBean.getURL",
        "{:?}",
        symbols(&a)
    );
    // The same holds for example programs.
    let a = ask_stored(
        &dir,
        "Why does getHostName() end up as hostName? Where is the get prefix stripped and the leading capitals lower-cased?",
    );
    assert_eq!(symbols(&a)[0], "Naming.propertyName", "{:?}", symbols(&a));
    let a = ask_stored(&dir, "Where is getHostName in the examples?");
    assert_eq!(
        symbols(&a)[0],
        "ServerBean.getHostName",
        "{:?}",
        symbols(&a)
    );
}

/// A flow question naming a subclass: its own members are set-up, the flow runs in what it
/// inherits, so the chain starts there.
#[test]
fn a_flow_through_a_named_subclass_starts_in_what_it_inherits() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("inh");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/inh/{p}"), text.to_string()));
    write(
        "StreamSink.java",
        "package com.inh;\n\npublic class StreamSink {\n    protected java.io.OutputStream out;\n    private final Encoder encoder = new Encoder();\n\n    public void append(String event) {\n        byte[] bytes = encoder.encode(event);\n        writeBytes(bytes);\n    }\n\n    protected void writeBytes(byte[] bytes) {\n        try {\n            out.write(bytes);\n            out.flush();\n        } catch (java.io.IOException e) {\n            throw new IllegalStateException(e);\n        }\n    }\n}\n",
    );
    write(
        "Encoder.java",
        "package com.inh;\n\npublic class Encoder {\n    public byte[] encode(String event) {\n        String line = event.trim() + \"\\n\";\n        return line.getBytes(java.nio.charset.StandardCharsets.UTF_8);\n    }\n}\n",
    );
    write(
        "ConsoleSink.java",
        "package com.inh;\n\npublic class ConsoleSink extends StreamSink {\n    private String target = \"System.out\";\n\n    /** Picks the stream. */\n    public void start() {\n        if (target.equals(\"System.err\")) {\n            out = System.err;\n        } else {\n            out = System.out;\n        }\n    }\n\n    public void setTarget(String target) {\n        this.target = target;\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "How does a ConsoleSink turn an event into the bytes written to the stream?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(chain.first(), Some(&"StreamSink.append"), "{chain:?}");
    assert!(chain.contains(&"Encoder.encode"), "{chain:?}");
    assert_citations_resolve(&a, &root);
}

/// A quoted key kept in a constant: the method reading the constant is where the key is read,
/// though its own text never spells the key.
#[test]
fn a_quoted_key_leads_to_the_method_reading_its_constant() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("keys");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/keys/{p}"), text.to_string()));
    write(
        "Keys.java",
        "package com.keys;\n\npublic final class Keys {\n    public static final String WORKERS = \"app.pool.size\";\n    public static final String TIMEOUT = \"app.timeout\";\n}\n",
    );
    write(
        "Settings.java",
        "package com.keys;\n\nimport java.util.Properties;\n\npublic class Settings {\n    int workers(Properties p) {\n        return Integer.parseInt(p.getProperty(Keys.WORKERS, \"8\"));\n    }\n\n    int timeout(Properties p) {\n        return Integer.parseInt(p.getProperty(Keys.TIMEOUT, \"30\"));\n    }\n}\n",
    );
    write(
        "PoolReport.java",
        "package com.keys;\n\npublic class PoolReport {\n    /** Describes the pool: its size and what is read from the app settings. */\n    String describe(int size) {\n        return \"pool size \" + size + \" read from app settings\";\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(&dir, "Where is the 'app.pool.size' property read?");
    assert_eq!(symbols(&a)[0], "Settings.workers", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
}

/// A method the whole code base calls (a status report) is no step of one flow, though it
/// calls further itself: the chain goes on into the work instead.
#[test]
fn flow_chains_skip_helpers_everything_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("fan");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/fan/{p}"), text.to_string()));
    write(
        "Status.java",
        "package com.fan;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\npublic class Status {\n    private final List<Entry> entries = new ArrayList<>();\n\n    public void report(String what) {\n        entries.add(new Entry(what, System.currentTimeMillis()));\n    }\n}\n",
    );
    write(
        "Entry.java",
        "package com.fan;\n\npublic class Entry {\n    final String what;\n    final long at;\n\n    Entry(String what, long at) {\n        this.what = what;\n        this.at = at;\n    }\n}\n",
    );
    let mut users = String::from(
        "package com.fan;\n\npublic class Users {\n    private final Status status = new Status();\n",
    );
    for k in 0..60 {
        users.push_str(&format!(
            "\n    void step{k}() {{\n        status.report(\"step {k}\");\n    }}\n"
        ));
    }
    users.push_str("}\n");
    write("Users.java", &users);
    write(
        "Exporter.java",
        "package com.fan;\n\npublic class Exporter {\n    private final Status status = new Status();\n    private final Encoder encoder = new Encoder();\n\n    public byte[] export(String rows) {\n        status.report(\"export started\");\n        return encoder.encodeRows(rows);\n    }\n}\n",
    );
    write(
        "Encoder.java",
        "package com.fan;\n\npublic class Encoder {\n    public byte[] encodeRows(String rows) {\n        StringBuilder out = new StringBuilder();\n        for (String row : rows.split(\"\\n\")) {\n            out.append(escape(row)).append('\\n');\n        }\n        return out.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);\n    }\n\n    private String escape(String row) {\n        return row.replace(\",\", \"\\\\,\");\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(&dir, "What happens when Exporter.export(rows) runs?");
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|c| c.symbol.as_str()).collect();
    assert_eq!(chain[0], "Exporter.export", "{chain:?}");
    assert!(chain.contains(&"Encoder.encodeRows"), "{chain:?}");
    assert!(!chain.contains(&"Status.report"), "{chain:?}");
}

/// A call through an interface goes on in the implementation its receiver names
/// (`host.first().handle(..)` and `HostStage`), not in one whose text merely shares the
/// question's words.
#[test]
fn flow_chains_follow_the_implementation_the_receiver_names() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("pipe");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/pipe/{p}"), text.to_string()));
    write(
        "Stage.java",
        "package com.pipe;\n\npublic interface Stage {\n    void handle(Request request);\n}\n",
    );
    write(
        "Request.java",
        "package com.pipe;\n\npublic class Request {\n    public final StringBuilder out = new StringBuilder();\n    public Engine engine;\n    public Host host;\n}\n",
    );
    write(
        "Engine.java",
        "package com.pipe;\n\npublic class Engine {\n    private Stage first;\n\n    public Stage first() {\n        return first;\n    }\n}\n",
    );
    write(
        "Host.java",
        "package com.pipe;\n\npublic class Host {\n    private Stage first;\n\n    public Stage first() {\n        return first;\n    }\n}\n",
    );
    write(
        "Server.java",
        "package com.pipe;\n\npublic class Server {\n    public void serve(Request request) {\n        Engine engine = request.engine;\n        engine.first().handle(request);\n    }\n}\n",
    );
    write(
        "EngineStage.java",
        "package com.pipe;\n\npublic class EngineStage implements Stage {\n    @Override\n    public void handle(Request request) {\n        Host host = request.host;\n        host.first().handle(request);\n    }\n}\n",
    );
    write(
        "HostStage.java",
        "package com.pipe;\n\npublic class HostStage implements Stage {\n    @Override\n    public void handle(Request request) {\n        request.out.append(\"ok\");\n    }\n}\n",
    );
    write(
        "TracingStage.java",
        "package com.pipe;\n\npublic class TracingStage implements Stage {\n    /** Traces a request on its way down to the response. */\n    @Override\n    public void handle(Request request) {\n        System.out.println(\"request on its way down to the response: \" + request);\n    }\n}\n",
    );
    write(
        "AuditStage.java",
        "package com.pipe;\n\npublic class AuditStage implements Stage {\n    /** Audits the way of a request down to its response. */\n    @Override\n    public void handle(Request request) {\n        System.err.println(\"audit: request way down, response \" + request);\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "How does a request get from Server.serve down to where the response is written?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(chain[0], "Server.serve", "{chain:?}");
    let at = |s: &str| chain.iter().position(|c| *c == s);
    assert!(at("EngineStage.handle").is_some(), "{chain:?}");
    assert!(
        at("EngineStage.handle") < at("HostStage.handle"),
        "{chain:?}"
    );
    assert_citations_resolve(&a, &root);
}

/// A visitor handed to a traversal: the call inside the traversal goes on in the visitor the
/// chain so far created, not in another one the code base uses elsewhere.
#[test]
fn flow_chains_follow_the_implementation_the_chain_created() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("visit");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write = |p: &str, text: &str| {
        files.push((format!("src/main/java/com/visit/{p}"), text.to_string()))
    };
    write(
        "Visitor.java",
        "package com.visit;\n\npublic interface Visitor {\n    void head(Node node);\n}\n",
    );
    write(
        "Node.java",
        "package com.visit;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\npublic class Node {\n    public final String name;\n    public final List<Node> children = new ArrayList<>();\n\n    public Node(String name) {\n        this.name = name;\n    }\n}\n",
    );
    write(
        "Traversor.java",
        "package com.visit;\n\nimport java.util.ArrayDeque;\nimport java.util.Deque;\n\npublic final class Traversor {\n    public static void traverse(Visitor visitor, Node root) {\n        Deque<Node> todo = new ArrayDeque<>();\n        todo.push(root);\n        while (!todo.isEmpty()) {\n            Node node = todo.pop();\n            visitor.head(node);\n            node.children.forEach(todo::push);\n        }\n    }\n}\n",
    );
    write(
        "Cleaner.java",
        "package com.visit;\n\npublic class Cleaner {\n    public void clean(Node root) {\n        SafeVisitor visitor = new SafeVisitor();\n        Traversor.traverse(visitor, root);\n    }\n}\n",
    );
    write(
        "SafeVisitor.java",
        "package com.visit;\n\npublic class SafeVisitor implements Visitor {\n    @Override\n    public void head(Node node) {\n        if (!Allowed.contains(node.name)) {\n            node.children.clear();\n        }\n    }\n}\n",
    );
    write(
        "Allowed.java",
        "package com.visit;\n\nimport java.util.Set;\n\npublic final class Allowed {\n    private static final Set<String> NAMES = Set.of(\"a\", \"b\", \"p\");\n\n    public static boolean contains(String name) {\n        return NAMES.contains(name);\n    }\n}\n",
    );
    write(
        "Printer.java",
        "package com.visit;\n\npublic class Printer {\n    public void print(Node root) {\n        Traversor.traverse(new PrintVisitor(), root);\n    }\n}\n",
    );
    write(
        "PrintVisitor.java",
        "package com.visit;\n\npublic class PrintVisitor implements Visitor {\n    /** Prints each node and each attribute as it is checked. */\n    @Override\n    public void head(Node node) {\n        System.out.println(\"checked attribute of node \" + node.name);\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "When Cleaner.clean runs, what's the chain down to where each attribute of a node is checked?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(chain[0], "Cleaner.clean", "{chain:?}");
    assert!(chain.contains(&"SafeVisitor.head"), "{chain:?}");
    assert!(!chain.contains(&"PrintVisitor.head"), "{chain:?}");
    assert_citations_resolve(&a, &root);
}

/// Of two implementations alike in every other way, the call goes on in the one the code base
/// creates (`new ZuluSink()`), not in one only configuration could name.
#[test]
fn flow_chains_prefer_an_implementation_the_code_creates() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sinks");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write = |p: &str, text: &str| {
        files.push((format!("src/main/java/com/sinks/{p}"), text.to_string()))
    };
    write(
        "Sink.java",
        "package com.sinks;\n\npublic interface Sink {\n    void write(String record);\n}\n",
    );
    let body = "    @Override\n    public void write(String record) {\n        System.out.println(\"record: \" + record);\n    }\n}\n";
    write(
        "AlphaSink.java",
        &format!("package com.sinks;\n\npublic class AlphaSink implements Sink {{\n{body}"),
    );
    write(
        "ZuluSink.java",
        &format!("package com.sinks;\n\npublic class ZuluSink implements Sink {{\n{body}"),
    );
    write(
        "Pipeline.java",
        "package com.sinks;\n\npublic class Pipeline {\n    private final Sink sink;\n\n    public Pipeline(Sink sink) {\n        this.sink = sink;\n    }\n\n    public void run(String record) {\n        sink.write(record.trim());\n    }\n}\n",
    );
    write(
        "Main.java",
        "package com.sinks;\n\npublic class Main {\n    public static void main(String[] args) {\n        new Pipeline(new ZuluSink()).run(args[0]);\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "What happens to a record after Pipeline.run is called?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let chain: Vec<&str> = a.chain.iter().map(|s| s.symbol.as_str()).collect();
    assert_eq!(chain[0], "Pipeline.run", "{chain:?}");
    assert!(chain.contains(&"ZuluSink.write"), "{chain:?}");
    assert!(!chain.contains(&"AlphaSink.write"), "{chain:?}");
    assert_citations_resolve(&a, &root);
}

/// "processInclude in the Parser class": of the types declaring the name, the one the
/// question names by its kind ("the Parser class"), though one word alone reads as prose.
#[test]
fn callers_of_a_name_in_the_class_the_question_names() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("parse");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write = |p: &str, text: &str| {
        files.push((format!("src/main/java/com/parse/{p}"), text.to_string()))
    };
    for (ty, caller) in [("Parser", "parseDirective"), ("DocParser", "parseAction")] {
        write(
            &format!("{ty}.java"),
            &format!(
                "package com.parse;\n\npublic class {ty} {{\n    void {caller}(String text) {{\n        processInclude(text.trim());\n    }}\n\n    void processInclude(String file) {{\n        System.out.println(file);\n    }}\n}}\n"
            ),
        );
    }
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "Which methods call processInclude in the Parser class?",
    );
    assert_eq!(a.intent, Intent::Callers);
    assert!(
        a.answer
            .starts_with("Callers of Parser.processInclude:\n- Parser.parseDirective"),
        "{}",
        a.answer
    );
    assert!(
        !a.answer.contains("DocParser.parseAction —"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, &root);
}

/// A flow from a call the question writes starts in the overload its arguments show:
/// `readValue(jsonString, Person.class)` is the `(String, Class)` one, not `(Parser, Class)`.
#[test]
fn a_flow_starts_in_the_overload_the_arguments_show() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("map");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/map/{p}"), text.to_string()));
    write(
        "Parser.java",
        "package com.map;\n\npublic class Parser {\n    final String text;\n\n    Parser(String text) {\n        this.text = text;\n    }\n}\n",
    );
    write(
        "Mapper.java",
        "package com.map;\n\npublic class Mapper {\n    public <T> T readValue(Parser parser, Class<T> type) {\n        return bind(parser.text, type);\n    }\n\n    public <T> T readValue(String content, Class<T> type) {\n        Parser parser = new Parser(content.trim());\n        return readValue(parser, type);\n    }\n\n    private <T> T bind(String text, Class<T> type) {\n        return type.cast(text);\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "What happens when I call mapper.readValue(jsonString, Person.class)?",
    );
    assert_eq!(a.intent, Intent::Flow);
    let first = &a.chain[0];
    assert_eq!(first.symbol, "Mapper.readValue");
    // The (String, Class) overload is declared on line 8.
    assert_eq!(first.start_line, 8, "{:?}", a.chain);
    assert_citations_resolve(&a, &root);
}

/// A field a "where does it happen" question names is its context: the method doing the work
/// comes first, while a definition or settings question still gets the field itself.
#[test]
fn a_field_the_question_names_is_context_not_the_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("roll");
    let mut files: Vec<(String, String)> = Vec::new();
    let mut write =
        |p: &str, text: &str| files.push((format!("src/main/java/com/roll/{p}"), text.to_string()));
    write(
        "SizePolicy.java",
        "package com.roll;\n\npublic class SizePolicy {\n    private String maxFileSize = \"10MB\";\n\n    public void setMaxFileSize(String maxFileSize) {\n        this.maxFileSize = maxFileSize;\n    }\n}\n",
    );
    write(
        "FileSize.java",
        "package com.roll;\n\npublic class FileSize {\n    /** Turns a string like 50MB into a number of bytes; accepts the KB, MB and GB unit suffixes. */\n    public static long valueOf(String text) {\n        String s = text.trim().toUpperCase();\n        long unit = 1;\n        if (s.endsWith(\"KB\")) {\n            unit = 1024;\n        } else if (s.endsWith(\"MB\")) {\n            unit = 1024 * 1024;\n        } else if (s.endsWith(\"GB\")) {\n            unit = 1024 * 1024 * 1024;\n        }\n        return Long.parseLong(s.replaceAll(\"[^0-9]\", \"\")) * unit;\n    }\n}\n",
    );
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "We set maxFileSize to 50MB. Where does that string get turned into a number of bytes, and which unit suffixes does it accept?",
    );
    assert_eq!(a.intent, Intent::Locate);
    assert_eq!(symbols(&a)[0], "FileSize.valueOf", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
    let a = ask_stored(&dir, "Where is the maxFileSize field declared?");
    assert_eq!(
        symbols(&a)[0],
        "SizePolicy.maxFileSize",
        "{:?}",
        symbols(&a)
    );
    // A settings question asks for the field itself.
    let a = ask_stored(
        &dir,
        "Which config setting holds maxFileSize and its default value?",
    );
    assert_eq!(a.intent, Intent::Config);
    assert_eq!(
        symbols(&a)[0],
        "SizePolicy.maxFileSize",
        "{:?}",
        symbols(&a)
    );
}
