//! `KEY=value` lines: `.env` files, `*.env`, INI/`.cfg`/`.conf`/TOML (`key = value`,
//! `key: value`) and shell scripts (`export KEY=value`). `#`, `;` and `[section]` lines are
//! skipped; an unquoted value ends at ` #`.

use super::rules::{is_secret_key, value};
use super::{indent, lines};
use std::ops::Range;

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    for (start, line) in lines(src) {
        let mut at = indent(line);
        if line[at..].is_empty() || matches!(line[at], b'#' | b';' | b'[') {
            continue;
        }
        if line[at..].starts_with(b"export ") {
            at += 7;
            at += indent(&line[at..]);
        }
        let key_start = at;
        let quoted = line.get(at) == Some(&b'"');
        if quoted {
            at += 1;
        }
        while at < line.len()
            && (line[at].is_ascii_alphanumeric() || matches!(line[at], b'_' | b'.' | b'-'))
        {
            at += 1;
        }
        let key = &line[key_start + usize::from(quoted)..at];
        if quoted && line.get(at) == Some(&b'"') {
            at += 1;
        }
        at += indent(&line[at..]);
        let is_separator = match line.get(at) {
            Some(b'=') => line.get(at + 1) != Some(&b'='),
            Some(b':') => true,
            _ => false,
        };
        if key.is_empty() || !is_separator || !is_secret_key(&String::from_utf8_lossy(key)) {
            continue;
        }
        if let Some(r) = value(src, start + at + 1..start + line.len(), true) {
            spans.push(r);
        }
    }
}
