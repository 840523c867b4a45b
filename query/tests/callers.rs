//! "Who calls it?" about a method name several types declare, asked in plain words: the question's
//! other words pick the types it means, tests are left out unless asked for, and each caller says
//! which of the targets it calls. Builds a small repository, indexes it and asks through the
//! public API with the stored call graph.

mod support;
use query::question::Intent;
use support::{ask_stored, assert_citations_resolve, index_repo, symbols};

/// A file of package `com.<pkg>` in the main source set.
fn main_java(pkg: &str, file: &str, text: &str) -> (String, String) {
    (format!("src/main/java/com/{pkg}/{file}"), text.to_string())
}

fn sessions() -> Vec<(String, String)> {
    let main = |p: &str, text: &str| main_java("web", p, text);
    vec![
        main(
            "Session.java",
            "package com.web;\n\n/** A user's session. */\npublic interface Session {\n    /** Ends the session and tells its listeners. */\n    void expire();\n}\n",
        ),
        main(
            "StandardSession.java",
            "package com.web;\n\n/** The session kept in memory. */\npublic class StandardSession implements Session {\n    private boolean valid = true;\n\n    @Override\n    public void expire() {\n        valid = false;\n        System.out.println(\"session expired\");\n    }\n}\n",
        ),
        main(
            "SessionManager.java",
            "package com.web;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n/** Keeps the sessions and ends the idle ones. */\npublic class SessionManager {\n    private final List<Session> sessions = new ArrayList<>();\n\n    /** Ends every idle session. */\n    public void reap() {\n        for (Session s : sessions) {\n            s.expire();\n        }\n    }\n\n    /** Ends one in-memory session at shutdown. */\n    public void unload(StandardSession s) {\n        s.expire();\n    }\n}\n",
        ),
        main(
            "Membership.java",
            "package com.web;\n\n/** Cluster members seen recently. */\npublic class Membership {\n    /** Drops the members not heard from in a while. */\n    public void expire() {\n        System.out.println(\"members dropped\");\n    }\n}\n",
        ),
        main(
            "Cluster.java",
            "package com.web;\n\n/** The cluster's heartbeat. */\npublic class Cluster {\n    private final Membership members = new Membership();\n\n    /** Runs every second. */\n    public void heartbeat() {\n        members.expire();\n    }\n}\n",
        ),
        (
            "src/test/java/com/web/FakeSession.java".into(),
            "package com.web;\n\n/** A session for tests. */\npublic class FakeSession implements Session {\n    int expired;\n\n    @Override\n    public void expire() {\n        expired++;\n    }\n\n    void check() {\n        expire();\n    }\n}\n".into(),
        ),
    ]
}

/// The callers an answer lists under its first line.
fn callers_listed(answer: &str) -> Vec<&str> {
    answer
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .filter_map(|l| l[2..].split(" — ").next())
        .collect()
}

#[test]
fn callers_of_a_shared_name_follow_the_types_the_question_names() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("web");
    let dir = index_repo(&root, &sessions());
    let a = ask_stored(&dir, "Where does a session expire and who calls it?");
    assert_eq!(a.intent, Intent::Callers);
    let first = a.answer.lines().next().unwrap_or_default();
    assert!(
        first.contains("StandardSession.expire") && first.contains("Session.expire"),
        "{}",
        a.answer
    );
    // Membership is not a session; FakeSession is test code nobody asked about.
    assert!(
        !first.contains("Membership") && !first.contains("FakeSession"),
        "{}",
        a.answer
    );
    let listed = callers_listed(&a.answer);
    assert!(listed.contains(&"SessionManager.reap"), "{}", a.answer);
    assert!(!listed.contains(&"Cluster.heartbeat"), "{}", a.answer);
    assert!(!listed.contains(&"FakeSession.check"), "{}", a.answer);
    assert_eq!(symbols(&a)[0], "SessionManager.reap", "{:?}", symbols(&a));
    // Each caller says which of the targets it calls.
    assert!(
        a.answer.lines().any(
            |l| l.starts_with("- SessionManager.reap") && l.ends_with("(calls Session.expire)")
        ),
        "{}",
        a.answer
    );
    assert!(
        a.answer
            .lines()
            .any(|l| l.starts_with("- SessionManager.unload")
                && l.ends_with("(calls StandardSession.expire)")),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, &root);

    // Asked about the membership, the same name means Membership's.
    let a = ask_stored(&dir, "When does the membership expire, and who calls that?");
    assert_eq!(a.intent, Intent::Callers);
    assert!(
        a.answer
            .starts_with("Callers of Membership.expire:\n- Cluster.heartbeat"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, &root);
}

