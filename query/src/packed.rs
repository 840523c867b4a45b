//! What a preloaded view holds of every file: its symbol rows and its text, each file's
//! compressed into one allocation. Decoded rows cost about nine allocations a symbol (64 MB
//! for corpus-1m's 85k symbols); a file's packed rows are one buffer a fifth of that size. The
//! view decodes a file when an answer reads it and keeps the files read last decoded
//! ([`crate::view::Limits::hot_symbols`]).

use crate::viewdata::FileLines;
use indexer::model::Symbol;

/// Every file's packed rows and text, by file index of the snapshot's tables.
pub(crate) struct Packed {
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
        self.syms[f] = pack(&bincode::serialize(rows).unwrap_or_default());
    }

    pub(crate) fn put_lines(&mut self, f: usize, lines: &FileLines) {
        // The text, then the number of lines: `n` tells one empty line from none (both "").
        let mut raw = Vec::with_capacity(lines.text().len() + 4);
        raw.extend_from_slice(lines.text().as_bytes());
        raw.extend_from_slice(&(lines.len() as u32).to_le_bytes());
        self.lines[f] = pack(&raw);
    }

    /// File `f`'s symbol rows (`None`: not packed, or not readable).
    pub(crate) fn syms(&self, f: usize) -> Option<Vec<Symbol>> {
        let raw = unpack(self.syms.get(f)?)?;
        bincode::deserialize(&raw).ok()
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
        let rows = vec![method("pay", 10), method("cancel", 20)];
        p.put_syms(1, &rows);
        p.put_syms(2, &[]);
        assert_eq!(p.syms(1), Some(rows));
        assert_eq!(p.syms(2), Some(Vec::new()), "a file without symbols");
        assert_eq!(p.syms(0), None, "not packed");
        assert_eq!(p.syms(7), None, "not a file");

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
        assert_eq!(p.syms(0), None);
    }
}
