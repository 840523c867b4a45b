//! What a call's site says about it ([`CallSite`]): the names of its receiver chain, where its
//! value goes, and whether it hands on the caller's parameters or locals. Read from the file's
//! facts alone, so a flow can be followed without reading the caller's text.

use crate::graph::edge::{CallSite, SITE_ARGUMENT, SITE_LOCAL, SITE_PARAM, SITE_RETURNED};
use crate::graph::facts::{Call, CallRole, Caller, Expr, JavaFacts};

/// Expressions nested deeper than this are not looked into (the extractor caps them too).
const MAX_DEPTH: u32 = 16;

/// The site of `call`, one of `j`'s calls.
pub fn call_site(j: &JavaFacts, call: &Call) -> CallSite {
    let mut receiver = Vec::new();
    if let Some(r) = &call.recv {
        receiver_names(j, r, &mut receiver, 0);
    }
    let mut flags = match call.role {
        CallRole::Returned => SITE_RETURNED,
        CallRole::Argument => SITE_ARGUMENT,
        CallRole::Other => 0,
    };
    let params: &[u32] = match call.caller {
        Caller::Method(t, m) => j
            .types
            .get(t as usize)
            .and_then(|t| t.methods.get(m as usize))
            .map_or(&[], |m| m.params.as_slice()),
        Caller::Init(..) => &[],
    };
    let mut in_args = Vec::new();
    for a in &call.args {
        locals_used(j, a, &mut in_args, 0);
    }
    // A lambda's parameter is no value the caller made.
    let made = |i: &u32| {
        !params.contains(i)
            && j.locals
                .get(*i as usize)
                .is_some_and(|l| l.lambda.is_none())
    };
    if in_args.iter().any(made) {
        flags |= SITE_LOCAL;
    }
    let mut used = in_args;
    if let Some(r) = &call.recv {
        locals_used(j, r, &mut used, 0);
    }
    if used.iter().any(|i| params.contains(i)) {
        flags |= SITE_PARAM;
    }
    CallSite { receiver, flags }
}

/// The names a receiver is written with, outermost first (`a.b(x).c` → `a`, `b`, `c`).
fn receiver_names(j: &JavaFacts, e: &Expr, out: &mut Vec<String>, depth: u32) {
    if depth > MAX_DEPTH {
        return;
    }
    match e {
        Expr::Var(i) => out.extend(j.locals.get(*i as usize).map(|l| l.name.clone())),
        Expr::Name(n) => out.push(n.clone()),
        Expr::Field(q, n) => {
            receiver_names(j, q, out, depth + 1);
            if n != "super" {
                out.push(n.clone());
            }
        }
        // A creation's name is its type's.
        Expr::Call(k) | Expr::New(_, k) => {
            if let Some(c) = j.calls.get(*k as usize) {
                if let Some(r) = &c.recv {
                    receiver_names(j, r, out, depth + 1);
                }
                out.push(c.name.clone());
            }
        }
        Expr::Index(a) => receiver_names(j, a, out, depth + 1),
        _ => {}
    }
}

/// The locals and parameters (indices into [`JavaFacts::locals`]) an expression uses, calls'
/// receivers and arguments within it included.
fn locals_used(j: &JavaFacts, e: &Expr, out: &mut Vec<u32>, depth: u32) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut go = |e: &Expr| locals_used(j, e, out, depth + 1);
    match e {
        Expr::Var(i) => out.push(*i),
        Expr::Field(q, _) | Expr::Index(q) | Expr::Assign(q) => go(q),
        Expr::Cond(a, b) | Expr::Plus(a, b) | Expr::Arith(a, b) => {
            go(a);
            go(b);
        }
        Expr::Call(k) | Expr::New(_, k) => {
            if let Some(c) = j.calls.get(*k as usize) {
                c.recv.iter().chain(&c.args).for_each(go);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