/// `Buf` declares no `release`; it inherits `Counted.release`, which `PooledBuf` implements.
fn buffers() -> Vec<(String, String)> {
    let main = |p: &str, text: &str| main_java("buf", p, text);
    vec![
        main(
            "Counted.java",
            "package com.buf;\n\n/** Reference counted. */\npublic interface Counted {\n    /** Drops one reference. */\n    boolean release();\n}\n",
        ),
        main(
            "Buf.java",
            "package com.buf;\n\n/** A buffer. */\npublic abstract class Buf implements Counted {\n    public abstract int capacity();\n}\n",
        ),
        main(
            "PooledBuf.java",
            "package com.buf;\n\n/** A pooled buffer. */\npublic class PooledBuf extends Buf {\n    private int refs = 1;\n\n    public int capacity() {\n        return 16;\n    }\n\n    @Override\n    public boolean release() {\n        refs--;\n        return refs == 0;\n    }\n}\n",
        ),
        main(
            "Reader.java",
            "package com.buf;\n\n/** Reads into buffers. */\npublic class Reader {\n    /** Done with a buffer. */\n    public void done(Buf b) {\n        b.release();\n    }\n}\n",
        ),
    ]
}

#[test]
fn a_member_named_on_a_type_that_inherits_it_is_the_inherited_one() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("buf");
    let dir = index_repo(&root, &buffers());
    // The graph commands (CLI, MCP) resolve `Buf.release` to the declaration Buf inherits.
    let index = indexer::store::EmbeddedIndex::open(&dir).unwrap();
    let nodes = query::calls::find_nodes(&index, "Buf.release").unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].contains("Counted.release"), "{names:?}");
    let hops = query::calls::callers(&index, &nodes, 1, 50).unwrap();
    assert!(
        hops.iter().any(|h| h.from.name.contains("Reader.done")),
        "{hops:?}"
    );
    // A name nothing declares is still not found.
    assert!(
        query::calls::find_nodes(&index, "Buf.retain")
            .unwrap()
            .is_empty()
    );
    drop(index);

    // `ask` answers about the method, not about the type.
    let a = ask_stored(&dir, "Who calls Buf.release?");
    assert_eq!(a.intent, Intent::Callers);
    assert!(
        a.answer
            .starts_with("Callers of Counted.release:\n- Reader.done"),
        "{}",
        a.answer
    );
    assert_citations_resolve(&a, &root);
}

#[test]
fn a_member_of_a_library_type_means_its_implementations_in_the_code() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("web");
    let main = |p: &str, text: &str| main_java("web", p, text);
    let files = vec![
        // `HttpServletRequest` comes from a library the index does not hold.
        main(
            "WebRequest.java",
            "package com.web;\n\nimport javax.servlet.http.HttpServletRequest;\n\n/** The container's request. */\npublic abstract class WebRequest implements HttpServletRequest {\n    @Override\n    public String getParameter(String name) {\n        return name;\n    }\n}\n",
        ),
        // A name that ends like the library type's, not one of its implementations.
        main(
            "LegacyHttpServletRequest.java",
            "package com.web;\n\n/** An old request shape. */\npublic class LegacyHttpServletRequest {\n    public String getParameter(String name) {\n        return null;\n    }\n}\n",
        ),
        main(
            "Dispatcher.java",
            "package com.web;\n\nimport javax.servlet.http.HttpServletRequest;\n\n/** Routes requests. */\npublic class Dispatcher {\n    public String raw(HttpServletRequest request) {\n        return request.getParameter(\"q\");\n    }\n\n    public String route(WebRequest request) {\n        return request.getParameter(\"path\");\n    }\n\n    public String legacy(LegacyHttpServletRequest request) {\n        return request.getParameter(\"path\");\n    }\n}\n",
        ),
    ];
    let dir = index_repo(&root, &files);
    let a = ask_stored(&dir, "Who calls HttpServletRequest.getParameter?");
    assert_eq!(a.intent, Intent::Callers);
    // The implementation's callers and the calls made through the library type itself.
    assert!(
        a.answer.starts_with(
            "Callers of WebRequest.getParameter, HttpServletRequest.getParameter (a library method):\n- Dispatcher.route"
        ),
        "{}",
        a.answer
    );
    assert!(a.answer.contains("- Dispatcher.raw"), "{}", a.answer);
    assert!(!a.answer.contains("Dispatcher.legacy"), "{}", a.answer);
    assert_citations_resolve(&a, &root);

    // The graph commands also find the calls made through the library type itself.
    let index = indexer::store::EmbeddedIndex::open(&dir).unwrap();
    let nodes = query::calls::find_nodes(&index, "HttpServletRequest.getParameter").unwrap();
    let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    assert!(
        ids.contains(&"java:javax.servlet.http.HttpServletRequest#getParameter"),
        "{ids:?}"
    );
    assert!(
        nodes
            .iter()
            .any(|n| n.name.contains("WebRequest.getParameter")),
        "{ids:?}"
    );
    let hops = query::calls::callers(&index, &nodes, 1, 50).unwrap();
    let from: Vec<&str> = hops.iter().map(|h| h.from.name.as_str()).collect();
    assert!(
        from.iter().any(|f| f.contains("Dispatcher.raw")),
        "{from:?}"
    );
    assert!(
        from.iter().any(|f| f.contains("Dispatcher.route")),
        "{from:?}"
    );
    assert!(
        !from.iter().any(|f| f.contains("Dispatcher.legacy")),
        "{from:?}"
    );
}

