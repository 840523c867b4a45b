//! Private-key blocks in any file: between `-----BEGIN … PRIVATE KEY-----` and the matching
//! `-----END … PRIVATE KEY-----` every run of key material is masked, line by line. Quotes, `+`,
//! backslash escapes (`\n` in a Java or JSON string) and indentation stay, so a key written as a
//! string literal is still a string literal. Public keys and certificates are not secrets.
//!
//! Key material is a base64 run that fills its line, is 16 characters or longer, or holds a
//! digit, `+`, `/` or `=`: so the short words of code between two marker constants
//! (`"; static final String END = "`) stay. A block cut off (no END marker) ends at the first
//! line without key material.

use memchr::memmem;
use std::ops::Range;

const BEGIN: &[u8] = b"-----BEGIN ";
const END: &[u8] = b"-----END ";

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    let mut at = 0;
    while let Some(i) = memmem::find(&src[at..], BEGIN) {
        let label_start = at + i + BEGIN.len();
        let Some(body_start) = private_key_label(src, label_start) else {
            at = label_start;
            continue;
        };
        let mut end = None;
        let mut k = body_start;
        while let Some(j) = memmem::find(&src[k..], END) {
            let end_label = k + j + END.len();
            if let Some(after) = private_key_label(src, end_label) {
                end = Some((k + j, after));
                break;
            }
            k = end_label;
        }
        at = match end {
            Some((body_end, after)) => {
                mask_lines(src, body_start..body_end, false, spans);
                after
            }
            None => mask_lines(src, body_start..src.len(), true, spans),
        };
    }
}

/// Masks the key material of each line of `range`; with `cut_off`, stops after the first whole
/// line without any. Returns where it stopped.
fn mask_lines(
    src: &[u8],
    range: Range<usize>,
    cut_off: bool,
    spans: &mut Vec<Range<usize>>,
) -> usize {
    let mut line_start = range.start;
    while line_start < range.end {
        let line_end = memchr::memchr(b'\n', &src[line_start..range.end])
            .map_or(range.end, |i| line_start + i);
        let before = spans.len();
        mask_runs(src, line_start..line_end, spans);
        let first_line = line_start == range.start;
        if cut_off && !first_line && spans.len() == before {
            return line_end;
        }
        line_start = line_end + 1;
    }
    range.end
}

/// For a label starting at `from` (`RSA PRIVATE KEY-----`): the offset after its closing dashes
/// when it names a private key.
fn private_key_label(src: &[u8], from: usize) -> Option<usize> {
    let len = src[from..]
        .iter()
        .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b' ')
        .count();
    let label = &src[from..from + len];
    (src[from + len..].starts_with(b"-----") && memmem::find(label, b"PRIVATE KEY").is_some())
        .then_some(from + len + 5)
}

fn mask_runs(src: &[u8], line: Range<usize>, spans: &mut Vec<Range<usize>>) {
    let content = src[line.clone()].trim_ascii();
    let mut i = line.start;
    while i < line.end {
        let b = src[i];
        if b == b'\\' {
            i += 2;
            continue;
        }
        if !is_base64(b) {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < line.end && is_base64(src[i]) {
            i += 1;
        }
        let run = &src[run_start..i];
        let material = run.iter().any(u8::is_ascii_alphanumeric)
            && (run.len() >= 16
                || run.len() == content.len()
                || run
                    .iter()
                    .any(|b| b.is_ascii_digit() || matches!(b, b'+' | b'/' | b'=')));
        if material {
            spans.push(run_start..i);
        }
    }
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}
