//! YAML: `key: value` at any depth and in sequence items (`- password: x`), quoted or plain
//! values with `#` comments, and block scalars (`key: |` / `key: >-`) whose lines are masked
//! one by one. Flow collections (`{password: x}`) are not read.

use super::rules::{is_secret_key, value};
use super::{indent, lines};
use std::ops::Range;

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    // The column of a secret key whose block scalar is being masked.
    let mut block: Option<usize> = None;
    for (start, line) in lines(src) {
        let ind = indent(line);
        if let Some(key_col) = block {
            if ind == line.len() {
                continue; // blank lines belong to the block
            }
            if ind > key_col {
                spans.push(start + ind..start + line.len());
                continue;
            }
            block = None;
        }
        if line[ind..].starts_with(b"#") || line.starts_with(b"---") || line.starts_with(b"...") {
            continue;
        }
        let mut at = ind;
        while line[at..].starts_with(b"- ") {
            at += 2;
            at += indent(&line[at..]);
        }
        let Some((key, v_off)) = split_key(&line[at..]) else {
            continue;
        };
        if !is_secret_key(&String::from_utf8_lossy(key)) {
            continue;
        }
        let v_start = at + v_off;
        let v = line[v_start..].trim_ascii_start();
        if v.starts_with(b"|") || v.starts_with(b">") {
            block = Some(at);
        } else if let Some(r) = value(src, start + v_start..start + line.len(), true) {
            spans.push(r);
        }
    }
}

/// A mapping entry's key (unquoted) and the offset where its value starts.
fn split_key(body: &[u8]) -> Option<(&[u8], usize)> {
    if let Some(&q @ (b'"' | b'\'')) = body.first() {
        let close = 1 + body[1..].iter().position(|&b| b == q)?;
        let after = &body[close + 1..];
        let colon_ok =
            after.first() == Some(&b':') && after.get(1).is_none_or(|b| b.is_ascii_whitespace());
        return colon_ok.then_some((&body[1..close], close + 2));
    }
    let i = body
        .iter()
        .enumerate()
        .position(|(i, &b)| b == b':' && body.get(i + 1).is_none_or(|b| b.is_ascii_whitespace()))?;
    let key = &body[..i];
    if key.is_empty() || key.contains(&b'{') || key.contains(&b'[') || key.contains(&b'#') {
        return None;
    }
    Some((key, i + 1))
}
