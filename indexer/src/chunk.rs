//! Chunking: cutting a file into line ranges of bounded size for full-text search.
//!
//! [`chunk_tree`] is cAST split-then-merge ("cAST: Enhancing Code Retrieval-Augmented Generation
//! with Structural Chunking via Abstract Syntax Tree"), generic over tree-sitter trees: a node that
//! fits the size limit is a candidate, adjacent candidates are merged greedily while the merged
//! size fits, and a node too big is split into its children (a leaf too big into its lines).
//! Merging continues across the levels of a split, except that a too-big declaration (a node with a
//! `name` field) starting on its own line starts a new chunk. Comments preceding a node travel with
//! it, so Javadoc stays with the method it documents. [`chunk_text`] does the same over paragraphs
//! and lines for files without a tree.
//!
//! A chunk's symbol is the innermost symbol containing its lines, leading comment lines not
//! counted (a method's chunk starts at its Javadoc, the symbol's range does not).
//!
//! Size is measured in non-whitespace characters ([`non_ws_chars`]). Every chunk covers whole lines;
//! chunks are ordered, do not overlap, and together cover every non-blank line. A chunk exceeds the
//! limit only when it is a single line that does. Both walks are iterative.

use crate::model::{Chunk, RepoPath, Symbol, SymbolKind};
use tree_sitter::Node;

/// What chunk headers are made of, besides the chunk itself.
#[derive(Debug, Clone, Copy)]
pub struct ChunkContext<'a> {
    pub path: &'a RepoPath,
    pub module: &'a str,
    pub package: Option<&'a str>,
    /// Imports as written (`java.util.List`, `static org.x.Y.z`, `java.io.*`).
    pub imports: &'a [String],
    /// The file's symbols, any order.
    pub symbols: &'a [Symbol],
}

/// Chunks a parsed file: cAST split-then-merge over the tree rooted at `root`.
pub fn chunk_tree(
    root: Node<'_>,
    src: &[u8],
    ctx: &ChunkContext<'_>,
    max_chars: usize,
) -> Vec<Chunk> {
    let lines = LineIndex::new(src);
    let mut merger = Merger::new(&lines, max_chars);
    // Nodes of every split so far; a unit is a run of siblings `arena[from..=to]`.
    let mut arena = vec![root];
    let mut stack = vec![Unit::Nodes {
        from: 0,
        to: 0,
        fresh: true,
    }];
    let mut cursor = root.walk();
    let name_field = root.language().field_id_for_name("name");
    while let Some(unit) = stack.pop() {
        let (from, to, fresh) = match unit {
            Unit::Lines { start, end, code } => {
                for l in start..=end {
                    merger.offer(l, l, code.then_some(l));
                }
                continue;
            }
            Unit::Nodes { from, to, fresh } => (from, to, fresh),
        };
        let (start, _) = node_lines(arena[from]);
        let (_, end) = node_lines(arena[to]);
        let code = arena[from..=to]
            .iter()
            .find(|n| !n.is_extra())
            .map(|n| node_lines(*n).0);
        if merger.offer(start, end, code) {
            continue;
        }
        // Too big. A declaration (a node with a name) that starts a line starts a chunk, with
        // its leading comments.
        let node = arena[to];
        if fresh && name_field.is_some_and(|f| node.child_by_field_id(f.get()).is_some()) {
            merger.flush_before(start);
        }
        if from < to {
            stack.push(Unit::Nodes {
                from: to,
                to,
                fresh: false,
            });
            stack.extend((from..to).rev().map(|i| Unit::Nodes {
                from: i,
                to: i,
                fresh: false,
            }));
            continue;
        }
        let base = arena.len();
        arena.extend(node.children(&mut cursor));
        if arena.len() == base {
            stack.push(Unit::Lines {
                start,
                end,
                code: code.is_some(),
            });
            continue;
        }
        // Group each run of comments with the node that follows it.
        let mut units = Vec::new();
        let mut run_start = None;
        for (i, child) in arena.iter().enumerate().skip(base) {
            if child.is_extra() {
                run_start.get_or_insert(i);
            } else {
                units.push(Unit::Nodes {
                    from: run_start.take().unwrap_or(i),
                    to: i,
                    fresh: true,
                });
            }
        }
        if let Some(r) = run_start {
            units.extend((r..arena.len()).map(|i| Unit::Nodes {
                from: i,
                to: i,
                fresh: true,
            }));
        }
        stack.extend(units.into_iter().rev());
    }
    build_chunks(src, &lines, merger.finish(), ctx)
}

