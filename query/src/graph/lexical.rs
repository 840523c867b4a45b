//! A call graph read from the snapshot's text, for when no stored graph exists.
//!
//! Callees: the call sites of a method body ([`callsite`]) resolved by name, then narrowed by the
//! qualifier (same type for `foo()`/`this.foo()`, the named type for `Type.foo()`, the declared
//! type of a local, parameter or field for `var.foo()`), by argument count and, among overloads,
//! by the declared types of simple arguments. Callers: the files whose full-text entry holds the
//! name, each enclosing method's callees checked for the target. Name-only guesses carry a low
//! confidence.

use super::callsite::{self, CallSite};
use super::{CallGraph, Edge, EdgeKind};
use crate::QueryError;
use crate::view::{SnapshotView, SymIdx, param_types};
use indexer::model::{SymbolId, SymbolKind};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

/// How many full-text hits a callers lookup reads at most.
const CALLER_SEARCH_LIMIT: usize = 2000;

pub struct LexicalGraph<'v, 'a> {
    view: &'v SnapshotView<'a>,
    callees: RefCell<HashMap<SymIdx, Vec<Edge>>>,
}

impl<'v, 'a> LexicalGraph<'v, 'a> {
    pub fn new(view: &'v SnapshotView<'a>) -> LexicalGraph<'v, 'a> {
        LexicalGraph {
            view,
            callees: RefCell::new(HashMap::new()),
        }
    }

    fn callees_of(&self, i: SymIdx) -> Result<Vec<Edge>, QueryError> {
        if let Some(e) = self.callees.borrow().get(&i) {
            return Ok(e.clone());
        }
        let v = self.view;
        let s = v.sym(i);
        let mut edges = Vec::new();
        if s.symbol.kind.is_callable() {
            let body = v.text(&s.path, s.symbol.start_line, s.symbol.end_line)?;
            let sites = callsite::call_sites(&body, s.symbol.start_line, Some(&s.symbol.name));
            let locals = callsite::local_types(&body);
            for site in &sites {
                for (to, confidence) in self.resolve(i, site, &locals) {
                    edges.push(Edge {
                        from: s.symbol.id.clone(),
                        to: v.sym(to).symbol.id.clone(),
                        kind: if site.constructor {
                            EdgeKind::New
                        } else {
                            EdgeKind::Call
                        },
                        path: s.path.clone(),
                        line: site.line,
                        confidence,
                    });
                }
            }
        }
        self.callees.borrow_mut().insert(i, edges.clone());
        Ok(edges)
    }

