//! Which keys are secret and which part of a value is the secret.

use std::ops::Range;

/// Last words that make a key secret on their own.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "pass",
    "secret",
    "secrets",
    "token",
    "credential",
    "credentials",
    "salt",
    "auth",
    "authorization",
    // Compounds written as one word (`APIKEY`, `privatekey`).
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "signingkey",
    "encryptkey",
    "encryptionkey",
    "masterkey",
    "hmackey",
];

/// Endings of a one-word key that make it secret (`dbpassword`, `clientsecret`, `authtoken`).
const SECRET_ENDINGS: &[&str] = &["password", "passwd", "secret", "token"];

/// Words that make a last word `key` secret (`api-key`, `secret_key`, `jwt.signing.key`). A bare
/// `key` is usually a lookup key (`cache.key`), so it is not.
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "private",
    "secret",
    "signing",
    "sign",
    "encrypt",
    "encryption",
    "decrypt",
    "decryption",
    "master",
    "hmac",
    "auth",
    "jwt",
];

/// Whether `key` names a secret: its words (split at `.`, `-`, `_`, `[`, camelCase, as the
/// full-text analyzer splits identifiers) end in a secret word ([`SECRET_WORDS`]), a one-word
/// compound ending in one ([`SECRET_ENDINGS`]), or `key` after a qualifier ([`KEY_QUALIFIERS`]).
/// Only the last word counts: `token.expiry-seconds` and `tokenTtl` describe a token, they are
/// not one.
pub fn is_secret_key(key: &str) -> bool {
    let words = crate::analyzer::split_identifier(key);
    let Some(last) = words.last().map(String::as_str) else {
        return false;
    };
    if SECRET_WORDS.contains(&last) || SECRET_ENDINGS.iter().any(|e| last.ends_with(e)) {
        return true;
    }
    last == "key" && words.len() >= 2 && KEY_QUALIFIERS.contains(&words[words.len() - 2].as_str())
}

/// The part of the value at `src[range]` to mask, if any: surrounding whitespace and quotes are
/// kept, and so are placeholders, empty values, booleans and `null` ([`is_kept`]). With
/// `comments`, an unquoted value ends at ` #` (YAML, `.env`, INI).
pub fn value(src: &[u8], range: Range<usize>, comments: bool) -> Option<Range<usize>> {
    let (mut start, mut end) = (range.start, range.end);
    while start < end && src[start].is_ascii_whitespace() {
        start += 1;
    }
    if start < end && matches!(src[start], b'"' | b'\'') {
        let q = src[start];
        let close = src[start + 1..end].iter().position(|&b| b == q);
        if let Some(c) = close {
            start += 1;
            end = start + c;
        } else {
            // An unclosed quote: the rest of the line is the value.
            start += 1;
        }
    } else if comments
        && let Some(i) = src[start..end]
            .windows(2)
            .position(|w| matches!(w[0], b' ' | b'\t') && w[1] == b'#')
    {
        end = start + i;
    }
    while end > start && src[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let text = &src[start..end];
    if let Some(default) = placeholder_default(text) {
        return default.map(|d| start + d.start..start + d.end);
    }
    if is_kept(text) {
        return None;
    }
    Some(start..end)
}

/// Values that hold no secret: empty, a reference to one elsewhere, a flag or nothing.
pub fn is_kept(text: &[u8]) -> bool {
    let t = text.trim_ascii();
    if t.is_empty() {
        return true;
    }
    let lower = t.to_ascii_lowercase();
    if matches!(
        lower.as_slice(),
        b"true" | b"false" | b"null" | b"~" | b"none" | b"yes" | b"no" | b"on" | b"off"
    ) {
        return true;
    }
    // `${NAME}`, `$(cmd)`, `$NAME` (an upper-case name only: `$ecretPass` is a password), SpEL
    // `#{…}`, templates `{{ … }}`, `%(name)s`, ERB `<%= … %>`.
    t.starts_with(b"${")
        || t.starts_with(b"$(")
        || is_env_reference(t)
        || t.starts_with(b"#{")
        || t.starts_with(b"{{")
        || t.starts_with(b"%(")
        || t.starts_with(b"<%")
}

/// `$NAME` with an upper-case environment-variable name.
fn is_env_reference(t: &[u8]) -> bool {
    t.len() > 1
        && t[0] == b'$'
        && t[1..]
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
}

/// For a `${NAME:default}` placeholder: `Some(Some(range))` of a default that must be masked,
/// `Some(None)` for a placeholder with nothing to mask, `None` when `text` is not one.
fn placeholder_default(text: &[u8]) -> Option<Option<Range<usize>>> {
    let inner = text.strip_prefix(b"${")?.strip_suffix(b"}")?;
    let Some(colon) = inner.iter().position(|&b| b == b':') else {
        return Some(None);
    };
    let default = &inner[colon + 1..];
    if is_kept(default) {
        return Some(None);
    }
    let start = 2 + colon + 1;
    Some(Some(start..start + default.len()))
}
