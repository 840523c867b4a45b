//! A call graph read from the snapshot's text, for when no stored graph exists.
//!
//! Callees: the call sites of a method body ([`callsite`], read once per snapshot into the view's
//! tables with the declared types resolving them needs) resolved by name, then narrowed by the
//! qualifier (same type for `foo()`/`this.foo()`, the named type for `Type.foo()`, the declared
//! type of a local, parameter or field for `var.foo()`), by argument count and, among overloads,
//! by the declared types of simple arguments. Callers: the methods holding a call of the name
//! (the innermost method around each such call), each one's calls of that name resolved and
//! checked for the target. Name-only guesses carry a low confidence. Nothing here reads file text.

use super::{CallGraph, Edge, EdgeKind};
use crate::QueryError;
use crate::view::{SnapshotView, SymIdx};
use crate::viewdata::SiteFact;
use indexer::model::{SymbolId, SymbolKind};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

pub struct LexicalGraph<'v, 'a> {
    view: &'v SnapshotView<'a>,
    callees: RefCell<HashMap<SymIdx, Vec<Edge>>>,
    callers: RefCell<HashMap<SymIdx, Vec<Edge>>>,
    cands: RefCell<HashMap<(String, bool), Candidates<'v>>>,
}

/// The possible callees of one name (and whether the call is a `new`).
type Candidates<'v> = Rc<Vec<Cand<'v>>>;

/// A possible callee of a name, with its owning type.
struct Cand<'v> {
    sym: SymIdx,
    owner: Option<SymIdx>,
    owner_name: Option<&'v str>,
}

impl<'v, 'a> LexicalGraph<'v, 'a> {
    pub fn new(view: &'v SnapshotView<'a>) -> LexicalGraph<'v, 'a> {
        LexicalGraph {
            view,
            callees: RefCell::new(HashMap::new()),
            callers: RefCell::new(HashMap::new()),
            cands: RefCell::new(HashMap::new()),
        }
    }

    fn edge(&self, from: SymIdx, to: SymIdx, site: &SiteFact, confidence: f32) -> Edge {
        let v = self.view;
        Edge {
            from: SymbolId(v.id(from).to_string()),
            to: SymbolId(v.id(to).to_string()),
            kind: if site.constructor {
                EdgeKind::New
            } else {
                EdgeKind::Call
            },
            path: v.path(from).to_string(),
            line: site.line,
            confidence,
        }
    }

    fn callees_of(&self, i: SymIdx) -> Result<Vec<Edge>, QueryError> {
        if let Some(e) = self.callees.borrow().get(&i) {
            return Ok(e.clone());
        }
        let v = self.view;
        let mut edges = Vec::new();
        if v.kind(i).is_callable() {
            for site in &v.sites(i) {
                for (to, confidence) in self.resolve(i, site) {
                    edges.push(self.edge(i, to, site, confidence));
                }
            }
        }
        self.callees.borrow_mut().insert(i, edges.clone());
        Ok(edges)
    }

