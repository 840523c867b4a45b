//! Declaration text: heads without bodies or annotations, erased parameter types.

use super::{K, kind};
use crate::model::Param;
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

/// The parameters of a `formal_parameters` node, their types as [`simple`] writes them.
pub(super) fn params(src: &[u8], params: Node<'_>) -> Vec<Param> {
    let mut out = Vec::new();
    let mut cursor = params.walk();
    for p in params.named_children(&mut cursor) {
        let text = |n: Node<'_>| String::from_utf8_lossy(&src[n.byte_range()]).into_owned();
        let (ty, name) = match kind(p) {
            K::FormalParameter => {
                let dims = p
                    .child_by_field_name("dimensions")
                    .map(|d| erase(&src[d.byte_range()]))
                    .unwrap_or_default();
                let ty = p
                    .child_by_field_name("type")
                    .map(|t| erase(&src[t.byte_range()]))
                    .unwrap_or_default();
                let name = p.child_by_field_name("name").map(text);
                (ty + &dims, name.unwrap_or_default())
            }
            K::SpreadParameter => {
                let mut c = p.walk();
                let children: Vec<Node<'_>> = p.named_children(&mut c).collect();
                let ty = children
                    .iter()
                    .find(|t| {
                        !matches!(kind(**t), K::Modifiers | K::Annotation)
                            && t.kind() != "variable_declarator"
                    })
                    .map(|t| erase(&src[t.byte_range()]))
                    .unwrap_or_default();
                let name = children
                    .iter()
                    .find(|t| t.kind() == "variable_declarator")
                    .and_then(|d| d.child_by_field_name("name"))
                    .map(text);
                (ty + "...", name.unwrap_or_default())
            }
            _ => continue, // receiver parameter, comments
        };
        out.push(Param {
            ty: simple(&ty),
            name,
        });
    }
    out
}

/// The simple name of an erased type (`java.util.Map.Entry[]` → `Entry[]`, `String...` stays).
pub(super) fn simple(erased: &str) -> String {
    let base = erased.trim_end_matches(['[', ']', '.']);
    let suffix = &erased[base.len()..];
    let name = base.rsplit('.').next().unwrap_or(base);
    format!("{name}{suffix}")
}

/// Simple names of the types a type declaration extends and implements, in order (generic
/// arguments and type-parameter bounds are not supertypes).
pub(super) fn supertypes(src: &[u8], decl: Node<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cursor = decl.walk();
    for c in decl.named_children(&mut cursor) {
        if !matches!(
            c.kind(),
            "superclass" | "super_interfaces" | "extends_interfaces"
        ) {
            continue;
        }
        let mut inner = c.walk();
        for t in c.named_children(&mut inner) {
            let types: Vec<Node<'_>> = if t.kind() == "type_list" {
                let mut l = t.walk();
                t.named_children(&mut l).collect()
            } else {
                vec![t]
            };
            for ty in types.into_iter().filter(|n| !n.is_extra()) {
                let name = simple(&erase(&src[ty.byte_range()]));
                if !name.is_empty() && !out.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// The simple names of the types a callable's `throws` clause names, in order.
pub(super) fn throws(src: &[u8], decl: Node<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cursor = decl.walk();
    for c in decl.named_children(&mut cursor) {
        if c.kind() != "throws" {
            continue;
        }
        let mut inner = c.walk();
        for ty in c.named_children(&mut inner).filter(|n| !n.is_extra()) {
            let name = simple(&erase(&src[ty.byte_range()]));
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The simple name of the type a `throw new X(..)` statement creates; `None` when it throws
/// something else (a variable, a call's result).
pub(super) fn thrown_type(src: &[u8], throw: Node<'_>) -> Option<String> {
    let e = throw.named_child(0)?;
    if e.kind() != "object_creation_expression" {
        return None;
    }
    let name = simple(&erase(&src[e.child_by_field_name("type")?.byte_range()]));
    (!name.is_empty()).then_some(name)
}

/// Whether a callable's body node holds a statement (comments are not statements).
pub(super) fn has_statement(body: Node<'_>) -> bool {
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .any(|c| !c.is_extra() && !matches!(c.kind(), "line_comment" | "block_comment"))
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

    #[test]
    fn simple_names_keep_arrays_and_varargs() {
        assert_eq!(simple("java.util.Map.Entry[]"), "Entry[]");
        assert_eq!(simple("String..."), "String...");
        assert_eq!(simple("a.b.T[][]"), "T[][]");
        assert_eq!(simple("int"), "int");
    }
}
