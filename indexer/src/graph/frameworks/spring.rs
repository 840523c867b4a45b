//! Spring web, beans, Dubbo and configuration: routes (`@RequestMapping` and friends on a
//! controller), Feign clients matched to the controller serving their path, calls through
//! injected beans and Dubbo references dispatched to the one implementation, `@Scheduled` entry
//! points, and configuration keys used through `@Value`, `@ConfigurationProperties` and
//! `Environment.getProperty`.

use super::consts::{ann_attr, ann_names, ann_strings, placeholders};
use super::{
    At, FileFw, STEREOTYPES, TypeCx, ann, caller_at, decl_of, edge, has_any, module_of, pseudo,
};
use crate::graph::Files;
use crate::graph::edge::{Edge, EdgeKind};
use crate::graph::facts::{Annotation, CallKind, Expr};
use crate::graph::resolve::{FileResolver, Target};
use crate::graph::types::{Origin, Scope, Ty, TypeId, TypeTable};
use crate::lang::config;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub(super) struct Route {
    handler: At,
    verb: String,
    path: String,
    line: u32,
}

#[derive(Debug, Clone)]
pub(super) struct Feign {
    method: At,
    service: String,
    verb: String,
    path: String,
    line: u32,
}

#[derive(Debug, Clone)]
pub(super) struct Dispatch {
    from: At,
    /// The interface or abstract type named at the call.
    iface: TypeId,
    method: String,
    arity: usize,
    dubbo: bool,
}

