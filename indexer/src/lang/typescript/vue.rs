//! Vue single-file components: the `<script>` (or `<script setup>`) block is the code, the
//! template and styles are text. The script is analysed in place — every byte outside it blanked
//! to a space, newlines kept — so its lines keep their numbers in the component.

use crate::chunk::{self, ChunkContext};
use crate::model::Chunk;
use tree_sitter::Node;

pub(super) struct Script {
    /// The component with everything but its script blocks blanked.
    pub masked: Vec<u8>,
    /// `lang="ts"` (or `tsx`) on a script block.
    pub typescript: bool,
    /// Byte ranges of the script blocks' contents.
    pub ranges: Vec<(usize, usize)>,
}

pub(super) fn script(src: &[u8]) -> Script {
    let mut ranges = Vec::new();
    let mut typescript = false;
    let mut at = 0;
    while let Some(open) = find(src, b"<script", at) {
        let Some(tag_end) = find(src, b">", open) else {
            break;
        };
        let tag = String::from_utf8_lossy(&src[open..tag_end]).to_ascii_lowercase();
        typescript |= tag.contains("lang=\"ts") || tag.contains("lang='ts");
        let body = tag_end + 1;
        let close = find(src, b"</script", body).unwrap_or(src.len());
        ranges.push((body, close));
        at = close;
    }
    let mut masked: Vec<u8> = src
        .iter()
        .map(|&b| if b == b'\n' { b'\n' } else { b' ' })
        .collect();
    for &(from, to) in &ranges {
        masked[from..to].copy_from_slice(&src[from..to]);
    }
    Script {
        masked,
        typescript,
        ranges,
    }
}

/// The script's chunks from its tree, and the rest of the component (template, styles) as
/// text chunks over the lines the script leaves.
pub(super) fn chunks(
    root: Node<'_>,
    src: &[u8],
    script: &Script,
    ctx: &ChunkContext<'_>,
    max: usize,
) -> Vec<Chunk> {
    let code = chunk::chunk_tree(root, &script.masked, ctx, max);
    // The component with the script blanked: what is left is chunked as text.
    let mut rest = src.to_vec();
    for &(from, to) in &script.ranges {
        for b in &mut rest[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    let text = chunk::chunk_text(&rest, ctx, max);
    let mut all: Vec<Chunk> = code.into_iter().chain(text).collect();
    all.sort_by_key(|c| (c.start_line, c.end_line));
    all
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_keeps_its_lines_and_the_rest_is_blank() {
        let src = b"<template>\n  <p>{{ a }}</p>\n</template>\n<script setup lang=\"ts\">\nconst a = 1\n</script>\n";
        let s = script(src);
        assert!(s.typescript);
        let text = String::from_utf8(s.masked).unwrap();
        assert_eq!(text.lines().nth(4), Some("const a = 1"));
        assert_eq!(text.lines().count(), 6);
        assert!(text.lines().take(3).all(|l| l.trim().is_empty()));
    }
}
