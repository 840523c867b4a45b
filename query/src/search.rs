//! `codemap search`: exact symbol hits first, then BM25 over contextualized chunks.
//!
//! Exact identifier matches are never outranked by near misses: a query that names a symbol gets
//! its declaration on top, then the full-text hits in score order (tests, generated and vendored
//! code demoted). Every hit is a range read back from the index, so it exists in the snapshot.

use indexer::model::{Chunk, Provenance, RepoPath, Symbol};
use indexer::node::NodeId;
use indexer::overlay::Overlay;
use indexer::store::{IndexRead, StoreError};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HitSource {
    Symbol,
    Text,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Qualified name of the symbol the hit is (or lies in), if known.
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub source: HitSource,
    pub score: f32,
    /// First non-blank line of the hit, for display.
    pub preview: String,
}

/// Weight applied to full-text scores of code users rarely mean unless they ask for it.
fn provenance_weight(p: Provenance) -> f32 {
    match p {
        Provenance::Source => 1.0,
        Provenance::Test | Provenance::Example => 0.6,
        Provenance::Generated | Provenance::Vendored => 0.5,
    }
}

/// Identifier-looking words of a query (`FileUtils.copyFile`, `deduct_stock`, `getExtension`).
pub fn identifiers(query: &str) -> Vec<&str> {
    let mut out: Vec<&str> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.' || c == '#'))
        .map(|w| w.trim_matches(|c| c == '.' || c == '#'))
        .filter(|w| {
            w.chars().count() >= 2
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
        })
        .collect();
    let mut seen = HashSet::new();
    out.retain(|w| seen.insert(*w));
    out
}

/// Runs the symbol leg and the BM25 leg over the committed index and merges them.
pub fn search(index: &dyn IndexRead, query: &str, limit: usize) -> Result<Vec<Hit>, SearchError> {
    search_with_overlay(index, None, query, limit)
}

/// As [`search`], with a watch overlay laid on top: files in the overlay hide their committed
/// versions and are searched from memory.
pub fn search_with_overlay(
    index: &dyn IndexRead,
    overlay: Option<&Overlay>,
    query: &str,
    limit: usize,
) -> Result<Vec<Hit>, SearchError> {
    let shadowed = |p: &RepoPath| overlay.is_some_and(|o| o.shadows(p));
    let mut provenance = Provenances::new(index);
    let mut hits = symbol_hits(index, overlay, query, limit, &mut provenance)?;
    let mut text_hits = Vec::new();
    for (id, _path, score) in index.search_chunks(query, limit * 3)? {
        let Some(row) = index.chunk(&id)? else {
            continue;
        };
        if shadowed(&row.path) {
            continue;
        }
        let prov = provenance.of(&row.path)?;
        text_hits.push(text_hit(
            &row.path,
            &row.chunk,
            score * provenance_weight(prov),
        ));
    }
    if let Some(o) = overlay {
        for (id, _path, score) in o.search(query, limit * 3)? {
            if let Some((path, chunk, prov)) = o.chunk(&id) {
                text_hits.push(text_hit(path, chunk, score * provenance_weight(prov)));
            }
        }
    }
    text_hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut seen: HashSet<(String, u32, u32)> = hits
        .iter()
        .map(|h| (h.path.clone(), h.start_line, h.end_line))
        .collect();
    for h in text_hits {
        if seen.insert((h.path.clone(), h.start_line, h.end_line)) {
            hits.push(h);
        }
    }
    hits.truncate(limit);
    Ok(hits)
}

fn text_hit(path: &RepoPath, c: &Chunk, score: f32) -> Hit {
    Hit {
        path: path.to_string(),
        start_line: c.start_line,
        end_line: c.end_line,
        symbol: c.symbol.as_ref().map(|s| NodeId::parse(&s.0).readable()),
        kind: None,
        source: HitSource::Text,
        score,
        preview: preview(&c.text),
    }
}

/// Provenance of files by path, looked up once per query.
struct Provenances<'a> {
    index: &'a dyn IndexRead,
    cache: HashMap<RepoPath, Provenance>,
}

