//! The grammar's field ids, looked up once: `Node::child_by_field_name` compares the name with
//! the grammar's field names on every call, a tenth of the time the facts took.

use rustc_hash::FxHashMap;
use std::sync::LazyLock;
use tree_sitter::Node;

static IDS: LazyLock<FxHashMap<String, u16>> = LazyLock::new(|| {
    let grammar = super::grammar();
    (1..=grammar.field_count() as u16)
        .filter_map(|id| Some((grammar.field_name_for_id(id)?.to_string(), id)))
        .collect()
});

/// A node's child by field name, as `Node::child_by_field_name`.
pub(super) trait Field<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        let id = IDS.get(name);
        debug_assert!(id.is_some(), "the Python grammar has no field {name}");
        self.child_by_field_id(*id?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_the_child_the_grammar_names() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&super::super::grammar()).unwrap();
        let tree = parser.parse("x = f(a)\n", None).unwrap();
        let assignment = tree.root_node().child(0).unwrap().child(0).unwrap();
        assert_eq!(assignment.kind(), "assignment");
        for name in ["left", "right"] {
            assert_eq!(
                assignment.field(name),
                assignment.child_by_field_name(name),
                "{name}"
            );
        }
        let call = assignment.field("right").unwrap();
        assert_eq!(call.field("function").map(|f| f.kind()), Some("identifier"));
        assert_eq!(call.field("body"), None, "a call has no body");
    }
}
