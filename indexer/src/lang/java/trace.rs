//! Frames of a pasted Java stack trace: `at org.x.Foo.bar(Foo.java:42)`, `Caused by:` blocks.

use crate::lang::{NullUse, TraceFrame};

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

/// Exceptions whose message the JVM writes (`Index 5 out of bounds for length 3`): no code holds
/// it.
pub(crate) const RUNTIME_WRITTEN: &[&str] = &[
    "java.lang.NullPointerException",
    "java.lang.ArrayIndexOutOfBoundsException",
    "java.lang.ClassCastException",
    "java.lang.ArithmeticException",
    "java.lang.NegativeArraySizeException",
    "java.lang.ArrayStoreException",
    "java.lang.StackOverflowError",
    "java.lang.OutOfMemoryError",
];

/// A helpful `NullPointerException` message (JDK 14+): `Cannot invoke
/// "org.x.Context.getManager()" because "context" is null` → `getManager` on `context`.
pub(crate) fn null_use(class: &str, message: &str) -> Option<NullUse> {
    if class != "java.lang.NullPointerException" {
        return None;
    }
    let rest = message.strip_prefix("Cannot invoke \"")?;
    let (called, rest) = rest.split_once('"')?;
    let member = called.split('(').next()?.rsplit('.').next()?.to_string();
    let on = rest
        .split_once("because \"")
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(x, _)| x.to_string())
        .unwrap_or_default();
    (!member.is_empty()).then_some(NullUse { member, on })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_helpful_null_pointer_message_names_the_call_and_the_null_expression() {
        let npe = "java.lang.NullPointerException";
        assert_eq!(
            null_use(
                npe,
                "Cannot invoke \"org.x.Context.getManager()\" because \"context\" is null"
            ),
            Some(NullUse {
                member: "getManager".into(),
                on: "context".into()
            })
        );
        assert_eq!(null_use(npe, "boom"), None);
        assert_eq!(
            null_use(
                "java.lang.IllegalStateException",
                "Cannot invoke \"a.B.c()\""
            ),
            None
        );
    }
}
