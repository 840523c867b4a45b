//! Frames of a pasted Python traceback (`File "…/app.py", line 867, in dispatch`) or pytest
//! report (`src/app.py:867: in dispatch`, and the failing line `src/app.py:870: KeyError`).
//! Python prints the first exception first: with chained exceptions ("During handling of the
//! above exception…", "The above exception was the direct cause…") the first block is the
//! deepest cause.

use crate::lang::{NullUse, TraceFrame};

pub(crate) fn frames(text: &str) -> Vec<TraceFrame> {
    let mut out: Vec<(TraceFrame, u16)> = Vec::new();
    let mut block = 0u16;
    let mut in_block = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("Traceback (most recent call last)") {
            if in_block || !out.is_empty() {
                block = block.saturating_add(1);
            }
            in_block = true;
            continue;
        }
        if let Some(f) = traceback_line(l).or_else(|| pytest_line(l)) {
            out.push((f, block));
        }
    }
    let last = out.iter().map(|(_, b)| *b).max().unwrap_or(0);
    out.into_iter()
        .map(|(mut f, b)| {
            f.cause = last - b;
            f
        })
        .collect()
}

/// `File "path", line N, in func`.
fn traceback_line(l: &str) -> Option<TraceFrame> {
    let rest = l.strip_prefix("File \"")?;
    let (file, rest) = rest.split_once('"')?;
    let rest = rest.trim_start_matches(',').trim().strip_prefix("line ")?;
    let (n, rest) = rest.split_once(',').unwrap_or((rest, ""));
    let function = rest.trim().strip_prefix("in ").unwrap_or("").trim();
    python_frame(file, n.trim().parse().ok()?, function)
}

/// `path.py:N: in func` (a frame) or `path.py:N: ErrorName` (the failing line).
fn pytest_line(l: &str) -> Option<TraceFrame> {
    let (file, rest) = l.split_once(".py:")?;
    let (n, rest) = rest.split_once(": ")?;
    let function = rest.strip_prefix("in ").unwrap_or("").trim();
    let file = format!("{file}.py");
    if file.contains(char::is_whitespace) {
        return None;
    }
    python_frame(&file, n.parse().ok()?, function)
}

fn python_frame(file: &str, line: u32, function: &str) -> Option<TraceFrame> {
    let file = file.replace('\\', "/");
    (file.ends_with(".py") || file.ends_with(".pyi")).then(|| TraceFrame {
        owner: String::new(),
        function: function.to_string(),
        file: Some(file),
        line: Some(line),
        cause: 0,
    })
}

/// Exceptions whose message the interpreter writes (`division by zero`, `name 'x' is not
/// defined`): no code holds it.
pub(crate) const RUNTIME_WRITTEN: &[&str] = &[
    "ZeroDivisionError",
    "RecursionError",
    "NameError",
    "UnboundLocalError",
    "MemoryError",
];

/// `AttributeError: 'NoneType' object has no attribute 'pay'` → `pay` used on `None`; the
/// message does not name the expression.
pub(crate) fn null_use(class: &str, message: &str) -> Option<NullUse> {
    if class != "AttributeError" {
        return None;
    }
    let member = message
        .strip_prefix("'NoneType' object has no attribute '")?
        .split('\'')
        .next()?;
    (!member.is_empty()).then(|| NullUse {
        member: member.to_string(),
        on: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracebacks_chained_and_pytest_reports_give_frames() {
        let text = "Traceback (most recent call last):\n  File \"/srv/app/src/shop/orders.py\", line 40, in place\n    repo.save(order)\nKeyError: 'sku'\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"C:\\\\app\\\\views.py\", line 12, in checkout\n    place(o)\nRuntimeError: failed\n";
        let f = frames(text);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].file.as_deref(), Some("/srv/app/src/shop/orders.py"));
        assert_eq!(
            (f[0].line, f[0].function.as_str(), f[0].cause),
            (Some(40), "place", 1)
        );
        assert_eq!(f[1].file.as_deref(), Some("C://app//views.py"));
        assert_eq!(f[1].cause, 0, "the last block is the exception raised last");
        let pytest = "tests/test_orders.py:17: in test_place\n    place(o)\nsrc/shop/orders.py:41: KeyError\n";
        let f = frames(pytest);
        assert_eq!(f.len(), 2);
        assert_eq!(
            (f[0].function.as_str(), f[0].line),
            ("test_place", Some(17))
        );
        assert_eq!((f[1].function.as_str(), f[1].line), ("", Some(41)));
        assert!(frames("see docs.py: notes").is_empty());
    }

    #[test]
    fn an_attribute_of_none_names_the_member() {
        assert_eq!(
            null_use("AttributeError", "'NoneType' object has no attribute 'pay'"),
            Some(NullUse {
                member: "pay".into(),
                on: String::new()
            })
        );
        assert_eq!(
            null_use("AttributeError", "'Order' object has no attribute 'pay'"),
            None
        );
        assert_eq!(
            null_use("KeyError", "'NoneType' object has no attribute 'pay'"),
            None
        );
    }
}
