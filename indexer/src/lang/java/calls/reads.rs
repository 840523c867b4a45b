//! Reads as graph facts: names and field accesses in code that may read a field or constant
//! (`FOO`, `Type.FOO`, `this.foo`, `a.b.c`, `case PAID`). Locals are left out (the walk binds
//! them), and so is the target of a plain `=`; what a name means is the resolver's business.
//!
//! Kept small: a chain `a.b.c` is one read (the resolver also reads `a` and `a.b` from it), and a
//! caller repeating a read adds nothing (the resolver keeps one edge per caller and field).

use super::*;
use crate::graph::facts::{AnnValue, Annotation};

/// Where an identifier stands in its parent, as far as reading goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pos {
    /// Not an expression: declared names, labels, parameters, invoked method names, the parts
    /// of a field access (the access as a whole is the read).
    Never,
    /// Always an expression: operands, arguments, initializer elements, returned values.
    Always,
    /// An expression after a token only: the value after `=` (declarator, annotation pair),
    /// `->` (lambda body), `:` (for-each), `default` (annotation element).
    AfterToken,
    /// `x op v`: the value, and the target unless `op` is a plain `=`.
    Assign,
    /// The qualifier of a method invocation or method reference, not its name.
    Qualifier,
    /// `x instanceof T t`: the left side.
    First,
    /// A try resource: a name on its own, or a declaration's value.
    Resource,
    /// A `case` label.
    Label,
}

/// The position of an identifier child of a node of kind `parent`.
pub(super) fn pos(parent: &str) -> Pos {
    match parent {
        "binary_expression"
        | "unary_expression"
        | "update_expression"
        | "parenthesized_expression"
        | "cast_expression"
        | "ternary_expression"
        | "array_access"
        | "argument_list"
        | "array_initializer"
        | "element_value_array_initializer"
        | "annotation_argument_list"
        | "assert_statement"
        | "dimensions_expr"
        | "expression_statement"
        | "return_statement"
        | "throw_statement"
        | "yield_statement"
        | "guard"
        | "template_expression"
        | "string_interpolation"
        | "for_statement"
        | "explicit_constructor_invocation"
        | "object_creation_expression" => Pos::Always,
        "variable_declarator"
        | "element_value_pair"
        | "lambda_expression"
        | "enhanced_for_statement"
        | "annotation_type_element_declaration" => Pos::AfterToken,
        "assignment_expression" => Pos::Assign,
        "method_invocation" | "method_reference" => Pos::Qualifier,
        "instanceof_expression" => Pos::First,
        "resource" => Pos::Resource,
        "switch_label" => Pos::Label,
        _ => Pos::Never,
    }
}

/// What makes a read a repeat: caller, `this` type, qualifier and text, and the local a
/// field access starts from ([`NO_LOCAL`] if none; [`LABEL`] for a `case` label, whose
/// qualifier is the switch's selector).
pub(super) type ReadKey<'s> = (Caller, u32, &'s str, &'s str, u32);

const NO_LOCAL: u32 = u32::MAX;
const LABEL: u32 = u32::MAX - 1;

