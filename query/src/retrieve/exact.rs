//! Exact hits: the symbols an identifier of the question names, narrowed by what is written
//! around it (a qualifier that is a type or a variable named after one, the types the question
//! names), and which of them go above everything.

use super::*;

impl Retriever<'_, '_> {
    /// Symbols an identifier of the question names: the exact (case-sensitive) simple name,
    /// narrowed by the qualifier. A type's constructors stand in for it only when the question
    /// writes a call (`new Foo(` or `Foo(`); fields only when nothing else has the name.
    ///
    /// A qualifier that is an indexed type without such a member (a method being added, an
    /// inherited one) names that type. A bare name that methods of many types share (`read`,
    /// `toString`) is narrowed to the members of the types the question names, and is no exact
    /// hit when none of them has it: the question is not about every `read`. Callers, callees and
    /// impact questions keep a name shared by up to [`SHARED_NAME_OWNERS`] types.
    pub fn exact(&self, q: &Question) -> Vec<SymIdx> {
        let v = self.view;
        let exact_named = |name: &str| -> Vec<SymIdx> {
            v.named(name)
                .into_iter()
                .filter(|&i| v.name(i) == name)
                .collect()
        };
        // Types the question names by their simple name.
        let named_types: Vec<SymIdx> = q
            .identifiers
            .iter()
            .filter(|id| id.qualifier.is_none())
            .flat_map(|id| exact_named(&id.name))
            .filter(|&i| v.kind(i).is_type())
            .collect();
        let mut out = Vec::new();
        // A line of the asker's code is where a flow starts or whose callers are wanted; a
        // question about what happens inside it is answered elsewhere.
        let context_only = matches!(q.intent, Intent::Locate | Intent::Config);
        for ident in &q.identifiers {
            if ident.snippet && context_only {
                continue;
            }
            let called = q.text.contains(&format!("{}(", ident.name));
            let named: Vec<SymIdx> = exact_named(&ident.name);
            let has_type = named.iter().any(|&i| v.kind(i).is_type());
            let mut found: Vec<SymIdx> = named
                .iter()
                .copied()
                .filter(|&i| !(has_type && !called && v.kind(i) == SymbolKind::Constructor))
                .filter(|&i| match &ident.qualifier {
                    None => true,
                    Some(qual) => {
                        let last = qual.rsplit('.').next().unwrap_or(qual);
                        if v.owner_name(i) == Some(last) {
                            return true;
                        }
                        let qn = &v.sym(i).symbol.qualified_name;
                        let name = v.name(i);
                        *qn == format!("{qual}.{name}") || qn.ends_with(&format!(".{qual}.{name}"))
                    }
                })
                .collect();
            match &ident.qualifier {
                Some(qual) if found.is_empty() => {
                    let last = qual.rsplit('.').next().unwrap_or(qual);
                    let types: Vec<SymIdx> = exact_named(last)
                        .into_iter()
                        .filter(|&i| v.kind(i).is_type())
                        .collect();
                    // `ByteBuf.release`: a member the named type inherits is the one asked
                    // about, not the type. Not inside a message the asker quotes ("LEAK:
                    // ByteBuf.release() was not called"): that asks who prints it.
                    let asked = !in_quotes_only(&q.text, &ident.text);
                    let inherited: Vec<SymIdx> = types
                        .iter()
                        .filter(|_| asked)
                        .flat_map(|&t| crate::graph::hierarchy::ancestors(v, t).into_iter().skip(1))
                        .flat_map(|a| v.members(a))
                        .filter(|&m| v.name(m) == ident.name)
                        .collect();
                    found = if !inherited.is_empty() {
                        inherited
                    } else if types.is_empty() {
                        // A library type the index does not hold (`HttpServletRequest`): the
                        // indexed types that implement or extend it declare the member asked
                        // about.
                        let implementing: Vec<SymIdx> = named
                            .iter()
                            .copied()
                            .filter(|&i| {
                                v.owner_type(i).is_some_and(|o| {
                                    v.sym(o).symbol.supertypes.iter().any(|s| s == last)
                                })
                            })
                            .collect();
                        // The qualifier may be a variable named after its type
                        // (`mapper.readValue` → `ObjectMapper.readValue`, `log.info` →
                        // `Logger.info`); else the name alone.
                        let typed: Vec<SymIdx> = named
                            .iter()
                            .copied()
                            .filter(|&i| v.owner_name(i).is_some_and(|o| names_its_type(last, o)))
                            .collect();
                        if !implementing.is_empty() {
                            implementing
                        } else if typed.is_empty() {
                            named.clone()
                        } else {
                            typed
                        }
                    } else {
                        types
                    };
                }
                None if !found.iter().any(|&i| v.kind(i).is_type()) => {
                    let owners: HashSet<Option<SymIdx>> =
                        found.iter().map(|&i| v.owner_type(i)).collect();
                    // Who calls a shared name means all of its declarations, unless the name
                    // is so common that the union would be noise.
                    let graph_question =
                        matches!(q.intent, Intent::Callers | Intent::Callees | Intent::Impact);
                    let limit = if graph_question {
                        SHARED_NAME_OWNERS
                    } else {
                        3
                    };
                    let of_named =
                        |i: &SymIdx| v.owner_type(*i).is_some_and(|o| named_types.contains(&o));
                    // "processIncludeDirective in the Parser class": the members of the types
                    // the question names, however few types share the name.
                    if owners.len() > limit || (graph_question && found.iter().any(of_named)) {
                        found.retain(of_named);
                    }
                }
                _ => {}
            }
            if found
                .iter()
                .any(|&i| !matches!(v.kind(i), SymbolKind::Field | SymbolKind::Constant))
            {
                found.retain(|&i| !matches!(v.kind(i), SymbolKind::Field | SymbolKind::Constant));
            }
            found.sort_by_key(|&i| {
                (
                    v.provenance_of(i) != Provenance::Source,
                    !v.kind(i).is_type(),
                    v.path(i),
                    v.span(i).0,
                )
            });
            for i in found {
                if !out.contains(&i) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// Exact hits that go above everything: named methods always; named types when the question
    /// asks for a definition, named fields when it asks for a definition or a setting, and both
    /// when it is little more than the name. Otherwise a type or a field is the context of the
    /// question ("we set maxFileSize to 50MB; where is it turned into bytes?"), not its answer.
    pub(super) fn protected(&self, q: &Question, exact: &[SymIdx]) -> Vec<SymIdx> {
        let v = self.view;
        let plain_words = q
            .terms
            .iter()
            .filter(|t| t.origin == TermOrigin::Word || t.origin == TermOrigin::Translation)
            .count();
        // A name the question writes that only tests declare (an example in the question, a
        // test fixture's getter) is not what it asks about, unless it asks about tests.
        exact
            .iter()
            .copied()
            .filter(|&i| {
                let asked = match v.kind(i) {
                    k if k.is_type() => q.intent == Intent::Definition,
                    SymbolKind::Field | SymbolKind::Constant => {
                        matches!(q.intent, Intent::Definition | Intent::Config)
                    }
                    _ => true,
                };
                asked || plain_words <= 1
            })
            .filter(|&i| match v.provenance_of(i) {
                Provenance::Test => q.wants_tests,
                Provenance::Example => q.wants_examples,
                _ => true,
            })
            .collect()
    }
}

/// Whether a variable name could stand for a value of type `owner`, as Java code names its
/// variables: the type's ending (`mapper`: `ObjectMapper`), the start of its last word (`log`:
/// `Logger`), its initials (`sb`: `StringBuilder`), or an abbreviation of its last word keeping
/// the first letter (`ctx`: `Context`, `req`: `HttpRequest`).
pub(crate) fn names_its_type(var: &str, owner: &str) -> bool {
    let var = var.to_lowercase();
    let lower = owner.to_lowercase();
    if var.len() >= 3 && lower.ends_with(&var) {
        return true;
    }
    let words = indexer::analyzer::split_identifier(owner);
    let initials: String = words.iter().filter_map(|w| w.chars().next()).collect();
    if words.len() >= 2 && var == initials {
        return true;
    }
    let Some(last) = words.last() else {
        return false;
    };
    if var.len() < 3 || var.len() >= last.len() || !last.starts_with(&var[..1]) {
        return false;
    }
    let mut rest = last.chars();
    last.starts_with(&var) || var.chars().all(|c| rest.any(|x| x == c))
}

/// Whether every place `needle` is written in `text` lies inside double quotes (straight or
/// curly): a message the asker saw, not a name they ask about.
fn in_quotes_only(text: &str, needle: &str) -> bool {
    let mut found = false;
    for (at, _) in text.match_indices(needle) {
        found = true;
        let before = &text[..at];
        let straight = before.matches('"').count() % 2 == 1;
        let curly = before.matches('\u{201c}').count() > before.matches('\u{201d}').count();
        if !(straight || curly) {
            return false;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::names_its_type;

    #[test]
    fn variables_name_their_types_the_way_java_code_does() {
        for (var, ty) in [
            ("mapper", "ObjectMapper"),
            ("log", "Logger"),
            ("logger", "Logger"),
            ("sb", "StringBuilder"),
            ("ctx", "ServletContext"),
            ("req", "HttpRequest"),
            ("conn", "Connection"),
        ] {
            assert!(names_its_type(var, ty), "{var} for {ty}");
        }
        for (var, ty) in [
            ("log", "Level"),
            ("in", "Logger"),
            ("map", "HashSet"),
            ("ctx", "Connection"),
            ("s", "String"),
        ] {
            assert!(!names_its_type(var, ty), "{var} is not a {ty}");
        }
    }

    #[test]
    fn a_name_inside_a_quoted_message_is_the_message() {
        let q = "Our logs show \"LEAK: ByteBuf.release() was not called\". Which code prints that?";
        assert!(super::in_quotes_only(q, "ByteBuf.release"));
        assert!(!super::in_quotes_only(
            "Who calls ByteBuf.release?",
            "ByteBuf.release"
        ));
        // Written once outside the quotes: asked about.
        assert!(!super::in_quotes_only(
            "Who calls ByteBuf.release, which logs \"ByteBuf.release failed\"?",
            "ByteBuf.release"
        ));
        assert!(super::in_quotes_only(
            "It says \u{201c}Foo.bar broke\u{201d}.",
            "Foo.bar"
        ));
        assert!(!super::in_quotes_only("nothing here", "Foo.bar"));
    }
}
