//! Checks of a rendered page with a real Markdown parser (pulldown-cmark): every in-page anchor
//! names a heading of the page, every relative link names a file of the repository or a page
//! of this run, and no link is empty. Pure: `exists` answers for paths.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use std::collections::HashSet;

/// GitHub's heading anchors of a page, in order (duplicates get `-1`, `-2`…).
pub fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut current: Option<String> = None;
    for ev in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = current.take() {
                    let base = slug(&h);
                    let mut s = base.clone();
                    let mut n = 0;
                    while !seen.insert(s.clone()) {
                        n += 1;
                        s = format!("{base}-{n}");
                    }
                    out.push(s);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = current.as_mut() {
                    h.push_str(&t);
                }
            }
            _ => {}
        }
    }
    out
}

/// GitHub's slug of a heading text: lower case, punctuation dropped, spaces to `-`.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Problems of the page at repository path `page`; empty when it is fine. `exists` says
/// whether a repository path exists (a file of the snapshot or a page of this run).
pub fn check(page: &str, text: &str, exists: impl Fn(&str) -> bool) -> Vec<String> {
    let anchors: HashSet<String> = anchors(text).into_iter().collect();
    let mut problems = Vec::new();
    let mut h1 = 0;
    for ev in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) => h1 += 1,
            Event::Start(Tag::Link { dest_url, .. }) => {
                let url = dest_url.as_ref();
                if url.is_empty() {
                    problems.push("empty link".to_string());
                } else if let Some(a) = url.strip_prefix('#') {
                    if !anchors.contains(a) {
                        problems.push(format!("link to #{a}: no such heading"));
                    }
                } else if !url.contains("://") && !url.starts_with("mailto:") {
                    let path = url.split('#').next().unwrap_or(url);
                    match resolve(page, path) {
                        Some(p) if exists(&p) => {}
                        _ => problems.push(format!("link to {url}: no such file")),
                    }
                }
            }
            _ => {}
        }
    }
    if h1 > 1 {
        problems.push(format!("{h1} top-level headings"));
    }
    problems
}

/// The repository path a relative link from `page` names (`None` when it climbs out).
fn resolve(page: &str, link: &str) -> Option<String> {
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for c in link.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_follow_github() {
        let md = "# shop-order\n\n## Entry points\n\n## Key flows: `route`\n\n## Entry points\n";
        assert_eq!(
            anchors(md),
            vec![
                "shop-order",
                "entry-points",
                "key-flows-route",
                "entry-points-1"
            ]
        );
    }

    #[test]
    fn broken_anchors_and_files_are_reported() {
        let md = "# T\n\n## Flows\n\n[ok](#flows) [bad](#nope) [f](../../a/B.java#L3) [g](../../x.java) [w](https://x.y/z)\n";
        let p = check("docs/codemap/m.md", md, |p| p == "a/B.java");
        assert_eq!(
            p,
            vec![
                "link to #nope: no such heading",
                "link to ../../x.java: no such file"
            ]
        );
        assert!(check("m.md", "# a\n\n# b\n", |_| true)[0].contains("2 top-level"));
    }
}
