//! The legs: ranked lists of units, each fused by RRF with its weight, in the order they run.
//! A leg may read the legs before it ([`LegCtx::legs`]) and the method bodies' scores over the
//! pool they found ([`LegCtx::body`]).

use super::rules::{Rule, Stage, Weight};
use super::{RecallOptions, Retriever, UnitKey};
use crate::QueryError;
use crate::fusion::Leg;
use crate::question::{Intent, Question};
use crate::view::SymIdx;
use std::collections::{HashMap, HashSet};

/// One leg: its rule and the function that ranks its units.
pub(super) struct LegRule {
    pub rule: Rule,
    pub run: fn(&Retriever<'_, '_>, &mut LegCtx<'_, '_>) -> Result<Vec<UnitKey>, QueryError>,
}

impl LegRule {
    /// The leg's weight in the fusion.
    pub fn weight(&self, opts: &RecallOptions<'_>) -> f32 {
        match self.rule.stage {
            Stage::Leg(Weight::Fixed(w)) => w,
            Stage::Leg(Weight::Embedder) => opts.vectors.map(|v| v.weight()).unwrap_or(0.0),
            _ => 0.0,
        }
    }
}

/// What the legs of one question share.
pub(super) struct LegCtx<'q, 'o> {
    pub q: &'q Question,
    pub opts: &'q RecallOptions<'o>,
    /// The pinned exact hits (empty when the `exact` rule is off).
    pub exact: Vec<SymIdx>,
    /// The legs run so far, in order.
    pub legs: Vec<Leg<UnitKey>>,
    body: Option<BodyScores>,
}

/// Method bodies' scores over the pool the legs before found, best first.
pub(super) struct BodyScores {
    pub scored: Vec<(UnitKey, f32)>,
    pub max: f32,
}

impl<'q, 'o> LegCtx<'q, 'o> {
    pub fn new(q: &'q Question, opts: &'q RecallOptions<'o>, exact: Vec<SymIdx>) -> Self {
        LegCtx {
            q,
            opts,
            exact,
            legs: Vec::new(),
            body: None,
        }
    }

    /// The units of the leg called `name`, empty when it did not run.
    pub fn items(&self, name: &str) -> &[UnitKey] {
        self.legs
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.items.as_slice())
            .unwrap_or(&[])
    }

    /// Body scores of the pool: every unit of the legs so far (all of the full-text leg, which is
    /// already cut at `bm25_depth` chunks: a method whose body does the work often ranks low
    /// there, below merged accessors; `leg_depth` of the others) and the exact hits. Scored once,
    /// the first time a rule asks.
    pub fn body(&mut self, r: &Retriever<'_, '_>) -> Result<&BodyScores, QueryError> {
        if self.body.is_none() {
            let mut pool: Vec<UnitKey> = Vec::new();
            let mut seen = HashSet::new();
            for leg in &self.legs {
                let depth = if leg.name == "bm25" {
                    leg.items.len()
                } else {
                    self.opts.leg_depth
                };
                for u in leg.items.iter().take(depth) {
                    if seen.insert(u.clone()) {
                        pool.push(u.clone());
                    }
                }
            }
            for &e in &self.exact {
                if seen.insert(UnitKey::Sym(e)) {
                    pool.push(UnitKey::Sym(e));
                }
            }
            let methods: Vec<&str> = pool
                .iter()
                .filter_map(|u| match u {
                    UnitKey::Sym(i) if r.view.kind(*i).is_callable() => Some(r.view.path(*i)),
                    _ => None,
                })
                .collect();
            r.view.prefetch_files(&methods)?;
            r.view.prefetch_syms(&methods)?;
            let mut scored: Vec<(UnitKey, f32)> = Vec::new();
            for u in &pool {
                if let UnitKey::Sym(i) = u
                    && r.view.kind(*i).is_callable()
                {
                    let s = r.body_score(*i, self.q)?;
                    if s > 0.0 {
                        scored.push((u.clone(), s));
                    }
                }
            }
            scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let max = scored.first().map(|x| x.1).unwrap_or(0.0);
            self.body = Some(BodyScores { scored, max });
        }
        Ok(self.body.as_ref().expect("just computed"))
    }

    /// Body score per unit, for the factors.
    pub fn body_of(
        &mut self,
        r: &Retriever<'_, '_>,
    ) -> Result<(HashMap<UnitKey, f32>, f32), QueryError> {
        let b = self.body(r)?;
        Ok((b.scored.iter().cloned().collect(), b.max))
    }
}

/// RRF weight of the full-text leg: the reference the others are weighed against.
const BM25_WEIGHT: f32 = 1.0;
/// A card (name, doc sentence) matches a getter or a field as well as the method doing the work.
const CARDS_WEIGHT: f32 = 0.7;
/// Weight of the leg of types of the kind a definition question names (interface, enum,
/// annotation).
const KIND_WEIGHT: f32 = 1.0;
/// Weight of the leg of methods using a constant that holds a quoted literal of the question.
const LITERAL_WEIGHT: f32 = 1.0;
/// Weight of the leg of methods naming the key of a bundle message the question repeats: four
/// words in a bundle sentence's order (or all of it) and a key named verbatim leave little doubt,
/// more than a literal sharing three words.
const BUNDLE_WEIGHT: f32 = 2.0;
/// How much of the question a method's body covers is the most direct evidence of where
/// behaviour lives.
const BODY_WEIGHT: f32 = 1.5;
/// Weight of the leg of exception types the best matching methods throw, how many of those
/// methods are read, and the share of the best body score they must hold.
const THROWN_WEIGHT: f32 = 1.0;
const THROWN_METHODS: usize = 20;
const THROWER_SHARE: f32 = 0.5;

