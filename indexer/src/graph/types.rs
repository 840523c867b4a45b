//! The repository's type table: every declared type (project and the JDK table) with resolved
//! supertypes, fields and methods; name resolution as javac does it for the common cases (type
//! parameters, member types of the enclosing and inherited types, single-type imports, the same
//! package, on-demand imports, `java.lang`); and the type edges (inherits, implements,
//! overrides).

mod edges;
mod names;
pub use edges::type_edges;

use crate::graph::facts::{Import, JavaFacts, TypeKind, TypeRef};
use crate::graph::jdk;
use crate::graph::{Declared, FileFacts};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

pub type TypeId = u32;

/// A resolved type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Unknown,
    /// `int`, `boolean`, `void`, …
    Prim(&'static str),
    Null,
    /// A type of the table with its type arguments (empty: raw or not generic).
    Class(TypeId, Vec<Ty>),
    /// A type outside the table, by qualified name when known (`org.slf4j.Logger`), else simple.
    Ext(Arc<str>),
    Array(Box<Ty>),
    /// A type variable not bound here.
    Var(Arc<str>),
    /// The type of a call's first argument (JDK table `$0`).
    Arg0,
}

impl Ty {
    pub fn is_known(&self) -> bool {
        !matches!(self, Ty::Unknown)
    }
}

const PRIMS: [&str; 9] = [
    "int", "long", "short", "byte", "char", "boolean", "float", "double", "void",
];

pub fn prim(name: &str) -> Option<&'static str> {
    PRIMS.iter().copied().find(|p| *p == name)
}

#[derive(Debug, Clone)]
pub struct MethodInfo {
    pub name: String,
    /// Symbol id (project) or `java:fqn#name` (JDK).
    pub id: String,
    pub params: Vec<Ty>,
    /// Number of parameters; `None` when any count is accepted (JDK table entries).
    pub arity: Option<u8>,
    pub varargs: bool,
    /// `None` for constructors.
    pub ret: Option<Ty>,
    pub tparams: Vec<String>,
    pub is_static: bool,
    pub is_abstract: bool,
    pub is_ctor: bool,
    pub line: u32,
    /// JDK table: parameter types of a lambda passed to this method (any argument).
    pub lambda: Vec<Ty>,
}

#[derive(Debug, Clone)]
pub struct FieldInfo {
    pub name: String,
    pub id: String,
    pub ty: Ty,
    pub is_static: bool,
    /// Index of the field in its declaration (project types).
    pub decl: Option<u32>,
}

/// Where a type comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `files[file].java.types[decl]`.
    Project {
        file: u32,
        decl: u32,
    },
    Jdk,
}

#[derive(Debug, Clone)]
pub struct TypeInfo {
    pub fqn: String,
    pub id: String,
    pub name: String,
    pub kind: TypeKind,
    pub origin: Origin,
    pub outer: Option<TypeId>,
    pub nested: Vec<TypeId>,
    pub params: Vec<String>,
    /// The bound of each type parameter (`Unknown` when it has none).
    pub bounds: Vec<Ty>,
    pub superclass: Option<Ty>,
    pub interfaces: Vec<Ty>,
    /// Sorted by name.
    pub methods: Vec<MethodInfo>,
    /// Sorted by name.
    pub fields: Vec<FieldInfo>,
    pub anonymous: bool,
    pub local: bool,
    pub is_abstract: bool,
    pub line: u32,
    /// A functional interface's single abstract method's parameter types.
    pub sam: Option<Vec<Ty>>,
}

impl TypeInfo {
    pub fn methods_named<'a>(&'a self, name: &str) -> &'a [MethodInfo] {
        let start = self.methods.partition_point(|m| m.name.as_str() < name);
        let end = start
            + self.methods[start..]
                .iter()
                .take_while(|m| m.name == name)
                .count();
        &self.methods[start..end]
    }

    pub fn field(&self, name: &str) -> Option<&FieldInfo> {
        let i = self.fields.partition_point(|f| f.name.as_str() < name);
        self.fields.get(i).filter(|f| f.name == name)
    }

    pub fn is_interface(&self) -> bool {
        matches!(self.kind, TypeKind::Interface | TypeKind::Annotation)
    }

    pub fn file(&self) -> Option<u32> {
        match self.origin {
            Origin::Project { file, .. } => Some(file),
            Origin::Jdk => None,
        }
    }
}

