//! Text that reaches a chat must not ping anyone or carry a link codemap did not build: answer
//! text can quote code, comments and (with an LLM) model output, any of which may hold
//! `@everyone`, `<!channel>`, `<@U123>` or a URL.

/// Zero-width space: breaks a mention without changing how the text reads.
const ZWSP: char = '\u{200B}';

/// Neutralises mass mentions, user/role/channel mentions (Slack, Discord and Feishu syntax) and
/// URLs and bare domains (defanged: `hxxps://evil[.]com/x`, `evil[.]com`, which no platform
/// turns into a link).
pub fn neutralise(text: &str) -> String {
    defang_urls(&break_mentions(text))
}

fn break_mentions(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = c.len_utf8();
        match c {
            '@' | '＠' => {
                let after = &rest[len..];
                let word = after
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or("")
                    .to_lowercase();
                out.push(c);
                if matches!(word.as_str(), "everyone" | "here" | "channel" | "all") {
                    out.push(ZWSP);
                }
            }
            // `<!channel>`, `<!here>`, `<!subteam^…>`, `<@U123>`, `<@!123>`, `<@&role>`,
            // `<#C123>`, Feishu `<at user_id="all">`: the angle bracket no longer opens markup.
            '<' => {
                let after = &rest[1..];
                let markup = after.starts_with(['!', '@', '#'])
                    || scheme(after).is_some()
                    || after.get(..3).is_some_and(|s| {
                        s.eq_ignore_ascii_case("at ") || s.eq_ignore_ascii_case("at>")
                    });
                out.push(if markup { '‹' } else { '<' });
            }
            _ => out.push(c),
        }
        rest = &rest[len..];
    }
    out
}

