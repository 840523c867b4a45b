//! Lookups over one whole snapshot: symbols by id, edges by caller and callee and by module,
//! the module and provenance of a file, display names. Built once; every whole-repository view
//! ([`crate::flows`], docgen's sections) reads through it.

use super::whole::{FileInfo, Sym, Whole};
use crate::model::{Edge, EdgeKind, NodeId, Provenance, SymbolKind, callee_name_of};
// Every lookup here is keyed by a path or an id; a whole-repository page build does millions.
use rustc_hash::FxHashMap as HashMap;

pub struct Graph<'f> {
    whole: &'f Whole,
    /// `facts.files` by path, hashed (the ordered map is for iteration).
    files: HashMap<&'f str, &'f FileInfo>,
    by_id: HashMap<&'f str, usize>,
    /// Fields by their type's id and their name.
    fields: HashMap<(&'f str, &'f str), usize>,
    from: HashMap<&'f str, Vec<usize>>,
    to: HashMap<&'f str, Vec<usize>>,
    /// Source symbols by module, in path and line order.
    module_syms: HashMap<&'f str, Vec<usize>>,
    /// Edges by the module of their use site's file: production, generated or example code.
    module_edges: HashMap<&'f str, Vec<usize>>,
    /// Edges by the module of their callee's file, production or generated code.
    module_in: HashMap<&'f str, Vec<usize>>,
    /// Uses of a file's declarations from other source files, by file.
    inbound: HashMap<&'f str, usize>,
}

impl<'f> Graph<'f> {
    pub fn new(whole: &'f Whole) -> Graph<'f> {
        let files: HashMap<&str, &FileInfo> =
            whole.files.iter().map(|(p, f)| (p.as_str(), f)).collect();
        let mut by_id = HashMap::default();
        for (i, s) in whole.symbols.iter().enumerate() {
            // The first declaration of an id wins (ids repeat only for duplicate declarations).
            by_id.entry(s.symbol.id.0.as_str()).or_insert(i);
        }
        let mut fields = HashMap::default();
        for (i, s) in whole.symbols.iter().enumerate() {
            if let (SymbolKind::Field, Some(p)) = (s.symbol.kind, &s.symbol.parent) {
                fields
                    .entry((p.0.as_str(), s.symbol.name.as_str()))
                    .or_insert(i);
            }
        }
        let mut from: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut to: HashMap<&str, Vec<usize>> = HashMap::default();
        for (i, e) in whole.edges.iter().enumerate() {
            from.entry(e.caller.as_str()).or_default().push(i);
            if let Some(c) = &e.callee {
                to.entry(c.as_str()).or_default().push(i);
            }
        }
        let source_module = |path: &str| {
            files
                .get(path)
                .filter(|f| f.provenance == Provenance::Source)
                .map(|f| f.module.as_str())
        };
        let mut module_syms: HashMap<&str, Vec<usize>> = HashMap::default();
        for (i, s) in whole.symbols.iter().enumerate() {
            if let Some(m) = source_module(&s.path) {
                module_syms.entry(m).or_default().push(i);
            }
        }
        let mut module_edges: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut module_in: HashMap<&str, Vec<usize>> = HashMap::default();
        let mut inbound: HashMap<&str, usize> = HashMap::default();
        // Edges come ordered by use-site file: its module is looked up once per file.
        let mut caller_at: (&str, Option<&str>) = ("", None);
        for (i, e) in whole.edges.iter().enumerate() {
            if caller_at.0 != e.caller_file {
                caller_at = (e.caller_file.as_str(), source_module(&e.caller_file));
            }
            let caller_module = caller_at.1;
            if let Some(f) = e.callee_file.as_deref()
                && f != e.caller_file
                && caller_module.is_some()
            {
                *inbound.entry(f).or_default() += 1;
            }
            // Example programs use the product like any caller: their imports are module
            // dependencies too (tests are not).
            let user_module = caller_module.or_else(|| {
                files
                    .get(e.caller_file.as_str())
                    .filter(|f| matches!(f.provenance, Provenance::Generated | Provenance::Example))
                    .map(|f| f.module.as_str())
            });
            if let Some(m) = user_module {
                module_edges.entry(m).or_default().push(i);
            }
            let code_module = |path: &str| {
                files
                    .get(path)
                    .filter(|f| matches!(f.provenance, Provenance::Source | Provenance::Generated))
                    .map(|f| f.module.as_str())
            };
            if let Some(m) = e.callee_file.as_deref().and_then(code_module) {
                module_in.entry(m).or_default().push(i);
            }
        }
        Graph {
            whole,
            files,
            by_id,
            fields,
            from,
            to,
            module_syms,
            module_edges,
            module_in,
            inbound,
        }
    }

    /// The snapshot the graph is over.
    pub fn whole(&self) -> &'f Whole {
        self.whole
    }

