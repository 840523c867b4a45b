//! A unified diff pasted into a question (`git diff`, `diff -u`, a review tool's patch), read as
//! files and hunks. Pure parsing: where the hunks land in the indexed code is [`crate::impact`]'s
//! job.
//!
//! Chat pastes are tolerated: a Markdown fence around the diff, CRLF line ends, and context lines
//! whose single leading space was trimmed away (a blank line inside a hunk is blank context).
//! Text before and after the diff (the question itself) is ignored.

use serde::Serialize;

/// One file of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FilePatch {
    /// Path before the change (`a/` stripped); `None` for a new file.
    pub old_path: Option<String>,
    /// Path after the change (`b/` stripped); `None` for a deleted file.
    pub new_path: Option<String>,
    pub hunks: Vec<Hunk>,
}

/// One `@@ -a,b +c,d @@` block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    /// The text after the closing `@@` (git puts the enclosing function's line there).
    pub section: String,
    pub lines: Vec<HunkLine>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum HunkLine {
    Context(String),
    Removed(String),
    Added(String),
}

/// A run of added lines and where it goes in the old file: between old lines `before` and
/// `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insertion<'h> {
    pub before: u32,
    pub after: u32,
    pub lines: Vec<&'h str>,
}

impl Hunk {
    /// The old side of the hunk (context and removed lines) with their old line numbers.
    pub fn old_side(&self) -> Vec<(u32, &str)> {
        let mut n = self.old_start;
        let mut out = Vec::new();
        for l in &self.lines {
            match l {
                HunkLine::Context(t) | HunkLine::Removed(t) => {
                    out.push((n, t.as_str()));
                    n += 1;
                }
                HunkLine::Added(_) => {}
            }
        }
        out
    }

    /// What the hunk touches on the old side: every removed line (old line number and text),
    /// and each run of added lines with the old lines on both sides of its insertion point
    /// (`before`, `after`; `before` is 0 at the top of the file).
    pub fn touched(&self) -> (Vec<(u32, &str)>, Vec<Insertion<'_>>) {
        // For a hunk that only adds, `old_start` is the line *after which* it inserts.
        let mut next = if self.old_len == 0 {
            self.old_start + 1
        } else {
            self.old_start
        };
        let (mut removed, mut inserted) = (Vec::new(), Vec::<Insertion<'_>>::new());
        let mut in_insert = false;
        for l in &self.lines {
            match l {
                HunkLine::Context(_) => {
                    next += 1;
                    in_insert = false;
                }
                HunkLine::Removed(t) => {
                    removed.push((next, t.as_str()));
                    next += 1;
                    in_insert = false;
                }
                HunkLine::Added(t) => match inserted.last_mut() {
                    Some(ins) if in_insert => ins.lines.push(t),
                    _ => {
                        inserted.push(Insertion {
                            before: next.saturating_sub(1),
                            after: next,
                            lines: vec![t],
                        });
                        in_insert = true;
                    }
                },
            }
        }
        (removed, inserted)
    }

    pub fn added_count(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, HunkLine::Added(_)))
            .count()
    }

    pub fn removed_count(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| matches!(l, HunkLine::Removed(_)))
            .count()
    }
}

impl FilePatch {
    /// The path the change is about, as the index would know it (the old one unless the file is
    /// new).
    pub fn path(&self) -> &str {
        self.old_path
            .as_deref()
            .or(self.new_path.as_deref())
            .unwrap_or_default()
    }
}

