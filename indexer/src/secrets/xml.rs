//! XML on one line: element text (`<password>x</password>`, `<db:password>`,
//! `<spring.datasource.password>`, CDATA included), secret attributes (`password="x"`) and the
//! `value` of a named entry (`<property name="password" value="x"/>`,
//! `<entry key="api.token" value="x"/>`). Element text spread over several lines is not read.

use super::lines;
use super::rules::{is_secret_key, value};
use std::ops::Range;

pub fn scan(src: &[u8], spans: &mut Vec<Range<usize>>) {
    for (start, line) in lines(src) {
        if !line.contains(&b'<') {
            continue;
        }
        element_text(line, start, src, spans);
        attributes(line, start, src, spans);
    }
}

fn element_text(line: &[u8], start: usize, src: &[u8], spans: &mut Vec<Range<usize>>) {
    for close in memchr::memmem::find_iter(line, b"</") {
        let name_start = close + 2;
        let name_len = line[name_start..]
            .iter()
            .take_while(|&&b| is_name_byte(b))
            .count();
        let name = &line[name_start..name_start + name_len];
        let local = name.rsplit(|&b| b == b':').next().unwrap_or(name);
        if name.is_empty() || !is_secret_key(&String::from_utf8_lossy(local)) {
            continue;
        }
        let Some(gt) = line[..close].iter().rposition(|&b| b == b'>') else {
            continue;
        };
        let (mut text_start, mut text_end) = (gt + 1, close);
        if line[..=gt].ends_with(b"]]>") {
            // `<password><![CDATA[x]]></password>`: the CDATA section is the text.
            let Some(open) = memchr::memmem::rfind(&line[..gt], b"<![CDATA[") else {
                continue;
            };
            (text_start, text_end) = (open + 9, gt - 2);
        } else {
            // The `>` must close the matching start tag, not some other element.
            let Some(lt) = line[..gt].iter().rposition(|&b| b == b'<') else {
                continue;
            };
            let tag = &line[lt + 1..gt];
            let opens = tag.starts_with(name)
                && tag.get(name.len()).is_none_or(|b| b.is_ascii_whitespace())
                && !tag.ends_with(b"/");
            if !opens || line[text_start..text_end].contains(&b'<') {
                continue;
            }
        }
        if text_start < text_end
            && let Some(r) = value(src, start + text_start..start + text_end, false)
        {
            spans.push(r);
        }
    }
}

/// `name="value"` pairs of a line: secret names mask their value; a `name`/`key` attribute
/// naming a secret masks the `value` attribute beside it.
fn attributes(line: &[u8], start: usize, src: &[u8], spans: &mut Vec<Range<usize>>) {
    let mut attrs: Vec<(&[u8], Range<usize>)> = Vec::new();
    for eq in memchr::memchr_iter(b'=', line) {
        let name_len = line[..eq]
            .iter()
            .rev()
            .take_while(|&&b| is_name_byte(b))
            .count();
        let Some(&q @ (b'"' | b'\'')) = line.get(eq + 1) else {
            continue;
        };
        if name_len == 0 {
            continue;
        }
        let v_start = eq + 2;
        let Some(len) = line[v_start..].iter().position(|&b| b == q) else {
            continue;
        };
        attrs.push((&line[eq - name_len..eq], v_start..v_start + len));
    }
    let names_secret = attrs.iter().any(|(n, v)| {
        matches!(*n, b"name" | b"key" | b"property")
            && is_secret_key(&String::from_utf8_lossy(&line[v.clone()]))
    });
    for (n, v) in &attrs {
        let secret = is_secret_key(&String::from_utf8_lossy(n)) || (names_secret && *n == b"value");
        if secret && let Some(r) = value(src, start + v.start..start + v.end, false) {
            spans.push(r);
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b':')
}