    pub fn sym(&self, id: &str) -> Option<&'f Sym> {
        self.by_id.get(id).map(|&i| &self.whole.symbols[i])
    }

    /// The field `name` of the type `owner` (an id).
    pub fn field(&self, owner: &str, name: &str) -> Option<&'f Sym> {
        self.fields
            .get(&(owner, name))
            .map(|&i| &self.whole.symbols[i])
    }

    pub fn file(&self, path: &str) -> Option<&'f FileInfo> {
        self.files.get(path).copied()
    }

    /// Module of the file at `path`.
    pub fn module_of(&self, path: &str) -> Option<&'f str> {
        self.file(path).map(|f| f.module.as_str())
    }

    /// Whether a file is the module's own production code (not a test, generated, vendored or
    /// example file).
    pub fn is_source(&self, f: &FileInfo) -> bool {
        f.provenance == Provenance::Source
    }

    pub fn is_source_path(&self, path: &str) -> bool {
        self.file(path).is_some_and(|f| self.is_source(f))
    }

    /// Whether a file's uses of other modules are module dependencies: production, generated
    /// or example code (tests are not).
    pub fn is_user_path(&self, path: &str) -> bool {
        self.file(path).is_some_and(|f| {
            matches!(
                f.provenance,
                Provenance::Source | Provenance::Generated | Provenance::Example
            )
        })
    }

    /// Whether a file is code the product runs: production code or code generated for it (a
    /// MyBatis Generator module's mappers and models are used like any other module's).
    pub fn is_code_path(&self, path: &str) -> bool {
        self.file(path)
            .is_some_and(|f| matches!(f.provenance, Provenance::Source | Provenance::Generated))
    }

    /// Edges whose use site is in `caller`, in source order.
    pub fn edges_from(&self, caller: &str) -> impl Iterator<Item = &'f Edge> + '_ {
        self.from
            .get(caller)
            .into_iter()
            .flatten()
            .map(|&i| &self.whole.edges[i])
    }

    /// Edges pointing at `callee`.
    pub fn edges_to(&self, callee: &str) -> impl Iterator<Item = &'f Edge> + '_ {
        self.to
            .get(callee)
            .into_iter()
            .flatten()
            .map(|&i| &self.whole.edges[i])
    }

    /// Source symbols of a module, in path and line order.
    pub fn symbols_of<'a>(&'a self, module: &'a str) -> impl Iterator<Item = &'f Sym> + 'a {
        self.module_syms
            .get(module)
            .into_iter()
            .flatten()
            .map(|&i| &self.whole.symbols[i])
    }

    /// Edges whose use site is a source file of `module`.
    pub fn edges_in<'a>(&'a self, module: &'a str) -> impl Iterator<Item = &'f Edge> + 'a {
        self.module_edges
            .get(module)
            .into_iter()
            .flatten()
            .map(|&i| &self.whole.edges[i])
    }

    /// Edges whose callee is declared in a source file of `module`.
    pub fn edges_into<'a>(&'a self, module: &'a str) -> impl Iterator<Item = &'f Edge> + 'a {
        self.module_in
            .get(module)
            .into_iter()
            .flatten()
            .map(|&i| &self.whole.edges[i])
    }

    /// A short display name: `Type.method` for members, the simple name for types.
    pub fn short_name(&self, s: &Sym) -> String {
        let q = &s.symbol.qualified_name;
        if s.symbol.kind.is_type() {
            return s.symbol.name.clone();
        }
        let mut parts = q.rsplit('.');
        let member = parts.next().unwrap_or(q);
        match parts.next() {
            Some(owner) => format!("{owner}.{member}"),
            None => member.to_string(),
        }
    }

    /// The short display name of an edge endpoint id, whether a symbol or not.
    pub fn short_id(&self, id: &str) -> String {
        match self.sym(id) {
            Some(s) => self.short_name(s),
            None => {
                let n = callee_name_of(id, EdgeKind::Inherits);
                let mut parts = n.rsplit('.');
                match (parts.next(), parts.next()) {
                    (Some(m), Some(o)) if NodeId::parse(id).is_symbol() => format!("{o}.{m}"),
                    _ => n,
                }
            }
        }
    }

    /// How often other source files use what `path` declares.
    pub fn inbound(&self, path: &str) -> usize {
        self.inbound.get(path).copied().unwrap_or(0)
    }

    /// Whether a symbol is declared directly in its file (not inside a type or method).
    pub fn is_top_level(&self, s: &Sym) -> bool {
        match &s.symbol.parent {
            None => true,
            Some(p) => self
                .sym(&p.0)
                .is_none_or(|p| matches!(p.symbol.kind, SymbolKind::Package | SymbolKind::Module)),
        }
    }
}
