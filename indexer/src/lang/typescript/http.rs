//! HTTP facts of a file: the routes it declares — Express (`app.get('/x/:id', handler)`,
//! `router.post(…)`), NestJS (`@Controller('orders')` + `@Get(':id')`) — and the requests it
//! makes — axios (`axios.get('/api/users/' + id)`, `this.http.post(…)`), `fetch(`${BASE}/x`)`,
//! `request({ url, method })`. Paths are templates with variables written `{name}`, the form
//! every language shares (`route:GET /orders/{id}`).

use super::facts::chain;
use super::symbols::{children, named, string_text};
use crate::model::{Symbol, SymbolKind};
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

const VERBS: &[&str] = &[
    "get", "post", "put", "delete", "patch", "head", "options", "all",
];

/// A route and what handles it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsRoute {
    /// The object the route is declared on (`router`), for its mounts; empty for Nest.
    pub group: Vec<String>,
    /// `GET`, `POST`…; `ANY` for Express's `all`.
    pub verb: String,
    /// The path template, prefix included when the file says it (a Nest controller's).
    pub path: String,
    pub handler: Handler,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Handler {
    /// A definition of the file (a Nest controller method).
    Def(u32),
    /// A name passed to Express (`app.get('/x', orders.show)`), seen from `scope`.
    Chain { scope: u32, chain: Vec<String> },
    /// An inline function: the definition that registers it runs it.
    Inline(u32),
}

/// `app.use('/api', router)`: the routes of `router` (or of the module required) are under
/// `/api`, and under wherever `app` is itself mounted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsMount {
    pub scope: u32,
    /// The object mounted on (`app`).
    pub receiver: Vec<String>,
    pub prefix: String,
    /// The router mounted: a name, or the specifier of `require('./routes')`.
    pub router: Mounted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Mounted {
    Name(String),
    Module(String),
}

/// A request the file makes: `client` is the callee as written (`axios.get`, `fetch`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TsRequest {
    pub scope: u32,
    pub client: String,
    /// `GET`… (`fetch` without a `method` is `GET`; a wrapper without one is `ANY`).
    pub verb: String,
    /// The URL template: literal parts as written, each interpolated or concatenated value a
    /// `{name}` (`{id}`, `{BASE}`, `{user.id}`; `{}` when it is not a name).
    pub url: String,
    pub line: u32,
    /// The name a config object gives as its method (`method: method`), "" otherwise: with the
    /// URL a parameter too, the function is a wrapper its callers name both to.
    #[serde(default)]
    pub method_from: String,
}

/// A request whose URL names a module-level string constant (`url: GoodsList` with
/// `const GoodsList = '/goods/list'`) takes the constant's value.
pub(super) fn inline_constants(requests: &mut [TsRequest], symbols: &[Symbol]) {
    for r in requests.iter_mut() {
        r.url = with_constants(&r.url, symbols);
    }
}

/// `url` with each `{NAME}` of a module-level string constant replaced by its value.
pub(super) fn with_constants(url: &str, symbols: &[Symbol]) -> String {
    let mut url = url.to_string();
    for s in symbols.iter().filter(|s| s.kind == SymbolKind::Field) {
        let field = format!("{{{}}}", s.name);
        if !url.contains(&field) {
            continue;
        }
        let Some(value) = string_value_of(&s.signature) else {
            continue;
        };
        url = url.replace(&field, &value);
    }
    url
}

/// The module-level string constants (`export const ORDERS = '/api/orders'`), by name: what a
/// request in another module that imports one takes.
pub(super) fn string_constants(symbols: &[Symbol]) -> Vec<(String, String)> {
    let module = symbols.first().map(|m| &m.id);
    symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Field && s.parent.as_ref() == module)
        .filter_map(|s| Some((s.name.clone(), string_value_of(&s.signature)?)))
        .collect()
}

/// `const X = '/a/b'` (any quote) → `/a/b`.
fn string_value_of(signature: &str) -> Option<String> {
    let rhs = signature
        .split_once('=')?
        .1
        .trim()
        .trim_end_matches(';')
        .trim();
    let quote = rhs
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let inner = rhs.strip_prefix(quote)?.strip_suffix(quote)?;
    (!inner.contains(quote) && !inner.contains("${")).then(|| inner.to_string())
}

/// An Express route registration, when `callee(args)` is one.
pub(super) fn route(callee: &[String], args: Node<'_>, src: &[u8], scope: u32) -> Option<TsRoute> {
    let (method, receiver) = callee.split_last()?;
    if receiver.is_empty() || client_like(receiver) || !VERBS.contains(&method.as_str()) {
        return None;
    }
    let list: Vec<Node<'_>> = named(args).filter(|a| a.kind() != "comment").collect();
    let (first, last) = (list.first()?, list.last()?);
    if list.len() < 2 || first.kind() != "string" {
        return None;
    }
    let path = string_text(*first, src);
    if !path.starts_with('/') {
        return None;
    }
    let handler = match last.kind() {
        "arrow_function" | "function_expression" | "function" => Handler::Inline(scope),
        _ => Handler::Chain {
            scope,
            chain: chain(*last, src)?,
        },
    };
    Some(TsRoute {
        group: receiver.to_vec(),
        verb: verb(method),
        path: express_template(&path),
        handler,
        line: args.start_position().row as u32 + 1,
    })
}