/// Every file patch of the diff in `text`; empty when `text` holds no hunk.
pub fn parse_patch(text: &str) -> Vec<FilePatch> {
    if !text.contains("@@ -") {
        return Vec::new();
    }
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out: Vec<FilePatch> = Vec::new();
    // A `diff --git` line opened the last file and its `---`/`+++` pair has not come yet.
    let mut git_open = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if let Some(rest) = l.strip_prefix("diff --git ") {
            let (old, new) = rest.split_once(" b/").unwrap_or((rest, rest));
            out.push(FilePatch {
                old_path: Some(strip_side(old, "a/")),
                new_path: Some(new.to_string()),
                hunks: Vec::new(),
            });
            git_open = true;
            i += 1;
            continue;
        }
        if let (Some(old), Some(new)) = (
            l.strip_prefix("--- "),
            lines.get(i + 1).and_then(|n| n.strip_prefix("+++ ")),
        ) {
            let (old, new) = (file_path(old, "a/"), file_path(new, "b/"));
            match out.last_mut() {
                Some(f) if git_open => {
                    f.old_path = old;
                    f.new_path = new;
                }
                _ => out.push(FilePatch {
                    old_path: old,
                    new_path: new,
                    hunks: Vec::new(),
                }),
            }
            git_open = false;
            i += 2;
            continue;
        }
        if let Some(header) = parse_hunk_header(l) {
            let (hunk, next) = read_hunk(header, &lines, i + 1);
            if let Some(f) = out.last_mut() {
                f.hunks.push(hunk);
            }
            git_open = false;
            i = next;
            continue;
        }
        if let (Some(f), true) = (out.last_mut(), git_open) {
            if l.starts_with("deleted file mode") {
                f.new_path = None;
            } else if l.starts_with("new file mode") {
                f.old_path = None;
            } else if let Some(p) = l.strip_prefix("rename from ") {
                f.old_path = Some(p.trim().to_string());
            } else if let Some(p) = l.strip_prefix("rename to ") {
                f.new_path = Some(p.trim().to_string());
            }
        }
        i += 1;
    }
    out.retain(|f| !f.hunks.is_empty() || f.old_path != f.new_path);
    out
}

fn strip_side(p: &str, side: &str) -> String {
    p.strip_prefix(side).unwrap_or(p).to_string()
}

/// The path of a `---`/`+++` line: `None` for `/dev/null`; a tab-separated timestamp and the
/// `a/`/`b/` prefix are dropped.
fn file_path(raw: &str, side: &str) -> Option<String> {
    let p = raw.split('\t').next().unwrap_or(raw).trim();
    let p = p.trim_matches('"');
    if p == "/dev/null" || p.is_empty() {
        return None;
    }
    Some(strip_side(p, side))
}

struct HunkHeader {
    old_start: u32,
    old_len: u32,
    new_start: u32,
    new_len: u32,
    section: String,
}

