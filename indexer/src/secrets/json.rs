//! JSON (and JSON-like) members on one line: `"password": "x"`, `"apiKey": 12345`, several per
//! line in minified files. Objects and arrays under a secret key are not masked whole; their own
//! members are judged by their own keys.

use super::lines;
use super::rules::{is_secret_key, value};
use std::ops::Range;

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    for (start, line) in lines(src) {
        let mut i = 0;
        while i < line.len() {
            if line[i] != b'"' {
                i += 1;
                continue;
            }
            let Some(end) = string_end(line, i) else {
                break;
            };
            let mut j = skip_ws(line, end + 1);
            if line.get(j) != Some(&b':') {
                i = end + 1;
                continue;
            }
            j = skip_ws(line, j + 1);
            let secret = is_secret_key(&String::from_utf8_lossy(&line[i + 1..end]));
            i = j;
            if !secret || j >= line.len() {
                continue;
            }
            if line[j] == b'"' {
                let close = string_end(line, j).unwrap_or(line.len());
                // The content between the quotes (escaped quotes included).
                let (s, e) = (j + 1, close);
                if s < e
                    && let Some(r) = value(src, start + s..start + e, false)
                {
                    spans.push(r);
                }
                i = close + 1;
            } else if !matches!(line[j], b'{' | b'[') {
                let e = line[j..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']'))
                    .map_or(line.len(), |p| j + p);
                if let Some(r) = value(src, start + j..start + e, false) {
                    spans.push(r);
                }
                i = e;
            }
        }
    }
}

/// The index of the quote closing the string opened at `open`.
fn string_end(line: &[u8], open: usize) -> Option<usize> {
    let mut k = open + 1;
    while k < line.len() {
        match line[k] {
            b'\\' => k += 2,
            b'"' => return Some(k),
            _ => k += 1,
        }
    }
    None
}

fn skip_ws(line: &[u8], mut i: usize) -> usize {
    while i < line.len() && line[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}
