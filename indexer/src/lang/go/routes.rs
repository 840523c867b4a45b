//! HTTP in Go: routes registered with net/http (`HandleFunc("/path", h)`, Go 1.22's
//! `"GET /path/{id}"` patterns), gorilla/mux (`r.HandleFunc("/x/{id}", h).Methods("GET")`,
//! `PathPrefix(…).Subrouter()`), gin, echo and chi (`r.GET("/x/:id", h)`, `Group("/api")`), as
//! `route:VERB /path/{var}` edges to their handlers; and client calls of net/http
//! (`http.Get(url)`, `client.Post(url, …)`, `http.NewRequest("POST", url, …)`) with a literal
//! URL, as requests for [`crate::graph::http`] to meet with the route that serves them.

use super::expr::Expr;
use super::facts::{GoCall, LocalSrc};
use super::resolve::{At, Callee, Repo};
use crate::graph::{Edge, EdgeKind};

/// The route or request a call makes, if any.
pub(super) fn edge(r: &Repo<'_>, at: At, c: &GoCall, callee: &Callee) -> Option<Edge> {
    if let Callee::Ext(x) = callee
        && let Some(e) = request(r, at, c, x)
    {
        return Some(e);
    }
    let Expr::Sel(recv, m) = &c.func else {
        return None;
    };
    let (verb, path, handler) = registration(m, &c.args, &c.verbs)?;
    let target = match handler {
        Expr::FuncLit(_) => Some((at.fi, c.caller)),
        h => handler_def(r, at, h, 0),
    }?;
    let path = template(&format!("{}{}", prefix(r, at, recv, 0), path));
    let (id, line) = &r.facts(target.0).defs[target.1 as usize];
    let mut e = r.edge(
        at.fi,
        c.caller,
        c.line,
        EdgeKind::Route,
        Some(id.clone()),
        String::new(),
    );
    e.caller = format!("route:{verb} {path}");
    e.callee_file = Some(r.files[target.0].0.to_string());
    e.callee_line = Some(*line);
    Some(e)
}

/// (verb, path, handler) of a route registration.
fn registration<'c>(
    m: &str,
    args: &'c [Expr],
    verbs: &[String],
) -> Option<(String, String, &'c Expr)> {
    let handler = args.last()?;
    let first = |i: usize| match args.get(i) {
        Some(Expr::Str(s)) => Some(s.clone()),
        _ => None,
    };
    match m {
        "HandleFunc" | "Handle" if args.len() == 2 => {
            let pattern = first(0)?;
            let (verb, path) = match pattern.split_once(' ') {
                Some((v, p)) if v.chars().all(|c| c.is_ascii_uppercase()) => {
                    (v.to_string(), p.trim().to_string())
                }
                _ => (verbs.first().cloned().unwrap_or("ANY".into()), pattern),
            };
            path.starts_with('/').then_some((verb, path, handler))
        }
        // gin's `Handle("GET", "/p", h)`.
        "Handle" if args.len() >= 3 => {
            let (verb, path) = (first(0)?, first(1)?);
            path.starts_with('/')
                .then_some((verb.to_uppercase(), path, handler))
        }
        _ => {
            let verb = match m {
                "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "HEAD" | "OPTIONS" => m.to_string(),
                "Get" | "Post" | "Put" | "Delete" | "Patch" | "Head" | "Options" => {
                    m.to_uppercase()
                }
                "Any" => "ANY".to_string(),
                _ => return None,
            };
            let path = first(0).filter(|p| p.starts_with('/') && args.len() >= 2)?;
            Some((verb, path, handler))
        }
    }
}

/// The function a handler value runs: a function or method value, `http.HandlerFunc(h)`, a
/// value whose type has `ServeHTTP`, or the factory that returns the handler.
fn handler_def(r: &Repo<'_>, at: At, h: &Expr, depth: u32) -> Option<(usize, u32)> {
    if depth > 8 {
        return None;
    }
    match h {
        Expr::Name(_) | Expr::Sel(..) => {
            if let Callee::Def(f, d) = r.callee(at, h, 0) {
                return Some((f, d));
            }
            r.method_of(&r.type_of(at, h, 0), "ServeHTTP")
        }
        Expr::Call(f, args) => {
            if let (Expr::Sel(_, m), [inner]) = (f.as_ref(), args.as_slice())
                && m.ends_with("HandlerFunc")
            {
                return handler_def(r, at, inner, depth + 1);
            }
            r.method_of(&r.type_of(at, h, 0), "ServeHTTP")
                .or_else(|| match r.callee(at, f, 0) {
                    Callee::Def(f, d) => Some((f, d)),
                    _ => None,
                })
        }
        Expr::Composite(_) => r.method_of(&r.type_of(at, h, 0), "ServeHTTP"),
        _ => None,
    }
}

