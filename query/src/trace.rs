//! A pasted stack trace, placed in the index: its frames matched to declarations, and the line
//! that builds its exception's message (found by the text, so it holds when the trace's line
//! numbers are of another version).

use crate::QueryError;
use crate::answer::citation_of;
use crate::citation::Citation;
use crate::question::Frame;
use crate::retrieve::UnitKey;
use crate::view::{SnapshotView, SymIdx};
use indexer::graph::EdgeKind;
use indexer::model::SymbolKind;
use indexer::node::NodeId;
use serde::Serialize;

/// A frame of a pasted stack trace, as found in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceFrameRef {
    pub symbol: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// The line the trace gives, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_line: Option<u32>,
    /// Whether that line lies in the declaration in the indexed revision.
    pub inside: bool,
    /// 0 for the first exception, 1 after the first `Caused by:`, and so on.
    pub cause: u16,
}

/// A frame of a stack trace matched to an indexed declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHit {
    pub sym: SymIdx,
    /// The frame's line, when the trace gives one.
    pub line: Option<u32>,
    /// Whether that line lies in the declaration here (else the trace is of other code).
    pub inside: bool,
    /// The exception it belongs to (0 first, 1 after the first `Caused by:`, …).
    pub cause: u16,
    /// Position of the frame in the trace.
    pub order: usize,
}

/// The declarations the frames of a trace name, in trace order. A frame matches the methods of
/// its class (its package too, when the index has that class; else the simple class name), the
/// constructors for `<init>`, the class itself for `<clinit>`. Of several overloads, those
/// holding the frame's line; all of them when none does. A frame whose class the index has no
/// type for, and a frame that names only its file (Python), is looked for in that file.
pub fn frames(v: &SnapshotView<'_>, frames: &[Frame]) -> Vec<FrameHit> {
    let mut out: Vec<FrameHit> = Vec::new();
    let mut push = |sym: SymIdx, f: &Frame, inside: bool, order: usize| {
        if !out.iter().any(|h| h.sym == sym && h.line == f.line) {
            out.push(FrameHit {
                sym,
                line: f.line,
                inside,
                cause: f.cause,
                order,
            });
        }
    };
    for (order, f) in frames.iter().enumerate() {
        let found = if f.class.is_empty() {
            file_frame(v, f, &[])
        } else {
            match class_frame(v, f) {
                Some(found) => found,
                // A class the index has no type for: a function outside any class (Kotlin's
                // top-level `fun`, run from the `FileKt` class the trace names) is looked for
                // in the file the frame names, in its package's directory.
                None => {
                    let package: Vec<&str> = f.class.split('.').collect();
                    file_frame(v, f, &package[..package.len() - 1])
                }
            }
        };
        for (sym, inside) in found {
            push(sym, f, inside, order);
        }
    }
    out
}

/// The declarations a frame naming its class designates (see [`frames`]), each with whether it
/// holds the frame's line; `None` when the index has no type of that qualified name and no
/// declaration matches.
fn class_frame(v: &SnapshotView<'_>, f: &Frame) -> Option<Vec<(SymIdx, bool)>> {
    let simple = f.class.rsplit('.').next().unwrap_or(&f.class);
    // The qualified name of the type a declaration belongs to (its own, for a type), as its
    // language's id writes it.
    let owner_of = |i: SymIdx| {
        let t = if v.kind(i).is_type() {
            Some(i)
        } else {
            v.owner_type(i)
        };
        t.map(|t| NodeId::parse(v.id(t)).rest)
    };
    let candidates: Vec<SymIdx> = match f.method.as_str() {
        "<init>" => v
            .named(simple)
            .into_iter()
            .filter(|&i| v.kind(i) == SymbolKind::Constructor)
            .collect(),
        "<clinit>" => v
            .named(simple)
            .into_iter()
            .filter(|&i| v.kind(i).is_type())
            .collect(),
        m => v
            .named(m)
            .into_iter()
            .filter(|&i| v.kind(i).is_callable() && v.name(i) == m)
            .collect(),
    };
    let of_class = |i: &SymIdx| owner_of(*i) == Some(f.class.as_str());
    let of_simple = |i: &SymIdx| match f.method.as_str() {
        "<clinit>" => v.name(*i) == simple,
        _ => v.owner_name(*i) == Some(simple),
    };
    let mut found: Vec<SymIdx> = candidates.iter().copied().filter(of_class).collect();
    if found.is_empty() {
        found = candidates.into_iter().filter(of_simple).collect();
    }
    if found.is_empty()
        && !v
            .named(simple)
            .into_iter()
            .any(|i| owner_of(i) == Some(&f.class))
    {
        return None;
    }
    let within = |i: &SymIdx, line: u32| {
        let (s, e) = v.span(*i);
        s <= line && line <= e
    };
    let inside = match f.line {
        Some(line) if found.iter().any(|i| within(i, line)) => {
            found.retain(|i| within(i, line));
            true
        }
        _ => false,
    };
    Some(found.into_iter().map(|i| (i, inside)).collect())
}

