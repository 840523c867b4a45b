//! Flow chains that must reach where the question says the flow ends up. A logger builds an
//! event (a constructor with a deep tree of argument helpers below it) and then hands the event
//! on to its appenders; "until the console appender receives the event" is answered only by a
//! chain that goes on with the event instead of spending itself inside the constructor.

mod support;
use query::question::Intent;
use support::{ask_stored, assert_citations_resolve, index_repo};

/// The logger's classes; `build` is the body of `buildEventAndAppend`.
fn logger(build: &str) -> Vec<(String, String)> {
    let file = |p: &str, text: &str| (format!("src/main/java/com/log/{p}"), text.to_string());
    vec![
        file(
            "Logger.java",
            r#"package com.log;

/** Writes log records through its appenders. */
public class Logger {
    private final AppenderList appenders = new AppenderList();
    private int level = 2;

    /** Logs a message at info level. */
    public void info(String format, Object arg) {
        filterAndLog(2, format, arg);
    }

    private void filterAndLog(int wanted, String format, Object arg) {
        if (wanted < level) {
            return;
        }
        buildEventAndAppend(wanted, format, arg);
    }

    private LogEvent last;

    private void buildEventAndAppend(int wanted, String format, Object arg) {
BUILD
    }

    private void callAppenders(LogEvent event) {
        appenders.appendLoop(event);
    }

    private void callAppendersWithLast() {
        appenders.appendLoop(last);
    }
}
"#
            .replace("BUILD", build)
            .as_str(),
        ),
        file(
            "LogEvent.java",
            r#"package com.log;

/** One logging event: the logger, the level, the message and its arguments. */
public class LogEvent {
    final Logger logger;
    final int level;
    final String message;
    final Object[] arguments;

    public LogEvent(Logger logger, int level, String format, Object arg) {
        this.logger = logger;
        this.level = level;
        this.message = format;
        this.arguments = EventArguments.formatArguments(format, arg);
    }
}
"#,
        ),
        file(
            "EventArguments.java",
            r#"package com.log;

/** Splits the arguments of a logging event's message from a trailing throwable. */
final class EventArguments {
    static Object[] formatArguments(String format, Object arg) {
        Object[] all = wrapFormatArg(arg);
        return trimmedFormatArgs(format, all);
    }

    static Object[] wrapFormatArg(Object arg) {
        Object[] out = new Object[1];
        out[0] = describeFormatArg(arg);
        return out;
    }

    static Object describeFormatArg(Object arg) {
        return arg == null ? "null" : renderFormatArg(arg);
    }

    static String renderFormatArg(Object arg) {
        return String.valueOf(arg).trim();
    }

    static Object[] trimmedFormatArgs(String format, Object[] all) {
        Object[] copy = copyFormatArgs(all);
        return countFormatArgs(format) < copy.length ? copy : all;
    }

    static Object[] copyFormatArgs(Object[] all) {
        Object[] copy = new Object[all.length];
        System.arraycopy(all, 0, copy, 0, all.length);
        return copy;
    }

    static int countFormatArgs(String format) {
        int n = 0;
        for (int k = format.indexOf("{}"); k >= 0; k = format.indexOf("{}", k + 2)) {
            n++;
        }
        return n;
    }
}
"#,
        ),
        file(
            "AppenderList.java",
            r#"package com.log;

import java.util.ArrayList;
import java.util.List;

/** The appenders attached to a logger. */
public class AppenderList {
    private final List<ConsoleAppender> list = new ArrayList<>();

    /** Hands the event to every appender. */
    public void appendLoop(LogEvent event) {
        for (ConsoleAppender a : list) {
            a.doAppend(event);
        }
    }
}
"#,
        ),
        file(
            "ConsoleAppender.java",
            r#"package com.log;

/** Writes events to the console. */
public class ConsoleAppender {
    /** Receives one event and prints it. */
    public void doAppend(LogEvent event) {
        writeOut(event.message);
    }

    private void writeOut(String text) {
        System.out.println(text);
    }
}
"#,
        ),
    ]
}

