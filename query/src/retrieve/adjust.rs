//! The lifts' code (their contract is in `lifts.rs`): value factories, common bases, overload
//! spreading; and the kind leg.

use super::*;

/// Raises symbol `i` to `score` (adding it when absent), noting the leg that did.
fn lift(ranked: &mut Vec<Ranked>, i: SymIdx, score: f32, leg: &'static str) {
    match ranked.iter_mut().find(|r| r.key == UnitKey::Sym(i)) {
        Some(r) if r.score >= score => {}
        Some(r) => {
            r.score = score;
            r.legs.push(leg);
        }
        None => ranked.push(Ranked {
            key: UnitKey::Sym(i),
            score,
            exact: false,
            legs: vec![leg],
        }),
    }
}

/// Static factories that make a value of their type from text.
const VALUE_FACTORIES: [&str; 5] = ["valueOf", "parse", "fromString", "decode", "of"];
/// Ranked units looked at for a setting's type.
const SETTINGS_LOOKED_AT: usize = 8;

impl Retriever<'_, '_> {
    /// A setting held in a field, or set through a setter, of a product type `T` is made from
    /// its configured text by `T`'s static factory: `maxFileSize="50MB"` becomes a `FileSize`
    /// through `FileSize.valueOf(String)`, which is how Joran, Spring's binder and JavaBeans
    /// editors turn strings into values, so no call edge leads there. When the question asks how
    /// text turns into something, such a factory goes just above the setting that led to it
    /// (just below it when the question names the setting: exact hits stay first). Returns the
    /// (setting, factory) pairs.
    pub(super) fn promote_value_factories(
        &self,
        ranked: &mut Vec<Ranked>,
        q: &Question,
        exact: &[SymIdx],
    ) -> Vec<(SymIdx, SymIdx)> {
        let v = self.view;
        let texty = ["string", "text", "valu"]
            .iter()
            .any(|w| q.weight_of(w) >= 0.6)
            || !q.literals.is_empty();
        let turns = ["turn", "convert", "pars", "interpret", "becom", "read"]
            .iter()
            .any(|w| q.weight_of(w) >= 0.6);
        if !(texty && turns) {
            return Vec::new();
        }
        let mut lifts: Vec<(SymIdx, SymIdx, f32)> = Vec::new();
        let named = exact.iter().filter_map(|&e| {
            let r = ranked.iter().find(|r| r.key == UnitKey::Sym(e))?;
            Some((e, r.score))
        });
        let best = ranked
            .iter()
            .take(SETTINGS_LOOKED_AT)
            .filter_map(|r| match r.key {
                UnitKey::Sym(i) => Some((i, r.score)),
                UnitKey::Range { .. } => None,
            });
        let settings: Vec<(SymIdx, f32)> = named.chain(best).collect();
        for (i, score) in settings {
            let ty = match v.kind(i) {
                SymbolKind::Field => {
                    let declared = &v.sym(i).symbol.value_type;
                    let ty = declared.trim_end_matches("[]");
                    (!ty.is_empty()).then(|| ty.to_string())
                }
                SymbolKind::Method if has_bean_prefix(v.name(i), "set") => {
                    match v.param_types(i).as_slice() {
                        [t] => Some(t.clone()),
                        _ => None,
                    }
                }
                _ => None,
            };
            let Some(ty) = ty else { continue };
            for t in v.named(&ty) {
                if !v.kind(t).is_type() || v.provenance_of(t) != Provenance::Source {
                    continue;
                }
                for m in v.members(t) {
                    let from_text = matches!(
                        v.param_types(m).as_slice(),
                        [p] if p == "String" || p == "CharSequence"
                    );
                    if v.kind(m) == SymbolKind::Method
                        && v.flags(m) & FLAG_STATIC != 0
                        && VALUE_FACTORIES.contains(&v.name(m))
                        && from_text
                        && self.has_body(m)
                    {
                        lifts.push((i, m, score * 1.02 + 1e-6));
                    }
                }
            }
        }
        for &(_, m, score) in &lifts {
            lift(ranked, m, score, "factory");
        }
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
        lifts.into_iter().map(|(i, m, _)| (i, m)).collect()
    }
}

impl Retriever<'_, '_> {
    /// Overloads of one method (same type, same name) are one answer: the best-ranked stays, the
    /// others move below the first [`OVERLOAD_SPREAD`] places so five `truncate`s do not fill
    /// the top five.
    pub(super) fn spread_overloads(&self, ranked: &mut Vec<Ranked>) {
        let v = self.view;
        let group = |r: &Ranked| match r.key {
            UnitKey::Sym(i) if v.kind(i).is_callable() => Some((v.owner_type(i), v.name(i))),
            _ => None,
        };
        let mut seen = HashSet::new();
        let (mut first, mut later) = (Vec::new(), Vec::new());
        for r in ranked.drain(..) {
            match group(&r) {
                Some(g) if !seen.insert(g) && first.len() < OVERLOAD_SPREAD => later.push(r),
                _ => first.push(r),
            }
        }
        let at = first.len().min(OVERLOAD_SPREAD);
        first.splice(at..at, later);
        *ranked = first;
    }
}

/// Places kept free of repeated overloads.
const OVERLOAD_SPREAD: usize = 10;

