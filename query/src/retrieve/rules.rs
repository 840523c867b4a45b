//! The ranking rules by name: every leg, factor and lift [`Retriever::rank`] applies, in the order
//! it applies them, each saying what it reads and what it changes.
//!
//! A rule is one of four kinds ([`Stage`]): the exact lookup that pins named symbols above
//! everything; a **leg**, one ranked list fused by RRF with its weight; a **factor**, which
//! multiplies a unit's fused score; a **lift**, which moves units within the ranking. Legs run
//! first (a leg may read the legs before it), then factors on every fused unit, then lifts, then
//! the pin. The tables live beside the code they run (`legs.rs`, `factors.rs`, `lifts.rs`), with
//! their constants; this module lists them and switches them.
//!
//! Any rule can be switched off by name ([`RuleSet::parse`]: `-value-factory,-accessor`), which is
//! how `bench/qa.sh --ablate` measures what each one is worth on every set.
//!
//! [`Retriever::rank`]: super::Retriever::rank

use std::collections::BTreeSet;

/// Where a rule acts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stage {
    /// Identifiers the question writes, looked up by name and kept above every other unit.
    Pin,
    /// A ranked list fused by reciprocal rank fusion.
    Leg(Weight),
    /// A multiplier on a unit's fused score.
    Factor,
    /// Moves units within the fused ranking.
    Lift,
}

/// A leg's weight in the fusion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Weight {
    Fixed(f32),
    /// Set by the embedder that serves the leg (`embed/src/spec.rs`).
    Embedder,
}

/// One ranking rule, as `codemap ask --list-rules` prints it.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Its switch: lower-case words joined by `-`.
    pub name: &'static str,
    pub stage: Stage,
    /// What it reads.
    pub reads: &'static str,
    /// What it changes, and by how much.
    pub changes: &'static str,
}

/// The pin: exact identifier hits first.
pub(super) const EXACT: Rule = Rule {
    name: "exact",
    stage: Stage::Pin,
    reads: "identifiers the question writes (camelCase, Type.member, name(), snake_case), narrowed by their qualifier",
    changes: "adds the named symbols to the pool; after the lifts, those the question is about go above everything, in their order",
};

/// Every rule in the order `rank` applies it.
pub fn all() -> Vec<Rule> {
    let mut out = vec![EXACT];
    out.extend(super::legs::LEGS.iter().map(|l| l.rule));
    out.extend(super::factors::FACTORS.iter().map(|f| f.rule));
    out.extend(super::lifts::LIFTS.iter().map(|l| l.rule));
    out
}

/// Which rules are on. All are, by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    off: BTreeSet<&'static str>,
}

/// Every rule on; what [`Default`] gives, for options that hold a reference.
pub static ALL_ON: RuleSet = RuleSet {
    off: BTreeSet::new(),
};

/// A rule switch that names no rule, or is not `-name` / `+name`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("no ranking rule is called {name:?} (the rules: {known})")]
    Unknown { name: String, known: String },
    #[error("a rule switch is -NAME (off) or +NAME (on), comma-separated; got {0:?}")]
    Syntax(String),
}

impl RuleSet {
    /// `-a,-b` switches rules `a` and `b` off; `+a` switches `a` back on (later switches win).
    /// An empty string leaves every rule on.
    pub fn parse(spec: &str) -> Result<RuleSet, RuleError> {
        let rules = all();
        let mut set = RuleSet::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (on, name) = match part.split_at(1) {
                ("-", name) => (false, name.trim()),
                ("+", name) => (true, name.trim()),
                _ => return Err(RuleError::Syntax(part.to_string())),
            };
            let Some(rule) = rules.iter().find(|r| r.name == name) else {
                return Err(RuleError::Unknown {
                    name: name.to_string(),
                    known: rules.iter().map(|r| r.name).collect::<Vec<_>>().join(", "),
                });
            };
            if on {
                set.off.remove(rule.name);
            } else {
                set.off.insert(rule.name);
            }
        }
        Ok(set)
    }

    /// Whether the rule called `name` runs.
    pub fn is_on(&self, name: &str) -> bool {
        !self.off.contains(name)
    }

    /// The rules switched off, by name.
    pub fn off(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.off.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_switchable_words() {
        let rules = all();
        let mut seen = BTreeSet::new();
        for r in &rules {
            assert!(seen.insert(r.name), "{} twice", r.name);
            assert!(
                r.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                r.name
            );
            assert!(!r.reads.is_empty() && !r.changes.is_empty(), "{}", r.name);
        }
        // The stages run in their declared order: pin, legs, factors, lifts.
        let order = |s: Stage| match s {
            Stage::Pin => 0,
            Stage::Leg(_) => 1,
            Stage::Factor => 2,
            Stage::Lift => 3,
        };
        assert!(
            rules
                .windows(2)
                .all(|w| order(w[0].stage) <= order(w[1].stage))
        );
    }

    #[test]
    fn switches_parse_and_unknown_names_are_named() {
        let set = RuleSet::parse("-value-factory, -common-base,+common-base").unwrap();
        assert!(!set.is_on("value-factory"));
        assert!(set.is_on("common-base"));
        assert!(set.is_on("bm25"));
        assert_eq!(set.off().collect::<Vec<_>>(), vec!["value-factory"]);
        assert_eq!(RuleSet::parse("").unwrap(), RuleSet::default());
        match RuleSet::parse("-valu-factory") {
            Err(RuleError::Unknown { name, known }) => {
                assert_eq!(name, "valu-factory");
                assert!(known.contains("value-factory"), "{known}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            RuleSet::parse("value-factory"),
            Err(RuleError::Syntax(_))
        ));
    }
}
