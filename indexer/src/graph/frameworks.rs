//! Framework edges: what annotations, templates and resource files say about control flow that
//! plain calls do not show.
//!
//! * `route`: Spring MVC mappings (`@RequestMapping` and `@Get/Post/Put/Delete/PatchMapping` on a
//!   controller class and method) → handler, from a pseudo node `route:POST /api/orders`.
//! * `rpc`: a `@FeignClient` method → the controller method serving the same HTTP method and
//!   path (preferring the module whose `spring.application.name` is the client's name); a call
//!   through a `@DubboReference`/`@Reference` field → the `@DubboService` implementation.
//! * `call`: a call through an injected bean field whose type is an interface or abstract class
//!   with exactly one bean implementation → that implementation.
//! * `event`: RabbitMQ `convertAndSend` → `@RabbitListener` (by queue, or exchange + routing key
//!   through the declared bindings, following dead-letter exchanges of queues nobody consumes:
//!   the delayed-message pattern); Kafka `send` → `@KafkaListener` (topic); RocketMQ
//!   `convertAndSend`/`syncSend`… → `@RocketMQMessageListener` (topic and tag); Spring
//!   `publishEvent(x)` → `@EventListener`/`@TransactionalEventListener` methods and
//!   `ApplicationListener<X>` classes (by the event's static type); `@Scheduled` methods from
//!   a pseudo node `schedule:cron=…`.
//! * `db`: MyBatis mapper method → XML statement (`mybatis:namespace.id`) → `table:name`, and
//!   annotation SQL (`@Select` …) → `table:name`.
//! * `config`: `@Value("${key}")`, `@ConfigurationProperties(prefix)` fields and
//!   `Environment.getProperty("key")` → `config:key`, located in the configuration file that
//!   defines it (the use site's module first).
//!
//! Constants are resolved across files (`MqConstants.ORDER_CANCEL_QUEUE`, concatenations).
//! [`collect`] runs per file inside its resolver (it needs receiver and argument types);
//! [`link`] matches what all files collected.

use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{AnnValue, Annotation, CallKind, Caller, Expr, FileFacts, TypeKind};
use crate::graph::resolve::{FileResolver, Target, Val, caller_of};
use crate::graph::types::{Origin, Scope, Ty, TypeId, TypeTable};
use crate::lang::{config, mybatis};
use crate::model::RepoPath;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A method as an edge endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct At {
    pub id: String,
    pub name: String,
    pub file: u32,
    pub line: u32,
}

#[derive(Debug, Clone)]
struct Route {
    handler: At,
    verb: String,
    path: String,
    line: u32,
}

#[derive(Debug, Clone)]
struct Feign {
    method: At,
    service: String,
    verb: String,
    path: String,
    line: u32,
}

#[derive(Debug, Clone, PartialEq)]
enum ListenKey {
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
struct Listener {
    method: At,
    key: ListenKey,
}

#[derive(Debug, Clone, PartialEq)]
enum SendKey {
    Rabbit { exchange: String, key: String },
    Kafka(String),
    Rocket { topic: String, tag: Option<String> },
    Event(TypeId),
}

#[derive(Debug, Clone)]
struct Send {
    from: At,
    key: SendKey,
}

#[derive(Debug, Clone)]
enum Ref {
    Bean(String),
    Name(String),
}

#[derive(Debug, Clone, Default)]
struct RabbitQueue {
    bean: Option<String>,
    name: String,
    dlx: Option<String>,
    dlk: Option<String>,
}

#[derive(Debug, Clone)]
struct RabbitExchange {
    bean: Option<String>,
    name: String,
    topic: bool,
    fanout: bool,
}

#[derive(Debug, Clone)]
struct RabbitBinding {
    queue: Ref,
    exchange: Ref,
    key: Option<String>,
}

#[derive(Debug, Clone)]
struct Dispatch {
    from: At,
    /// The interface or abstract type named at the call.
    iface: TypeId,
    method: String,
    arity: usize,
    dubbo: bool,
}

#[derive(Debug, Clone)]
struct ConfigUse {
    from: At,
    key: String,
    default: Option<String>,
}

#[derive(Debug, Clone)]
struct PropsField {
    from: At,
    key: String,
}

#[derive(Debug, Clone)]
struct MapperMethod {
    namespace: String,
    method: At,
    /// Annotation SQL: (tables, annotation line).
    sql: Option<(Vec<String>, u32)>,
}

/// What one Java file contributes to framework edges.
#[derive(Debug, Default)]
pub struct FileFw {
    routes: Vec<Route>,
    feign: Vec<Feign>,
    schedules: Vec<(At, String, u32)>,
    listeners: Vec<Listener>,
    sends: Vec<Send>,
    queues: Vec<RabbitQueue>,
    exchanges: Vec<RabbitExchange>,
    bindings: Vec<RabbitBinding>,
    dispatch: Vec<Dispatch>,
    values: Vec<ConfigUse>,
    props: Vec<PropsField>,
    mappers: Vec<MapperMethod>,
}

const STEREOTYPES: &[&str] = &[
    "Component",
    "Service",
    "Repository",
    "Controller",
    "RestController",
    "Configuration",
    "Named",
    "ControllerAdvice",
    "RestControllerAdvice",
];

fn ann<'a>(anns: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    anns.iter().find(|a| a.simple() == name)
}

