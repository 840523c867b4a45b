//! Recall and ranking: the legs (exact symbols, BM25 over contextualized chunks, symbol cards,
//! method bodies, vectors when configured) fused with RRF, then adjusted by structure and
//! provenance. Exact identifier hits stay on top.
//!
//! Units are symbols (methods, constructors, types, fields) or, for text without symbols, chunk
//! line ranges.

use crate::QueryError;
use crate::embed::VectorLeg;
use crate::fusion::{self, Leg};
use crate::question::{Intent, KindHint, Question, TermOrigin};
use crate::view::{SnapshotView, SymIdx, for_each_stem};
use crate::viewdata::{CARD_DOC, CARD_MEMBER, CARD_NAME, CARD_PARAMS, FLAG_STATIC};
use indexer::model::{Provenance, SymbolKind};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

mod adjust;
mod body;
mod bundle;
mod exact;
mod factors;
mod legs;
mod lifts;
mod message;
mod quoted;
pub mod rules;
pub(crate) use adjust::{accessor_lines, has_bean_prefix};
pub use bundle::BundleHit;
pub(crate) use bundle::{is_bundle, key_sites};
pub(crate) use exact::names_its_type;
pub use rules::{Rule, RuleError, RuleSet, Stage};

/// Something an answer can cite.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnitKey {
    Sym(SymIdx),
    Range { path: String, start: u32, end: u32 },
}

/// A ranked unit.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub key: UnitKey,
    pub score: f32,
    /// Found by an exact identifier lookup.
    pub exact: bool,
    /// Legs that found it.
    pub legs: Vec<&'static str>,
}

/// Knobs of recall.
#[derive(Clone, Copy)]
pub struct RecallOptions<'o> {
    /// Chunks read from the full-text leg.
    pub bm25_depth: usize,
    /// Units kept per leg.
    pub leg_depth: usize,
    pub vectors: Option<&'o dyn VectorLeg>,
    /// Which ranking rules run.
    pub rules: &'o RuleSet,
}

impl Default for RecallOptions<'_> {
    fn default() -> Self {
        RecallOptions {
            bm25_depth: 160,
            leg_depth: 120,
            vectors: None,
            rules: &rules::ALL_ON,
        }
    }
}

/// A method name declared by more types than this is too common for "who calls NAME" to mean
/// all of them (`read`, `toString`, `close`).
pub const SHARED_NAME_OWNERS: usize = 12;

/// Framework annotations that mark structure without being entry points (those are
/// [`crate::entry`]): transactions, RPC, mappers, configuration.
const FRAMEWORK_ANNOTATIONS: &[&str] = &[
    "Transactional",
    "FeignClient",
    "DubboService",
    "DubboReference",
    "Mapper",
    "Select",
    "Update",
    "Insert",
    "Delete",
    "Value",
    "ConfigurationProperties",
    "Bean",
    "PostConstruct",
    "Subscribe",
    "Async",
];

/// Whether an annotation (its simple name) marks an entry point, a transaction or framework
/// structure.
pub(crate) fn is_entry_annotation(name: &str) -> bool {
    crate::entry::is_entry(name) || FRAMEWORK_ANNOTATIONS.contains(&name)
}

pub struct Retriever<'v, 'a> {
    pub view: &'v SnapshotView<'a>,
    /// Body scores and idf of the question last scored (keyed by its text).
    memo: RefCell<Memo>,
}

#[derive(Default)]
struct Memo {
    question: String,
    body: HashMap<SymIdx, f32>,
    /// Methods naming the key of a bundle message the question repeats, with its score and
    /// the entry.
    bundled: HashMap<SymIdx, (f32, bundle::BundleHit)>,
    idf: HashMap<String, f32>,
    /// The question's terms as body scores read them (built once, not per body scored).
    body_terms: Option<std::rc::Rc<body::BodyTerms>>,
    /// Stems of the message the question reports, in order.
    sequence: Option<Vec<String>>,
    /// Where a method writes the message the question repeats (its literal, or the key of a
    /// bundle message): the line an answer shows of it.
    focus: HashMap<SymIdx, u32>,
    /// Constants holding a string the question quotes (looked up once per question).
    literal_constants: Option<Vec<SymIdx>>,
    /// How many of those constants each method reads.
    literal_readers: Option<std::rc::Rc<HashMap<SymIdx, usize>>>,
}

/// The card leg's per-symbol sums, kept per thread across questions: a large snapshot has
/// hundreds of thousands of symbols, and zeroed arrays of that size per question cost more
/// than the sums. Only the touched entries are reset.
#[derive(Default)]
struct CardScratch {
    acc: Vec<f32>,
    name_hits: Vec<u32>,
    seen: Vec<bool>,
    /// Set while sums are in it: a question that panicked half-way left it dirty.
    in_use: bool,
}

