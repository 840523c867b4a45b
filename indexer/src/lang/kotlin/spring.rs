//! Spring in Kotlin, in the edge forms the Java side gives (`graph::frameworks`): request
//! mappings on a controller and its functions as `route:VERB /prefix/path` edges; `@Scheduled`
//! functions from `schedule:cron=…`; a call through an injected property (constructor
//! parameter or `@Autowired` field) typed by an interface with exactly one bean implementation
//! (`@Service`, `@Component`, … in Kotlin or Java) dispatched to it (`bean`); `KafkaTemplate.send`
//! and `RabbitTemplate.convertAndSend(queue, …)` met with the `@KafkaListener` /
//! `@RabbitListener` functions of that topic or queue (`event`).

use super::facts::{Ann, Expr, KtCall, KtFacts};
use super::resolve::{At, Cls, Repo, Target, Ty};
use crate::graph::{Edge, EdgeKind};

const STEREOTYPES: &[&str] = &[
    "Component",
    "Service",
    "Repository",
    "Controller",
    "RestController",
    "Configuration",
    "Named",
];

fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn find<'a>(anns: &'a [Ann], name: &str) -> Option<&'a Ann> {
    anns.iter().find(|a| simple(&a.name) == name)
}

/// Routes and schedules declared in a file.
pub(super) fn entry_edges(r: &Repo<'_>, fi: usize, f: &KtFacts) -> Vec<Edge> {
    let mut out = Vec::new();
    for (k, fun) in f.funs.iter().enumerate() {
        let Some(ci) = fun.owner else { continue };
        let class = &f.classes[ci as usize];
        let prefixes = match find(&class.annotations, "RequestMapping") {
            Some(a) => a.arg(&["value", "path"]),
            None => Vec::new(),
        };
        let prefixes = if prefixes.is_empty() {
            vec![String::new()]
        } else {
            prefixes
        };
        let target = Target::Fun(fi, k as u32);
        for a in &fun.annotations {
            let Some((verbs, paths)) = mapping(a) else {
                continue;
            };
            for verb in &verbs {
                for prefix in &prefixes {
                    for path in &paths {
                        let mut e = r.edge(fi, fun.def, a.line, EdgeKind::Route, &target);
                        e.caller = format!("route:{verb} {}", join(prefix, path));
                        out.push(e);
                    }
                }
            }
        }
        if let Some(a) = find(&fun.annotations, "Scheduled") {
            let spec: Vec<String> = a
                .args
                .iter()
                .filter_map(|(k, v)| Some(format!("{k}={}", v.first()?)))
                .collect();
            let mut e = r.edge(fi, fun.def, a.line, EdgeKind::Event, &target);
            e.caller = format!("schedule:{}", spec.join(" "));
            out.push(e);
        }
    }
    out
}

/// The verbs and paths of a mapping annotation.
fn mapping(a: &Ann) -> Option<(Vec<String>, Vec<String>)> {
    let verb = match simple(&a.name) {
        "GetMapping" => "GET",
        "PostMapping" => "POST",
        "PutMapping" => "PUT",
        "DeleteMapping" => "DELETE",
        "PatchMapping" => "PATCH",
        "RequestMapping" => "",
        _ => return None,
    };
    let verbs = if verb.is_empty() {
        let listed: Vec<String> = a
            .arg(&["method"])
            .iter()
            .map(|m| m.rsplit('.').next().unwrap_or(m).to_string())
            .collect();
        if listed.is_empty() {
            vec!["ANY".to_string()]
        } else {
            listed
        }
    } else {
        vec![verb.to_string()]
    };
    let mut paths = a.arg(&["value", "path"]);
    if paths.is_empty() {
        paths.push(String::new());
    }
    Some((verbs, paths))
}

fn join(prefix: &str, path: &str) -> String {
    let parts: Vec<&str> = prefix
        .split('/')
        .chain(path.split('/'))
        .filter(|p| !p.is_empty())
        .collect();
    format!("/{}", parts.join("/"))
}

