use super::*;
use crate::lang::{self, ParseLimits};
use crate::model::{FileAnalysis, Language};
use proptest::prelude::*;

const KITCHEN: &[u8] = include_bytes!("../../tests/fixtures/java/Kitchen.java");

fn analyze(lang: Language, src: &[u8], max: usize) -> FileAnalysis {
    let path = RepoPath::new("src/main/java/org/example/kitchen/Kitchen.java").unwrap();
    let limits = ParseLimits {
        max_chunk_chars: max,
        ..ParseLimits::default()
    };
    lang::analyze(lang, &path, "kitchen", src, &limits)
}

/// The chunk invariants: ordered, non-overlapping, whole lines, every non-blank line covered,
/// no blank edge lines, text matching the bytes, size within `max` unless a single line.
fn check_invariants(src: &[u8], chunks: &[Chunk], max: usize) -> Result<(), TestCaseError> {
    let lines = LineIndex::new(src);
    let mut covered = vec![false; lines.line_count() as usize + 1];
    let mut prev_end = 0;
    for c in chunks {
        prop_assert!(
            prev_end < c.start_line && c.start_line <= c.end_line,
            "order: {prev_end} then {c:?}"
        );
        prop_assert!(c.end_line <= lines.line_count());
        prev_end = c.end_line;
        prop_assert!(
            !lines.is_blank(c.start_line) && !lines.is_blank(c.end_line),
            "blank edge: {c:?}"
        );
        let size = lines.size(c.start_line, c.end_line);
        prop_assert!(
            size <= max || c.start_line == c.end_line,
            "size {size} > {max}: {c:?}"
        );
        prop_assert_eq!(
            (c.start_byte, c.end_byte),
            lines.byte_range(src, c.start_line, c.end_line)
        );
        prop_assert_eq!(
            &c.text,
            &String::from_utf8_lossy(&src[c.start_byte..c.end_byte])
        );
        for l in c.start_line..=c.end_line {
            covered[l as usize] = true;
        }
    }
    for l in 1..=lines.line_count() {
        prop_assert!(
            covered[l as usize] || lines.is_blank(l),
            "line {l} not covered"
        );
    }
    Ok(())
}

/// Chunks as `start-end symbol` lines plus headers, for snapshots.
fn render(chunks: &[Chunk]) -> String {
    chunks
        .iter()
        .map(|c| {
            let sym = c.symbol.as_ref().map_or("-", |s| s.0.as_str());
            format!(
                "lines {}-{} ({} chars) {sym}\n{}\n",
                c.start_line,
                c.end_line,
                non_ws_chars(c.text.as_bytes()),
                c.header
            )
        })
        .collect()
}

#[test]
fn small_file_is_one_chunk() {
    let a = analyze(
        crate::lang::java::LANGUAGE,
        b"\n\npackage p;\n\nclass A {\n  void f() {}\n}\n\n",
        1500,
    );
    assert_eq!(a.chunks.len(), 1);
    assert_eq!((a.chunks[0].start_line, a.chunks[0].end_line), (3, 7));
    assert_eq!(
        a.chunks[0].text,
        "package p;\n\nclass A {\n  void f() {}\n}"
    );
}

#[test]
fn kitchen_chunks_snapshot() {
    let a = analyze(crate::lang::java::LANGUAGE, KITCHEN, 300);
    check_invariants(KITCHEN, &a.chunks, 300).unwrap();
    insta::assert_snapshot!(render(&a.chunks));
}

