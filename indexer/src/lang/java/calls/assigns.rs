//! Assignments as graph facts: `x = v` where `v` may name a constant, so the resolver can tell
//! which methods set a field to an enum constant.

use super::*;

impl Walker<'_, '_> {
    /// `x = v` in code, kept when `v` may name a constant (a name, a field access, or a call on
    /// one such as `Status.PAID.getCode()`): what sets a status field.
    pub(super) fn assignment(&mut self, node: Node<'_>) {
        let Some((caller, ctx, _)) = self.context() else {
            return;
        };
        let op = self.field(node, self.ids.operator);
        if op.is_none_or(|o| o.kind() != "=") {
            return;
        }
        let (Some(left), Some(right)) = (
            self.field(node, self.ids.left),
            self.field(node, self.ids.right),
        ) else {
            return;
        };
        if !matches!(
            right.kind(),
            "identifier" | "field_access" | "method_invocation"
        ) {
            return;
        }
        let value = self.expr(right, 0);
        if !matches!(value, Expr::Name(_) | Expr::Field(..) | Expr::Call(_)) {
            return;
        }
        let target = self.expr(left, 0);
        let line = op.map_or(Self::line(node), Self::line);
        self.facts.assigns.push(Assign {
            target,
            value,
            caller,
            ctx,
            line,
        });
    }
}
