//! Per-file facts: what one parse of a file says about types, members and uses, before anything
//! is resolved across files. Plain data; extracted once per changed file (`lang/`), stored per
//! file, and read back by [`crate::graph::resolve`] whenever any file of the repository changes.
//!
//! Names are kept as written (`Map.Entry`, `java.util.List`): resolving them needs the whole
//! repository, which only the resolver has. Locals are the exception: scoping is lexical, so the
//! extractor binds every local name to its declaration ([`Expr::Var`]).

use serde::{Deserialize, Serialize};

/// Everything the graph needs from one file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FileFacts {
    /// Java declarations and call sites.
    #[serde(default)]
    pub java: Option<JavaFacts>,
    /// A MyBatis mapper XML file.
    #[serde(default)]
    pub mapper: Option<MapperFacts>,
    /// Keys defined by a Spring configuration file (`application.yml`, `*.properties`).
    #[serde(default)]
    pub config: Vec<ConfigKey>,
    /// The facts of a language of the registry other than Java, in that language's own
    /// encoding: only its folder under `lang/` reads them ([`crate::lang::Spec::resolve`]).
    #[serde(default)]
    pub lang: Option<LangFacts>,
}

/// One language's facts about a file, opaque to everything but that language.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LangFacts {
    /// The language's name ([`crate::model::Language::as_str`]).
    pub language: String,
    pub bytes: Vec<u8>,
}

impl FileFacts {
    pub fn is_empty(&self) -> bool {
        self.java.is_none()
            && self.mapper.is_none()
            && self.config.is_empty()
            && self.lang.is_none()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JavaFacts {
    pub package: String,
    pub imports: Vec<Import>,
    /// Declared types in source order (named, local and anonymous).
    pub types: Vec<TypeDecl>,
    /// Local variables and parameters referenced by [`Expr::Var`].
    pub locals: Vec<Local>,
    /// Call sites in source order of their name token.
    pub calls: Vec<Call>,
    /// Plain assignments (`x = v`) whose value may be a constant (a name, a field access or a
    /// call on one), in source order: how a field is set to `Status.PAID`.
    #[serde(default)]
    pub assigns: Vec<Assign>,
    /// Names and field accesses in code that may read a field or constant, in source order;
    /// one per distinct expression text per caller and type (the first).
    #[serde(default)]
    pub reads: Vec<Read>,
}

/// A name or field access read in code (not the target of a plain `=`): `FOO`, `Type.FOO`,
/// `this.foo`, `a.b.c` (which also reads `a` and `a.b`: only the longest access is recorded).
/// The resolver keeps those that name a project field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Read {
    /// [`Expr::Name`] or [`Expr::Field`].
    pub expr: Expr,
    /// A bare name in a `case` label: the switch's selector. The name is then the constant of
    /// the selector's type (an enum), else the name in scope.
    #[serde(default)]
    pub selector: Option<Expr>,
    pub caller: Caller,
    /// Innermost lexically enclosing type (what `this` means).
    pub ctx: u32,
    /// Line of the name (of a field access: of its last name).
    pub line: u32,
}

/// `target = value` in code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assign {
    pub target: Expr,
    pub value: Expr,
    pub caller: Caller,
    /// Innermost lexically enclosing type (what `this` means).
    pub ctx: u32,
    /// Line of the `=`.
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// Dotted path without `static` and `.*`.
    pub path: String,
    pub is_static: bool,
    pub on_demand: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

/// A type as written: `Map.Entry<K, List<V>>[]` is `{name: "Map.Entry", args: [K, List<V>], dims: 1}`.
/// Primitives are names (`int`); `var` is the name `var`; a wildcard is `?` with its bound as the
/// one argument.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeRef {
    pub name: String,
    #[serde(default)]
    pub args: Vec<TypeRef>,
    #[serde(default)]
    pub dims: u8,
}