#[derive(Debug, Clone)]
pub(super) struct ConfigUse {
    from: At,
    key: String,
    default: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct PropsField {
    from: At,
    key: String,
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
    files: Files<'_>,
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

/// Routes, Feign methods, schedules and configuration uses declared by one type.
pub(super) fn collect_type(cx: &TypeCx<'_>, fw: &mut FileFw) {
    let (t, files, j, d, sc) = (cx.t, cx.files, cx.j, cx.d, &cx.sc);
    let is_controller = has_any(&d.annotations, &["Controller", "RestController"]);
    let feign = ann(&d.annotations, "FeignClient");
    if is_controller || feign.is_some() {
        let mut prefixes = ann(&d.annotations, "RequestMapping")
            .map(|a| cx.attr(a, &["value", "path"]))
            .unwrap_or_default();
        if prefixes.is_empty() {
            prefixes.push(String::new());
        }
        let feign_path = feign.map(|a| cx.attr(a, &["path"])).unwrap_or_default();
        let service = feign
            .map(|a| cx.attr(a, &["name", "value", "serviceId"]))
            .and_then(|v| v.into_iter().next())
            .unwrap_or_default();
        for (mi, m) in d.methods.iter().enumerate() {
            for (verb, path, line) in mappings(t, files, &m.annotations, sc) {
                for prefix in &prefixes {
                    let full = match feign_path.first() {
                        Some(fp) => join_path(&join_path(fp, prefix), &path),
                        None => join_path(prefix, &path),
                    };
                    if feign.is_some() {
                        fw.feign.push(Feign {
                            method: cx.at(mi),
                            service: service.clone(),
                            verb: verb.clone(),
                            path: full,
                            line,
                        });
                    } else {
                        fw.routes.push(Route {
                            handler: cx.at(mi),
                            verb: verb.clone(),
                            path: full,
                            line,
                        });
                    }
                }
            }
        }
        inherited_mappings(cx, feign.is_some(), &prefixes, &feign_path, &service, fw);
    }
    for (mi, m) in d.methods.iter().enumerate() {
        if let Some(a) = ann(&m.annotations, "Scheduled") {
            let mut spec = Vec::new();
            for (k, v) in &a.args {
                if let Some(s) = ann_strings(t, files, v, sc).first() {
                    spec.push(format!("{k}={s}"));
                }
            }
            fw.schedules.push((cx.at(mi), spec.join(" "), a.line));
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
            for (key, default) in placeholders(&cx.attr(a, &["value"])) {
                fw.values.push(ConfigUse {
                    from: At {
                        line: a.line,
                        ..cx.at(mi)
                    },
                    key,
                    default,
                });
            }
        }
    }
    // `@Value` fields and `@ConfigurationProperties` classes.
    let props_prefix = ann(&d.annotations, "ConfigurationProperties")
        .map(|a| cx.attr(a, &["prefix", "value"]))
        .and_then(|v| v.into_iter().next());
    for f in &d.fields {
        let field_at = At {
            id: f.id.clone(),
            name: format!("{}.{}", d.qname, f.name),
            file: cx.fi,
            line: f.line,
        };
        for a in f.annotations.iter().filter(|a| a.simple() == "Value") {
            for (key, default) in placeholders(&cx.attr(a, &["value"])) {
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
}

/// Mappings declared on a shared API interface the controller implements or the Feign client
/// extends (`InventoryController implements InventoryApi`, `InventoryClient extends
/// InventoryApi`): the controller's overriding method is the handler; the client's calls go to
/// the interface's method.
fn inherited_mappings(
    cx: &TypeCx<'_>,
    is_feign: bool,
    own_prefixes: &[String],
    feign_path: &[String],
    service: &str,
    fw: &mut FileFw,
) {
    let (t, files, d) = (cx.t, cx.files, cx.d);
    let Some(me) = cx.sc.lex else { return };
    for a in t.ancestry_of(me).iter().skip(1) {
        let Ty::Class(aid, _) = a else { continue };
        let Origin::Project { file: afi, .. } = t.types[*aid as usize].origin else {
            continue;
        };
        let Some(ad) = decl_of(t, files, *aid) else {
            continue;
        };
        let asc = Scope {
            file: afi,
            lex: Some(*aid),
            method_tparams: &[],
        };
        let mut prefixes = ann(&ad.annotations, "RequestMapping")
            .map(|x| ann_attr(t, files, x, &["value", "path"], &asc))
            .unwrap_or_default();
        if own_prefixes.iter().any(|p| !p.is_empty()) || prefixes.is_empty() {
            prefixes = own_prefixes.to_vec();
        }
        for am in &ad.methods {
            let maps = mappings(t, files, &am.annotations, &asc);
            if maps.is_empty() {
                continue;
            }
            for (verb, path, line) in maps {
                for prefix in &prefixes {
                    if is_feign {
                        let full = match feign_path.first() {
                            Some(fp) => join_path(&join_path(fp, prefix), &path),
                            None => join_path(prefix, &path),
                        };
                        fw.feign.push(Feign {
                            method: At {
                                id: am.id.clone(),
                                name: format!("{}.{}", ad.qname, am.name),
                                file: afi,
                                line: am.line,
                            },
                            service: service.to_string(),
                            verb: verb.clone(),
                            path: full,
                            line,
                        });
                    } else if let Some(mi) = d.methods.iter().position(|m| {
                        m.name == am.name
                            && m.params.len() == am.params.len()
                            && mappings(t, files, &m.annotations, &cx.sc).is_empty()
                    }) {
                        let handler = cx.at(mi);
                        let line = handler.line;
                        fw.routes.push(Route {
                            handler,
                            verb: verb.clone(),
                            path: join_path(prefix, &path),
                            line,
                        });
                    }
                }
            }
        }
    }
}

/// `Environment.getProperty("key")` lookups and calls through injected fields.
pub(super) fn collect_call(r: &mut FileResolver<'_>, i: usize, fw: &mut FileFw) {
    let name = r.j.calls[i].name.as_str();
    if matches!(name, "getProperty" | "getRequiredProperty")
        && let Some(rt) = super::messaging::recv_type(r, i)
        && matches!(
            rt.as_str(),
            "Environment" | "ConfigurableEnvironment" | "PropertyResolver" | "StandardEnvironment"
        )
        && let Some(from) = caller_at(r, i)
        && let Some(key) = super::messaging::arg_const(r, i, 0)
    {
        let default = if r.j.calls[i].args.len() >= 2 {
            super::messaging::arg_const(r, i, 1)
        } else {
            None
        };
        fw.values.push(ConfigUse { from, key, default });
    }
    collect_dispatch(r, i, fw);
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
    let Target::Method { .. } = r.call(i as u32).target else {
        return;
    };
    // The field's declaration: in the enclosing types (lexically), with its annotations.
    let sc = r.scope_of(call);
    let mut lex = sc.lex;
    while let Some(t) = lex {
        let info = &r.table.types[t as usize];
        if let Some(f) = info.field(&field) {
            // Implementations are looked for under the field's declared type: an interface or
            // abstract class of the repository that is not a Feign client (a proxy).
            let Ty::Class(iface, _) = f.ty else {
                return;
            };
            let info_iface = &r.table.types[iface as usize];
            if f.is_static
                || !(info_iface.is_interface() || info_iface.is_abstract)
                || !matches!(info_iface.origin, Origin::Project { .. })
                || decl_of(r.table, r.files, iface)
                    .is_some_and(|d| has_any(&d.annotations, &["FeignClient"]))
            {
                return;
            }
            let Origin::Project { file, decl } = info.origin else {
                return;
            };
            let Some(td) = r
                .files
                .facts(file as usize)
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
                iface,
                method: call.name.clone(),
                arity: call.args.len(),
                dubbo,
            });
            return;
        }
        lex = info.outer;
    }
}

pub(super) struct ConfigIndex<'f> {
    /// canonical key → (file index, line, key as written, value).
    keys: HashMap<String, Vec<(u32, u32, &'f str, &'f str)>>,
    /// module → `spring.application.name`.
    app_names: HashMap<&'f str, &'f str>,
}

impl<'f> ConfigIndex<'f> {
    pub(super) fn new(files: Files<'f>) -> ConfigIndex<'f> {
        let mut keys: HashMap<String, Vec<(u32, u32, &str, &str)>> = HashMap::new();
        let mut app_names = HashMap::new();
        for (fi, (p, f)) in files.iter().enumerate() {
            for k in &f.config {
                keys.entry(config::canonical_key(&k.key))
                    .or_default()
                    .push((fi as u32, k.line, k.key.as_str(), k.value.as_str()));
                if k.key == "spring.application.name" && !k.value.is_empty() {
                    app_names.insert(module_of(p.as_str()), k.value.as_str());
                }
            }
        }
        ConfigIndex { keys, app_names }
    }

    /// Where `key` is defined, nearest to `from_file` (same module first, then path order).
    fn find(&self, files: Files<'_>, key: &str, from_file: u32) -> Option<(u32, u32, &'f str)> {
        self.find_def(files, key, from_file)
            .map(|(f, l, k, _)| (f, l, k))
    }

    /// `${key:default}` placeholders in `s` replaced by the values defined nearest to
    /// `from_file` (or the defaults); unknown keys stay as written.
    pub(super) fn expand(&self, files: Files<'_>, s: &str, from_file: u32) -> String {
        if !s.contains("${") {
            return s.to_string();
        }
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find("${") {
            out.push_str(&rest[..i]);
            let Some(end) = rest[i..].find('}') else {
                out.push_str(&rest[i..]);
                return out;
            };
            let inner = &rest[i + 2..i + end];
            let (key, default) = match inner.split_once(':') {
                Some((k, d)) => (k, Some(d)),
                None => (inner, None),
            };
            match (self.find_def(files, key, from_file), default) {
                (Some((_, _, _, v)), _) => out.push_str(v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => out.push_str(&rest[i..i + end + 1]),
            }
            rest = &rest[i + end + 1..];
        }
        out.push_str(rest);
        out
    }

    fn find_def(
        &self,
        files: Files<'_>,
        key: &str,
        from_file: u32,
    ) -> Option<(u32, u32, &'f str, &'f str)> {
        let defs = self.keys.get(&config::canonical_key(key))?;
        let from = files.path(from_file as usize).as_str();
        defs.iter()
            .max_by_key(|(f, l, _, _)| {
                let p = files.path(*f as usize).as_str();
                let common = p
                    .bytes()
                    .zip(from.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                // Prefer `application.yml` over profiles, then the earliest line.
                let plain = files
                    .path(*f as usize)
                    .file_name()
                    .starts_with("application.");
                (common, plain, std::cmp::Reverse(*l))
            })
            .copied()
    }
}

/// Routes, Feign calls, schedules, bean and Dubbo dispatch, configuration keys.
pub(super) fn link(
    t: &TypeTable,
    files: Files<'_>,
    fw: &[FileFw],
    cfg: &ConfigIndex<'_>,
    out: &mut Vec<Edge>,
) {
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
                let module = module_of(files.path(r.handler.file as usize).as_str());
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
}

fn config_edge(
    files: Files<'_>,
    from: &At,
    key: &str,
    def: Option<(u32, u32, &str)>,
    detail: String,
) -> Edge {
    let id = format!("config:{key}");
    Edge {
        caller_file: files.path(from.file as usize).to_string(),
        caller: from.id.clone(),
        caller_name: from.name.clone(),
        line: from.line,
        kind: EdgeKind::Config,
        callee: Some(id.clone()),
        callee_name: id,
        callee_file: def.map(|d| files.path(d.0 as usize).to_string()),
        callee_line: def.map(|d| d.1),
        caller_flags: 0,
        confidence: 1.0,
        detail,
        site: Default::default(),
    }
}

fn is_bean_class(t: &TypeTable, files: Files<'_>, id: TypeId) -> bool {
    let info = &t.types[id as usize];
    if info.is_interface() || info.is_abstract || info.anonymous || info.local {
        return false;
    }
    decl_of(t, files, id).is_some_and(|d| has_any(&d.annotations, STEREOTYPES))
}

fn is_dubbo_service(t: &TypeTable, files: Files<'_>, id: TypeId) -> bool {
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
fn method_in(t: &TypeTable, files: Files<'_>, c: TypeId, name: &str, arity: usize) -> Option<At> {
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