    /// Callables (or, for `new X(..)` without constructors, types) named exactly `name`, with
    /// their owning types; the same for every call of that name, so kept for the question.
    fn candidates(&self, name: &str, constructor: bool) -> Rc<Vec<Cand<'v>>> {
        let key = (name.to_string(), constructor);
        if let Some(c) = self.cands.borrow().get(&key) {
            return c.clone();
        }
        let v: &'v SnapshotView<'a> = self.view;
        let named = v.named(name);
        let list: Vec<SymIdx> = if constructor {
            let ctors: Vec<SymIdx> = named
                .iter()
                .copied()
                .filter(|&c| v.kind(c) == SymbolKind::Constructor)
                .collect();
            if ctors.is_empty() {
                named
                    .iter()
                    .copied()
                    .filter(|&c| v.kind(c).is_type())
                    .collect()
            } else {
                ctors
            }
        } else {
            named
                .iter()
                .copied()
                .filter(|&c| v.kind(c).is_callable())
                .collect()
        };
        let out: Vec<Cand<'v>> = list
            .into_iter()
            // Case-insensitive name lookup; calls are case-sensitive.
            .filter(|&c| v.name(c) == name)
            .map(|c| {
                let owner = v.owner_type(c);
                Cand {
                    sym: c,
                    owner,
                    owner_name: owner.map(|o| v.name(o)),
                }
            })
            .collect();
        let rc = Rc::new(out);
        self.cands.borrow_mut().insert(key, rc.clone());
        rc
    }

    /// Candidate callees of one call site with a confidence each.
    fn resolve(&self, from: SymIdx, site: &SiteFact) -> Vec<(SymIdx, f32)> {
        let v = self.view;
        let owner = v.owner_type(from);
        let owner_name = owner.map(|o| v.name(o));
        let all = self.candidates(&site.name, site.constructor);
        if all.is_empty() {
            return Vec::new();
        }
        let cands = || all.iter();
        let mut confidence;
        let narrowed: Vec<&Cand<'_>> = match site.qualifier.as_deref() {
            _ if site.constructor => {
                confidence = 1.0;
                cands().collect()
            }
            None | Some("this") => {
                confidence = 1.0;
                let same_owner: Vec<&Cand<'_>> = cands()
                    .filter(|c| owner.is_some() && c.owner == owner)
                    .collect();
                if !same_owner.is_empty() {
                    same_owner
                } else {
                    let same_file: Vec<&Cand<'_>> =
                        cands().filter(|c| v.same_file(c.sym, from)).collect();
                    if !same_file.is_empty() {
                        same_file
                    } else {
                        // Inherited or statically imported.
                        confidence = 0.5;
                        cands().collect()
                    }
                }
            }
            Some("super") => {
                confidence = 0.6;
                cands().filter(|c| c.owner != owner).collect()
            }
            Some(q) if q.starts_with(char::is_uppercase) && q.chars().any(char::is_lowercase) => {
                confidence = 1.0;
                let named: Vec<&Cand<'_>> = cands().filter(|c| c.owner_name == Some(q)).collect();
                if named.is_empty() {
                    confidence = 0.3;
                    cands().collect()
                } else {
                    named
                }
            }
            Some(_) => match site.declared.as_deref() {
                Some(t) => {
                    let named: Vec<&Cand<'_>> =
                        cands().filter(|c| c.owner_name == Some(t)).collect();
                    if named.is_empty() {
                        // A supertype we cannot see, or a library type: name-only guess.
                        confidence = 0.3;
                        if t.starts_with(char::is_uppercase) && owner_name != Some(t) {
                            cands().collect()
                        } else {
                            Vec::new()
                        }
                    } else {
                        confidence = 0.9;
                        named
                    }
                }
                None => {
                    confidence = 0.4;
                    cands().collect()
                }
            },
        };
        if narrowed.is_empty() {
            return Vec::new();
        }
        // Distinct owner types among name-only guesses: too many means we know nothing.
        if confidence < 0.9 {
            let owners: BTreeSet<Option<SymIdx>> = narrowed.iter().map(|c| c.owner).collect();
            if owners.len() > 3 {
                return Vec::new();
            }
        }
        let narrowed: Vec<SymIdx> = narrowed.iter().map(|c| c.sym).collect();
        // Argument count.
        let arity_ok = |c: SymIdx| {
            let types = v.param_types(c);
            let n = types.len();
            let varargs = types.last().is_some_and(|t| t.ends_with("..."));
            n == site.arity || (varargs && site.arity + 1 >= n)
        };
        let mut by_arity: Vec<SymIdx> = narrowed.iter().copied().filter(|&c| arity_ok(c)).collect();
        if by_arity.is_empty() {
            by_arity = narrowed;
            confidence *= 0.7;
        }
        // Overloads: prefer those whose parameter types agree with simple arguments' declared types.
        if by_arity.len() > 1 {
            let score = |c: SymIdx| -> i32 {
                let types = v.param_types(c);
                let mut s = 0;
                for (k, at) in site.arg_types.iter().enumerate() {
                    let Some(pt) = types.get(k).or(types.last()) else {
                        break;
                    };
                    let pt = pt.trim_end_matches("...");
                    if let Some(at) = at {
                        if at == pt {
                            s += 2;
                        } else if assignable(at, pt) {
                            s += 1;
                        } else {
                            s -= 2;
                        }
                    }
                }
                s
            };
            let best = by_arity.iter().map(|&c| score(c)).max().unwrap_or(0);
            by_arity.retain(|&c| score(c) == best);
            if by_arity.len() > 1 {
                confidence *= 0.8;
            }
        }
        by_arity
            .into_iter()
            .filter(|&c| c != from || site.qualifier.is_none())
            .map(|c| (c, confidence))
            .collect()
    }
}