/// An Express mount, when `callee(args)` is one.
pub(super) fn mount(callee: &[String], args: Node<'_>, src: &[u8], scope: u32) -> Option<TsMount> {
    let (method, receiver) = callee.split_last()?;
    if method != "use" || receiver.is_empty() {
        return None;
    }
    let mut list = named(args).filter(|a| a.kind() != "comment");
    let first = list.next()?;
    let prefix = (first.kind() == "string").then(|| string_text(first, src))?;
    if !prefix.starts_with('/') {
        return None;
    }
    let router = list.last()?;
    let router = match super::facts::required(router, src) {
        Some(spec) => Mounted::Module(spec),
        None => match chain(router, src)?.as_slice() {
            [name] => Mounted::Name(name.clone()),
            _ => return None,
        },
    };
    Some(TsMount {
        scope,
        receiver: receiver.to_vec(),
        prefix: express_template(&prefix),
        router,
    })
}

/// An HTTP client call, when `callee(args)` is one.
pub(super) fn request(
    callee: &[String],
    args: Node<'_>,
    src: &[u8],
    scope: u32,
    call: Node<'_>,
) -> Option<TsRequest> {
    let (method, receiver) = callee.split_last()?;
    let first = named(args).find(|a| a.kind() != "comment")?;
    let mut method_from = String::new();
    let (verb, url) = if method == "fetch"
        && receiver.iter().all(|r| r == "window" || r == "globalThis")
    {
        let options = named(args).nth(1);
        let verb = options
            .and_then(|o| property(o, "method", src))
            .map(|m| string_text(m, src).to_uppercase())
            .unwrap_or_else(|| "GET".into());
        (verb, url_template(first, src)?)
    } else if VERBS.contains(&method.as_str()) && !receiver.is_empty() && client_like(receiver) {
        (verb(method), url_template(first, src)?)
    } else if first.kind() == "object"
        && (method == "request" || method == "axios" || client_like(callee))
    {
        // `request({ url, method })`, `axios({ … })`: a wrapper taking a config object.
        let url = url_template(property(first, "url", src)?, src)?;
        let method = property(first, "method", src);
        method_from = method
            .filter(|m| m.kind() == "identifier" || m.kind() == "shorthand_property_identifier")
            .map(|m| String::from_utf8_lossy(&src[m.byte_range()]).into_owned())
            .unwrap_or_default();
        let verb = method
            .filter(|m| m.kind() == "string")
            .map(|m| string_text(m, src).to_uppercase())
            .unwrap_or_else(|| "ANY".into());
        (verb, url)
    } else {
        return None;
    };
    Some(TsRequest {
        scope,
        client: callee.join("."),
        verb,
        url,
        line: call.start_position().row as u32 + 1,
        method_from,
    })
}

/// Arguments a wrapper may take a URL or method from: the first [`URL_ARGS`], as templates when
/// they are a literal, a template, a concatenation or a member of a value (`api.GoodsList`).
pub(super) fn url_args(args: Node<'_>, src: &[u8]) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = named(args)
        .filter(|a| a.kind() != "comment")
        .take(URL_ARGS)
        .map(|a| match a.kind() {
            "string" | "template_string" | "binary_expression" | "member_expression" => {
                url_template(a, src)
            }
            _ => None,
        })
        .collect();
    while out.last().is_some_and(Option::is_none) {
        out.pop();
    }
    out
}

/// How many leading arguments of a call [`url_args`] keeps.
pub(super) const URL_ARGS: usize = 3;

/// `module.exports = { GoodsList: WxApiRoot + 'goods/list' }`: the URL-valued properties of an
/// exported object, as templates.
pub(super) fn exported_url(value: Node<'_>, src: &[u8]) -> Option<String> {
    matches!(
        value.kind(),
        "string" | "template_string" | "binary_expression"
    )
    .then(|| url_template(value, src))
    .flatten()
}