/// A frame that names its file: the indexed files whose path ends the same way (most trailing
/// components in common: the file name at least, and the last of `dirs` too when the frame
/// gives the directories it lies in), then in them the function the frame names that holds its
/// line, else the innermost declaration holding the line.
fn file_frame(v: &SnapshotView<'_>, f: &Frame, dirs: &[&str]) -> Vec<(SymIdx, bool)> {
    let (Some(file), Some(line)) = (&f.file, f.line) else {
        return Vec::new();
    };
    let want: Vec<&str> = file.rsplit('/').chain(dirs.iter().rev().copied()).collect();
    let common = |p: &str| {
        p.rsplit('/')
            .zip(&want)
            .take_while(|(a, b)| a == *b)
            .count()
    };
    let best = v.paths().map(common).max().unwrap_or(0);
    if best == 0 || (!dirs.is_empty() && best < 2) {
        return Vec::new();
    }
    let paths: Vec<&str> = v.paths().filter(|p| common(p) == best).collect();
    let mut out = Vec::new();
    for path in paths {
        let named: Vec<SymIdx> = if f.method.is_empty() || f.method == "<module>" {
            Vec::new()
        } else {
            v.in_file(path)
                .filter(|&i| v.kind(i).is_callable() && v.name(i) == f.method)
                .collect()
        };
        let holding: Vec<SymIdx> = named
            .iter()
            .copied()
            .filter(|&i| {
                let (s, e) = v.span(i);
                s <= line && line <= e
            })
            .collect();
        if let Some(&i) = holding.last() {
            out.push((i, true));
        } else if let Some(i) = v.enclosing(path, line, |_| true) {
            out.push((i, true));
        } else {
            out.extend(named.into_iter().map(|i| (i, false)));
        }
    }
    out
}

pub fn frame_ref(v: &SnapshotView<'_>, h: &FrameHit) -> TraceFrameRef {
    let cit = citation_of(v, &UnitKey::Sym(h.sym));
    TraceFrameRef {
        symbol: cit.symbol.unwrap_or_default(),
        path: cit.path,
        start_line: cit.start_line,
        end_line: cit.end_line,
        trace_line: h.line,
        inside: h.inside,
        cause: h.cause,
    }
}

/// An exception line of a trace: `java.lang.IllegalStateException: not enough stock for a`,
/// `Caused by: com.x.StoreException: disk full`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thrown {
    pub class: String,
    pub message: Option<String>,
    /// 0 for the first exception, 1 after the first `Caused by:`, and so on.
    pub cause: u16,
}

/// The exception lines of a pasted trace, in order.
pub fn exceptions(text: &str) -> Vec<Thrown> {
    let mut out = Vec::new();
    let mut cause = 0u16;
    for line in text.lines() {
        let mut l = line.trim();
        if let Some(rest) = l.strip_prefix("Caused by:") {
            cause = cause.saturating_add(1);
            l = rest.trim();
        } else if let Some(rest) = l.strip_prefix("Exception in thread ") {
            // `Exception in thread "main" java.lang.IllegalStateException: …`
            l = rest
                .split_once("\" ")
                .map(|(_, r)| r.trim())
                .unwrap_or(rest);
        }
        if let Some(t) = indexer::lang::thrown(l) {
            out.push(Thrown {
                class: t.class,
                message: t.message,
                cause,
            });
            continue;
        }
        let (head, message) = match l.split_once(": ") {
            Some((h, m)) => (h, Some(m.trim().to_string()).filter(|m| !m.is_empty())),
            None => (l, None),
        };
        let simple = head.rsplit('.').next().unwrap_or(head);
        let is_class = !head.is_empty()
            && head
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '_' || c == '$')
            && ["Exception", "Error", "Throwable", "Failure"]
                .iter()
                .any(|k| simple.contains(k));
        if is_class {
            out.push(Thrown {
                class: head.replace('$', "."),
                message,
                cause,
            });
        }
    }
    out
}

/// Where an exception's message is written: the method, the line of the string literal that
/// begins it, and the message as the trace gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageSite {
    pub sym: SymIdx,
    pub line: u32,
    pub message: String,
    /// Other lines whose literal matches as well (the same message written in several places).
    pub others: usize,
}

