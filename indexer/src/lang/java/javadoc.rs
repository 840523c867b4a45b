//! Javadoc to plain text.

use super::signature::collapse;

/// The first sentence of a Javadoc comment, as plain text.
pub(super) fn first_sentence(comment: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(comment);
    let body = text.trim_start_matches("/**");
    let body = body.strip_suffix("*/").unwrap_or(body);
    let mut plain = String::new();
    for line in body.lines() {
        let line = line.trim_start().trim_start_matches('*').trim();
        if line.starts_with('@') {
            break; // block tags
        }
        plain.push_str(line);
        plain.push(' ');
    }
    let plain = strip_markup(&plain);
    let plain = collapse(plain.as_bytes());
    let sentence = match plain.find(". ") {
        Some(i) => &plain[..=i],
        None => &plain,
    };
    let sentence = sentence.trim();
    (!sentence.is_empty()).then(|| sentence.to_string())
}

/// Removes HTML tags and unwraps inline tags: `{@code x}` → `x`, `{@link A#b label}` → `label`,
/// `{@link A#b}` → `A#b`, `{@inheritDoc}` → nothing.
fn strip_markup(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(['<', '{', '&']) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if rest.starts_with('<') {
            match rest.find('>') {
                Some(j) => rest = &rest[j + 1..],
                None => {
                    out.push_str(rest);
                    rest = "";
                }
            }
        } else if rest.starts_with("{@") {
            // Find the matching brace.
            let mut depth = 0;
            let end = rest.char_indices().find(|&(_, c)| {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                depth == 0
            });
            let Some((j, _)) = end else {
                out.push_str(rest);
                rest = "";
                continue;
            };
            let inner = &rest[2..j];
            let (tag, arg) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
            let arg = arg.trim();
            match tag {
                "link" | "linkplain" => {
                    let (target, label) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
                    out.push_str(if label.trim().is_empty() {
                        target
                    } else {
                        label.trim()
                    });
                }
                "inheritDoc" => {}
                _ => out.push_str(arg),
            }
            rest = &rest[j + 1..];
        } else if rest.starts_with('&') {
            let entities = [
                ("&lt;", "<"),
                ("&gt;", ">"),
                ("&amp;", "&"),
                ("&quot;", "\""),
                ("&nbsp;", " "),
            ];
            match entities.iter().find(|(e, _)| rest.starts_with(e)) {
                Some((e, r)) => {
                    out.push_str(r);
                    rest = &rest[e.len()..];
                }
                None => {
                    out.push('&');
                    rest = &rest[1..];
                }
            }
        } else {
            out.push('{');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_of_javadoc() {
        let doc = |s: &str| first_sentence(s.as_bytes());
        assert_eq!(
            doc("/** Gets the {@code int} value. More. */").as_deref(),
            Some("Gets the int value.")
        );
        assert_eq!(
            doc("/**\n * Returns <i>the</i> {@link java.io.File file}, see {@link #x()}\n * e.g. 1.5 &amp; more.\n *\n * @return x\n */")
                .as_deref(),
            Some("Returns the file, see #x() e.g.")
        );
        assert_eq!(
            doc("/** {@code Map<K, {V}>} only */").as_deref(),
            Some("Map<K, {V}> only")
        );
        assert_eq!(doc("/** {@inheritDoc} */"), None);
        assert_eq!(doc("/***/"), None);
    }
}