impl TypeRef {
    pub fn named(name: impl Into<String>) -> TypeRef {
        TypeRef {
            name: name.into(),
            args: Vec::new(),
            dims: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeDecl {
    /// The symbol's qualified name (`pkg.Outer.Inner`, anonymous `pkg.Outer.1`).
    pub qname: String,
    /// The symbol id (`java:pkg.Outer.Inner`).
    pub id: String,
    /// Simple name; digits for anonymous classes.
    pub name: String,
    pub kind: TypeKind,
    /// Lexically enclosing type (index into [`JavaFacts::types`]).
    pub outer: Option<u32>,
    /// Declared inside a method or initializer (local and anonymous classes).
    pub local: bool,
    pub anonymous: bool,
    pub is_static: bool,
    pub is_abstract: bool,
    pub type_params: Vec<String>,
    /// The first bound of each type parameter (`T extends Appendable`), same order.
    #[serde(default)]
    pub type_bounds: Vec<Option<TypeRef>>,
    /// `extends` of a class (at most one), or the created type of an anonymous class.
    pub superclass: Option<TypeRef>,
    /// `implements` of a class, `extends` of an interface.
    pub interfaces: Vec<TypeRef>,
    pub annotations: Vec<Annotation>,
    pub fields: Vec<FieldDecl>,
    pub methods: Vec<MethodDecl>,
    /// Line of the name token.
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldDecl {
    pub name: String,
    /// Symbol id (`java:pkg.Type#name`).
    pub id: String,
    pub ty: TypeRef,
    pub is_static: bool,
    /// An enum constant.
    pub constant: bool,
    pub annotations: Vec<Annotation>,
    /// The initializer when it is a constant expression worth knowing (string literals and
    /// references to other constants, concatenations of them).
    pub value: Option<Expr>,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodDecl {
    pub name: String,
    /// Symbol id (`java:pkg.Type#name(int,String)`, constructors `#<init>(..)`).
    pub id: String,
    /// Parameters: their local index ([`JavaFacts::locals`]) carries name and type.
    pub params: Vec<u32>,
    pub varargs: bool,
    /// Return type; `None` for constructors.
    pub ret: Option<TypeRef>,
    pub type_params: Vec<String>,
    #[serde(default)]
    pub type_bounds: Vec<Option<TypeRef>>,
    pub is_static: bool,
    pub is_abstract: bool,
    pub is_ctor: bool,
    pub annotations: Vec<Annotation>,
    pub line: u32,
}

/// An annotation with its arguments (`value` for the single unnamed one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    /// As written, without `@` (`RequestMapping`, `org.x.Y`).
    pub name: String,
    pub args: Vec<(String, AnnValue)>,
    pub line: u32,
}

impl Annotation {
    /// Simple name (`org.x.Y` → `Y`).
    pub fn simple(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }
    pub fn arg(&self, key: &str) -> Option<&AnnValue> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AnnValue {
    /// An expression: literals, constants, `X.class`, enum constants (`RequestMethod.POST`).
    Expr(Expr),
    Array(Vec<AnnValue>),
    Nested(Annotation),
}

/// A local variable, parameter, catch or pattern variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Local {
    pub name: String,
    /// Declared type; `None` for `var` and untyped lambda parameters.
    pub ty: Option<TypeRef>,
    /// For `var`: the initializer, or (`for (var x : e)`) the iterated expression.
    pub init: Option<Box<Expr>>,
    /// `init` is iterated (`for (x : init)`): the type is its element type.
    pub each: bool,
    pub annotations: Vec<Annotation>,
    /// An untyped lambda parameter: where its type comes from.
    #[serde(default)]
    pub lambda: Option<LambdaParam>,
}

/// Where an untyped lambda parameter gets its type: the functional interface the lambda is
/// converted to, known from a declaration or from the parameter of the method it is passed to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum LambdaParam {
    /// `Comparator<File> c = (a, b) -> ..`: parameter `param` of the declared type's method.
    Decl { ty: Box<TypeRef>, param: u8 },
    /// `list.forEach(f -> ..)`: parameter `param` of the lambda passed as argument `arg` of
    /// call `call`.
    Arg { call: u32, arg: u8, param: u8 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallKind {
    /// `recv.name(args)` or `name(args)`.
    Method,
    /// `new Type(args)`, with or without a class body.
    New,
    /// `super(args)` in a constructor.
    SuperCtor,
    /// `this(args)` in a constructor.
    ThisCtor,
    /// `recv::name`, `Type::new`.
    MethodRef,
}

/// Who a call is attributed to: a method or constructor, or a type (field initializers and
/// initializer blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Caller {
    /// `types[t].methods[m]`.
    Method(u32, u32),
    /// Initializer code of `types[t]`: field initializers and initializer blocks, static
    /// (`<clinit>`) or instance (run by every constructor). Lambdas and anonymous classes in an
    /// initializer belong to it too.
    Init(u32, bool),
}

impl Caller {
    /// The initializer caller for code of `ty` in a static or instance context; other callers
    /// (the method holding an anonymous class) stay as they are.
    pub fn in_init(self, ty: u32, is_static: bool) -> Caller {
        match self {
            Caller::Init(t, _) if t == ty => Caller::Init(t, is_static),
            other => other,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub kind: CallKind,
    /// Method name; the type's simple name for `new`; `new` for `Type::new`.
    pub name: String,
    /// The qualifier: `recv.name(..)`, the object of a method reference, the outer instance of
    /// `outer.new Inner()`.
    pub recv: Option<Expr>,
    /// `new` and `Type::new`: the type created.
    pub ty: Option<Box<TypeRef>>,
    pub args: Vec<Expr>,
    pub caller: Caller,
    /// Innermost lexically enclosing type, anonymous classes included (what `this` means).
    pub ctx: u32,
    /// In a static context (static method, static initializer, static field).
    pub is_static_ctx: bool,
    /// Line of the name token (`new` for creations, `super`/`this` for constructor calls).
    pub line: u32,
    /// `new X() { .. }`: the anonymous class created (index into types).
    pub anon: Option<u32>,
    /// What the call's value is part of where it stands.
    #[serde(default)]
    pub role: CallRole,
}

/// Where a call's value goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallRole {
    /// A statement of its own, a declaration's value, a condition, a receiver.
    #[default]
    Other,
    /// The value of a `return` statement: the method hands its work on to it.
    Returned,
    /// (Part of) an argument of another call or creation in the same expression.
    Argument,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lit {
    Int,
    Long,
    Float,
    Double,
    Char,
    Bool,
    Null,
}

/// An expression, as far as typing it needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Unknown,
    Lit(Lit),
    /// A string literal (text blocks included), unescaped.
    Str(String),
    /// Local variable or parameter (index into [`JavaFacts::locals`]).
    Var(u32),
    /// A simple name that is not a local: a field, a type or the start of a package.
    Name(String),
    /// `qualifier.name`.
    Field(Box<Expr>, String),
    /// The value of call `n` of this file.
    Call(u32),
    /// `new T(..)`, and the creation's call (its arguments are there).
    New(Box<TypeRef>, u32),
    /// `new T[..]` / `{..}`: `T` carries the dimensions.
    NewArray(Box<TypeRef>),
    This,
    /// `Outer.this`.
    QualThis(String),
    Super,
    Cast(Box<TypeRef>),
    /// `a[i]`.
    Index(Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>),
    /// `a + b`: a string when either side is, else numeric promotion.
    Plus(Box<Expr>, Box<Expr>),
    /// Other arithmetic: numeric promotion of the two sides.
    Arith(Box<Expr>, Box<Expr>),
    /// Comparisons, `!`, `&&`, `instanceof`.
    Bool,
    /// `T.class`.
    ClassLit(Box<TypeRef>),
    /// `x = v`, `x += v`: the type of `x`.
    Assign(Box<Expr>),
    Lambda(u8),
    MethodRef,
    /// `switch` expressions and anything deeper than the extractor follows.
    Opaque,
}

/// A MyBatis mapper XML: statements by id, with the tables their SQL names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MapperFacts {
    pub namespace: String,
    pub statements: Vec<SqlStatement>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SqlStatement {
    pub id: String,
    /// `select`, `insert`, `update`, `delete`.
    pub op: String,
    pub line: u32,
    /// Tables with the line each is first named on.
    pub tables: Vec<(String, u32)>,
}

/// One key defined in a configuration file (`spring.rabbitmq.host`), flattened from YAML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigKey {
    pub key: String,
    pub value: String,
    pub line: u32,
}

impl FileFacts {
    /// Compact binary form for the store: bincode, LZ4-compressed (names repeat a lot). The
    /// format follows the catalog's schema version.
    pub fn encode(&self) -> Vec<u8> {
        lz4_flex::compress_prepend_size(&bincode::serialize(self).unwrap_or_default())
    }

    /// `None` when `bytes` are not facts of this version (the file is then left out).
    pub fn decode(bytes: &[u8]) -> Option<FileFacts> {
        let raw = lz4_flex::decompress_size_prepended(bytes).ok()?;
        bincode::deserialize(&raw).ok()
    }
}