/// Chunks a file without a tree: paragraphs (runs of non-blank lines) merged while they fit,
/// paragraphs too big split into lines.
pub fn chunk_text(src: &[u8], ctx: &ChunkContext<'_>, max_chars: usize) -> Vec<Chunk> {
    let lines = LineIndex::new(src);
    let mut merger = Merger::new(&lines, max_chars);
    let n = lines.line_count();
    let mut l = 1;
    while l <= n {
        if lines.is_blank(l) {
            l += 1;
            continue;
        }
        let start = l;
        while l < n && !lines.is_blank(l + 1) {
            l += 1;
        }
        if !merger.offer(start, l, Some(start)) {
            for k in start..=l {
                merger.offer(k, k, Some(k));
            }
        }
        l += 1;
    }
    build_chunks(src, &lines, merger.finish(), ctx)
}

/// Number of non-whitespace characters in UTF-8 bytes (invalid bytes count one each).
pub fn non_ws_chars(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .filter(|&&b| !b.is_ascii_whitespace() && (b & 0xC0) != 0x80)
        .count()
}

/// 1-based first and last line of a node. A node whose last byte is a newline ends on that line.
pub(crate) fn node_lines(n: Node<'_>) -> (u32, u32) {
    let (s, e) = (n.start_position(), n.end_position());
    let end_row = if e.column == 0 && e.row > s.row {
        e.row - 1
    } else {
        e.row
    };
    (s.row as u32 + 1, end_row as u32 + 1)
}

enum Unit {
    /// Siblings `arena[from..=to]` (leading comments, then a node), offered together; `fresh`
    /// when a split may start a new chunk.
    Nodes { from: usize, to: usize, fresh: bool },
    /// Lines of a leaf too big to be one chunk, offered one by one.
    Lines { start: u32, end: u32, code: bool },
}

/// Line starts and non-whitespace prefix sums of a file.
pub(crate) struct LineIndex {
    /// Byte offset of each line's first byte.
    starts: Vec<usize>,
    /// `cum[i]`: non-whitespace characters on lines `1..=i`; `cum[0] = 0`.
    cum: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub(crate) fn new(src: &[u8]) -> LineIndex {
        let mut starts = vec![0];
        let mut cum = vec![0];
        let mut count = 0;
        for (i, &b) in src.iter().enumerate() {
            if b == b'\n' {
                cum.push(count);
                starts.push(i + 1);
            } else if !b.is_ascii_whitespace() && (b & 0xC0) != 0x80 {
                count += 1;
            }
        }
        cum.push(count);
        LineIndex {
            starts,
            cum,
            len: src.len(),
        }
    }

    pub(crate) fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// Non-whitespace characters on lines `start..=end` (1-based).
    pub(crate) fn size(&self, start: u32, end: u32) -> usize {
        self.cum[end as usize] - self.cum[start as usize - 1]
    }

    pub(crate) fn is_blank(&self, line: u32) -> bool {
        self.size(line, line) == 0
    }

    /// Byte range of lines `start..=end`, without the last line's `\n` or `\r\n`.
    pub(crate) fn byte_range(&self, src: &[u8], start: u32, end: u32) -> (usize, usize) {
        let a = self.starts[start as usize - 1];
        let mut b = self
            .starts
            .get(end as usize)
            .map_or(self.len, |&next| next - 1);
        if b > a && src[b - 1] == b'\r' {
            b -= 1;
        }
        (a, b)
    }
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    end: u32,
    /// First line of code, after leading comments (for finding the chunk's symbol).
    code: Option<u32>,
}

/// Greedy merging of line ranges offered in order.
struct Merger<'a> {
    lines: &'a LineIndex,
    max: usize,
    done: Vec<Span>,
    cur: Option<Span>,
    /// Last line taken by `done` or `cur`.
    covered: u32,
}