/// Rewrites `scheme://host/...` and `www.host...` so no platform links them.
fn defang_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let b = text.as_bytes();
    while i < b.len() {
        let rest = &text[i..];
        let at_word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if at_word_start {
            if let Some((scheme_len, defanged)) = scheme(rest) {
                out.push_str(defanged);
                let end = url_end(rest, scheme_len);
                out.push_str(&defang_host(&rest[scheme_len..end]));
                i += end;
                continue;
            }
            if rest.len() > 4
                && rest
                    .get(..4)
                    .is_some_and(|p| p.eq_ignore_ascii_case("www."))
            {
                let end = url_end(rest, 0);
                out.push_str(&defang_host(&rest[..end]));
                i += end;
                continue;
            }
            let after_path = i > 0 && matches!(b[i - 1], b'/' | b'.' | b'_' | b'-' | b'@');
            if !after_path && let Some(host) = bare_domain(rest) {
                let end = if rest[host..].starts_with('/') {
                    url_end(rest, host)
                } else {
                    host
                };
                out.push_str(&defang_host(&rest[..end]));
                i += end;
                continue;
            }
        }
        let c = rest.chars().next().expect("in bounds");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Top-level domains chat clients link without a scheme (Slack links `evil.com`), as far as
/// they are not also file extensions a code answer names (`README.md`, `a.py`).
const LINKED_TLDS: [&str; 30] = [
    "com", "net", "org", "io", "dev", "app", "ai", "co", "xyz", "info", "biz", "me", "cn", "ru",
    "uk", "de", "fr", "jp", "us", "top", "site", "online", "club", "link", "live", "pro", "tech",
    "cloud", "gg", "ly",
];

/// Length of a bare domain at the start of `s` (`evil.com`, `a.b.io`): labels of letters,
/// digits and hyphens joined by dots, ending in a linked TLD, not followed by a call's `(` or
/// more of a word. A qualified Java name (`com.shop.Order`) ends in a type, not a TLD.
fn bare_domain(s: &str) -> Option<usize> {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .unwrap_or(s.len());
    let token = s[..end].trim_end_matches('.');
    let labels: Vec<&str> = token.split('.').collect();
    if labels.len() < 2 || labels.iter().any(|l| l.is_empty()) {
        return None;
    }
    let tld = labels.last()?;
    let next = s[token.len()..].chars().next();
    (LINKED_TLDS.contains(tld) && !matches!(next, Some('(' | '_'))).then_some(token.len())
}

/// The scheme at the start of `s` (with its `://` or `:`) and what replaces it.
fn scheme(s: &str) -> Option<(usize, &'static str)> {
    const SCHEMES: [(&str, &str); 7] = [
        ("https://", "hxxps://"),
        ("http://", "hxxp://"),
        ("ftp://", "fxp://"),
        ("ws://", "wx://"),
        ("wss://", "wxs://"),
        ("mailto:", "mailto[:]"),
        ("javascript:", "javascript[:]"),
    ];
    SCHEMES.iter().find_map(|(from, to)| {
        s.get(..from.len())
            .filter(|p| p.eq_ignore_ascii_case(from))
            .map(|_| (from.len(), *to))
    })
}

fn url_end(s: &str, from: usize) -> usize {
    s[from..]
        .find(|c: char| c.is_whitespace() || matches!(c, '>' | '"' | '\'' | '`' | '|' | ')' | ']'))
        .map(|e| from + e)
        .unwrap_or(s.len())
}

/// `evil.com/x.y` → `evil[.]com/x.y`: the host's dots bracketed, the path left readable.
fn defang_host(s: &str) -> String {
    let host_end = s.find(['/', '?', '#']).unwrap_or(s.len());
    format!("{}{}", s[..host_end].replace('.', "[.]"), &s[host_end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mass_mentions_are_broken() {
        let n = neutralise("ping @everyone and @here and @channel, @All");
        assert!(!n.contains("@everyone") && !n.contains("@here") && !n.contains("@channel"));
        assert!(n.contains("@\u{200B}everyone"));
        assert!(n.contains("@\u{200B}All"));
        // Annotations are left alone, even those that start like a mention.
        assert_eq!(
            neutralise("@Override @AllArgsConstructor @Herearter"),
            "@Override @AllArgsConstructor @Herearter"
        );
    }

    #[test]
    fn platform_mention_markup_is_broken() {
        for s in [
            "<!channel>",
            "<!here>",
            "<!everyone>",
            "<!subteam^S1>",
            "<@U123ABC>",
            "<@!123>",
            "<@&456>",
            "<#C999>",
            "<at user_id=\"all\">everyone</at>",
        ] {
            let n = neutralise(s);
            assert!(n.starts_with('‹'), "{s} -> {n}");
        }
        // Generics stay as they are.
        assert_eq!(
            neutralise("Map<String, List<Long>>"),
            "Map<String, List<Long>>"
        );
    }

    #[test]
    fn urls_are_defanged_so_no_platform_links_them() {
        assert_eq!(
            neutralise("see https://evil.example.com/a.b?x=1 now"),
            "see hxxps://evil[.]example[.]com/a.b?x=1 now"
        );
        assert_eq!(
            neutralise("<http://evil.com|click>"),
            "‹hxxp://evil[.]com|click>"
        );
        assert_eq!(neutralise("[x](HTTPS://a.io)"), "[x](hxxps://a[.]io)");
        assert_eq!(
            neutralise("go to www.evil.com."),
            "go to www[.]evil[.]com[.]"
        );
        assert_eq!(neutralise("javascript:alert(1)"), "javascript[:]alert(1)");
        // Code paths and package names are not URLs.
        assert_eq!(
            neutralise("com.shop.order.OrderService at a/B.java:12"),
            "com.shop.order.OrderService at a/B.java:12"
        );
        // Bare domains chat clients would link, with or without a path.
        assert_eq!(
            neutralise("mail evil.com or go to login.evil.io/reset now"),
            "mail evil[.]com or go to login[.]evil[.]io/reset now"
        );
        assert_eq!(neutralise("(see evil.com)."), "(see evil[.]com).");
        // Calls, fields, paths and file names are not domains.
        assert_eq!(
            neutralise("log.info(msg); uses a/b/site.com and README.md, Order.java, x.cn_y"),
            "log.info(msg); uses a/b/site.com and README.md, Order.java, x.cn_y"
        );
        // Non-ASCII text passes through.
        assert_eq!(neutralise("谁调用了 扣减库存？"), "谁调用了 扣减库存？");
    }
}
