//! An in-memory view of one snapshot for answering: every symbol with its file, lookups by name,
//! path and id, and file text read back from the stored chunks (so what we quote is what was
//! indexed, not what is on disk now).
//!
//! Built once per index and reused across questions (batch runs, a bot).

use crate::QueryError;
use crate::terms;
use indexer::model::{Provenance, Symbol, SymbolKind};
use indexer::store::IndexRead;
use indexer::store::catalog::FileRow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Index of a symbol in [`SnapshotView::symbols`].
pub type SymIdx = usize;

/// One symbol of the snapshot and the file it is in.
#[derive(Debug, Clone)]
pub struct Sym {
    pub path: String,
    pub symbol: Symbol,
}

impl Sym {
    /// `Outer.Inner.method` without the package: how people name a member.
    pub fn short_name(&self) -> String {
        short_qualified(&self.symbol.qualified_name, &self.path)
    }
    pub fn param_count(&self) -> Option<usize> {
        param_count(&self.symbol.signature)
    }
}

/// Drops the package from a qualified name, using the file name to find where the type starts.
pub fn short_qualified(qname: &str, path: &str) -> String {
    let file_stem = path
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .split('.')
        .next()
        .unwrap_or("");
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

/// Number of parameters in a declaration head (`void f(int a, Map<K, V> m)` → 2); `None` when
/// the signature has no parameter list.
pub fn param_count(signature: &str) -> Option<usize> {
    let params = params_text(signature)?;
    if params.trim().is_empty() {
        return Some(0);
    }
    Some(split_top_level(params).len())
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

/// Parameter types of a declaration head, simple names without generics (`Map<K,V> m` → `Map`,
/// `String... names` → `String...`).
pub fn param_types(signature: &str) -> Vec<String> {
    let Some(p) = params_text(signature) else {
        return Vec::new();
    };
    if p.trim().is_empty() {
        return Vec::new();
    }
    split_top_level(p)
        .into_iter()
        .map(|param| {
            let words: Vec<&str> = param
                .split_whitespace()
                .filter(|w| !w.starts_with('@') && *w != "final")
                .collect();
            let ty = if words.len() >= 2 {
                words[..words.len() - 1].join(" ")
            } else {
                words.join(" ")
            };
            let varargs = ty.contains("...");
            let base = ty
                .split('<')
                .next()
                .unwrap_or(&ty)
                .trim_end_matches("...")
                .trim();
            let base = base.rsplit('.').next().unwrap_or(base);
            if varargs {
                format!("{base}...")
            } else {
                base.to_string()
            }
        })
        .collect()
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

/// What a symbol's card holds for the card leg: stems of its name, doc, parameters and (for types)
/// member names.
#[derive(Debug, Clone, Default)]
pub struct Card {
    pub name: Vec<String>,
    pub doc: Vec<String>,
    pub params: Vec<String>,
    pub members: Vec<String>,
}

pub struct SnapshotView<'a> {
    pub index: &'a dyn IndexRead,
    pub files: HashMap<String, FileRow>,
    pub symbols: Vec<Sym>,
    by_path: HashMap<String, Vec<SymIdx>>,
    by_name: HashMap<String, Vec<SymIdx>>,
    by_id: HashMap<String, SymIdx>,
    lines: RefCell<HashMap<String, Rc<Vec<String>>>>,
    cards: std::cell::OnceCell<(Vec<Card>, HashMap<String, u32>)>,
}

impl<'a> SnapshotView<'a> {
    pub fn new(index: &'a dyn IndexRead) -> Result<SnapshotView<'a>, QueryError> {
        let files: HashMap<String, FileRow> = index
            .current_files()?
            .into_iter()
            .map(|(p, f)| (p.as_str().to_string(), f))
            .collect();
        let mut symbols = Vec::new();
        for r in index.all_symbols()? {
            symbols.push(Sym {
                path: r.path.as_str().to_string(),
                symbol: r.symbol,
            });
        }
        let mut by_path: HashMap<String, Vec<SymIdx>> = HashMap::new();
        let mut by_name: HashMap<String, Vec<SymIdx>> = HashMap::new();
        let mut by_id = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            by_path.entry(s.path.clone()).or_default().push(i);
            by_name
                .entry(s.symbol.name.to_lowercase())
                .or_default()
                .push(i);
            by_id.insert(s.symbol.id.0.clone(), i);
        }
        Ok(SnapshotView {
            index,
            files,
            symbols,
            by_path,
            by_name,
            by_id,
            lines: RefCell::new(HashMap::new()),
            cards: std::cell::OnceCell::new(),
        })
    }

    pub fn sym(&self, i: SymIdx) -> &Sym {
        &self.symbols[i]
    }

    pub fn provenance(&self, path: &str) -> Provenance {
        self.files
            .get(path)
            .map(|f| f.provenance)
            .unwrap_or_default()
    }

    pub fn module(&self, path: &str) -> &str {
        self.files
            .get(path)
            .map(|f| f.module.as_str())
            .unwrap_or("")
    }

    /// Symbols whose simple name is `name` (case-insensitive).
    pub fn named(&self, name: &str) -> &[SymIdx] {
        self.by_name
            .get(&name.to_lowercase())
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn by_id(&self, id: &str) -> Option<SymIdx> {
        self.by_id.get(id).copied()
    }

    /// Symbols of a file in source order.
    pub fn in_file(&self, path: &str) -> &[SymIdx] {
        self.by_path.get(path).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The innermost symbol of `path` covering `line` whose kind passes `keep`.
    pub fn enclosing(
        &self,
        path: &str,
        line: u32,
        keep: impl Fn(SymbolKind) -> bool,
    ) -> Option<SymIdx> {
        self.in_file(path)
            .iter()
            .copied()
            .filter(|&i| {
                let s = &self.symbols[i].symbol;
                s.start_line <= line && line <= s.end_line && keep(s.kind)
            })
            .min_by_key(|&i| {
                let s = &self.symbols[i].symbol;
                (s.end_line - s.start_line, std::cmp::Reverse(s.start_line))
            })
    }

    /// The type a member belongs to (its nearest enclosing type symbol).
    pub fn owner_type(&self, i: SymIdx) -> Option<SymIdx> {
        let mut cur = self.symbols[i]
            .symbol
            .parent
            .as_ref()
            .and_then(|p| self.by_id(&p.0));
        while let Some(c) = cur {
            if self.symbols[c].symbol.kind.is_type() {
                return Some(c);
            }
            cur = self.symbols[c]
                .symbol
                .parent
                .as_ref()
                .and_then(|p| self.by_id(&p.0));
        }
        None
    }

    /// Simple name of the owning type (`FileUtils` for `FileUtils.copyFile`).
    pub fn owner_name(&self, i: SymIdx) -> Option<&str> {
        self.owner_type(i)
            .map(|t| self.symbols[t].symbol.name.as_str())
    }

    /// Direct members of a type.
    pub fn members(&self, t: SymIdx) -> Vec<SymIdx> {
        let id = &self.symbols[t].symbol.id;
        self.in_file(&self.symbols[t].path)
            .iter()
            .copied()
            .filter(|&i| self.symbols[i].symbol.parent.as_ref() == Some(id))
            .collect()
    }

    /// Lines of a file as indexed (1-based: line `n` is `lines[n-1]`); lines no chunk covers are
    /// blank.
    pub fn file_lines(&self, path: &str) -> Result<Rc<Vec<String>>, QueryError> {
        if let Some(l) = self.lines.borrow().get(path) {
            return Ok(l.clone());
        }
        let mut lines: Vec<String> = Vec::new();
        for c in self.index.chunks_of(path)? {
            let start = c.chunk.start_line.max(1) as usize;
            for (k, text) in c.chunk.text.lines().enumerate() {
                let n = start + k;
                if lines.len() < n {
                    lines.resize(n, String::new());
                }
                lines[n - 1] = text.to_string();
            }
        }
        let total = self.files.get(path).map(|f| f.lines as usize).unwrap_or(0);
        if lines.len() < total {
            lines.resize(total, String::new());
        }
        let rc = Rc::new(lines);
        self.lines.borrow_mut().insert(path.to_string(), rc.clone());
        Ok(rc)
    }

    /// Text of lines `start..=end` of a file.
    pub fn text(&self, path: &str, start: u32, end: u32) -> Result<String, QueryError> {
        let lines = self.file_lines(path)?;
        let s = (start.max(1) as usize - 1).min(lines.len());
        let e = (end as usize).min(lines.len()).max(s);
        Ok(lines[s..e].join("\n"))
    }

    /// Number of lines of an indexed file, if it is in the snapshot.
    pub fn line_count(&self, path: &str) -> Option<u32> {
        self.files.get(path).map(|f| f.lines)
    }

    /// Cards of every symbol and the document frequency of each stem over them.
    pub fn cards(&self) -> &(Vec<Card>, HashMap<String, u32>) {
        self.cards.get_or_init(|| {
            let mut cards: Vec<Card> = self
                .symbols
                .iter()
                .map(|s| Card {
                    name: terms::identifier_stems(&s.symbol.name),
                    doc: s.symbol.doc.as_deref().map(prose_stems).unwrap_or_default(),
                    params: if s.symbol.kind.is_type() {
                        // `class Foo extends Bar implements Baz`: what it is built from.
                        prose_stems(&s.symbol.signature)
                    } else {
                        params_text(&s.symbol.signature)
                            .map(prose_stems)
                            .unwrap_or_default()
                    },
                    members: Vec::new(),
                })
                .collect();
            for (i, s) in self.symbols.iter().enumerate() {
                if let Some(p) = s.symbol.parent.as_ref().and_then(|p| self.by_id(&p.0))
                    && self.symbols[p].symbol.kind.is_type()
                    && !s.symbol.kind.is_type()
                {
                    let words = cards[i].name.clone();
                    cards[p].members.extend(words);
                }
            }
            let mut df: HashMap<String, u32> = HashMap::new();
            for c in &cards {
                let mut seen: Vec<&String> = c.name.iter().chain(&c.doc).chain(&c.params).collect();
                seen.sort();
                seen.dedup();
                for w in seen {
                    *df.entry(w.clone()).or_default() += 1;
                }
            }
            (cards, df)
        })
    }

    /// Inverse document frequency of a stem over the symbol cards.
    pub fn idf(&self, stem: &str) -> f32 {
        let (cards, df) = self.cards();
        let n = cards.len().max(1) as f32;
        let d = df.get(stem).copied().unwrap_or(0) as f32;
        ((n - d + 0.5) / (d + 0.5) + 1.0).ln()
    }
}

/// Stems of prose or code text, words only (whole identifiers dropped).
pub fn prose_stems(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for w in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
        if w.is_empty() {
            continue;
        }
        for part in indexer::analyzer::split_identifier(w) {
            out.push(terms::stem(&part));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_counted_and_typed() {
        assert_eq!(param_count("public static void f()"), Some(0));
        assert_eq!(
            param_count("void f(Map<K, V> m, int[] a, String... rest)"),
            Some(3)
        );
        assert_eq!(
            param_types("void f(final Map<K, V> m, @Nullable java.io.File f, String... rest)"),
            vec!["Map", "File", "String..."]
        );
        assert_eq!(param_count("class Foo"), None);
    }

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