/// The legs in the order they run.
pub(super) const LEGS: &[LegRule] = &[
    LegRule {
        rule: Rule {
            name: "bm25",
            stage: Stage::Leg(Weight::Fixed(BM25_WEIGHT)),
            reads: "the full-text index: BM25 over contextualized chunks (symbols, header, body), top bm25_depth chunks",
            changes: "ranks the methods each chunk overlaps (best body score first), else the symbol or line range it stands for",
        },
        run: |r, c| r.bm25_leg(c.q, c.opts.bm25_depth),
    },
    LegRule {
        rule: Rule {
            name: "cards",
            stage: Stage::Leg(Weight::Fixed(CARDS_WEIGHT)),
            reads: "the view's symbol cards: name x3 (constructors x1), first doc sentence x1.5, parameters x0.5, a type's members x1",
            changes: "ranks symbols by idf-weighted question terms on their card",
        },
        run: |r, c| {
            Ok(r.card_leg(c.q, c.opts.leg_depth)
                .into_iter()
                .map(UnitKey::Sym)
                .collect())
        },
    },
    LegRule {
        rule: Rule {
            name: "kind",
            stage: Stage::Leg(Weight::Fixed(KIND_WEIGHT)),
            reads: "a definition question naming interface, enum or annotation; the legs before",
            changes: "ranks the types of that kind the legs found (a member standing for its type), in rank order across the legs",
        },
        run: |r, c| Ok(r.hinted_kind_leg(c.q, &c.legs)),
    },
    LegRule {
        rule: Rule {
            name: "literal",
            stage: Stage::Leg(Weight::Fixed(LITERAL_WEIGHT)),
            reads: "strings the question quotes; the full-text index (phrase); constants' literals; read edges",
            changes: "ranks the methods reading a constant that holds the quoted string",
        },
        run: |r, c| r.literal_leg(c.q),
    },
    LegRule {
        rule: Rule {
            name: "bundle",
            stage: Stage::Leg(Weight::Fixed(BUNDLE_WEIGHT)),
            reads: "resource-bundle (.properties) chunks the bm25 leg found or the question's four-word phrases find",
            changes: "ranks the methods naming the key of a bundle message the question repeats (as a literal, or through a constant they read)",
        },
        run: |r, c| {
            let bm25 = c.items("bm25").to_vec();
            Ok(r.bundle_leg(c.q, &bm25)?
                .into_iter()
                .map(|(i, _)| UnitKey::Sym(i))
                .collect())
        },
    },
    LegRule {
        rule: Rule {
            name: "vector",
            stage: Stage::Leg(Weight::Embedder),
            reads: "stored chunk vectors and the embedded question (only when an embedder is configured)",
            changes: "ranks the units of the nearest chunks",
        },
        run: |r, c| {
            let Some(vl) = c.opts.vectors else {
                return Ok(Vec::new());
            };
            let mut spans = Vec::new();
            for (chunk_id, _) in vl.nearest(&c.q.text, c.opts.bm25_depth)? {
                if let Some(span) = r.view.chunk_span(&chunk_id)? {
                    spans.push(span);
                }
            }
            r.units_of_chunks(&spans, c.q)
        },
    },
    LegRule {
        rule: Rule {
            name: "body",
            stage: Stage::Leg(Weight::Fixed(BODY_WEIGHT)),
            reads: "the method text of every unit the legs before found and of the exact hits",
            changes: "ranks methods by term coverage of their own text plus neighbouring question-word pairs",
        },
        run: |r, c| Ok(c.body(r)?.scored.iter().map(|(u, _)| u.clone()).collect()),
    },
    LegRule {
        rule: Rule {
            name: "thrown",
            stage: Stage::Leg(Weight::Fixed(THROWN_WEIGHT)),
            reads: "a definition question about an exception or error; the types the best body-scored methods throw or declare",
            changes: "ranks those types the code base declares, in the methods' order",
        },
        run: |r, c| {
            let q = c.q;
            let asks = q.intent == Intent::Definition
                && ["exception", "error"]
                    .iter()
                    .any(|w| q.weight_of(&crate::terms::stem(w)) >= 0.6);
            if !asks {
                return Ok(Vec::new());
            }
            let body = c.body(r)?;
            let throwers: Vec<&UnitKey> = body
                .scored
                .iter()
                .take_while(|(_, s)| *s >= THROWER_SHARE * body.max)
                .take(THROWN_METHODS)
                .map(|(u, _)| u)
                .collect();
            r.thrown_types(&throwers)
        },
    },
];
