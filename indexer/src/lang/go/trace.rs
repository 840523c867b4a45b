//! Frames of a Go panic or goroutine dump: a function line (`main.(*Server).handle(0xc0…)`,
//! `created by main.main in goroutine 1`) followed by its location line
//! (`\t/home/u/app/server.go:42 +0x1d`). The innermost frame comes first, as Go prints it.

use crate::lang::{Thrown, TraceFrame};

pub(crate) fn frames(text: &str) -> Vec<TraceFrame> {
    let mut out = Vec::new();
    let mut previous = "";
    for line in text.lines() {
        if let Some((file, n)) = location(line) {
            out.push(TraceFrame {
                owner: String::new(),
                function: function(previous),
                file: Some(file.replace('\\', "/")),
                line: Some(n),
                cause: 0,
            });
        }
        previous = line.trim();
    }
    out
}

/// The failures whose message the runtime writes: `panic: runtime error: …`, `fatal error: …`.
pub(crate) const RUNTIME_WRITTEN: &[&str] = &["runtime error", "fatal error"];

/// `panic: order 7 not found` (a value panicked with, ` [recovered]` dropped) is a `panic`;
/// `panic: runtime error: index out of range [5] with length 3` a `runtime error` and `fatal
/// error: all goroutines are asleep - deadlock!` a `fatal error`, both written by the runtime.
pub(crate) fn thrown(line: &str) -> Option<Thrown> {
    let l = line.trim();
    let of = |class: &str, message: &str| {
        Some(Thrown {
            class: class.to_string(),
            message: Some(message.trim().to_string()).filter(|m| !m.is_empty()),
        })
    };
    if let Some(m) = l.strip_prefix("fatal error: ") {
        return of("fatal error", m);
    }
    let rest = l.strip_prefix("panic: ")?;
    let rest = rest
        .strip_suffix(" [recovered, repanicked]")
        .or_else(|| rest.strip_suffix(" [recovered]"))
        .unwrap_or(rest);
    match rest.strip_prefix("runtime error: ") {
        Some(m) => of("runtime error", m),
        None => of("panic", rest),
    }
}

/// `\t/path/file.go:123 +0x1d` → (`/path/file.go`, 123).
fn location(line: &str) -> Option<(&str, u32)> {
    if !line.starts_with([' ', '\t']) {
        return None;
    }
    let l = line.trim();
    let offset = l.contains(" +0x");
    let l = l.split(" +0x").next().unwrap_or(l);
    let (file, n) = l.rsplit_once(':')?;
    // Go prints the full path, and the pc offset on all but inlined frames.
    let plausible = file.ends_with(".go") && !file.contains(' ') && (offset || file.contains('/'));
    plausible.then_some(())?;
    Some((file, n.parse().ok()?))
}

/// `pkg/path.(*T).Method(0x1, …)` → `Method`; `created by pkg.F in goroutine 7` → `F`.
fn function(line: &str) -> String {
    let l = line.strip_prefix("created by ").unwrap_or(line);
    let l = l.split(" in goroutine").next().unwrap_or(l);
    let l = match l.rfind('(') {
        Some(i) if l.ends_with(')') => &l[..i],
        _ => l,
    };
    let name = l.rsplit('/').next().unwrap_or(l);
    let name = name.rsplit('.').next().unwrap_or(name);
    // Closures are `F.func1`: the function is the one that holds them.
    if name.starts_with("func") && name[4..].bytes().all(|b| b.is_ascii_digit()) {
        let outer = l.rsplit_once('.').map_or(l, |(o, _)| o);
        return outer.rsplit('.').next().unwrap_or("").to_string();
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_name_their_functions_and_lines() {
        let text = "panic: runtime error: invalid memory address\n\n\
            goroutine 1 [running]:\n\
            example.com/shop/internal/orders.(*Service).Pay(0xc000010000, {0x0, 0x0})\n\
            \t/home/u/shop/internal/orders/service.go:42 +0x1d\n\
            main.main.func1()\n\
            \t/home/u/shop/main.go:10 +0x25\n\
            created by main.main in goroutine 1\n\
            \t/home/u/shop/main.go:9 +0x3e\n";
        let f = frames(text);
        let got: Vec<(&str, &str, Option<u32>)> = f
            .iter()
            .map(|f| (f.function.as_str(), f.file.as_deref().unwrap_or(""), f.line))
            .collect();
        assert_eq!(
            got,
            [
                ("Pay", "/home/u/shop/internal/orders/service.go", Some(42)),
                ("main", "/home/u/shop/main.go", Some(10)),
                ("main", "/home/u/shop/main.go", Some(9)),
            ]
        );
        assert!(frames("File \"a.py\", line 3, in f\n  x.go:3\n").is_empty());
    }

    #[test]
    fn panic_lines_name_their_kind_and_message() {
        let t = |class: &str, m: &str| {
            Some(Thrown {
                class: class.into(),
                message: Some(m.into()),
            })
        };
        assert_eq!(thrown("panic: paid twice"), t("panic", "paid twice"));
        assert_eq!(
            thrown("panic: order 7 not found [recovered]"),
            t("panic", "order 7 not found")
        );
        assert_eq!(
            thrown("panic: runtime error: index out of range [5] with length 3"),
            t("runtime error", "index out of range [5] with length 3")
        );
        assert_eq!(
            thrown("fatal error: all goroutines are asleep - deadlock!"),
            t("fatal error", "all goroutines are asleep - deadlock!")
        );
        assert_eq!(thrown("goroutine 1 [running]:"), None);
    }
}
