//! String literals of a Go file, each given to the innermost declaration holding its line
//! ([`Symbol::literals`]): where the message of a pasted panic is looked for.

use crate::model::{Literal, Symbol};
use tree_sitter::Node;

/// Interpreted and raw string literals under `root`, without their quotes (escapes as written).
pub(super) fn collect(root: Node<'_>, src: &[u8]) -> Vec<Literal> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let literal = matches!(
            node.kind(),
            "interpreted_string_literal" | "raw_string_literal"
        );
        if literal {
            let t = node.utf8_text(src).unwrap_or("");
            let text = t.get(1..t.len().saturating_sub(1)).unwrap_or("");
            if !text.trim().is_empty() {
                out.push(Literal {
                    line: node.start_position().row as u32 + 1,
                    text: text.to_string(),
                });
            }
        } else if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Gives each literal to the innermost symbol whose lines hold it (the shortest span; the
/// later of equal ones); a literal outside every symbol (an import path) is dropped.
pub(super) fn attach(symbols: &mut [Symbol], literals: Vec<Literal>) {
    for lit in literals {
        let holder = symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.start_line <= lit.line && lit.line <= s.end_line)
            .min_by_key(|(i, s)| (s.end_line - s.start_line, std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        if let Some(i) = holder {
            symbols[i].literals.push(lit);
        }
    }
}
