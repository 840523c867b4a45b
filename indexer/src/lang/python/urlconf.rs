//! Django URLconf entries as facts: a `path()`, `re_path()` or `url()` call with a literal
//! route and a view (a function, `View.as_view()`, or an `include()` of more entries). Where
//! the entries end up, and which handlers they reach, is the resolver's
//! ([`super::resolve`]): it needs every urls module of the repository.

use super::facts::{chain, literals, named, template};
use super::fields::Field;
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

/// One URL entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PyUrl {
    /// The definition the entry is written in (0: module level).
    pub scope: u32,
    /// The module-level list the entry is written in: `urlpatterns`, or a list a later
    /// `include(name)` mounts.
    pub list: String,
    /// The route as a path template, variables `{name}` (`orders/{pk}/`).
    pub route: String,
    /// Written as a regular expression (`re_path`, `url`) and turned into a template.
    pub regex: bool,
    pub view: UrlView,
    pub line: u32,
}

/// What an entry routes to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum UrlView {
    /// A view function (`views.detail`).
    View(Vec<String>),
    /// A class-based view: `OrderView.as_view()`.
    AsView(Vec<String>),
    /// `include("shop.orders.urls")`: a module's `urlpatterns`.
    Include(String),
    /// `include(orders.urls)`, `include(router.urls)`, `include(extra_patterns)`.
    IncludeChain(Vec<String>),
}

/// The entry a call declares, when it is one: `path(route, view, …)` with a literal route.
pub(super) fn entry(call: Node<'_>, function: &[String], src: &[u8], scope: u32) -> Option<PyUrl> {
    let name = function.last()?.as_str();
    if function.len() > 2 || !matches!(name, "path" | "re_path" | "url") {
        return None;
    }
    let args = call
        .field("arguments")
        .filter(|a| a.kind() == "argument_list")?;
    let mut positional =
        named(args).filter(|a| !matches!(a.kind(), "comment" | "keyword_argument"));
    let route = match literals(positional.next()?, src).as_slice() {
        [r] => r.clone(),
        _ => return None,
    };
    let view = view(positional.next()?, src)?;
    let regex = name != "path";
    Some(PyUrl {
        scope,
        list: list_of(call, src).unwrap_or_else(|| "urlpatterns".to_string()),
        route: if regex {
            from_regex(&route)
        } else {
            template(&route)
        },
        regex,
        view,
        line: call.start_position().row as u32 + 1,
    })
}

fn view(n: Node<'_>, src: &[u8]) -> Option<UrlView> {
    if n.kind() != "call" {
        return chain(n, src).map(UrlView::View);
    }
    let f = chain(n.field("function")?, src)?;
    let (last, head) = f.split_last()?;
    match last.as_str() {
        "as_view" if !head.is_empty() => Some(UrlView::AsView(head.to_vec())),
        "include" => {
            let arg = named(n.field("arguments")?).next()?;
            // `include(("app.urls", "app"))`: the module is the first of the pair.
            let arg = match arg.kind() {
                "tuple" | "list" => named(arg).next()?,
                _ => arg,
            };
            match literals(arg, src).as_slice() {
                [module] => Some(UrlView::Include(module.clone())),
                _ => chain(arg, src).map(UrlView::IncludeChain),
            }
        }
        _ => None,
    }
}

/// The name of the module-level list an entry is written in (`x = [...]`, `x += [...]`).
fn list_of(call: Node<'_>, src: &[u8]) -> Option<String> {
    let mut n = call.parent()?;
    while matches!(
        n.kind(),
        "list" | "tuple" | "parenthesized_expression" | "binary_operator"
    ) {
        n = n.parent()?;
    }
    if !matches!(n.kind(), "assignment" | "augmented_assignment") {
        return None;
    }
    let left = n.field("left")?;
    (left.kind() == "identifier").then(|| String::from_utf8_lossy(&src[left.byte_range()]).into())
}

/// A route regular expression as a path template: anchors dropped, `(?P<pk>\d+)` → `{pk}`,
/// another group → `{}` (an optional one dropped), escapes unescaped, `/?` dropped.
pub(super) fn from_regex(re: &str) -> String {
    let re = re.strip_prefix('^').unwrap_or(re);
    let re = re
        .strip_suffix("\\Z")
        .or_else(|| re.strip_suffix('$'))
        .unwrap_or(re);
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '(' => {
                let end = group_end(&chars, i);
                let inner: String = chars[i + 1..end.min(chars.len())].iter().collect();
                let optional = chars.get(end + 1) == Some(&'?');
                if let Some(rest) = inner.strip_prefix("?P<") {
                    out.push('{');
                    out.push_str(rest.split('>').next().unwrap_or(""));
                    out.push('}');
                } else if !optional {
                    out.push_str("{}");
                }
                i = end + 1 + usize::from(optional);
            }
            '\\' => {
                if let Some(&c) = chars.get(i + 1) {
                    if c.is_ascii_alphanumeric() {
                        out.push_str("{}");
                    } else {
                        out.push(c);
                    }
                }
                i += 2;
            }
            '/' if chars.get(i + 1) == Some(&'?') => i += 2,
            '?' | '+' | '*' => i += 1,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The index of the `)` closing the group opened at `open` (escapes and classes skipped).
fn group_end(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    let mut i = open;
    let mut class = false;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => class = true,
            ']' => class = false,
            '(' if !class => depth += 1,
            ')' if !class => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::from_regex;

    #[test]
    fn route_regexes_become_templates() {
        assert_eq!(from_regex(r"^orders/(?P<pk>\d+)/$"), "orders/{pk}/");
        assert_eq!(
            from_regex(r"^(?P<app_label>[\w.]+)/(\d+)/pay/?$"),
            "{app_label}/{}/pay"
        );
        assert_eq!(from_regex(r"^page(?:/(?P<n>\d+))?/\Z"), "page/");
        assert_eq!(from_regex(r"^feed\.xml$"), "feed.xml");
        assert_eq!(from_regex(r"^$"), "");
    }
}
