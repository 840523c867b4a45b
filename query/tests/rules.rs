//! Ranking rules switch by name: a rule switched off no longer acts, and the rules left on rank
//! exactly as before. Each case builds a small repository and asks through the public API.

mod support;
use indexer::store::EmbeddedIndex;
use query::Asker;
use query::retrieve::RuleSet;
use support::{index_repo, opts, pads_java, symbols};

fn pads_repo(root: &std::path::Path) -> indexer::store::IndexDir {
    let text = pads_java();
    // A test that pads too, with more of the question's words than the product code.
    let test = "package com.pad;\n\npublic class PadsTest {\n    /** Checks that values are padded with spaces to a width, column by column. */\n    public void testValuesArePaddedWithSpacesToAWidth() {\n        String padded = Pads.pad(7, 3);\n        assert padded.equals(\"  7\") : \"values padded with spaces to a width\";\n    }\n}\n";
    index_repo(
        root,
        &[
            ("src/main/java/com/pad/Pads.java".into(), text),
            ("src/test/java/com/pad/PadsTest.java".into(), test.into()),
        ],
    )
}

fn top(asker: &Asker<'_>, question: &str, rules: &str) -> Vec<String> {
    let o = query::AskOptions {
        rules: RuleSet::parse(rules).unwrap(),
        ..opts()
    };
    symbols(&asker.ask(question, &o).unwrap())
}

#[test]
fn a_rule_switched_off_stops_acting_and_the_others_rank_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("pad");
    let dir = pads_repo(&root);
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let question = "Where are values padded with spaces to a width?";

    let all = top(&asker, question, "");
    // Switching a rule off and on again is the default.
    assert_eq!(top(&asker, question, "-provenance,+provenance"), all);
    // With every rule: one overload in the top three, test code below the product code.
    let pads = |t: &[String]| t.iter().take(3).filter(|s| *s == "Pads.pad").count();
    assert_eq!(pads(&all), 1, "{all:?}");
    let test_at = |t: &[String]| {
        t.iter()
            .position(|s| s.starts_with("PadsTest."))
            .unwrap_or(usize::MAX)
    };
    let pad_at = |t: &[String]| t.iter().position(|s| s.starts_with("Pads.")).unwrap();
    assert!(pad_at(&all) < test_at(&all), "{all:?}");

    // Without overload spreading, the overloads fill the top places.
    let spread_off = top(&asker, question, "-overload-spread");
    assert!(pads(&spread_off) >= 2, "{spread_off:?}");
    // Without the provenance factor, the test's wordier method comes first.
    let prov_off = top(&asker, question, "-provenance");
    assert!(test_at(&prov_off) < pad_at(&prov_off), "{prov_off:?}");
}

#[test]
fn the_exact_pin_keeps_a_named_method_first_and_can_be_switched_off() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("pad");
    let dir = pads_repo(&root);
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    // Names one method, describes another's words.
    let question =
        "Does Pads.pad get called where every value in a column is padded to the widest width?";
    let pinned = top(&asker, question, "");
    assert_eq!(pinned[0], "Pads.pad", "{pinned:?}");
    let unpinned = top(&asker, question, "-exact");
    assert_eq!(unpinned[0], "Pads.padColumn", "{unpinned:?}");
}

#[test]
fn every_rule_is_listed_once_in_the_order_it_runs() {
    let rules = query::retrieve::rules::all();
    let names: Vec<&str> = rules.iter().map(|r| r.name).collect();
    // The pin first, the legs before the factors before the lifts; each one switchable.
    assert_eq!(names[0], "exact");
    let at = |n: &str| names.iter().position(|x| *x == n).unwrap();
    assert!(at("bm25") < at("body") && at("body") < at("provenance"));
    assert!(at("provenance") < at("value-factory") && at("value-factory") < at("overload-spread"));
    for n in &names {
        let set = RuleSet::parse(&format!("-{n}")).unwrap();
        assert!(!set.is_on(n));
    }
}

