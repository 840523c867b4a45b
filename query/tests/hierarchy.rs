//! Definition questions that ask for a supertype: "the base class both the mutable and immutable
//! versions extend" is the type the best matches share, not one of them. Builds a small
//! repository, indexes it and asks through the public API with the stored call graph.

mod support;
use query::question::Intent;
use support::{ask_stored, assert_citations_resolve, index_repo, symbols};

fn pairs() -> Vec<(String, String)> {
    let main = |p: &str, text: &str| (format!("src/main/java/com/kit/{p}"), text.to_string());
    vec![
        main(
            "Pair.java",
            "package com.kit;\n\n/** Two elements. */\npublic abstract class Pair<L, R> {\n    public abstract L getLeft();\n\n    public abstract R getRight();\n}\n",
        ),
        main(
            "MutablePair.java",
            "package com.kit;\n\n/** A mutable pair of two elements: left and right can be set after creation. */\npublic class MutablePair<L, R> extends Pair<L, R> {\n    public L left;\n    public R right;\n\n    /** Sets the left element of this mutable pair. */\n    public void setLeft(L left) {\n        this.left = left;\n    }\n\n    public L getLeft() {\n        return left;\n    }\n\n    public R getRight() {\n        return right;\n    }\n}\n",
        ),
        main(
            "ImmutablePair.java",
            "package com.kit;\n\n/** An immutable pair of two elements: left and right are final. */\npublic final class ImmutablePair<L, R> extends Pair<L, R> {\n    public final L left;\n    public final R right;\n\n    /** Creates an immutable pair of two elements. */\n    public ImmutablePair(L left, R right) {\n        this.left = left;\n        this.right = right;\n    }\n\n    public L getLeft() {\n        return left;\n    }\n\n    public R getRight() {\n        return right;\n    }\n}\n",
        ),
        main(
            "Triple.java",
            "package com.kit;\n\n/** Three elements: left, middle and right. */\npublic class Triple<L, M, R> {\n    public L left;\n    public M middle;\n    public R right;\n}\n",
        ),
    ]
}

#[test]
fn the_base_class_asked_for_is_the_one_the_best_matches_extend() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("kit");
    let dir = index_repo(&root, &pairs());
    let a = ask_stored(
        &dir,
        "Where is the base class of a two-element pair that both the mutable and the immutable pair extend?",
    );
    assert_eq!(a.intent, Intent::Definition);
    let cited = symbols(&a);
    assert_eq!(cited[0], "Pair", "{cited:?}");
    assert!(
        cited[1..3].contains(&"MutablePair".to_string()),
        "{cited:?}"
    );
    assert_citations_resolve(&a, &root);

    // Not asked for a base: the pair that matches best stays first.
    let a = ask_stored(&dir, "Which class is the immutable pair of two elements?");
    assert_eq!(a.intent, Intent::Definition);
    assert_eq!(symbols(&a)[0], "ImmutablePair", "{:?}", symbols(&a));
}