#[test]
fn a_flow_goes_on_with_the_value_a_method_made_down_to_where_the_question_ends() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let build = "        LogEvent event = new LogEvent(this, wanted, format, arg);\n        callAppenders(event);";
    let dir = index_repo(&root, &logger(build));
    let chain = flow_chain(&dir, &root);
    let at = |name: &str| chain.iter().position(|s| s.ends_with(name));
    for step in [
        "Logger.callAppenders",
        "AppenderList.appendLoop",
        "ConsoleAppender.doAppend",
    ] {
        assert!(
            at(step).is_some(),
            "{step} is a step of the flow: {chain:?}"
        );
    }
    assert!(at("Logger.callAppenders") < at("AppenderList.appendLoop"));
    assert!(at("AppenderList.appendLoop") < at("ConsoleAppender.doAppend"));
}

/// The same, with the event kept in a field: nothing on the lines shows the hand-off, but the
/// question names where the flow ends (the console appender).
#[test]
fn a_flow_reaches_the_method_the_question_ends_at_below_a_bigger_side_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let build =
        "        last = new LogEvent(this, wanted, format, arg);\n        callAppendersWithLast();";
    let dir = index_repo(&root, &logger(build));
    let chain = flow_chain(&dir, &root);
    let at = |name: &str| chain.iter().position(|s| s.ends_with(name));
    for step in [
        "Logger.callAppendersWithLast",
        "AppenderList.appendLoop",
        "ConsoleAppender.doAppend",
    ] {
        assert!(
            at(step).is_some(),
            "{step} is a step of the flow: {chain:?}"
        );
    }
    assert!(at("AppenderList.appendLoop") < at("ConsoleAppender.doAppend"));
}

/// Indexes `files` and asks `question`: the answer's chain, checked to be a flow's whose
/// citations resolve.
fn ask_chain(files: &[(String, String)], question: &str) -> Vec<String> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let dir = index_repo(&root, files);
    let a = ask_stored(&dir, question);
    assert_eq!(a.intent, Intent::Flow);
    assert_citations_resolve(&a, &root);
    a.chain.iter().map(|s| s.symbol.clone()).collect()
}

/// The chain of the flow question both tests ask, with its first steps checked.
fn flow_chain(dir: &indexer::store::IndexDir, root: &std::path::Path) -> Vec<String> {
    let a = ask_stored(
        dir,
        "Walk me through Logger.info(format, arg): which methods does it go through until the console appender receives it?",
    );
    assert_eq!(a.intent, Intent::Flow);
    assert_citations_resolve(&a, root);
    let chain: Vec<String> = a.chain.iter().map(|s| s.symbol.clone()).collect();
    for (k, step) in [
        "Logger.info",
        "Logger.filterAndLog",
        "Logger.buildEventAndAppend",
    ]
    .iter()
    .enumerate()
    {
        assert!(chain[k].ends_with(step), "step {k} is {step}: {chain:?}");
    }
    // Each step is one call below the step above it that calls it; the text shows the tree.
    let depth = |name: &str| {
        (a.chain.iter())
            .find(|s| s.symbol.ends_with(name))
            .map(|s| s.depth)
    };
    assert_eq!(depth("Logger.info"), Some(0));
    assert_eq!(depth("Logger.buildEventAndAppend"), Some(2));
    assert_eq!(depth("AppenderList.appendLoop"), Some(4), "{:?}", a.chain);
    assert_eq!(depth("ConsoleAppender.doAppend"), Some(5));
    for (k, step) in a.chain.iter().enumerate() {
        let line = format!("\n{}{}. {} ", "   ".repeat(step.depth), k + 1, step.symbol);
        assert!(
            a.answer.contains(&line),
            "{line:?} is indented by its depth:\n{}",
            a.answer
        );
    }
    chain
}

/// Asked with no destination, the chain still goes on with the event the logger made: the call
/// handed what the method made earlier is where the flow continues, even after a bigger side
/// step.
#[test]
fn a_flow_without_a_destination_goes_on_with_the_value_a_method_made() {
    let build = "        LogEvent event = new LogEvent(this, wanted, format, arg);\n        callAppenders(event);";
    let chain = ask_chain(&logger(build), "What happens when Logger.info is called?");
    let at = |name: &str| chain.iter().position(|s| s.ends_with(name));
    for step in ["Logger.callAppenders", "AppenderList.appendLoop"] {
        assert!(
            at(step).is_some(),
            "{step} is a step of the flow: {chain:?}"
        );
    }
}