/// Import declarations of one file, ready for lookups.
#[derive(Debug, Default)]
pub struct FileCtx {
    pub package: String,
    /// Simple name → qualified name.
    pub single: HashMap<String, String>,
    pub on_demand: Vec<String>,
    /// `import static a.B.m;`: member name → type's qualified name.
    pub static_single: Vec<(String, String)>,
    /// `import static a.B.*;`: qualified type names.
    pub static_on_demand: Vec<String>,
}

impl FileCtx {
    pub fn new(package: &str, imports: &[Import]) -> FileCtx {
        let mut c = FileCtx {
            package: package.to_string(),
            ..FileCtx::default()
        };
        for i in imports {
            match (i.is_static, i.on_demand) {
                (false, false) => {
                    let simple = i.path.rsplit('.').next().unwrap_or(&i.path);
                    c.single.insert(simple.to_string(), i.path.clone());
                }
                (false, true) => c.on_demand.push(i.path.clone()),
                (true, false) => {
                    if let Some((ty, member)) = i.path.rsplit_once('.') {
                        c.static_single.push((member.to_string(), ty.to_string()));
                    }
                }
                (true, true) => c.static_on_demand.push(i.path.clone()),
            }
        }
        c
    }
}

pub struct TypeTable {
    pub types: Vec<TypeInfo>,
    pub by_fqn: HashMap<String, TypeId>,
    /// Package → simple name → top-level type.
    by_package: HashMap<String, HashMap<String, TypeId>>,
    /// Known package names (and their prefixes).
    packages: HashSet<String>,
    /// Per input file (same order): imports. Empty for non-Java files.
    pub files: Vec<FileCtx>,
    /// Per input file: the table id of each of its declared types.
    pub file_types: Vec<Vec<TypeId>>,
    lang: HashSet<&'static str>,
    /// Simple name → JDK type, for names in the JDK table that are unique.
    jdk_simple: HashMap<String, TypeId>,
    pub object: Option<TypeId>,
    pub string: Option<TypeId>,
    /// [`TypeTable::ancestry_of`], computed on first use (resolution threads share it).
    ancestry_cache: Vec<std::sync::OnceLock<Vec<Ty>>>,
}

/// The members of a project type, resolved.
struct Members {
    fields: Vec<FieldInfo>,
    methods: Vec<MethodInfo>,
    bounds: Vec<Ty>,
    sam: Option<Vec<Ty>>,
}

/// Where a name is being resolved: the file, the innermost lexically enclosing type, and the
/// type parameters of the enclosing method.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub file: u32,
    pub lex: Option<TypeId>,
    pub method_tparams: &'a [String],
}