/// What the deepest exception whose message a runtime wrote about a null dereference says was
/// used on null (a helpful `NullPointerException`, `'NoneType' object has no attribute`,
/// `Cannot read properties of undefined`): the member, and the null expression when named.
pub fn null_call(text: &str) -> Option<(String, String)> {
    exceptions(text)
        .into_iter()
        .filter_map(|t| {
            let u = indexer::lang::null_use(&t.class, t.message.as_deref()?)?;
            Some((t.cause, u))
        })
        .max_by_key(|(cause, _)| *cause)
        .map(|(_, u)| (u.member, u.on))
}

/// Lines of `sym` (nested declarations included) that call `method`, from the stored call
/// graph (calls to JDK and library methods are edges too): those calling it on `null` first, then
/// in order. `null` is the expression the message names as written in the source
/// (`this.cache`), so it is looked for in the line's text.
pub fn call_lines(
    v: &SnapshotView<'_>,
    sym: SymIdx,
    method: &str,
    null: &str,
) -> Result<Vec<u32>, QueryError> {
    let (start, end) = v.span(sym);
    let path = v.path(sym);
    let ids: Vec<&str> = v
        .in_file(path)
        .filter(|&j| {
            let (s, e) = v.span(j);
            start <= s && e <= end
        })
        .map(|j| v.id(j))
        .collect();
    let mut calls: Vec<u32> = v
        .index
        .edges_from_many(&ids)?
        .into_values()
        .flatten()
        .filter(|e| {
            e.kind == EdgeKind::Call
                && e.detail != "method reference"
                && e.callee_name.rsplit('.').next() == Some(method)
        })
        .map(|e| e.line)
        .collect();
    calls.sort_unstable();
    calls.dedup();
    let text = v.file_lines(path)?;
    let on_null = format!("{null}.{method}(");
    let mut lines: Vec<(bool, u32)> = calls
        .into_iter()
        .map(|n| {
            let line = (n as usize)
                .checked_sub(1)
                .and_then(|k| text.get(k))
                .unwrap_or("");
            (null.is_empty() || !line.contains(&on_null), n)
        })
        .collect();
    lines.sort();
    Ok(lines.into_iter().map(|(_, n)| n).collect())
}

/// Chunks read when looking for a message's literal.
const MESSAGE_CHUNKS: usize = 30;
/// A literal shorter than this (trimmed) says too little to place a message, unless it is the
/// whole message.
const MIN_LITERAL: usize = 8;