/// NestJS: each method of an `@Controller(prefix)` class decorated `@Get(path)`, `@Post()`…
pub(super) fn nest_routes(symbols: &[Symbol]) -> Vec<TsRoute> {
    let mut out = Vec::new();
    for (i, s) in symbols.iter().enumerate() {
        if s.kind != SymbolKind::Method {
            continue;
        }
        let Some(class) = s
            .parent
            .as_ref()
            .and_then(|p| symbols.iter().find(|c| &c.id == p))
        else {
            continue;
        };
        let Some(prefix) = class
            .annotations
            .iter()
            .find_map(|a| decorator_arg(a, "Controller"))
        else {
            continue;
        };
        for a in &s.annotations {
            for v in VERBS {
                let name = format!("{}{}", v[..1].to_uppercase(), &v[1..]);
                if let Some(path) = decorator_arg(a, &name) {
                    out.push(TsRoute {
                        group: Vec::new(),
                        verb: verb(v),
                        path: join_path(&prefix, &express_template(&path)),
                        handler: Handler::Def(i as u32),
                        line: s.start_line,
                    });
                }
            }
        }
    }
    out
}

/// `@Name('x')` or `@Name()` → `x` / "" (`@Name({ path: 'x' })` → `x`).
fn decorator_arg(written: &str, name: &str) -> Option<String> {
    let rest = written.strip_prefix('@')?.strip_prefix(name)?;
    let args = rest.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
    if args.is_empty() {
        return Some(String::new());
    }
    let quoted = |s: &str| {
        let q = s.chars().next()?;
        matches!(q, '\'' | '"' | '`')
            .then(|| s[1..].split(q).next().map(str::to_string))
            .flatten()
    };
    if let Some(p) = args.find("path:") {
        return quoted(args[p + 5..].trim());
    }
    quoted(args)
}

/// A receiver that names an HTTP client rather than a server: `axios`, `http`, `this.http`,
/// `apiClient`, `request`.
fn client_like(receiver: &[String]) -> bool {
    receiver.iter().any(|r| {
        let r = r.to_ascii_lowercase();
        [
            "axios",
            "http",
            "client",
            "api",
            "request",
            "fetch",
            "ky",
            "superagent",
            "instance",
        ]
        .iter()
        .any(|c| r.contains(c))
    })
}

fn verb(method: &str) -> String {
    if method == "all" {
        "ANY".into()
    } else {
        method.to_uppercase()
    }
}

/// `/orders/:id` → `/orders/{id}` (a regex suffix such as `:id(\d+)` dropped).
pub(super) fn express_template(path: &str) -> String {
    path.split('/')
        .map(|seg| match seg.strip_prefix(':') {
            Some(v) => {
                let name: String = v
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                format!("{{{name}}}")
            }
            None => seg.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Parts of a path joined with one `/` between them, starting with `/`.
pub(super) fn join_path(prefix: &str, path: &str) -> String {
    let mut s = String::new();
    for part in prefix
        .split('/')
        .chain(path.split('/'))
        .filter(|p| !p.is_empty())
    {
        s.push('/');
        s.push_str(part);
    }
    if s.is_empty() { "/".into() } else { s }
}

/// A URL as a template: `'/x'`, `` `${BASE}/users/${id}` ``, `'/users/' + id`.
fn url_template(n: Node<'_>, src: &[u8]) -> Option<String> {
    match n.kind() {
        "string" => Some(string_text(n, src)),
        "template_string" => {
            let mut out = String::new();
            for c in named(n) {
                match c.kind() {
                    "string_fragment" => {
                        out.push_str(&String::from_utf8_lossy(&src[c.byte_range()]))
                    }
                    "template_substitution" => out.push_str(&variable(named(c).next(), src)),
                    _ => {}
                }
            }
            Some(out)
        }
        "binary_expression" if children(n).any(|c| c.kind() == "+") => {
            let l = n.child_by_field_name("left")?;
            let r = n.child_by_field_name("right")?;
            let part = |x: Node<'_>| url_template(x, src).unwrap_or_else(|| variable(Some(x), src));
            Some(format!("{}{}", part(l), part(r)))
        }
        "identifier" | "member_expression" => Some(variable(Some(n), src)),
        _ => None,
    }
}

/// `{name}` for a value spliced into a URL; `{}` when it is not a plain name.
fn variable(n: Option<Node<'_>>, src: &[u8]) -> String {
    let name = n
        .and_then(|n| chain(n, src))
        .map(|c| c.join("."))
        .unwrap_or_default();
    format!("{{{name}}}")
}

/// The value of property `key` in an object literal.
fn property<'t>(object: Node<'t>, key: &str, src: &[u8]) -> Option<Node<'t>> {
    if object.kind() != "object" {
        return None;
    }
    named(object).find_map(|p| match p.kind() {
        "pair" => {
            let k = p.child_by_field_name("key")?;
            let text = String::from_utf8_lossy(&src[k.byte_range()]);
            (text.trim_matches(|c| c == '"' || c == '\'') == key)
                .then(|| p.child_by_field_name("value"))
                .flatten()
        }
        "shorthand_property_identifier" => (&src[p.byte_range()] == key.as_bytes()).then_some(p),
        _ => None,
    })
}