impl TypeTable {
    /// The table of the `n` files whose declarations `decls` gives (file `i`'s, or `None`
    /// when it has none): read in three passes, so that declarations decoded on demand are
    /// never all in memory at once.
    pub fn build(n: usize, decls: &Declared<'_>) -> TypeTable {
        let jdk = jdk::table();
        let mut t = TypeTable {
            types: Vec::new(),
            by_fqn: HashMap::new(),
            by_package: HashMap::new(),
            packages: HashSet::new(),
            files: Vec::with_capacity(n),
            file_types: Vec::with_capacity(n),
            lang: jdk.lang.iter().map(|s| s.as_str()).collect(),
            jdk_simple: HashMap::new(),
            object: None,
            string: None,
            ancestry_cache: Vec::new(),
        };
        // Project types first: a repository that defines `java.lang.String` (the JDK's own
        // sources) shadows the table.
        in_order(n, decls, |fi, facts| {
            t.add_file_types(fi, facts.and_then(|f| f.java.as_ref()))
        });
        let jdk_ids = t.add_jdk_types(jdk);
        t.nest_jdk_types(&jdk_ids);
        t.object = t.by_fqn.get("java.lang.Object").copied();
        t.string = t.by_fqn.get("java.lang.String").copied();
        t.fill_jdk_members(jdk, &jdk_ids);
        // Supertypes of project types, then their members (in parallel: reads only).
        in_order(n, decls, |fi, facts| {
            if let Some(j) = facts.and_then(|f| f.java.as_ref()) {
                t.fill_supertypes(fi as u32, j);
            }
        });
        t.fill_project_members(n, decls);
        t.ancestry_cache = (0..t.types.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        t
    }

    /// File `fi`'s declared types (none without Java), with its imports.
    fn add_file_types(&mut self, fi: usize, java: Option<&JavaFacts>) {
        let Some(j) = java else {
            self.files.push(FileCtx::default());
            self.file_types.push(Vec::new());
            return;
        };
        self.files.push(FileCtx::new(&j.package, &j.imports));
        let mut ids = Vec::with_capacity(j.types.len());
        for (di, d) in j.types.iter().enumerate() {
            let id = self.types.len() as TypeId;
            let outer = d.outer.and_then(|o| ids.get(o as usize).copied());
            self.types.push(TypeInfo {
                fqn: d.qname.clone(),
                id: d.id.clone(),
                name: d.name.clone(),
                kind: d.kind,
                origin: Origin::Project {
                    file: fi as u32,
                    decl: di as u32,
                },
                outer,
                nested: Vec::new(),
                params: d.type_params.clone(),
                bounds: Vec::new(),
                superclass: None,
                interfaces: Vec::new(),
                methods: Vec::new(),
                fields: Vec::new(),
                anonymous: d.anonymous,
                local: d.local,
                is_abstract: d.is_abstract,
                line: d.line,
                sam: None,
            });
            if let Some(o) = outer
                && !d.local
            {
                self.types[o as usize].nested.push(id);
            }
            if !d.local {
                self.by_fqn.entry(d.qname.clone()).or_insert(id);
                if outer.is_none() {
                    self.by_package
                        .entry(j.package.clone())
                        .or_default()
                        .entry(d.name.clone())
                        .or_insert(id);
                }
            }
            ids.push(id);
        }
        self.file_types.push(ids);
        add_packages(&mut self.packages, &j.package);
    }

    /// The JDK table's types the repository does not define itself: (id, whether added).
    fn add_jdk_types(&mut self, jdk: &jdk::JdkTable) -> Vec<(TypeId, bool)> {
        let mut jdk_ids = Vec::with_capacity(jdk.types.len());
        for jt in &jdk.types {
            if let Some(&id) = self.by_fqn.get(&jt.fqn) {
                jdk_ids.push((id, false));
                continue;
            }
            let id = self.types.len() as TypeId;
            let name = jt.fqn.rsplit('.').next().unwrap_or(&jt.fqn).to_string();
            self.types.push(TypeInfo {
                fqn: jt.fqn.clone(),
                id: format!("java:{}", jt.fqn),
                name: name.clone(),
                kind: jt.kind,
                origin: Origin::Jdk,
                outer: None,
                nested: Vec::new(),
                params: jt.params.clone(),
                bounds: Vec::new(),
                superclass: None,
                interfaces: Vec::new(),
                methods: Vec::new(),
                fields: Vec::new(),
                anonymous: false,
                local: false,
                is_abstract: jt.kind == TypeKind::Interface,
                line: 0,
                sam: None,
            });
            self.by_fqn.insert(jt.fqn.clone(), id);
            jdk_ids.push((id, true));
            match self.jdk_simple.entry(name) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(id);
                }
                std::collections::hash_map::Entry::Occupied(mut o) => {
                    // Not unique: only the java.lang one may keep the simple name.
                    if jt.fqn.starts_with("java.lang.") && !jt.fqn[10..].contains('.') {
                        o.insert(id);
                    }
                }
            }
        }
        jdk_ids
    }

    /// Nesting and packages of the JDK types added.
    fn nest_jdk_types(&mut self, jdk_ids: &[(TypeId, bool)]) {
        for &(id, fresh) in jdk_ids {
            if !fresh {
                continue;
            }
            let fqn = self.types[id as usize].fqn.clone();
            let Some((prefix, simple)) = fqn.rsplit_once('.') else {
                continue;
            };
            if let Some(&o) = self.by_fqn.get(prefix) {
                self.types[id as usize].outer = Some(o);
                self.types[o as usize].nested.push(id);
            } else {
                add_packages(&mut self.packages, prefix);
                self.by_package
                    .entry(prefix.to_string())
                    .or_default()
                    .entry(simple.to_string())
                    .or_insert(id);
            }
        }
    }

    /// Members and supertypes of the JDK types added.
    fn fill_jdk_members(&mut self, jdk: &jdk::JdkTable, jdk_ids: &[(TypeId, bool)]) {
        for (jt, &(id, fresh)) in jdk.types.iter().zip(jdk_ids) {
            if !fresh {
                continue;
            }
            let resolve = |tr: &TypeRef| self.resolve_jdk(tr, id);
            let mut supers: Vec<Ty> = jt.supers.iter().map(resolve).collect();
            let mut methods: Vec<MethodInfo> = jt
                .methods
                .iter()
                .map(|m| MethodInfo {
                    name: m.name.clone(),
                    id: format!("java:{}#{}", jt.fqn, m.name),
                    params: Vec::new(),
                    arity: m.arity,
                    varargs: false,
                    ret: Some(resolve(&m.ret)),
                    tparams: Vec::new(),
                    is_static: m.is_static,
                    is_abstract: false,
                    is_ctor: false,
                    line: 0,
                    lambda: jt
                        .lambdas
                        .iter()
                        .find(|(n, _)| *n == m.name)
                        .map(|(_, ps)| ps.iter().map(resolve).collect())
                        .unwrap_or_default(),
                })
                .collect();
            // Methods that take lambdas but have no return type listed.
            for (n, ps) in &jt.lambdas {
                if !methods.iter().any(|m| m.name == *n) {
                    methods.push(MethodInfo {
                        name: n.clone(),
                        id: format!("java:{}#{n}", jt.fqn),
                        params: Vec::new(),
                        arity: None,
                        varargs: false,
                        ret: None,
                        tparams: Vec::new(),
                        is_static: false,
                        is_abstract: false,
                        is_ctor: false,
                        line: 0,
                        lambda: ps.iter().map(resolve).collect(),
                    });
                }
            }
            let sam = jt.sam.as_ref().map(|ps| ps.iter().map(resolve).collect());
            methods.sort_by(|a, b| a.name.cmp(&b.name));
            let mut fields: Vec<FieldInfo> = jt
                .fields
                .iter()
                .map(|(n, ty)| FieldInfo {
                    name: n.clone(),
                    id: format!("java:{}#{n}", jt.fqn),
                    ty: resolve(ty),
                    is_static: n.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                    decl: None,
                })
                .collect();
            fields.sort_by(|a, b| a.name.cmp(&b.name));
            let info = &mut self.types[id as usize];
            info.methods = methods;
            info.fields = fields;
            info.sam = sam;
            // A class's first supertype is its superclass when that is a class.
            if jt.kind != TypeKind::Interface && !supers.is_empty() {
                let first = supers.remove(0);
                let is_class = match &first {
                    Ty::Class(s, _) => !matches!(
                        jdk.types.iter().find(|x| x.fqn == self.types[*s as usize].fqn),
                        Some(x) if x.kind == TypeKind::Interface
                    ),
                    _ => true,
                };
                if is_class {
                    self.types[id as usize].superclass = Some(first);
                } else {
                    supers.insert(0, first);
                }
            }
            self.types[id as usize].interfaces = supers;
        }
    }

    /// Every project type's members, worked out file by file in parallel.
    fn fill_project_members(&mut self, n: usize, decls: &Declared<'_>) {
        let members: Vec<Vec<(TypeId, Members)>> = (0..n)
            .into_par_iter()
            .map(
                |fi| match decls(fi).as_deref().and_then(|f| f.java.as_ref()) {
                    Some(j) => self.file_members(fi as u32, j),
                    None => Vec::new(),
                },
            )
            .collect();
        for (id, m) in members.into_iter().flatten() {
            let info = &mut self.types[id as usize];
            info.fields = m.fields;
            info.methods = m.methods;
            info.bounds = m.bounds;
            info.sam = m.sam;
        }
    }

    /// `t` and all its supertypes as [`TypeTable::ancestry`] gives them for `t` with its own
    /// type variables as arguments (substitute a receiver's arguments for `t`'s parameters).
    pub fn ancestry_of(&self, t: TypeId) -> &[Ty] {
        let me = || {
            let info = &self.types[t as usize];
            Ty::Class(
                t,
                info.params
                    .iter()
                    .map(|p| Ty::Var(p.as_str().into()))
                    .collect(),
            )
        };
        match self.ancestry_cache.get(t as usize) {
            Some(cell) => cell.get_or_init(|| self.ancestry(&me())),
            None => &[],
        }
    }

    /// Resolves the supertypes of one file's types (members come later: looking up a member
    /// type may need supertypes of other types).
    fn fill_supertypes(&mut self, fi: u32, j: &JavaFacts) {
        for (di, d) in j.types.iter().enumerate() {
            let id = self.file_types[fi as usize][di];
            let scope = Scope {
                file: fi,
                lex: Some(id),
                method_tparams: &[],
            };
            // Supertypes are resolved where the declaration stands: its own member types are
            // not in scope there, its outer type's are.
            let outer_scope = Scope {
                lex: self.types[id as usize].outer,
                ..scope
            };
            let mut superclass = d
                .superclass
                .as_ref()
                .map(|s| self.resolve_ref(s, &outer_scope));
            let mut interfaces: Vec<Ty> = d
                .interfaces
                .iter()
                .map(|i| self.resolve_ref(i, &outer_scope))
                .collect();
            // An anonymous class "extends" an interface: it implements it.
            if d.anonymous
                && let Some(Ty::Class(s, _)) = &superclass
                && self.types[*s as usize].is_interface()
            {
                interfaces.push(superclass.take().unwrap_or(Ty::Unknown));
            }
            if d.kind == TypeKind::Interface {
                // Interfaces list their supertypes as `extends`: the extractor puts them in
                // `interfaces` already.
                superclass = None;
            }
            let info = &mut self.types[id as usize];
            info.superclass = superclass;
            info.interfaces = interfaces;
        }
    }

    /// Fields, methods, type parameter bounds and the functional method of one file's types.
    fn file_members(&self, fi: u32, j: &JavaFacts) -> Vec<(TypeId, Members)> {
        let mut out = Vec::with_capacity(j.types.len());
        for (di, d) in j.types.iter().enumerate() {
            let id = self.file_types[fi as usize][di];
            let scope = Scope {
                file: fi,
                lex: Some(id),
                method_tparams: &[],
            };
            let mut fields: Vec<FieldInfo> = d
                .fields
                .iter()
                .enumerate()
                .map(|(k, f)| FieldInfo {
                    name: f.name.clone(),
                    id: f.id.clone(),
                    ty: self.resolve_ref(&f.ty, &scope),
                    is_static: f.is_static,
                    decl: Some(k as u32),
                })
                .collect();
            fields.sort_by(|a, b| a.name.cmp(&b.name));
            let mut methods: Vec<MethodInfo> = d
                .methods
                .iter()
                .map(|m| {
                    let ms = Scope {
                        method_tparams: &m.type_params,
                        ..scope
                    };
                    let params: Vec<Ty> = m
                        .params
                        .iter()
                        .map(|&p| {
                            j.locals
                                .get(p as usize)
                                .and_then(|l| l.ty.as_ref())
                                .map(|tr| self.resolve_ref(tr, &ms))
                                .unwrap_or(Ty::Unknown)
                        })
                        .collect();
                    MethodInfo {
                        name: m.name.clone(),
                        id: m.id.clone(),
                        arity: Some(params.len() as u8),
                        params,
                        varargs: m.varargs,
                        ret: m.ret.as_ref().map(|r| self.resolve_ref(r, &ms)),
                        tparams: m.type_params.clone(),
                        is_static: m.is_static,
                        is_abstract: m.is_abstract,
                        is_ctor: m.is_ctor,
                        line: m.line,
                        lambda: Vec::new(),
                    }
                })
                .collect();
            if d.kind == TypeKind::Enum {
                // javac's implicit `values()` and `valueOf(String)`.
                let me = Ty::Class(id, Vec::new());
                for (name, params, ret) in [
                    ("values", Vec::new(), Ty::Array(Box::new(me.clone()))),
                    ("valueOf", vec![self.string_ty()], me.clone()),
                ] {
                    if d.methods.iter().any(|m| m.name == name) {
                        continue;
                    }
                    methods.push(MethodInfo {
                        name: name.to_string(),
                        id: format!(
                            "{}#{name}({})",
                            d.id,
                            if params.is_empty() { "" } else { "String" }
                        ),
                        arity: Some(params.len() as u8),
                        params,
                        varargs: false,
                        ret: Some(ret),
                        tparams: Vec::new(),
                        is_static: true,
                        is_abstract: false,
                        is_ctor: false,
                        line: d.line,
                        lambda: Vec::new(),
                    });
                }
            }
            methods.sort_by(|a, b| a.name.cmp(&b.name));
            let bounds: Vec<Ty> = d
                .type_bounds
                .iter()
                .map(|b| {
                    b.as_ref()
                        .map(|b| self.resolve_ref(b, &scope))
                        .unwrap_or(Ty::Unknown)
                })
                .collect();
            // A functional interface: exactly one abstract method (Object's excepted).
            let sam = if d.kind == TypeKind::Interface {
                let mut abstract_methods = methods
                    .iter()
                    .filter(|m| m.is_abstract && !m.is_static)
                    .filter(|m| !matches!(m.name.as_str(), "equals" | "hashCode" | "toString"));
                match (abstract_methods.next(), abstract_methods.next()) {
                    (Some(m), None) => Some(m.params.clone()),
                    _ => None,
                }
            } else {
                None
            };
            out.push((
                id,
                Members {
                    fields,
                    methods,
                    bounds,
                    sam,
                },
            ));
        }
        out
    }

    /// The direct supertypes of `ty`, with `ty`'s type arguments substituted into them.
    pub fn supertypes(&self, ty: &Ty) -> Vec<Ty> {
        let Ty::Class(id, args) = ty else {
            return Vec::new();
        };
        let info = &self.types[*id as usize];
        let mut out = Vec::new();
        for s in info.superclass.iter().chain(&info.interfaces) {
            out.push(subst(s, &info.params, args));
        }
        if out.is_empty()
            && let Some(o) = self.object
            && *id != o
        {
            out.push(Ty::Class(o, Vec::new()));
        }
        out
    }

    /// `ty` and all its supertypes, nearest first (breadth-first, each once), each with type
    /// arguments substituted. Ends with `Object`.
    pub fn ancestry(&self, ty: &Ty) -> Vec<Ty> {
        let mut out: Vec<Ty> = vec![ty.clone()];
        let mut seen: Vec<TypeId> = Vec::new();
        if let Ty::Class(id, _) = ty {
            seen.push(*id);
        }
        let mut i = 0;
        while i < out.len() && out.len() < 256 {
            for s in self.supertypes(&out[i]) {
                match &s {
                    Ty::Class(id, _) => {
                        if Some(*id) == self.object || seen.contains(id) {
                            continue;
                        }
                        seen.push(*id);
                        out.push(s);
                    }
                    Ty::Ext(_) if !out.contains(&s) => out.push(s),
                    _ => {}
                }
            }
            i += 1;
        }
        if let Some(o) = self.object
            && !matches!(ty, Ty::Class(id, _) if *id == o)
        {
            out.push(Ty::Class(o, Vec::new()));
        }
        out
    }

    /// Whether `sub` is `sup` or one of its subtypes (unknowns are not).
    pub fn is_subtype(&self, sub: TypeId, sup: TypeId) -> bool {
        if sub == sup || Some(sup) == self.object {
            return true;
        }
        self.ancestry_of(sub)
            .iter()
            .any(|t| matches!(t, Ty::Class(id, _) if *id == sup))
    }

    /// A type's display name (qualified).
    pub fn display(&self, ty: &Ty) -> String {
        match ty {
            Ty::Class(id, _) => self.types[*id as usize].fqn.clone(),
            Ty::Ext(n) => n.to_string(),
            Ty::Prim(p) => p.to_string(),
            Ty::Array(e) => format!("{}[]", self.display(e)),
            Ty::Var(v) => v.to_string(),
            Ty::Null => "null".into(),
            Ty::Unknown | Ty::Arg0 => "?".into(),
        }
    }
}

