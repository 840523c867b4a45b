//! What a preloaded view holds of every file: its symbol rows and its text, compressed. Decoded
//! rows cost about nine allocations a symbol (64 MB for corpus-1m's 85k symbols); packed, they
//! take a fifth of that. The view decodes a row when an answer reads it and keeps the rows read
//! last decoded ([`crate::view::Limits::hot_symbols`]).
//!
//! A file's rows are packed in blocks of [`BLOCK`] rows, each row encoded on its own: reading
//! one row inflates one block and decodes that row, not the whole file (an answer reads a few
//! rows of many files).

use crate::viewdata::FileLines;
use indexer::model::Symbol;

/// Rows per compressed block: large enough to compress like the whole file (rows of one file
/// share their type's names), small enough that reading one row inflates a few KB.
const BLOCK: usize = 16;

/// Every file's packed rows and text, by file index of the snapshot's tables.
pub(crate) struct Packed {
    /// Per file: its blocks of rows, [`framed`].
    syms: Vec<Box<[u8]>>,
    lines: Vec<Box<[u8]>>,
}

impl Packed {
    /// Room for `files` files, none packed yet.
    pub(crate) fn with_files(files: usize) -> Packed {
        Packed {
            syms: vec![Box::default(); files],
            lines: vec![Box::default(); files],
        }
    }

    pub(crate) fn put_syms(&mut self, f: usize, rows: &[Symbol]) {
        let blocks: Vec<Box<[u8]>> = rows.chunks(BLOCK).map(pack_rows).collect();
        self.syms[f] = framed(&blocks).into_boxed_slice();
    }

    pub(crate) fn put_lines(&mut self, f: usize, lines: &FileLines) {
        // The text, then the number of lines: `n` tells one empty line from none (both "").
        let mut raw = Vec::with_capacity(lines.text().len() + 4);
        raw.extend_from_slice(lines.text().as_bytes());
        raw.extend_from_slice(&(lines.len() as u32).to_le_bytes());
        self.lines[f] = pack(&raw);
    }

    /// Row `at` of file `f` (`None`: not packed, no such row, or not readable).
    pub(crate) fn sym(&self, f: usize, at: usize) -> Option<Symbol> {
        let block = unpack(part(self.syms.get(f)?, at / BLOCK)?)?;
        bincode::deserialize(part(&block, at % BLOCK)?).ok()
    }

    /// File `f`'s lines (`None`: not packed, or not readable).
    pub(crate) fn lines(&self, f: usize) -> Option<FileLines> {
        let mut raw = unpack(self.lines.get(f)?)?;
        let at = raw.len().checked_sub(4)?;
        let n = u32::from_le_bytes(raw[at..].try_into().ok()?) as usize;
        raw.truncate(at);
        FileLines::from_joined(String::from_utf8(raw).ok()?, n)
    }

    /// Bytes held.
    pub(crate) fn size(&self) -> usize {
        self.syms.iter().chain(&self.lines).map(|b| b.len()).sum()
    }
}

/// One block of rows, each encoded on its own, framed and compressed.
fn pack_rows(rows: &[Symbol]) -> Box<[u8]> {
    let encoded: Vec<Vec<u8>> = rows
        .iter()
        .map(|r| bincode::serialize(r).unwrap_or_default())
        .collect();
    pack(&framed(&encoded))
}

