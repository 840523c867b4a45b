//! Expressions and types of the Java tree as graph facts: [`Expr`] for what typing a receiver or
//! an argument needs, [`TypeRef`] for types as written; string literals unescaped. Recursive
//! under a depth cap ([`MAX_EXPR_DEPTH`]).

use super::Walker;
use crate::graph::facts::{Expr, Lit, TypeRef};
use tree_sitter::Node;

/// Expressions nested deeper than this are [`Expr::Opaque`].
const MAX_EXPR_DEPTH: usize = 40;

impl Walker<'_, '_> {
    /// A type as written, generics kept as arguments, annotations dropped.
    pub(in crate::lang::java) fn type_ref(&self, n: Node<'_>) -> TypeRef {
        match n.kind() {
            "generic_type" => {
                let mut c = n.walk();
                let mut name = String::new();
                let mut args = Vec::new();
                for k in n.named_children(&mut c) {
                    match k.kind() {
                        "type_arguments" => {
                            for a in k.named_children(&mut k.walk()) {
                                if !matches!(a.kind(), "annotation" | "marker_annotation") {
                                    args.push(self.type_ref(a));
                                }
                            }
                        }
                        _ => name = erase_name(self.text(k)),
                    }
                }
                TypeRef {
                    name,
                    args,
                    dims: 0,
                }
            }
            "array_type" => {
                let mut t = self
                    .field(n, self.ids.element)
                    .map(|e| self.type_ref(e))
                    .unwrap_or_default();
                if let Some(d) = self.field(n, self.ids.dimensions) {
                    t.dims += dims_of(self.text(d));
                }
                t
            }
            "annotated_type" => {
                let mut c = n.walk();
                let inner = n
                    .named_children(&mut c)
                    .filter(|k| !matches!(k.kind(), "annotation" | "marker_annotation"))
                    .last();
                inner.map(|i| self.type_ref(i)).unwrap_or_default()
            }
            "wildcard" => {
                let mut c = n.walk();
                let kids: Vec<Node<'_>> = n.children(&mut c).collect();
                let is_super = kids.iter().any(|k| k.kind() == "super");
                let bound = kids
                    .iter()
                    .filter(|k| k.is_named())
                    .find(|k| !matches!(k.kind(), "annotation" | "marker_annotation"));
                // `? extends T` and `? super T` both stand for `T` where a lambda parameter or a
                // receiver is typed (javac infers `T` for a lambda given `Consumer<? super T>`).
                let _ = is_super;
                TypeRef {
                    name: "?".into(),
                    args: bound.map(|b| vec![self.type_ref(*b)]).unwrap_or_default(),
                    dims: 0,
                }
            }
            _ => TypeRef::named(erase_name(self.text(n))),
        }
    }

