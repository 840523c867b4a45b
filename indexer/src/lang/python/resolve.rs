//! Python calls resolved across the repository: a name is looked up through the enclosing
//! functions (class bodies skipped, as Python does), then the module's definitions, imports and
//! assignments; a dotted chain follows modules (re-exports through `__init__` included),
//! classes and their bases, instances (`self`, `cls`, annotated parameters, `x = Foo()`,
//! `self.x = …` in any method, return annotations) and `super()`. Calling a class calls its
//! `__init__`. What cannot be followed is recorded by name only, below certainty.
//!
//! Framework edges, one child module per family, in the kinds and ids the Java side uses:
//! [`urls`] (Django URLconfs and DRF routers → `route:`), [`celery`] (senders → tasks),
//! [`signals`] (senders and models → receivers), [`models`] (models and queries →
//! `table:`), [`config`] (environment, pydantic-settings, Django settings → `config:`).

mod celery;
mod config;
mod implicit;
mod models;
mod signals;
mod urls;

use super::facts::{PyAccess, PyArg, PyAssign, PyCall, PyDef, PyFacts};
use crate::graph::{CallSite, Edge, EdgeKind, FileFacts};
use crate::model::{RepoPath, SymbolKind};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::RefCell;
use std::rc::Rc;

/// How deep a chain of bindings (`a = b`, re-exports, bases) is followed.
const MAX_DEPTH: u32 = 12;

/// Edges of every Python file, by index into `files`.
pub fn resolve(files: &[(&RepoPath, &FileFacts)]) -> Vec<Vec<Edge>> {
    let started = std::time::Instant::now();
    let py: Vec<Option<PyFacts>> = files.par_iter().map(|(_, f)| PyFacts::decode(f)).collect();
    if py.iter().all(Option::is_none) {
        return vec![Vec::new(); files.len()];
    }
    let shared = Shared::new(files, &py);
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "python: call sites known"
    );
    let r = Repo::over(&shared);
    let mounts = r.mounts();
    let receivers = r.receivers();
    let mut framework = r.url_routes();
    let tables = r.tables();
    let settings = r.setting_defs();
    for (fi, es) in r
        .model_signal_edges(&receivers)
        .into_iter()
        .chain(r.table_edges(&tables))
    {
        framework.entry(fi).or_default().extend(es);
    }
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "python: framework facts known"
    );
    let known = Known {
        mounts,
        receivers,
        tables,
        settings,
    };
    let parts: Vec<Vec<Vec<Edge>>> = slices(files.len())
        .into_par_iter()
        .map(|range| {
            let r = Repo::over(&shared);
            range.map(|fi| r.edges_of(fi, &known)).collect()
        })
        .collect();
    let mut out: Vec<Vec<Edge>> = parts.into_iter().flatten().collect();
    for (fi, es) in framework {
        out[fi].extend(es);
    }
    tracing::debug!(
        ms = started.elapsed().as_millis() as u64,
        "python: files resolved"
    );
    out
}

/// The framework facts every file's edges are read against.
struct Known {
    mounts: HashMap<(usize, String), Vec<String>>,
    receivers: signals::Receivers,
    tables: models::Tables,
    settings: config::SettingDefs,
}

/// How many files one worker resolves with one set of memos: fixed, so that the edges are the
/// same on any number of cores, and small enough for two cores to share the work evenly.
const SLICE: usize = 128;

/// `0..n` in consecutive slices of [`SLICE`] files.
fn slices(n: usize) -> Vec<std::ops::Range<usize>> {
    (0..n)
        .step_by(SLICE)
        .map(|start| start..(start + SLICE).min(n))
        .collect()
}

/// What a name or chain evaluates to.
#[derive(Debug, Clone, PartialEq)]
enum V {
    Module(String),
    Def(usize, u32),
    Instance(usize, u32),
    /// A name outside the repository (`requests.post`).
    External(String),
    /// A container of instances of a class (`list[Order]`): iterating it gives one.
    Many(usize, u32),
    /// Parameter `.2` of function `.1`, bound nowhere in its body: what its callers pass.
    Param(usize, u32, u32),
    /// A definition as its decorator is handed it: the function before decoration.
    Raw(usize, u32),
    /// An element of container attribute `.2` of instances of class `.1`: every value stored
    /// in it (`self.handlers[k] = f`, `self.hooks.append(f)`), nested containers as one bag.
    Items(usize, u32, String),
    /// A function nested in the functions of the calls that returned it (`decorator` of
    /// `command(cls=Group)`): its outer parameters hold what those calls passed.
    Closure(usize, u32, Env),
}

/// The calls whose result is being worked out, innermost first: while one is, its function's
/// parameters hold the arguments of that call rather than those of every caller
/// (context-sensitive values, `group()` → `command(name, Group)` → `cls(…)` is a `Group`).
type Env = Option<Rc<Frame>>;

/// One call of [`Env`]: function `func` called by `site` in `scope` of file `fi`, whose
/// arguments are read in `caller`'s context.
#[derive(Debug)]
struct Frame {
    func: (usize, u32),
    fi: usize,
    scope: u32,
    line: u32,
    site: FrameSite,
    caller: Env,
    /// The parameters' values once read (by position; `None`: the call gives none known).
    known: RefCell<Vec<(u32, Option<V>)>>,
}

/// Frames are the same call in the same context, whatever they have read so far.
impl PartialEq for Frame {
    fn eq(&self, other: &Frame) -> bool {
        (self.func, self.fi, self.site) == (other.func, other.fi, other.site)
            && self.caller == other.caller
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum FrameSite {
    /// Index into the file's calls.
    Call(usize),
    /// Index into the file's decorations (a decorator factory's call).
    Deco(usize),
}

/// How many calls deep a context is kept.
const MAX_FRAMES: usize = 4;

/// Where a function is called, for what its parameters are given.
#[derive(Debug, Clone, Copy)]
enum Site<'a> {
    /// A call in `scope` of file `fi` on `line`; `shift` parameters (`self`) are bound by the
    /// call itself, before its arguments.
    Call {
        fi: usize,
        scope: u32,
        line: u32,
        args: &'a [PyArg],
        shift: usize,
    },
    /// Decoration `k` of definition `def`, applied to what the decorations below it give.
    Applied {
        fi: usize,
        def: u32,
        k: usize,
        shift: usize,
    },
}

/// Values worked out once by key; `None` while one is under way.
type Memo<K, T> = RefCell<HashMap<K, Option<T>>>;

/// A chain seen from a scope of a file on a line ([`Repo::receiver`]).
type ReceiverKey = (usize, u32, Vec<String>, u32);

/// How many values a parameter (or container) is followed to, and how many call sites are read
/// for them: flask's tests register over 256 views with `add_url_rule`.
const MAX_VALUES: usize = 1024;
const MAX_SITES: usize = 1024;

/// What resolving any file reads, worked out once and shared by the workers.
struct Shared<'a> {
    files: &'a [(&'a RepoPath, &'a FileFacts)],
    py: &'a [Option<PyFacts>],
    modules: HashMap<&'a str, usize>,
    defs: HashMap<&'a str, (usize, u32)>,
    /// Per file: (enclosing definition, name) → the definitions binding it (last wins).
    members: Vec<HashMap<(u32, &'a str), u32>>,
    /// Each project class's direct subclasses in the project.
    subs: HashMap<(usize, u32), Vec<(usize, u32)>>,
    /// pytest fixtures by name: functions decorated `@pytest.fixture` / `@fixture`.
    fixtures: HashMap<&'a str, Vec<(usize, u32)>>,
    /// Per definition, its decorations (indexes into the file's `decorations`, top first).
    decos: HashMap<(usize, u32), Vec<usize>>,
    /// Per function, the calls and decorations that give its parameters values.
    sites: HashMap<(usize, u32), Vec<Site<'a>>>,
    /// Celery tasks by the name a worker knows them by.
    tasks: HashMap<String, Vec<(usize, u32)>>,
    /// Per file, scope and line: the calls there (indexes into the file's calls), for the call
    /// an assignment or `return` of a call's result makes.
    calls_at: HashMap<(usize, u32, u32), Vec<usize>>,
    /// Per file, scope and name: the assignments binding that name there, in order (indexes
    /// into the file's assignments), so that a lookup does not read every assignment.
    bindings: HashMap<(usize, u32), HashMap<&'a str, Vec<usize>>>,
    /// Per file, scope and local name: the last import binding it (index into the file's
    /// imports); name lookups are the resolver's commonest step.
    imported: HashMap<(usize, u32, &'a str), usize>,
    /// The functions whose calls get a context ([`context_sensitive`]).
    sensitive: HashSet<(usize, u32)>,
    /// Per container attribute name, the stores into it through any object (`self.x[k] = v`,
    /// `app.x.append(v)`): (file, index into its assignments).
    bags: HashMap<&'a str, Vec<(usize, usize)>>,
    /// The attribute names whose access may run project code ([`implicit::Hooks`]).
    hooks: implicit::Hooks<'a>,
}

/// A resolver over [`Shared`] with its own memos: one per worker, each resolving a fixed slice
/// of the files, so that what a worker remembers never depends on how many threads there are.
struct Repo<'s, 'a> {
    shared: &'s Shared<'a>,
    /// [`Repo::decorated`] and [`Repo::param_values`] once worked out (`None`: under way, a
    /// cycle), so that following values costs each definition and parameter once.
    decorated_memo: Memo<(usize, u32, usize), V>,
    param_memo: Memo<(usize, u32, u32), Vec<V>>,
    /// [`Repo::keyword_values`] once worked out.
    keyword_memo: Memo<(usize, u32, String), Vec<V>>,
    /// The calls whose result is being worked out ([`Env`]).
    ctx: RefCell<Env>,
    /// [`Repo::receiver`]'s values for the file being resolved.
    receivers: RefCell<HashMap<ReceiverKey, Option<V>>>,
}

impl<'a> std::ops::Deref for Repo<'_, 'a> {
    type Target = Shared<'a>;

    fn deref(&self) -> &Shared<'a> {
        self.shared
    }
}

/// Where names are defined: each module's file, each qualified name's definition, each file's
/// members by (parent, name).
struct Names<'a> {
    modules: HashMap<&'a str, usize>,
    defs: HashMap<&'a str, (usize, u32)>,
    members: Vec<HashMap<(u32, &'a str), u32>>,
}

