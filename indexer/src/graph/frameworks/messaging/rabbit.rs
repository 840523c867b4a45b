//! RabbitMQ topology declared in `@Bean` methods: queues (with dead-letter settings),
//! exchanges and bindings from `new Queue(..)`, `QueueBuilder`, `ExchangeBuilder` and
//! `BindingBuilder` chains, resolved through bean references.

use super::*;
use crate::graph::Files;

/// Queue, exchange and binding declarations (`new Queue(..)`, `QueueBuilder`, `BindingBuilder`).
pub(super) fn declare(
    r: &mut FileResolver<'_>,
    i: usize,
    topology: &mut Topology,
    fw: &mut FileFw,
) {
    let call = &r.j.calls[i];
    let name = call.name.as_str();
    match call.kind {
        CallKind::New => {
            let ty = call
                .ty
                .as_ref()
                .map(|t| t.name.rsplit('.').next().unwrap_or(""));
            match ty {
                Some("Queue") => {
                    if let Some(qname) = arg_const(r, i, 0) {
                        let bean = bean_of(r, i);
                        let key = bean.as_ref().map(|b| b.0.clone()).unwrap_or(qname.clone());
                        let q = topology.queues.entry(key).or_default();
                        q.bean = bean.map(|b| b.1);
                        q.name = qname;
                    }
                }
                Some(
                    x @ ("DirectExchange" | "TopicExchange" | "FanoutExchange" | "HeadersExchange"
                    | "CustomExchange"),
                ) => {
                    if let Some(xname) = arg_const(r, i, 0) {
                        let topic = x == "TopicExchange";
                        let fanout = x == "FanoutExchange";
                        fw.exchanges.push(RabbitExchange {
                            bean: bean_of(r, i).map(|b| b.1),
                            name: xname,
                            topic,
                            fanout,
                        });
                    }
                }
                _ => {}
            }
            return;
        }
        CallKind::Method => {}
        _ => return,
    }
    match name {
        "durable" | "nonDurable" => {
            if recv_type(r, i).as_deref() == Some("QueueBuilder")
                && let Some(qname) = arg_const(r, i, 0)
            {
                let bean = bean_of(r, i);
                let key = bean.as_ref().map(|b| b.0.clone()).unwrap_or(qname.clone());
                let q = topology.queues.entry(key).or_default();
                q.bean = bean.map(|b| b.1);
                q.name = qname;
            }
        }
        "directExchange" | "topicExchange" | "fanoutExchange" => {
            if recv_type(r, i).as_deref() == Some("ExchangeBuilder")
                && let Some(xname) = arg_const(r, i, 0)
            {
                fw.exchanges.push(RabbitExchange {
                    bean: bean_of(r, i).map(|b| b.1),
                    name: xname,
                    topic: name == "topicExchange",
                    fanout: name == "fanoutExchange",
                });
            }
        }
        "put" | "withArgument" | "deadLetterExchange" | "deadLetterRoutingKey" => {
            let (k, v) = match name {
                "deadLetterExchange" => (
                    Some("x-dead-letter-exchange".to_string()),
                    arg_const(r, i, 0),
                ),
                "deadLetterRoutingKey" => (
                    Some("x-dead-letter-routing-key".to_string()),
                    arg_const(r, i, 0),
                ),
                _ => (arg_const(r, i, 0), arg_const(r, i, 1)),
            };
            let (Some(k), Some(v)) = (k, v) else { return };
            if !k.starts_with("x-dead-letter-") {
                return;
            }
            let Some(bean) = bean_of(r, i) else { return };
            let q = topology.queues.entry(bean.0).or_default();
            q.bean = Some(bean.1);
            if k == "x-dead-letter-exchange" {
                q.dlx = Some(v);
            } else if k == "x-dead-letter-routing-key" {
                q.dlk = Some(v);
            }
        }
        // `BindingBuilder.bind(q).to(x)[.with(k)]`: read the chain from its last link.
        "with" | "to" if name == "with" || !is_chained_into(r.j, i, "with") => {
            if let Some(b) = binding(r, i) {
                fw.bindings.push(b);
            }
        }
        _ => {}
    }
}

