//! Frames of a pasted Node.js (V8) stack trace: `at OrderService.pay (/srv/app/src/orders.ts:12:5)`,
//! `at /srv/app/lib/x.js:3:9`, `at async Router.handle (file:///app/dist/router.mjs:40:1)`.
//! V8 prints the innermost frame first; an `[cause]:` block (Node's `Error.cause`) is an earlier
//! failure, so its frames get a higher `cause`.

use crate::lang::{NullUse, TraceFrame};

pub(crate) fn frames(text: &str) -> Vec<TraceFrame> {
    let mut out = Vec::new();
    let mut cause = 0u16;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("[cause]:") {
            cause = cause.saturating_add(1);
            continue;
        }
        if let Some(f) = frame(l, cause) {
            out.push(f);
        }
    }
    out
}

fn frame(l: &str, cause: u16) -> Option<TraceFrame> {
    let rest = l.strip_prefix("at ")?;
    let rest = rest.strip_prefix("async ").unwrap_or(rest);
    let (function, location) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((f, loc)) => (f.trim(), loc),
        None => ("", rest),
    };
    // `path:line:column`; the path may hold colons (`C:\…`, `file:///…`).
    let (loc, _column) = location.rsplit_once(':')?;
    let (file, line) = loc.rsplit_once(':')?;
    let file = file
        .strip_prefix("file://")
        .unwrap_or(file)
        .replace('\\', "/");
    let file = file.split(['?', '#']).next().unwrap_or(&file).to_string();
    let known = super::EXTENSIONS.iter().any(|e| file.ends_with(e));
    if !known || file.starts_with("node:") || file.contains("/node_modules/") {
        return None;
    }
    // `Class.method`, `Object.<anonymous>`, `new Foo`: the function's own name.
    let function = function.strip_prefix("new ").unwrap_or(function);
    let function = function.split(" [as ").next().unwrap_or(function);
    let function = function.rsplit('.').next().unwrap_or(function);
    let function = if function.starts_with('<') {
        ""
    } else {
        function
    };
    Some(TraceFrame {
        owner: String::new(),
        function: function.to_string(),
        file: Some(file),
        line: Some(line.parse().ok()?),
        cause,
    })
}

/// V8's message for a property read on `undefined` or `null`: `Cannot read properties of
/// undefined (reading 'pay')`, and before Node 16 `Cannot read property 'pay' of undefined` →
/// `pay`; the message does not name the expression.
pub(crate) fn null_use(class: &str, message: &str) -> Option<NullUse> {
    if class != "TypeError" {
        return None;
    }
    let member = if let Some(rest) = message.strip_prefix("Cannot read properties of ") {
        let rest = rest
            .strip_prefix("undefined")
            .or_else(|| rest.strip_prefix("null"))?;
        rest.strip_prefix(" (reading '")?.split('\'').next()?
    } else {
        let (member, of) = message
            .strip_prefix("Cannot read property '")?
            .split_once('\'')?;
        if !matches!(of, " of undefined" | " of null") {
            return None;
        }
        member
    };
    (!member.is_empty()).then(|| NullUse {
        member: member.to_string(),
        on: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_stack_frames_name_file_line_and_function() {
        let text = "Error: order is not awaiting payment\n    at Order.markPaid (/srv/shop/src/orders.ts:14:11)\n    at async OrderService.pay (file:///srv/shop/src/service.mjs:28:5)\n    at /srv/shop/src/main.js:3:9\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)\n    at run (/srv/shop/node_modules/x/index.js:1:1)\n  [cause]: TypeError: boom\n    at Object.<anonymous> (C:\\shop\\src\\db.ts:7:3)\n";
        let f = frames(text);
        let got: Vec<(&str, &str, u32, u16)> = f
            .iter()
            .map(|f| {
                (
                    f.file.as_deref().unwrap(),
                    f.function.as_str(),
                    f.line.unwrap(),
                    f.cause,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("/srv/shop/src/orders.ts", "markPaid", 14, 0),
                ("/srv/shop/src/service.mjs", "pay", 28, 0),
                ("/srv/shop/src/main.js", "", 3, 0),
                ("C:/shop/src/db.ts", "", 7, 1),
            ]
        );
        assert!(frames("at the end of the day: 3:4").is_empty());
    }

    #[test]
    fn a_property_read_on_undefined_names_the_member() {
        let pay = Some(NullUse {
            member: "pay".into(),
            on: String::new(),
        });
        for m in [
            "Cannot read properties of undefined (reading 'pay')",
            "Cannot read properties of null (reading 'pay')",
            "Cannot read property 'pay' of undefined",
        ] {
            assert_eq!(null_use("TypeError", m), pay, "{m}");
        }
        assert_eq!(null_use("TypeError", "x.pay is not a function"), None);
        assert_eq!(
            null_use("RangeError", "Cannot read property 'pay' of undefined"),
            None
        );
    }
}