fn has_any(anns: &[Annotation], names: &[&str]) -> bool {
    anns.iter().any(|a| names.contains(&a.simple()))
}

/// Evaluates a constant string expression where `sc` stands (other files' constants included).
pub fn const_str(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
    e: &Expr,
    sc: &Scope<'_>,
    depth: u8,
) -> Option<String> {
    if depth > 16 {
        return None;
    }
    match e {
        Expr::Str(s) => Some(s.clone()),
        Expr::Plus(a, b) => {
            let x = const_str(t, files, a, sc, depth + 1)?;
            let y = const_str(t, files, b, sc, depth + 1)?;
            Some(x + &y)
        }
        Expr::Name(n) => {
            let mut lex = sc.lex;
            while let Some(ty) = lex {
                if let Some(v) = field_const(t, files, ty, n, depth) {
                    return Some(v);
                }
                lex = t.types[ty as usize].outer;
            }
            let f = t.files.get(sc.file as usize)?;
            for (m, owner) in &f.static_single {
                if m == n
                    && let Some(ty) = t.resolve_qualified(owner)
                    && let Some(v) = field_const(t, files, ty, n, depth)
                {
                    return Some(v);
                }
            }
            for owner in &f.static_on_demand {
                if let Some(ty) = t.resolve_qualified(owner)
                    && let Some(v) = field_const(t, files, ty, n, depth)
                {
                    return Some(v);
                }
            }
            None
        }
        Expr::Field(q, n) => {
            let path = expr_path(q)?;
            let Some(Ty::Class(ty, _)) = t.resolve_name(&path, sc) else {
                return None;
            };
            field_const(t, files, ty, n, depth)
        }
        _ => None,
    }
}

/// The constant value of field `name` of `ty` (declared or inherited, interfaces included).
fn field_const(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
    ty: TypeId,
    name: &str,
    depth: u8,
) -> Option<String> {
    for a in t.ancestry(&Ty::Class(ty, Vec::new())) {
        let Ty::Class(at, _) = a else { continue };
        let info = &t.types[at as usize];
        let Some(f) = info.field(name) else { continue };
        let Origin::Project { file, decl } = info.origin else {
            return None;
        };
        let fd = files[file as usize]
            .1
            .java
            .as_ref()?
            .types
            .get(decl as usize)?
            .fields
            .get(f.decl? as usize)?;
        let value = fd.value.as_ref()?;
        let sc = Scope {
            file,
            lex: Some(at),
            method_tparams: &[],
        };
        return const_str(t, files, value, &sc, depth + 1);
    }
    None
}

/// `a.b.C` of a qualifier made of names.
fn expr_path(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Field(q, n) => Some(format!("{}.{n}", expr_path(q)?)),
        _ => None,
    }
}

/// Strings of an annotation value (a string, a constant, an array of them).
fn ann_strings(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
    v: &AnnValue,
    sc: &Scope<'_>,
) -> Vec<String> {
    match v {
        AnnValue::Expr(e) => const_str(t, files, e, sc, 0).into_iter().collect(),
        AnnValue::Array(items) => items
            .iter()
            .flat_map(|i| ann_strings(t, files, i, sc))
            .collect(),
        AnnValue::Nested(_) => Vec::new(),
    }
}

/// Last names of enum-constant values (`RequestMethod.POST` → `POST`).
fn ann_names(v: &AnnValue) -> Vec<String> {
    match v {
        AnnValue::Expr(e) => expr_path(e)
            .map(|p| p.rsplit('.').next().unwrap_or(&p).to_string())
            .into_iter()
            .collect(),
        AnnValue::Array(items) => items.iter().flat_map(ann_names).collect(),
        AnnValue::Nested(_) => Vec::new(),
    }
}

/// Strings of the first of `keys` present.
fn ann_attr(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
    a: &Annotation,
    keys: &[&str],
    sc: &Scope<'_>,
) -> Vec<String> {
    for k in keys {
        if let Some(v) = a.arg(k) {
            return ann_strings(t, files, v, sc);
        }
    }
    Vec::new()
}

const MAPPINGS: &[(&str, &str)] = &[
    ("GetMapping", "GET"),
    ("PostMapping", "POST"),
    ("PutMapping", "PUT"),
    ("DeleteMapping", "DELETE"),
    ("PatchMapping", "PATCH"),
    ("RequestMapping", ""),
];