/// `@RabbitListener` keys: queues, declared queues and bindings.
pub(super) fn rabbit_keys(
    t: &TypeTable,
    files: Files<'_>,
    a: &Annotation,
    sc: &Scope<'_>,
) -> Vec<ListenKey> {
    let mut out: Vec<ListenKey> = ann_attr(t, files, a, &["queues", "value"], sc)
        .into_iter()
        .map(ListenKey::RabbitQueue)
        .collect();
    let nested = |v: &AnnValue| -> Vec<Annotation> {
        match v {
            AnnValue::Nested(n) => vec![n.clone()],
            AnnValue::Array(items) => items
                .iter()
                .filter_map(|i| match i {
                    AnnValue::Nested(n) => Some(n.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    if let Some(v) = a.arg("queuesToDeclare") {
        for q in nested(v) {
            for name in ann_attr(t, files, &q, &["name", "value"], sc) {
                out.push(ListenKey::RabbitQueue(name));
            }
        }
    }
    if let Some(v) = a.arg("bindings") {
        for b in nested(v) {
            let queue = b
                .arg("value")
                .map(nested)
                .unwrap_or_default()
                .first()
                .map(|q| ann_attr(t, files, q, &["name", "value"], sc))
                .and_then(|v| v.into_iter().next())
                .unwrap_or_default();
            let exchange = b
                .arg("exchange")
                .map(nested)
                .unwrap_or_default()
                .first()
                .map(|x| ann_attr(t, files, x, &["name", "value"], sc))
                .and_then(|v| v.into_iter().next())
                .unwrap_or_default();
            let keys = ann_attr(t, files, &b, &["key"], sc);
            out.push(ListenKey::RabbitBinding(queue, exchange, keys));
        }
    }
    out
}

/// The bean method (`@Bean`) a call sits in: its id and bean name.
fn bean_of(r: &FileResolver<'_>, i: usize) -> Option<(String, String)> {
    let Caller::Method(t, m) = r.j.calls[i].caller else {
        return None;
    };
    let m = r.j.types.get(t as usize)?.methods.get(m as usize)?;
    let a = ann(&m.annotations, "Bean")?;
    let sc = Scope {
        file: r.fi,
        lex: r.type_id(t),
        method_tparams: &[],
    };
    let name = ann_attr(r.table, r.files, a, &["name", "value"], &sc)
        .into_iter()
        .next()
        .unwrap_or_else(|| m.name.clone());
    Some((m.id.clone(), name))
}

/// Whether call `i` is the receiver of a later `name` call (`to(..)` followed by `.with(..)`).
fn is_chained_into(j: &JavaFacts, i: usize, name: &str) -> bool {
    j.calls
        .iter()
        .any(|c| c.name == name && c.recv == Some(Expr::Call(i as u32)))
}

/// A binding read back from its last link (`with` or `to`).
fn binding(r: &mut FileResolver<'_>, last: usize) -> Option<RabbitBinding> {
    let j = r.j;
    let (to_i, key) = if j.calls[last].name == "with" {
        let Some(Expr::Call(to)) = &j.calls[last].recv else {
            return None;
        };
        (*to as usize, arg_const(r, last, 0))
    } else {
        (last, None)
    };
    let to = j.calls.get(to_i)?;
    if to.name != "to" {
        return None;
    }
    let Some(Expr::Call(bind_i)) = &to.recv else {
        return None;
    };
    let bind = j.calls.get(*bind_i as usize)?;
    if bind.name != "bind" {
        return None;
    }
    let queue = bean_ref(r, *bind_i as usize, 0)?;
    let exchange = bean_ref(r, to_i, 0)?;
    Some(RabbitBinding {
        queue,
        exchange,
        key,
    })
}

/// What argument `k` of call `i` designates: a bean (by `@Bean` method or parameter name) or a
/// literal name (`new Queue("q")` inline, a constant).
fn bean_ref(r: &mut FileResolver<'_>, i: usize, k: usize) -> Option<Ref> {
    let call = &r.j.calls[i];
    match call.args.get(k)? {
        Expr::Call(c) => {
            let c = *c as usize;
            match r.call(c as u32).target {
                Target::Method { ty, idx, .. } => {
                    let m = &r.table.types[ty as usize].methods[idx];
                    Some(Ref::Bean(m.name.clone()))
                }
                _ => None,
            }
        }
        Expr::Var(v) => local_name(r.j, *v).map(Ref::Bean),
        Expr::New(..) => {
            // The inline creation is the call with this line and a name argument.
            let line = call.line;
            (0..r.j.calls.len())
                .find(|&c| {
                    r.j.calls[c].kind == CallKind::New && r.j.calls[c].line == line && c != i
                })
                .and_then(|c| arg_const(r, c, 0))
                .map(Ref::Name)
        }
        e => {
            let sc = r.scope_of(call);
            const_str(r.table, r.files, e, &sc, 0).map(Ref::Name)
        }
    }
}

/// The declared name of local `v` (a `@Bean` method's parameter is injected by that name).
fn local_name(j: &JavaFacts, v: u32) -> Option<String> {
    let l = j.locals.get(v as usize)?;
    (!l.name.is_empty()).then(|| l.name.clone())
}