fn names(py: &[Option<PyFacts>]) -> Names<'_> {
    let mut modules = HashMap::default();
    let mut defs = HashMap::default();
    let mut members = Vec::with_capacity(py.len());
    for (fi, facts) in py.iter().enumerate() {
        let mut m = HashMap::default();
        if let Some(py) = facts {
            // Files come in path order, so a module's `.py` owns its name before the `.pyi`
            // stub beside it: the stub types the names, the module is what runs.
            let owner = *modules.entry(py.module.as_str()).or_insert(fi) == fi;
            for (di, d) in py.defs.iter().enumerate() {
                // `@overload` stubs only type the definition that follows them.
                if d.decorators
                    .iter()
                    .any(|x| x == "overload" || x.ends_with(".overload"))
                {
                    continue;
                }
                let qname = d.id.strip_prefix("py:").unwrap_or(&d.id);
                let qname = qname.split('~').next().unwrap_or(qname);
                // Modules are found by module name; their symbol is no definition here.
                // A name defined twice in a file is its last definition (the one in force).
                if d.kind != SymbolKind::Module && owner {
                    let here = defs.entry(qname).or_insert((fi, di as u32));
                    if here.0 == fi {
                        *here = (fi, di as u32);
                    }
                }
                if let Some(p) = d.parent {
                    m.insert((p, d.name.as_str()), di as u32);
                }
            }
        }
        members.push(m);
    }
    Names {
        modules,
        defs,
        members,
    }
}

/// pytest fixtures by name: functions decorated `@fixture` / `@pytest.fixture`.
fn fixtures(py: &[Option<PyFacts>]) -> HashMap<&str, Vec<(usize, u32)>> {
    let mut fixtures: HashMap<&str, Vec<(usize, u32)>> = HashMap::default();
    for (fi, facts) in py.iter().enumerate() {
        let Some(py) = facts else { continue };
        for (di, d) in py.defs.iter().enumerate() {
            if d.kind == SymbolKind::Function
                && d.decorators
                    .iter()
                    .any(|x| x == "fixture" || x.ends_with(".fixture"))
            {
                fixtures
                    .entry(d.name.as_str())
                    .or_default()
                    .push((fi, di as u32));
            }
        }
    }
    fixtures
}

/// Each decorated definition's decorations, by (file, definition).
fn decorations(py: &[Option<PyFacts>]) -> HashMap<(usize, u32), Vec<usize>> {
    let mut decos: HashMap<(usize, u32), Vec<usize>> = HashMap::default();
    for (fi, facts) in py.iter().enumerate() {
        let Some(py) = facts else { continue };
        for (k, d) in py.decorations.iter().enumerate() {
            decos.entry((fi, d.def)).or_default().push(k);
        }
    }
    decos
}

impl<'a> Shared<'a> {
    fn new(files: &'a [(&'a RepoPath, &'a FileFacts)], py: &'a [Option<PyFacts>]) -> Shared<'a> {
        let Names {
            modules,
            defs,
            members,
        } = names(py);
        let mut shared = Shared {
            files,
            py,
            modules,
            defs,
            members,
            subs: HashMap::default(),
            fixtures: fixtures(py),
            decos: decorations(py),
            sites: HashMap::default(),
            tasks: HashMap::default(),
            calls_at: calls_at(py),
            bindings: bindings(py),
            imported: imported(py),
            sensitive: context_sensitive(py),
            bags: bags(py),
            hooks: implicit::Hooks::new(py),
        };
        shared.tasks = Repo::over(&shared).task_names();
        shared.subs = Repo::over(&shared).subclass_map();
        let (sites, through_parameters) = shared.call_sites();
        shared.sites = sites;
        // A call of a parameter (`f(get_context(), *args)` in a decorator's wrapper) reaches
        // what callers pass, known only now that the other call sites are.
        let more: Vec<((usize, u32), Site<'a>)> = {
            let repo = Repo::over(&shared);
            through_parameters
                .into_iter()
                .flat_map(|(fi, i)| {
                    let c = &py[fi].as_ref().expect("python file").calls[i];
                    repo.sites_of(fi, c)
                })
                .collect()
        };
        for (t, site) in more {
            shared.sites.entry(t).or_default().push(site);
        }
        shared
    }

    /// Every call resolved to a project function, and every decoration, by the function they
    /// give arguments to; also the calls of a parameter, (file, index into its calls), for a
    /// second pass. Slices of the files are read in parallel and joined in file order.
    #[allow(clippy::type_complexity)]
    fn call_sites(&self) -> (HashMap<(usize, u32), Vec<Site<'a>>>, Vec<(usize, usize)>) {
        let parts: Vec<_> = slices(self.files.len())
            .into_par_iter()
            .map(|range| Repo::over(self).call_sites_in(range))
            .collect();
        let mut sites: HashMap<(usize, u32), Vec<Site<'a>>> = HashMap::default();
        let mut through_parameters = Vec::new();
        for (found, through) in parts {
            for (t, site) in found {
                sites.entry(t).or_default().push(site);
            }
            through_parameters.extend(through);
        }
        (sites, through_parameters)
    }
}

impl<'s, 'a> Repo<'s, 'a> {
    /// A resolver with empty memos.
    fn over(shared: &'s Shared<'a>) -> Repo<'s, 'a> {
        Repo {
            shared,
            decorated_memo: RefCell::default(),
            param_memo: RefCell::default(),
            keyword_memo: RefCell::default(),
            ctx: RefCell::default(),
            receivers: RefCell::default(),
        }
    }
}

