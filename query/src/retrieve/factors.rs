//! The factors: multipliers on a unit's fused score, by structure, provenance and how much of the
//! question its body holds, applied in the order listed.

use super::rules::{Rule, Stage};
use super::{Retriever, UnitKey};
use crate::question::{Intent, KindHint, Question};
use crate::view::SymIdx;
use indexer::model::{Provenance, SymbolKind};
use std::collections::HashMap;

/// One factor: its rule and the function that multiplies a unit's score.
pub(super) struct FactorRule {
    pub rule: Rule,
    pub apply: fn(&Retriever<'_, '_>, &FactorCtx<'_>, &UnitKey, &mut f32),
}

/// What the factors of one question read.
pub(super) struct FactorCtx<'q> {
    pub q: &'q Question,
    /// Body score per unit and the best one.
    pub body_of: HashMap<UnitKey, f32>,
    pub body_max: f32,
    /// Types among the exact hits.
    pub exact_types: Vec<SymIdx>,
}

/// Test code, unless the question asks about tests.
const TEST: f32 = 0.3;
/// Example programs use the API rather than implement it.
const EXAMPLE: f32 = 0.4;
/// Generated and vendored code, unless the question asks for it.
const GENERATED: f32 = 0.4;
/// Entry-point, transaction and framework annotations.
const ENTRY: f32 = 1.15;
/// Abstract and interface methods, and `{}`.
const BODILESS: f32 = 0.5;
/// A definition question asks for a type.
const DEFINITION_TYPE: f32 = 1.6;
/// A unit's body score relative to the best one lifts it by up to this share: RRF keeps only
/// the order of body scores, so a method holding far more of the question than its neighbours
/// moves above them.
const BODY_MAGNITUDE: f32 = 0.4;
/// A report's named types are its subject: their members count twice.
const REPORTED_SUBJECT: f32 = 2.0;

fn sym(key: &UnitKey) -> Option<SymIdx> {
    match key {
        UnitKey::Sym(i) => Some(*i),
        UnitKey::Range { .. } => None,
    }
}

/// Locate, flow and config questions ask where behaviour lives.
fn about_behaviour(q: &Question) -> bool {
    matches!(q.intent, Intent::Locate | Intent::Flow | Intent::Config)
}

/// The factors in the order they multiply.
pub(super) const FACTORS: &[FactorRule] = &[
    FactorRule {
        rule: Rule {
            name: "provenance",
            stage: Stage::Factor,
            reads: "the file's provenance (test, example, generated, vendored) and whether the question asks for it",
            changes: "tests x0.3, examples x0.4, generated and vendored x0.4, unless asked",
        },
        apply: |r, c, key, b| {
            let v = r.view;
            let prov = match key {
                UnitKey::Sym(i) => v.provenance_of(*i),
                UnitKey::Range { path, .. } => v.provenance(path),
            };
            *b *= match prov {
                Provenance::Source => 1.0,
                Provenance::Test if c.q.wants_tests => 1.0,
                Provenance::Test => TEST,
                Provenance::Example if c.q.wants_examples => 1.0,
                Provenance::Example => EXAMPLE,
                _ if c.q.wants_generated => 1.0,
                _ => GENERATED,
            };
        },
    },
    FactorRule {
        rule: Rule {
            name: "entry",
            stage: Stage::Factor,
            reads: "entry-point, transaction and framework annotations (the view's annotation names)",
            changes: "x1.15",
        },
        apply: |r, _, key, b| {
            if sym(key).is_some_and(|i| {
                r.view
                    .annotation_names(i)
                    .split(',')
                    .any(super::is_entry_annotation)
            }) {
                *b *= ENTRY;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "bodiless",
            stage: Stage::Factor,
            reads: "locate, flow and config questions; callables without a statement",
            changes: "x0.5",
        },
        apply: |r, c, key, b| {
            if about_behaviour(c.q)
                && sym(key).is_some_and(|i| r.view.kind(i).is_callable() && !r.has_body(i))
            {
                *b *= BODILESS;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "definition-kind",
            stage: Stage::Factor,
            reads: "a definition question and the kind it names (interface, enum, annotation said on purpose; class, type loosely)",
            changes: "types x1.6, then x1.5 / x1.3 when of the named kind, x0.6 / x0.85 when not; callables x0.4 when a kind was named, else x0.7",
        },
        apply: |r, c, key, b| {
            let Some(i) = sym(key) else { return };
            if c.q.intent != Intent::Definition {
                return;
            }
            let kind = r.view.kind(i);
            // "interface", "enum" and "annotation" are said on purpose; "class" is often said
            // of any type.
            let specific = matches!(
                c.q.kind_hint,
                Some(KindHint::Interface | KindHint::Enum | KindHint::Annotation)
            );
            if kind.is_type() {
                *b *= DEFINITION_TYPE;
                let hinted = match c.q.kind_hint {
                    Some(KindHint::Interface) => kind == SymbolKind::Interface,
                    Some(KindHint::Enum) => kind == SymbolKind::Enum,
                    Some(KindHint::Class) => kind == SymbolKind::Class,
                    Some(KindHint::Annotation) => kind == SymbolKind::Annotation,
                    Some(KindHint::Type) | None => true,
                };
                *b *= match (hinted, specific) {
                    (true, true) => 1.5,
                    (true, false) => 1.3,
                    (false, true) => 0.6,
                    (false, false) => 0.85,
                };
            } else if kind.is_callable() {
                // Asked for an interface, enum or annotation: a method is not the answer.
                *b *= if specific { 0.4 } else { 0.7 };
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "body-magnitude",
            stage: Stage::Factor,
            reads: "the unit's body score relative to the best one (questions other than definitions)",
            changes: "x(1 + 0.4 x relative body score)",
        },
        apply: |_, c, key, b| {
            // Types have no body score: a definition question is not judged by bodies.
            if c.body_max > 0.0 && c.q.intent != Intent::Definition {
                let rel = c.body_of.get(key).copied().unwrap_or(0.0) / c.body_max;
                *b *= 1.0 + BODY_MAGNITUDE * rel;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "reported-subject",
            stage: Stage::Factor,
            reads: "a text that asks nothing (a bug report, bare keywords) and the types among its exact hits",
            changes: "their members x2",
        },
        apply: |r, c, key, b| {
            // A question's named type is often its context ("with SizeAndTimeBasedRollingPolicy,
            // where does …"); a report's ("CircularInputStream is not infinite if …") is what
            // it is about.
            if c.q.reports
                && sym(key).is_some_and(|i| {
                    r.view
                        .owner_type(i)
                        .is_some_and(|o| c.exact_types.contains(&o))
                })
            {
                *b *= REPORTED_SUBJECT;
            }
        },
    },
];