impl<'s> Walker<'s, '_> {
    /// An identifier: a read when it stands as an expression and is not a local.
    pub(super) fn ident(&mut self, node: Node<'_>, path: &[Node<'_>], previous: Option<Node<'_>>) {
        let Some(&parent) = path.last() else {
            return;
        };
        let pos = self
            .ids
            .pos
            .get(parent.kind_id() as usize)
            .copied()
            .unwrap_or(Pos::Never);
        // A token before the node (`=`, `->`, `:`), not a type before a declared name.
        let after_token = previous.is_some_and(|p| !p.is_named());
        let read = match pos {
            Pos::Never => false,
            Pos::Always => true,
            Pos::AfterToken => after_token,
            Pos::Assign => previous.is_some() || !self.plain_assign(parent),
            Pos::Qualifier => previous.is_none() && !self.is_field(parent, self.ids.name, node),
            Pos::First => previous.is_none(),
            Pos::Resource => !self.is_field(parent, self.ids.name, node),
            Pos::Label => {
                self.label_read(node, path);
                return;
            }
        };
        if read {
            self.name_read(node);
        }
    }

    /// A field access: a read, except as the target of a plain `=` (whose qualifier is still
    /// read) and as the qualifier of a longer access (which stands for it).
    pub(super) fn field_access(
        &mut self,
        node: Node<'_>,
        path: &[Node<'_>],
        previous: Option<Node<'_>>,
    ) {
        let Some(&parent) = path.last() else {
            return;
        };
        match kind(parent) {
            N::FieldAccess => {}
            N::Assign if previous.is_none() && self.plain_assign(parent) => {
                match self.field(node, self.ids.object) {
                    Some(o) if kind(o) == N::Ident => self.name_read(o),
                    Some(o) if kind(o) == N::FieldAccess => self.access_read(o),
                    _ => {}
                }
            }
            _ => self.access_read(node),
        }
    }

    /// `node` is the child in field `field` of `parent`.
    fn is_field(&self, parent: Node<'_>, field: u16, node: Node<'_>) -> bool {
        self.field(parent, field)
            .is_some_and(|f| f.id() == node.id())
    }

    /// An assignment with a plain `=` (a write, not a read, of its target).
    fn plain_assign(&self, node: Node<'_>) -> bool {
        self.field(node, self.ids.operator)
            .is_some_and(|o| o.kind() == "=")
    }

    fn name_read(&mut self, node: Node<'_>) {
        let text = self.text(node);
        if self.lookup(text).is_some() {
            return;
        }
        let Some((caller, ctx, _)) = self.context() else {
            return;
        };
        if !self.reads_seen.insert((caller, ctx, "", text, NO_LOCAL)) {
            return;
        }
        self.facts.reads.push(Read {
            expr: Expr::Name(text.to_string()),
            selector: None,
            caller,
            ctx,
            line: Self::line(node),
        });
    }

    fn access_read(&mut self, node: Node<'_>) {
        // `Outer.this` reads nothing.
        let Some(name) = self
            .field(node, self.ids.field)
            .filter(|f| kind(*f) == N::Ident)
        else {
            return;
        };
        let Some((caller, ctx, _)) = self.context() else {
            return;
        };
        let key = (caller, ctx, "", self.text(node), self.base_local(node));
        if !self.reads_seen.insert(key) {
            return;
        }
        let expr = self.expr(node, 0);
        if matches!(expr, Expr::Field(..)) {
            self.facts.reads.push(Read {
                expr,
                selector: None,
                caller,
                ctx,
                line: Self::line(name),
            });
        }
    }

    /// The local a chain of field accesses starts from: `x.a.b` with `x` a local is not the
    /// same read in another scope.
    fn base_local(&self, mut n: Node<'_>) -> u32 {
        while kind(n) == N::FieldAccess {
            match self.field(n, self.ids.object) {
                Some(o) => n = o,
                None => return NO_LOCAL,
            }
        }
        if kind(n) == N::Ident {
            self.lookup(self.text(n)).unwrap_or(NO_LOCAL)
        } else {
            NO_LOCAL
        }
    }

    /// `case PAID`: a constant of the selector's type (an enum's, written unqualified), or a
    /// constant in scope (`case MAX` switching on an int).
    fn label_read(&mut self, node: Node<'_>, path: &[Node<'_>]) {
        let text = self.text(node);
        if self.lookup(text).is_some() {
            return;
        }
        let Some((caller, ctx, _)) = self.context() else {
            return;
        };
        // switch_label < switch_rule | switch_block_statement_group < switch_block < switch.
        let selector = path
            .len()
            .checked_sub(4)
            .and_then(|i| self.field(path[i], self.ids.condition))
            .and_then(|c| c.named_child(0));
        let qualifier = selector.map_or("", |s| self.text(s));
        if !self
            .reads_seen
            .insert((caller, ctx, qualifier, text, LABEL))
        {
            return;
        }
        let selector = selector.map(|s| self.expr(s, 0));
        self.facts.reads.push(Read {
            expr: Expr::Name(text.to_string()),
            selector,
            caller,
            ctx,
            line: Self::line(node),
        });
    }
}

impl Walker<'_, '_> {
    /// Reads in the arguments of a declaration's annotations (`@KafkaListener(topics =
    /// Topics.ORDER)`, `@Value(KEY)`), attributed to `caller` at each annotation's line.
    pub(super) fn annotation_reads(
        &mut self,
        annotations: &[Annotation],
        caller: Caller,
        ctx: u32,
    ) {
        for a in annotations {
            for (_, value) in &a.args {
                self.value_reads(value, caller, ctx, a.line);
            }
        }
    }

    fn value_reads(&mut self, value: &AnnValue, caller: Caller, ctx: u32, line: u32) {
        match value {
            AnnValue::Expr(e) => self.expr_reads(e, caller, ctx, line),
            AnnValue::Array(vs) => {
                for v in vs {
                    self.value_reads(v, caller, ctx, line);
                }
            }
            AnnValue::Nested(a) => {
                for (_, v) in &a.args {
                    self.value_reads(v, caller, ctx, a.line);
                }
            }
        }
    }

    /// The names and field accesses of a constant expression (`A + B.C`).
    fn expr_reads(&mut self, e: &Expr, caller: Caller, ctx: u32, line: u32) {
        match e {
            Expr::Name(_) | Expr::Field(..) => self.facts.reads.push(Read {
                expr: e.clone(),
                selector: None,
                caller,
                ctx,
                line,
            }),
            Expr::Plus(a, b) | Expr::Arith(a, b) | Expr::Cond(a, b) => {
                self.expr_reads(a, caller, ctx, line);
                self.expr_reads(b, caller, ctx, line);
            }
            _ => {}
        }
    }
}