/// "What happens when I do `Http.connect(url).get()`": the flow is that of `get()` on what
/// `connect` returns (an interface here, so its one implementation), not of `connect`.
#[test]
fn a_chained_call_starts_the_flow_at_the_last_call_on_what_the_first_returns() {
    let file = |p: &str, text: &str| (format!("src/main/java/com/net/{p}"), text.to_string());
    let files = vec![
        file(
            "Http.java",
            "package com.net;\n\n/** Entry points. */\npublic final class Http {\n    /** A connection to the url, not yet made. */\n    public static Connection connect(String url) {\n        return new HttpConnection(normalize(url));\n    }\n\n    static String normalize(String url) {\n        return url.trim();\n    }\n}\n",
        ),
        file(
            "Connection.java",
            "package com.net;\n\n/** A request to make. */\npublic interface Connection {\n    /** Sends the request and parses the response body. */\n    String get();\n}\n",
        ),
        file(
            "HttpConnection.java",
            "package com.net;\n\n/** The connection over HTTP. */\npublic class HttpConnection implements Connection {\n    private final String url;\n\n    HttpConnection(String url) {\n        this.url = url;\n    }\n\n    @Override\n    public String get() {\n        String body = execute();\n        return parseBody(body);\n    }\n\n    String execute() {\n        return \"response from \" + url;\n    }\n\n    String parseBody(String body) {\n        return body.toUpperCase();\n    }\n}\n",
        ),
    ];
    let chain = ask_chain(
        &files,
        "What happens when I do Http.connect(url).get()? Where does the request go out and where is the response body parsed?",
    );
    assert_eq!(chain[0], "HttpConnection.get", "{chain:?}");
    for step in ["HttpConnection.execute", "HttpConnection.parseBody"] {
        assert!(
            chain.iter().any(|s| s == step),
            "{step} is a step of the flow: {chain:?}"
        );
    }
}

/// A call on a constant (`ESCAPE.translate(input)`) goes on in the types the constant's
/// initializer creates, not in another implementation whose words look closer.
#[test]
fn a_call_on_a_constant_goes_on_in_the_types_its_initializer_creates() {
    let file = |p: &str, text: &str| (format!("src/main/java/com/text/{p}"), text.to_string());
    let files = vec![
        file(
            "Escapes.java",
            "package com.text;\n\n/** Escaping of strings. */\npublic final class Escapes {\n    public static final Translator ESCAPE = new ChainTranslator(new TableTranslator(\"\\\"\", \"\\\\\\\"\"));\n\n    /** Escapes quotes in a string. */\n    public static String escape(String input) {\n        return ESCAPE.translate(input);\n    }\n}\n",
        ),
        file(
            "Translator.java",
            "package com.text;\n\n/** Turns text into other text, a position at a time. */\npublic abstract class Translator {\n    public abstract int translate(CharSequence input, int index, StringBuilder out);\n\n    /** Translates the whole input. */\n    public final String translate(CharSequence input) {\n        StringBuilder out = new StringBuilder();\n        for (int k = 0; k < input.length(); k += translate(input, k, out)) {\n        }\n        return out.toString();\n    }\n}\n",
        ),
        file(
            "ChainTranslator.java",
            "package com.text;\n\n/** Tries several translators in turn. */\npublic class ChainTranslator extends Translator {\n    private final Translator[] parts;\n\n    public ChainTranslator(Translator... parts) {\n        this.parts = parts;\n    }\n\n    @Override\n    public int translate(CharSequence input, int index, StringBuilder out) {\n        for (Translator t : parts) {\n            int n = t.translate(input, index, out);\n            if (n > 0) {\n                return n;\n            }\n        }\n        out.append(input.charAt(index));\n        return 1;\n    }\n}\n",
        ),
        file(
            "TableTranslator.java",
            "package com.text;\n\n/** Replaces what a lookup table lists. */\npublic class TableTranslator extends Translator {\n    private final String from;\n    private final String to;\n\n    public TableTranslator(String from, String to) {\n        this.from = from;\n        this.to = to;\n    }\n\n    @Override\n    public int translate(CharSequence input, int index, StringBuilder out) {\n        if (input.toString().startsWith(from, index)) {\n            out.append(to);\n            return from.length();\n        }\n        return 0;\n    }\n}\n",
        ),
        file(
            "QuoteUnescaper.java",
            "package com.text;\n\n/** Unescapes quotes in a string: the reverse of escaping quotes. */\npublic class QuoteUnescaper extends Translator {\n    @Override\n    public int translate(CharSequence input, int index, StringBuilder out) {\n        // Escaped quotes in the string become plain quotes.\n        if (input.charAt(index) == '\\\\' && index + 1 < input.length()) {\n            out.append(input.charAt(index + 1));\n            return 2;\n        }\n        return 0;\n    }\n}\n",
        ),
    ];
    let chain = ask_chain(
        &files,
        "What happens when I call Escapes.escape on a string: how does it get from that call to the code that escapes the quotes?",
    );
    for step in ["ChainTranslator.translate", "TableTranslator.translate"] {
        assert!(
            chain.iter().any(|s| s == step),
            "{step} is a step of the flow: {chain:?}"
        );
    }
    assert!(
        !chain.iter().any(|s| s == "QuoteUnescaper.translate"),
        "the constant never holds an unescaper: {chain:?}"
    );
}