/// A call through an injected property typed by an interface with one bean implementation:
/// an edge to that implementation's method.
pub(super) fn bean_edge(r: &Repo<'_>, at: At, c: &KtCall, target: &Target) -> Option<Edge> {
    let Expr::Nav(x, n) = &c.func else {
        return None;
    };
    let injected = match x.as_ref() {
        Expr::Name(_) => true,
        Expr::Nav(this, _) => **this == Expr::This,
        _ => false,
    };
    if !injected || !matches!(target, Target::Fun(..) | Target::Java(..)) {
        return None;
    }
    let Ty::Inst(iface) = r.type_of(at, x, 0) else {
        return None;
    };
    if !r.is_interface(iface) {
        return None;
    }
    let beans: Vec<Cls> = r
        .all_classes()
        .filter(|&c| !r.is_interface(c) && is_bean(r, c) && r.ancestors(c).contains(&iface))
        .collect();
    let [one] = beans.as_slice() else {
        return None;
    };
    let to = r.method(*one, n, 0)?;
    let mut e = r.edge(at.fi, c.caller, c.line, EdgeKind::Call, &to);
    e.detail = "bean".to_string();
    e.callee_name = n.clone();
    Some(e)
}

fn is_bean(r: &Repo<'_>, c: Cls) -> bool {
    r.annotation_names(c)
        .iter()
        .any(|a| STEREOTYPES.contains(&simple(a)))
}

/// Listeners by (`kafka` / `rabbitmq`, topic or queue): (file, function).
fn listeners(r: &Repo<'_>) -> Vec<(&'static str, String, usize, u32)> {
    let mut out = Vec::new();
    for fi in 0..r.files.len() {
        let Some(f) = r.kt_facts(fi) else { continue };
        for (k, fun) in f.funs.iter().enumerate() {
            for (ann, system, keys) in [
                ("KafkaListener", "kafka", ["topics", "value"]),
                ("RabbitListener", "rabbitmq", ["queues", "value"]),
            ] {
                if let Some(a) = find(&fun.annotations, ann) {
                    for key in a.arg(&keys) {
                        out.push((system, key, fi, k as u32));
                    }
                }
            }
        }
    }
    out
}

/// `kafkaTemplate.send("topic", …)` and `rabbitTemplate.convertAndSend("queue", msg)` → the
/// listeners of that topic or queue.
pub(super) fn message_edges(r: &Repo<'_>) -> Vec<(usize, Edge)> {
    let listeners = listeners(r);
    if listeners.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for fi in 0..r.files.len() {
        let Some(f) = r.kt_facts(fi) else { continue };
        for c in &f.calls {
            let Expr::Nav(x, n) = &c.func else { continue };
            let at = At {
                fi,
                at: c.at,
                class: c.class,
            };
            let system = match (n.as_str(), c.args.len()) {
                ("send", 2..) => "kafka",
                ("convertAndSend", 2) => "rabbitmq",
                _ => continue,
            };
            let Some(Some(key)) = c.args.first() else {
                continue;
            };
            let template = match r.type_of(at, x, 0) {
                Ty::Ext(t) => t,
                _ => continue,
            };
            let fits = match system {
                "kafka" => template.ends_with("KafkaTemplate"),
                _ => template.ends_with("RabbitTemplate") || template.ends_with("AmqpTemplate"),
            };
            if !fits {
                continue;
            }
            for (_, _, lf, lk) in listeners.iter().filter(|l| l.0 == system && l.1 == *key) {
                let mut e = r.edge(
                    fi,
                    c.caller,
                    c.line,
                    EdgeKind::Event,
                    &Target::Fun(*lf, *lk),
                );
                e.detail = match system {
                    "kafka" => format!("kafka topic={key}"),
                    _ => format!("rabbitmq queue={key}"),
                };
                out.push((fi, e));
            }
        }
    }
    out
}
