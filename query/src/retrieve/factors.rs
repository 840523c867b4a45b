//! The factors: multipliers on a unit's fused score, by structure, provenance and how much of the
//! question its body holds, applied in the order listed.

use super::adjust::accessor_lines;
use super::rules::{Rule, Stage};
use super::{Retriever, UnitKey};
use crate::question::{Intent, KindHint, Question};
use crate::view::SymIdx;
use crate::viewdata::{FLAG_ENTRY, FLAG_READS_CONFIG, FLAG_STATIC, FLAG_WRITES_STATE};
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
/// A line range of a file without symbols (text, configuration).
const TEXT_RANGE: f32 = 0.6;
/// Entry-point, transaction and framework annotations.
const ENTRY: f32 = 1.15;
/// A static `main`.
const MAIN: f32 = 1.1;
/// Methods that change an entity's state, for questions about states.
const STATE_WRITES: f32 = 1.15;
/// Methods that read a setting, for configuration questions.
const CONFIG_READS: f32 = 1.15;
/// Constructors, unless the question is about creating things.
const CONSTRUCTOR: f32 = 0.7;
/// Abstract and interface methods, and `{}`.
const BODILESS: f32 = 0.5;
/// Getters and setters hold a value; behaviour happens elsewhere (settings questions look at
/// them, less damped).
const ACCESSOR: f32 = 0.5;
const ACCESSOR_CONFIG: f32 = 0.8;
/// A definition question asks for a type.
const DEFINITION_TYPE: f32 = 1.6;
/// Outside definition questions behaviour lives in methods: types and fields are context.
const CONTEXT_TYPE: f32 = 0.75;
const CONTEXT_FIELD: f32 = 0.5;
/// A unit's body score relative to the best one lifts it by up to this share: RRF keeps only
/// the order of body scores, so a method holding far more of the question than its neighbours
/// moves above them.
const BODY_MAGNITUDE: f32 = 0.4;
/// Members of a type the question names as context.
const NAMED_TYPE_MEMBER: f32 = 1.3;

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
            name: "text-range",
            stage: Stage::Factor,
            reads: "whether the unit is a line range without a symbol",
            changes: "x0.6",
        },
        apply: |_, _, key, b| {
            if sym(key).is_none() {
                *b *= TEXT_RANGE;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "entry",
            stage: Stage::Factor,
            reads: "entry-point, transaction and framework annotations (view flag)",
            changes: "x1.15",
        },
        apply: |r, _, key, b| {
            if sym(key).is_some_and(|i| r.view.flags(i) & FLAG_ENTRY != 0) {
                *b *= ENTRY;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "main",
            stage: Stage::Factor,
            reads: "a static method named main",
            changes: "x1.1",
        },
        apply: |r, _, key, b| {
            let v = r.view;
            if sym(key).is_some_and(|i| {
                v.kind(i) == SymbolKind::Method
                    && v.name(i) == "main"
                    && v.flags(i) & FLAG_STATIC != 0
            }) {
                *b *= MAIN;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "state-writes",
            stage: Stage::Factor,
            reads: "'status' or 'state' in the question; methods that set a status or state (view flag)",
            changes: "x1.15",
        },
        apply: |r, c, key, b| {
            let v = r.view;
            let asks = c.q.weight_of("status") >= 0.6 || c.q.weight_of("state") >= 0.6;
            if asks
                && sym(key)
                    .is_some_and(|i| v.kind(i).is_callable() && v.flags(i) & FLAG_WRITES_STATE != 0)
            {
                *b *= STATE_WRITES;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "config-reads",
            stage: Stage::Factor,
            reads: "a configuration question; methods that read a setting (view flag)",
            changes: "x1.15",
        },
        apply: |r, c, key, b| {
            let v = r.view;
            if c.q.intent == Intent::Config
                && sym(key)
                    .is_some_and(|i| v.kind(i).is_callable() && v.flags(i) & FLAG_READS_CONFIG != 0)
            {
                *b *= CONFIG_READS;
            }
        },
    },
    FactorRule {
        rule: Rule {
            name: "constructor",
            stage: Stage::Factor,
            reads: "locate, flow and config questions without creation words (create, construct, new, build, …)",
            changes: "constructors x0.7",
        },
        apply: |r, c, key, b| {
            let creation = ["creat", "construct", "instanti", "initi", "new", "build"]
                .iter()
                .any(|w| c.q.weight_of(w) >= 0.6);
            if about_behaviour(c.q)
                && !creation
                && sym(key).is_some_and(|i| r.view.kind(i) == SymbolKind::Constructor)
            {
                *b *= CONSTRUCTOR;
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
            name: "accessor",
            stage: Stage::Factor,
            reads: "locate, flow and config questions; bean-named methods (setters up to 10 lines; getters, is/has and fluent withX copies up to 4)",
            changes: "x0.5 (x0.8 for config questions)",
        },
        apply: |r, c, key, b| {
            let v = r.view;
            if about_behaviour(c.q)
                && sym(key).is_some_and(|i| {
                    v.kind(i) == SymbolKind::Method
                        && accessor_lines(v.name(i)).is_some_and(|max| v.line_span(i) <= max)
                })
            {
                *b *= if c.q.intent == Intent::Config {
                    ACCESSOR_CONFIG
                } else {
                    ACCESSOR
                };
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
            name: "methods-first",
            stage: Stage::Factor,
            reads: "questions other than definitions",
            changes: "types x0.75, fields and constants x0.5",
        },
        apply: |r, c, key, b| {
            let Some(i) = sym(key) else { return };
            if c.q.intent == Intent::Definition {
                return;
            }
            let kind = r.view.kind(i);
            if kind.is_type() {
                *b *= CONTEXT_TYPE;
            } else if matches!(kind, SymbolKind::Field | SymbolKind::Constant) {
                *b *= CONTEXT_FIELD;
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
            name: "named-type-members",
            stage: Stage::Factor,
            reads: "types among the exact hits",
            changes: "their members x1.3",
        },
        apply: |r, c, key, b| {
            if sym(key).is_some_and(|i| {
                r.view
                    .owner_type(i)
                    .is_some_and(|o| c.exact_types.contains(&o))
            }) {
                *b *= NAMED_TYPE_MEMBER;
            }
        },
    },
];
