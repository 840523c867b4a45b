//! Whether a callable's body holds a statement, read from its text: the one lexical read left
//! in the view (issue 23 item 4 replaces it with a fact the indexer stores from the tree).

/// Whether a callable's text has a body with at least one statement (not abstract, not `{}`);
/// comments and strings do not count.
pub(super) fn has_body_text(text: &str) -> bool {
    let masked = mask_comments_and_strings(text);
    match (masked.find('{'), masked.rfind('}')) {
        (Some(a), Some(b)) if a < b => !masked[a + 1..b].trim().is_empty(),
        _ => false,
    }
}

/// Blanks out comments and string/char literals, keeping line structure and byte offsets.
fn mask_comments_and_strings(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"  ");
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
            if i < b.len() {
                out.extend_from_slice(b"  ");
                i += 2;
            }
        } else if c == b'"' || c == b'\'' {
            out.push(c);
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.extend_from_slice(b"  ");
                    i += 2;
                    continue;
                }
                out.push(b' ');
                i += 1;
            }
            if i < b.len() && b[i] == c {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    // Only ASCII bytes were replaced, by ASCII; multi-byte sequences inside comments or strings
    // were blanked whole, so the result is valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_holds_a_statement_unless_empty_abstract_or_only_comments() {
        assert!(has_body_text("void run() {\n    go();\n}"));
        assert!(!has_body_text("void run() {\n}"));
        assert!(!has_body_text("abstract void run();"));
        assert!(!has_body_text(
            "void run() {\n    // later: go();\n    /* { x(); } */\n}"
        ));
        assert!(!has_body_text("String s() { /* \"}\" */ }"));
    }

    #[test]
    fn masking_keeps_lines_and_offsets() {
        let src = "a /* x\ny */ b \"s\\\"t\" // c\nd";
        let m = mask_comments_and_strings(src);
        assert_eq!(m.len(), src.len());
        assert_eq!(m.lines().count(), src.lines().count());
        assert!(!m.contains('x') && !m.contains('c') && m.contains('d'));
    }
}
