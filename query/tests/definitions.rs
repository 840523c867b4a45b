//! Definition questions that say what kind of type they want: "the base class both the mutable
//! and immutable versions extend" is the type the best matches share, not one of them; "the
//! interface a class implements to …" is an interface even when a class matches more words.
//! Each builds a small repository, indexes it and asks through the public API with the stored
//! call graph.

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

fn diffs() -> Vec<(String, String)> {
    let main = |p: &str, text: &str| (format!("src/main/java/com/kit/{p}"), text.to_string());
    vec![
        main(
            "Diffable.java",
            "package com.kit;\n\n/** Implemented by objects that compare themselves. */\npublic interface Diffable<T> {\n    /** Lists the differences from another object. */\n    DiffResult diff(T other);\n}\n",
        ),
        main(
            "DiffReport.java",
            "package com.kit;\n\n/** A report of the list of differences between two objects of the same type. */\npublic class DiffReport {\n    private final DiffResult result;\n\n    /** Makes a report of the differences between two objects. */\n    public DiffReport(DiffResult result) {\n        this.result = result;\n    }\n\n    /** Reports the list of differences between the two objects. */\n    public String print() {\n        return \"differences: \" + result.report();\n    }\n}\n",
        ),
        main(
            "DiffResult.java",
            "package com.kit;\n\nimport java.util.List;\n\n/** A list of differences between two objects, which can report each difference or print the list as a report. */\npublic class DiffResult {\n    private final List<String> differences;\n\n    /** Makes a report from a list of differences between two objects. */\n    public DiffResult(List<String> differences) {\n        this.differences = differences;\n    }\n\n    /** Reports the list of differences, one per line. */\n    public String report() {\n        return String.join(\"\\n\", differences);\n    }\n}\n",
        ),
        main(
            "Person.java",
            "package com.kit;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n/** A person. */\npublic class Person implements Diffable<Person> {\n    String name;\n\n    public DiffResult diff(Person other) {\n        List<String> out = new ArrayList<>();\n        if (!name.equals(other.name)) {\n            out.add(\"name\");\n        }\n        return new DiffResult(out);\n    }\n}\n",
        ),
    ]
}

#[test]
fn an_interface_asked_for_outranks_a_class_that_matches_more_words() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("diff");
    // Many classes that report lists of differences: the interface's own words rank far below.
    let mut files = diffs();
    for n in 0..40 {
        files.push((
            format!("src/main/java/com/kit/report/Report{n}.java"),
            format!(
                "package com.kit.report;\n\n/** Report {n}: a list of the differences between one record and another. */\npublic class Report{n} {{\n    /** Reports the list of differences between a record and another, as report {n}. */\n    public String report(Object one, Object another) {{\n        return \"differences between \" + one + \" and another \" + another;\n    }}\n}}\n"
            ),
        ));
    }
    let dir = index_repo(&root, &files);
    let a = ask_stored(
        &dir,
        "What's the interface a class implements so it can report a list of differences between itself and another object?",
    );
    assert_eq!(a.intent, Intent::Definition);
    assert_eq!(symbols(&a)[0], "Diffable", "{:?}", symbols(&a));
    assert_citations_resolve(&a, &root);
}
