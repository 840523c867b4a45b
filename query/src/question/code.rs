//! Code the question pastes (`Jsoup.connect(url).get()`, `readValue(json, Person.class)`): a
//! call's place and arguments as the user wrote them. This reads the question's text, never
//! indexed code: what the code base holds comes from the index's facts.

/// Byte offset of the first call to `name` in pasted code (the name, then `(`).
pub(crate) fn pasted_call_at(line: &str, name: &str) -> Option<usize> {
    line.match_indices(name).map(|(k, _)| k).find(|&k| {
        let prev = line[..k].chars().next_back();
        !prev.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
            && line[k + name.len()..].trim_start().starts_with('(')
    })
}

/// The text between the parentheses of the first call to `name` in pasted code.
pub(crate) fn pasted_call_args<'l>(line: &'l str, name: &str) -> Option<&'l str> {
    let call = &line[pasted_call_at(line, name)?..];
    // An argument list the line does not close runs to its end.
    parenthesized(call).or_else(|| call.find('(').map(|open| &call[open + 1..]))
}

/// The text between the first `(` of `text` and the `)` that closes it.
fn parenthesized(signature: &str) -> Option<&str> {
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
pub(crate) fn split_top_level(s: &str) -> Vec<&str> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_split_ignores_nested_commas_and_strings() {
        assert_eq!(
            split_top_level("a, f(b, c), \"x,y\", 'c'"),
            vec!["a", "f(b, c)", "\"x,y\"", "'c'"]
        );
    }

    #[test]
    fn a_calls_arguments_run_to_its_closing_parenthesis_or_the_end() {
        assert_eq!(
            pasted_call_args("x = Jsoup.connect(url(a, b)).get()", "connect"),
            Some("url(a, b)")
        );
        assert_eq!(
            pasted_call_args("readValue(json, Person.class", "readValue"),
            Some("json, Person.class")
        );
        assert_eq!(
            pasted_call_at("reconnect(a); connect(b)", "connect"),
            Some(14)
        );
    }
}