    /// Converts an expression node.
    pub(in crate::lang::java) fn expr(&mut self, n: Node<'_>, depth: usize) -> Expr {
        if depth > MAX_EXPR_DEPTH {
            return Expr::Opaque;
        }
        let d = depth + 1;
        match n.kind() {
            "identifier" => {
                let t = self.text(n);
                match self.lookup(t) {
                    Some(i) => Expr::Var(i),
                    None => Expr::Name(t.to_string()),
                }
            }
            "field_access" => {
                let (mut obj, mut f, mut has_super) = (None, None, false);
                let mut c = n.walk();
                if c.goto_first_child() {
                    loop {
                        let k = c.node();
                        match c.field_id().map(|x| x.get()) {
                            Some(x) if x == self.ids.object => obj = Some(k),
                            Some(x) if x == self.ids.field => f = Some(k),
                            _ if obj.is_some() && k.kind() == "super" => has_super = true,
                            _ => {}
                        }
                        if !c.goto_next_sibling() {
                            break;
                        }
                    }
                }
                match (obj, f) {
                    (Some(o), Some(f)) if f.kind() == "this" => {
                        Expr::QualThis(erase_name(self.text(o)))
                    }
                    (Some(o), Some(f)) => {
                        let o = self.expr(o, d);
                        let o = if has_super {
                            Expr::Field(Box::new(o), "super".into())
                        } else {
                            o
                        };
                        Expr::Field(Box::new(o), self.text(f).to_string())
                    }
                    _ => Expr::Unknown,
                }
            }
            "scoped_identifier" => {
                // `a.b.c` in an expression position (rare: annotations, some qualifiers).
                let t = self.text(n);
                let mut parts = t.split('.').map(str::trim);
                let first = parts.next().unwrap_or_default();
                let mut e = match self.lookup(first) {
                    Some(i) => Expr::Var(i),
                    None => Expr::Name(first.to_string()),
                };
                for p in parts {
                    e = Expr::Field(Box::new(e), p.to_string());
                }
                e
            }
            "method_invocation" | "explicit_constructor_invocation" => Expr::Call(self.slot(n)),
            "object_creation_expression" => {
                let i = self.slot(n);
                self.field(n, self.ids.ty)
                    .map(|t| Expr::New(Box::new(self.type_ref(t)), i))
                    .unwrap_or(Expr::Unknown)
            }
            "array_creation_expression" => {
                let mut t = self
                    .field(n, self.ids.ty)
                    .map(|t| self.type_ref(t))
                    .unwrap_or_default();
                let mut c = n.walk();
                for k in n.children(&mut c) {
                    match k.kind() {
                        "dimensions_expr" => t.dims += 1,
                        "dimensions" => t.dims += dims_of(self.text(k)),
                        _ => {}
                    }
                }
                Expr::NewArray(Box::new(t))
            }
            "string_literal" => Expr::Str(unquote(self.text(n))),
            "character_literal" => Expr::Lit(Lit::Char),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                if self.text(n).ends_with(['l', 'L']) {
                    Expr::Lit(Lit::Long)
                } else {
                    Expr::Lit(Lit::Int)
                }
            }
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                if self.text(n).ends_with(['f', 'F']) {
                    Expr::Lit(Lit::Float)
                } else {
                    Expr::Lit(Lit::Double)
                }
            }
            "true" | "false" => Expr::Lit(Lit::Bool),
            "null_literal" => Expr::Lit(Lit::Null),
            "this" => Expr::This,
            "super" => Expr::Super,
            "parenthesized_expression" => n
                .named_child(0)
                .map(|c| self.expr(c, d))
                .unwrap_or(Expr::Unknown),
            "cast_expression" => self
                .field(n, self.ids.ty)
                .map(|t| Expr::Cast(Box::new(self.type_ref(t))))
                .unwrap_or(Expr::Unknown),
            "array_access" => self
                .field(n, self.ids.array)
                .map(|a| Expr::Index(Box::new(self.expr(a, d))))
                .unwrap_or(Expr::Unknown),
            "ternary_expression" => {
                let a = self
                    .field(n, self.ids.consequence)
                    .map(|x| self.expr(x, d))
                    .unwrap_or(Expr::Unknown);
                let b = self
                    .field(n, self.ids.alternative)
                    .map(|x| self.expr(x, d))
                    .unwrap_or(Expr::Unknown);
                Expr::Cond(Box::new(a), Box::new(b))
            }
            "binary_expression" => {
                let op = self
                    .field(n, self.ids.operator)
                    .map(|o| o.kind())
                    .unwrap_or("");
                match op {
                    "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>" | ">>>" => {
                        let l = self
                            .field(n, self.ids.left)
                            .map(|x| self.expr(x, d))
                            .unwrap_or(Expr::Unknown);
                        let r = self
                            .field(n, self.ids.right)
                            .map(|x| self.expr(x, d))
                            .unwrap_or(Expr::Unknown);
                        if op == "+" {
                            Expr::Plus(Box::new(l), Box::new(r))
                        } else if matches!(op, "&" | "|" | "^")
                            && (l == Expr::Bool || r == Expr::Bool)
                        {
                            Expr::Bool
                        } else {
                            Expr::Arith(Box::new(l), Box::new(r))
                        }
                    }
                    _ => Expr::Bool,
                }
            }
            "unary_expression" => {
                let op = self
                    .field(n, self.ids.operator)
                    .map(|o| o.kind())
                    .unwrap_or("");
                if op == "!" {
                    Expr::Bool
                } else {
                    let x = self
                        .field(n, self.ids.operand)
                        .map(|x| self.expr(x, d))
                        .unwrap_or(Expr::Unknown);
                    Expr::Arith(Box::new(x), Box::new(Expr::Lit(Lit::Int)))
                }
            }
            "update_expression" => n
                .named_child(0)
                .map(|x| Expr::Assign(Box::new(self.expr(x, d))))
                .unwrap_or(Expr::Unknown),
            "assignment_expression" => self
                .field(n, self.ids.left)
                .map(|x| Expr::Assign(Box::new(self.expr(x, d))))
                .unwrap_or(Expr::Unknown),
            "instanceof_expression" => Expr::Bool,
            "class_literal" => n
                .named_child(0)
                .map(|t| Expr::ClassLit(Box::new(self.type_ref(t))))
                .unwrap_or(Expr::Unknown),
            "lambda_expression" => {
                let arity = self
                    .field(n, self.ids.parameters)
                    .map(|p| {
                        if p.kind() == "identifier" {
                            1
                        } else {
                            p.named_child_count() as u8
                        }
                    })
                    .unwrap_or(0);
                Expr::Lambda(arity)
            }
            "method_reference" => {
                let _ = self.slot(n);
                Expr::MethodRef
            }
            _ => Expr::Opaque,
        }
    }
}

