//! Credentials in URLs, in any file: the password of `scheme://user:password@host` and the
//! values of secret query or JDBC parameters (`?password=x`, `&access_token=x`,
//! `;password=x`). A URL ends at whitespace, a quote, `<`, `>`, a backtick or a backslash.

use super::rules::{is_kept, is_secret_key};
use memchr::memmem;
use std::ops::Range;

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    for i in memmem::find_iter(src, b"://") {
        if i == 0 || !src[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let auth = i + 3;
        let end = auth
            + src[auth..]
                .iter()
                .position(|&b| ends_url(b))
                .unwrap_or(src.len() - auth);
        let userinfo_end = auth
            + src[auth..end]
                .iter()
                .position(|b| matches!(b, b'/' | b'?' | b'#' | b'@'))
                .unwrap_or(end - auth);
        if src.get(userinfo_end) == Some(&b'@')
            && let Some(colon) = src[auth..userinfo_end].iter().position(|&b| b == b':')
        {
            let p = auth + colon + 1;
            if p < userinfo_end && !is_kept(&src[p..userinfo_end]) {
                spans.push(p..userinfo_end);
            }
        }
        parameters(src, auth..end, spans);
    }
}

/// `name=value` after `?`, `&` or `;` inside the URL at `url`.
fn parameters(src: &[u8], url: Range<usize>, spans: &mut Vec<Range<usize>>) {
    for k in url.clone() {
        if !matches!(src[k], b'?' | b'&' | b';') {
            continue;
        }
        let name_start = k + 1;
        let name_len = src[name_start..url.end]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            .count();
        let eq = name_start + name_len;
        if name_len == 0 || src.get(eq) != Some(&b'=') || eq >= url.end {
            continue;
        }
        if !is_secret_key(&String::from_utf8_lossy(&src[name_start..eq])) {
            continue;
        }
        let v_start = eq + 1;
        let v_end = v_start
            + src[v_start..url.end]
                .iter()
                .position(|b| matches!(b, b'&' | b';' | b'#'))
                .unwrap_or(url.end - v_start);
        if v_start < v_end && !is_kept(&src[v_start..v_end]) {
            spans.push(v_start..v_end);
        }
    }
}

fn ends_url(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'`' | b'\\')
}