/// Work handed to another thread as a task goes on in the task's `call()`: the flow from
/// `start()` reaches the user's `initialize()` through it.
#[test]
fn a_task_handed_to_an_executor_goes_on_in_its_call() {
    let files = vec![(
        "src/main/java/com/bg/Loader.java".to_string(),
        "package com.bg;\n\nimport java.util.concurrent.Callable;\nimport java.util.concurrent.ExecutorService;\nimport java.util.concurrent.Executors;\nimport java.util.concurrent.Future;\n\n/** Loads a value on a background thread. */\npublic abstract class Loader<T> {\n    private Future<T> future;\n\n    /** Starts loading in the background. */\n    public synchronized void start() {\n        ExecutorService executor = Executors.newSingleThreadExecutor();\n        future = executor.submit(createTask());\n    }\n\n    private Callable<T> createTask() {\n        return new LoadTask();\n    }\n\n    /** What the subclass loads; runs on the background thread. */\n    protected abstract T initialize() throws Exception;\n\n    private class LoadTask implements Callable<T> {\n        @Override\n        public T call() throws Exception {\n            return initialize();\n        }\n    }\n}\n".to_string(),
    )];
    let chain = ask_chain(
        &files,
        "What happens between Loader.start() and my initialize() running on another thread?",
    );
    assert_eq!(chain[0], "Loader.start", "{chain:?}");
    assert!(
        chain.iter().any(|s| s.ends_with("LoadTask.call")),
        "the task's call() is a step: {chain:?}"
    );
}