/// Whether a qualifier says where the callee is without a declared type (`this`, `super`, a type
/// name, or a constructor call).
pub(crate) fn qualifier_is_direct(q: &str, constructor: bool) -> bool {
    constructor
        || q == "this"
        || q == "super"
        || (q.starts_with(char::is_uppercase) && q.chars().any(char::is_lowercase))
}

/// The declared type of field `name` from its declaration head (`private final Foo name;` →
/// `Foo`), generics and arrays dropped.
pub(crate) fn field_decl_type(signature: &str, name: &str) -> Option<String> {
    let head = signature.split('=').next().unwrap_or(signature);
    let words: Vec<&str> = head.split_whitespace().collect();
    let pos = words
        .iter()
        .position(|w| w.trim_end_matches([';', ',']) == name)?;
    let ty = words.get(pos.checked_sub(1)?)?;
    let base = ty.split('<').next().unwrap_or(ty).trim_end_matches("[]");
    Some(base.rsplit('.').next().unwrap_or(base).to_string())
}

/// The declared type of a simple argument (`in` → `InputStream`), a `new T(..)`, or a literal.
pub(crate) fn arg_type(arg: &str, locals: &[(String, String)]) -> Option<String> {
    let a = arg.trim();
    if let Some(rest) = a.strip_prefix("new ") {
        let t: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        return (!t.is_empty()).then_some(t);
    }
    if a.starts_with('"') {
        return Some("String".into());
    }
    if a.chars().all(|c| c.is_alphanumeric() || c == '_') && a.starts_with(char::is_lowercase) {
        return locals.iter().find(|(n, _)| n == a).map(|(_, t)| t.clone());
    }
    None
}

/// Loose subtyping by name: `FileInputStream` → `InputStream`, anything → `Object`.
fn assignable(from: &str, to: &str) -> bool {
    to == "Object" || from.ends_with(to) || (to == "CharSequence" && from == "String")
}

impl CallGraph for LexicalGraph<'_, '_> {
    fn callers(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        let v = self.view;
        let Some(target) = v.by_id(&id.0) else {
            return Ok(Vec::new());
        };
        if let Some(e) = self.callers.borrow().get(&target) {
            return Ok(e.clone());
        }
        let name = v.name(target).to_string();
        let mut out: Vec<Edge> = Vec::new();
        for m in v.calling(&name) {
            // The first call of the name in the method's body (a nested class's too) that
            // resolves to the target.
            for site in &v.sites_named(m, &name) {
                let found = self
                    .resolve(m, site)
                    .into_iter()
                    .find(|(to, _)| *to == target);
                if let Some((_, confidence)) = found {
                    out.push(self.edge(m, target, site, confidence));
                    break;
                }
            }
        }
        out.sort_by(|a, b| {
            b.confidence
                .total_cmp(&a.confidence)
                .then_with(|| (&a.path, a.line).cmp(&(&b.path, b.line)))
        });
        self.callers.borrow_mut().insert(target, out.clone());
        Ok(out)
    }

    fn callees(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        match self.view.by_id(&id.0) {
            Some(i) => self.callees_of(i),
            None => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_types_from_declarations() {
        assert_eq!(
            field_decl_type(
                "private final Map<String,Foo> cache = new HashMap<>();",
                "cache"
            )
            .as_deref(),
            Some("Map")
        );
        assert_eq!(
            field_decl_type("java.io.File[] dirs;", "dirs").as_deref(),
            Some("File")
        );
        assert!(qualifier_is_direct("FileUtils", false));
        assert!(!qualifier_is_direct("file", false));
        assert!(!qualifier_is_direct("URL", false));
    }

    #[test]
    fn argument_types_from_locals_and_literals() {
        let locals = vec![("in".to_string(), "InputStream".to_string())];
        assert_eq!(arg_type("in", &locals).as_deref(), Some("InputStream"));
        assert_eq!(arg_type("\"x\"", &locals).as_deref(), Some("String"));
        assert_eq!(
            arg_type("new StringBuilderWriter()", &locals).as_deref(),
            Some("StringBuilderWriter")
        );
        assert!(assignable("FileInputStream", "InputStream"));
    }
}
