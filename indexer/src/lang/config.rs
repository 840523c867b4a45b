//! Spring configuration files (`application*.yml|yaml|properties`, `bootstrap*.…`): the keys they
//! define, flattened (`spring.rabbitmq.host`), with the line of each. YAML is read by indentation
//! (block mappings, `- ` sequence items as `[n]`, scalars, `---` documents); flow collections
//! and multi-line scalars are kept as text values. Enough for configuration, not a YAML parser.

use crate::graph::facts::ConfigKey;
use crate::model::RepoPath;

/// Whether `path` is a Spring configuration file.
pub fn is_config_file(path: &RepoPath) -> bool {
    let name = path.file_name();
    let (stem, ext) = match name.rsplit_once('.') {
        Some(x) => x,
        None => return false,
    };
    (stem.starts_with("application") || stem.starts_with("bootstrap"))
        && matches!(ext, "yml" | "yaml" | "properties")
}

/// The keys a configuration file defines.
pub fn keys(path: &RepoPath, src: &[u8]) -> Vec<ConfigKey> {
    let text = String::from_utf8_lossy(src);
    if path.file_name().ends_with(".properties") {
        properties(&text)
    } else {
        yaml(&text)
    }
}

/// The entries of `.properties` text (configuration or a message bundle): `key=value`,
/// `key: value` or `key value`, `#` and `!` comments, values continued by a trailing backslash;
/// each with the line it starts on.
pub fn properties(text: &str) -> Vec<ConfigKey> {
    let mut out: Vec<ConfigKey> = Vec::new();
    let mut continues = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if continues {
            let part = t.strip_suffix('\\');
            if let Some(last) = out.last_mut() {
                last.value.push_str(part.unwrap_or(t).trim_end());
            }
            continues = part.is_some();
            continue;
        }
        if t.is_empty() || t.starts_with('#') || t.starts_with('!') {
            continue;
        }
        let split = t
            .find(|c: char| c == '=' || c == ':' || c.is_whitespace())
            .unwrap_or(t.len());
        let key = &t[..split];
        let rest = t[split..].trim_start();
        let rest = rest.strip_prefix(['=', ':']).map_or(rest, str::trim_start);
        let (value, more) = match rest.strip_suffix('\\') {
            Some(v) => (v, true),
            None => (rest.trim_end(), false),
        };
        continues = more;
        if !key.is_empty() {
            out.push(ConfigKey {
                key: key.to_string(),
                value: value.to_string(),
                line: i as u32 + 1,
            });
        }
    }
    out
}

fn yaml(text: &str) -> Vec<ConfigKey> {
    let mut out = Vec::new();
    // (indent, key path segment, sequence counter for `- ` items under it)
    let mut stack: Vec<(usize, String, usize)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = strip_comment(raw);
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with("---") || line.starts_with("...") {
            stack.clear();
            continue;
        }
        let mut indent = line.len() - line.trim_start().len();
        let mut body = line.trim();
        while stack.last().is_some_and(|s| s.0 > indent) {
            stack.pop();
        }
        // A sequence item: `- key: v` opens an element `[n]` of the parent.
        if let Some(rest) = body
            .strip_prefix("- ")
            .or(if body == "-" { Some("") } else { None })
        {
            let n = match stack.last_mut() {
                Some(parent) if parent.0 <= indent => {
                    let n = parent.2;
                    parent.2 += 1;
                    n
                }
                _ => 0,
            };
            while stack
                .last()
                .is_some_and(|s| s.0 >= indent && s.1.starts_with('['))
            {
                stack.pop();
            }
            stack.push((indent, format!("[{n}]"), 0));
            indent += 2;
            body = rest.trim();
            if body.is_empty() {
                continue;
            }
            if !body.contains(": ") && !body.ends_with(':') {
                // A scalar item.
                let key = join(&stack);
                out.push(ConfigKey {
                    key,
                    value: unquote(body),
                    line: i as u32 + 1,
                });
                continue;
            }
        }
        let Some((k, v)) = split_key(body) else {
            continue;
        };
        while stack
            .last()
            .is_some_and(|s| s.0 >= indent && !s.1.starts_with('['))
        {
            stack.pop();
        }
        stack.push((indent, unquote(k), 0));
        let v = v.trim();
        if !v.is_empty() && !v.starts_with('|') && !v.starts_with('>') {
            out.push(ConfigKey {
                key: join(&stack),
                value: unquote(v),
                line: i as u32 + 1,
            });
        } else if v.is_empty() {
            // A mapping key: defines the prefix too (`@ConfigurationProperties` targets it).
            out.push(ConfigKey {
                key: join(&stack),
                value: String::new(),
                line: i as u32 + 1,
            });
        }
    }
    out
}

