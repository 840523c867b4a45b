//! Secrets masked before a file's text is stored anywhere: the one gate between the bytes read
//! from disk and everything derived from them (chunks, full text, the `contents` blobs, symbols,
//! call-graph facts, and from those the Meilisearch documents, view tables, prompts and replies).
//!
//! [`mask`] replaces each secret with [`MARKER`] on the same line, so line numbers and the line
//! count never change (citations are line-exact) while the key stays searchable
//! (`spring.datasource.password: ********`). What counts as a secret:
//!
//! - **Values of secret keys** in configuration files: `.properties` ([`properties`]), YAML
//!   ([`yaml`]), `KEY=value` lines of `.env`, `*.env`, `.conf`, `.cfg`, `.ini`, `.toml` and
//!   shell scripts ([`env`]), JSON members ([`json`]) and XML elements and attributes ([`xml`]).
//!   A key is secret when its *last word* is (see [`rules::is_secret_key`]): `jwt.secret`,
//!   `spring.datasource.password`, `API_TOKEN`, `clientSecret`, `aws.secret-access-key` are;
//!   `token.expiry-seconds`, `tokenTtl`, `password-min-length`, `token-uri` are not.
//!   Placeholders (`${DB_PASSWORD}`, `$TOKEN`, `#{…}`, `{{ … }}`), empty values, booleans and
//!   `null` are kept: they hold no secret and say where the secret comes from. A placeholder's
//!   default is masked: `${DB_PASSWORD:********}`.
//! - **Private-key blocks** (`-----BEGIN … PRIVATE KEY-----` to `-----END … PRIVATE KEY-----`) in
//!   any file, Java string literals included ([`pem`]): every base64 run between the markers.
//! - **Credentials in URLs** in any file ([`url`]): the password of `scheme://user:pass@host` and
//!   the value of secret query parameters (`jdbc:…?user=a&password=b`).
//!
//! Message bundles (`*messages*.properties`, `LocalStrings*.properties`) hold
//! prose about passwords, not passwords: their keys are not masked (blocks and URLs still are).
//! Secrets in Java code other than key blocks and URLs (`String PASSWORD = "…"`) are out of scope.

use crate::model::RepoPath;
use std::borrow::Cow;
use std::ops::Range;

mod env;
mod json;
mod pem;
mod properties;
mod rules;
#[cfg(test)]
mod tests;
mod url;
mod xml;
mod yaml;

pub use rules::is_secret_key;

/// What a masked secret reads as.
pub const MARKER: &str = "********";

/// `src` with every secret replaced by [`MARKER`]; borrowed when there is nothing to mask.
/// Never adds or removes a line: only bytes inside one line are replaced.
pub fn mask<'a>(path: &RepoPath, src: &'a [u8]) -> Cow<'a, [u8]> {
    let mut spans = Vec::new();
    match Format::of(path) {
        Format::Properties => properties::scan(src, &mut spans),
        Format::Yaml => yaml::scan(src, &mut spans),
        Format::Env => env::scan(src, &mut spans),
        Format::Json => json::scan(src, &mut spans),
        Format::Xml => xml::scan(src, &mut spans),
        Format::Other => {}
    }
    pem::scan(src, &mut spans);
    url::scan(src, &mut spans);
    if spans.is_empty() {
        return Cow::Borrowed(src);
    }
    Cow::Owned(apply(src, spans))
}

/// Which key/value syntax a file's name says it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Properties,
    Yaml,
    Env,
    Json,
    Xml,
    Other,
}

impl Format {
    fn of(path: &RepoPath) -> Format {
        let name = path.file_name();
        let lower = name.to_ascii_lowercase();
        if lower == ".env" || lower.starts_with(".env.") {
            return Format::Env;
        }
        let Some((stem, ext)) = lower.rsplit_once('.') else {
            return Format::Other;
        };
        match ext {
            "properties" if is_message_bundle(stem) => Format::Other,
            "properties" => Format::Properties,
            "yml" | "yaml" => Format::Yaml,
            "env" | "conf" | "cfg" | "ini" | "toml" | "sh" => Format::Env,
            "json" => Format::Json,
            "xml" => Format::Xml,
            _ => Format::Other,
        }
    }
}

/// `messages`, `LocalStrings_fr`, `ValidationMessages_de`: translated prose. A locale suffix
/// alone is not enough (`app_db` ends in what looks like one).
fn is_message_bundle(stem: &str) -> bool {
    stem.contains("messages") || stem.contains("localstrings")
}

/// Replaces each span (inside one line each; overlapping or touching spans merge) with
/// [`MARKER`].
fn apply(src: &[u8], mut spans: Vec<Range<usize>>) -> Vec<u8> {
    spans.sort_by_key(|s| (s.start, s.end));
    let mut out = Vec::with_capacity(src.len());
    let mut at = 0;
    let mut i = 0;
    while i < spans.len() {
        let start = spans[i].start.max(at);
        let mut end = spans[i].end;
        i += 1;
        while i < spans.len() && spans[i].start <= end {
            end = end.max(spans[i].end);
            i += 1;
        }
        if start >= end {
            continue;
        }
        debug_assert!(!src[start..end].contains(&b'\n'), "a span crosses a line");
        out.extend_from_slice(&src[at..start]);
        out.extend_from_slice(MARKER.as_bytes());
        at = end;
    }
    out.extend_from_slice(&src[at..]);
    out
}

/// Each line of `src` as (offset of its first byte, its bytes without `\n` or a trailing `\r`).
fn lines(src: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= src.len() {
            return None;
        }
        let start = at;
        let end = memchr::memchr(b'\n', &src[start..]).map_or(src.len(), |i| start + i);
        at = end + 1;
        let line = &src[start..end];
        Some((start, line.strip_suffix(b"\r").unwrap_or(line)))
    })
}

/// Leading spaces and tabs of `line`.
fn indent(line: &[u8]) -> usize {
    line.iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count()
}
