//! Small text helpers every language's symbol extraction shares.

/// Whitespace runs collapsed to one space, ends trimmed.
pub(crate) fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `prefix.name`, or `name` alone under an empty prefix.
pub(crate) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// A declaration's text hash (blake3, 16 hex chars): changed bodies between snapshots.
pub(crate) fn body_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..16].to_string()
}

/// The first sentence of a doc comment's plain text (up to the first `. `), whitespace
/// collapsed; `None` when empty.
pub(crate) fn first_sentence(plain: &str) -> Option<String> {
    let plain = collapse(plain);
    let sentence = match plain.find(". ") {
        Some(i) => &plain[..=i],
        None => &plain,
    };
    let sentence = sentence.trim();
    (!sentence.is_empty()).then(|| sentence.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_shape_text_as_symbols_need_it() {
        assert_eq!(collapse("  a \n\t b "), "a b");
        assert_eq!(join("", "x"), "x");
        assert_eq!(join("a.b", "x"), "a.b.x");
        assert_eq!(body_hash(b"x").len(), 16);
        assert_eq!(
            first_sentence(" Does a.  Then b. ").as_deref(),
            Some("Does a.")
        );
        assert_eq!(first_sentence("No stop"), Some("No stop".into()));
        assert_eq!(first_sentence("  "), None);
    }
}
