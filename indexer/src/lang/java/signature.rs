//! Declaration text: heads without bodies or annotations, erased parameter types.

use super::{K, kind};
use tree_sitter::Node;

/// Erased parameter types of a `formal_parameters` node, comma-separated.
pub(super) fn param_types(src: &[u8], params: Node<'_>) -> String {
    let mut out = String::new();
    let mut cursor = params.walk();
    for p in params.named_children(&mut cursor) {
        let (ty, suffix) = match kind(p) {
            K::FormalParameter => {
                let dims = p
                    .child_by_field_name("dimensions")
                    .map(|d| erase(&src[d.start_byte()..d.end_byte()]));
                (p.child_by_field_name("type"), dims.unwrap_or_default())
            }
            K::SpreadParameter => {
                let mut c = p.walk();
                let ty = p.named_children(&mut c).find(|t| {
                    !matches!(kind(*t), K::Modifiers | K::Annotation)
                        && t.kind() != "variable_declarator"
                });
                (ty, "...".to_string())
            }
            _ => continue, // receiver parameter, comments
        };
        if !out.is_empty() {
            out.push(',');
        }
        if let Some(ty) = ty {
            out.push_str(&erase(&src[ty.start_byte()..ty.end_byte()]));
        }
        out.push_str(&suffix);
    }
    out
}

/// Declaration head: from the node start to `end` (the body), without the declaration's
/// annotations, comments or a trailing `;`, whitespace collapsed.
pub(super) fn head(src: &[u8], node: Node<'_>, end: Option<usize>) -> String {
    let end = end.unwrap_or(node.end_byte());
    let mut holes = Vec::new();
    let mut cursor = node.walk();
    let mut depth = 0;
    let mut descend = true;
    // Iterative walk over the head's nodes: comments anywhere, annotations of the declaration
    // (direct children, in `modifiers`, on the return type).
    'walk: loop {
        if descend && cursor.goto_first_child() {
            depth += 1;
        } else {
            while !cursor.goto_next_sibling() {
                if depth <= 1 || !cursor.goto_parent() {
                    break 'walk;
                }
                depth -= 1;
            }
        }
        let n = cursor.node();
        let hole =
            n.start_byte() < end && (n.is_extra() || (kind(n) == K::Annotation && depth <= 2));
        if hole {
            holes.push(n.byte_range());
        }
        descend = !hole && n.start_byte() < end;
    }
    let mut out = String::new();
    let mut at = node.start_byte();
    for h in holes.iter().chain(std::iter::once(&(end..end))) {
        if h.start > at {
            out.push_str(&String::from_utf8_lossy(&src[at..h.start]));
            out.push(' ');
        }
        at = at.max(h.end);
    }
    let out = collapse(out.as_bytes());
    out.trim_end_matches(';').trim_end().to_string()
}

/// Lossy text with whitespace runs collapsed to one space, trimmed.
pub(super) fn collapse(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A type as written, without generics, annotations or whitespace: `@A Map.Entry<K, V> []`
/// → `Map.Entry[]`.
pub(super) fn erase(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    let (mut angle, mut paren) = (0usize, 0usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // Only annotation arguments hold literals: skip them whole.
            '"' | '\'' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        _ if d == c => break,
                        _ => {}
                    }
                }
            }
            '<' => angle += 1,
            '>' => angle = angle.saturating_sub(1),
            '(' => paren += 1,
            ')' => paren = paren.saturating_sub(1),
            '@' if angle == 0 && paren == 0 => {
                // Skip the annotation name; its arguments are skipped as a parenthesised group.
                while chars
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
                {
                    chars.next();
                }
            }
            _ if angle > 0 || paren > 0 || c.is_whitespace() => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erasure_keeps_what_is_written_minus_generics_and_annotations() {
        let e = |s: &str| erase(s.as_bytes());
        assert_eq!(e("Map.Entry<K, List<V>>"), "Map.Entry");
        assert_eq!(e("@NonNull String @Deprecated []"), "String[]");
        assert_eq!(e("@a.b.C(x = \"(\") int"), "int");
        assert_eq!(e("java.util.List<int[]>[]"), "java.util.List[]");
    }
}