/// The path prefix of a route group: `r.Group("/api")`, `r.PathPrefix("/api").Subrouter()`,
/// through the locals bound to them.
fn prefix(r: &Repo<'_>, at: At, e: &Expr, depth: u32) -> String {
    if depth > 8 {
        return String::new();
    }
    match e {
        Expr::Call(f, args) => match f.as_ref() {
            Expr::Sel(x, m) if matches!(m.as_str(), "Group" | "PathPrefix" | "Route") => {
                let own = match args.first() {
                    Some(Expr::Str(s)) => s.as_str(),
                    _ => "",
                };
                format!("{}{own}", prefix(r, at, x, depth + 1))
            }
            Expr::Sel(x, m) if m == "Subrouter" => prefix(r, at, x, depth + 1),
            _ => String::new(),
        },
        Expr::Name(n) => {
            let Some(i) = r.local(at, n) else {
                return String::new();
            };
            let l = &r.facts(at.fi).locals[i as usize];
            match &l.src {
                LocalSrc::Value(v, 0) => prefix(
                    r,
                    At {
                        fi: at.fi,
                        at: l.decl,
                    },
                    v,
                    depth + 1,
                ),
                _ => String::new(),
            }
        }
        _ => String::new(),
    }
}

/// A route path with its variables written `{name}`: gorilla's `{id:[0-9]+}` and gin's `:id`
/// and `*rest`.
fn template(path: &str) -> String {
    let mut out = String::new();
    for seg in path.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        let var = seg
            .strip_prefix(':')
            .or_else(|| seg.strip_prefix('*'))
            .or_else(|| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')));
        match var {
            Some(v) => {
                let v = v.split(':').next().unwrap_or(v).trim_end_matches("...");
                out.push('{');
                out.push_str(v);
                out.push('}');
            }
            None => out.push_str(seg),
        }
    }
    if out.is_empty() { "/".to_string() } else { out }
}

/// A net/http client call with a literal URL, as a request.
fn request(r: &Repo<'_>, at: At, c: &GoCall, callee: &str) -> Option<Edge> {
    let (owner, name) = callee.rsplit_once('.')?;
    let (verb, url) = match (owner, name) {
        ("net/http" | "net/http.Client", "Get" | "Head" | "Post" | "PostForm") => {
            let v = if name == "PostForm" { "POST" } else { name };
            (v.to_uppercase(), c.args.first()?)
        }
        ("net/http", "NewRequest") => (verb(c.args.first()?)?, c.args.get(1)?),
        ("net/http", "NewRequestWithContext") => (verb(c.args.get(1)?)?, c.args.get(2)?),
        _ => return None,
    };
    let url = url_template(url, 0).filter(|u| u.contains('/'))?;
    let mut e = r.edge(
        at.fi,
        c.caller,
        c.line,
        EdgeKind::Call,
        None,
        name.to_string(),
    );
    crate::graph::http::make_request(&mut e, &verb, &url);
    Some(e)
}

/// `"POST"` or `http.MethodPost`.
fn verb(e: &Expr) -> Option<String> {
    match e {
        Expr::Str(s) => Some(s.to_uppercase()),
        Expr::Sel(_, m) => m.strip_prefix("Method").map(str::to_uppercase),
        _ => None,
    }
}

/// A URL as a template: literals kept, anything computed `{}`, `fmt.Sprintf`'s verbs too.
fn url_template(e: &Expr, depth: u32) -> Option<String> {
    if depth > 32 {
        return None;
    }
    Some(match e {
        Expr::Str(s) => s.clone(),
        Expr::Add(a, b) => url_template(a, depth + 1)? + &url_template(b, depth + 1)?,
        Expr::Call(f, args) if matches!(f.as_ref(), Expr::Sel(_, m) if m == "Sprintf") => {
            let Some(Expr::Str(format)) = args.first() else {
                return None;
            };
            sprintf_template(format)
        }
        _ => "{}".to_string(),
    })
}

/// `"%s/orders/%d"` → `"{}/orders/{}"`.
fn sprintf_template(format: &str) -> String {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        // Flags, width and precision, then the verb letter.
        while chars.peek().is_some_and(|c| !c.is_ascii_alphabetic()) {
            chars.next();
        }
        chars.next();
        out.push_str("{}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_urls_become_templates() {
        assert_eq!(template("/x/{id:[0-9]+}/y"), "/x/{id}/y");
        assert_eq!(template("/users/:id/*rest"), "/users/{id}/{rest}");
        assert_eq!(template("/files/{path...}"), "/files/{path}");
        assert_eq!(sprintf_template("%s/orders/%d?x=%%"), "{}/orders/{}?x=%");
        let url = Expr::Add(
            Box::new(Expr::Name("base".into())),
            Box::new(Expr::Str("/orders".into())),
        );
        assert_eq!(url_template(&url, 0).as_deref(), Some("{}/orders"));
    }
}
