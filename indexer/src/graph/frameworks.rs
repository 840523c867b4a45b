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
//! [`link`] matches what all files collected. One file per framework family: [`spring`] (web,
//! beans, Dubbo, configuration), [`messaging`] (MQ, events), [`mybatis`]; [`consts`] reads
//! constant strings and annotation values.

mod consts;
mod messaging;
mod mybatis;
mod spring;

pub use consts::const_str;

use crate::graph::Files;
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{Annotation, JavaFacts, TypeDecl};
use crate::graph::resolve::{FileResolver, caller_of};
use crate::graph::types::{Origin, Scope, TypeId, TypeTable};

/// A method as an edge endpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct At {
    pub id: String,
    pub name: String,
    pub file: u32,
    pub line: u32,
}

/// What one Java file contributes to framework edges.
#[derive(Debug, Default)]
pub struct FileFw {
    routes: Vec<spring::Route>,
    feign: Vec<spring::Feign>,
    schedules: Vec<(At, String, u32)>,
    dispatch: Vec<spring::Dispatch>,
    values: Vec<spring::ConfigUse>,
    props: Vec<spring::PropsField>,
    listeners: Vec<messaging::Listener>,
    sends: Vec<messaging::Send>,
    queues: Vec<messaging::RabbitQueue>,
    exchanges: Vec<messaging::RabbitExchange>,
    bindings: Vec<messaging::RabbitBinding>,
    mappers: Vec<mybatis::MapperMethod>,
}

/// One declared type of the file being collected, with what reading its annotations needs.
struct TypeCx<'a> {
    t: &'a TypeTable,
    files: Files<'a>,
    j: &'a JavaFacts,
    fi: u32,
    d: &'a TypeDecl,
    sc: Scope<'a>,
}

impl TypeCx<'_> {
    /// Method `m` of the type as an endpoint.
    fn at(&self, m: usize) -> At {
        let m = &self.d.methods[m];
        At {
            id: m.id.clone(),
            name: format!("{}.{}", self.d.qname, m.name),
            file: self.fi,
            line: m.line,
        }
    }

    /// Strings of the first of `keys` present in annotation `a`.
    fn attr(&self, a: &Annotation, keys: &[&str]) -> Vec<String> {
        consts::ann_attr(self.t, self.files, a, keys, &self.sc)
    }
}

/// Collects one file's framework facts (inside its resolver).
pub fn collect(r: &mut FileResolver<'_>) -> FileFw {
    let mut fw = FileFw::default();
    let (t, files, j, fi) = (r.table, r.files, r.j, r.fi);
    for (di, d) in j.types.iter().enumerate() {
        let Some(tid) = r.type_id(di as u32) else {
            continue;
        };
        let cx = TypeCx {
            t,
            files,
            j,
            fi,
            d,
            sc: Scope {
                file: fi,
                lex: Some(tid),
                method_tparams: &[],
            },
        };
        spring::collect_type(&cx, &mut fw);
        messaging::collect_type(&cx, &mut fw);
        mybatis::collect_type(&cx, &mut fw);
    }
    let mut topology = messaging::Topology::default();
    for i in 0..j.calls.len() {
        messaging::collect_call(r, i, &mut topology, &mut fw);
        spring::collect_call(r, i, &mut fw);
    }
    topology.finish(&mut fw);
    fw
}

/// Matches what all files collected into framework edges.
pub fn link(t: &TypeTable, files: Files<'_>, fw: &[FileFw]) -> Vec<Edge> {
    let mut out = Vec::new();
    let cfg = spring::ConfigIndex::new(files);
    spring::link(t, files, fw, &cfg, &mut out);
    messaging::link(t, files, fw, &cfg, &mut out);
    mybatis::link(files, fw, &mut out);
    out
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

fn edge(
    files: Files<'_>,
    from: &At,
    line: u32,
    kind: EdgeKind,
    to: &At,
    conf: f32,
    detail: String,
) -> Edge {
    Edge {
        caller_file: files.path(from.file as usize).to_string(),
        caller: from.id.clone(),
        caller_name: from.name.clone(),
        line,
        kind,
        callee: Some(to.id.clone()),
        callee_name: to.name.clone(),
        callee_file: Some(files.path(to.file as usize).to_string()),
        callee_line: Some(to.line),
        caller_flags: 0,
        confidence: conf,
        detail,
        site: Default::default(),
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

/// Per file: module root (`order/` of `order/src/main/java/..`).
fn module_of(path: &str) -> &str {
    match path.find("/src/") {
        Some(i) => &path[..i],
        None if path.starts_with("src/") => "",
        None => path.rsplit_once('/').map_or("", |(d, _)| d),
    }
}

/// The declaration of a project type, with its annotations.
fn decl_of<'f>(
    t: &TypeTable,
    files: Files<'f>,
    id: TypeId,
) -> Option<&'f crate::graph::facts::TypeDecl> {
    let Origin::Project { file, decl } = t.types[id as usize].origin else {
        return None;
    };
    files
        .facts(file as usize)
        .java
        .as_ref()?
        .types
        .get(decl as usize)
}
