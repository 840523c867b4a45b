//! Go expressions and types as the resolver needs them: names, selections, calls, composite
//! literals, type assertions and literals that give a value its type; everything else is
//! [`Expr::Other`]. Built from tree-sitter-go nodes without recursion deeper than the source's
//! own nesting, which [`crate::lang::bracket_depth`] bounds before the parse.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

/// A type as written: `T`, `pkg.T`, `*T`, `[]T`, `map[K]V`, `chan T`, `func(…) R`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TExpr {
    /// (package qualifier, name); type arguments dropped.
    Named(Option<String>, String),
    /// Slices, arrays, and `...T` parameters.
    Slice(Box<TExpr>),
    Map(Box<TExpr>, Box<TExpr>),
    Chan(Box<TExpr>),
    /// A function type and its results.
    Func(Vec<TExpr>),
    /// An anonymous struct (`[]struct{ name string; act action }` of table tests): its named
    /// fields.
    Struct(Vec<(String, TExpr)>),
    Other,
}

impl TExpr {
    /// The name an embedded field of this type has.
    pub fn name(&self) -> Option<&str> {
        match self {
            TExpr::Named(_, n) => Some(n),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Name(String),
    /// `x.f`.
    Sel(Box<Expr>, String),
    /// `f(args…)`.
    Call(Box<Expr>, Vec<Expr>),
    /// `T{…}` (and `&T{…}`, pointers being transparent here).
    Composite(TExpr),
    /// `x[i]`, `x[i:j]` of a map or slice, `<-ch`; a generic instantiation `F[T]` too.
    Index(Box<Expr>),
    /// `x.(T)`.
    Assert(Box<Expr>, TExpr),
    /// A func literal, with its results.
    FuncLit(Vec<TExpr>),
    /// A type in argument position (`make([]T, n)`).
    Type(TExpr),
    /// A string literal's value.
    Str(String),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    Other,
}

/// Chains nested deeper than this (a builder of thousands of calls) end in [`Expr::Other`].
const MAX_DEPTH: u32 = 200;

pub(super) fn expr(n: Node<'_>, src: &[u8]) -> Expr {
    expr_at(n, src, 0)
}

fn expr_at(n: Node<'_>, src: &[u8], d: u32) -> Expr {
    if d > MAX_DEPTH {
        return Expr::Other;
    }
    let expr = |c: Node<'_>, src: &[u8]| expr_at(c, src, d + 1);
    let texpr = |c: Node<'_>, src: &[u8]| texpr_at(c, src, d + 1);
    let text = || String::from_utf8_lossy(&src[n.byte_range()]).into_owned();
    let field = |f: &str| n.child_by_field_name(f);
    let boxed = |c: Option<Node<'_>>| Box::new(c.map_or(Expr::Other, |c| expr(c, src)));
    match n.kind() {
        "identifier" => Expr::Name(text()),
        "selector_expression" => match field("field") {
            Some(f) => Expr::Sel(
                boxed(field("operand")),
                String::from_utf8_lossy(&src[f.byte_range()]).into_owned(),
            ),
            None => Expr::Other,
        },
        "call_expression" => Expr::Call(
            boxed(field("function")),
            field("arguments")
                .map(|a| named(a).map(|x| expr(x, src)).collect())
                .unwrap_or_default(),
        ),
        "composite_literal" => {
            Expr::Composite(field("type").map_or(TExpr::Other, |t| texpr(t, src)))
        }
        "unary_expression" => {
            let op = n
                .child_by_field_name("operator")
                .map(|o| &src[o.byte_range()]);
            match op {
                Some(b"<-") => Expr::Index(boxed(field("operand"))),
                Some(b"&" | b"*") => field("operand").map_or(Expr::Other, |c| expr(c, src)),
                _ => Expr::Other,
            }
        }
        "parenthesized_expression" => named(n).next().map_or(Expr::Other, |c| expr(c, src)),
        "index_expression" | "slice_expression" => Expr::Index(boxed(field("operand"))),
        "type_assertion_expression" => Expr::Assert(
            boxed(field("operand")),
            field("type").map_or(TExpr::Other, |t| texpr(t, src)),
        ),
        "func_literal" => Expr::FuncLit(super::facts::results(n, src)),
        "interpreted_string_literal" | "raw_string_literal" => Expr::Str(
            named(n)
                .filter(|c| c.kind().ends_with("_content"))
                .map(|c| String::from_utf8_lossy(&src[c.byte_range()]).into_owned())
                .collect::<String>()
                + &raw_body(n, src),
        ),
        "binary_expression"
            if n.child_by_field_name("operator")
                .is_some_and(|o| &src[o.byte_range()] == b"+") =>
        {
            Expr::Add(boxed(field("left")), boxed(field("right")))
        }
        "type_identifier" | "qualified_type" | "pointer_type" | "slice_type" | "array_type"
        | "map_type" | "channel_type" | "generic_type" | "function_type" => {
            Expr::Type(texpr(n, src))
        }
        _ => Expr::Other,
    }
}

/// A raw string's body (its content has no child node in some grammar versions).
fn raw_body(n: Node<'_>, src: &[u8]) -> String {
    if n.kind() != "raw_string_literal" || n.named_child_count() > 0 {
        return String::new();
    }
    let t = String::from_utf8_lossy(&src[n.byte_range()]).into_owned();
    t.trim_matches('`').to_string()
}

pub(super) fn texpr(n: Node<'_>, src: &[u8]) -> TExpr {
    texpr_at(n, src, 0)
}

fn texpr_at(n: Node<'_>, src: &[u8], d: u32) -> TExpr {
    if d > MAX_DEPTH {
        return TExpr::Other;
    }
    let texpr = |c: Node<'_>, src: &[u8]| texpr_at(c, src, d + 1);
    let text = |c: Node<'_>| String::from_utf8_lossy(&src[c.byte_range()]).into_owned();
    let field = |f: &str| n.child_by_field_name(f);
    let inner = |f: &str| Box::new(field(f).map_or(TExpr::Other, |c| texpr(c, src)));
    match n.kind() {
        "type_identifier" | "identifier" => TExpr::Named(None, text(n)),
        "qualified_type" => match (field("package"), field("name")) {
            (Some(p), Some(t)) => TExpr::Named(Some(text(p)), text(t)),
            _ => TExpr::Other,
        },
        // A qualified type in expression position (`pkg.T{}`, `x.(pkg.T)`).
        "selector_expression" => match (field("operand"), field("field")) {
            (Some(p), Some(t)) if p.kind() == "identifier" => TExpr::Named(Some(text(p)), text(t)),
            _ => TExpr::Other,
        },
        "pointer_type" | "parenthesized_type" => {
            named(n).next().map_or(TExpr::Other, |c| texpr(c, src))
        }
        "generic_type" => field("type").map_or(TExpr::Other, |c| texpr(c, src)),
        "slice_type" | "array_type" | "implicit_length_array_type" => {
            TExpr::Slice(inner("element"))
        }
        "map_type" => TExpr::Map(inner("key"), inner("value")),
        "channel_type" => TExpr::Chan(inner("value")),
        "function_type" => TExpr::Func(super::facts::results(n, src)),
        "struct_type" => {
            let mut fields = Vec::new();
            let decls = named(n)
                .filter(|c| c.kind() == "field_declaration_list")
                .flat_map(|l| named(l).collect::<Vec<_>>());
            for f in decls.filter(|f| f.kind() == "field_declaration") {
                let Some(t) = f.child_by_field_name("type") else {
                    continue;
                };
                let ty = texpr(t, src);
                for name in named(f).filter(|c| c.kind() == "field_identifier") {
                    fields.push((text(name), ty.clone()));
                }
            }
            TExpr::Struct(fields)
        }
        _ => TExpr::Other,
    }
}

pub(super) fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count() as u32).filter_map(move |i| n.named_child(i))
}
