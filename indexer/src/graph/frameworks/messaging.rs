//! Messages and events: RabbitMQ (senders through exchanges, routing keys, bindings and
//! dead-letter exchanges to `@RabbitListener` queues), Kafka topics, RocketMQ topics and tags,
//! Spring application events (`publishEvent` → `@EventListener`, `ApplicationListener<E>`).

use super::consts::{ann_attr, class_lits, const_str};
use super::{At, FileFw, TypeCx, ann, caller_at, edge, has_any};
use crate::graph::Files;
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{AnnValue, Annotation, CallKind, Caller, Expr, JavaFacts};
use crate::graph::resolve::{FileResolver, Target, Val};
use crate::graph::types::{Scope, Ty, TypeId, TypeTable};
use std::collections::{BTreeMap, HashSet};

mod rabbit;
use rabbit::{declare, rabbit_keys};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum ListenKey {
    RabbitQueue(String),
    /// `@QueueBinding`: queue, exchange, routing keys.
    RabbitBinding(String, String, Vec<String>),
    Kafka(String),
    /// Topic and tags (`*` for all).
    Rocket(String, Vec<String>),
    /// Event type.
    Event(TypeId),
}

#[derive(Debug, Clone)]
pub(super) struct Listener {
    method: At,
    key: ListenKey,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum SendKey {
    Rabbit { exchange: String, key: String },
    Kafka(String),
    Rocket { topic: String, tag: Option<String> },
    Event(TypeId),
}

#[derive(Debug, Clone)]
pub(super) struct Send {
    from: At,
    key: SendKey,
}

#[derive(Debug, Clone)]
pub(super) enum Ref {
    Bean(String),
    Name(String),
}

#[derive(Debug, Clone, Default)]
pub(super) struct RabbitQueue {
    bean: Option<String>,
    name: String,
    dlx: Option<String>,
    dlk: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct RabbitExchange {
    bean: Option<String>,
    name: String,
    topic: bool,
    fanout: bool,
}

#[derive(Debug, Clone)]
pub(super) struct RabbitBinding {
    queue: Ref,
    exchange: Ref,
    key: Option<String>,
}

/// Queue declarations of one file, by the `@Bean` method that declares them (their name and
/// dead-letter arguments come from separate calls).
#[derive(Default)]
pub(super) struct Topology {
    queues: BTreeMap<String, RabbitQueue>,
}

impl Topology {
    pub(super) fn finish(self, fw: &mut FileFw) {
        fw.queues
            .extend(self.queues.into_values().filter(|q| !q.name.is_empty()));
    }
}

/// Listeners declared by one type's methods (and class-level listener annotations).
pub(super) fn collect_type(cx: &TypeCx<'_>, fw: &mut FileFw) {
    let (t, files, j, d, sc) = (cx.t, cx.files, cx.j, cx.d, &cx.sc);
    let class_rabbit = ann(&d.annotations, "RabbitListener");
    let class_kafka = ann(&d.annotations, "KafkaListener");
    for (mi, m) in d.methods.iter().enumerate() {
        let rabbit = ann(&m.annotations, "RabbitListener").or(
            if has_any(&m.annotations, &["RabbitHandler"]) {
                class_rabbit
            } else {
                None
            },
        );
        if let Some(a) = rabbit {
            for key in rabbit_keys(t, files, a, sc) {
                fw.listeners.push(Listener {
                    method: cx.at(mi),
                    key,
                });
            }
        }
        let kafka = ann(&m.annotations, "KafkaListener").or(
            if has_any(&m.annotations, &["KafkaHandler"]) {
                class_kafka
            } else {
                None
            },
        );
        if let Some(a) = kafka {
            for topic in cx.attr(a, &["topics", "value"]) {
                fw.listeners.push(Listener {
                    method: cx.at(mi),
                    key: ListenKey::Kafka(topic),
                });
            }
        }
        if let Some(a) = m
            .annotations
            .iter()
            .find(|a| matches!(a.simple(), "EventListener" | "TransactionalEventListener"))
        {
            let mut types: Vec<TypeId> = Vec::new();
            for k in ["classes", "value"] {
                if let Some(v) = a.arg(k) {
                    class_lits(v, &mut |tr| {
                        if let Ty::Class(id, _) = t.resolve_ref(tr, sc) {
                            types.push(id);
                        }
                    });
                }
            }
            if types.is_empty()
                && let Some(&p) = m.params.first()
                && let Some(tr) = j.locals.get(p as usize).and_then(|l| l.ty.as_ref())
                && let Ty::Class(id, _) = t.resolve_ref(tr, sc)
            {
                types.push(id);
            }
            for ty in types {
                fw.listeners.push(Listener {
                    method: cx.at(mi),
                    key: ListenKey::Event(ty),
                });
            }
        }
    }
    // Class-level listeners: RocketMQ, ApplicationListener<E>.
    if let Some(a) = ann(&d.annotations, "RocketMQMessageListener") {
        let topic = cx.attr(a, &["topic"]).into_iter().next();
        let tags: Vec<String> = cx
            .attr(a, &["selectorExpression"])
            .first()
            .map(|s| s.split("||").map(|x| x.trim().to_string()).collect())
            .unwrap_or_else(|| vec!["*".to_string()]);
        if let (Some(topic), Some(mi)) =
            (topic, d.methods.iter().position(|m| m.name == "onMessage"))
        {
            fw.listeners.push(Listener {
                method: cx.at(mi),
                key: ListenKey::Rocket(topic, tags),
            });
        }
    }
    for i in d.interfaces.iter() {
        if i.name.rsplit('.').next() == Some("ApplicationListener")
            && let Some(arg) = i.args.first()
            && let Ty::Class(ev, _) = t.resolve_ref(arg, sc)
            && let Some(mi) = d
                .methods
                .iter()
                .position(|m| m.name == "onApplicationEvent")
        {
            fw.listeners.push(Listener {
                method: cx.at(mi),
                key: ListenKey::Event(ev),
            });
        }
    }
}

/// Rabbit declarations and sends of call `i`.
pub(super) fn collect_call(
    r: &mut FileResolver<'_>,
    i: usize,
    topology: &mut Topology,
    fw: &mut FileFw,
) {
    declare(r, i, topology, fw);
    let name = r.j.calls[i].name.as_str();
    let sends = matches!(
        name,
        "convertAndSend"
            | "send"
            | "convertSendAndReceive"
            | "sendAndReceive"
            | "syncSend"
            | "asyncSend"
            | "sendOneWay"
            | "syncSendOrderly"
            | "asyncSendOrderly"
            | "sendOneWayOrderly"
            | "sendMessageInTransaction"
            | "publishEvent"
    );
    if sends
        && r.j.calls[i].kind == CallKind::Method
        && let Some(rt) = recv_type(r, i)
        && let Some(from) = caller_at(r, i)
    {
        collect_send(r, i, name, &rt, from, fw);
    }
}

/// The simple name of a call's receiver type, if known.
pub(super) fn recv_type(r: &mut FileResolver<'_>, i: usize) -> Option<String> {
    let call = &r.j.calls[i];
    let recv = call.recv.as_ref()?;
    let sc = r.scope_of(call);
    let ty = match r.val(recv, &sc) {
        Val::Value(t) | Val::Type(t) => t,
        _ => return None,
    };
    let name = r.table.display(&ty);
    Some(name.rsplit('.').next().unwrap_or(&name).to_string())
}

pub(super) fn arg_const(r: &FileResolver<'_>, i: usize, k: usize) -> Option<String> {
    let call = &r.j.calls[i];
    let sc = r.scope_of(call);
    const_str(r.table, r.files, call.args.get(k)?, &sc, 0)
}

fn collect_send(
    r: &mut FileResolver<'_>,
    i: usize,
    name: &str,
    recv: &str,
    from: At,
    fw: &mut FileFw,
) {
    let argc = r.j.calls[i].args.len();
    match recv {
        "RabbitTemplate" | "AmqpTemplate" | "RabbitOperations" | "RabbitMessagingTemplate"
            if name != "publishEvent" && !name.starts_with("get") =>
        {
            let a0 = arg_const(r, i, 0);
            let a1 = if argc >= 3 { arg_const(r, i, 1) } else { None };
            let key = match (a0, a1) {
                (Some(x), Some(k)) => SendKey::Rabbit {
                    exchange: x,
                    key: k,
                },
                (Some(k), None) if argc == 2 || !string_typed(r, i, 1) => SendKey::Rabbit {
                    exchange: String::new(),
                    key: k,
                },
                _ => return,
            };
            fw.sends.push(Send { from, key });
        }
        "KafkaTemplate" | "KafkaOperations" if name == "send" => {
            if let Some(topic) = arg_const(r, i, 0) {
                fw.sends.push(Send {
                    from,
                    key: SendKey::Kafka(topic),
                });
            }
        }
        "RocketMQTemplate" if !name.starts_with("get") && name != "publishEvent" => {
            if let Some(dest) = arg_const(r, i, 0) {
                let (topic, tag) = match dest.split_once(':') {
                    Some((t, g)) => (t.to_string(), Some(g.to_string())),
                    None => (dest, None),
                };
                fw.sends.push(Send {
                    from,
                    key: SendKey::Rocket { topic, tag },
                });
            }
        }
        _ if name == "publishEvent" => {
            let call = &r.j.calls[i];
            let sc = r.scope_of(call);
            if let Some(a) = call.args.first()
                && let Val::Value(Ty::Class(ev, _)) = r.val(a, &sc)
            {
                fw.sends.push(Send {
                    from,
                    key: SendKey::Event(ev),
                });
            }
        }
        _ => {}
    }
}

fn string_typed(r: &mut FileResolver<'_>, i: usize, k: usize) -> bool {
    let call = &r.j.calls[i];
    let sc = r.scope_of(call);
    match call.args.get(k) {
        Some(a) => {
            let v = r.val(a, &sc);
            matches!(v, Val::Value(Ty::Class(id, _)) if Some(id) == r.table.string)
        }
        None => false,
    }
}

/// Sends matched to listeners (`${..}` placeholders in names expanded from the configuration).
pub(super) fn link(
    t: &TypeTable,
    files: Files<'_>,
    fw: &[FileFw],
    cfg: &super::spring::ConfigIndex<'_>,
    out: &mut Vec<Edge>,
) {
    let all = || fw.iter();
    // Messages and events.
    let expanded: Vec<Listener> = all()
        .flat_map(|f| &f.listeners)
        .map(|l| {
            let x = |s: &String| cfg.expand(files, s, l.method.file);
            let key = match &l.key {
                ListenKey::RabbitQueue(q) => ListenKey::RabbitQueue(x(q)),
                ListenKey::RabbitBinding(q, e, ks) => {
                    ListenKey::RabbitBinding(x(q), x(e), ks.iter().map(x).collect())
                }
                ListenKey::Kafka(t) => ListenKey::Kafka(x(t)),
                ListenKey::Rocket(t, tags) => ListenKey::Rocket(x(t), tags.clone()),
                ListenKey::Event(e) => ListenKey::Event(*e),
            };
            Listener {
                method: l.method.clone(),
                key,
            }
        })
        .collect();
    let listeners: Vec<&Listener> = expanded.iter().collect();
    let queues: Vec<&RabbitQueue> = all().flat_map(|f| &f.queues).collect();
    let exchanges: Vec<&RabbitExchange> = all().flat_map(|f| &f.exchanges).collect();
    let bindings: Vec<&RabbitBinding> = all().flat_map(|f| &f.bindings).collect();
    let rabbit = Rabbit {
        queues: &queues,
        exchanges: &exchanges,
        bindings: &bindings,
    };
    for s in all().flat_map(|f| &f.sends) {
        let mut targets: Vec<(&Listener, String)> = Vec::new();
        let x = |v: &String| cfg.expand(files, v, s.from.file);
        let key = match &s.key {
            SendKey::Rabbit { exchange, key } => SendKey::Rabbit {
                exchange: x(exchange),
                key: x(key),
            },
            SendKey::Kafka(t) => SendKey::Kafka(x(t)),
            SendKey::Rocket { topic, tag } => SendKey::Rocket {
                topic: x(topic),
                tag: tag.clone(),
            },
            SendKey::Event(e) => SendKey::Event(*e),
        };
        match &key {
            SendKey::Rabbit { exchange, key } => {
                for (q, route) in rabbit.deliver(exchange, key, &listeners) {
                    for l in &listeners {
                        let hit = match &l.key {
                            ListenKey::RabbitQueue(n) => *n == q,
                            ListenKey::RabbitBinding(n, _, _) => *n == q,
                            _ => false,
                        };
                        if hit {
                            targets.push((l, route.clone()));
                        }
                    }
                }
                // Listeners that declare their binding themselves.
                for l in &listeners {
                    if let ListenKey::RabbitBinding(q, x, keys) = &l.key
                        && x == exchange
                        && keys.iter().any(|k| topic_match(k, key))
                        && !targets.iter().any(|(t, _)| std::ptr::eq(*t, *l))
                    {
                        targets.push((l, format!("rabbitmq exchange={x} key={key} → queue {q}")));
                    }
                }
            }
            SendKey::Kafka(topic) => {
                for l in &listeners {
                    if l.key == ListenKey::Kafka(topic.clone()) {
                        targets.push((l, format!("kafka topic={topic}")));
                    }
                }
            }
            SendKey::Rocket { topic, tag } => {
                for l in &listeners {
                    if let ListenKey::Rocket(lt, tags) = &l.key
                        && lt == topic
                        && (tags.iter().any(|x| x == "*")
                            || tag.as_ref().is_some_and(|g| tags.contains(g)))
                    {
                        let d = match tag {
                            Some(g) => format!("rocketmq topic={topic} tag={g}"),
                            None => format!("rocketmq topic={topic}"),
                        };
                        targets.push((l, d));
                    }
                }
            }
            SendKey::Event(ev) => {
                for l in &listeners {
                    if let ListenKey::Event(lt) = &l.key
                        && t.is_subtype(*ev, *lt)
                    {
                        targets.push((l, format!("event {}", t.types[*ev as usize].fqn)));
                    }
                }
            }
        }
        for (l, detail) in targets {
            out.push(edge(
                files,
                &s.from,
                s.from.line,
                EdgeKind::Event,
                &l.method,
                1.0,
                detail,
            ));
        }
    }
}

/// Rabbit topology: where a message sent to an exchange with a routing key ends up.
struct Rabbit<'a> {
    queues: &'a [&'a RabbitQueue],
    exchanges: &'a [&'a RabbitExchange],
    bindings: &'a [&'a RabbitBinding],
}