/// The entry factor reads the annotations' simple names the view keeps (not a flag derived
/// from ranking's lists), so a list change never needs a view rebuild: twin methods, one of
/// them a transaction, and the transaction ranks first only while the rule is on.
#[test]
fn the_entry_factor_lifts_an_annotated_twin_from_the_names_the_view_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("twins");
    let class = |name: &str, note: &str| {
        format!(
            "package com.shop;\n\npublic class {name} {{\n    /** Settles the invoice of a paid order and records the settlement. */\n    {note}public void settleInvoice(long orderId) {{\n        System.out.println(orderId);\n    }}\n}}\n"
        )
    };
    let dir = index_repo(
        &root,
        &[
            (
                "src/main/java/com/shop/AccountsBook.java".into(),
                class("AccountsBook", ""),
            ),
            (
                "src/main/java/com/shop/LedgerBook.java".into(),
                class(
                    "LedgerBook",
                    "@org.springframework.transaction.annotation.Transactional(readOnly = false)\n    @Deprecated\n    ",
                ),
            ),
        ],
    );
    let index = EmbeddedIndex::open(&dir).unwrap();
    let view = query::view::SnapshotView::open(&index, Some(&root)).unwrap();
    let names: Vec<(String, String)> = (0..view.len())
        .filter(|&i| view.sym(i).symbol.name == "settleInvoice")
        .map(|i| {
            (
                view.sym(i).symbol.qualified_name.clone(),
                view.annotation_names(i).to_string(),
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            (
                "com.shop.AccountsBook.settleInvoice".to_string(),
                String::new()
            ),
            (
                "com.shop.LedgerBook.settleInvoice".to_string(),
                "Transactional,Deprecated".to_string()
            ),
        ]
    );
    let asker = Asker::new(&index).unwrap();
    let question = "Where is the invoice of a paid order settled?";
    let on = top(&asker, question, "");
    assert_eq!(on[0], "LedgerBook.settleInvoice", "{on:?}");
    let off = top(&asker, question, "-entry");
    assert_eq!(off[0], "AccountsBook.settleInvoice", "{off:?}");
}

/// A bug report's named type is what it is about: its members go above a wordier method of
/// another class, while the rule is on. A question naming the same type is not moved by it.
#[test]
fn a_report_ranks_the_members_of_the_type_it_names_first() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("circle");
    let dir = index_repo(
        &root,
        &[
            (
                "src/main/java/com/io/CircularStream.java".into(),
                "package com.io;\n\npublic class CircularStream {\n    private final byte[] buffer;\n    private int position;\n\n    public CircularStream(byte[] buffer) {\n        this.buffer = buffer;\n    }\n\n    public int read() {\n        int next = buffer[position];\n        position = (position + 1) % buffer.length;\n        return next;\n    }\n}\n".into(),
            ),
            (
                "src/main/java/com/io/BufferedSource.java".into(),
                "package com.io;\n\npublic class BufferedSource {\n    private byte[] buffer = new byte[0];\n\n    /** Reads the input into the buffer; an empty input buffer or one that contains -1 ends the reading. */\n    public int fill(java.io.InputStream input) throws java.io.IOException {\n        int size = input.read(buffer);\n        if (size == -1 || buffer.length == 0) {\n            throw new java.io.IOException(\"input buffer is empty or contains -1\");\n        }\n        return size;\n    }\n}\n".into(),
            ),
        ],
    );
    let index = EmbeddedIndex::open(&dir).unwrap();
    let asker = Asker::new(&index).unwrap();
    let report = "CircularStream is not infinite when its input buffer contains -1.\n\nReading an empty input buffer throws a divide by zero exception.";
    let on = top(&asker, report, "");
    assert!(on[0].starts_with("CircularStream."), "{on:?}");
    let off = top(&asker, report, "-reported-subject");
    assert_eq!(off[0], "BufferedSource.fill", "{off:?}");
    // Asked as a question, the type is context the rule leaves alone.
    let question = "Where is the input buffer read when it contains -1 in CircularStream?";
    assert_eq!(
        top(&asker, question, ""),
        top(&asker, question, "-reported-subject")
    );
}