/// (verb, path, annotation line) of each mapping a method's annotations declare.
fn mappings(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
    anns: &[Annotation],
    sc: &Scope<'_>,
) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for a in anns {
        let Some((_, verb)) = MAPPINGS.iter().find(|(n, _)| *n == a.simple()) else {
            continue;
        };
        let verbs: Vec<String> = if verb.is_empty() {
            let v = a.arg("method").map(ann_names).unwrap_or_default();
            if v.is_empty() { vec!["ANY".into()] } else { v }
        } else {
            vec![verb.to_string()]
        };
        let mut paths = ann_attr(t, files, a, &["value", "path"], sc);
        if paths.is_empty() {
            paths.push(String::new());
        }
        for v in &verbs {
            for p in &paths {
                out.push((v.clone(), p.clone(), a.line));
            }
        }
    }
    out
}

/// `/api` + `orders/{id}` → `/api/orders/{id}`.
fn join_path(prefix: &str, path: &str) -> String {
    let mut s = String::from("/");
    for part in prefix.split('/').chain(path.split('/')) {
        if part.is_empty() {
            continue;
        }
        if !s.ends_with('/') {
            s.push('/');
        }
        s.push_str(part);
    }
    s
}

/// A path with its variables blanked, for matching a client's path with a server's.
fn path_shape(p: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in p.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    out.push_str("{}");
                }
                depth += 1;
            }
            '}' => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

