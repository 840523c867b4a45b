//! A pasted stack trace: frames go to the declarations of their own classes (package included),
//! lambdas to their enclosing method, `<init>` to the constructor; the deepest cause is named
//! first; a frame line outside its method in the indexed revision is said, not hidden. Builds a
//! small repository, indexes it and asks through the public API with the stored call graph.

mod support;
use indexer::store::EmbeddedIndex;
use query::question::Intent;
use query::{AskOptions, Asker, ChatModel, StoredGraph};
use std::time::Duration;
use support::{
    ask_stored, assert_citations_resolve, chat, index_repo, line_of, opts, serve, symbols,
};

const WEB_REQUEST: &str = "package com.shop.web;\n\n/** An HTTP request. */\npublic class Request {\n    /** Handles the request. */\n    public void handle(Runnable body) {\n        body.run();\n    }\n}\n";
const RPC_REQUEST: &str = "package com.shop.rpc;\n\n/** An RPC request. */\npublic class Request {\n    /** Handles the call. */\n    public void handle(Runnable body) {\n        body.run();\n    }\n}\n";
const API: &str = "package com.shop;\n\nimport com.shop.web.Request;\n\n/** The web API. */\npublic class Api {\n    private final Store store = new Store();\n\n    /** Serves one request. */\n    public void serve(Request request) {\n        request.handle(() -> {\n            store.open(\"orders\");\n        });\n    }\n}\n";
const STORE: &str = "package com.shop;\n\n/** Files on disk. */\npublic class Store {\n    /** Opens a file for writing. */\n    public Writer open(String name) {\n        return new Writer(name);\n    }\n\n    /** Writes one file. */\n    public static class Writer {\n        private final String name;\n\n        Writer(String name) {\n            this.name = name;\n            throw new IllegalStateException(\"disk full\");\n        }\n    }\n}\n";

#[test]
fn a_trace_names_the_root_cause_and_the_frames_of_its_own_classes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    let dir = index_repo(
        &root,
        &[
            (
                "src/main/java/com/shop/web/Request.java".into(),
                WEB_REQUEST.into(),
            ),
            (
                "src/main/java/com/shop/rpc/Request.java".into(),
                RPC_REQUEST.into(),
            ),
            ("src/main/java/com/shop/Api.java".into(), API.into()),
            ("src/main/java/com/shop/Store.java".into(), STORE.into()),
        ],
    );
    let open_line = line_of(STORE, "return new Writer");
    let trace = format!(
        "java.lang.RuntimeException: wrapped\n\tat com.shop.Store.open(Store.java:{open_line})\n\tat com.shop.Api.lambda$serve$0(Api.java:{})\n\tat com.shop.web.Request.handle(Request.java:{})\n\tat java.base/java.lang.Thread.run(Thread.java:833)\nCaused by: java.lang.IllegalStateException: disk full\n\tat com.shop.Store$Writer.<init>(Store.java:{})\n\tat com.shop.Store.open(Store.java:999)\n\t... 4 more",
        line_of(API, "store.open"),
        line_of(WEB_REQUEST, "body.run"),
        line_of(STORE, "throw new"),
    );
    let a = ask_stored(&dir, &trace);
    assert_eq!(a.intent, Intent::Trace);
    let cited = symbols(&a);
    // The deepest cause's frame comes first: the constructor that threw.
    assert!(
        a.answer.starts_with("The root cause fails in Store.Writer"),
        "{}",
        a.answer
    );
    assert!(cited[0].starts_with("Store.Writer"), "{cited:?}");
    // The failing line itself, and the message written on it.
    let lines: Vec<&str> = a.answer.lines().collect();
    assert_eq!(
        lines[1..3],
        [
            format!(
                "    {} | throw new IllegalStateException(\"disk full\");",
                line_of(STORE, "throw new")
            )
            .as_str(),
            "The message \"disk full\" is written on that line",
        ],
        "{}",
        a.answer
    );
    assert!(cited.contains(&"Api.serve".to_string()), "{cited:?}");
    assert!(cited.contains(&"Store.open".to_string()), "{cited:?}");
    // The web request's handle, not the RPC request's of the same simple name.
    let frames: Vec<&str> = a
        .answer
        .lines()
        .skip_while(|l| !l.starts_with("Frames of the trace"))
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .collect();
    assert_eq!(frames.len(), 5, "{}", a.answer);
    let handles: Vec<&&str> = frames
        .iter()
        .filter(|l| l.starts_with("- Request.handle"))
        .collect();
    assert_eq!(handles.len(), 1, "{}", a.answer);
    assert!(
        handles[0].contains("com/shop/web/Request.java"),
        "{}",
        a.answer
    );
    // Line 999 is not in Store.open here: said in the frame list and in the notes.
    assert!(
        a.answer
            .lines()
            .any(|l| l.starts_with("- Store.open") && l.contains("line 999 is outside it")),
        "{}",
        a.answer
    );
    assert!(
        a.answer
            .lines()
            .any(|l| l.starts_with("- Store.open") && l.ends_with(&format!("(line {open_line})"))),
        "{}",
        a.answer
    );
    assert!(
        a.notes
            .iter()
            .any(|n| n.starts_with("1 of 5 frame lines fall outside")),
        "{:?}",
        a.notes
    );
    // The same frames, structured, for tools reading --json.
    assert_eq!(a.frames.len(), 5, "{:?}", a.frames);
    assert!(a.frames[0].symbol.starts_with("Store.open") && a.frames[0].inside);
    let missed = a.frames.iter().find(|f| f.trace_line == Some(999)).unwrap();
    assert!(!missed.inside && missed.cause == 1, "{missed:?}");
    assert_citations_resolve(&a, &root);
}