/// The line that writes the deepest cause's message: a string literal the message begins with
/// (a literal with `%s` or `{}` placeholders matches when its fixed parts appear in order),
/// longest match first, a line that also names the exception's class breaking ties; failing
/// that, a line naming the key of a resource bundle value the message begins with. Found by
/// text, so it holds when the trace's line numbers are of another version.
pub fn message_site(v: &SnapshotView<'_>, text: &str) -> Result<Option<MessageSite>, QueryError> {
    let Some(thrown) = exceptions(text)
        .into_iter()
        .filter(|t| t.message.is_some() && !indexer::lang::runtime_written(&t.class))
        .max_by_key(|t| t.cause)
    else {
        return Ok(None);
    };
    let message = thrown.message.unwrap_or_default();
    let words: Vec<&str> = message
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2 && !w.chars().all(|c| c.is_ascii_digit()))
        .take(8)
        .collect();
    if words.is_empty() {
        return Ok(None);
    }
    let class = thrown.class.rsplit('.').next().unwrap_or(&thrown.class);
    let mut best: Option<(usize, bool, String, u32)> = None;
    let mut ties = 0usize;
    // The best bundle entry the message begins with: (characters matched, key, bundle path).
    let mut bundled: Option<(usize, String, String)> = None;
    for (id, _, _) in v.index.search_chunks(&words.join(" "), MESSAGE_CHUNKS)? {
        let Some((path, start, end)) = v.chunk_span(&id)? else {
            continue;
        };
        let body = v.text(&path, start, end)?;
        if crate::retrieve::is_bundle(&path) {
            best_entry(&message, &path, &body, &mut bundled);
            continue;
        }
        let lines: Vec<&str> = body.lines().collect();
        for lit in v.literals_in(&path, start, end) {
            let Some(score) = begins(&message, &lit.text) else {
                continue;
            };
            let at = lit.line;
            // The exception's class named on the literal's line or the two before it.
            let k = (at - start) as usize;
            let near = lines
                .get(k.saturating_sub(2)..=k.min(lines.len().saturating_sub(1)))
                .is_some_and(|ls| ls.iter().any(|l| l.contains(class)));
            if best.as_ref().is_some_and(|b| (b.0, b.1) == (score, near)) {
                ties += 1;
            }
            let better = match &best {
                None => true,
                Some((s, n, p, l)) => {
                    (score, near, std::cmp::Reverse((&path, at)))
                        > (*s, *n, std::cmp::Reverse((p, *l)))
                }
            };
            if better {
                if best.as_ref().is_some_and(|b| (b.0, b.1) != (score, near)) {
                    ties = 0;
                }
                best = Some((score, near, path.clone(), at));
            }
        }
    }
    // A message kept in a resource bundle is written where the code names its key. The words
    // of its arguments (`[StandardEngine[Catalina]]`) can keep the bundle out of the hits
    // above, so its fixed start is looked up as a phrase too.
    if best.is_none() && bundled.is_none() {
        let head = fixed_head(&message);
        if head.split_whitespace().count() >= 3 {
            for (id, path, _) in v
                .index
                .search_chunks(&format!("\"{head}\""), MESSAGE_CHUNKS)?
            {
                if !crate::retrieve::is_bundle(&path) {
                    continue;
                }
                if let Some((path, start, end)) = v.chunk_span(&id)? {
                    best_entry(&message, &path, &v.text(&path, start, end)?, &mut bundled);
                }
            }
        }
    }
    if best.is_none()
        && let Some((_, key, bundle)) = bundled
    {
        let sites = crate::retrieve::key_sites(v, &key, &bundle)?;
        ties = sites.len().saturating_sub(1);
        best = sites
            .into_iter()
            .next()
            .map(|(path, line)| (0, false, path, line));
    }
    Ok(best.and_then(|(_, _, path, line)| {
        // A package-level declaration outside any type (Go's `var ErrPaid = errors.New(…)`)
        // is the site itself.
        let sym = v
            .enclosing(&path, line, |k| k.is_callable() || k.is_type())
            .or_else(|| v.enclosing(&path, line, |_| true))?;
        Some(MessageSite {
            sym,
            line,
            message,
            others: ties,
        })
    }))
}

/// Keeps in `best` the entry of bundle `path` (its text `text`) that `message` begins with, if
/// better: (characters matched, key, path).
fn best_entry(message: &str, path: &str, text: &str, best: &mut Option<(usize, String, String)>) {
    for e in indexer::lang::config::properties(text) {
        if let Some(score) = begins(message, &e.value)
            && best.as_ref().is_none_or(|b| score > b.0)
        {
            *best = Some((score, e.key, path.to_string()));
        }
    }
}