/// Collects one file's framework facts (inside its resolver).
pub fn collect(r: &mut FileResolver<'_>) -> FileFw {
    let mut fw = FileFw::default();
    let (t, files, j, fi) = (r.table, r.files, r.j, r.fi);
    for (di, d) in j.types.iter().enumerate() {
        let Some(tid) = r.type_id(di as u32) else {
            continue;
        };
        let sc = Scope {
            file: fi,
            lex: Some(tid),
            method_tparams: &[],
        };
        let at = |m: usize| At {
            id: d.methods[m].id.clone(),
            name: format!("{}.{}", d.qname, d.methods[m].name),
            file: fi,
            line: d.methods[m].line,
        };
        let is_controller = has_any(&d.annotations, &["Controller", "RestController"]);
        let feign = ann(&d.annotations, "FeignClient");
        let prefixes: Vec<String> = {
            let p = ann(&d.annotations, "RequestMapping")
                .map(|a| ann_attr(t, files, a, &["value", "path"], &sc))
                .unwrap_or_default();
            if p.is_empty() { vec![String::new()] } else { p }
        };
        if is_controller || feign.is_some() {
            let feign_path = feign
                .map(|a| ann_attr(t, files, a, &["path"], &sc))
                .unwrap_or_default();
            let service = feign
                .map(|a| ann_attr(t, files, a, &["name", "value", "serviceId"], &sc))
                .and_then(|v| v.into_iter().next())
                .unwrap_or_default();
            for (mi, m) in d.methods.iter().enumerate() {
                for (verb, path, line) in mappings(t, files, &m.annotations, &sc) {
                    for prefix in &prefixes {
                        let full = match feign_path.first() {
                            Some(fp) => join_path(&join_path(fp, prefix), &path),
                            None => join_path(prefix, &path),
                        };
                        if feign.is_some() {
                            fw.feign.push(Feign {
                                method: at(mi),
                                service: service.clone(),
                                verb: verb.clone(),
                                path: full,
                                line,
                            });
                        } else {
                            fw.routes.push(Route {
                                handler: at(mi),
                                verb: verb.clone(),
                                path: full,
                                line,
                            });
                        }
                    }
                }
            }
        }
        // Listeners, schedules, config uses on methods.
        let class_rabbit = ann(&d.annotations, "RabbitListener");
        let class_kafka = ann(&d.annotations, "KafkaListener");
        for (mi, m) in d.methods.iter().enumerate() {
            if let Some(a) = ann(&m.annotations, "Scheduled") {
                let mut spec = Vec::new();
                for (k, v) in &a.args {
                    let s = ann_strings(t, files, v, &sc);
                    if let Some(s) = s.first() {
                        spec.push(format!("{k}={s}"));
                    }
                }
                fw.schedules.push((at(mi), spec.join(" "), a.line));
            }
            let rabbit = ann(&m.annotations, "RabbitListener").or(
                if has_any(&m.annotations, &["RabbitHandler"]) {
                    class_rabbit
                } else {
                    None
                },
            );
            if let Some(a) = rabbit {
                for key in rabbit_keys(t, files, a, &sc) {
                    fw.listeners.push(Listener {
                        method: at(mi),
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
                for topic in ann_attr(t, files, a, &["topics", "value"], &sc) {
                    fw.listeners.push(Listener {
                        method: at(mi),
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
                            if let Ty::Class(id, _) = t.resolve_ref(tr, &sc) {
                                types.push(id);
                            }
                        });
                    }
                }
                if types.is_empty()
                    && let Some(&p) = m.params.first()
                    && let Some(tr) = j.locals.get(p as usize).and_then(|l| l.ty.as_ref())
                    && let Ty::Class(id, _) = t.resolve_ref(tr, &sc)
                {
                    types.push(id);
                }
                for ty in types {
                    fw.listeners.push(Listener {
                        method: at(mi),
                        key: ListenKey::Event(ty),
                    });
                }
            }
            // `@Value` on the method or its parameters.
            let mut value_anns: Vec<&Annotation> = m
                .annotations
                .iter()
                .filter(|a| a.simple() == "Value")
                .collect();
            for &p in &m.params {
                if let Some(l) = j.locals.get(p as usize) {
                    value_anns.extend(l.annotations.iter().filter(|a| a.simple() == "Value"));
                }
            }
            for a in value_anns {
                for (key, default) in placeholders(&ann_attr(t, files, a, &["value"], &sc)) {
                    fw.values.push(ConfigUse {
                        from: At {
                            line: a.line,
                            ..at(mi)
                        },
                        key,
                        default,
                    });
                }
            }
        }
        // Class-level listeners: RocketMQ, ApplicationListener<E>.
        if let Some(a) = ann(&d.annotations, "RocketMQMessageListener") {
            let topic = ann_attr(t, files, a, &["topic"], &sc).into_iter().next();
            let tags: Vec<String> = ann_attr(t, files, a, &["selectorExpression"], &sc)
                .first()
                .map(|s| s.split("||").map(|x| x.trim().to_string()).collect())
                .unwrap_or_else(|| vec!["*".to_string()]);
            if let (Some(topic), Some(mi)) =
                (topic, d.methods.iter().position(|m| m.name == "onMessage"))
            {
                fw.listeners.push(Listener {
                    method: at(mi),
                    key: ListenKey::Rocket(topic, tags),
                });
            }
        }
        for i in d.interfaces.iter() {
            if i.name.rsplit('.').next() == Some("ApplicationListener")
                && let Some(arg) = i.args.first()
                && let Ty::Class(ev, _) = t.resolve_ref(arg, &sc)
                && let Some(mi) = d
                    .methods
                    .iter()
                    .position(|m| m.name == "onApplicationEvent")
            {
                fw.listeners.push(Listener {
                    method: at(mi),
                    key: ListenKey::Event(ev),
                });
            }
        }
        // Config: `@Value` fields and `@ConfigurationProperties` classes.
        let props_prefix = ann(&d.annotations, "ConfigurationProperties")
            .map(|a| ann_attr(t, files, a, &["prefix", "value"], &sc))
            .and_then(|v| v.into_iter().next());
        for f in &d.fields {
            let field_at = At {
                id: f.id.clone(),
                name: format!("{}.{}", d.qname, f.name),
                file: fi,
                line: f.line,
            };
            for a in f.annotations.iter().filter(|a| a.simple() == "Value") {
                for (key, default) in placeholders(&ann_attr(t, files, a, &["value"], &sc)) {
                    fw.values.push(ConfigUse {
                        from: At {
                            line: a.line,
                            ..field_at.clone()
                        },
                        key,
                        default,
                    });
                }
            }
            if let Some(p) = &props_prefix
                && !f.is_static
            {
                fw.props.push(PropsField {
                    from: field_at,
                    key: format!("{p}.{}", f.name),
                });
            }
        }
        // MyBatis mapper interfaces (any interface may be named by an XML namespace).
        if d.kind == TypeKind::Interface && !d.local {
            for (mi, m) in d.methods.iter().enumerate() {
                let sql = m
                    .annotations
                    .iter()
                    .find(|a| matches!(a.simple(), "Select" | "Insert" | "Update" | "Delete"))
                    .map(|a| {
                        let text = ann_attr(t, files, a, &["value"], &sc).join(" ");
                        (mybatis::tables(&text), a.line)
                    });
                fw.mappers.push(MapperMethod {
                    namespace: d.qname.clone(),
                    method: at(mi),
                    sql,
                });
            }
        }
    }
    collect_calls(r, &mut fw);
    fw
}

/// Class literals in an annotation value.
fn class_lits(v: &AnnValue, f: &mut dyn FnMut(&crate::graph::facts::TypeRef)) {
    match v {
        AnnValue::Expr(Expr::ClassLit(tr)) => f(tr),
        AnnValue::Array(items) => {
            for i in items {
                class_lits(i, f);
            }
        }
        _ => {}
    }
}

/// `@RabbitListener` keys: queues, declared queues and bindings.
fn rabbit_keys(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
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

/// `${a.b:default}` placeholders of `@Value` strings: (key, default).
fn placeholders(values: &[String]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for v in values {
        let mut rest = v.as_str();
        while let Some(i) = rest.find("${") {
            let after = &rest[i + 2..];
            // The matching brace (defaults may hold nested placeholders).
            let mut depth = 1;
            let mut end = after.len();
            for (k, c) in after.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let inner = &after[..end];
            let (key, default) = match inner.split_once(':') {
                Some((k, d)) => (k, Some(d.to_string())),
                None => (inner, None),
            };
            if !key.is_empty() {
                out.push((key.trim().to_string(), default));
            }
            rest = after.get(end + 1..).unwrap_or("");
        }
    }
    out
}

/// The simple name of a call's receiver type, if known.
fn recv_type(r: &mut FileResolver<'_>, i: usize) -> Option<String> {
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

fn arg_const(r: &FileResolver<'_>, i: usize, k: usize) -> Option<String> {
    let call = &r.j.calls[i];
    let sc = r.scope_of(call);
    const_str(r.table, r.files, call.args.get(k)?, &sc, 0)
}

fn caller_at(r: &FileResolver<'_>, i: usize) -> Option<At> {
    let call = &r.j.calls[i];
    let (id, name) = caller_of(r.j, call.caller)?;
    Some(At {
        id,
        name,
        file: r.fi,
        line: call.line,
    })
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

/// Sends, Rabbit declarations, config lookups and bean/Dubbo dispatch from the file's calls.
fn collect_calls(r: &mut FileResolver<'_>, fw: &mut FileFw) {
    let n = r.j.calls.len();
    // Rabbit queue/exchange declarations per bean method.
    let mut queues: BTreeMap<String, RabbitQueue> = BTreeMap::new();
    for i in 0..n {
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
                            let q = queues.entry(key).or_default();
                            q.bean = bean.map(|b| b.1);
                            q.name = qname;
                        }
                    }
                    Some(
                        x @ ("DirectExchange" | "TopicExchange" | "FanoutExchange"
                        | "HeadersExchange" | "CustomExchange"),
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
                continue;
            }
            CallKind::Method => {}
            _ => continue,
        }
        match name {
            "durable" | "nonDurable" => {
                if recv_type(r, i).as_deref() == Some("QueueBuilder")
                    && let Some(qname) = arg_const(r, i, 0)
                {
                    let bean = bean_of(r, i);
                    let key = bean.as_ref().map(|b| b.0.clone()).unwrap_or(qname.clone());
                    let q = queues.entry(key).or_default();
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
                let (Some(k), Some(v)) = (k, v) else { continue };
                if !k.starts_with("x-dead-letter-") {
                    continue;
                }
                let Some(bean) = bean_of(r, i) else { continue };
                let q = queues.entry(bean.0).or_default();
                q.bean = Some(bean.1);
                if k == "x-dead-letter-exchange" {
                    q.dlx = Some(v);
                } else if k == "x-dead-letter-routing-key" {
                    q.dlk = Some(v);
                }
            }
            "with" | "to" => {
                // `BindingBuilder.bind(q).to(x)[.with(k)]`: read the chain from its last link.
                if name == "with" || !is_chained_into(r.j, i, "with") {
                    if let Some(b) = binding(r, i) {
                        fw.bindings.push(b);
                    }
                }
            }
            _ => {}
        }
        // Sends and lookups by receiver type.
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
                | "getProperty"
                | "getRequiredProperty"
        );
        if sends
            && let Some(rt) = recv_type(r, i)
            && let Some(from) = caller_at(r, i)
        {
            collect_send(r, i, name, &rt, from, fw);
        }
        collect_dispatch(r, i, fw);
    }
    fw.queues
        .extend(queues.into_values().filter(|q| !q.name.is_empty()));
}

/// Whether call `i` is the receiver of a later `name` call (`to(..)` followed by `.with(..)`).
fn is_chained_into(j: &crate::graph::facts::JavaFacts, i: usize, name: &str) -> bool {
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
        Expr::New(_) => {
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
fn local_name(j: &crate::graph::facts::JavaFacts, v: u32) -> Option<String> {
    let l = j.locals.get(v as usize)?;
    (!l.name.is_empty()).then(|| l.name.clone())
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
        "Environment" | "ConfigurableEnvironment" | "PropertyResolver" | "StandardEnvironment" => {
            if let Some(key) = arg_const(r, i, 0) {
                let default = if argc >= 2 { arg_const(r, i, 1) } else { None };
                fw.values.push(ConfigUse { from, key, default });
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

/// A call through an injected field of interface type: recorded for bean/Dubbo dispatch.
fn collect_dispatch(r: &mut FileResolver<'_>, i: usize, fw: &mut FileFw) {
    let call = &r.j.calls[i];
    if call.kind != CallKind::Method {
        return;
    }
    let field = match &call.recv {
        Some(Expr::Name(f)) => f.clone(),
        Some(Expr::Field(q, f)) if **q == Expr::This => f.clone(),
        _ => return,
    };
    let Target::Method { ty, .. } = r.call(i as u32).target else {
        return;
    };
    let iface = &r.table.types[ty as usize];
    if !(iface.is_interface() || iface.is_abstract)
        || !matches!(iface.origin, Origin::Project { .. })
    {
        return;
    }
    // The field's declaration: in the enclosing types (lexically), with its annotations.
    let sc = r.scope_of(call);
    let mut lex = sc.lex;
    while let Some(t) = lex {
        let info = &r.table.types[t as usize];
        if let Some(f) = info.field(&field) {
            if f.is_static {
                return;
            }
            let Origin::Project { file, decl } = info.origin else {
                return;
            };
            let Some(td) = r.files[file as usize]
                .1
                .java
                .as_ref()
                .and_then(|j| j.types.get(decl as usize))
            else {
                return;
            };
            let Some(fd) = f.decl.and_then(|k| td.fields.get(k as usize)) else {
                return;
            };
            let dubbo = has_any(&fd.annotations, &["DubboReference", "Reference"]);
            let bean = has_any(&fd.annotations, &["Autowired", "Resource", "Inject"])
                || has_any(&td.annotations, STEREOTYPES);
            if !dubbo && !bean {
                return;
            }
            let Some(from) = caller_at(r, i) else { return };
            fw.dispatch.push(Dispatch {
                from,
                iface: ty,
                method: call.name.clone(),
                arity: call.args.len(),
                dubbo,
            });
            return;
        }
        lex = info.outer;
    }
}

/// Per file: module root (`order/` of `order/src/main/java/..`).
fn module_of(path: &str) -> &str {
    match path.find("/src/") {
        Some(i) => &path[..i],
        None if path.starts_with("src/") => "",
        None => path.rsplit_once('/').map_or("", |(d, _)| d),
    }
}

struct ConfigIndex<'f> {
    /// canonical key → (file index, line, key as written).
    keys: HashMap<String, Vec<(u32, u32, &'f str)>>,
    /// module → `spring.application.name`.
    app_names: HashMap<&'f str, &'f str>,
}

impl<'f> ConfigIndex<'f> {
    fn new(files: &'f [(&RepoPath, &FileFacts)]) -> ConfigIndex<'f> {
        let mut keys: HashMap<String, Vec<(u32, u32, &str)>> = HashMap::new();
        let mut app_names = HashMap::new();
        for (fi, (p, f)) in files.iter().enumerate() {
            for k in &f.config {
                keys.entry(config::canonical_key(&k.key))
                    .or_default()
                    .push((fi as u32, k.line, k.key.as_str()));
                if k.key == "spring.application.name" && !k.value.is_empty() {
                    app_names.insert(module_of(p.as_str()), k.value.as_str());
                }
            }
        }
        ConfigIndex { keys, app_names }
    }

    /// Where `key` is defined, nearest to `from_file` (same module first, then path order).
    fn find(
        &self,
        files: &[(&RepoPath, &FileFacts)],
        key: &str,
        from_file: u32,
    ) -> Option<(u32, u32, &'f str)> {
        let defs = self.keys.get(&config::canonical_key(key))?;
        let from = files[from_file as usize].0.as_str();
        defs.iter()
            .max_by_key(|(f, l, _)| {
                let p = files[*f as usize].0.as_str();
                let common = p
                    .bytes()
                    .zip(from.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                // Prefer `application.yml` over profiles, then the earliest line.
                let plain = files[*f as usize].0.file_name().starts_with("application.");
                (common, plain, std::cmp::Reverse(*l))
            })
            .copied()
    }
}

fn edge(
    files: &[(&RepoPath, &FileFacts)],
    from: &At,
    line: u32,
    kind: EdgeKind,
    to: &At,
    conf: f32,
    detail: String,
) -> Edge {
    Edge {
        caller_file: files[from.file as usize].0.to_string(),
        caller: from.id.clone(),
        caller_name: from.name.clone(),
        line,
        kind,
        callee: Some(to.id.clone()),
        callee_name: to.name.clone(),
        callee_file: Some(files[to.file as usize].0.to_string()),
        callee_line: Some(to.line),
        caller_flags: 0,
        confidence: conf,
        detail,
    }
}

/// A pseudo endpoint (`route:…`, `table:…`) in a file.
fn pseudo(id: String, file: u32, line: u32) -> At {
    At {
        name: id.clone(),
        id,
        file,
        line,
    }
}

/// Matches what all files collected into framework edges.
pub fn link(t: &TypeTable, files: &[(&RepoPath, &FileFacts)], fw: &[FileFw]) -> Vec<Edge> {
    let mut out = Vec::new();
    let cfg = ConfigIndex::new(files);
    let all = || fw.iter();

    // Routes.
    for r in all().flat_map(|f| &f.routes) {
        let id = format!("route:{} {}", r.verb, r.path);
        let from = pseudo(id, r.handler.file, r.line);
        out.push(edge(
            files,
            &from,
            r.line,
            EdgeKind::Route,
            &r.handler,
            1.0,
            String::new(),
        ));
    }
    // Feign clients → controllers.
    for c in all().flat_map(|f| &f.feign) {
        let shape = path_shape(&c.path);
        let cands: Vec<&Route> = all()
            .flat_map(|f| &f.routes)
            .filter(|r| {
                path_shape(&r.path) == shape
                    && (r.verb == c.verb || r.verb == "ANY" || c.verb == "ANY")
            })
            .collect();
        let named: Vec<&&Route> = cands
            .iter()
            .filter(|r| {
                let module = module_of(files[r.handler.file as usize].0.as_str());
                cfg.app_names.get(module) == Some(&c.service.as_str())
            })
            .collect();
        let chosen: Vec<&Route> = if named.is_empty() {
            cands
        } else {
            named.into_iter().copied().collect()
        };
        let conf = if chosen.len() == 1 { 1.0 } else { 0.7 };
        for r in chosen {
            out.push(edge(
                files,
                &c.method,
                c.line,
                EdgeKind::Rpc,
                &r.handler,
                conf,
                format!("feign {} {} {}", c.service, c.verb, c.path),
            ));
        }
    }
    // Schedules.
    for (m, spec, line) in all().flat_map(|f| &f.schedules) {
        let from = pseudo(format!("schedule:{spec}"), m.file, *line);
        out.push(edge(
            files,
            &from,
            *line,
            EdgeKind::Event,
            m,
            1.0,
            String::new(),
        ));
    }
    // Bean and Dubbo dispatch.
    let beans: Vec<TypeId> = (0..t.types.len() as TypeId)
        .filter(|&id| is_bean_class(t, files, id))
        .collect();
    let dubbo_services: Vec<TypeId> = (0..t.types.len() as TypeId)
        .filter(|&id| is_dubbo_service(t, files, id))
        .collect();
    for d in all().flat_map(|f| &f.dispatch) {
        let pool = if d.dubbo { &dubbo_services } else { &beans };
        let impls: Vec<TypeId> = pool
            .iter()
            .copied()
            .filter(|&c| c != d.iface && t.is_subtype(c, d.iface))
            .collect();
        let [one] = impls.as_slice() else { continue };
        let Some(to) = method_in(t, files, *one, &d.method, d.arity) else {
            continue;
        };
        let (kind, detail) = if d.dubbo {
            (EdgeKind::Rpc, "dubbo".to_string())
        } else {
            (EdgeKind::Call, "bean".to_string())
        };
        out.push(edge(files, &d.from, d.from.line, kind, &to, 1.0, detail));
    }
    // Messages and events.
    let listeners: Vec<&Listener> = all().flat_map(|f| &f.listeners).collect();
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
        match &s.key {
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
    // Config keys.
    for v in all().flat_map(|f| &f.values) {
        let def = cfg.find(files, &v.key, v.from.file);
        let detail = match (&def, &v.default) {
            (None, Some(d)) => format!("not defined; default {d}"),
            (None, None) => "not defined".to_string(),
            (Some(_), Some(d)) => format!("default {d}"),
            (Some(_), None) => String::new(),
        };
        out.push(config_edge(files, &v.from, &v.key, def, detail));
    }
    for p in all().flat_map(|f| &f.props) {
        if let Some(def) = cfg.find(files, &p.key, p.from.file) {
            let key = def.2.to_string();
            out.push(config_edge(files, &p.from, &key, Some(def), String::new()));
        }
    }
    // MyBatis.
    let mut statements: HashMap<(&str, &str), (u32, &crate::graph::facts::SqlStatement)> =
        HashMap::new();
    for (fi, (_, f)) in files.iter().enumerate() {
        if let Some(m) = &f.mapper {
            for s in &m.statements {
                statements
                    .entry((m.namespace.as_str(), s.id.as_str()))
                    .or_insert((fi as u32, s));
            }
        }
    }
    let mut seen_statements = HashSet::new();
    for m in all().flat_map(|f| &f.mappers) {
        let short = m.method.name.rsplit('.').next().unwrap_or_default();
        if let Some((xf, st)) = statements.get(&(m.namespace.as_str(), short)) {
            let sid = format!("mybatis:{}.{}", m.namespace, st.id);
            let to = pseudo(sid.clone(), *xf, st.line);
            let mut e = edge(
                files,
                &m.method,
                m.method.line,
                EdgeKind::Db,
                &to,
                1.0,
                st.op.clone(),
            );
            e.callee_file = Some(files[*xf as usize].0.to_string());
            out.push(e);
            if seen_statements.insert(sid.clone()) {
                for (table, line) in &st.tables {
                    out.push(table_edge(files, &to, *line, table, st.op.clone()));
                }
            }
        }
        if let Some((tables, line)) = &m.sql {
            for table in tables {
                out.push(table_edge(
                    files,
                    &m.method,
                    *line,
                    table,
                    "annotation".into(),
                ));
            }
        }
    }
    out
}

fn table_edge(
    files: &[(&RepoPath, &FileFacts)],
    from: &At,
    line: u32,
    table: &str,
    detail: String,
) -> Edge {
    Edge {
        caller_file: files[from.file as usize].0.to_string(),
        caller: from.id.clone(),
        caller_name: from.name.clone(),
        line,
        kind: EdgeKind::Db,
        callee: Some(format!("table:{table}")),
        callee_name: format!("table:{table}"),
        callee_file: None,
        callee_line: None,
        caller_flags: 0,
        confidence: 1.0,
        detail,
    }
}

fn config_edge(
    files: &[(&RepoPath, &FileFacts)],
    from: &At,
    key: &str,
    def: Option<(u32, u32, &str)>,
    detail: String,
) -> Edge {
    let id = format!("config:{key}");
    Edge {
        caller_file: files[from.file as usize].0.to_string(),
        caller: from.id.clone(),
        caller_name: from.name.clone(),
        line: from.line,
        kind: EdgeKind::Config,
        callee: Some(id.clone()),
        callee_name: id,
        callee_file: def.map(|d| files[d.0 as usize].0.to_string()),
        callee_line: def.map(|d| d.1),
        caller_flags: 0,
        confidence: 1.0,
        detail,
    }
}

/// The declaration of a project type, with its annotations.
fn decl_of<'f>(
    t: &TypeTable,
    files: &'f [(&RepoPath, &FileFacts)],
    id: TypeId,
) -> Option<&'f crate::graph::facts::TypeDecl> {
    let Origin::Project { file, decl } = t.types[id as usize].origin else {
        return None;
    };
    files[file as usize]
        .1
        .java
        .as_ref()?
        .types
        .get(decl as usize)
}

fn is_bean_class(t: &TypeTable, files: &[(&RepoPath, &FileFacts)], id: TypeId) -> bool {
    let info = &t.types[id as usize];
    if info.is_interface() || info.is_abstract || info.anonymous || info.local {
        return false;
    }
    decl_of(t, files, id).is_some_and(|d| has_any(&d.annotations, STEREOTYPES))
}

fn is_dubbo_service(t: &TypeTable, files: &[(&RepoPath, &FileFacts)], id: TypeId) -> bool {
    let info = &t.types[id as usize];
    if info.is_interface() || info.is_abstract {
        return false;
    }
    let Some(d) = decl_of(t, files, id) else {
        return false;
    };
    if has_any(&d.annotations, &["DubboService"]) {
        return true;
    }
    // Dubbo's own `@Service` (not Spring's): told apart by the import.
    let Origin::Project { file, .. } = info.origin else {
        return false;
    };
    has_any(&d.annotations, &["Service"])
        && t.files[file as usize]
            .single
            .get("Service")
            .is_some_and(|q| q.contains("dubbo"))
}

/// The method `name`/`arity` as the class `c` has it (declared or inherited).
fn method_in(
    t: &TypeTable,
    files: &[(&RepoPath, &FileFacts)],
    c: TypeId,
    name: &str,
    arity: usize,
) -> Option<At> {
    for a in t.ancestry(&Ty::Class(c, Vec::new())) {
        let Ty::Class(at, _) = a else { continue };
        let info = &t.types[at as usize];
        let Some(file) = info.file() else { continue };
        if let Some(m) = info
            .methods_named(name)
            .iter()
            .find(|m| !m.is_abstract && m.arity.is_none_or(|n| n as usize == arity || m.varargs))
        {
            let _ = files;
            return Some(At {
                id: m.id.clone(),
                name: format!("{}.{}", info.fqn, m.name),
                file,
                line: m.line,
            });
        }
    }
    None
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
    fn paths_join_and_compare_by_shape() {
        assert_eq!(
            join_path("/api/orders/", "{id}/pay"),
            "/api/orders/{id}/pay"
        );
        assert_eq!(join_path("", ""), "/");
        assert_eq!(path_shape("/a/{orderId}/b"), path_shape("/a/{id}/b"));
    }

    #[test]
    fn topics_match_like_amqp() {
        assert!(topic_match("order.*", "order.created"));
        assert!(!topic_match("order.*", "order.created.v2"));
        assert!(topic_match("order.#", "order.created.v2"));
        assert!(topic_match("#", "x"));
    }

    #[test]
    fn value_placeholders_with_defaults() {
        assert_eq!(
            placeholders(&["${shop.order.timeout:30}-${b}".to_string()]),
            [
                ("shop.order.timeout".to_string(), Some("30".to_string())),
                ("b".to_string(), None)
            ]
        );
    }
}