#[test]
fn javadoc_travels_with_its_method_and_the_header_names_it() {
    let mut src = String::from(
        "package p;\n\nimport java.io.File;\nimport java.util.List;\nimport java.util.*;\n\npublic class A {\n",
    );
    for i in 0..3 {
        src.push_str(&format!(
            "\n    /**\n     * Method {i}.\n     */\n    public static File m{i}(final File f) {{\n"
        ));
        for j in 0..10 {
            src.push_str(&format!(
                "        f = new File(f, \"segment-{j}-of-method\");\n"
            ));
        }
        src.push_str("        return f;\n    }\n");
    }
    src.push_str("}\n");
    let a = analyze(crate::lang::java::LANGUAGE, src.as_bytes(), 500);
    check_invariants(src.as_bytes(), &a.chunks, 500).unwrap();
    let m1 = a
        .chunks
        .iter()
        .find(|c| {
            c.symbol
                .as_ref()
                .is_some_and(|s| s.0 == "java:p.A#m1(File)")
        })
        .expect("m1 chunk");
    assert!(m1.text.trim_start().starts_with("/**"), "{}", m1.text);
    assert!(m1.text.trim_end().ends_with('}'));
    assert_eq!(
        m1.header,
        "// file: src/main/java/org/example/kitchen/Kitchen.java  module: kitchen\n\
         // scope: p.A > m1\n\
         // signature: public static File m1(final File f)\n\
         // imports: java.io.File"
    );
}

#[test]
fn big_method_is_split_between_statements() {
    let mut src = String::from("class A {\n  void f() {\n");
    for i in 0..60 {
        src.push_str(&format!(
            "    call(\"argument number {i}\",\n         {i});\n"
        ));
    }
    src.push_str("  }\n}\n");
    let a = analyze(crate::lang::java::LANGUAGE, src.as_bytes(), 300);
    check_invariants(src.as_bytes(), &a.chunks, 300).unwrap();
    assert!(a.chunks.len() > 5);
    for c in &a.chunks[1..a.chunks.len() - 1] {
        // Each statement spans two lines; none may be cut.
        assert!(
            !c.text.trim_end().ends_with(','),
            "statement cut: {}",
            c.text
        );
        assert_eq!(c.symbol.as_ref().map(|s| s.0.as_str()), Some("java:A#f()"));
    }
}

#[test]
fn overlong_line_is_a_chunk_of_its_own() {
    let src = format!(
        "class A {{\n  int a;\n  String s = \"{}\";\n  int b;\n}}\n",
        "x".repeat(400)
    );
    let a = analyze(crate::lang::java::LANGUAGE, src.as_bytes(), 100);
    check_invariants(src.as_bytes(), &a.chunks, 100).unwrap();
    assert!(
        a.chunks
            .iter()
            .any(|c| c.start_line == 3 && c.end_line == 3)
    );
}

#[test]
fn text_is_chunked_by_paragraphs() {
    let src = b"# Title\n\nFirst paragraph\nstill first.\n\n\nSecond paragraph.\n";
    let a = analyze(Language::TEXT, src, 40);
    let spans: Vec<_> = a
        .chunks
        .iter()
        .map(|c| (c.start_line, c.end_line))
        .collect();
    assert_eq!(spans, [(1, 4), (7, 7)]);
    assert_eq!(
        a.chunks[0].header,
        "// file: src/main/java/org/example/kitchen/Kitchen.java  module: kitchen"
    );
}

#[test]
fn imports_are_matched_as_whole_identifiers() {
    let imports = ["java.io.File", "java.util.*", "static a.B.c", "x.File"].map(String::from);
    let names = ImportNames::new(&imports);
    let mut used = vec![false; 4];
    let cases: [(&str, [bool; 4]); 4] = [
        ("new File(x)", [true, false, false, true]),
        ("new FileReader(myFile)", [false; 4]),
        ("c(File)", [true, false, true, true]),
        ("", [false; 4]),
    ];
    for (text, want) in cases {
        names.mark_used(text.as_bytes(), &mut used);
        assert_eq!(used, want, "{text}");
    }
}