/// A library method no indexed type implements (`RedisTemplate.opsForValue`): its calls are
/// found under the id the code's own calls record, not by a type that merely shares the name.
#[test]
fn a_library_method_nothing_implements_is_found_by_its_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("shop");
    let main = |p: &str, text: &str| main_java("shop", p, text);
    let files = vec![
        main(
            "StockCache.java",
            "package com.shop;\n\nimport org.springframework.data.redis.core.RedisTemplate;\n\n/** Stock counts kept in Redis. */\npublic class StockCache {\n    private final RedisTemplate<String, Long> redisTemplate;\n\n    public StockCache(RedisTemplate<String, Long> redisTemplate) {\n        this.redisTemplate = redisTemplate;\n    }\n\n    public Long stockOf(String sku) {\n        return redisTemplate.opsForValue().get(\"stock:\" + sku);\n    }\n\n    public void deduct(String sku) {\n        redisTemplate.opsForValue().decrement(\"stock:\" + sku);\n    }\n}\n",
        ),
        main(
            "TokenStore.java",
            "package com.shop;\n\nimport org.springframework.data.redis.core.RedisTemplate;\n\n/** Login tokens in Redis. */\npublic class TokenStore {\n    private RedisTemplate<String, String> redisTemplate;\n\n    public void save(String user, String token) {\n        redisTemplate.opsForValue().set(\"token:\" + user, token);\n    }\n}\n",
        ),
        // A type of the code that ends like the library's and has the same method.
        main(
            "LocalRedisTemplate.java",
            "package com.shop;\n\n/** A map standing in for Redis in tests of the shop. */\npublic class LocalRedisTemplate {\n    public Object opsForValue() {\n        return null;\n    }\n\n    public Object read() {\n        return opsForValue();\n    }\n}\n",
        ),
    ];
    let dir = index_repo(&root, &files);
    // The library method, and the library type named alone: the code calling its methods.
    for (question, header) in [
        (
            "Who calls RedisTemplate.opsForValue?",
            "Callers of RedisTemplate.opsForValue (a library method):\n",
        ),
        (
            "Who uses RedisTemplate?",
            "Callers of RedisTemplate (a library type: calls of its methods):\n",
        ),
    ] {
        let a = ask_stored(&dir, question);
        assert_eq!(a.intent, Intent::Callers);
        assert!(a.answer.starts_with(header), "{}", a.answer);
        for caller in ["StockCache.stockOf", "StockCache.deduct", "TokenStore.save"] {
            assert!(a.answer.contains(&format!("- {caller} ")), "{}", a.answer);
        }
        assert!(!a.answer.contains("LocalRedisTemplate"), "{}", a.answer);
        assert_citations_resolve(&a, &root);
    }
    // A method of the code named beside the type is what is asked about.
    let a = ask_stored(
        &dir,
        "Who calls StockCache.deduct, which writes through RedisTemplate?",
    );
    assert!(
        a.answer.starts_with("Callers of StockCache.deduct:"),
        "{}",
        a.answer
    );

    let index = indexer::store::EmbeddedIndex::open(&dir).unwrap();
    let nodes = query::calls::find_nodes(&index, "RedisTemplate.opsForValue").unwrap();
    let ids: Vec<&str> = nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        ["java:org.springframework.data.redis.core.RedisTemplate#opsForValue"]
    );
    let hops = query::calls::callers(&index, &nodes, 1, 50).unwrap();
    let mut from: Vec<&str> = hops.iter().map(|h| h.from.name.as_str()).collect();
    from.sort();
    assert_eq!(
        from,
        [
            "com.shop.StockCache.deduct(String)",
            "com.shop.StockCache.stockOf(String)",
            "com.shop.TokenStore.save(String,String)"
        ],
        "{hops:?}"
    );
}
