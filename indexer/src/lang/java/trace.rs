//! Frames of a pasted Java stack trace: `at org.x.Foo.bar(Foo.java:42)`, `Caused by:` blocks.

use crate::lang::TraceFrame;

pub(crate) fn frames(text: &str) -> Vec<TraceFrame> {
    let mut out = Vec::new();
    let mut cause = 0u16;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("Caused by:") {
            cause = cause.saturating_add(1);
            continue;
        }
        let Some(rest) = l.strip_prefix("at ") else {
            continue;
        };
        let Some(open) = rest.find('(') else { continue };
        let (qual, loc) = (&rest[..open], &rest[open + 1..]);
        // A module or class loader prefix: `java.base/java.lang.Thread.run`, `app//org.x.Foo.bar`.
        let qual = qual.rsplit('/').next().unwrap_or(qual);
        let loc = loc.trim_end_matches(')');
        let Some(dot) = qual.rfind('.') else { continue };
        let class = qual[..dot]
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .replace('$', ".");
        let raw = &qual[dot + 1..];
        // `lambda$process$0` runs inside `process`.
        let method = match raw.strip_prefix("lambda$") {
            Some(l) => l.split('$').next().unwrap_or(l).to_string(),
            None => raw.to_string(),
        };
        let (file, line_no) = match loc.split_once(':') {
            Some((f, n)) => (Some(f.to_string()), n.parse().ok()),
            None => (loc.ends_with(".java").then(|| loc.to_string()), None),
        };
        if class.is_empty() || method.is_empty() {
            continue;
        }
        out.push(TraceFrame {
            owner: class,
            function: method,
            file,
            line: line_no,
            cause,
        });
    }
    out
}