/// The longest a method named like a bean accessor can be and still be one: `setPort` up to
/// ten lines (a setter may validate or compile its value), `getPort`, `isSecure`, `hasBody` and
/// a fluent copy-with `withGetterPrefix` up to four.
pub(crate) fn accessor_lines(name: &str) -> Option<u32> {
    if has_bean_prefix(name, "set") {
        Some(10)
    } else if ["get", "is", "has", "with"]
        .iter()
        .any(|p| has_bean_prefix(name, p))
    {
        Some(4)
    } else {
        None
    }
}

/// `name` is `prefix` followed by a capitalised word (`getPort` for `get`, not `getter`).
pub(crate) fn has_bean_prefix(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c.is_uppercase())
}

impl Retriever<'_, '_> {
    /// For a definition question that names a kind on purpose ("the interface …", "which enum
    /// …", "the annotation …"): the types of that kind among what the text legs found, a member
    /// standing for its type, in rank order across the legs. A type of the named kind that
    /// matches a few words then competes with classes that match many.
    pub(super) fn hinted_kind_leg(&self, q: &Question, legs: &[Leg<UnitKey>]) -> Vec<UnitKey> {
        let wanted = match (q.intent, q.kind_hint) {
            (Intent::Definition, Some(KindHint::Interface)) => SymbolKind::Interface,
            (Intent::Definition, Some(KindHint::Enum)) => SymbolKind::Enum,
            (Intent::Definition, Some(KindHint::Annotation)) => SymbolKind::Annotation,
            _ => return Vec::new(),
        };
        let v = self.view;
        let longest = legs.iter().map(|l| l.items.len()).max().unwrap_or(0);
        let mut out = Vec::new();
        for r in 0..longest {
            for leg in legs {
                let Some(UnitKey::Sym(i)) = leg.items.get(r) else {
                    continue;
                };
                let t = if v.kind(*i).is_type() {
                    Some(*i)
                } else {
                    v.owner_type(*i)
                };
                if let Some(t) = t.filter(|&t| v.kind(t) == wanted) {
                    let unit = UnitKey::Sym(t);
                    if !out.contains(&unit) {
                        out.push(unit);
                    }
                }
            }
        }
        out
    }
}

/// Words by which a definition question asks for a supertype ("the base class both versions
/// extend", "the common parent"), as stems.
const BASE_WORDS: &[&str] = &[
    "base",
    "parent",
    "super",
    "superclass",
    "abstract",
    "common",
    "extend",
    "inherit",
];

/// Types of the top of a definition's ranking that are compared for a shared supertype.
const BASE_CANDIDATES: usize = 4;

impl Retriever<'_, '_> {
    /// "The base class the mutable and immutable versions both extend": when a definition
    /// question asks for a supertype and two or more of its best types share one in the
    /// repository, that supertype is the answer; it moves just above the first of them.
    pub(super) fn promote_common_base(&self, ranked: &mut Vec<Ranked>, q: &Question) {
        if q.intent != Intent::Definition || !BASE_WORDS.iter().any(|w| q.weight_of(w) >= 1.0) {
            return;
        }
        let v = self.view;
        let top: Vec<(usize, SymIdx)> = ranked
            .iter()
            .enumerate()
            .take(2 * BASE_CANDIDATES)
            .filter_map(|(k, r)| match r.key {
                UnitKey::Sym(i) if v.kind(i).is_type() => Some((k, i)),
                _ => None,
            })
            .take(BASE_CANDIDATES)
            .collect();
        // Supertype → (how many of the top types extend it, where the first of them ranks).
        let mut shared: HashMap<SymIdx, (usize, usize)> = HashMap::new();
        for &(k, t) in &top {
            for a in crate::graph::hierarchy::ancestors(v, t).into_iter().skip(1) {
                let e = shared.entry(a).or_insert((0, k));
                e.0 += 1;
                e.1 = e.1.min(k);
            }
        }
        let Some((base, first)) = shared
            .into_iter()
            .filter(|&(a, (n, _))| n >= 2 && v.provenance_of(a) == Provenance::Source)
            .max_by_key(|&(a, (n, first))| (n, std::cmp::Reverse(first), std::cmp::Reverse(a)))
            .map(|(a, (_, first))| (a, first))
        else {
            return;
        };
        let key = UnitKey::Sym(base);
        let at = ranked.iter().position(|r| r.key == key);
        if at.is_some_and(|at| at <= first) {
            return;
        }
        let mut unit = match at {
            Some(at) => ranked.remove(at),
            None => Ranked {
                key,
                score: 0.0,
                exact: false,
                legs: vec![],
            },
        };
        unit.score = ranked[first].score;
        unit.legs.push("base");
        ranked.insert(first, unit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessor_names() {
        assert_eq!(accessor_lines("getPort"), Some(4));
        assert_eq!(accessor_lines("setMaxWait"), Some(10));
        assert_eq!(accessor_lines("isSecure"), Some(4));
        assert_eq!(accessor_lines("withGetterPrefix"), Some(4));
        assert_eq!(accessor_lines("without"), None);
        assert_eq!(accessor_lines("settle"), None);
        assert_eq!(accessor_lines("get"), None);
        assert_eq!(accessor_lines("issue"), None);
    }
}
