//! A parsed tree flattened once into pre-order. The symbol extractor and the call-fact walker
//! both walk the whole tree; reading one recorded sequence twice costs far less than paying
//! tree-sitter's cursor navigation (visibility and alias checks at every step) twice.

use tree_sitter::Node;

/// Every node of a tree with its depth, in the order a cursor walk meets them.
pub(crate) struct Preorder<'t> {
    nodes: Vec<(Node<'t>, u32)>,
}

impl<'t> Preorder<'t> {
    /// Records `root` and its descendants, leaving out the children of nodes `opaque` accepts
    /// (nodes no walk of this tree goes into).
    pub(crate) fn new(root: Node<'t>, opaque: impl Fn(Node<'t>) -> bool) -> Preorder<'t> {
        let mut nodes = Vec::with_capacity(root.descendant_count());
        let mut cursor = root.walk();
        let mut depth = 0u32;
        loop {
            let node = cursor.node();
            nodes.push((node, depth));
            if !opaque(node) && cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return Preorder { nodes };
                }
                depth -= 1;
            }
        }
    }

    /// Walks the nodes as a cursor would: `visit(node, depth, previous)` says whether to go
    /// into `node`'s children; `previous` is the sibling just before `node` (`None` for a
    /// first child and the root).
    pub(crate) fn walk(&self, mut visit: impl FnMut(Node<'t>, usize, Option<Node<'t>>) -> bool) {
        let nodes = &self.nodes;
        // The last node met at each depth since its parent was entered.
        let mut last: Vec<Option<Node<'t>>> = Vec::new();
        let mut i = 0;
        while let Some(&(node, depth)) = nodes.get(i) {
            let d = depth as usize;
            if last.len() < d + 2 {
                last.resize(d + 2, None);
            }
            let previous = last[d].replace(node);
            last[d + 1] = None;
            i += 1;
            if !visit(node, d, previous) {
                while nodes.get(i).is_some_and(|&(_, below)| below > depth) {
                    i += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> tree_sitter::Tree {
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_java::LANGUAGE.into()).unwrap();
        p.parse(src, None).unwrap()
    }

    /// What a plain cursor walk visits, with the previous sibling of each node.
    fn cursor_walk<'t>(
        root: Node<'t>,
        descend: impl Fn(Node<'t>) -> bool,
    ) -> Vec<(String, usize, Option<String>)> {
        let mut out = Vec::new();
        let mut cursor = root.walk();
        let mut depth = 0;
        let mut previous = None;
        loop {
            let node = cursor.node();
            out.push((node.kind().to_string(), depth, previous.clone()));
            if descend(node) && cursor.goto_first_child() {
                depth += 1;
                previous = None;
                continue;
            }
            loop {
                let here = cursor.node();
                if cursor.goto_next_sibling() {
                    previous = Some(here.kind().to_string());
                    break;
                }
                if !cursor.goto_parent() {
                    return out;
                }
                depth -= 1;
            }
        }
    }

    #[test]
    fn walks_like_a_cursor_with_skips_and_previous_siblings() {
        let src = "/** doc */ class A<T> extends B implements C {\n  // c\n  int f = g(1, h(2));\n  void m(int x) throws E { new Runnable() { public void run() { k(); } }; }\n}\n";
        let tree = parse(src);
        let root = tree.root_node();
        // Skip what a walk would not go into: parameters, argument lists, `throws`.
        let skip =
            |n: Node<'_>| matches!(n.kind(), "formal_parameters" | "argument_list" | "throws");
        let opaque = |n: Node<'_>| matches!(n.kind(), "type_parameters" | "superclass");
        let pre = Preorder::new(root, opaque);
        let mut got = Vec::new();
        pre.walk(|node, depth, previous| {
            got.push((
                node.kind().to_string(),
                depth,
                previous.map(|p| p.kind().to_string()),
            ));
            !skip(node) && !opaque(node)
        });
        let want = cursor_walk(root, |n| !skip(n) && !opaque(n));
        assert_eq!(got, want);
        assert!(
            got.iter()
                .any(|(k, _, p)| k == "class_declaration" && p.as_deref() == Some("block_comment"))
        );
        assert!(got.iter().any(|(k, ..)| k == "method_invocation"));
        assert!(
            !got.iter().any(|(k, ..)| k == "decimal_integer_literal"),
            "argument lists skipped"
        );
    }
}