/// A message's start before its first argument (`Failed to start component` of `Failed to start
/// component [StandardEngine[Catalina]]`): the words a bundle's value shares with it.
fn fixed_head(message: &str) -> String {
    let end = message
        .find(['[', '{', '(', '"', '\'', ':', '<'])
        .unwrap_or(message.len());
    message[..end]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many characters of `message` the literal accounts for, when the message begins with it:
/// its fixed parts (split at `%s`-style and `{}` placeholders) found in order, the first at the
/// start. `None` when it does not match or says too little.
fn begins(message: &str, literal: &str) -> Option<usize> {
    let parts: Vec<&str> = split_placeholders(literal);
    let first = parts.first()?;
    let whole = parts.len() == 1 && first.trim() == message.trim();
    if !message.starts_with(first) || (first.trim().len() < MIN_LITERAL && !whole) {
        return None;
    }
    let mut at = first.len();
    let mut score = first.trim().len();
    for p in &parts[1..] {
        if p.is_empty() {
            continue;
        }
        let found = message[at..].find(p)?;
        at += found + p.len();
        score += p.trim().len();
    }
    Some(score)
}

/// A format string's fixed parts: split at `%s`, `%d`, `%1$s` … and `{}`, `{0}`.
fn split_placeholders(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let (mut from, mut i) = (0, 0);
    while i < bytes.len() {
        let end = match bytes[i] {
            b'%' => bytes[i + 1..]
                .iter()
                .position(|b| b.is_ascii_alphabetic())
                .filter(|&n| {
                    bytes[i + 1..i + 1 + n]
                        .iter()
                        .all(|b| b.is_ascii_digit() || *b == b'$' || *b == b'.')
                })
                .map(|n| i + 2 + n),
            b'{' => bytes[i + 1..]
                .iter()
                .position(|&b| b == b'}')
                .filter(|&n| bytes[i + 1..i + 1 + n].iter().all(|b| b.is_ascii_digit()))
                .map(|n| i + 2 + n),
            _ => None,
        };
        match end {
            Some(e) => {
                out.push(&s[from..i]);
                from = e;
                i = e;
            }
            None => i += 1,
        }
    }
    out.push(&s[from..]);
    out
}

/// One line of indexed code for display, `    42 | text` and a newline (empty when unreadable).
pub fn code_line(v: &SnapshotView<'_>, path: &str, line: u32) -> String {
    match v.text(path, line, line) {
        Ok(t) if !t.trim().is_empty() => format!("    {line} | {}\n", shorten(t.trim())),
        _ => String::new(),
    }
}

/// A message cut to one short line for display.
pub fn shorten(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    match line.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// A message site as an answer reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageSiteRef {
    pub message: String,
    pub symbol: String,
    pub path: String,
    pub line: u32,
}

pub fn message_ref(v: &SnapshotView<'_>, m: &MessageSite) -> MessageSiteRef {
    let Citation { symbol, path, .. } = citation_of(v, &UnitKey::Sym(m.sym));
    MessageSiteRef {
        message: m.message.clone(),
        symbol: symbol.unwrap_or_default(),
        path,
        line: m.line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_messages_fixed_head_ends_at_its_first_argument() {
        let m = "Failed to start component [StandardEngine[Catalina].StandardHost[localhost]]";
        assert_eq!(fixed_head(m), "Failed to start component");
        assert_eq!(fixed_head("Unable to read: the file"), "Unable to read");
        assert_eq!(fixed_head("no arguments at all"), "no arguments at all");
    }

    #[test]
    fn the_best_bundle_entry_is_the_longest_the_message_begins_with() {
        let text =
            "a.fail=Failed to start\nb.fail=Failed to start component [{0}]\nc=Other [{0}]\n";
        let mut best = None;
        best_entry(
            "Failed to start component [Engine[x]]",
            "a/LocalStrings.properties",
            text,
            &mut best,
        );
        assert_eq!(best.map(|b| b.1).as_deref(), Some("b.fail"));
    }

    #[test]
    fn exception_lines_are_read_with_their_cause() {
        let t = "Exception in thread \"main\" java.lang.RuntimeException: wrapped: inner\n\tat a.B.c(B.java:1)\nCaused by: com.x.Store$DiskException: disk full\n\tat a.B.d(B.java:2)\nCaused by: java.lang.OutOfMemoryError\n";
        assert_eq!(
            exceptions(t),
            [
                Thrown {
                    class: "java.lang.RuntimeException".into(),
                    message: Some("wrapped: inner".into()),
                    cause: 0
                },
                Thrown {
                    class: "com.x.Store.DiskException".into(),
                    message: Some("disk full".into()),
                    cause: 1
                },
                Thrown {
                    class: "java.lang.OutOfMemoryError".into(),
                    message: None,
                    cause: 2
                },
            ]
        );
    }

    #[test]
    fn a_helpful_null_pointer_message_names_the_call_and_the_null() {
        let t = "java.lang.NullPointerException: Cannot invoke \"org.x.Context.getManager()\" because \"context\" is null\n\tat a.B.c(B.java:1)";
        assert_eq!(
            null_call(t),
            Some(("getManager".to_string(), "context".to_string()))
        );
        assert_eq!(
            null_call("java.lang.NullPointerException\n\tat a.B.c(B.java:1)"),
            None
        );
        assert_eq!(
            null_call("java.lang.IllegalStateException: Cannot invoke \"a.B.c()\""),
            None
        );
    }

    #[test]
    fn a_long_message_is_cut_to_one_short_line() {
        assert_eq!(shorten("short\nsecond line"), "short");
        let long = "x".repeat(150);
        assert_eq!(shorten(&long), format!("{}…", "x".repeat(100)));
    }

    #[test]
    fn a_message_begins_with_a_literal_or_fills_a_format() {
        assert_eq!(
            begins("not enough stock for sku-42", "not enough stock for "),
            Some(20)
        );
        assert_eq!(
            begins(
                "No serializer found for class a.B and no properties",
                "No serializer found for class %s and no properties"
            ),
            Some(29 + 17)
        );
        assert_eq!(
            begins("Unknown level: WARNING", "Unknown level: {}"),
            Some(14)
        );
        // Too short to place anything, unless it is the whole message.
        assert_eq!(begins("disk full now", "disk"), None);
        assert_eq!(begins("disk full", "disk full"), Some(9));
        // A fixed part missing from the message.
        assert_eq!(
            begins("not enough stock for a", "not enough stock for %s in %s"),
            None
        );
        assert_eq!(begins("other text", "not enough stock"), None);
    }
}