    /// Candidate callees of one call site with a confidence each.
    fn resolve(
        &self,
        from: SymIdx,
        site: &CallSite,
        locals: &[(String, String)],
    ) -> Vec<(SymIdx, f32)> {
        let v = self.view;
        let from_sym = v.sym(from);
        let owner = v.owner_type(from);
        let owner_name = owner.map(|o| v.sym(o).symbol.name.clone());
        let mut cands: Vec<SymIdx> = if site.constructor {
            let ctors: Vec<SymIdx> = v
                .named(&site.name)
                .iter()
                .copied()
                .filter(|&c| v.sym(c).symbol.kind == SymbolKind::Constructor)
                .collect();
            if ctors.is_empty() {
                v.named(&site.name)
                    .iter()
                    .copied()
                    .filter(|&c| v.sym(c).symbol.kind.is_type())
                    .collect()
            } else {
                ctors
            }
        } else {
            v.named(&site.name)
                .iter()
                .copied()
                .filter(|&c| v.sym(c).symbol.kind.is_callable())
                .collect()
        };
        // Case-insensitive name lookup; calls are case-sensitive.
        cands.retain(|&c| v.sym(c).symbol.name == site.name);
        if cands.is_empty() {
            return Vec::new();
        }
        let owned_by = |c: SymIdx, ty: &str| v.owner_name(c) == Some(ty);
        let mut confidence;
        let narrowed: Vec<SymIdx> = match site.qualifier.as_deref() {
            _ if site.constructor => {
                confidence = 1.0;
                cands.clone()
            }
            None | Some("this") => {
                confidence = 1.0;
                let same_owner: Vec<SymIdx> = cands
                    .iter()
                    .copied()
                    .filter(|&c| owner.is_some() && v.owner_type(c) == owner)
                    .collect();
                if !same_owner.is_empty() {
                    same_owner
                } else {
                    let same_file: Vec<SymIdx> = cands
                        .iter()
                        .copied()
                        .filter(|&c| v.sym(c).path == from_sym.path)
                        .collect();
                    if !same_file.is_empty() {
                        same_file
                    } else {
                        // Inherited or statically imported.
                        confidence = 0.5;
                        cands.clone()
                    }
                }
            }
            Some("super") => {
                confidence = 0.6;
                cands
                    .iter()
                    .copied()
                    .filter(|&c| v.owner_type(c) != owner)
                    .collect()
            }
            Some(q) if q.starts_with(char::is_uppercase) && q.chars().any(char::is_lowercase) => {
                confidence = 1.0;
                let named: Vec<SymIdx> =
                    cands.iter().copied().filter(|&c| owned_by(c, q)).collect();
                if named.is_empty() {
                    confidence = 0.3;
                    cands.clone()
                } else {
                    named
                }
            }
            Some(q) => {
                let declared = locals
                    .iter()
                    .find(|(n, _)| n == q)
                    .map(|(_, t)| t.clone())
                    .or_else(|| self.field_type(from, q));
                match declared {
                    Some(t) => {
                        let named: Vec<SymIdx> =
                            cands.iter().copied().filter(|&c| owned_by(c, &t)).collect();
                        if named.is_empty() {
                            // A supertype we cannot see, or a library type: name-only guess.
                            confidence = 0.3;
                            if t.starts_with(char::is_uppercase)
                                && owner_name.as_deref() != Some(t.as_str())
                            {
                                cands.clone()
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
                        cands.clone()
                    }
                }
            }
        };
        if narrowed.is_empty() {
            return Vec::new();
        }
        // Distinct owner types among name-only guesses: too many means we know nothing.
        let owners: BTreeSet<Option<SymIdx>> = narrowed.iter().map(|&c| v.owner_type(c)).collect();
        if confidence < 0.9 && owners.len() > 3 {
            return Vec::new();
        }
        // Argument count.
        let arity_ok = |c: SymIdx| {
            let types = param_types(&v.sym(c).symbol.signature);
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
                let types = param_types(&v.sym(c).symbol.signature);
                let mut s = 0;
                for (k, arg) in site.args.iter().enumerate() {
                    let Some(pt) = types.get(k).or(types.last()) else {
                        break;
                    };
                    let pt = pt.trim_end_matches("...");
                    if let Some(at) = arg_type(arg, locals) {
                        if at == pt {
                            s += 2;
                        } else if assignable(&at, pt) {
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

    /// Declared type of a field `name` of the type owning `from` (`private final Foo name;`).
    fn field_type(&self, from: SymIdx, name: &str) -> Option<String> {
        let v = self.view;
        let owner = v.owner_type(from)?;
        for m in v.members(owner) {
            let s = &v.sym(m).symbol;
            if s.kind == SymbolKind::Field && s.name == name {
                let head = s.signature.split('=').next().unwrap_or(&s.signature);
                let words: Vec<&str> = head.split_whitespace().collect();
                let pos = words
                    .iter()
                    .position(|w| w.trim_end_matches([';', ',']) == name)?;
                let ty = words.get(pos.checked_sub(1)?)?;
                let base = ty.split('<').next().unwrap_or(ty).trim_end_matches("[]");
                return Some(base.rsplit('.').next().unwrap_or(base).to_string());
            }
        }
        None
    }
}

/// The declared type of a simple argument (`in` → `InputStream`), a `new T(..)`, or a literal.
fn arg_type(arg: &str, locals: &[(String, String)]) -> Option<String> {
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
        let name = v.sym(target).symbol.name.clone();
        let mut paths: Vec<String> = Vec::new();
        for (_, path, _) in v.index.search_chunks(&name, CALLER_SEARCH_LIMIT)? {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        paths.sort();
        let mut out = Vec::new();
        for path in paths {
            let lines = v.file_lines(&path)?;
            let mut methods: Vec<SymIdx> = Vec::new();
            for (k, l) in lines.iter().enumerate() {
                if !contains_call(l, &name) {
                    continue;
                }
                if let Some(m) = v.enclosing(&path, k as u32 + 1, |k| k.is_callable())
                    && !methods.contains(&m)
                {
                    methods.push(m);
                }
            }
            for m in methods {
                for e in self.callees_of(m)? {
                    if e.to == *id && !out.iter().any(|o: &Edge| o.from == e.from) {
                        out.push(e);
                    }
                }
            }
        }
        out.sort_by(|a, b| {
            b.confidence
                .total_cmp(&a.confidence)
                .then_with(|| (&a.path, a.line).cmp(&(&b.path, b.line)))
        });
        Ok(out)
    }

    fn callees(&self, id: &SymbolId) -> Result<Vec<Edge>, QueryError> {
        match self.view.by_id(&id.0) {
            Some(i) => self.callees_of(i),
            None => Ok(Vec::new()),
        }
    }
}

/// Whether a line holds `name` as a whole word followed by `(` (a call or a declaration).
fn contains_call(line: &str, name: &str) -> bool {
    let b = line.as_bytes();
    let mut from = 0;
    while let Some(p) = line[from..].find(name) {
        let s = from + p;
        let e = s + name.len();
        let before_ok =
            s == 0 || !(b[s - 1].is_ascii_alphanumeric() || b[s - 1] == b'_' || b[s - 1] == b'$');
        let rest = line[e..].trim_start();
        if before_ok && rest.starts_with('(') {
            return true;
        }
        from = e;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_detection_needs_a_whole_word_and_a_paren() {
        assert!(contains_call("  return getBOM() != null;", "getBOM"));
        assert!(!contains_call("  getBOMCharsetName();", "getBOM"));
        assert!(!contains_call("  x.getBOM;", "getBOM"));
        assert!(contains_call("new Foo (a)", "Foo"));
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
