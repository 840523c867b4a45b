//! `.properties`: `key=value`, `key: value` or `key value`, `#`/`!` comments, values continued
//! by an odd number of trailing backslashes (every continuation line of a secret is masked).

use super::rules::{is_secret_key, value};
use super::{indent, lines};
use std::ops::Range;

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    let mut continues = false;
    let mut secret = false;
    for (start, line) in lines(src) {
        let (content_end, more) = continuation(line);
        let ind = indent(line);
        if continues {
            continues = more;
            if secret && content_end > ind {
                spans.push(start + ind..start + content_end);
            }
            continue;
        }
        continues = more;
        secret = false;
        let t = &line[ind..];
        if t.is_empty() || t[0] == b'#' || t[0] == b'!' {
            continues = false;
            continue;
        }
        let mut i = 0;
        while i < t.len() {
            match t[i] {
                b'\\' => i += 2,
                b'=' | b':' | b' ' | b'\t' | b'\x0c' => break,
                _ => i += 1,
            }
        }
        let key_end = i.min(t.len());
        let mut j = key_end;
        while j < t.len() && matches!(t[j], b' ' | b'\t' | b'\x0c') {
            j += 1;
        }
        if j < t.len() && matches!(t[j], b'=' | b':') {
            j += 1;
        }
        if key_end == 0 || !is_secret_key(&String::from_utf8_lossy(&t[..key_end])) {
            continue;
        }
        secret = true;
        let (v_start, v_end) = (start + ind + j, start + content_end);
        if v_start < v_end
            && let Some(r) = value(src, v_start..v_end, false)
        {
            spans.push(r);
        }
    }
}

/// Where a line's content ends, and whether it continues on the next line (an odd number of
/// trailing backslashes; the last one is not content).
fn continuation(line: &[u8]) -> (usize, bool) {
    let slashes = line.iter().rev().take_while(|&&b| b == b'\\').count();
    if slashes % 2 == 1 {
        (line.len() - 1, true)
    } else {
        (line.len(), false)
    }
}