/// Java-ish source: classes of methods of nested blocks and statements, with comments, blank
/// lines, odd indentation and the occasional long line.
fn java_source() -> impl Strategy<Value = String> {
    let stmt = prop_oneof![
        "[a-z]{1,8}\\([a-z0-9, ]{0,30}\\);".prop_map(|s| s),
        "int [a-z]{1,5} = [0-9]{1,40};",
        "// [a-zA-Z ]{0,60}",
        "/\\* [a-z ]{0,20}\n[a-z ]{0,20} \\*/",
        "String s = \"[a-z]{100,400}\";",
        Just(String::new()),
    ];
    let block = stmt.prop_recursive(4, 64, 8, |inner| {
        (
            prop::collection::vec(inner, 0..8),
            "(if \\(x\\)|while \\(y\\)|)",
        )
            .prop_map(|(body, head)| format!("{head} {{\n{}\n}}", body.join("\n")))
    });
    let method = (
        "[a-z]{1,6}",
        prop::collection::vec(block, 0..6),
        prop::bool::ANY,
    )
        .prop_map(|(name, body, doc)| {
            let doc = if doc { "/**\n * Does it.\n */\n" } else { "" };
            format!("{doc}  void {name}() {{\n{}\n  }}\n", body.join("\n    "))
        });
    prop::collection::vec(
        ("[A-Z][a-z]{0,5}", prop::collection::vec(method, 0..6)),
        1..3,
    )
    .prop_map(|classes| {
        let mut s = String::from("package p;\n\nimport java.util.List;\n\n");
        for (name, methods) in classes {
            s.push_str(&format!(
                "class {name} {{\n\n{}\n}}\n\n",
                methods.join("\n")
            ));
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn java_chunks_keep_the_invariants(src in java_source(), max in 20usize..600) {
        let a = analyze(crate::lang::java::LANGUAGE, src.as_bytes(), max);
        prop_assert_eq!(a.degraded, None);
        check_invariants(src.as_bytes(), &a.chunks, max)?;
    }

    #[test]
    fn garbage_through_the_java_path_keeps_the_invariants(src in prop::collection::vec(any::<u8>(), 0..2000), max in 1usize..300) {
        let a = analyze(crate::lang::java::LANGUAGE, &src, max);
        check_invariants(&src, &a.chunks, max)?;
    }

    #[test]
    fn java_like_garbage_keeps_the_invariants(src in "[{}();a-z \n\t/*\"]{0,1500}", max in 1usize..200) {
        let a = analyze(crate::lang::java::LANGUAGE, src.as_bytes(), max);
        check_invariants(src.as_bytes(), &a.chunks, max)?;
    }

    #[test]
    fn text_chunks_keep_the_invariants(src in prop::collection::vec(any::<u8>(), 0..3000), max in 0usize..400) {
        let a = analyze(Language::TEXT, &src, max);
        check_invariants(&src, &a.chunks, max)?;
    }

    #[test]
    fn text_lines_chunks_keep_the_invariants(src in "([a-z ]{0,80}\r?\n){0,80}", max in 0usize..400) {
        let a = analyze(Language::TEXT, src.as_bytes(), max);
        check_invariants(src.as_bytes(), &a.chunks, max)?;
    }
}

/// A vertical tab is whitespace to tree-sitter but content to the chunker: the line holding it
/// is in no node. It joins a neighbour only when the result fits, else it is a chunk of its own
/// (found by `garbage_through_the_java_path_keeps_the_invariants`).
#[test]
fn a_line_no_node_covers_does_not_stretch_a_full_chunk() {
    let long = format!("class A {{ int a = {}; }}", "1 + ".repeat(30));
    let src = format!("\u{b}\n{long}\n");
    let max = 60;
    let a = analyze(crate::lang::java::LANGUAGE, src.as_bytes(), max);
    let spans: Vec<(u32, u32)> = a
        .chunks
        .iter()
        .map(|c| (c.start_line, c.end_line))
        .collect();
    assert_eq!(spans, [(1, 1), (2, 2)]);
    check_invariants(src.as_bytes(), &a.chunks, max).unwrap();
}