/// `key: value` → (key, value); `None` for lines that are not mapping entries.
fn split_key(body: &str) -> Option<(&str, &str)> {
    if let Some(k) = body.strip_suffix(':') {
        return Some((k, ""));
    }
    let mut in_quote: Option<char> = None;
    for (i, c) in body.char_indices() {
        match (c, in_quote) {
            ('"' | '\'', None) if i == 0 => in_quote = Some(c),
            (q, Some(open)) if q == open => in_quote = None,
            (':', None) if body[i + 1..].starts_with(' ') => {
                return Some((&body[..i], &body[i + 1..]));
            }
            _ => {}
        }
    }
    None
}

fn join(stack: &[(usize, String, usize)]) -> String {
    let mut s = String::new();
    for (_, seg, _) in stack {
        if seg.starts_with('[') || s.is_empty() {
            s.push_str(seg);
        } else {
            s.push('.');
            s.push_str(seg);
        }
    }
    s
}

fn strip_comment(line: &str) -> &str {
    let mut in_quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (c, in_quote) {
            ('"' | '\'', None) => in_quote = Some(c),
            (q, Some(open)) if q == open => in_quote = None,
            ('#', None) if i == 0 || line[..i].ends_with(' ') => return &line[..i],
            _ => {}
        }
    }
    line
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return s[1..s.len() - 1].to_string();
        }
    }
    s.to_string()
}

/// Spring's relaxed binding: `timeoutMinutes`, `timeout-minutes`, `timeout_minutes` and
/// `TIMEOUT_MINUTES` are one key. Returns the canonical form (lower case, no separators inside
/// segments).
pub fn canonical_key(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(src: &str) -> Vec<(String, String, u32)> {
        yaml(src)
            .into_iter()
            .map(|k| (k.key, k.value, k.line))
            .collect()
    }

    #[test]
    fn yaml_nesting_sequences_and_comments_flatten_to_keys() {
        let src = "server:\n  port: 8080 # web\nspring:\n  application:\n    name: shop-order\n  cloud:\n    gateway:\n      routes:\n        - id: order\n          uri: lb://shop-order\n          predicates:\n            - Path=/api/orders/**\n---\nshop:\n  order:\n    timeout-minutes: 30\n";
        let keys = flat(src);
        let get = |k: &str| keys.iter().find(|x| x.0 == k).cloned();
        assert_eq!(
            get("server.port"),
            Some(("server.port".into(), "8080".into(), 2))
        );
        assert_eq!(
            get("spring.application.name").map(|x| x.1),
            Some("shop-order".into())
        );
        assert_eq!(
            get("spring.cloud.gateway.routes[0].uri").map(|x| x.1),
            Some("lb://shop-order".into())
        );
        assert_eq!(
            get("spring.cloud.gateway.routes[0].predicates[0]").map(|x| x.1),
            Some("Path=/api/orders/**".into())
        );
        assert_eq!(get("shop.order.timeout-minutes").map(|x| x.2), Some(16));
        assert_eq!(get("shop.order").map(|x| x.2), Some(15));
    }

    #[test]
    fn properties_read_separators_comments_and_continuations() {
        let text = "# comment\n! also\nstandardContext.startFailed=Context [{0}] startup failed\n\
                    a.b : spaced value\nplain value here\nlong=first \\\n    second\n\nlast=x";
        let keys = properties(text);
        let got: Vec<(&str, &str, u32)> = keys
            .iter()
            .map(|e| (e.key.as_str(), e.value.as_str(), e.line))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "standardContext.startFailed",
                    "Context [{0}] startup failed",
                    3
                ),
                ("a.b", "spaced value", 4),
                ("plain", "value here", 5),
                ("long", "first second", 6),
                ("last", "x", 9),
            ]
        );
    }

    #[test]
    fn properties_and_relaxed_names() {
        let keys = properties("# c\na.b-c=1\nx.y: two\n");
        assert_eq!(keys[0].key, "a.b-c");
        assert_eq!(keys[1].value, "two");
        assert_eq!(
            canonical_key("shop.order.timeoutMinutes"),
            canonical_key("shop.order.timeout-minutes")
        );
    }
}