/// `return builder.parse(reader, new Parser(builder))`: the returned call is where the work goes
/// on and is taken first; the constructor only makes one of its arguments, however much its own
/// code matches the question.
#[test]
fn a_returned_call_goes_on_before_the_call_that_makes_its_argument() {
    let file = |p: &str, text: &str| (format!("src/main/java/com/html/{p}"), text.to_string());
    let files = vec![
        file(
            "Markup.java",
            "package com.html;\n\n/** Entry points. */\npublic final class Markup {\n    /** Parses HTML text into a document. */\n    public static Doc parse(String html) {\n        return Parser.parse(html);\n    }\n}\n",
        ),
        file(
            "Doc.java",
            "package com.html;\n\n/** A parsed document. */\npublic class Doc {\n}\n",
        ),
        file(
            "Parser.java",
            "package com.html;\n\nimport java.io.Reader;\nimport java.io.StringReader;\n\n/** Parser settings for a tree builder: the parse errors kept and the settings of the tree. */\npublic class Parser {\n    private final TreeBuilder treeBuilder;\n    private final String settings;\n    private final String errors;\n\n    public Parser(TreeBuilder treeBuilder) {\n        this.treeBuilder = treeBuilder;\n        this.settings = treeBuilder.defaultParseSettings();\n        this.errors = ParseErrors.noParseErrorTracking();\n    }\n\n    static Doc parse(String html) {\n        TreeBuilder treeBuilder = new TreeBuilder();\n        return treeBuilder.parse(new StringReader(html), new Parser(treeBuilder));\n    }\n}\n",
        ),
        file(
            "ParseErrors.java",
            "package com.html;\n\n/** Parse errors of a parse. */\nfinal class ParseErrors {\n    static String noParseErrorTracking() {\n        return emptyParseErrors();\n    }\n\n    static String emptyParseErrors() {\n        return namedParseErrors(\"none\");\n    }\n\n    static String namedParseErrors(String name) {\n        return trimmedParseErrors(name + \" parse errors\");\n    }\n\n    static String trimmedParseErrors(String text) {\n        return text.trim();\n    }\n}\n",
        ),
        file(
            "TreeBuilder.java",
            "package com.html;\n\nimport java.io.Reader;\n\n/** Builds the document tree from tokens. */\npublic class TreeBuilder {\n    private Reader input;\n\n    String defaultParseSettings() {\n        return \"parse settings\";\n    }\n\n    Doc parse(Reader input, Parser parser) {\n        this.input = input;\n        return runParser();\n    }\n\n    Doc runParser() {\n        Doc doc = new Doc();\n        while (step(doc)) {\n        }\n        return doc;\n    }\n\n    boolean step(Doc doc) {\n        try {\n            return input.read() >= 0;\n        } catch (java.io.IOException e) {\n            return false;\n        }\n    }\n}\n",
        ),
    ];
    let chain = ask_chain(&files, "What happens when I call Markup.parse on a string?");
    let at = |name: &str| chain.iter().position(|s| s.ends_with(name));
    let returned = at("TreeBuilder.parse").expect("the returned call is a step");
    assert!(
        at("Parser.Parser").is_none_or(|ctor| returned < ctor),
        "the returned call comes before the argument's constructor: {chain:?}"
    );
}

/// A call through an interface goes on in the implementation the code creates somewhere (here in
/// a factory off the chain), not in ones nothing creates whose words look closer.
#[test]
fn a_call_through_an_interface_goes_on_in_an_implementation_the_code_creates() {
    let file = |p: &str, text: &str| (format!("src/main/java/com/msg/{p}"), text.to_string());
    let sender = |name: &str, doc: &str| {
        file(
            &format!("{name}.java"),
            &format!(
                "package com.msg;\n\n{doc}public class {name} implements Sender {{\n    @Override\n    public void send(String notice) {{\n        Outbox.push(\"{name}\", notice);\n    }}\n}}\n"
            ),
        )
    };
    let files = vec![
        file(
            "Sender.java",
            "package com.msg;\n\n/** Where notices go. */\npublic interface Sender {\n    void send(String notice);\n}\n",
        ),
        sender("MailSender", ""),
        sender(
            "SmsSender",
            "/** Delivers each notice it is sent as a text message: the notice goes out at once. */\n",
        ),
        sender(
            "PushSender",
            "/** Delivers each notice it is sent as a push message: the notice goes out at once. */\n",
        ),
        file(
            "Outbox.java",
            "package com.msg;\n\n/** Notices on their way out. */\npublic final class Outbox {\n    static void push(String via, String notice) {\n        System.out.println(via + \": \" + notice);\n    }\n}\n",
        ),
        file(
            "Notices.java",
            "package com.msg;\n\n/** Publishes notices. */\npublic class Notices {\n    private final Sender sender;\n\n    public Notices(Sender sender) {\n        this.sender = sender;\n    }\n\n    /** Publishes a notice to the sender. */\n    public void publish(String notice) {\n        sender.send(notice);\n    }\n}\n",
        ),
        file(
            "Setup.java",
            "package com.msg;\n\n/** Wires the application. */\npublic final class Setup {\n    public static Notices notices() {\n        return new Notices(new MailSender());\n    }\n}\n",
        ),
    ];
    let chain = ask_chain(
        &files,
        "What happens when I call Notices.publish with a notice: how does it get from that call to the code that delivers it?",
    );
    assert!(
        chain.iter().any(|s| s == "MailSender.send"),
        "the one sender the code creates carries the notice: {chain:?}"
    );
    assert!(
        !chain
            .iter()
            .any(|s| s == "SmsSender.send" || s == "PushSender.send"),
        "nothing creates the other senders: {chain:?}"
    );
}

