//! Citations: `path:start-end` references found in answer text, checked against the snapshot.
//!
//! A citation resolves when its file is in the indexed snapshot (exactly, or as the one file whose
//! path ends with the cited path) and its lines exist in that file. What does not resolve is cut
//! from the text and reported; the answer never shows a location the index cannot back.

use serde::{Deserialize, Serialize};

/// A checked location in the snapshot, as answers and the eval format carry it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Citation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// `Class.method` the range is (or lies in), when known.
    pub symbol: Option<String>,
}

impl Citation {
    pub fn label(&self) -> String {
        if self.start_line == self.end_line {
            format!("{}:{}", self.path, self.start_line)
        } else {
            format!("{}:{}-{}", self.path, self.start_line, self.end_line)
        }
    }
}

/// A reference as written in text, before checking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCitation {
    /// Byte range in the text.
    pub span: (usize, usize),
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
}

/// What the snapshot knows, for checking citations.
pub trait Resolver {
    /// The snapshot path a cited path means (exact, or the unique file ending with `/cited`).
    fn resolve_path(&self, cited: &str) -> Option<String>;
    fn line_count(&self, path: &str) -> Option<u32>;
    /// Name of the innermost symbol covering a line.
    fn symbol_at(&self, path: &str, line: u32) -> Option<String>;
}

/// Finds `path:12`, `path:12-30`, `path:L12-L30` and `path#L12-L30` references.
pub fn find_citations(text: &str) -> Vec<RawCitation> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_path_byte(b[i]) || (i > 0 && is_path_byte(b[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_path_byte(b[i]) {
            i += 1;
        }
        let path = text[start..i].trim_end_matches('.');
        let path_end = start + path.len();
        if !(path.contains('/') || has_extension(path)) || path_end >= b.len() {
            i = path_end.max(start + 1);
            continue;
        }
        let mut j = path_end;
        if b[j] == b':' || b[j] == b'#' {
            j += 1;
        } else {
            i = path_end.max(start + 1);
            continue;
        }
        if j < b.len() && b[j] == b'L' {
            j += 1;
        }
        let (first, nj) = number(b, j);
        let Some(first) = first else {
            i = path_end.max(start + 1);
            continue;
        };
        j = nj;
        let mut last = first;
        if j + 1 < b.len() && (b[j] == b'-' || text[j..].starts_with('–')) {
            let dash = if b[j] == b'-' { 1 } else { '–'.len_utf8() };
            let mut k = j + dash;
            if k < b.len() && b[k] == b'L' {
                k += 1;
            }
            if let (Some(n), nk) = number(b, k) {
                last = n;
                j = nk;
            }
        }
        out.push(RawCitation {
            span: (start, j),
            path: path.trim_start_matches("./").to_string(),
            start_line: first,
            end_line: last,
        });
        i = j;
    }
    out
}

fn number(b: &[u8], from: usize) -> (Option<u32>, usize) {
    let mut j = from;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    if j == from || j - from > 9 {
        return (None, from);
    }
    (
        std::str::from_utf8(&b[from..j])
            .ok()
            .and_then(|s| s.parse().ok()),
        j,
    )
}

fn is_path_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'/' | b'.' | b'_' | b'-' | b'$')
}

fn has_extension(p: &str) -> bool {
    p.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=10).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// Outcome of checking an answer's citations.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// The text with unresolved references replaced by a marker.
    pub text: String,
    /// Resolved citations in order of first appearance.
    pub verified: Vec<Citation>,
    /// References that did not resolve, as written.
    pub dropped: Vec<String>,
}

/// Marker left where an unresolved citation was.
pub const REMOVED_MARK: &str = "[unverified citation removed]";

/// Checks every reference in `text` against the snapshot.
pub fn check(text: &str, r: &dyn Resolver) -> Checked {
    let mut out = Checked::default();
    let mut last = 0;
    let mut new_text = String::with_capacity(text.len());
    for raw in find_citations(text) {
        let written = text[raw.span.0..raw.span.1].to_string();
        let resolved = r.resolve_path(&raw.path).and_then(|p| {
            let n = r.line_count(&p)?;
            let (s, e) = (
                raw.start_line.min(raw.end_line),
                raw.start_line.max(raw.end_line),
            );
            (s >= 1 && e <= n).then(|| Citation {
                symbol: r.symbol_at(&p, s),
                path: p,
                start_line: s,
                end_line: e,
            })
        });
        new_text.push_str(&text[last..raw.span.0]);
        match resolved {
            Some(c) => {
                new_text.push_str(&c.label());
                if !out.verified.contains(&c) {
                    out.verified.push(c);
                }
            }
            None => {
                new_text.push_str(REMOVED_MARK);
                out.dropped.push(written);
            }
        }
        last = raw.span.1;
    }
    new_text.push_str(&text[last..]);
    out.text = new_text;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;
    impl Resolver for Fake {
        fn resolve_path(&self, cited: &str) -> Option<String> {
            let files = ["src/main/java/a/Foo.java", "src/main/java/a/Bar.java"];
            files
                .iter()
                .find(|f| **f == cited || f.ends_with(&format!("/{cited}")))
                .map(|s| s.to_string())
        }
        fn line_count(&self, _: &str) -> Option<u32> {
            Some(100)
        }
        fn symbol_at(&self, _: &str, _: u32) -> Option<String> {
            Some("Foo.bar".into())
        }
    }

    #[test]
    fn finds_the_usual_spellings() {
        let c = find_citations(
            "see src/A.java:12-30, B.java#L5-L9 and `x/y.rs:7`. Not 3:4 or e.g. v1.2",
        );
        let got: Vec<(String, u32, u32)> = c
            .iter()
            .map(|c| (c.path.clone(), c.start_line, c.end_line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("src/A.java".into(), 12, 30),
                ("B.java".into(), 5, 9),
                ("x/y.rs".into(), 7, 7)
            ]
        );
    }

    #[test]
    fn unresolved_citations_are_cut_and_reported() {
        let ch = check(
            "Real: Foo.java:10-20. Fake: src/Nope.java:5. Out of range: src/main/java/a/Bar.java:99-140.",
            &Fake,
        );
        assert_eq!(ch.verified.len(), 1);
        assert_eq!(ch.verified[0].path, "src/main/java/a/Foo.java");
        assert_eq!(
            ch.dropped,
            vec!["src/Nope.java:5", "src/main/java/a/Bar.java:99-140"]
        );
        assert!(ch.text.contains("src/main/java/a/Foo.java:10-20"));
        assert_eq!(ch.text.matches(REMOVED_MARK).count(), 2);
    }
}