/// `parts` in one buffer: their number, each one's end (u32 LE), then the parts.
fn framed(parts: &[impl AsRef<[u8]>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    let mut end = 0u32;
    for p in parts {
        end += p.as_ref().len() as u32;
        out.extend_from_slice(&end.to_le_bytes());
    }
    for p in parts {
        out.extend_from_slice(p.as_ref());
    }
    out
}

/// Part `k` of a [`framed`] buffer (`None`: no such part, or a damaged buffer).
fn part(buf: &[u8], k: usize) -> Option<&[u8]> {
    let n = u32_at(buf, 0)? as usize;
    if k >= n {
        return None;
    }
    let base = 4 + 4 * n;
    let from = if k == 0 {
        0
    } else {
        u32_at(buf, 4 * k)? as usize
    };
    let to = u32_at(buf, 4 * (k + 1))? as usize;
    buf.get(base + from..base + to)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn pack(raw: &[u8]) -> Box<[u8]> {
    lz4_flex::compress_prepend_size(raw).into_boxed_slice()
}

/// Empty: nothing was packed.
fn unpack(packed: &[u8]) -> Option<Vec<u8>> {
    if packed.is_empty() {
        return None;
    }
    lz4_flex::decompress_size_prepended(packed).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexer::model::{Literal, Param, SymbolId, SymbolKind};

    fn method(name: &str, line: u32) -> Symbol {
        Symbol {
            id: SymbolId(format!("java:shop.Orders#{name}(long)")),
            kind: SymbolKind::Method,
            name: name.into(),
            qualified_name: format!("shop.Orders.{name}"),
            signature: format!("public void {name}(long id)"),
            doc: Some("Marks the order paid.".into()),
            parent: Some(SymbolId("java:shop.Orders".into())),
            start_line: line,
            end_line: line + 3,
            name_line: line,
            annotations: vec!["@Transactional".into()],
            visibility: "public".into(),
            is_static: false,
            body_hash: "0123456789abcdef".into(),
            params: vec![Param {
                ty: "long".into(),
                name: "id".into(),
            }],
            value_type: "void".into(),
            has_body: true,
            body_line: line,
            supertypes: Vec::new(),
            literals: vec![Literal {
                line: line + 1,
                text: "已支付".into(),
            }],
            throws: vec!["IOException".into()],
            thrown: Vec::new(),
        }
    }

    #[test]
    fn rows_and_lines_come_back_as_they_were_packed() {
        let mut p = Packed::with_files(3);
        // More rows than one block holds, and a last block not full.
        let rows: Vec<Symbol> = (0..2 * BLOCK + 3)
            .map(|i| method(&format!("m{i}"), 10 * i as u32))
            .collect();
        p.put_syms(1, &rows);
        p.put_syms(2, &[]);
        for (at, row) in rows.iter().enumerate() {
            assert_eq!(p.sym(1, at).as_ref(), Some(row), "row {at}");
        }
        assert_eq!(p.sym(1, rows.len()), None, "past the last row");
        assert_eq!(p.sym(1, 3 * BLOCK), None, "past the last block");
        assert_eq!(p.sym(2, 0), None, "a file without symbols");
        assert_eq!(p.sym(0, 0), None, "not packed");
        assert_eq!(p.sym(7, 0), None, "not a file");

        let text = ["class A {", "", "  // 中文 ", "}", ""];
        p.put_lines(0, &FileLines::from_lines(text.into_iter()));
        p.put_lines(1, &FileLines::from_lines(std::iter::empty()));
        p.put_lines(2, &FileLines::from_lines([""].into_iter()));
        let back = p.lines(0).unwrap();
        assert_eq!(
            (0..5).map(|i| back.get(i).unwrap()).collect::<Vec<_>>(),
            text
        );
        assert_eq!(back.len(), 5, "the trailing empty line is kept");
        assert!(p.lines(1).unwrap().is_empty(), "no lines");
        assert_eq!(p.lines(2).unwrap().len(), 1, "one empty line");
        assert!(p.size() > 0);
        assert_eq!(
            FileLines::from_joined("a\nb".into(), 3),
            None,
            "not 3 lines"
        );
        assert_eq!(FileLines::from_joined("a".into(), 0), None, "not 0 lines");
    }

    #[test]
    fn a_damaged_buffer_reads_as_not_packed() {
        let mut p = Packed::with_files(1);
        p.put_syms(0, &[method("pay", 1)]);
        p.syms[0] = p.syms[0][..p.syms[0].len() / 2].into();
        assert_eq!(p.sym(0, 0), None);
    }
}
