//! Legs that read what code names rather than what it says: constants holding a string the
//! question quotes, and the exception types the best matching methods throw.

use super::*;

/// Constants per quoted literal whose users are looked up.
const LITERAL_CONSTANTS: usize = 4;

impl Retriever<'_, '_> {
    /// Code keeps a string the question quotes (`"logback.xml"`, `os.name`) in a constant and
    /// reads it by name elsewhere: the constants whose initializer is exactly that string, then
    /// the methods whose text names one of them.
    pub(super) fn literal_leg(&self, q: &Question) -> Result<Vec<UnitKey>, QueryError> {
        let mut items = Vec::new();
        for c in self.literal_constants(q)? {
            for (i, _) in self.readers_of(c)? {
                let unit = UnitKey::Sym(i);
                if !items.contains(&unit) {
                    items.push(unit);
                }
            }
        }
        Ok(items)
    }

    /// The methods whose text names constant `c` (found through the full-text index by its
    /// name), with the line of the first mention.
    pub(super) fn readers_of(&self, c: SymIdx) -> Result<Vec<(SymIdx, u32)>, QueryError> {
        let v = self.view;
        let name = v.name(c);
        let mut out: Vec<(SymIdx, u32)> = Vec::new();
        for (id, _, _) in v.index.search_chunks(name, 30)? {
            let Some((path, start, end)) = v.chunk_span(&id)? else {
                continue;
            };
            for i in v.in_file(&path) {
                let (s, e) = v.span(i);
                if !v.kind(i).is_callable()
                    || e < start
                    || end < s
                    || out.iter().any(|(o, _)| *o == i)
                {
                    continue;
                }
                let text = v.text(&path, s, e)?;
                if let Some(k) = text.lines().position(|l| names_word(l, name)) {
                    out.push((i, s + k as u32));
                }
            }
        }
        Ok(out)
    }

    /// Constants (fields) whose initializer is exactly a string the question quotes, up to
    /// [`LITERAL_CONSTANTS`] a literal.
    pub(super) fn literal_constants(&self, q: &Question) -> Result<Vec<SymIdx>, QueryError> {
        if let Some(c) = &self.memo_for(q).literal_constants {
            return Ok(c.clone());
        }
        let v = self.view;
        let mut all: Vec<SymIdx> = Vec::new();
        for lit in q.literals.iter().filter(|l| l.len() >= 4).take(3) {
            let words: Vec<&str> = lit
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            if words.is_empty() {
                continue;
            }
            let mut constants: Vec<SymIdx> = Vec::new();
            for (id, _, _) in v
                .index
                .search_chunks(&format!("\"{}\"", words.join(" ")), 100)?
            {
                let Some((path, start, end)) = v.chunk_span(&id)? else {
                    continue;
                };
                for i in v.in_file(&path) {
                    let (s, e) = v.span(i);
                    if matches!(v.kind(i), SymbolKind::Field | SymbolKind::Constant)
                        && s <= end
                        && start <= e
                        && !constants.contains(&i)
                        && v.literals_in(&path, s, e).iter().any(|l| l.text == *lit)
                    {
                        constants.push(i);
                    }
                }
            }
            all.extend(constants.into_iter().take(LITERAL_CONSTANTS));
        }
        self.memo_for(q).literal_constants = Some(all.clone());
        Ok(all)
    }

    /// Exception and error types the code base declares and the given methods throw or declare
    /// they throw, in the methods' order: what a caller of the best matching code gets.
    pub(super) fn thrown_types(&self, methods: &[&UnitKey]) -> Result<Vec<UnitKey>, QueryError> {
        let v = self.view;
        let mut out: Vec<UnitKey> = Vec::new();
        for u in methods {
            let UnitKey::Sym(i) = u else { continue };
            for name in v.thrown_by(*i) {
                for t in v.named(name) {
                    let unit = UnitKey::Sym(t);
                    if v.kind(t).is_type() && v.name(t) == name && !out.contains(&unit) {
                        out.push(unit);
                    }
                }
            }
        }
        Ok(out)
    }
}
