//! Java signatures and qualified names as stored in symbol rows: top-level argument splits and
//! names without their package, for matching call sites and showing symbols.

/// A file's name without folders or extension (`src/org/x/Foo.java` → `Foo`): in Java, the name
/// of its main type.
pub fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or("")
}

/// Drops the package from a qualified name, using the file name to find where the type starts.
pub fn short_qualified(qname: &str, path: &str) -> String {
    let file_stem = file_stem(path);
    let parts: Vec<&str> = qname.split('.').collect();
    match parts.iter().position(|p| *p == file_stem) {
        Some(i) => parts[i..].join("."),
        None => {
            // First capitalised segment starts the type.
            let i = parts
                .iter()
                .position(|p| p.starts_with(char::is_uppercase))
                .unwrap_or(0);
            parts[i..].join(".")
        }
    }
}

/// The text between the parameter list's parentheses.
pub fn params_text(signature: &str) -> Option<&str> {
    let open = signature.find('(')?;
    let mut depth = 0i32;
    for (i, c) in signature[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&signature[open + 1..open + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits on commas outside `()`, `<>`, `[]`, `{}` and string literals.
pub fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut in_str: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        if let Some(q) = in_str {
            if c == q && prev != '\\' {
                in_str = None;
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            continue;
        }
        match c {
            '"' | '\'' => in_str = Some(c),
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

/// The simple name of an annotation as written: `@org.x.PostMapping("/a")` → `PostMapping`.
pub(crate) fn annotation_name(a: &str) -> &str {
    let name = a.trim_start_matches('@');
    let name = name.split('(').next().unwrap_or(name);
    name.rsplit('.').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_start_at_the_file_type() {
        assert_eq!(
            short_qualified("org.x.Foo.Inner.bar", "src/org/x/Foo.java"),
            "Foo.Inner.bar"
        );
        assert_eq!(short_qualified("org.x.Foo", "src/org/x/Foo.java"), "Foo");
    }

    #[test]
    fn top_level_split_ignores_nested_commas_and_strings() {
        assert_eq!(
            split_top_level("a, f(b, c), \"x,y\", 'c'"),
            vec!["a", "f(b, c)", "\"x,y\"", "'c'"]
        );
    }
}