impl<'a> Merger<'a> {
    fn new(lines: &'a LineIndex, max: usize) -> Self {
        Merger {
            lines,
            max,
            done: Vec::new(),
            cur: None,
            covered: 0,
        }
    }

    /// Offers lines `start..=end` (clipped to lines not yet taken) as one unit. Returns false,
    /// taking nothing, when the unit spans several lines and does not fit on its own: the caller
    /// then offers its parts.
    fn offer(&mut self, start: u32, end: u32, code: Option<u32>) -> bool {
        let start = start.max(self.covered + 1);
        if end < start {
            return true;
        }
        let code = code.map(|c| c.max(start));
        if let Some(cur) = &mut self.cur
            && self.lines.size(cur.start, end) <= self.max
        {
            cur.end = end;
            cur.code = cur.code.or(code);
            self.covered = end;
            return true;
        }
        if start == end || self.lines.size(start, end) <= self.max {
            self.done.extend(self.cur.take());
            self.cur = Some(Span { start, end, code });
            self.covered = end;
            return true;
        }
        false
    }

    /// Ends the pending chunk if it ends before `line`.
    fn flush_before(&mut self, line: u32) {
        if self.cur.is_some_and(|c| c.end < line) {
            self.done.extend(self.cur.take());
        }
    }

    /// The spans, trimmed of blank edge lines, with any non-blank line left out (a hole in the
    /// tree) attached to a neighbour.
    fn finish(mut self) -> Vec<Span> {
        self.done.extend(self.cur.take());
        let lines = self.lines;
        let mut spans: Vec<Span> = Vec::with_capacity(self.done.len());
        for mut s in self.done {
            while s.start < s.end && lines.is_blank(s.start) {
                s.start += 1;
            }
            while s.end > s.start && lines.is_blank(s.end) {
                s.end -= 1;
            }
            if lines.is_blank(s.start) {
                continue;
            }
            s.code = s.code.map(|c| c.clamp(s.start, s.end));
            spans.push(s);
        }
        // Safety net: a non-blank line no node covers (tree-sitter skips what it takes for
        // whitespace, such as a vertical tab) joins a neighbour when the result still fits, else
        // becomes chunks of its own.
        let max = self.max;
        let n = lines.line_count();
        let mut out: Vec<Span> = Vec::with_capacity(spans.len());
        let mut prev_end = 0;
        for i in 0..=spans.len() {
            let gap_end = spans.get(i).map_or(n, |s| s.start - 1);
            if gap_end > prev_end && lines.size(prev_end + 1, gap_end) > 0 {
                let last = (prev_end + 1..=gap_end)
                    .rev()
                    .find(|&l| !lines.is_blank(l))
                    .unwrap_or(gap_end);
                let first = (prev_end + 1..=gap_end)
                    .find(|&l| !lines.is_blank(l))
                    .unwrap_or(prev_end + 1);
                match (out.last_mut(), spans.get_mut(i)) {
                    (Some(p), _) if lines.size(p.start, last) <= max => p.end = last,
                    (_, Some(next)) if lines.size(first, next.end) <= max => next.start = first,
                    _ => {
                        let mut cur: Option<Span> = None;
                        for l in (first..=last).filter(|&l| !lines.is_blank(l)) {
                            match &mut cur {
                                Some(c) if lines.size(c.start, l) <= max => c.end = l,
                                _ => {
                                    out.extend(cur.take());
                                    cur = Some(Span {
                                        start: l,
                                        end: l,
                                        code: None,
                                    });
                                }
                            }
                        }
                        out.extend(cur);
                    }
                }
            }
            if let Some(s) = spans.get(i) {
                out.push(*s);
            }
            prev_end = spans.get(i).map_or(n, |s| s.end);
        }
        out
    }
}

fn build_chunks(
    src: &[u8],
    lines: &LineIndex,
    spans: Vec<Span>,
    ctx: &ChunkContext<'_>,
) -> Vec<Chunk> {
    let imports = ImportNames::new(ctx.imports);
    let mut used = vec![false; ctx.imports.len()];
    spans
        .into_iter()
        .map(|s| {
            let (start_byte, end_byte) = lines.byte_range(src, s.start, s.end);
            let text = String::from_utf8_lossy(&src[start_byte..end_byte]).into_owned();
            let symbol = innermost_symbol(ctx.symbols, s.code.unwrap_or(s.start), s.end);
            imports.mark_used(&src[start_byte..end_byte], &mut used);
            Chunk {
                start_line: s.start,
                end_line: s.end,
                start_byte,
                end_byte,
                header: header(ctx, symbol, &used),
                text,
                symbol: symbol.map(|s| s.id.clone()),
            }
        })
        .collect()
}

