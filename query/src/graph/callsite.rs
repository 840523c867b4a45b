//! Call sites in a method body, read lexically: `name(`, `Type.name(`, `var.name(`, `new Type(`,
//! with the number of arguments and the line. Comments and string literals are skipped. Pure.

/// One call written in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    pub name: String,
    /// `this`, `super`, a type (`PathUtils`), a variable (`file`) or a call chain's last link.
    pub qualifier: Option<String>,
    /// `new Name(...)`.
    pub constructor: bool,
    pub arity: usize,
    /// 1-based line in the file.
    pub line: u32,
    /// Argument expressions as written.
    pub args: Vec<String>,
}

const NOT_CALLS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "catch",
    "synchronized",
    "return",
    "throw",
    "try",
    "else",
    "do",
    "assert",
    "case",
    "super",
    "this",
    "instanceof",
    "sizeof",
    "typeof",
    "function",
    "elif",
    "when",
];

/// Blanks out comments and string/char literals, keeping line structure and byte offsets.
pub fn mask_comments_and_strings(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"  ");
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
            if i < b.len() {
                out.extend_from_slice(b"  ");
                i += 2;
            }
        } else if c == b'"' || c == b'\'' {
            out.push(c);
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.extend_from_slice(b"  ");
                    i += 2;
                    continue;
                }
                out.push(b' ');
                i += 1;
            }
            if i < b.len() && b[i] == c {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    // Only ASCII bytes were replaced, by ASCII; multi-byte sequences inside comments or strings
    // were blanked whole, so the result is valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Call sites of `body`, whose first line is file line `first_line`. `skip_decl` drops the
/// declaration's own name (the first `name(` of a method body is its header).
pub fn call_sites(body: &str, first_line: u32, skip_decl: Option<&str>) -> Vec<CallSite> {
    let masked = mask_comments_and_strings(body);
    let b = masked.as_bytes();
    let mut out = Vec::new();
    let mut skipped_decl = skip_decl.is_none();
    let mut i = 0;
    let mut line = first_line;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_' || c == b'$') || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let name = &masked[start..i];
        let mut j = i;
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        if j >= b.len() || b[j] != b'(' || NOT_CALLS.contains(&name) {
            continue;
        }
        if !skipped_decl && Some(name) == skip_decl {
            skipped_decl = true;
            continue;
        }
        let (qualifier, constructor) = qualifier_before(&masked, start);
        let Some((args, close)) = arguments(&masked, j) else {
            continue;
        };
        let arg_texts: Vec<String> = args.iter().map(|a| a.trim().to_string()).collect();
        let arity = if arg_texts.len() == 1 && arg_texts[0].is_empty() {
            0
        } else {
            arg_texts.len()
        };
        let _ = close;
        out.push(CallSite {
            name: name.to_string(),
            qualifier,
            constructor,
            arity,
            line,
            args: if arity == 0 { Vec::new() } else { arg_texts },
        });
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// What precedes a called name: `new`, `X.`, `x().` …
fn qualifier_before(s: &str, start: usize) -> (Option<String>, bool) {
    let b = s.as_bytes();
    let mut k = start;
    while k > 0 && (b[k - 1] == b' ' || b[k - 1] == b'\t' || b[k - 1] == b'\n' || b[k - 1] == b'\r')
    {
        k -= 1;
    }
    if k >= 3 && &s[k - 3..k] == "new" && (k == 3 || !is_ident(b[k - 4])) {
        return (None, true);
    }
    if k == 0 || b[k - 1] != b'.' {
        return (None, false);
    }
    let mut e = k - 1;
    while e > 0 && (b[e - 1] == b' ' || b[e - 1] == b'\n' || b[e - 1] == b'\t' || b[e - 1] == b'\r')
    {
        e -= 1;
    }
    if e > 0 && b[e - 1] == b')' {
        return (Some("()".to_string()), false);
    }
    let mut q = e;
    while q > 0 && is_ident(b[q - 1]) {
        q -= 1;
    }
    if q == e {
        return (None, false);
    }
    (Some(s[q..e].to_string()), false)
}

/// Arguments of the call whose `(` is at `open`: top-level comma-separated texts and the index of
/// the closing `)`.
fn arguments(s: &str, open: usize) -> Option<(Vec<&str>, usize)> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut starts = open + 1;
    let mut out = Vec::new();
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    out.push(&s[starts..i]);
                    return Some((out, i));
                }
            }
            b',' if depth == 1 => {
                out.push(&s[starts..i]);
                starts = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_calls_with_qualifiers_and_arity() {
        let body = "public static void copy(File a, File b) throws IOException {\n  // copy(x) in a comment\n  String s = \"call(me)\";\n  if (a.exists()) {\n    doCopy(a, b, f(1, 2));\n    PathUtils.delete(b.toPath());\n    Foo x = new Foo(a);\n  }\n}";
        let calls = call_sites(body, 10, Some("copy"));
        let names: Vec<(&str, Option<&str>, usize, u32)> = calls
            .iter()
            .map(|c| (c.name.as_str(), c.qualifier.as_deref(), c.arity, c.line))
            .collect();
        assert_eq!(
            names,
            vec![
                ("exists", Some("a"), 0, 13),
                ("doCopy", None, 3, 14),
                ("f", None, 2, 14),
                ("delete", Some("PathUtils"), 1, 15),
                ("toPath", Some("b"), 0, 15),
                ("Foo", None, 1, 16),
            ]
        );
        assert!(calls[5].constructor);
    }

    #[test]
    fn masking_keeps_lines_and_offsets() {
        let src = "a /* x\ny */ b \"s\\\"t\" // c\nd";
        let m = mask_comments_and_strings(src);
        assert_eq!(m.len(), src.len());
        assert_eq!(m.lines().count(), src.lines().count());
        assert!(!m.contains('x') && !m.contains('c') && m.contains('d'));
    }
}