impl Rabbit<'_> {
    fn queue_name(&self, r: &Ref) -> Option<String> {
        match r {
            Ref::Name(n) => Some(n.clone()),
            Ref::Bean(b) => self
                .queues
                .iter()
                .find(|q| q.bean.as_deref() == Some(b))
                .map(|q| q.name.clone()),
        }
    }

    fn exchange(&self, r: &Ref) -> Option<(String, bool, bool)> {
        match r {
            Ref::Name(n) => Some((
                n.clone(),
                self.exchanges.iter().any(|x| x.name == *n && x.topic),
                self.exchanges.iter().any(|x| x.name == *n && x.fanout),
            )),
            Ref::Bean(b) => self
                .exchanges
                .iter()
                .find(|x| x.bean.as_deref() == Some(b))
                .map(|x| (x.name.clone(), x.topic, x.fanout)),
        }
    }

    /// Queues a message reaches, with a description of the route; dead-letter exchanges of
    /// queues nobody listens to are followed (delayed messages), up to three times.
    fn deliver(&self, exchange: &str, key: &str, listeners: &[&Listener]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut todo = vec![(exchange.to_string(), key.to_string(), String::new(), 0)];
        let mut seen = HashSet::new();
        while let Some((x, k, via, hops)) = todo.pop() {
            if !seen.insert((x.clone(), k.clone())) || hops > 3 {
                continue;
            }
            let mut reached = Vec::new();
            if x.is_empty() {
                reached.push(k.clone());
            }
            for b in self.bindings {
                let Some((bx, topic, fanout)) = self.exchange(&b.exchange) else {
                    continue;
                };
                if bx != x {
                    continue;
                }
                let ok = fanout
                    || match &b.key {
                        Some(bk) if topic => topic_match(bk, &k),
                        Some(bk) => *bk == k,
                        None => true,
                    };
                if ok && let Some(q) = self.queue_name(&b.queue) {
                    reached.push(q);
                }
            }
            for q in reached {
                let route = if x.is_empty() {
                    format!("{via}rabbitmq queue={q}")
                } else {
                    format!("{via}rabbitmq exchange={x} key={k} → queue {q}")
                };
                let consumed = listeners.iter().any(|l| match &l.key {
                    ListenKey::RabbitQueue(n) | ListenKey::RabbitBinding(n, _, _) => *n == q,
                    _ => false,
                });
                if consumed {
                    out.push((q.clone(), route.clone()));
                } else if let Some(dq) = self.queues.iter().find(|d| d.name == q)
                    && let Some(dlx) = &dq.dlx
                {
                    let dlk = dq.dlk.clone().unwrap_or_else(|| k.clone());
                    todo.push((
                        dlx.clone(),
                        dlk,
                        format!("{route}, dead-letter → "),
                        hops + 1,
                    ));
                }
            }
        }
        out
    }
}

