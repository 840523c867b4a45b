//! The framework half of Java graph facts: modifiers and annotations with their arguments
//! (`@GetMapping("/orders/{id}")`, `@RabbitListener(queues = MqConfig.CANCEL_QUEUE)`,
//! `@FeignClient(name = "inventory", path = "/api/inventory")`), as values the resolver can read:
//! string literals, constants to resolve, class literals, nested annotations and arrays.
//! What they mean (routes, clients, listeners, config keys) is decided in `graph::frameworks`.

use super::calls::{Walker, ids};
use crate::graph::facts::{AnnValue, Annotation, Expr};
use tree_sitter::Node;

/// Modifier facts of a declaration.
#[derive(Debug, Default)]
pub(super) struct Mods {
    pub is_static: bool,
    pub is_abstract: bool,
    pub annotations: Vec<Annotation>,
}

/// Annotations nested deeper than this are dropped.
const MAX_ANNOTATION_DEPTH: usize = 8;

/// Modifiers and annotations of the declaration `node` (its `modifiers` child or direct
/// annotation children).
pub(super) fn modifiers(w: &mut Walker<'_, '_>, node: Node<'_>) -> Mods {
    let mut mods = Mods::default();
    // Modifiers and annotations come first: stop at the first other child.
    let mut kids: Vec<Node<'_>> = Vec::new();
    let mut cursor = node.walk();
    for c in node.named_children(&mut cursor) {
        if matches!(c.kind(), "modifiers" | "annotation" | "marker_annotation") {
            kids.push(c);
        } else if !c.is_extra() {
            break;
        }
    }
    for c in kids {
        match c.kind() {
            "modifiers" => {
                let mut inner = c.walk();
                let ms: Vec<Node<'_>> = c.children(&mut inner).collect();
                for m in ms {
                    match m.kind() {
                        "static" => mods.is_static = true,
                        "abstract" => mods.is_abstract = true,
                        "annotation" | "marker_annotation" => {
                            if let Some(a) = annotation(w, m, 0) {
                                mods.annotations.push(a);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "annotation" | "marker_annotation" => {
                if let Some(a) = annotation(w, c, 0) {
                    mods.annotations.push(a);
                }
            }
            _ => {}
        }
    }
    mods
}

fn annotation(w: &mut Walker<'_, '_>, n: Node<'_>, depth: usize) -> Option<Annotation> {
    if depth > MAX_ANNOTATION_DEPTH {
        return None;
    }
    let ids = ids();
    let name = w.field(n, ids.name)?;
    let name: String = w.text(name).split_whitespace().collect();
    let mut args = Vec::new();
    if let Some(list) = w.field(n, ids.arguments) {
        let mut c = list.walk();
        let kids: Vec<Node<'_>> = list
            .named_children(&mut c)
            .filter(|k| !k.is_extra())
            .collect();
        for k in kids {
            if k.kind() == "element_value_pair" {
                let key = w.field(k, ids.key).map(|x| w.text(x).to_string());
                let value = w.field(k, ids.value);
                if let (Some(key), Some(value)) = (key, value) {
                    args.push((key, value_of(w, value, depth)));
                }
            } else {
                args.push(("value".to_string(), value_of(w, k, depth)));
            }
        }
    }
    Some(Annotation {
        name,
        args,
        line: n.start_position().row as u32 + 1,
    })
}

fn value_of(w: &mut Walker<'_, '_>, n: Node<'_>, depth: usize) -> AnnValue {
    match n.kind() {
        "annotation" | "marker_annotation" => match annotation(w, n, depth + 1) {
            Some(a) => AnnValue::Nested(a),
            None => AnnValue::Expr(Expr::Opaque),
        },
        "element_value_array_initializer" => {
            let mut c = n.walk();
            let kids: Vec<Node<'_>> = n.named_children(&mut c).filter(|k| !k.is_extra()).collect();
            AnnValue::Array(
                kids.into_iter()
                    .map(|k| value_of(w, k, depth + 1))
                    .collect(),
            )
        }
        // Numbers keep their text (`fixedRate = 60000`): annotations are read for their values.
        "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal"
        | "decimal_floating_point_literal" => AnnValue::Expr(Expr::Str(w.text(n).to_string())),
        _ => AnnValue::Expr(w.expr(n, 0)),
    }
}
