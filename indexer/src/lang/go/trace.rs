//! Frames of a Go panic or goroutine dump: a function line (`main.(*Server).handle(0xc0…)`,
//! `created by main.main in goroutine 1`) followed by its location line
//! (`\t/home/u/app/server.go:42 +0x1d`). The innermost frame comes first, as Go prints it.

use crate::lang::TraceFrame;

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
}