/// Simple names of a file's imports (`List` for `java.util.List`), to find those a chunk uses.
struct ImportNames<'a> {
    /// (simple name, index in the import list), sorted by name.
    names: Vec<(&'a [u8], usize)>,
    /// Which bytes start some name: most words of a chunk (locals, keywords, lowercase
    /// methods) are ruled out by their first byte without a search.
    first_bytes: [bool; 256],
}

impl<'a> ImportNames<'a> {
    fn new(imports: &'a [String]) -> Self {
        let mut names: Vec<_> = imports
            .iter()
            .enumerate()
            .map(|(i, imp)| (imp.rsplit('.').next().unwrap_or(imp).as_bytes(), i))
            .filter(|(n, _)| *n != b"*")
            .collect();
        names.sort_unstable();
        let mut first_bytes = [false; 256];
        for (n, _) in &names {
            if let Some(&b) = n.first() {
                first_bytes[usize::from(b)] = true;
            }
        }
        ImportNames { names, first_bytes }
    }

    /// Sets `used[i]` for each import whose simple name occurs in `text` as an identifier.
    fn mark_used(&self, text: &[u8], used: &mut [bool]) {
        used.fill(false);
        if self.names.is_empty() {
            return;
        }
        let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
        let mut i = 0;
        while i < text.len() {
            if !is_ident(text[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < text.len() && is_ident(text[i]) {
                i += 1;
            }
            if !self.first_bytes[usize::from(text[start])] {
                continue;
            }
            let word = &text[start..i];
            let first = self.names.partition_point(|(n, _)| *n < word);
            for (_, idx) in self.names[first..].iter().take_while(|(n, _)| *n == word) {
                used[*idx] = true;
            }
        }
    }
}

/// The smallest symbol whose lines contain `start..=end` (on ties the later, i.e. inner, one).
fn innermost_symbol(symbols: &[Symbol], start: u32, end: u32) -> Option<&Symbol> {
    symbols
        .iter()
        .filter(|s| s.start_line <= start && end <= s.end_line)
        .min_by_key(|s| s.end_line - s.start_line)
}

/// The contextual header search indexes with a chunk:
///
/// ```text
/// // file: src/main/java/org/x/FilenameUtils.java  module: commons-io
/// // scope: org.x.FilenameUtils > getExtension
/// // signature: public static String getExtension(final String fileName)
/// // imports: java.io.File, java.util.Objects
/// ```
///
/// Scope is the enclosing type's qualified name, then ` > member` for members; imports are those
/// whose simple name occurs in the chunk text (`used`, by import index).
fn header(ctx: &ChunkContext<'_>, symbol: Option<&Symbol>, used: &[bool]) -> String {
    let mut h = format!("// file: {}  module: {}", ctx.path, ctx.module);
    let scope = match symbol {
        Some(s) if s.kind.is_type() || s.kind == SymbolKind::Package => {
            Some(s.qualified_name.clone())
        }
        Some(s) => Some(match s.qualified_name.rsplit_once('.') {
            Some((owner, name)) => format!("{owner} > {name}"),
            None => s.qualified_name.clone(),
        }),
        None => ctx.package.map(str::to_string),
    };
    if let Some(scope) = scope {
        h.push_str("\n// scope: ");
        h.push_str(&scope);
    }
    if let Some(s) = symbol.filter(|s| !s.signature.is_empty()) {
        h.push_str("\n// signature: ");
        h.push_str(&s.signature);
    }
    let mut used = ctx
        .imports
        .iter()
        .zip(used)
        .filter(|(_, u)| **u)
        .map(|(i, _)| i);
    if let Some(first) = used.next() {
        h.push_str("\n// imports: ");
        h.push_str(first);
        for i in used {
            h.push_str(", ");
            h.push_str(i);
        }
    }
    h
}

#[cfg(test)]
mod tests;
