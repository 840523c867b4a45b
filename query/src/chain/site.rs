//! What the line of a call site says about the call: what stands before it (the receiver),
//! what goes into it (its arguments), what it is part of (a `return`, another call's
//! arguments), and the names a method assigns on its way.

use crate::question::code::{pasted_call_args, pasted_call_at};
use crate::view::prose_stems;

/// Stems of the identifiers of the receiver of the call to `name` on a line: for
/// `engine.getHost(name).getPipeline().invoke(request)`, those of `engine`, `getHost` and
/// `getPipeline` (not the arguments). Empty when the line holds no such call.
pub(super) fn receiver_words(line: &str, name: &str) -> Vec<String> {
    let Some(end) = line.find(&format!(".{name}(")) else {
        return Vec::new();
    };
    let mut idents = String::new();
    let mut depth = 0usize;
    let mut start = end;
    for (k, c) in line[..end].char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            c if c.is_alphanumeric() || c == '_' || c == '$' || c == '.' => {}
            _ => break,
        }
        start = k;
    }
    let mut depth = 0usize;
    for c in line[start..end].chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => idents.push(c),
            _ => {}
        }
    }
    prose_stems(&idents)
}

/// Names a method's lines assign (`le = …`, `Foo le = …`, `var le = …`): the values it makes
/// on its way, which later calls may hand on.
pub(super) fn assigned_locals(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        let code = line.trim_start();
        if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
            continue;
        }
        let bytes = code.as_bytes();
        let mut from = 0;
        while let Some(k) = code[from..].find('=').map(|k| k + from) {
            let before = bytes.get(k.wrapping_sub(1)).copied().unwrap_or(b' ');
            let after = bytes.get(k + 1).copied().unwrap_or(b' ');
            // Not `==`, `!=`, `<=`, `>=` nor a compound assignment (`+=`).
            if after == b'=' {
                from = k + 2;
                continue;
            }
            if b"=!<>+-*/%&|^".contains(&before) {
                from = k + 1;
                continue;
            }
            let name: String = code[..k]
                .trim_end()
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let is_ident = name
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
            if is_ident && name != "this" && !out.contains(&name) {
                out.push(name);
            }
            break;
        }
    }
    out
}

#[derive(Debug, PartialEq)]
pub(super) enum CallRole {
    /// The outermost call of a `return` statement.
    Returned,
    /// Inside the argument list of another call.
    Argument,
    Other,
}

/// What the first call to `name` on a line does there.
pub(super) fn call_role(line: &str, name: &str) -> CallRole {
    let Some(at) = pasted_call_at(line, name) else {
        return CallRole::Other;
    };
    // The open parentheses before the call: a method call's, or a statement's (`if (`).
    let mut open: Vec<bool> = Vec::new();
    for (k, c) in line[..at].char_indices() {
        match c {
            '(' => {
                let before = line[..k].trim_end();
                let word = &before[before
                    .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .map_or(0, |w| w + 1)..];
                let statement = matches!(
                    word,
                    "if" | "while" | "for" | "switch" | "catch" | "synchronized" | "return" | ""
                );
                open.push(!statement);
            }
            ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    if open.iter().any(|&call| call) {
        return CallRole::Argument;
    }
    let code = line.trim_start();
    if let Some(rest) = code.strip_prefix("return ")
        && rest.find('(').is_some_and(|k| {
            let head = rest[..k].trim_end();
            head.ends_with(name)
                && !head[..head.len() - name.len()]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
    {
        return CallRole::Returned;
    }
    CallRole::Other
}

/// The text between the parentheses of the first call to `name` on a line of code.
pub(super) fn call_args<'l>(line: &'l str, name: &str) -> Option<&'l str> {
    pasted_call_args(line, name)
}

#[cfg(test)]
mod tests {
    use super::{CallRole, assigned_locals, call_args, call_role, receiver_words};

    #[test]
    fn call_role_tells_a_returned_call_from_one_making_an_argument() {
        let line = "    return treeBuilder.parse(new StringReader(html), uri, new Parser(b));";
        assert_eq!(call_role(line, "parse"), CallRole::Returned);
        assert_eq!(call_role(line, "Parser"), CallRole::Argument);
        assert_eq!(call_role(line, "StringReader"), CallRole::Argument);
        // A statement's parentheses are no call.
        assert_eq!(call_role("if (x.isValid()) {", "isValid"), CallRole::Other);
        assert_eq!(call_role("for (T t : list(a)) {", "list"), CallRole::Other);
        assert_eq!(
            call_role("callAppenders(le);", "callAppenders"),
            CallRole::Other
        );
        // A call on the result of a call (`a(x).b()`) is not inside it.
        assert_eq!(call_role("return a(x).b(y);", "b"), CallRole::Other);
    }

    #[test]
    fn assigned_locals_are_the_names_a_method_assigns() {
        let lines: Vec<String> = [
            "    LoggingEvent le = new LoggingEvent(fqcn, this, level, msg, t, params);",
            "    if (a == b || c != d || e <= f) return;",
            "    count += 1;",
            "    // x = commented out",
            "    var out = render(le); Foo<Bar> map = make();",
            "    this.state = READY;",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(assigned_locals(&lines), ["le", "out", "state"]);
    }

    #[test]
    fn call_args_are_the_text_inside_the_calls_parentheses() {
        assert_eq!(
            call_args("    callAppenders(le);", "callAppenders"),
            Some("le")
        );
        assert_eq!(
            call_args("x = a.run(f(b), c).then(d);", "run"),
            Some("f(b), c")
        );
        // A longer name that ends in the same letters is another method.
        assert_eq!(call_args("rerun(a); run(b);", "run"), Some("b"));
        assert_eq!(call_args("run;", "run"), None);
    }

    #[test]
    fn receiver_words_are_the_identifiers_of_the_call_chain_before_the_call() {
        assert_eq!(
            receiver_words(
                "        host.getPipeline(name, \"x\").getFirst().invoke(request, response);",
                "invoke"
            ),
            ["host", "get", "pipelin", "get", "first"]
        );
        // Not what stands before the receiver, nor the call's own arguments.
        assert_eq!(
            receiver_words("    if (!visitor.head(node)) return;", "head"),
            ["visitor"]
        );
        assert_eq!(
            receiver_words("x = wrap(a).b.run(c);", "run"),
            ["wrap", "b"]
        );
        assert!(receiver_words("run(c);", "run").is_empty());
    }
}