const STOCK: &str = "package com.shop;\n\n/** Stock levels. */\npublic class StockService {\n    private int level;\n\n    /** Takes items out of stock. */\n    public void deduct(String sku, int n) {\n        if (n > level) {\n            throw new IllegalStateException(\"not enough stock for \" + sku);\n        }\n        level -= n;\n    }\n\n    /** Puts items back. */\n    public void restock(String sku, int n) {\n        level += n;\n        System.out.println(\"restocked \" + sku);\n    }\n}\n";

/// A trace from code the index does not hold (or another version of it): the message's text
/// still finds the line that writes it.
#[test]
fn a_traces_message_finds_the_line_that_writes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("stock");
    let dir = index_repo(
        &root,
        &[
            (
                "src/main/java/com/shop/StockService.java".into(),
                STOCK.into(),
            ),
            ("src/main/java/com/shop/Store.java".into(), STORE.into()),
        ],
    );
    let trace = "java.lang.RuntimeException: order failed\n\tat com.acme.Orders.place(Orders.java:88)\nCaused by: java.lang.IllegalStateException: not enough stock for sku-42\n\tat com.acme.Legacy.take(Legacy.java:12)\n\t... 1 more";
    let a = ask_stored(&dir, trace);
    assert_eq!(a.intent, Intent::Trace);
    let throw_line = line_of(STOCK, "throw new") as u32;
    assert!(
        a.answer.starts_with(&format!(
            "The message \"not enough stock for sku-42\" is written in StockService.deduct — src/main/java/com/shop/StockService.java:{throw_line}\n    {throw_line} | throw new IllegalStateException(\"not enough stock for \" + sku);\nNo frame of the trace is in the indexed code."
        )),
        "{}",
        a.answer
    );
    assert_eq!(symbols(&a)[0], "StockService.deduct", "{:?}", symbols(&a));
    let site = a.message_site.as_ref().unwrap();
    assert_eq!(
        (site.symbol.as_str(), site.line),
        ("StockService.deduct", throw_line)
    );
    assert_citations_resolve(&a, &root);

    // The first exception's message is not where it started; a message no literal begins
    // ("order failed") places nothing.
    let a = ask_stored(
        &dir,
        "java.lang.RuntimeException: order failed\n\tat com.acme.Orders.place(Orders.java:88)\n\tat com.acme.Main.main(Main.java:3)",
    );
    assert!(a.message_site.is_none(), "{:?}", a.message_site);
}

/// A message kept in a resource bundle (`LocalStrings.properties`): no literal holds its text,
/// so the line that writes it is the one naming the key of the value the message begins with.
#[test]
fn a_traces_message_from_a_resource_bundle_finds_the_line_naming_its_key() {
    const LIFECYCLE: &str = "package com.srv;\n\n/** Starts and stops components. */\npublic abstract class Lifecycle {\n    private static final StringManager sm = new StringManager();\n\n    /** Starts the component. */\n    public final void start() throws LifecycleException {\n        try {\n            startInternal();\n        } catch (RuntimeException e) {\n            throw new LifecycleException(sm.getString(\"lifecycle.startFail\", toString()), e);\n        }\n    }\n\n    /** Stops the component. */\n    public final void stop() throws LifecycleException {\n        throw new LifecycleException(sm.getString(\"lifecycle.stopFail\", toString()));\n    }\n\n    protected abstract void startInternal();\n}\n";
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("srv");
    let file = |p: &str, text: &str| (format!("src/main/java/com/srv/{p}"), text.to_string());
    let dir = index_repo(
        &root,
        &[
            file(
                "LocalStrings.properties",
                "lifecycle.startFail=Failed to start component [{0}]\nlifecycle.stopFail=Failed to stop component [{0}]\n",
            ),
            file("Lifecycle.java", LIFECYCLE),
            file(
                "StringManager.java",
                "package com.srv;\n\n/** Messages by key. */\npublic class StringManager {\n    public String getString(String key, Object... args) {\n        return key;\n    }\n}\n",
            ),
            file(
                "LifecycleException.java",
                "package com.srv;\n\npublic class LifecycleException extends Exception {\n    public LifecycleException(String m) {\n        super(m);\n    }\n\n    public LifecycleException(String m, Throwable cause) {\n        super(m, cause);\n    }\n}\n",
            ),
        ],
    );
    let trace = "com.srv.LifecycleException: Failed to stop component [StandardEngine[Catalina]]\n\tat org.other.Server.shutdown(Server.java:88)\n\tat org.other.Main.main(Main.java:3)";
    let a = ask_stored(&dir, trace);
    assert_eq!(a.intent, Intent::Trace);
    let site = a.message_site.as_ref().expect("the message is placed");
    assert_eq!(
        (site.symbol.as_str(), site.line),
        (
            "Lifecycle.stop",
            line_of(LIFECYCLE, "lifecycle.stopFail") as u32
        )
    );
    assert_citations_resolve(&a, &root);
}

