//! The lifts: moves within the fused ranking, in the order they run. Their code is in
//! `adjust.rs`; this is their contract.

use super::rules::{Rule, Stage};
use super::{Ranked, Retriever};
use crate::QueryError;
use crate::question::Question;
use crate::view::SymIdx;

/// One lift: its rule and the function that reorders.
pub(super) struct LiftRule {
    pub rule: Rule,
    pub apply: fn(&Retriever<'_, '_>, &mut LiftCtx<'_>) -> Result<(), QueryError>,
}

/// What the lifts of one question read and change.
pub(super) struct LiftCtx<'q> {
    pub q: &'q Question,
    pub exact: &'q [SymIdx],
    /// Best first.
    pub ranked: Vec<Ranked>,
    /// (setting, factory) pairs the `value-factory` lift placed: the pin keeps a factory right
    /// after the setting the question names.
    pub factories: Vec<(SymIdx, SymIdx)>,
}

/// The lifts in the order they run.
pub(super) const LIFTS: &[LiftRule] = &[
    LiftRule {
        rule: Rule {
            name: "value-factory",
            stage: Stage::Lift,
            reads: "a question about text turning into a value; the fields and setters among the top 8 or named, and their types' static factories from a String",
            changes: "the factory (valueOf, parse, fromString, decode, of) goes just above the setting, or right after it when the question names it",
        },
        apply: |r, c| {
            c.factories = r.promote_value_factories(&mut c.ranked, c.q, c.exact);
            Ok(())
        },
    },
    LiftRule {
        rule: Rule {
            name: "common-base",
            stage: Stage::Lift,
            reads: "a definition question with base, parent, super, abstract, common, extend or inherit; the supertypes of the best 4 types",
            changes: "a supertype two or more of them share goes just above the first of them",
        },
        apply: |r, c| {
            r.promote_common_base(&mut c.ranked, c.q);
            Ok(())
        },
    },
    LiftRule {
        rule: Rule {
            name: "overload-spread",
            stage: Stage::Lift,
            reads: "callables of one type with one name",
            changes: "after the best-ranked overload, the others move below the first 10 places",
        },
        apply: |r, c| {
            r.spread_overloads(&mut c.ranked);
            Ok(())
        },
    },
];