impl<'a> Provenances<'a> {
    fn new(index: &'a dyn IndexRead) -> Self {
        Provenances {
            index,
            cache: HashMap::new(),
        }
    }
    fn of(&mut self, p: &RepoPath) -> Result<Provenance, StoreError> {
        if let Some(v) = self.cache.get(p) {
            return Ok(*v);
        }
        let v = self
            .index
            .file(p.as_str())?
            .map(|f| f.provenance)
            .unwrap_or_default();
        self.cache.insert(p.clone(), v);
        Ok(v)
    }
}

/// Whether a query word is meant as a code name: `getExtension`, `FileUtils`, `deduct_stock`,
/// `Foo.bar` — or the whole query is one word. Plain words ("file") are left to full text.
fn looks_like_code(word: &str, single: bool) -> bool {
    single
        || word.contains(['_', '.', '#', '$'])
        || word.chars().skip(1).any(|c| c.is_uppercase())
        || word.chars().next().is_some_and(|c| c.is_uppercase())
            && word.chars().any(|c| c.is_lowercase())
}

/// Declarations whose name is one of the query's identifiers; exact case first, sources first.
fn symbol_hits(
    index: &dyn IndexRead,
    overlay: Option<&Overlay>,
    query: &str,
    limit: usize,
    provenance: &mut Provenances<'_>,
) -> Result<Vec<Hit>, SearchError> {
    let mut scored: Vec<(i32, Hit)> = Vec::new();
    let words = identifiers(query);
    let single = words.len() == 1;
    for (rank, word) in words
        .into_iter()
        .filter(|w| looks_like_code(w, single))
        .enumerate()
    {
        let simple = word.rsplit(['.', '#']).next().unwrap_or(word);
        let mut found: Vec<(RepoPath, Symbol, Provenance)> = Vec::new();
        for r in index.symbols_named(word)? {
            if overlay.is_some_and(|o| o.shadows(&r.path)) {
                continue;
            }
            let prov = provenance.of(&r.path)?;
            found.push((r.path, r.symbol, prov));
        }
        if let Some(o) = overlay {
            found.extend(
                o.symbols_named(word)
                    .into_iter()
                    .map(|(p, s, v)| (p.clone(), s.clone(), v)),
            );
        }
        for (path, s, prov) in &found {
            let mut score = 100 - rank as i32;
            if s.name == simple {
                score += 50;
            }
            if s.kind.is_type() {
                score += 5;
            }
            if *prov != Provenance::Source {
                score -= 40;
            }
            scored.push((
                score,
                Hit {
                    path: path.to_string(),
                    start_line: s.start_line,
                    end_line: s.end_line,
                    symbol: Some(s.qualified_name.clone()),
                    kind: Some(s.kind.as_str().to_string()),
                    source: HitSource::Symbol,
                    score: score as f32,
                    preview: s.signature.clone(),
                },
            ));
        }
    }
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| (&a.1.path, a.1.start_line).cmp(&(&b.1.path, b.1.start_line)))
    });
    Ok(scored.into_iter().take(limit).map(|(_, h)| h).collect())
}

/// `java:org.x.Foo#bar(int)` → `org.x.Foo.bar(int)`.
fn preview(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut p: String = line.chars().take(120).collect();
    if line.chars().count() > 120 {
        p.push('…');
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_keep_qualified_names_and_drop_noise() {
        assert_eq!(
            identifiers("who calls FileUtils.copyFile()?"),
            vec!["who", "calls", "FileUtils.copyFile"]
        );
        assert_eq!(identifiers("deduct_stock 1x a"), vec!["deduct_stock"]);
    }

    #[test]
    fn only_code_looking_words_go_to_the_symbol_leg() {
        assert!(looks_like_code("getExtension", false));
        assert!(looks_like_code("FileUtils", false));
        assert!(looks_like_code("deduct_stock", false));
        assert!(!looks_like_code("file", false));
        assert!(looks_like_code("Tailer", false));
        assert!(looks_like_code("file", true));
    }
}