impl<'a> Repo<'_, 'a> {
    /// File `fi`'s edges, but for the framework edges worked out for all files at once.
    fn edges_of(&self, fi: usize, known: &Known) -> Vec<Edge> {
        let Some(f) = self.facts(fi) else {
            return Vec::new();
        };
        let mut edges = self.file_edges(fi, f);
        edges.extend(self.implicit_edges(fi, f));
        edges.extend(self.config_edges(fi, f, &known.settings));
        for c in &f.calls {
            edges.extend(self.signal_edges(fi, f, c, &known.receivers));
            edges.extend(self.query_edge(fi, f, c, &known.tables));
        }
        edges.extend(self.route_edges(fi, f, &known.mounts));
        self.receivers.borrow_mut().clear();
        edges
    }

    /// The sites call `c` of file `fi` gives the functions it reaches.
    fn sites_of(&self, fi: usize, c: &'a PyCall) -> Vec<((usize, u32), Site<'a>)> {
        let value = self.chain_at(fi, c.scope, &c.chain, c.line, 0);
        let mut out = Vec::new();
        for t in self.call_targets(fi, c) {
            let Target::Def(tf, td) = t else { continue };
            let shift = self.shift(fi, c, value.as_ref(), (tf, td), 0);
            let site = Site::Call {
                fi,
                scope: c.scope,
                line: c.line,
                args: &c.args,
                shift,
            };
            out.push(((tf, td), site));
        }
        out
    }

    /// [`Shared::call_sites`] of the files in `range`, in order: (function, site) pairs and the
    /// calls of a parameter.
    #[allow(clippy::type_complexity)]
    fn call_sites_in(
        &self,
        range: std::ops::Range<usize>,
    ) -> (Vec<((usize, u32), Site<'a>)>, Vec<(usize, usize)>) {
        let mut sites: Vec<((usize, u32), Site<'a>)> = Vec::new();
        let mut through_parameters = Vec::new();
        for fi in range {
            let Some(f) = self.facts(fi) else { continue };
            for (i, c) in f.calls.iter().enumerate() {
                if c.args.is_empty() {
                    continue;
                }
                if let [name] = c.chain.as_slice()
                    && let Some(V::Param(..)) = self.lookup_at(fi, c.scope, name, c.line, 0)
                {
                    through_parameters.push((fi, i));
                    continue;
                }
                sites.extend(self.sites_of(fi, c));
            }
            for (k, d) in f.decorations.iter().enumerate() {
                let Some(order) = self.decos.get(&(fi, d.def)) else {
                    continue;
                };
                let Some(k) = order.iter().position(|&x| x == k) else {
                    continue;
                };
                for g in self.appliers(fi, d.def, k, 0).into_iter().map(plain) {
                    let (target, shift) = match g {
                        V::Def(gf, gd) => match self.def(gf, gd).kind {
                            SymbolKind::Function => ((gf, gd), 0),
                            // `@app.before_request`: a method taken from an instance (or a
                            // class method from its class) is handed the function after
                            // `self` / `cls`.
                            SymbolKind::Method if !d.factory => {
                                let call = d.as_call();
                                ((gf, gd), self.shift(fi, &call, Some(&g), (gf, gd), 0))
                            }
                            SymbolKind::Method => ((gf, gd), 0),
                            SymbolKind::Class => match self.member(gf, gd, "__init__", 0) {
                                Some(init) => (init, 1),
                                None => continue,
                            },
                            _ => continue,
                        },
                        _ => continue,
                    };
                    let site = Site::Applied {
                        fi,
                        def: d.def,
                        k,
                        shift,
                    };
                    sites.push((target, site));
                }
            }
        }
        (sites, through_parameters)
    }

    /// How many of a method's parameters a call binds before its arguments: `self` of a call
    /// on an instance, of `super().m(…)`, of a class called (its `__init__`), `cls` of a
    /// class method; none for a function or a method taken from its class (`Base.m(self, …)`).
    fn shift(
        &self,
        fi: usize,
        c: &PyCall,
        value: Option<&V>,
        target: (usize, u32),
        depth: u32,
    ) -> usize {
        let t = self.def(target.0, target.1);
        if t.kind != SymbolKind::Method || t.decorators.iter().any(|x| x == "staticmethod") {
            return 0;
        }
        // A function taken from a container or given by a call is called as it was stored.
        if c.chain.last().is_some_and(|l| l == "[]" || l == "()") {
            return 0;
        }
        if let Some(V::Def(vf, vd)) = value
            && self.def(*vf, *vd).kind == SymbolKind::Class
        {
            return 1;
        }
        let Some((_, receiver)) = c.chain.split_last() else {
            return 0;
        };
        if receiver.is_empty() {
            return 0;
        }
        if receiver[0] == "super()" {
            return 1;
        }
        match self.chain_at(fi, c.scope, receiver, c.line, depth) {
            Some(V::Def(rf, rd)) if self.def(rf, rd).kind == SymbolKind::Class => {
                usize::from(t.decorators.iter().any(|x| x == "classmethod"))
            }
            _ => 1,
        }
    }

    /// What decoration `k` of definition `def` calls with the definition below it: the
    /// decorator itself, or what a decorator factory's call returns (each function it may).
    fn appliers(&self, fi: usize, def: u32, k: usize, depth: u32) -> Vec<V> {
        let Some(f) = self.facts(fi) else {
            return Vec::new();
        };
        let Some(&di) = self.decos.get(&(fi, def)).and_then(|o| o.get(k)) else {
            return Vec::new();
        };
        let d = &f.decorations[di];
        let Some(v) = self.chain(fi, d.scope, &d.chain, depth + 1) else {
            return Vec::new();
        };
        if !d.factory {
            return vec![v];
        }
        // The factory's parameters hold this decoration's arguments (`@group()` passes none,
        // so `cls` is its default).
        let mut given = match self.push_frame(fi, FrameSite::Deco(di), &v) {
            Some(env) => self.in_env(env, || self.results(v, depth + 1)),
            None => self.results(v, depth + 1),
        };
        // A factory that returns its decorator, or applies it at once when handed the
        // function (`@command` and `@command()` both work): the decorator is what applies.
        if given
            .iter()
            .any(|g| matches!(g, V::Def(..) | V::Closure(..)))
        {
            given.retain(|g| matches!(g, V::Def(..) | V::Closure(..)));
        }
        given
    }

    /// What a definition's name is bound to once decorations `from..` are applied (bottom one
    /// first): the definition itself, the wrapper function a decorator returns in its place, or
    /// an instance (`@click.command()` makes a `Command`). A decorator outside the project, or
    /// one that returns the function it was given, leaves it as it is.
    fn decorated(&self, fi: usize, def: u32, from: usize, _depth: u32) -> V {
        let Some(order) = self.decos.get(&(fi, def)) else {
            return V::Def(fi, def);
        };
        let key = (fi, def, from);
        if let Some(known) = self.decorated_memo.borrow().get(&key) {
            return known.clone().unwrap_or(V::Def(fi, def));
        }
        self.decorated_memo.borrow_mut().insert(key, None);
        let v = self.in_env(None, || {
            plain(self.apply_decorations(fi, def, from, order.len(), 0))
        });
        self.decorated_memo
            .borrow_mut()
            .insert(key, Some(v.clone()));
        v
    }

    fn apply_decorations(&self, fi: usize, def: u32, from: usize, n: usize, depth: u32) -> V {
        let mut v = V::Def(fi, def);
        let order = from..n;
        for k in order.rev() {
            for g in self.appliers(fi, def, k, depth + 1) {
                let given = match g {
                    V::Def(gf, gd) => match self.def(gf, gd).kind {
                        SymbolKind::Class => Some(V::Instance(gf, gd)),
                        SymbolKind::Function | SymbolKind::Method => self
                            .returned_all(gf, gd, depth + 1)
                            .into_iter()
                            .find(|r| match r {
                                V::Def(rf, rd) => self.def(*rf, *rd).kind.is_callable(),
                                V::Instance(..) => true,
                                _ => false,
                            }),
                        _ => None,
                    },
                    // A decorator a factory's call made: run in that call's context.
                    V::Closure(gf, gd, env) => self.in_env(env, || {
                        self.returned_all(gf, gd, depth + 1)
                            .into_iter()
                            .find(|r| match r {
                                V::Def(rf, rd) | V::Closure(rf, rd, _) => {
                                    self.def(*rf, *rd).kind.is_callable()
                                }
                                V::Instance(..) => true,
                                _ => false,
                            })
                    }),
                    _ => None,
                };
                if let Some(given) = given {
                    v = given;
                    break;
                }
            }
        }
        v
    }

    /// The values a caller may give parameter `pos` of function `d`: the arguments at its call
    /// sites (by position after the bound ones, or by keyword), and for a decorator the
    /// definition it decorates.
    fn param_values(&self, f: usize, d: u32, pos: u32, _depth: u32) -> Vec<V> {
        let key = (f, d, pos);
        if let Some(known) = self.param_memo.borrow().get(&key) {
            return known.clone().unwrap_or_default();
        }
        self.param_memo.borrow_mut().insert(key, None);
        let out = self.in_env(None, || self.given(f, d, pos, 0));
        self.param_memo.borrow_mut().insert(key, Some(out.clone()));
        out
    }

    fn given(&self, f: usize, d: u32, pos: u32, depth: u32) -> Vec<V> {
        let mut out: Vec<V> = Vec::new();
        let params = &self.def(f, d).params;
        if params
            .get(pos as usize)
            .is_none_or(|p| p.0.starts_with('*'))
        {
            return out;
        }
        for site in self
            .sites
            .get(&(f, d))
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .take(MAX_SITES)
        {
            let v = match *site {
                Site::Call {
                    fi,
                    scope,
                    line,
                    args,
                    shift,
                } => {
                    let Some(arg) = self.argument_for(params, pos, args, shift) else {
                        let name = &params[pos as usize].0;
                        for v in self.forwarded(fi, scope, args, name) {
                            if !out.contains(&v) && out.len() < MAX_VALUES {
                                out.push(v);
                            }
                        }
                        continue;
                    };
                    self.argument_value(fi, scope, line, arg, depth + 1)
                }
                Site::Applied { fi, def, k, shift } => (pos as usize == shift).then(|| match self
                    .decorated(fi, def, k + 1, depth + 1)
                {
                    V::Def(f, d) if (f, d) == (fi, def) => V::Raw(f, d),
                    v => v,
                }),
            };
            let vs = match v {
                Some(V::Param(pf, pd, pp)) => self.param_values(pf, pd, pp, depth + 1),
                Some(v) => vec![v],
                None => Vec::new(),
            };
            for v in vs {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            if out.len() >= MAX_VALUES {
                break;
            }
        }
        out
    }

    /// What calling `v` runs, a parameter's every value followed; a decorated definition is
    /// what its decorators made of it.
    fn called_all(&self, v: V, depth: u32) -> Vec<Target> {
        match plain(v) {
            V::Param(f, d, p) => {
                let mut out = Vec::new();
                for v in self.param_values(f, d, p, depth + 1) {
                    for t in self.called_all(v, depth + 1) {
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                }
                out
            }
            V::Def(f, d) if self.def(f, d).kind.is_callable() => {
                match self.decorated(f, d, 0, depth + 1) {
                    i @ V::Instance(..) => self.called(i).into_iter().collect(),
                    V::Def(wf, wd) if (wf, wd) != (f, d) => {
                        vec![Target::Def(wf, wd), Target::Def(f, d)]
                    }
                    _ => vec![Target::Def(f, d)],
                }
            }
            V::Raw(f, d) => vec![Target::Def(f, d)],
            V::Items(f, c, name) => {
                let mut out = Vec::new();
                for v in self.items(f, c, &name, depth + 1) {
                    for t in self.called_all(v, depth + 1) {
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                }
                out
            }
            v => self.called(v).into_iter().collect(),
        }
    }

    /// Every value stored in container attribute `name` of instances of `class` (or of its
    /// bases): by their methods (`self.name[k] = v`, `self.name.append(v)`) or through any
    /// other object that is one (`self.app.name[k] = v`, `state.name.append(v)`), parameters
    /// followed to what their callers pass.
    fn items(&self, f: usize, class: u32, name: &str, depth: u32) -> Vec<V> {
        let mut out = Vec::new();
        if depth > MAX_DEPTH {
            return out;
        }
        let classes = self.ancestry(f, class, depth);
        for &(sf, ai) in self.bags.get(name).map(Vec::as_slice).unwrap_or_default() {
            let Some(facts) = self.facts(sf) else {
                continue;
            };
            let a = &facts.assigns[ai];
            let holder = match &a.target[..a.target.len() - 2] {
                [s] if s == "self" => self.enclosing_class(sf, a.scope).map(|c| (sf, c)),
                receiver => match self.chain_at(sf, a.scope, receiver, a.line, depth + 1) {
                    Some(V::Instance(rf, rd)) => Some((rf, rd)),
                    _ => None,
                },
            };
            if !holder.is_some_and(|h| classes.contains(&h)) {
                continue;
            }
            let Some(v) = self.chain(sf, a.scope, &a.value, depth + 1) else {
                continue;
            };
            let vs = match self.assigned(sf, a, v, depth + 1) {
                Some(V::Param(pf, pd, pp)) => self.param_values(pf, pd, pp, depth + 1),
                Some(v) => vec![v],
                None => Vec::new(),
            };
            for v in vs {
                if !out.contains(&v) && out.len() < MAX_VALUES {
                    out.push(v);
                }
            }
        }
        out
    }

    /// A class and its bases (the first 16).
    fn ancestry(&self, f: usize, class: u32, depth: u32) -> Vec<(usize, u32)> {
        let mut todo = vec![(f, class)];
        let mut seen = Vec::new();
        while let Some(c) = todo.pop() {
            if seen.contains(&c) || seen.len() > 16 {
                continue;
            }
            seen.push(c);
            todo.extend(self.bases(c.0, c.1, depth + 1));
        }
        seen
    }

    /// What calling a call's result runs (`self.ensure_sync(view)(…)`): each function the
    /// inner call reaches gives back one of its parameters (the argument passed there) or a
    /// function of the project.
    fn result_targets(&self, fi: usize, c: &PyCall) -> Vec<Target> {
        let inner = PyCall {
            scope: c.scope,
            chain: c.chain[..c.chain.len() - 1].to_vec(),
            line: c.line,
            url: None,
            args: c.inner_args.clone(),
            inner_args: Vec::new(),
        };
        let value = self.chain_at(fi, c.scope, &inner.chain, c.line, 0);
        let mut out = Vec::new();
        for t in self.targets(fi, c.scope, &inner.chain, c.line) {
            let Target::Def(gf, gd) = t else { continue };
            if !self.def(gf, gd).kind.is_callable() {
                continue;
            }
            let shift = self.shift(fi, &inner, value.as_ref(), (gf, gd), 0);
            for r in self
                .facts(gf)
                .map(|x| x.returns.as_slice())
                .unwrap_or_default()
            {
                if r.scope != gd || r.each {
                    continue;
                }
                let given = match self.chain(gf, gd, &r.value, 1) {
                    Some(V::Param(pf, pd, pos)) if (pf, pd) == (gf, gd) && !r.called => self
                        .argument_for(&self.def(gf, gd).params, pos, &inner.args, shift)
                        .and_then(|a| a.value.as_ref())
                        .and_then(|a| self.chain_at(fi, c.scope, a, c.line, 1))
                        .map(|v| self.called_all(v, 1))
                        .unwrap_or_default(),
                    Some(v) if !r.called => self.called_all(v, 1),
                    _ => Vec::new(),
                };
                for t in given {
                    if matches!(t, Target::Def(..)) && !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }

    /// Keyword `name` handed on through `**kwargs`: a call passing on the `**kw` of its function
    /// (or of a function around its closure) gives `name=` what that function's callers give it
    /// by keyword (when `name` is none of its own parameters, so it lands in `kw`).
    fn forwarded(&self, fi: usize, scope: u32, args: &[PyArg], name: &str) -> Vec<V> {
        let Some(kw) = args
            .iter()
            .find_map(|a| match (a.keyword.as_deref(), &a.value) {
                (Some("**"), Some(v)) if v.len() == 1 => Some(format!("**{}", v[0])),
                _ => None,
            })
        else {
            return Vec::new();
        };
        let mut s = Some(scope);
        while let Some(si) = s {
            let d = self.def(fi, si);
            if d.kind.is_callable() && d.params.iter().any(|p| p.0 == kw) {
                if d.params.iter().any(|p| p.0 == name) {
                    return Vec::new();
                }
                return self.keyword_values(fi, si, name);
            }
            s = d.parent;
        }
        Vec::new()
    }

    /// What the callers of function `scope` give it by keyword `name`, directly or handed on
    /// through their own `**kwargs`.
    fn keyword_values(&self, fi: usize, scope: u32, name: &str) -> Vec<V> {
        let key = (fi, scope, name.to_string());
        if let Some(known) = self.keyword_memo.borrow().get(&key) {
            return known.clone().unwrap_or_default();
        }
        self.keyword_memo.borrow_mut().insert(key.clone(), None);
        let out = self.in_env(None, || self.keyword_values_given(fi, scope, name));
        self.keyword_memo
            .borrow_mut()
            .insert(key, Some(out.clone()));
        out
    }

    fn keyword_values_given(&self, fi: usize, scope: u32, name: &str) -> Vec<V> {
        let mut out = Vec::new();
        for site in self
            .sites
            .get(&(fi, scope))
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .take(MAX_SITES)
        {
            let Site::Call {
                fi: sf,
                scope: ss,
                line,
                args,
                ..
            } = *site
            else {
                continue;
            };
            let vs = match args.iter().find(|a| a.keyword.as_deref() == Some(name)) {
                Some(a) => match self.argument_value(sf, ss, line, a, 1) {
                    Some(V::Param(pf, pd, pp)) => self.param_values(pf, pd, pp, 1),
                    Some(v) => vec![v],
                    None => Vec::new(),
                },
                None => self.forwarded(sf, ss, args, name),
            };
            for v in vs {
                if !out.contains(&v) && out.len() < MAX_VALUES {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The argument a call gives parameter `pos` (of `params`), by keyword or by position
    /// after the `shift` parameters the call binds itself.
    fn argument_for<'c>(
        &self,
        params: &[(String, String)],
        pos: u32,
        args: &'c [PyArg],
        shift: usize,
    ) -> Option<&'c PyArg> {
        let (name, _) = params.get(pos as usize)?;
        if name.starts_with('*') {
            return None;
        }
        let keyword_only = params[..pos as usize]
            .iter()
            .any(|p| p.0.starts_with('*') && !p.0.starts_with("**"));
        let by_keyword = args
            .iter()
            .find(|a| a.keyword.as_deref() == Some(name.as_str()));
        let positional = (!keyword_only && pos as usize >= shift)
            .then(|| {
                let i = pos as usize - shift;
                let before = args.iter().take_while(|a| a.keyword.is_none()).count();
                (i < before).then(|| &args[i])
            })
            .flatten();
        by_keyword.or(positional)
    }

    /// The targets with the wrapper functions their decorators put in their place: a call of a
    /// decorated function runs the wrapper, which runs the function.
    fn with_wrappers(&self, targets: Vec<Target>) -> Vec<Target> {
        let mut out = Vec::with_capacity(targets.len());
        for t in targets {
            if let Target::Def(f, d) = t
                && let V::Def(wf, wd) = self.decorated(f, d, 0, 0)
                && (wf, wd) != (f, d)
                && !out.contains(&Target::Def(wf, wd))
            {
                out.push(Target::Def(wf, wd));
            }
            if !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    fn subclass_map(&self) -> HashMap<(usize, u32), Vec<(usize, u32)>> {
        let mut subs: HashMap<(usize, u32), Vec<(usize, u32)>> = HashMap::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for (di, d) in f.defs.iter().enumerate() {
                if d.kind == SymbolKind::Class {
                    for base in self.bases(fi, di as u32, 0) {
                        subs.entry(base).or_default().push((fi, di as u32));
                    }
                }
            }
        }
        subs
    }

    /// What a call on an instance of `class` named `name` may run: the method found from the
    /// class, and every override in its subclasses (class hierarchy analysis); a method with no
    /// code of its own is left out when overrides exist.
    fn dispatch(&self, class: (usize, u32), name: &str) -> Vec<Target> {
        let Some(found) = self.member(class.0, class.1, name, 0) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut todo = vec![class];
        let mut seen = vec![class];
        while let Some(c) = todo.pop() {
            for &sub in self.subs.get(&c).map(Vec::as_slice).unwrap_or_default() {
                if seen.contains(&sub) || seen.len() > 256 {
                    continue;
                }
                seen.push(sub);
                todo.push(sub);
                if let Some(&m) = self.members[sub.0].get(&(sub.1, name))
                    && self.def(sub.0, m).kind == SymbolKind::Method
                {
                    out.push(Target::Def(sub.0, m));
                }
            }
        }
        if out.is_empty() || !self.def(found.0, found.1).abstract_ {
            out.insert(0, Target::Def(found.0, found.1));
        }
        out
    }

    /// The targets of a call: of its chain, or what a call's result called runs.
    fn call_targets(&self, fi: usize, c: &PyCall) -> Vec<Target> {
        if c.chain.last().is_some_and(|l| l == "()") {
            return self.result_targets(fi, c);
        }
        self.targets(fi, c.scope, &c.chain, c.line)
    }

    /// The targets of a call chain: dispatched when its receiver is an instance.
    fn targets(&self, fi: usize, scope: u32, chain: &[String], at: u32) -> Vec<Target> {
        // `bag.get(k)` reads an element; it calls none (see [`Repo::attrs`]).
        if let Some((last, receiver)) = chain.split_last()
            && matches!(last.as_str(), "get" | "pop" | "setdefault")
            && !receiver.is_empty()
            && let Some(V::Items(..)) = self.receiver(fi, scope, receiver, at)
        {
            return Vec::new();
        }
        if let Some((last, receiver)) = chain.split_last()
            && !receiver.is_empty()
            && receiver[0] != "super()"
            && let Some(V::Instance(cf, cd)) = self.receiver(fi, scope, receiver, at)
        {
            let found = self.member(cf, cd, last, 0);
            if found.is_some_and(|(mf, md)| {
                self.def(mf, md).kind == SymbolKind::Method && !self.is_property(mf, md)
            }) {
                return self.with_wrappers(self.dispatch((cf, cd), last));
            }
        }
        let mut out = self
            .chain_at(fi, scope, chain, at, 0)
            .map(|v| self.called_all(v, 0))
            .unwrap_or_default();
        if let [name] = chain
            && let Some(p) = self.rebound_parameter(fi, scope, name)
        {
            for t in self.called_all(p, 0) {
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }

    /// A call's receiver (or an attribute's object) on line `at`, worked out once per file
    /// for both the call's targets and the implicit calls along its chain. Outside any call's
    /// context only: inside one, values depend on that context.
    fn receiver(&self, fi: usize, scope: u32, chain: &[String], at: u32) -> Option<V> {
        if self.ctx.borrow().is_some() {
            return self.chain_at(fi, scope, chain, at, 0);
        }
        let key = (fi, scope, chain.to_vec(), at);
        if let Some(v) = self.receivers.borrow().get(&key) {
            return v.clone();
        }
        let v = self.chain_at(fi, scope, chain, at, 0);
        self.receivers.borrow_mut().insert(key, v.clone());
        v
    }

    /// A parameter that its function rebinds only in branches (`if cls is None: cls = Command`)
    /// still holds what a caller passed on the other paths: the parameter, as seen from `scope`
    /// (its own function or a closure inside it).
    fn rebound_parameter(&self, fi: usize, scope: u32, name: &str) -> Option<V> {
        let f = self.facts(fi)?;
        let mut s = Some(scope);
        let mut first = true;
        while let Some(si) = s {
            let d = &f.defs[si as usize];
            if (first || d.kind != SymbolKind::Class) && self.binds(fi, f, si, name) {
                let pos = d.params.iter().position(|p| p.0 == name)?;
                let mut rebinds = self.assigns_to(fi, si, name).peekable();
                let only_in_branches =
                    rebinds.peek().is_some() && rebinds.all(|a| a.conditional && !a.each);
                return (d.kind.is_callable()
                    && only_in_branches
                    && self.parameter(fi, si, name, 0).is_none())
                .then_some(V::Param(fi, si, pos as u32));
            }
            first = false;
            s = d.parent;
        }
        None
    }

    /// Whether definition `si`'s body binds `name` (a parameter, definition, import or
    /// assignment).
    fn binds(&self, fi: usize, f: &PyFacts, si: u32, name: &str) -> bool {
        let d = &f.defs[si as usize];
        d.params.iter().any(|p| p.0 == name)
            || self.members[fi].contains_key(&(si, name))
            || self.imported.contains_key(&(fi, si, name))
            || self
                .bindings
                .get(&(fi, si))
                .is_some_and(|names| names.contains_key(name))
    }

    fn facts(&self, fi: usize) -> Option<&'a PyFacts> {
        self.py[fi].as_ref()
    }

    fn def(&self, fi: usize, di: u32) -> &'a PyDef {
        &self.facts(fi).expect("python file").defs[di as usize]
    }

    fn file_edges(&self, fi: usize, f: &PyFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for c in &f.calls {
            let head = c.chain[0].as_str();
            if let Some(e) = self.task_edge(fi, f, c) {
                out.push(e);
                continue;
            }
            let targets = self.call_targets(fi, c);
            if targets.is_empty() {
                if c.chain.len() == 1 && self.lookup(fi, c.scope, head, 0).is_none() {
                    continue; // builtins and names bound where this does not look
                }
                if c.chain.last().is_some_and(|l| l == "[]" || l == "()") {
                    continue; // no name to record
                }
                out.push(self.call_edge(fi, f, c, None));
            }
            for t in targets {
                if let Target::External(x) = &t
                    && let Some(e) = self.http_edge(fi, f, c, x)
                {
                    out.push(e);
                }
                out.push(self.call_edge(fi, f, c, Some(t)));
            }
        }
        for (k, d) in f.decorations.iter().enumerate() {
            let call = d.as_call();
            let Some(k) = self
                .decos
                .get(&(fi, d.def))
                .and_then(|o| o.iter().position(|&x| x == k))
            else {
                continue;
            };
            let mut seen = Vec::new();
            for t in self
                .appliers(fi, d.def, k, 0)
                .into_iter()
                .filter_map(|v| self.called(v))
            {
                if !seen.contains(&t) {
                    seen.push(t.clone());
                    out.push(self.call_edge(fi, f, &call, Some(t)));
                }
            }
        }
        out.extend(self.hierarchy_edges(fi, f));
        out
    }

    /// A call of an HTTP client library (`requests.get(url)`, `httpx.post(f"{base}/x")`, a
    /// session's `.get`) with a literal URL: an [`crate::graph::http`] request for the linker
    /// to meet with the route that serves it.
    fn http_edge(&self, fi: usize, f: &PyFacts, c: &PyCall, external: &str) -> Option<Edge> {
        let url = c.url.as_deref()?;
        let (client, method) = external.rsplit_once('.')?;
        let library = client.split('.').next().unwrap_or(client);
        if !HTTP_CLIENTS.contains(&library) {
            return None;
        }
        let verb = match method {
            "get" | "post" | "put" | "delete" | "patch" | "head" | "options" => {
                method.to_uppercase()
            }
            _ => return None,
        };
        let mut e = self.call_edge(fi, f, c, None);
        crate::graph::http::make_request(&mut e, &verb, url);
        Some(e)
    }

    fn call_edge(&self, fi: usize, f: &PyFacts, c: &PyCall, target: Option<Target>) -> Edge {
        // `handlers[k](…)` and `f(x)(…)` name no callee at the call: the target names it.
        let callee_name = match (c.chain.last().map(String::as_str), &target) {
            (Some("[]" | "()"), Some(Target::Def(tf, td))) => self.def(*tf, *td).name.clone(),
            (last, _) => last.unwrap_or_default().to_string(),
        };
        let (callee, callee_file, callee_line, confidence) = match target {
            Some(Target::Def(tf, td)) => (
                Some(self.def(tf, td).id.clone()),
                Some(self.files[tf].0.to_string()),
                Some(self.def(tf, td).line),
                1.0,
            ),
            Some(Target::External(x)) => (Some(format!("py:{x}")), None, None, 1.0),
            None => (None, None, None, 0.3),
        };
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: f.defs[c.scope as usize].id.clone(),
            caller_name: String::new(),
            line: c.line,
            kind: EdgeKind::Call,
            callee,
            callee_name,
            callee_file,
            callee_line,
            caller_flags: 0,
            confidence,
            detail: String::new(),
            site: CallSite {
                receiver: c.chain[..c.chain.len() - 1].to_vec(),
                flags: 0,
            },
        }
    }

    /// Where each route group is mounted: (file, group name) → the prefixes it is mounted
    /// under (`app.register_blueprint(bp, url_prefix="/v1")`).
    fn mounts(&self) -> HashMap<(usize, String), Vec<String>> {
        let mut out: HashMap<(usize, String), Vec<String>> = HashMap::default();
        for fi in 0..self.files.len() {
            let Some(f) = self.facts(fi) else { continue };
            for (scope, group, prefix) in &f.mounts {
                if let Some(at) = self.group_binding(fi, *scope, group) {
                    out.entry(at).or_default().push(prefix.clone());
                }
            }
        }
        out
    }

    /// The file and module-level name a route group's chain refers to (through imports).
    fn group_binding(&self, fi: usize, scope: u32, chain: &[String]) -> Option<(usize, String)> {
        let f = self.facts(fi)?;
        match chain {
            [name] => {
                let import =
                    f.imports.iter().rev().find(|i| {
                        !i.whole && i.local == *name && (i.scope == scope || i.scope == 0)
                    });
                match import {
                    Some(i) => {
                        let (module, var) = i.target.rsplit_once('.')?;
                        Some((*self.modules.get(module)?, var.to_string()))
                    }
                    None => Some((fi, name.clone())),
                }
            }
            [head, name] => match self.lookup(fi, scope, head, 0)? {
                V::Module(m) => Some((*self.modules.get(m.as_str())?, name.clone())),
                _ => None,
            },
            _ => None,
        }
    }

    /// `route:VERB /path` → handler, the path under its group's prefix and mounts.
    fn route_edges(
        &self,
        fi: usize,
        f: &PyFacts,
        mounts: &HashMap<(usize, String), Vec<String>>,
    ) -> Vec<Edge> {
        let mut out = Vec::new();
        for r in &f.routes {
            let group = r.group.first().cloned().unwrap_or_default();
            let own = f
                .prefixes
                .iter()
                .rev()
                .find(|(n, _)| r.group.len() == 1 && *n == group)
                .map(|(_, p)| p.as_str())
                .unwrap_or("");
            let mounted = mounts
                .get(&(fi, group.clone()))
                .cloned()
                .unwrap_or_else(|| vec![String::new()]);
            let h = &f.defs[r.handler as usize];
            for m in &mounted {
                let path = join_path(&[m, own, &r.path]);
                for verb in &r.verbs {
                    out.push(Edge {
                        caller_file: self.files[fi].0.to_string(),
                        caller: format!("route:{verb} {path}"),
                        caller_name: String::new(),
                        line: r.line,
                        kind: EdgeKind::Route,
                        callee: Some(h.id.clone()),
                        callee_name: h.name.clone(),
                        callee_file: Some(self.files[fi].0.to_string()),
                        callee_line: Some(h.line),
                        caller_flags: 0,
                        confidence: 1.0,
                        detail: String::new(),
                        site: CallSite::default(),
                    });
                }
            }
        }
        out
    }

    /// `class A(B)` → inherits B; a method of A redefining one of B's → overrides it.
    fn hierarchy_edges(&self, fi: usize, f: &PyFacts) -> Vec<Edge> {
        let mut out = Vec::new();
        for (di, d) in f.defs.iter().enumerate() {
            if d.kind != SymbolKind::Class {
                continue;
            }
            for (bf, bd) in self.bases(fi, di as u32, 0) {
                out.push(self.type_edge(fi, di as u32, bf, bd, EdgeKind::Inherits));
            }
        }
        for (di, d) in f.defs.iter().enumerate() {
            let Some(p) = d.parent.filter(|_| d.kind == SymbolKind::Method) else {
                continue;
            };
            let overridden = self
                .bases(fi, p, 0)
                .into_iter()
                .find_map(|(bf, bd)| self.member(bf, bd, &d.name, 0));
            if let Some((of, od)) = overridden {
                out.push(self.type_edge(fi, di as u32, of, od, EdgeKind::Overrides));
            }
        }
        out
    }

    fn type_edge(&self, fi: usize, di: u32, tf: usize, td: u32, kind: EdgeKind) -> Edge {
        let (d, t) = (self.def(fi, di), self.def(tf, td));
        Edge {
            caller_file: self.files[fi].0.to_string(),
            caller: d.id.clone(),
            caller_name: String::new(),
            line: d.line,
            kind,
            callee: Some(t.id.clone()),
            callee_name: t.name.clone(),
            callee_file: Some(self.files[tf].0.to_string()),
            callee_line: Some(t.line),
            caller_flags: 0,
            confidence: 1.0,
            detail: String::new(),
            site: CallSite::default(),
        }
    }

    /// What calling `v` runs.
    fn called(&self, v: V) -> Option<Target> {
        match v {
            V::Def(f, d) => match self.def(f, d).kind {
                SymbolKind::Function | SymbolKind::Method => Some(Target::Def(f, d)),
                SymbolKind::Class => Some(match self.member(f, d, "__init__", 0) {
                    Some((mf, md)) => Target::Def(mf, md),
                    None => Target::Def(f, d),
                }),
                _ => None,
            },
            V::Instance(f, d) => self
                .member(f, d, "__call__", 0)
                .map(|(mf, md)| Target::Def(mf, md)),
            V::External(x) => Some(Target::External(x)),
            V::Raw(f, d) | V::Closure(f, d, _) => Some(Target::Def(f, d)),
            V::Module(_) | V::Many(..) | V::Param(..) | V::Items(..) => None,
        }
    }

    fn chain(&self, fi: usize, scope: u32, chain: &[String], depth: u32) -> Option<V> {
        self.chain_at(fi, scope, chain, u32::MAX, depth)
    }

    /// A chain as seen on line `at` of `scope` (a local takes its last binding before `at`).
    fn chain_at(&self, fi: usize, scope: u32, chain: &[String], at: u32, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (head, rest) = chain.split_first()?;
        if head == "super()" {
            let (first, rest2) = rest.split_first()?;
            let class = self.enclosing_class(fi, scope)?;
            let found = self
                .bases(fi, class, depth)
                .into_iter()
                .find_map(|(bf, bd)| self.member(bf, bd, first, depth))?;
            return self.attrs(V::Def(found.0, found.1), rest2, depth);
        }
        let v = self.lookup_at(fi, scope, head, at, depth)?;
        self.attrs(v, rest, depth)
    }

    /// `v.a.b…`: each name in turn; `name` followed by `[]` is an element of that container
    /// attribute (of a project instance; anything else has no known elements).
    fn attrs(&self, mut v: V, names: &[String], depth: u32) -> Option<V> {
        let mut i = 0;
        while let Some(name) = names.get(i) {
            // `ConfigAttribute[bool]`: a generic class subscripted is still the class.
            if name == "[]"
                && let V::Def(f, d) = v
                && self.def(f, d).kind == SymbolKind::Class
            {
                i += 1;
                continue;
            }
            // `make().run`: what the call gives.
            if name == "()" {
                v = self.result(v, depth + 1)?;
                i += 1;
                continue;
            }
            if name == "[]" {
                return None;
            }
            // `bag.get(k)`, `bag.pop(k)`, `bag.setdefault(k)`: called, they give an element.
            if matches!(v, V::Items(..))
                && i + 1 == names.len()
                && matches!(name.as_str(), "get" | "pop" | "setdefault")
            {
                return Some(v);
            }
            if names.get(i + 1).is_some_and(|n| n == "[]") {
                let V::Instance(f, c) = v else { return None };
                v = V::Items(f, c, name.clone());
                i += 2;
                continue;
            }
            // An attribute read whose value is not known but that is stored into (iterated,
            // `for f in self.funcs`): its elements.
            let holder = match v {
                V::Instance(f, c) if self.bags.contains_key(name.as_str()) => Some((f, c)),
                _ => None,
            };
            v = match (self.attr(v, name, depth), holder) {
                (Some(next), _) => next,
                (None, Some((f, c))) => V::Items(f, c, name.clone()),
                (None, None) => return None,
            };
            i += 1;
        }
        Some(v)
    }

    /// A bare name seen from `scope`: its functions outward (class bodies skipped), then the
    /// module.
    fn lookup(&self, fi: usize, scope: u32, name: &str, depth: u32) -> Option<V> {
        self.lookup_at(fi, scope, name, u32::MAX, depth)
    }

    fn lookup_at(&self, fi: usize, scope: u32, name: &str, at: u32, depth: u32) -> Option<V> {
        let f = self.facts(fi)?;
        let mut s = Some(scope);
        let mut first = true;
        while let Some(si) = s {
            let d = &f.defs[si as usize];
            let skip = !first && d.kind == SymbolKind::Class;
            // Outer bindings are seen as they are when the inner code runs: their last.
            let at = if first { at } else { u32::MAX };
            if !skip && let Some(v) = self.bound_in_at(fi, si, name, at, depth) {
                return Some(v);
            }
            first = false;
            s = d.parent;
        }
        None
    }

    /// What `name` is bound to directly in definition `si`'s body (or parameters).
    fn bound_in(&self, fi: usize, si: u32, name: &str, depth: u32) -> Option<V> {
        self.bound_in_at(fi, si, name, u32::MAX, depth)
    }

    /// What `name` is bound to in `si` on line `at`: its last assignment before that line (or
    /// the last of all, for a use a loop reaches again).
    fn bound_in_at(&self, fi: usize, si: u32, name: &str, at: u32, depth: u32) -> Option<V> {
        let f = self.facts(fi)?;
        let d = &f.defs[si as usize];
        if let Some(v) = self.argument_in_env(fi, si, name, depth) {
            return Some(v);
        }
        if matches!(d.kind, SymbolKind::Function | SymbolKind::Method)
            && let Some(v) = self.parameter(fi, si, name, depth)
        {
            return Some(v);
        }
        if let Some(&m) = self.members[fi].get(&(si, name))
            && f.defs[m as usize].kind != SymbolKind::Field
        {
            return Some(V::Def(fi, m));
        }
        if let Some(i) = self.imported.get(&(fi, si, name)).map(|&k| &f.imports[k]) {
            return Some(if i.whole {
                self.dotted(name, depth + 1)
            } else {
                self.dotted(&i.target, depth + 1)
            });
        }
        let mut bindings = self.assigns_to(fi, si, name);
        let mut before = None;
        let mut last = None;
        for a in bindings.by_ref() {
            if a.line <= at {
                before = Some(a);
            }
            last = Some(a);
        }
        if let Some(a) = before.or(last) {
            if let Some(v) = self.manager_result(fi, si, a, depth) {
                return Some(v);
            }
            return self.binding(fi, si, a, depth);
        }
        // A parameter the body never rebinds: what its callers give it.
        if matches!(d.kind, SymbolKind::Function | SymbolKind::Method) {
            let pos = d.params.iter().position(|p| p.0 == name)?;
            return Some(V::Param(fi, si, pos as u32));
        }
        None
    }

    /// `self` and `cls` of a method; a parameter annotated with a class is an instance of it.
    fn parameter(&self, fi: usize, si: u32, name: &str, depth: u32) -> Option<V> {
        let d = self.def(fi, si);
        let pos = d.params.iter().position(|p| p.0 == name)?;
        if pos == 0
            && d.kind == SymbolKind::Method
            && !d.decorators.iter().any(|x| x == "staticmethod")
        {
            let class = d.parent?;
            return Some(if d.decorators.iter().any(|x| x == "classmethod") {
                V::Def(fi, class)
            } else {
                V::Instance(fi, class)
            });
        }
        let ann = &d.params[pos].1;
        if ann.is_empty() {
            return self.fixture(fi, name, depth);
        }
        self.annotated(fi, d.parent.unwrap_or(0), ann, depth)
    }

    /// An unannotated parameter named like a pytest fixture visible from file `fi` (defined in
    /// it, or in a `conftest.py` of its folder or a parent): what the fixture returns.
    fn fixture(&self, fi: usize, name: &str, depth: u32) -> Option<V> {
        let here = self.files[fi].0.as_str();
        let (f, d) = self
            .fixtures
            .get(name)?
            .iter()
            .filter(|(f, _)| {
                let there = self.files[*f].0.as_str();
                *f == fi
                    || there
                        .strip_suffix("conftest.py")
                        .is_some_and(|dir| here.starts_with(dir))
            })
            .max_by_key(|(f, _)| (*f == fi, self.files[*f].0.as_str().len()))?;
        self.returned(*f, *d, depth + 1)
    }

    /// What an assignment gives its target, from the value `v` its right side evaluates to.
    fn assigned(&self, fi: usize, a: &PyAssign, v: V, depth: u32) -> Option<V> {
        let v = match self.call_env(fi, a, &v).filter(|_| a.called) {
            Some(env) => self.in_env(env, || self.result(v, depth))?,
            None if a.called => self.result(v, depth)?,
            None => v,
        };
        if !a.each {
            return Some(v);
        }
        match v {
            V::Many(f, d) => Some(V::Instance(f, d)),
            // An element of a bag of values is one of them.
            items @ V::Items(..) => Some(items),
            _ => None,
        }
    }

    /// An annotation or return type naming a project class: an instance of it, or a container
    /// of them (`list[Order]`).
    fn annotated(&self, fi: usize, scope: u32, written: &str, depth: u32) -> Option<V> {
        let (name, many) = annotation(written)?;
        let chain: Vec<String> = name.split('.').map(str::to_string).collect();
        match self.chain(fi, scope, &chain, depth + 1)? {
            V::Def(f, d) if self.def(f, d).kind == SymbolKind::Class => Some(if many {
                V::Many(f, d)
            } else {
                V::Instance(f, d)
            }),
            _ => None,
        }
    }

    /// The value of calling `v`: an instance of a class, or what a function's return annotation
    /// names.
    fn result(&self, v: V, depth: u32) -> Option<V> {
        match v {
            V::Def(f, d) => {
                let def = self.def(f, d);
                match def.kind {
                    SymbolKind::Class => Some(V::Instance(f, d)),
                    SymbolKind::Function | SymbolKind::Method => self
                        .annotated(f, def.parent.unwrap_or(0), &def.returns, depth)
                        .or_else(|| self.returned(f, d, depth)),
                    _ => None,
                }
            }
            V::Closure(f, d, env) => self.in_env(env, || self.result(V::Def(f, d), depth)),
            V::External(x) => Some(V::External(x)),
            // What `bag.get(k)` gives (see [`Repo::attrs`]): an element.
            items @ V::Items(..) => Some(items),
            _ => None,
        }
    }

    /// What a function without a return annotation returns, from its `return` statements: the
    /// first that evaluates (a nested function a decorator factory returns, an instance).
    fn returned(&self, f: usize, d: u32, depth: u32) -> Option<V> {
        self.returned_all(f, d, depth)
            .into_iter()
            .find(|v| !matches!(v, V::Param(pf, pd, _) if (*pf, *pd) == (f, d)))
    }

    /// Every value calling `v` may give: each `return` of a function (what a returned call
    /// gives, in turn), or what [`Repo::result`] says.
    fn results(&self, v: V, depth: u32) -> Vec<V> {
        if let V::Closure(f, d, env) = v {
            return self.in_env(env, || self.results(V::Def(f, d), depth));
        }
        let V::Def(f, d) = v else {
            return self.result(v, depth).into_iter().collect();
        };
        let def = self.def(f, d);
        if !def.kind.is_callable() || depth > MAX_DEPTH {
            return self.result(v, depth).into_iter().collect();
        }
        if let Some(v) = self.annotated(f, def.parent.unwrap_or(0), &def.returns, depth) {
            return vec![v];
        }
        let returns: Vec<&PyAssign> = self
            .facts(f)
            .map(|x| x.returns.as_slice())
            .unwrap_or_default()
            .iter()
            .filter(|r| r.scope == d && !r.each)
            .collect();
        // A function returned as it is (`return wrap`) is what a factory gives; what a
        // returned call gives is followed only when there is none (`return wrap(cls)` is
        // the same factory handed its argument at once).
        let direct = returns.iter().any(|r| {
            !r.called
                && matches!(self.chain(f, d, &r.value, depth + 1),
                    Some(V::Def(rf, rd)) if self.def(rf, rd).kind.is_callable())
        });
        let mut out = Vec::new();
        for r in returns {
            if direct && r.called {
                continue;
            }
            let Some(v) = self.chain(f, d, &r.value, depth + 1) else {
                continue;
            };
            let vs = match v {
                V::Param(pf, pd, _) if (pf, pd) == (f, d) => Vec::new(),
                v if r.called => match self.call_env(f, r, &v) {
                    Some(env) => self.in_env(env, || self.results(v, depth + 1)),
                    None => self.results(v, depth + 1),
                },
                v => vec![self.close(v)],
            };
            for v in vs {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The assignments of `name` in scope `si` of file `fi`, in order.
    fn assigns_to<'s>(
        &'s self,
        fi: usize,
        si: u32,
        name: &str,
    ) -> impl Iterator<Item = &'a PyAssign> + 's {
        let f = self.facts(fi);
        let found: &'s [usize] = self
            .bindings
            .get(&(fi, si))
            .and_then(|names| names.get(name))
            .map(Vec::as_slice)
            .unwrap_or_default();
        found.iter().filter_map(move |&i| f.map(|f| &f.assigns[i]))
    }

    /// Runs `work` with `env` as the calls being worked out, then puts the context back.
    fn in_env<T>(&self, env: Env, work: impl FnOnce() -> T) -> T {
        let saved = self.ctx.replace(env);
        let out = work();
        self.ctx.replace(saved);
        out
    }

    /// The innermost call of the context that called function `si` of file `fi`.
    fn frame_of(&self, fi: usize, si: u32) -> Option<Rc<Frame>> {
        let mut at = self.ctx.borrow().clone();
        while let Some(fr) = at {
            if fr.func == (fi, si) {
                return Some(fr);
            }
            at = fr.caller.clone();
        }
        None
    }

    /// The context with one more call, `site` of file `fi` calling `v`: when `v` is a project
    /// function whose result may depend on it ([`context_sensitive`]) and the context is less
    /// than [`MAX_FRAMES`] deep.
    fn push_frame(&self, fi: usize, site: FrameSite, v: &V) -> Option<Env> {
        let &V::Def(tf, td) = v else { return None };
        if !self.sensitive.contains(&(tf, td)) {
            return None;
        }
        let caller = self.ctx.borrow().clone();
        let mut depth = 0;
        let mut at = caller.as_deref();
        while let Some(fr) = at {
            depth += 1;
            at = fr.caller.as_deref();
        }
        if depth >= MAX_FRAMES {
            return None;
        }
        let f = self.facts(fi)?;
        let (scope, line) = match site {
            FrameSite::Call(i) => (f.calls[i].scope, f.calls[i].line),
            FrameSite::Deco(i) => (f.decorations[i].scope, f.decorations[i].line),
        };
        Some(Some(Rc::new(Frame {
            func: (tf, td),
            fi,
            scope,
            line,
            site,
            caller,
            known: RefCell::default(),
        })))
    }

    /// The context of the call an assignment or `return` of a call's result makes (`x = f(…)`,
    /// `return command(name, cls)`), `v` being what it calls.
    fn call_env(&self, fi: usize, a: &PyAssign, v: &V) -> Option<Env> {
        match *v {
            V::Def(tf, td) if a.called && self.sensitive.contains(&(tf, td)) => {}
            _ => return None,
        }
        let f = self.facts(fi)?;
        let &i = self
            .calls_at
            .get(&(fi, a.scope, a.line))?
            .iter()
            .find(|&&i| f.calls[i].chain == a.value)?;
        self.push_frame(fi, FrameSite::Call(i), v)
    }

    /// What parameter `name` of function `si` holds in the context: the argument the call being
    /// worked out gives it, read where that call is. None when that call gives none, or what
    /// is not known there, or when the body rebinds the parameter on some path every time.
    fn argument_in_env(&self, fi: usize, si: u32, name: &str, depth: u32) -> Option<V> {
        if self.ctx.borrow().is_none() {
            return None;
        }
        let fr = self.frame_of(fi, si)?;
        let f = self.facts(fi)?;
        let d = &f.defs[si as usize];
        let pos = d.params.iter().position(|p| p.0 == name)?;
        if self.assigns_to(fi, si, name).any(|a| !a.conditional) {
            return None;
        }
        let pos = pos as u32;
        if let Some((_, v)) = fr.known.borrow().iter().find(|(p, _)| *p == pos) {
            return v.clone();
        }
        let v = self
            .in_env(fr.caller.clone(), || {
                self.frame_argument(&fr, pos, depth + 1)
            })
            .filter(|v| !matches!(v, V::Param(..)));
        fr.known.borrow_mut().push((pos, v.clone()));
        v
    }

    /// What frame `fr`'s call gives parameter `pos` of its function, read where the call is.
    fn frame_argument(&self, fr: &Frame, pos: u32, depth: u32) -> Option<V> {
        let caller = self.facts(fr.fi)?;
        let func = V::Def(fr.func.0, fr.func.1);
        let (args, shift) = match fr.site {
            FrameSite::Call(i) => {
                let c = &caller.calls[i];
                (&c.args, self.shift(fr.fi, c, Some(&func), fr.func, depth))
            }
            FrameSite::Deco(i) => {
                let d = &caller.decorations[i];
                (
                    &d.args,
                    self.shift(fr.fi, &d.as_call(), Some(&func), fr.func, depth),
                )
            }
        };
        let params = &self.def(fr.func.0, fr.func.1).params;
        let arg = self.argument_for(params, pos, args, shift)?;
        self.argument_value(fr.fi, fr.scope, fr.line, arg, depth)
    }

    /// What an argument given on `line` of `scope` evaluates to: its name chain, or the result
    /// of the call it is (`f(get_current_context(), …)` gives a `Context`).
    fn argument_value(
        &self,
        fi: usize,
        scope: u32,
        line: u32,
        arg: &PyArg,
        depth: u32,
    ) -> Option<V> {
        match (&arg.value, &arg.called) {
            (Some(chain), _) => self.chain_at(fi, scope, chain, line, depth),
            (None, Some(called)) => {
                let v = self.chain_at(fi, scope, called, line, depth)?;
                self.result(v, depth + 1)
            }
            (None, None) => None,
        }
    }

    /// A function nested in a function whose call is being worked out: the closure that call
    /// makes, which keeps the context.
    fn close(&self, v: V) -> V {
        let V::Def(f, d) = v else { return v };
        let env = self.ctx.borrow().clone();
        if env.is_none() || !self.def(f, d).kind.is_callable() {
            return v;
        }
        let mut p = self.def(f, d).parent;
        while let Some(pi) = p {
            if self.frame_of(f, pi).is_some() {
                return V::Closure(f, d, env);
            }
            p = self.def(f, pi).parent;
        }
        v
    }

    /// Every value a function's `return` statements give that evaluates, in order.
    fn returned_all(&self, f: usize, d: u32, depth: u32) -> Vec<V> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let Some(facts) = self.facts(f) else {
            return Vec::new();
        };
        facts
            .returns
            .iter()
            .filter(|r| r.scope == d)
            .filter_map(|r| {
                let v = self.chain(f, d, &r.value, depth + 1)?;
                self.assigned(f, r, v, depth + 1).map(|v| self.close(v))
            })
            .collect()
    }

    /// A dotted absolute name: a project definition or module (through re-exports), or outside.
    fn dotted(&self, name: &str, depth: u32) -> V {
        if let Some(&(f, d)) = self.defs.get(name) {
            return self.defined(f, d, depth).unwrap_or(V::Def(f, d));
        }
        if self.modules.contains_key(name) {
            return V::Module(name.to_string());
        }
        // The longest module prefix, then attributes from there.
        let parts: Vec<&str> = name.split('.').collect();
        for cut in (1..parts.len()).rev() {
            let m = parts[..cut].join(".");
            if self.modules.contains_key(m.as_str()) {
                let mut v = Some(V::Module(m));
                for p in &parts[cut..] {
                    v = v.and_then(|v| self.attr(v, p, depth + 1));
                }
                return v.unwrap_or_else(|| V::External(name.to_string()));
            }
        }
        V::External(name.to_string())
    }

    fn attr(&self, v: V, name: &str, depth: u32) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        match v {
            V::Module(m) => {
                let full = format!("{m}.{name}");
                if let Some(&(f, d)) = self.defs.get(full.as_str()) {
                    return self.defined(f, d, depth);
                }
                if self.modules.contains_key(full.as_str()) {
                    return Some(V::Module(full));
                }
                let &fi = self.modules.get(m.as_str())?;
                self.bound_in(fi, 0, name, depth + 1)
            }
            V::Def(f, d) => match self.def(f, d).kind {
                SymbolKind::Class => {
                    let (mf, md) = self.member(f, d, name, depth)?;
                    Some(V::Def(mf, md))
                }
                SymbolKind::Function | SymbolKind::Method => {
                    match self.decorated(f, d, 0, depth + 1) {
                        i @ V::Instance(..) => self.attr(i, name, depth + 1),
                        _ => None,
                    }
                }
                _ => None,
            },
            V::Instance(f, d) => {
                if let Some((mf, md)) = self.member(f, d, name, depth) {
                    // A property reads as what its getter returns.
                    if self.is_property(mf, md) {
                        let owner = self.def(mf, md).parent.unwrap_or(0);
                        let getter = self.accessor(mf, owner, name, false)?;
                        return self.result(V::Def(mf, getter), depth + 1);
                    }
                    return match self.def(mf, md).kind {
                        SymbolKind::Field => self.field_value(mf, md, depth),
                        _ => Some(V::Def(mf, md)),
                    };
                }
                self.instance_attribute(f, d, name, depth)
            }
            V::External(x) => Some(V::External(format!("{x}.{name}"))),
            V::Many(..) | V::Raw(..) | V::Items(..) => None,
            V::Closure(f, d, _) => self.attr(V::Def(f, d), name, depth + 1),
            // What every value a caller gives has, when they agree.
            V::Param(f, d, p) => {
                let mut found = None;
                for v in self.param_values(f, d, p, depth + 1) {
                    let a = self.attr(v, name, depth + 1)?;
                    if found.as_ref().is_some_and(|x| *x != a) {
                        return None;
                    }
                    found = Some(a);
                }
                found
            }
        }
    }

    /// A definition found by its qualified name: a module-level name assigned a value
    /// (`ib = attr = attrib`, `handler = views.index`) is that value.
    fn defined(&self, f: usize, d: u32, depth: u32) -> Option<V> {
        if self.def(f, d).kind == SymbolKind::Field {
            return self.field_value(f, d, depth + 1);
        }
        Some(V::Def(f, d))
    }

    /// A class attribute's value when it is assigned a name or a call.
    fn field_value(&self, f: usize, d: u32, depth: u32) -> Option<V> {
        let def = self.def(f, d);
        let facts = self.facts(f)?;
        let scope = def.parent?;
        let a = facts
            .assigns
            .iter()
            .find(|a| a.scope == scope && a.target.len() == 1 && a.target[0] == def.name)?;
        self.binding(f, scope, a, depth + 1)
    }

    /// What assignment `a` in `scope` binds: its value, or its declared type when the value
    /// is not the project's (`request: Request = LocalProxy(…)`, read as a type checker does).
    fn binding(&self, fi: usize, scope: u32, a: &PyAssign, depth: u32) -> Option<V> {
        let value = self
            .chain(fi, scope, &a.value, depth + 1)
            .and_then(|v| self.assigned(fi, a, v, depth));
        if a.annotation.is_empty() || !matches!(value, None | Some(V::External(_))) {
            return value;
        }
        self.annotated(fi, scope, &a.annotation, depth + 1)
            .or(value)
    }

    /// `self.name = value` in any method of the class or its bases.
    fn instance_attribute(&self, f: usize, class: u32, name: &str, depth: u32) -> Option<V> {
        let (cf, a) = self.self_assignment(f, class, name, depth)?;
        self.binding(cf, a.scope, a, depth + 1)
    }

    /// The first `self.name = …` in a method of the class or of a base (in [`Repo::ancestry`]
    /// order), with its file.
    fn self_assignment(
        &self,
        f: usize,
        class: u32,
        name: &str,
        depth: u32,
    ) -> Option<(usize, &'a PyAssign)> {
        self.ancestry(f, class, depth)
            .into_iter()
            .find_map(|(cf, cd)| {
                let facts = self.facts(cf)?;
                facts
                    .assigns
                    .iter()
                    .find(|a| {
                        a.target.len() == 2
                            && a.target[0] == "self"
                            && a.target[1] == name
                            && facts.defs[a.scope as usize].parent == Some(cd)
                    })
                    .map(|a| (cf, a))
            })
    }

    /// A member of a class or of its bases, in base order (depth first, as simple MROs are).
    fn member(&self, f: usize, class: u32, name: &str, depth: u32) -> Option<(usize, u32)> {
        let mut todo = vec![(f, class)];
        let mut seen = Vec::new();
        while let Some((cf, cd)) = todo.pop() {
            if seen.contains(&(cf, cd)) || seen.len() > 32 || depth > MAX_DEPTH {
                continue;
            }
            seen.push((cf, cd));
            if let Some(&m) = self.members[cf].get(&(cd, name)) {
                return Some((cf, m));
            }
            let mut bases = self.bases(cf, cd, depth + 1);
            bases.reverse();
            todo.extend(bases);
        }
        None
    }

    /// A class's bases that are project classes.
    fn bases(&self, f: usize, class: u32, depth: u32) -> Vec<(usize, u32)> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let d = self.def(f, class);
        let scope = d.parent.unwrap_or(0);
        d.bases
            .iter()
            .filter_map(|b| {
                let chain: Vec<String> = b.split('.').map(str::to_string).collect();
                match self.chain(f, scope, &chain, depth + 1)? {
                    V::Def(bf, bd) if self.def(bf, bd).kind == SymbolKind::Class => Some((bf, bd)),
                    _ => None,
                }
            })
            .collect()
    }

    fn enclosing_class(&self, fi: usize, scope: u32) -> Option<u32> {
        let mut s = Some(scope);
        while let Some(si) = s {
            let d = self.def(fi, si);
            if let Some(p) = d.parent
                && self.def(fi, p).kind == SymbolKind::Class
                && d.kind == SymbolKind::Method
            {
                return Some(p);
            }
            s = d.parent;
        }
        None
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Target {
    Def(usize, u32),
    External(String),
}

/// Per file, scope and line, the calls there (indexes into the file's calls).
fn calls_at(py: &[Option<PyFacts>]) -> HashMap<(usize, u32, u32), Vec<usize>> {
    let mut out: HashMap<(usize, u32, u32), Vec<usize>> = HashMap::default();
    for (fi, f) in py.iter().enumerate() {
        for (i, c) in f.iter().flat_map(|f| f.calls.iter()).enumerate() {
            out.entry((fi, c.scope, c.line)).or_default().push(i);
        }
    }
    out
}

/// Per file, scope and name, the assignments of that one name (indexes into the file's
/// assignments, in order).
fn bindings(py: &[Option<PyFacts>]) -> HashMap<(usize, u32), HashMap<&str, Vec<usize>>> {
    let mut out: HashMap<(usize, u32), HashMap<&str, Vec<usize>>> = HashMap::default();
    for (fi, f) in py.iter().enumerate() {
        for (i, a) in f.iter().flat_map(|f| f.assigns.iter()).enumerate() {
            if let [name] = a.target.as_slice() {
                let scope = out.entry((fi, a.scope)).or_default();
                scope.entry(name.as_str()).or_default().push(i);
            }
        }
    }
    out
}

/// Per file, scope and local name, the last import binding it (index into the file's imports).
fn imported(py: &[Option<PyFacts>]) -> HashMap<(usize, u32, &str), usize> {
    let mut out = HashMap::default();
    for (fi, f) in py.iter().enumerate() {
        for (k, i) in f.iter().flat_map(|f| f.imports.iter()).enumerate() {
            out.insert((fi, i.scope, i.local.as_str()), k);
        }
    }
    out
}

/// The functions whose result may depend on the arguments of their call, the only ones whose
/// calls get a context ([`Env`]): a parameter (other than the `self` or `cls` a call binds) is
/// called, or is the value, of a `return` or assignment in them or in a function nested in
/// them (`return cls(…)`, `cmd = cls(f)` in a closure), or is passed to the call a `return`
/// makes (`return command(name, cls)`).
fn context_sensitive(py: &[Option<PyFacts>]) -> HashSet<(usize, u32)> {
    let mut out = HashSet::default();
    for (fi, f) in py.iter().enumerate() {
        let Some(f) = f else { continue };
        let mut uses = |scope: u32, head: &str| {
            let mut s = Some(scope);
            while let Some(si) = s {
                let d = &f.defs[si as usize];
                let bound = usize::from(
                    d.kind == SymbolKind::Method
                        && !d.decorators.iter().any(|x| x == "staticmethod"),
                );
                if d.kind.is_callable() && d.params.iter().skip(bound).any(|p| p.0 == head) {
                    out.insert((fi, si));
                    return;
                }
                s = d.parent;
            }
        };
        for a in f.returns.iter().chain(&f.assigns) {
            if let Some(head) = a.value.first()
                && (a.called || a.value.len() == 1)
            {
                uses(a.scope, head);
            }
        }
        let returned: HashSet<(u32, u32)> = f.returns.iter().map(|r| (r.scope, r.line)).collect();
        for c in f
            .calls
            .iter()
            .filter(|c| returned.contains(&(c.scope, c.line)))
        {
            for head in c.args.iter().filter_map(|a| a.value.as_ref()?.first()) {
                uses(c.scope, head);
            }
        }
    }
    out
}

/// Per container attribute name, the stores into it: `o.x[k] = v`, `o.x.append(v)` (whose
/// target is `[o…, x, "[]"]`), as (file, index into its assignments).
fn bags(py: &[Option<PyFacts>]) -> HashMap<&str, Vec<(usize, usize)>> {
    let mut out: HashMap<&str, Vec<(usize, usize)>> = HashMap::default();
    for (fi, f) in py.iter().enumerate() {
        for (i, a) in f.iter().flat_map(|f| f.assigns.iter()).enumerate() {
            if let [_, .., name, e] = a.target.as_slice()
                && e == "[]"
            {
                out.entry(name.as_str()).or_default().push((fi, i));
            }
        }
    }
    out
}

/// A closure as the function it is (where its context does not matter).
fn plain(v: V) -> V {
    match v {
        V::Closure(f, d, _) => V::Def(f, d),
        v => v,
    }
}

/// Python HTTP client libraries whose `get`/`post`/… calls are requests.
const HTTP_CLIENTS: &[&str] = &["requests", "httpx", "aiohttp", "urllib3"];

/// Path parts joined with one `/` between them, starting with `/`.
fn join_path(parts: &[&str]) -> String {
    let mut s = String::new();
    for part in parts
        .iter()
        .flat_map(|p| p.split('/'))
        .filter(|p| !p.is_empty())
    {
        s.push('/');
        s.push_str(part);
    }
    if s.is_empty() { "/".to_string() } else { s }
}

/// Containers whose single type argument is what iterating them gives.
const CONTAINERS: &[&str] = &[
    "list",
    "List",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "Collection",
    "set",
    "Set",
    "FrozenSet",
    "frozenset",
    "AbstractSet",
    "tuple",
    "Tuple",
    "Generator",
    "AsyncIterator",
    "AsyncIterable",
    "Deque",
    "deque",
];

/// The class an annotation names, and whether it is a container of them: `Repo`, `"Repo"`,
/// `models.Repo`, `Optional[Repo]`, `t.Optional["Repo"]`, `Repo | None` → (`Repo`, false);
/// `list[Repo]`, `t.Iterator["Repo"]` → (`Repo`, true).
fn annotation(written: &str) -> Option<(String, bool)> {
    let t = unquote(written);
    let t = t.split('|').find(|p| p.trim() != "None")?.trim();
    if let Some((outer, rest)) = t.split_once('[') {
        let inner = rest.strip_suffix(']')?;
        let outer = outer.rsplit('.').next().unwrap_or(outer).trim();
        let first = inner.split(',').next()?.trim();
        return match outer {
            "Optional" => annotation(first),
            o if CONTAINERS.contains(&o) => {
                annotation(first).and_then(|(n, many)| (!many).then_some((n, true)))
            }
            _ => None,
        };
    }
    let t = unquote(t);
    (!t.is_empty()
        && t.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.'))
    .then(|| (t.to_string(), false))
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches(|c| c == '"' || c == '\'')
}

#[cfg(test)]
mod tests {
    use super::annotation;

    #[test]
    fn annotations_name_a_class_or_a_container_of_one() {
        let a = |s: &str| annotation(s);
        assert_eq!(a("Repo"), Some(("Repo".into(), false)));
        assert_eq!(a("\"models.Repo\""), Some(("models.Repo".into(), false)));
        assert_eq!(
            a("t.Optional[\"Context\"]"),
            Some(("Context".into(), false))
        );
        assert_eq!(a("Repo | None"), Some(("Repo".into(), false)));
        assert_eq!(a("t.List[\"Parameter\"]"), Some(("Parameter".into(), true)));
        assert_eq!(a("list[Order]"), Some(("Order".into(), true)));
        assert_eq!(a("dict[str, Order]"), None);
        assert_eq!(a("list[list[Order]]"), None);
        assert_eq!(a(""), None);
    }
}