/// Whether a static field's initializer is worth keeping: a string constant or built from them.
pub(super) fn is_constant_expr(e: &Expr) -> bool {
    match e {
        Expr::Str(_) | Expr::Name(_) | Expr::Lit(_) => true,
        Expr::Field(q, _) => matches!(**q, Expr::Name(_) | Expr::Field(..)),
        Expr::Plus(a, b) => is_constant_expr(a) && is_constant_expr(b),
        _ => false,
    }
}

/// `[][]` → 2.
pub(super) fn dims_of(text: &str) -> u8 {
    text.bytes().filter(|&b| b == b'[').count() as u8
}

/// A type name as written without generics, annotations or whitespace (`Map . Entry` → `Map.Entry`).
pub(super) fn erase_name(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut angle = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '<' => angle += 1,
            '>' => angle = angle.saturating_sub(1),
            '@' if angle == 0 => {
                while chars
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
                {
                    chars.next();
                }
                // Annotation arguments.
                if chars.peek() == Some(&'(') {
                    let mut depth = 0;
                    for c in chars.by_ref() {
                        match c {
                            '(' => depth += 1,
                            ')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            _ if angle > 0 || c.is_whitespace() => {}
            _ => out.push(c),
        }
    }
    out
}

/// The value of a string literal or text block (common escapes decoded).
pub(crate) fn unquote(lit: &str) -> String {
    let body = if let Some(b) = lit.strip_prefix("\"\"\"") {
        let b = b.strip_suffix("\"\"\"").unwrap_or(b);
        // A text block starts after the line terminator that follows the opening quotes.
        let b = b.split_once('\n').map_or(b, |(_, rest)| rest);
        return text_block(b);
    } else {
        let b = lit.strip_prefix('"').unwrap_or(lit);
        b.strip_suffix('"').unwrap_or(b)
    };
    unescape(body)
}

pub(super) fn text_block(body: &str) -> String {
    let lines: Vec<&str> = body.lines().collect();
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(l.get(indent..).unwrap_or("").trim_end());
    }
    unescape(&out)
}

pub(super) fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}