impl CardScratch {
    fn reset(&mut self, n: usize) {
        if self.acc.len() != n || self.in_use {
            *self = CardScratch {
                acc: vec![0.0; n],
                name_hits: vec![0; n],
                seen: vec![false; n],
                in_use: false,
            };
        }
    }
}

thread_local! {
    static CARD_SCRATCH: RefCell<CardScratch> = RefCell::default();
}

impl<'v, 'a> Retriever<'v, 'a> {
    pub fn new(view: &'v SnapshotView<'a>) -> Self {
        Retriever {
            view,
            memo: RefCell::new(Memo::default()),
        }
    }

    fn memo_for(&self, q: &Question) -> std::cell::RefMut<'_, Memo> {
        let mut m = self.memo.borrow_mut();
        if m.question != q.text {
            *m = Memo {
                question: q.text.clone(),
                ..Memo::default()
            };
        }
        m
    }

    pub(crate) fn idf(&self, q: &Question, stem: &str) -> f32 {
        let mut m = self.memo_for(q);
        if let Some(&x) = m.idf.get(stem) {
            return x;
        }
        let x = self.view.idf(stem);
        m.idf.insert(stem.to_string(), x);
        x
    }

    /// Ranks units for a question: the pin's exact lookup, the legs fused by RRF, the factors,
    /// the lifts, then the pinned hits first. Each step is a named rule ([`rules`]); the ones
    /// `opts.rules` switches off are skipped.
    pub fn rank(&self, q: &Question, opts: &RecallOptions<'_>) -> Result<Vec<Ranked>, QueryError> {
        let on = |name: &str| opts.rules.is_on(name);
        let exact = if on(rules::EXACT.name) {
            self.exact(q)
        } else {
            Vec::new()
        };
        let mut ctx = legs::LegCtx::new(q, opts, exact);
        for leg in legs::LEGS.iter().filter(|l| on(l.rule.name)) {
            let items = (leg.run)(self, &mut ctx)?;
            if !items.is_empty() {
                ctx.legs.push(Leg {
                    name: leg.rule.name,
                    weight: leg.weight(opts),
                    items,
                });
            }
        }
        if tracing::enabled!(tracing::Level::DEBUG) {
            for l in &ctx.legs {
                let top: Vec<String> = l.items.iter().take(8).map(|u| self.label(u)).collect();
                tracing::debug!(leg = l.name, weight = l.weight, ?top);
            }
        }
        let fused = fusion::rrf(&ctx.legs, fusion::RRF_K);
        let (body_of, body_max) = ctx.body_of(self)?;
        let exact = std::mem::take(&mut ctx.exact);
        let factors = factors::FactorCtx {
            q,
            body_of,
            body_max,
            exact_types: exact
                .iter()
                .copied()
                .filter(|&i| self.view.kind(i).is_type())
                .collect(),
        };
        let applied: Vec<&factors::FactorRule> = factors::FACTORS
            .iter()
            .filter(|f| on(f.rule.name))
            .collect();
        let mut ranked: Vec<Ranked> = fused
            .into_iter()
            .map(|(key, score)| {
                let found_by: Vec<&'static str> = ctx
                    .legs
                    .iter()
                    .filter(|l| l.items.contains(&key))
                    .map(|l| l.name)
                    .collect();
                let mut b = 1.0f32;
                for f in &applied {
                    (f.apply)(self, &factors, &key, &mut b);
                }
                let exact_hit = matches!(key, UnitKey::Sym(i) if exact.contains(&i));
                Ranked {
                    score: score * b,
                    exact: exact_hit,
                    legs: found_by,
                    key,
                }
            })
            .collect();
        // Exact hits no leg found, below everything fused (the pin lifts those asked about).
        for &e in &exact {
            if !ranked.iter().any(|r| r.key == UnitKey::Sym(e)) {
                let floor = ranked.iter().map(|r| r.score).fold(f32::INFINITY, f32::min);
                let score = if floor.is_finite() { floor * 0.5 } else { 0.0 };
                ranked.push(Ranked {
                    key: UnitKey::Sym(e),
                    score,
                    exact: true,
                    legs: vec!["exact"],
                });
            }
        }
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
        let mut lift = lifts::LiftCtx {
            q,
            exact: &exact,
            ranked,
            factories: Vec::new(),
        };
        for l in lifts::LIFTS.iter().filter(|l| on(l.rule.name)) {
            (l.apply)(self, &mut lift)?;
        }
        let (ranked, factories) = (lift.ranked, lift.factories);

        // The pin: exact hits first, in their order.
        let mut out: Vec<Ranked> = Vec::new();
        for e in self.protected(q, &exact) {
            let key = UnitKey::Sym(e);
            let score = ranked
                .iter()
                .find(|r| r.key == key)
                .map(|r| r.score)
                .unwrap_or(0.0);
            out.push(Ranked {
                key,
                score,
                exact: true,
                legs: vec!["exact"],
            });
            // A named setting, then the factory that makes it from its text.
            for &(_, m) in factories.iter().filter(|(from, _)| *from == e) {
                if let Some(r) = ranked.iter().find(|r| r.key == UnitKey::Sym(m))
                    && !out.iter().any(|o| o.key == r.key)
                {
                    out.push(r.clone());
                }
            }
        }
        for r in ranked {
            if !out.iter().any(|o| o.key == r.key) {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// A unit as a log line shows it: a symbol's name with its owner, or a path.
    fn label(&self, u: &UnitKey) -> String {
        match u {
            UnitKey::Sym(i) => match self.view.owner_name(*i) {
                Some(o) => format!("{o}.{}", self.view.name(*i)),
                None => self.view.name(*i).to_string(),
            },
            UnitKey::Range { path, start, end } => format!("{path}:{start}-{end}"),
        }
    }

    fn bm25_leg(&self, q: &Question, depth: usize) -> Result<Vec<UnitKey>, QueryError> {
        let v = self.view;
        let mut words: Vec<String> = q
            .terms
            .iter()
            .filter(|t| t.origin != TermOrigin::Synonym)
            .map(|t| t.word.clone())
            .collect();
        words.extend(q.identifiers.iter().map(|i| i.name.clone()));
        words.extend(q.cjk.iter().cloned());
        if words.is_empty() {
            return Ok(Vec::new());
        }
        let query = words.join(" ");
        let mut spans = Vec::new();
        for (id, _path, _score) in v.index.search_chunks(&query, depth)? {
            if let Some(span) = v.chunk_span(&id)? {
                spans.push(span);
            }
        }
        self.units_of_chunks(&spans, q)
    }

    /// The units of each chunk span in turn ([`Retriever::units_of_chunk`]), each once; the
    /// method texts they are scored on are read in one batch first.
    pub(crate) fn units_of_chunks(
        &self,
        spans: &[(String, u32, u32)],
        q: &Question,
    ) -> Result<Vec<UnitKey>, QueryError> {
        let v = self.view;
        // The callables of each file the spans touch, with their lines: found once per file
        // (a search returns many chunks of the same large files).
        let mut by_file: rustc_hash::FxHashMap<&str, Vec<(SymIdx, u32, u32)>> =
            rustc_hash::FxHashMap::default();
        for (path, _, _) in spans {
            by_file.entry(path.as_str()).or_insert_with(|| {
                v.in_file(path)
                    .filter(|&i| v.kind(i).is_callable())
                    .map(|i| {
                        let (s, e) = v.span(i);
                        (i, s, e)
                    })
                    .collect()
            });
        }
        let overlapping = |path: &str, start: u32, end: u32| -> Vec<SymIdx> {
            by_file[path]
                .iter()
                .filter(|&&(_, s, e)| s <= end && start <= e)
                .map(|&(i, _, _)| i)
                .collect()
        };
        let mut with_methods: Vec<&str> = Vec::new();
        for (path, start, end) in spans {
            if !with_methods.contains(&path.as_str())
                && by_file[path.as_str()]
                    .iter()
                    .any(|&(_, s, e)| s <= *end && *start <= e)
            {
                with_methods.push(path);
            }
        }
        v.prefetch_files(&with_methods)?;
        v.prefetch_syms(&with_methods)?;
        let mut items = Vec::new();
        let mut seen: rustc_hash::FxHashSet<UnitKey> = rustc_hash::FxHashSet::default();
        for (path, start, end) in spans {
            let callables = overlapping(path, *start, *end);
            for u in self.units_of_chunk(path, *start, *end, callables, q)? {
                if seen.insert(u.clone()) {
                    items.push(u);
                }
            }
        }
        Ok(items)
    }

    /// The units a chunk stands for: the `callables` it overlaps (best matching first), else the
    /// innermost symbol covering it, else its line range.
    fn units_of_chunk(
        &self,
        path: &str,
        start: u32,
        end: u32,
        mut callables: Vec<SymIdx>,
        q: &Question,
    ) -> Result<Vec<UnitKey>, QueryError> {
        let v = self.view;
        // A method nested in another (anonymous or local class) stands for itself only.
        if !callables.is_empty() {
            let mut scored = Vec::new();
            for &c in &callables {
                scored.push((c, self.body_score(c, q)?));
            }
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            callables = scored
                .into_iter()
                .filter(|(_, s)| *s > 0.0)
                .map(|(c, _)| c)
                .collect();
            if !callables.is_empty() {
                let mut units: Vec<UnitKey> = callables.into_iter().map(UnitKey::Sym).collect();
                // A definition question is about the type these members belong to.
                if q.intent == Intent::Definition
                    && let Some(t) = self.type_of_chunk(path, start, end)
                {
                    units.push(UnitKey::Sym(t));
                }
                return Ok(units);
            }
        }
        if let Some(i) = v.enclosing(path, start, |_| true) {
            let (s, e) = v.span(i);
            if s <= start && end <= e || v.kind(i).is_type() {
                return Ok(vec![UnitKey::Sym(i)]);
            }
        }
        // A chunk that starts before any declaration (package and imports, then a type).
        if let Some(t) = self.type_of_chunk(path, start, end) {
            return Ok(vec![UnitKey::Sym(t)]);
        }
        Ok(vec![UnitKey::Range {
            path: path.to_string(),
            start,
            end,
        }])
    }

    /// The type a chunk belongs to: the innermost type holding its first line, else the first
    /// type it overlaps (a chunk can start with the package line and imports).
    fn type_of_chunk(&self, path: &str, start: u32, end: u32) -> Option<SymIdx> {
        let v = self.view;
        v.enclosing(path, start, |k| k.is_type()).or_else(|| {
            v.in_file(path)
                .filter(|&i| {
                    let (s, e) = v.span(i);
                    v.kind(i).is_type() && s <= end && start <= e
                })
                .min_by_key(|&i| v.span(i).0)
        })
    }

    /// Card leg: symbols ranked by question terms in their name, doc, parameters and members.
    /// Reads the postings of the question's stems only.
    pub fn card_leg(&self, q: &Question, depth: usize) -> Vec<SymIdx> {
        let v = self.view;
        let weights: HashMap<&str, f32> = q
            .terms
            .iter()
            .map(|t| (t.stem.as_str(), t.weight * v.idf(&t.stem)))
            .collect();
        if weights.is_empty() {
            return Vec::new();
        }
        // Postings of the question's stems, in stem order: a card's words are summed field by
        // field, each field's stems in sorted order.
        let mut stems: Vec<&str> = weights.keys().copied().collect();
        stems.sort_unstable();
        let postings: Vec<(f32, Vec<(SymIdx, u8)>)> = stems
            .iter()
            .filter_map(|w| v.card_postings(w).map(|p| (weights[w], p.collect())))
            .collect();
        CARD_SCRATCH.with_borrow_mut(|scratch| {
            scratch.reset(v.len());
            self.card_scores(&postings, scratch, depth)
        })
    }

    /// The card leg's sums over `postings`, in `scratch` (all zero, and zero again after).
    fn card_scores(
        &self,
        postings: &[(f32, Vec<(SymIdx, u8)>)],
        scratch: &mut CardScratch,
        depth: usize,
    ) -> Vec<SymIdx> {
        let v = self.view;
        scratch.in_use = true;
        let CardScratch {
            acc,
            name_hits,
            seen,
            in_use,
        } = scratch;
        let mut touched: Vec<SymIdx> = Vec::new();
        for (x, list) in postings {
            for &(i, f) in list {
                if !seen[i] {
                    seen[i] = true;
                    touched.push(i);
                }
                if f & CARD_NAME != 0 {
                    // A constructor's name is its class's: it says little about what the code does.
                    let name_weight = if v.kind(i) == SymbolKind::Constructor {
                        1.0
                    } else {
                        3.0
                    };
                    acc[i] += name_weight * x;
                    name_hits[i] += 1;
                }
            }
        }
        for (field, weight) in [(CARD_DOC, 1.5f32), (CARD_PARAMS, 0.5), (CARD_MEMBER, 1.0)] {
            for (x, list) in postings {
                for &(i, f) in list {
                    if f & field != 0 && (field != CARD_MEMBER || v.kind(i).is_type()) {
                        acc[i] += weight * x;
                    }
                }
            }
        }
        let mut scored: Vec<(SymIdx, f32)> = Vec::new();
        for &i in &touched {
            let mut s = acc[i];
            if matches!(v.kind(i), SymbolKind::Package) || s <= 0.0 {
                continue;
            }
            // Names made mostly of question words are better than long names with one hit.
            let name_len = v.card_name_len(i).max(1) as f32;
            s *= 0.6 + 0.4 * (name_hits[i] as f32 / name_len);
            scored.push((i, s));
        }
        for i in touched {
            (acc[i], name_hits[i], seen[i]) = (0.0, 0, false);
        }
        *in_use = false;
        // The best `depth` in order; the order is total, so the same list as a full sort.
        let order = |a: &(SymIdx, f32), b: &(SymIdx, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > depth && depth > 0 {
            scored.select_nth_unstable_by(depth - 1, order);
        }
        scored.truncate(depth);
        scored.sort_by(order);
        scored.into_iter().map(|(i, _)| i).collect()
    }

    /// Whether a callable has a body with at least one statement (not abstract, not `{}`).
    pub fn has_body(&self, i: SymIdx) -> bool {
        self.view.has_body(i)
    }
}
