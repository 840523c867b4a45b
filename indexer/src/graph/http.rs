//! HTTP requests met with the routes that serve them, whatever the languages on either side: a
//! language's resolver records a client call with a literal URL as a request ([`make_request`]);
//! [`link`] gives each request the handler of the route whose method and path template match
//! (`route:GET /api/users/{id}` for `GET /api/users/{}`), or leaves it without a callee.

use super::{Edge, EdgeKind};
use std::collections::HashMap;

/// What the `detail` of a request edge starts with: `http GET /api/users/{}`.
pub const REQUEST: &str = "http ";

/// Turns `e` (a call edge without a callee) into a request for `verb url`.
pub fn make_request(e: &mut Edge, verb: &str, url: &str) {
    e.kind = EdgeKind::Rpc;
    e.callee = None;
    e.callee_file = None;
    e.callee_line = None;
    e.callee_name = format!("{verb} {}", path_of(url));
    // The request stays in the detail once the callee names the handler.
    e.detail = format!("{REQUEST}{}", e.callee_name);
    e.confidence = 0.3;
}

/// The path of a URL as a template: scheme, host and query dropped, a leading base-URL field
/// dropped, every variable `{}`: `{BASE}/api/users/{id}?x=1` → `/api/users/{}`.
pub fn path_of(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let url = match url.find("://") {
        Some(i) => url[i + 3..].find('/').map_or("", |j| &url[i + 3 + j..]),
        None => url,
    };
    let mut segments: Vec<String> = url
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s.starts_with('{') || s.starts_with(':') || s.starts_with('<') {
                "{}".to_string()
            } else {
                s.to_string()
            }
        })
        .collect();
    // `{BASE}/x` or `{}` standing for a host: not part of the route's path.
    if !url.starts_with('/') && segments.first().is_some_and(|s| s == "{}") {
        segments.remove(0);
    }
    format!("/{}", segments.join("/"))
}

/// Gives every request in `groups` the handler(s) of the best matching route, at confidence
/// 0.9 (0.8 when several handlers match equally well).
pub fn link(groups: &mut [(String, Vec<Edge>)]) {
    let mut routes = Routes::default();
    for e in groups.iter().flat_map(|(_, es)| es) {
        routes.add(e);
    }
    if routes.is_empty() {
        return;
    }
    for (_, es) in groups.iter_mut() {
        routes.link(es);
    }
}

/// The routes of a repository by verb, in the order they were added (the first of equally
/// good matches wins).
#[derive(Default)]
pub struct Routes(HashMap<String, Vec<Served>>);

impl Routes {
    /// Takes `e` if it is a route edge (`route:VERB /path` → its handler).
    pub fn add(&mut self, e: &Edge) {
        let (Some(route), Some(handler)) = (e.caller.strip_prefix("route:"), &e.callee) else {
            return;
        };
        if e.kind != EdgeKind::Route {
            return;
        }
        let Some((verb, path)) = route.split_once(' ') else {
            return;
        };
        self.0.entry(verb.to_string()).or_default().push(Served {
            segments: segments(&path_of(path)),
            handler: handler.clone(),
            file: e.callee_file.clone(),
            line: e.callee_line,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Links the requests among `edges`.
    pub fn link(&self, edges: &mut [Edge]) {
        for e in edges.iter_mut() {
            if is_request(e) {
                self.link_one(e);
            }
        }
    }

    fn link_one(&self, e: &mut Edge) {
        let Some((verb, path)) = e
            .detail
            .strip_prefix(REQUEST)
            .and_then(|r| r.split_once(' '))
        else {
            return;
        };
        let want = segments(path);
        let mut best: Vec<&Served> = Vec::new();
        let mut best_score = 0;
        // A request whose method is not known (`ANY`: a wrapper called without one) may be
        // served by a route of any method.
        let served: Vec<&Served> = if verb == "ANY" {
            // Of equally good matches the first wins: GET, the method a wrapper defaults to.
            let mut verbs: Vec<&String> = self.0.keys().collect();
            verbs.sort_by_key(|v| (v.as_str() != "GET", v.as_str()));
            verbs.into_iter().flat_map(|v| &self.0[v]).collect()
        } else {
            [verb, "ANY"]
                .iter()
                .filter_map(|v| self.0.get(*v))
                .flatten()
                .collect()
        };
        for r in served {
            let score = overlap(&want, &r.segments);
            if score > best_score {
                best = vec![r];
                best_score = score;
            } else if score == best_score && score > 0 {
                best.push(r);
            }
        }
        if let Some(r) = best.first() {
            e.callee = Some(r.handler.clone());
            e.callee_file = r.file.clone();
            e.callee_line = r.line;
            e.confidence = if best.len() == 1 { 0.9 } else { 0.8 };
        }
    }
}

/// Whether `e` is a request still without a handler ([`make_request`]).
pub fn is_request(e: &Edge) -> bool {
    e.kind == EdgeKind::Rpc && e.callee.is_none()
}

/// A route as requests meet it: its path's segments and its handler.
pub struct Served {
    segments: Vec<String>,
    handler: String,
    file: Option<String>,
    line: Option<u32>,
}

fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s.starts_with('{') {
                "{}".into()
            } else {
                s.to_string()
            }
        })
        .collect()
}

/// How well a request's path meets a route's: 0 when they do not; else the number of
/// segments they share, when one is the other or ends with it (a base path one side adds),
/// exact matches first. A variable matches any one segment; at least one literal segment must
/// agree.
fn overlap(want: &[String], route: &[String]) -> usize {
    let same = |a: &[String], b: &[String]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x == y || x == "{}" || y == "{}")
            && a.iter().zip(b).any(|(x, y)| x == y && x != "{}")
    };
    if same(want, route) {
        return 1000 + want.len();
    }
    let (short, long) = if want.len() < route.len() {
        (want, route)
    } else {
        (route, want)
    };
    if !short.is_empty() && same(short, &long[long.len() - short.len()..]) {
        short.len()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_become_path_templates() {
        assert_eq!(path_of("{}/api/users/{}?x=1"), "/api/users/{}");
        assert_eq!(
            path_of("http://orders:8080/api/orders/{}/pay"),
            "/api/orders/{}/pay"
        );
        assert_eq!(path_of("/api/users/:id"), "/api/users/{}");
        assert_eq!(path_of("/x/<int:oid>"), "/x/{}");
    }

    #[test]
    fn paths_meet_exactly_or_under_a_base_path() {
        let s = |p: &str| segments(p);
        assert!(overlap(&s("/api/users/{}"), &s("/api/users/{id}")) > 1000);
        assert_eq!(overlap(&s("/users/{}"), &s("/api/users/{id}")), 2);
        assert_eq!(overlap(&s("/gw/api/users/{}"), &s("/api/users/{id}")), 3);
        assert_eq!(overlap(&s("/api/orders/{}"), &s("/api/users/{id}")), 0);
        assert_eq!(
            overlap(&s("/{}"), &s("/{id}")),
            0,
            "no literal segment agrees"
        );
    }
}