/// A helper more than fifty methods call (an argument check) is no step of one flow, while the
/// call that does the work is.
#[test]
fn a_helper_everything_calls_is_no_step_of_the_flow() {
    let file = |p: &str, text: &str| (format!("src/main/java/com/shop/{p}"), text.to_string());
    let mut users = String::from(
        "package com.shop;\n\n/** Other code checking its arguments. */\npublic final class Users {\n",
    );
    for k in 0..60 {
        users.push_str(&format!(
            "    static void use{k}(Object o) {{\n        Checks.record(o);\n    }}\n\n"
        ));
    }
    users.push_str("}\n");
    let files = vec![
        file("Users.java", &users),
        file(
            "Checks.java",
            "package com.shop;\n\n/** Records an argument for audits. */\npublic final class Checks {\n    static void record(Object o) {\n        Audit.note(o);\n        Audit.note(o);\n    }\n}\n",
        ),
        file(
            "Audit.java",
            "package com.shop;\n\n/** Audit notes. */\npublic final class Audit {\n    static void note(Object o) {\n        System.out.println(o);\n    }\n}\n",
        ),
        file(
            "Orders.java",
            "package com.shop;\n\n/** Places orders. */\npublic class Orders {\n    private final Ledger ledger = new Ledger();\n\n    /** Places an order: records it and books its total. */\n    public void place(Object order) {\n        Checks.record(order);\n        ledger.book(order);\n    }\n}\n",
        ),
        file(
            "Ledger.java",
            "package com.shop;\n\n/** Books order totals. */\npublic class Ledger {\n    private long total;\n\n    /** Books the order's total. */\n    public void book(Object order) {\n        total += order.hashCode();\n        Audit.note(order);\n    }\n}\n",
        ),
    ];
    let chain = ask_chain(
        &files,
        "Walk me through Orders.place: how does an order get from place to where its total is booked?",
    );
    assert!(
        chain.iter().any(|s| s == "Ledger.book"),
        "the booking is a step: {chain:?}"
    );
    assert!(
        !chain.iter().any(|s| s == "Checks.record"),
        "the check everything calls is not: {chain:?}"
    );
}

/// A small static check of another type that only throws (`Checks.positive`) hands nothing on:
/// the flow does not go through it.
#[test]
fn an_argument_check_that_only_throws_is_no_step_of_the_flow() {
    let file = |p: &str, text: &str| (format!("src/main/java/com/pay/{p}"), text.to_string());
    let files = vec![
        file(
            "Checks.java",
            "package com.pay;\n\n/** Argument checks. */\npublic final class Checks {\n    static void positive(long amount) {\n        if (amount <= 0) {\n            throw new IllegalArgumentException(\"amount\");\n        }\n    }\n}\n",
        ),
        file(
            "Payments.java",
            "package com.pay;\n\n/** Takes payments. */\npublic class Payments {\n    private final Ledger ledger = new Ledger();\n\n    /** Takes a payment: checks the amount and books it. */\n    public void take(long amount) {\n        Checks.positive(amount);\n        ledger.book(amount);\n    }\n}\n",
        ),
        file(
            "Ledger.java",
            "package com.pay;\n\n/** Books amounts. */\npublic class Ledger {\n    private long total;\n\n    /** Books the amount. */\n    public void book(long amount) {\n        total += amount;\n    }\n}\n",
        ),
    ];
    let chain = ask_chain(
        &files,
        "Walk me through Payments.take: how does an amount get from take to where it is booked?",
    );
    assert!(
        chain.iter().any(|s| s == "Ledger.book"),
        "the booking is a step: {chain:?}"
    );
    assert!(
        !chain.iter().any(|s| s == "Checks.positive"),
        "the check that only throws is not: {chain:?}"
    );
}