/// With a model, the trace's findings (where the message is written, which frames are not in
/// the index) go into the prompt, inside the untrusted block.
#[test]
fn the_model_is_given_what_the_index_found_for_a_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("stock");
    let dir = index_repo(
        &root,
        &[(
            "src/main/java/com/shop/StockService.java".into(),
            STOCK.into(),
        )],
    );
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let graph = StoredGraph::new(&index);
    let (base, seen) = serve(|_| (Duration::ZERO, "Stock ran out.".to_string()));
    let llm = chat(&base, 5.0, 0);
    let with_llm = AskOptions {
        llm: Some(&llm as &dyn ChatModel),
        graph: Some(&graph),
        ..opts()
    };
    let trace = "java.lang.IllegalStateException: not enough stock for sku-42\n\tat com.shop.StockService.deduct(StockService.java:400)\n\tat com.acme.Main.main(Main.java:3)";
    let a = asker.ask(trace, &with_llm).unwrap();
    assert_eq!(a.answer, "Stock ran out.");
    let bodies = seen.lock().unwrap().clone();
    let request = bodies
        .iter()
        .find(|b| b.contains("REPOSITORY CONTENT"))
        .expect("an answer request");
    assert!(
        request.find("<<<REPOSITORY CONTENT>>>")
            < request.find("What the index found for the trace:"),
        "{request}"
    );
    let facts = request
        .split("What the index found for the trace:")
        .nth(1)
        .expect("trace facts in the prompt");
    assert!(
        facts.contains("is written in StockService.deduct"),
        "{facts}"
    );
    assert!(facts.contains("line 400 is outside it"), "{facts}");
}

const REQUEST: &str = "package com.web;\n\n/** A request. */\npublic class Request {\n    private Context fallback;\n\n    /** The request's session. */\n    public Session session(Context context) {\n        Manager backup = fallback.getManager();\n        Manager manager = context.getManager();\n        return manager.find(backup);\n    }\n}\n";

/// A helpful NullPointerException names the call made on null: when the trace's line is not in
/// the method here, that call's line is shown instead, the one on the named expression first;
/// its JVM-written message is not looked for in the code.
#[test]
fn a_null_pointer_trace_points_at_the_call_made_on_null() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("web");
    let dir = index_repo(
        &root,
        &[("src/main/java/com/web/Request.java".into(), REQUEST.into())],
    );
    let trace = "java.lang.NullPointerException: Cannot invoke \"com.web.Context.getManager()\" because \"context\" is null\n\tat com.web.Request.session(Request.java:70)\n\tat com.acme.Main.main(Main.java:3)";
    let a = ask_stored(&dir, trace);
    assert_eq!(a.intent, Intent::Trace);
    let at = line_of(REQUEST, "context.getManager()");
    let lines: Vec<&str> = a.answer.lines().collect();
    assert!(
        lines[0].starts_with("It fails in Request.session"),
        "{}",
        a.answer
    );
    assert_eq!(
        lines[1..3],
        [
            format!("It calls getManager() on context at line {at} (2 calls of it here):").as_str(),
            format!("    {at} | Manager manager = context.getManager();").as_str(),
        ],
        "{}",
        a.answer
    );
    assert!(a.message_site.is_none(), "{:?}", a.message_site);
    assert_citations_resolve(&a, &root);
}

/// The same message written in two places: the answer names one and says there is another.
#[test]
fn a_message_written_in_several_places_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("twice");
    let text = "package com.shop;\n\n/** Two ways to take stock. */\npublic class Stock {\n    private int level;\n\n    public void take(String sku) {\n        if (level == 0) {\n            throw new IllegalStateException(\"out of stock for \" + sku);\n        }\n        level--;\n    }\n\n    public void reserve(String sku) {\n        if (level == 0) {\n            throw new IllegalStateException(\"out of stock for \" + sku);\n        }\n    }\n}\n";
    let dir = index_repo(
        &root,
        &[("src/main/java/com/shop/Stock.java".into(), text.into())],
    );
    let a = ask_stored(
        &dir,
        "java.lang.IllegalStateException: out of stock for sku-7\n\tat com.acme.Shop.buy(Shop.java:9)\n\tat com.acme.Main.main(Main.java:3)",
    );
    let first = a.answer.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("The message \"out of stock for sku-7\" is written in Stock.take")
            && first.ends_with("(and 1 other place with the same text)"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, &root);
}