fn add_packages(set: &mut HashSet<String>, package: &str) {
    let mut p = package;
    while !p.is_empty() && set.insert(p.to_string()) {
        match p.rfind('.') {
            Some(i) => p = &p[..i],
            None => break,
        }
    }
}

fn wrap_dims(mut t: Ty, dims: u8) -> Ty {
    for _ in 0..dims {
        t = Ty::Array(Box::new(t));
    }
    t
}

/// Replaces the type variables `params` by `args` in `ty` (raw types: variables stay).
pub fn subst(ty: &Ty, params: &[String], args: &[Ty]) -> Ty {
    if params.is_empty() || args.is_empty() {
        return ty.clone();
    }
    match ty {
        Ty::Var(v) => match params.iter().position(|p| **p == **v) {
            Some(i) => args.get(i).cloned().unwrap_or(Ty::Unknown),
            None => ty.clone(),
        },
        Ty::Class(id, a) if !a.is_empty() => {
            Ty::Class(*id, a.iter().map(|x| subst(x, params, args)).collect())
        }
        Ty::Array(e) => Ty::Array(Box::new(subst(e, params, args))),
        _ => ty.clone(),
    }
}

/// Calls `f` with every file's declarations in file order. Declarations decoded on demand are
/// decoded a batch at a time on every thread, then handed on one by one.
fn in_order(n: usize, decls: &Declared<'_>, mut f: impl FnMut(usize, Option<&FileFacts>)) {
    const BATCH: usize = 512;
    for start in (0..n).step_by(BATCH) {
        let batch: Vec<_> = (start..n.min(start + BATCH))
            .into_par_iter()
            .map(decls)
            .collect();
        for (k, facts) in batch.iter().enumerate() {
            f(start + k, facts.as_deref());
        }
    }
}