/// `@@ -12,7 +12,8 @@ section` (a missing length is 1).
fn parse_hunk_header(l: &str) -> Option<HunkHeader> {
    let rest = l.strip_prefix("@@ -")?;
    let (ranges, section) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((s, n)) => Some((s.parse().ok()?, n.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_len) = range(old)?;
    let (new_start, new_len) = range(new)?;
    Some(HunkHeader {
        old_start,
        old_len,
        new_start,
        new_len,
        section: section.trim().to_string(),
    })
}

/// Reads a hunk's lines from `lines[from..]` until both sides are complete; returns the hunk and
/// the index of the first line after it.
fn read_hunk(h: HunkHeader, lines: &[&str], from: usize) -> (Hunk, usize) {
    let (mut old_left, mut new_left) = (h.old_len, h.new_len);
    let mut out = Vec::new();
    let mut i = from;
    while i < lines.len() && (old_left > 0 || new_left > 0) {
        let l = lines[i];
        if l.starts_with("@@ -") && parse_hunk_header(l).is_some() || l.starts_with("diff --git ") {
            break;
        }
        let line = if let Some(t) = l.strip_prefix('+') {
            new_left = new_left.saturating_sub(1);
            HunkLine::Added(t.to_string())
        } else if let Some(t) = l.strip_prefix('-') {
            old_left = old_left.saturating_sub(1);
            HunkLine::Removed(t.to_string())
        } else if l.starts_with('\\') {
            // "\ No newline at end of file"
            i += 1;
            continue;
        } else if l.starts_with("```") {
            break;
        } else {
            old_left = old_left.saturating_sub(1);
            new_left = new_left.saturating_sub(1);
            HunkLine::Context(l.strip_prefix(' ').unwrap_or(l).to_string())
        };
        out.push(line);
        i += 1;
    }
    (
        Hunk {
            old_start: h.old_start,
            old_len: h.old_len,
            new_start: h.new_start,
            new_len: h.new_len,
            section: h.section,
            lines: out,
        },
        i,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIT: &str = "what does this break?\n\
```diff\n\
diff --git a/src/main/java/x/Foo.java b/src/main/java/x/Foo.java\n\
index 1234567..89abcde 100644\n\
--- a/src/main/java/x/Foo.java\n\
+++ b/src/main/java/x/Foo.java\n\
@@ -10,5 +10,6 @@ public class Foo {\n\
     int a() {\n\
-        return 1;\n\
+        int x = 2;\n\
+        return x;\n\
     }\n\
 \n\
     int b() {\n\
@@ -40,3 +41,2 @@ public class Foo {\n\
     void c() {\n\
-        log();\n\
     }\n\
diff --git a/src/main/java/x/Gone.java b/src/main/java/x/Gone.java\n\
deleted file mode 100644\n\
--- a/src/main/java/x/Gone.java\n\
+++ /dev/null\n\
@@ -1,2 +0,0 @@\n\
-class Gone {\n\
-}\n\
diff --git a/src/main/java/x/New.java b/src/main/java/x/New.java\n\
new file mode 100644\n\
--- /dev/null\n\
+++ b/src/main/java/x/New.java\n\
@@ -0,0 +1 @@\n\
+class New {}\n\
```\n\
thanks";

    #[test]
    fn a_git_diff_in_a_chat_message_gives_its_files_and_hunks() {
        let p = parse_patch(GIT);
        assert_eq!(p.len(), 3, "{p:#?}");
        assert_eq!(p[0].old_path.as_deref(), Some("src/main/java/x/Foo.java"));
        assert_eq!(p[0].new_path.as_deref(), Some("src/main/java/x/Foo.java"));
        assert_eq!(p[0].hunks.len(), 2);
        let h = &p[0].hunks[0];
        assert_eq!(
            (h.old_start, h.old_len, h.new_start, h.new_len),
            (10, 5, 10, 6)
        );
        assert_eq!(h.section, "public class Foo {");
        assert_eq!(h.lines.len(), 7);
        assert_eq!(h.removed_count(), 1);
        assert_eq!(h.added_count(), 2);
        // `return 1;` is old line 11; the insertion sits between old lines 11 and 12.
        let (removed, inserted) = h.touched();
        assert_eq!(removed, vec![(11, "        return 1;")]);
        assert_eq!((inserted[0].before, inserted[0].after), (11, 12));
        assert_eq!(
            inserted[0].lines,
            vec!["        int x = 2;", "        return x;"]
        );
        // The blank context line survived a trimmed paste as blank context.
        assert_eq!(h.old_side().len(), 5);
        assert_eq!(h.old_side()[3], (13, ""));
        assert_eq!(p[0].hunks[1].touched().0, vec![(41, "        log();")]);

        assert_eq!(p[1].old_path.as_deref(), Some("src/main/java/x/Gone.java"));
        assert_eq!(p[1].new_path, None);
        assert_eq!(
            p[1].hunks[0].touched().0,
            vec![(1, "class Gone {"), (2, "}")]
        );
        assert_eq!(p[2].old_path, None);
        assert_eq!(p[2].path(), "src/main/java/x/New.java");
    }

    #[test]
    fn plain_diff_u_with_timestamps_crlf_and_no_newline_marker() {
        let text = "--- Foo.java\t2024-01-01 10:00:00\r\n+++ Foo.java\t2024-01-02 10:00:00\r\n@@ -3 +3 @@\r\n-a\r\n\\ No newline at end of file\r\n+b\r\n\\ No newline at end of file\r\n";
        let p = parse_patch(text);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].path(), "Foo.java");
        let h = &p[0].hunks[0];
        assert_eq!((h.old_start, h.old_len), (3, 1));
        assert_eq!(
            h.lines,
            vec![HunkLine::Removed("a".into()), HunkLine::Added("b".into())]
        );
    }

    #[test]
    fn a_pure_insertion_points_between_its_neighbours() {
        let text = "--- a/F.java\n+++ b/F.java\n@@ -5,0 +6,2 @@\n+x\n+y\n";
        let p = parse_patch(text);
        let (removed, inserted) = p[0].hunks[0].touched();
        assert!(removed.is_empty());
        assert_eq!((inserted[0].before, inserted[0].after), (5, 6));
        assert_eq!(inserted[0].lines, vec!["x", "y"]);
    }

    #[test]
    fn prose_and_stack_traces_are_no_diff() {
        assert!(parse_patch("where is the order status changed?").is_empty());
        assert!(parse_patch("--- a note\n+++ another\nno hunk here").is_empty());
        assert!(parse_patch("@@ -1,2 +1,2 @@ without a file").is_empty());
    }

    #[test]
    fn a_rename_keeps_both_paths() {
        let text = "diff --git a/Old.java b/New.java\nsimilarity index 90%\nrename from Old.java\nrename to New.java\n--- a/Old.java\n+++ b/New.java\n@@ -1 +1 @@\n-class Old {}\n+class New {}\n";
        let p = parse_patch(text);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].old_path.as_deref(), Some("Old.java"));
        assert_eq!(p[0].new_path.as_deref(), Some("New.java"));
    }
}