/// AMQP topic matching: `*` one word, `#` zero or more.
fn topic_match(pattern: &str, key: &str) -> bool {
    fn go(p: &[&str], k: &[&str]) -> bool {
        match (p.first(), k.first()) {
            (None, None) => true,
            (Some(&"#"), _) => go(&p[1..], k) || (!k.is_empty() && go(p, &k[1..])),
            (Some(&"*"), Some(_)) => go(&p[1..], &k[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &k[1..]),
            _ => false,
        }
    }
    let p: Vec<&str> = pattern.split('.').collect();
    let k: Vec<&str> = key.split('.').collect();
    go(&p, &k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_match_like_amqp() {
        assert!(topic_match("order.*", "order.created"));
        assert!(!topic_match("order.*", "order.created.v2"));
        assert!(topic_match("order.#", "order.created.v2"));
        assert!(topic_match("#", "x"));
    }

    /// An enum holding exchange, queue and routing key, a sender to a TTL queue that dead-letters
    /// into the queue a class-level listener consumes (the shape of a delayed order cancel).
    const QUEUES: &str = r#"package m;
public enum Queues {
    CANCEL("order.direct", "order.cancel", "order.cancel"),
    CANCEL_TTL("order.direct.ttl", "order.cancel.ttl", "order.cancel.ttl");
    private final String exchange;
    private final String name;
    private final String routeKey;
    Queues(String exchange, String name, String routeKey) {
        this.exchange = exchange;
        this.name = name;
        this.routeKey = routeKey;
    }
    public String getExchange() { return exchange; }
    public String getName() { return name; }
    public String getRouteKey() { return routeKey; }
}
"#;
    const CONFIG: &str = r#"package m;
import org.springframework.amqp.core.*;
@Configuration
public class MqConfig {
    @Bean DirectExchange cancelDirect() {
        return ExchangeBuilder.directExchange(Queues.CANCEL.getExchange()).durable(true).build();
    }
    @Bean DirectExchange ttlDirect() {
        return ExchangeBuilder.directExchange(Queues.CANCEL_TTL.getExchange()).durable(true).build();
    }
    @Bean public Queue cancelQueue() { return new Queue(Queues.CANCEL.getName()); }
    @Bean public Queue ttlQueue() {
        return QueueBuilder.durable(Queues.CANCEL_TTL.getName())
            .withArgument("x-dead-letter-exchange", Queues.CANCEL.getExchange())
            .withArgument("x-dead-letter-routing-key", Queues.CANCEL.getRouteKey())
            .build();
    }
    @Bean Binding cancelBinding(DirectExchange cancelDirect, Queue cancelQueue) {
        return BindingBuilder.bind(cancelQueue).to(cancelDirect).with(Queues.CANCEL.getRouteKey());
    }
    @Bean Binding ttlBinding(DirectExchange ttlDirect, Queue ttlQueue) {
        return BindingBuilder.bind(ttlQueue).to(ttlDirect).with(Queues.CANCEL_TTL.getRouteKey());
    }
}
"#;
    const SENDER: &str = r#"package m;
import org.springframework.amqp.core.AmqpTemplate;
@Component
public class CancelSender {
    @Autowired private AmqpTemplate amqpTemplate;
    public void send(Long id) {
        amqpTemplate.convertAndSend(Queues.CANCEL_TTL.getExchange(), Queues.CANCEL_TTL.getRouteKey(), id);
    }
}
"#;
    const RECEIVER: &str = r#"package m;
@Component
@RabbitListener(queues = "order.cancel")
public class CancelReceiver {
    @RabbitHandler
    public void handle(Long id) { }
}
"#;

    #[test]
    fn enum_held_names_reach_the_dead_letter_queue_listener() {
        let es = crate::graph::resolve::tests::edges_of_kind(
            &[
                ("src/m/Queues.java", QUEUES),
                ("src/m/MqConfig.java", CONFIG),
                ("src/m/CancelSender.java", SENDER),
                ("src/m/CancelReceiver.java", RECEIVER),
            ],
            crate::graph::EdgeKind::Event,
        );
        let found: Vec<_> = es
            .iter()
            .map(|e| (e.caller_name.as_str(), e.callee_name.as_str(), e.line))
            .collect();
        assert!(
            found.contains(&("m.CancelSender.send", "m.CancelReceiver.handle", 7)),
            "{found:?}"
        );
    }
}
