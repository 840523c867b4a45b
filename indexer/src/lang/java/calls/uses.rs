//! Call sites as graph facts: method calls, creations (anonymous classes included),
//! `super(..)`/`this(..)`, method references; each with its receiver, arguments, caller and
//! line.

use super::*;

impl Walker<'_, '_> {
    /// The call index for `node`, handed out once (to an expression that uses its value, or to
    /// the walk when it reaches the call).
    pub(super) fn slot(&mut self, node: Node<'_>) -> u32 {
        if let Some(&i) = self.slots.get(&node.id()) {
            return i;
        }
        let i = self.facts.calls.len() as u32;
        self.facts.calls.push(Call {
            kind: CallKind::Method,
            name: String::new(),
            recv: None,
            ty: None,
            args: Vec::new(),
            caller: Caller::Init(0, false),
            ctx: 0,
            is_static_ctx: false,
            line: 0,
            anon: None,
            role: CallRole::Other,
        });
        self.slots.insert(node.id(), i);
        i
    }

    pub(super) fn put_call(&mut self, node: Node<'_>, call: Call) {
        let i = self.slot(node);
        self.facts.calls[i as usize] = call;
    }

    /// Records what the value of the call at `node` (if one was recorded) is part of: the
    /// expression above it up to its statement (`path`: the node's ancestors, outermost first).
    pub(super) fn set_role(&mut self, node: Node<'_>, path: &[Node<'_>]) {
        let Some(&i) = self.slots.get(&node.id()) else {
            return;
        };
        let mut role = CallRole::Other;
        if path.last().is_some_and(|p| p.kind() == "return_statement") {
            role = CallRole::Returned;
        } else {
            for a in path.iter().rev() {
                match a.kind() {
                    "argument_list" => {
                        role = CallRole::Argument;
                        break;
                    }
                    k if ends_expression(k) => break,
                    _ => {}
                }
            }
        }
        if let Some(c) = self.facts.calls.get_mut(i as usize) {
            c.role = role;
        }
    }

    pub(super) fn invocation(&mut self, node: Node<'_>) {
        let Some((caller, ctx, is_static_ctx)) = self.context() else {
            return;
        };
        // One pass over the children: object, name, arguments, and a `super` after the object
        // (`A.super.m()`).
        let (mut object, mut name, mut arg_list, mut qualified_super) = (None, None, None, false);
        let mut c = node.walk();
        if c.goto_first_child() {
            loop {
                let n = c.node();
                match c.field_id().map(|f| f.get()) {
                    Some(f) if f == self.ids.object => object = Some(n),
                    Some(f) if f == self.ids.name => name = Some(n),
                    Some(f) if f == self.ids.arguments => arg_list = Some(n),
                    _ if object.is_some() && n.kind() == "super" => qualified_super = true,
                    _ => {}
                }
                if !c.goto_next_sibling() {
                    break;
                }
            }
        }
        let Some(name) = name else {
            return;
        };
        let recv = object.map(|o| {
            if qualified_super {
                Expr::Field(Box::new(self.expr(o, 0)), "super".into())
            } else {
                self.expr(o, 0)
            }
        });
        let args = match arg_list {
            Some(list) => {
                let slot = self.slot(node);
                self.call_args(list, slot)
            }
            None => Vec::new(),
        };
        let call = Call {
            kind: CallKind::Method,
            name: self.text(name).to_string(),
            recv,
            ty: None,
            args,
            caller,
            ctx,
            is_static_ctx,
            line: Self::line(name),
            anon: None,
            role: CallRole::Other,
        };
        self.put_call(node, call);
    }

    pub(super) fn creation(&mut self, node: Node<'_>) {
        let Some((caller, ctx, is_static_ctx)) = self.context() else {
            return;
        };
        let Some(tn) = self.field(node, self.ids.ty) else {
            return;
        };
        let ty = self.type_ref(tn);
        let mut c = node.walk();
        let kids: Vec<Node<'_>> = node.children(&mut c).collect();
        let new_tok = kids.iter().find(|k| k.kind() == "new").copied();
        let line = Self::line(new_tok.unwrap_or(node));
        // `outer.new Inner()`: an expression before `new`.
        let recv = kids
            .first()
            .filter(|k| k.is_named() && Some(**k) != Some(tn) && k.kind() != "new")
            .filter(|k| new_tok.is_some_and(|n| k.end_byte() <= n.start_byte()))
            .map(|k| self.expr(*k, 0));
        let arg_list = self.field(node, self.ids.arguments);
        let args = match arg_list {
            Some(list) => {
                let slot = self.slot(node);
                self.call_args(list, slot)
            }
            None => Vec::new(),
        };
        let body = kids.last().filter(|k| kind(**k) == N::ClassBody).copied();
        let anon = body.map(|_| {
            let sym_line = Self::line(tn);
            let sym = self.anon_symbol(sym_line);
            self.anonymous_type(ty.clone(), sym_line, ctx, sym)
        });
        let call = Call {
            kind: CallKind::New,
            name: ty.name.rsplit('.').next().unwrap_or_default().to_string(),
            recv,
            ty: Some(Box::new(ty)),
            args,
            caller,
            ctx,
            is_static_ctx,
            line,
            anon,
            role: CallRole::Other,
        };
        self.put_call(node, call);
        if let (Some(a), Some(body)) = (anon, body) {
            // Members of the anonymous class: `this` is the new class, calls belong to the holder.
            self.pending.push((
                body.id(),
                Frame::Type {
                    depth: 0,
                    ty: a,
                    caller,
                },
            ));
        }
    }

    /// The anonymous class symbol (`Outer.N`) whose name token is on `line`.
    pub(super) fn anon_symbol(&mut self, line: u32) -> Option<usize> {
        let i = (0..self.symbols.len()).find(|&i| {
            let s = &self.symbols[i];
            !self.used[i]
                && s.name_line == line
                && s.kind == SymbolKind::Class
                && s.name.bytes().all(|b| b.is_ascii_digit())
        })?;
        self.used[i] = true;
        Some(i)
    }

    pub(super) fn ctor_call(&mut self, node: Node<'_>) {
        let Some((caller, ctx, _)) = self.context() else {
            return;
        };
        let Some(tok) = self.field(node, self.ids.constructor) else {
            return;
        };
        let is_super = tok.kind() == "super";
        let recv = self.field(node, self.ids.object).map(|o| self.expr(o, 0));
        let arg_list = self.field(node, self.ids.arguments);
        let args = match arg_list {
            Some(list) => {
                let slot = self.slot(node);
                self.call_args(list, slot)
            }
            None => Vec::new(),
        };
        let call = Call {
            kind: if is_super {
                CallKind::SuperCtor
            } else {
                CallKind::ThisCtor
            },
            name: if is_super { "super" } else { "this" }.into(),
            recv,
            ty: None,
            args,
            caller,
            ctx,
            is_static_ctx: false,
            line: Self::line(tok),
            anon: None,
            role: CallRole::Other,
        };
        self.put_call(node, call);
    }

    pub(super) fn method_ref(&mut self, node: Node<'_>) {
        let Some((caller, ctx, is_static_ctx)) = self.context() else {
            return;
        };
        let mut c = node.walk();
        let kids: Vec<Node<'_>> = node.children(&mut c).collect();
        let Some(colons) = kids.iter().position(|k| k.kind() == "::") else {
            return;
        };
        let Some(name) = kids[colons + 1..]
            .iter()
            .find(|k| k.kind() == "identifier" || k.kind() == "new")
        else {
            return;
        };
        let Some(first) = kids.first() else { return };
        let (recv, ty) = match first.kind() {
            "identifier"
            | "field_access"
            | "this"
            | "super"
            | "method_invocation"
            | "parenthesized_expression"
            | "array_access"
            | "object_creation_expression"
            | "scoped_identifier" => (Some(self.expr(*first, 0)), None),
            _ => (None, Some(Box::new(self.type_ref(*first)))),
        };
        let n = self.text(*name).to_string();
        let call = Call {
            kind: CallKind::MethodRef,
            name: n,
            recv,
            ty,
            args: Vec::new(),
            caller,
            ctx,
            is_static_ctx,
            line: Self::line(*name),
            anon: None,
            role: CallRole::Other,
        };
        self.put_call(node, call);
    }

    pub(super) fn args(&mut self, list: Node<'_>) -> Vec<Expr> {
        let mut c = list.walk();
        let kids: Vec<Node<'_>> = list
            .named_children(&mut c)
            .filter(|n| !n.is_extra())
            .collect();
        kids.into_iter().map(|a| self.expr(a, 0)).collect()
    }

    /// A call's arguments; lambdas among them are noted (their parameters are typed from call
    /// `call`).
    pub(super) fn call_args(&mut self, list: Node<'_>, call: u32) -> Vec<Expr> {
        let mut c = list.walk();
        let kids: Vec<Node<'_>> = list
            .named_children(&mut c)
            .filter(|n| !n.is_extra())
            .collect();
        let mut out = Vec::with_capacity(kids.len());
        for (i, a) in kids.into_iter().enumerate() {
            if kind(a) == N::Lambda {
                self.lambdas.insert(
                    a.id(),
                    LambdaParam::Arg {
                        call,
                        arg: i as u8,
                        param: 0,
                    },
                );
            }
            out.push(self.expr(a, 0));
        }
        out
    }
}

/// Node kinds an expression does not reach past: statements, blocks, declarations, lambdas
/// (whose body is code of its own) and class bodies.
fn ends_expression(kind: &str) -> bool {
    kind.ends_with("_statement")
        || kind.ends_with("_declaration")
        || matches!(
            kind,
            "block" | "lambda_expression" | "class_body" | "switch_block" | "switch_rule"
        )
}
