//! Legs that read what code names rather than what it says: constants holding a string the
//! question quotes, and the exception types the best matching methods throw.

use super::*;

/// Constants per quoted literal whose users are looked up.
const LITERAL_CONSTANTS: usize = 4;
/// Readers of one constant kept: a constant read everywhere says little about any one reader.
const READERS: usize = 30;

impl Retriever<'_, '_> {
    /// Code keeps a string the question quotes (`"logback.xml"`, `os.name`) in a constant and
    /// reads it by name elsewhere: the constants whose initializer is exactly that string, then
    /// the methods whose text names one of them.
    pub(super) fn literal_leg(&self, q: &Question) -> Result<Vec<UnitKey>, QueryError> {
        let mut items = Vec::new();
        for c in self.literal_constants(q)? {
            for (i, _) in self.readers_of(q, c)? {
                let unit = UnitKey::Sym(i);
                if !items.contains(&unit) {
                    items.push(unit);
                }
            }
        }
        Ok(items)
    }

    /// The methods reading constant `c` (the index's read edges), with the line of the first
    /// read: those whose bodies hold most of the question first, at most [`READERS`].
    pub(super) fn readers_of(
        &self,
        q: &Question,
        c: SymIdx,
    ) -> Result<Vec<(SymIdx, u32)>, QueryError> {
        let v = self.view;
        let mut scored: Vec<(f32, SymIdx, u32)> = Vec::new();
        for (i, line) in crate::graph::reads::readers(v, c)? {
            if v.kind(i).is_callable() {
                scored.push((self.body_score(i, q)?, i, line));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        Ok(scored
            .into_iter()
            .take(READERS)
            .map(|(_, i, line)| (i, line))
            .collect())
    }

    /// How many of the question's [`Retriever::literal_constants`] each method reads.
    pub(super) fn literal_readers(
        &self,
        q: &Question,
    ) -> Result<std::rc::Rc<HashMap<SymIdx, usize>>, QueryError> {
        if let Some(r) = &self.memo_for(q).literal_readers {
            return Ok(r.clone());
        }
        let mut count: HashMap<SymIdx, usize> = HashMap::new();
        for c in self.literal_constants(q)? {
            for (i, _) in crate::graph::reads::readers(self.view, c)? {
                *count.entry(i).or_default() += 1;
            }
        }
        let count = std::rc::Rc::new(count);
        self.memo_for(q).literal_readers = Some(count.clone());
        Ok(count)
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
                for t in v.named(&name) {
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
