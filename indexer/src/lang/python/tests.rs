use super::*;
use crate::lang::assert_inline_defs;
use crate::model::{Symbol, SymbolKind};

const KITCHEN: &[u8] = include_bytes!("../../../../tests/fixtures/python/kitchen.py");

fn symbol<'a>(a: &'a FileAnalysis, id: &str) -> &'a Symbol {
    a.symbols
        .iter()
        .find(|s| s.id.0 == id)
        .unwrap_or_else(|| panic!("no symbol {id}"))
}

fn path(p: &str) -> RepoPath {
    RepoPath::new(p).unwrap()
}

#[test]
fn kitchen_fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(LANGUAGE, "src/kitchen/shop.py", KITCHEN);
    assert_eq!(a.package.as_deref(), Some("kitchen.shop"));
    assert_eq!(
        a.imports,
        [
            "os.path",
            "typing.Optional",
            "kitchen.models",
            "core.db.session",
            "core.db.Base",
            "ujson",
        ]
    );
}

#[test]
fn kinds_ranges_and_heads_follow_the_source() {
    let a = assert_inline_defs(LANGUAGE, "src/kitchen/shop.py", KITCHEN);
    let module = &a.symbols[0];
    assert_eq!(module.kind, SymbolKind::Module);
    assert_eq!(module.doc.as_deref(), Some("Orders and their states."));
    let order = symbol(&a, "py:kitchen.shop.Order");
    assert_eq!(order.kind, SymbolKind::Class);
    assert_eq!(order.start_line, 25, "decorators belong to the definition");
    assert_eq!(order.end_line, 55);
    assert_eq!(order.annotations, ["@dataclass(frozen=True)"]);
    assert_eq!(order.supertypes, ["B"]);
    let parse = symbol(&a, "py:kitchen.shop.Order.parse");
    assert_eq!(parse.kind, SymbolKind::Method);
    assert!(parse.is_static && parse.has_body);
    assert_eq!(parse.signature, "def parse(text: str = \"\") -> \"Order\"");
    assert_eq!(parse.value_type, "\"Order\"");
    assert_eq!(parse.thrown, ["OrderError"]);
    let texts: Vec<(u32, &str)> = parse
        .literals
        .iter()
        .map(|l| (l.line, l.text.as_str()))
        .collect();
    assert_eq!(texts, [(39, ""), (39, "Order"), (41, "empty order")]);
    let init = symbol(&a, "py:kitchen.shop.Order.__init__");
    let names: Vec<&str> = init.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["self", "oid", "*items", "**extra"]);
    assert_eq!(init.params[1].ty, "int");
    assert_eq!(init.visibility, "public");
    assert_eq!(
        symbol(&a, "py:kitchen.shop.Order._lock").visibility,
        "private"
    );
    let audit = symbol(&a, "py:kitchen.shop.Order.pay.audit");
    assert_eq!(audit.kind, SymbolKind::Function);
    assert_eq!(
        audit.parent.as_ref().unwrap().0,
        "py:kitchen.shop.Order.pay"
    );
    let place = symbol(&a, "py:kitchen.shop.place");
    assert_eq!(place.doc.as_deref(), Some("Places an order."));
    assert!(place.literals.is_empty(), "a docstring is not a literal");
    assert!(!symbol(&a, "py:kitchen.shop.helper~2").has_body);
    assert_eq!(symbol(&a, "py:kitchen.shop.closing").end_line, 77);
    assert!(!symbol(&a, "py:kitchen.shop.OrderError").has_body);
}

#[test]
fn module_names_follow_the_src_layout_and_packages() {
    assert_eq!(
        module_name(&path("src/flask/app.py")),
        ("flask.app".into(), false)
    );
    assert_eq!(
        module_name(&path("flask/__init__.py")),
        ("flask".into(), true)
    );
    assert_eq!(module_name(&path("setup.py")), ("setup".into(), false));
    assert_eq!(
        module_name(&path("__init__.py")),
        ("__init__".into(), false)
    );
    assert_eq!(module_name(&path("a/src/b/c.pyi")), ("b.c".into(), false));
}

#[test]
fn relative_imports_resolve_against_the_package() {
    let src = b"from . import a\nfrom .b import c\nfrom ..d import e\n";
    let init = crate::lang::analyze(
        LANGUAGE,
        &path("p/q/__init__.py"),
        "m",
        src,
        &ParseLimits::default(),
    );
    assert_eq!(init.imports, ["p.q.a", "p.q.b.c", "p.d.e"]);
    let module = crate::lang::analyze(
        LANGUAGE,
        &path("p/q/r.py"),
        "m",
        src,
        &ParseLimits::default(),
    );
    assert_eq!(module.imports, ["p.q.a", "p.q.b.c", "p.d.e"]);
}

#[test]
fn broken_source_still_yields_what_parses() {
    let src = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n";
    let a = crate::lang::analyze(LANGUAGE, &path("x.py"), "m", src, &ParseLimits::default());
    assert!(a.degraded.is_none());
    assert!(a.symbols.iter().any(|s| s.id.0 == "py:x.ok"));
    assert!(!a.chunks.is_empty());
}

/// The call edges of a small package, as (caller, callee) ids, resolved ones only.
fn package_edges(files: &[(&str, &str)]) -> Vec<(String, String, &'static str)> {
    let analysed: Vec<(RepoPath, FileAnalysis)> = files
        .iter()
        .map(|(p, src)| {
            let p = path(p);
            let a =
                crate::lang::analyze(LANGUAGE, &p, "m", src.as_bytes(), &ParseLimits::default());
            (p, a)
        })
        .collect();
    let facts: Vec<(&RepoPath, &crate::graph::FileFacts)> = analysed
        .iter()
        .map(|(p, a)| (p, a.facts.as_deref().expect("facts")))
        .collect();
    let mut out = Vec::new();
    for (_, edges) in crate::graph::build(&facts) {
        for e in edges {
            if let Some(c) = e.callee.filter(|_| e.confidence >= 0.5) {
                out.push((e.caller, c, e.kind.as_str()));
            }
        }
    }
    out.sort();
    out
}

/// A package larger than one of the resolver's slices: each file's calls reach definitions in
/// other slices, and a function handed to `sink` in any file is what `sink` calls.
#[test]
fn a_package_larger_than_one_slice_resolves_alike_on_any_number_of_threads() {
    let n = 300;
    let mut files = vec![(
        "pkg/m0.py".to_string(),
        "def sink(handler):\n    handler()\n\ndef f0():\n    pass\n".to_string(),
    )];
    for i in 1..n {
        let src = format!(
            "from pkg.m0 import sink\nfrom pkg.m{p} import f{p}\n\n\
             def f{i}():\n    f{p}()\n\ndef h{i}():\n    pass\n\n\
             def go{i}():\n    sink(h{i})\n",
            p = i - 1
        );
        files.push((format!("pkg/m{i}.py"), src));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| package_edges(&files))
    };
    let one = on(1);
    assert_eq!(one, on(2), "the edges depend on the number of threads");
    let handed = one
        .iter()
        .filter(|(caller, callee, _)| caller == "py:pkg.m0.sink" && callee.contains(".h"))
        .count();
    assert_eq!(handed, n - 1, "sink calls the function each file hands it");
    assert!(one.contains(&("py:pkg.m299.f299".into(), "py:pkg.m298.f298".into(), "call")));
    assert!(one.contains(&("py:pkg.m1.f1".into(), "py:pkg.m0.f0".into(), "call")));
}

#[test]
fn calls_resolve_through_imports_self_bases_and_re_exports() {
    let edges = package_edges(&[
        ("pkg/__init__.py", "from .core import Thing as Thing\n"),
        (
            "pkg/core.py",
            "from .repo import Repo\n\
             \n\
             def helper():\n    pass\n\
             \n\
             class Base:\n\
             \x20   def __init__(self):\n        self.ready = True\n\
             \x20   def run(self):\n        self.step()\n\
             \x20   def step(self):\n        pass\n\
             \n\
             class Thing(Base):\n\
             \x20   def __init__(self, repo: Repo):\n        super().__init__()\n        self.repo = repo\n\
             \x20   def step(self):\n        self.repo.save()\n        helper()\n\
             \x20   @classmethod\n    def make(cls):\n        return cls(Repo())\n\
             class Boom(Exception):\n    def explain(self):\n        return 1\n",
        ),
        (
            "pkg/repo.py",
            "import typing as t\n\
             class Repo:\n    def save(self) -> 'Repo':\n        return self\n\
             \x20   def find(self) -> t.List['Repo']:\n        raise NotImplementedError\n\
             class SqlRepo(Repo):\n    def find(self):\n        return [self]\n\
             def reload(repos: t.Optional[Repo]):\n    for r in repos.find():\n        r.save()\n",
        ),
        (
            "tests/conftest.py",
            "import pytest\nfrom pkg.repo import Repo\n@pytest.fixture\ndef repo():\n    yield Repo()\n",
        ),
        (
            "tests/test_repo.py",
            "def test_save(repo):\n    repo.save()\n",
        ),
        (
            "app.py",
            "import pkg\nimport os.path\nfrom pkg import Thing\n\
             \n\
             def main():\n    t = pkg.Thing(None)\n    t.run()\n    Thing.make().step()\n    os.path.join('a')\n    t.repo.save().save()\n    unknown.thing()\n\
             \n\
             def traced(name):\n    def wrap(fn):\n        return fn\n    return wrap\n\
             def plain(fn):\n    return fn\n\
             @traced('x')\n@plain\ndef handler():\n    pass\n\
             def guarded():\n    with pkg.repo.Repo() as r:\n        r.save()\n    try:\n        pass\n    except pkg.core.Boom as e:\n        e.explain()\n",
        ),
    ]);
    let has = |a: &str, b: &str, k: &str| edges.iter().any(|(x, y, z)| x == a && y == b && *z == k);
    for (a, b) in [
        ("py:app.main", "py:pkg.core.Thing.__init__"),
        ("py:app.main", "py:pkg.core.Base.run"),
        ("py:app.main", "py:pkg.core.Thing.make"),
        ("py:app.main", "py:os.path.join"),
        ("py:app.main", "py:pkg.repo.Repo.save"),
        // `self.step()` in Base runs the override (Base.step has no code).
        ("py:pkg.core.Base.run", "py:pkg.core.Thing.step"),
        ("py:pkg.core.Thing.__init__", "py:pkg.core.Base.__init__"),
        ("py:pkg.core.Thing.step", "py:pkg.repo.Repo.save"),
        ("py:pkg.core.Thing.step", "py:pkg.core.helper"),
        ("py:pkg.core.Thing.make", "py:pkg.core.Thing.__init__"),
        ("py:pkg.core.Thing.make", "py:pkg.repo.Repo"),
    ] {
        assert!(has(a, b, "call"), "no call {a} -> {b}: {edges:#?}");
    }
    // A call on an instance reaches the overrides in subclasses; an abstract base is left out.
    assert!(has(
        "py:pkg.repo.reload",
        "py:pkg.repo.SqlRepo.find",
        "call"
    ));
    assert!(!has("py:pkg.repo.reload", "py:pkg.repo.Repo.find", "call"));
    // `for r in repos.find()` types `r` from the element type of `find`'s annotation.
    assert!(has("py:pkg.repo.reload", "py:pkg.repo.Repo.save", "call"));
    // Decorators run where the `def` runs: a factory's returned function, a plain decorator.
    assert!(has("py:app", "py:app.traced", "call"));
    assert!(has("py:app", "py:app.traced.wrap", "call"));
    assert!(has("py:app", "py:app.plain", "call"));
    // A test's parameter is the fixture of that name in a conftest.py above it.
    assert!(has(
        "py:tests.test_repo.test_save",
        "py:pkg.repo.Repo.save",
        "call"
    ));
    // `with … as r` and `except … as e` bind instances.
    assert!(has("py:app.guarded", "py:pkg.repo.Repo.save", "call"));
    assert!(has("py:app.guarded", "py:pkg.core.Boom.explain", "call"));
    assert!(has("py:pkg.core.Thing", "py:pkg.core.Base", "inherits"));
    assert!(has(
        "py:pkg.core.Thing.step",
        "py:pkg.core.Base.step",
        "overrides"
    ));
    assert!(
        !edges.iter().any(|(_, b, _)| b.contains("unknown")),
        "an unbound name is not resolved: {edges:#?}"
    );
}

#[test]
fn celery_tasks_are_reached_from_their_senders_as_events() {
    let edges = package_edges(&[
        (
            "shop/tasks.py",
            "from celery import shared_task\n\
             from .app import celery\n\
             @shared_task\ndef send_receipt(oid):\n    pass\n\
             @celery.task(bind=True)\ndef reindex(self):\n    pass\n\
             @celery.task(name=\"shop.purge\")\ndef purge():\n    pass\n\
             def plain():\n    pass\n",
        ),
        (
            "shop/app.py",
            "from celery import Celery\ncelery = Celery('shop')\n",
        ),
        (
            "shop/views.py",
            "from . import tasks\n\
             from .tasks import send_receipt, plain\n\
             from celery import chain\n\
             from .app import celery\n\
             def pay(oid):\n    send_receipt.delay(oid)\n    tasks.reindex.apply_async()\n    plain()\n\
             def nightly():\n    celery.send_task(\"shop.purge\")\n    celery.send_task(\"shop.tasks.plain\")\n\
             def batch():\n    chain(send_receipt.s(1), tasks.reindex.si())()\n",
        ),
    ]);
    let has = |a: &str, b: &str, k: &str| edges.iter().any(|(x, y, z)| x == a && y == b && *z == k);
    assert!(
        has("py:shop.views.pay", "py:shop.tasks.send_receipt", "event"),
        "{edges:#?}"
    );
    assert!(
        has("py:shop.views.pay", "py:shop.tasks.reindex", "event"),
        "{edges:#?}"
    );
    assert!(has("py:shop.views.pay", "py:shop.tasks.plain", "call"));
    assert!(!has(
        "py:shop.views.pay",
        "py:shop.tasks.send_receipt",
        "call"
    ));
    // By the name a worker knows: the decorator's `name=`, else the qualified name; a plain
    // function is no task whatever its name.
    assert!(has("py:shop.views.nightly", "py:shop.tasks.purge", "event"));
    assert!(!has(
        "py:shop.views.nightly",
        "py:shop.tasks.plain",
        "event"
    ));
    // Signatures queued by a canvas.
    assert!(has(
        "py:shop.views.batch",
        "py:shop.tasks.send_receipt",
        "event"
    ));
    assert!(has("py:shop.views.batch", "py:shop.tasks.reindex", "event"));
}

#[test]
fn calls_follow_functions_passed_as_values_closures_and_decorator_wrappers() {
    let edges = package_edges(&[
        (
            "app/hooks.py",
            "import functools\n\
             import typing as t\n\
             \n\
             def run(cb, *, then=None):\n    cb()\n    then()\n\
             def handler():\n    pass\n\
             def after():\n    pass\n\
             def shadow():\n    pass\n\
             def unused(shadow):\n    shadow()\n\
             \n\
             class Button:\n\
             \x20   def __init__(self, label, on_click):\n        self.on_click = on_click\n\
             \x20   def press(self):\n        self.on_click()\n\
             def save():\n    pass\n\
             \n\
             def make(src):\n    def func():\n        return src()\n    return func\n\
             def read():\n    pass\n\
             get = make(read)\n\
             \n\
             def logged(f):\n    @functools.wraps(f)\n    def wrapper(*a):\n        return f(*a)\n    return wrapper\n\
             @logged\ndef work():\n    pass\n\
             \n\
             def setup(f):\n    def wrapper_func(self, *args):\n        return f(self, *args)\n    return t.cast(t.Any, functools.update_wrapper(wrapper_func, f))\n\
             class App:\n    @setup\n    def route(self, rule):\n        pass\n\
             \n\
             def main(app: App):\n    run(handler, then=after)\n    Button('ok', on_click=save).press()\n    get()\n    work()\n    app.route('/')\n",
        ),
        (
            "app/cli.py",
            "class Command:\n\
             \x20   def __init__(self, callback):\n        self.callback = callback\n\
             \x20   def __call__(self):\n        return self.main()\n\
             \x20   def main(self):\n        return self.callback()\n\
             def command(f):\n    return Command(f)\n\
             def pass_ctx(f):\n    def new_func(*args):\n        return f(None, *args)\n    return new_func\n\
             @command\n@pass_ctx\ndef cli(ctx):\n    pass\n\
             def test_cli():\n    cli.main()\n\
             def inner(maybe=None):\n    def wrap2(c):\n        return c\n    if maybe is None:\n        return wrap2\n    return wrap2(maybe)\n\
             def outer(maybe=None):\n    def wrap(c):\n        return inner(maybe=c)\n    if maybe is None:\n        return wrap\n    return wrap(maybe)\n\
             @outer()\nclass Model:\n    pass\n\
             run = go = test_cli\n\
             def main():\n    run()\n",
        ),
        (
            "app/use.py",
            "from app import cli\ndef again():\n    cli.go()\n",
        ),
    ]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    for (a, b) in [
        // A function passed as an argument (by position or keyword) is what the callee calls.
        ("py:app.hooks.run", "py:app.hooks.handler"),
        ("py:app.hooks.run", "py:app.hooks.after"),
        // Kept in an attribute by the constructor, called later.
        ("py:app.hooks.Button.press", "py:app.hooks.save"),
        // A closure returned and stored: calling it runs the closure, which runs what was passed.
        ("py:app.hooks", "py:app.hooks.make"),
        ("py:app.hooks.main", "py:app.hooks.make.func"),
        ("py:app.hooks.make.func", "py:app.hooks.read"),
        // A decorated function: its caller reaches the wrapper and the function, the wrapper
        // the function (`wraps`, and `update_wrapper` under `cast`).
        ("py:app.hooks.main", "py:app.hooks.logged.wrapper"),
        ("py:app.hooks.main", "py:app.hooks.work"),
        ("py:app.hooks.logged.wrapper", "py:app.hooks.work"),
        ("py:app.hooks.main", "py:app.hooks.setup.wrapper_func"),
        ("py:app.hooks.main", "py:app.hooks.App.route"),
        ("py:app.hooks.setup.wrapper_func", "py:app.hooks.App.route"),
        // A decorator that returns an instance: the name is that instance.
        ("py:app.cli.test_cli", "py:app.cli.Command.main"),
        // Through stacked decorators, each is handed what the one below gave.
        ("py:app.cli.Command.main", "py:app.cli.pass_ctx.new_func"),
        ("py:app.cli.pass_ctx.new_func", "py:app.cli.cli"),
        // A factory that returns its decorator, or applies it when handed the class at once.
        ("py:app.cli", "py:app.cli.outer.wrap"),
        // `a = b = f`: both names are `f`.
        ("py:app.cli.main", "py:app.cli.test_cli"),
        // A module-level alias is its value when reached through the module.
        ("py:app.use.again", "py:app.cli.test_cli"),
    ] {
        assert!(has(a, b), "no call {a} -> {b}: {edges:#?}");
    }
    for (a, b) in [
        // A parameter is not the module's function of the same name.
        ("py:app.hooks.unused", "py:app.hooks.shadow"),
        ("py:app.hooks.run", "py:app.hooks.save"),
        // The function under its decorators is called as it is, not as what they make of it.
        (
            "py:app.cli.pass_ctx.new_func",
            "py:app.cli.Command.__call__",
        ),
        ("py:app.cli.test_cli", "py:app.cli.cli"),
        // What the factory's other branch calls is not what the decoration applies.
        ("py:app.cli", "py:app.cli.inner.wrap2"),
    ] {
        assert!(!has(a, b), "a wrong call {a} -> {b}: {edges:#?}");
    }
}

/// A parameter rebound only on some paths (`if cls is None: cls = Command`) still holds what
/// its callers pass on the others; one rebound on every path does not.
#[test]
fn a_parameter_rebound_in_a_branch_keeps_what_callers_pass() {
    let edges = package_edges(&[(
        "app/cmd.py",
        "class Command:\n\
         \x20   def __init__(self, callback):\n        self.callback = callback\n\
         class Group(Command):\n\
         \x20   def __init__(self, callback):\n        self.callback = callback\n\
         def command(name=None, cls=None):\n    if cls is None:\n        cls = Command\n\
         \x20   def decorator(f):\n        return cls(f)\n    return decorator\n\
         def group(name=None):\n    return command(name, Group)\n\
         def invoke(callback, *args):\n    if isinstance(callback, Command):\n        callback = callback.callback\n    return callback(*args)\n\
         def hello():\n    pass\n\
         def wrap(g):\n    def inner():\n        pass\n    return inner\n\
         def always(f):\n    f = wrap(f)\n    f()\n\
         def job():\n    pass\n\
         def main():\n    invoke(hello)\n    always(job)\n",
    )]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    for (a, b) in [
        ("py:app.cmd.invoke", "py:app.cmd.hello"),
        (
            "py:app.cmd.command.decorator",
            "py:app.cmd.Command.__init__",
        ),
        ("py:app.cmd.command.decorator", "py:app.cmd.Group.__init__"),
        ("py:app.cmd.always", "py:app.cmd.wrap.inner"),
    ] {
        assert!(has(a, b), "no call {a} -> {b}: {edges:#?}");
    }
    assert!(
        !has("py:app.cmd.always", "py:app.cmd.job"),
        "rebound on every path: {edges:#?}"
    );
}

/// A keyword argument handed on through `**kwargs` (`Option(callback=f)` → `super().__init__(
/// **attrs)`) reaches the parameter of that name; one the caller takes itself does not.
#[test]
fn keywords_handed_on_through_kwargs_reach_their_parameter() {
    let edges = package_edges(&[(
        "cli/params.py",
        "class Parameter:\n\
         \x20   def __init__(self, decls, callback=None):\n        self.callback = callback\n\
         \x20   def process(self):\n        self.callback()\n\
         class Option(Parameter):\n\
         \x20   def __init__(self, decls, **attrs):\n        super().__init__(decls, **attrs)\n\
         class Flag(Parameter):\n\
         \x20   def __init__(self, decls, callback=None, **attrs):\n        super().__init__(decls, **attrs)\n\
         def validate():\n    pass\n\
         def ignored():\n    pass\n\
         def option(*decls, cls=None, **attrs):\n    if cls is None:\n        cls = Option\n    def decorator(f):\n        cls(decls, **attrs)\n        return f\n    return decorator\n\
         def check():\n    pass\n\
         @option('--z', callback=check)\n\
         def command():\n    pass\n\
         def main():\n    Option('x', callback=validate).process()\n    Flag('y', callback=ignored)\n",
    )]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    assert!(
        has("py:cli.params.Parameter.process", "py:cli.params.validate"),
        "{edges:#?}"
    );
    // Through a decorator factory's closure.
    assert!(
        has("py:cli.params.Parameter.process", "py:cli.params.check"),
        "{edges:#?}"
    );
    assert!(
        !has("py:cli.params.Parameter.process", "py:cli.params.ignored"),
        "{edges:#?}"
    );
}

/// Functions kept in an instance's container (`self.view_functions[endpoint] = view_func`,
/// `self.before.setdefault(k, []).append(f)`) are what calling an element of it runs, directly
/// or through a call that gives back its argument (`self.ensure_sync(…)(…)`), from `reversed(…)`
/// and from `.get(k)`. A bound method
/// used as a decorator (`@app.hook`) is handed the function after `self`.
#[test]
fn functions_kept_in_containers_are_called_from_them() {
    let edges = package_edges(&[(
        "web/app.py",
        "class Scaffold:\n\
         \x20   def __init__(self):\n        self.view_functions = {}\n        self.before = {}\n\
         \x20   def add(self, endpoint, view_func):\n        self.view_functions[endpoint] = view_func\n\
         \x20   def hook(self, f):\n        self.before.setdefault(None, []).append(f)\n        return f\n\
         class App(Scaffold):\n\
         \x20   def ensure_sync(self, func):\n        return func\n\
         \x20   def dispatch(self, endpoint):\n        for f in reversed(self.before[None]):\n            f()\n        return self.ensure_sync(self.view_functions[endpoint])()\n\
         \x20   def find(self, code):\n        handler = self.handlers[code].get(code)\n        return handler\n\
         \x20   def handle(self, code):\n        self.find(code)()\n\
         \x20   def register(self, code, f):\n        self.handlers[None][code] = f\n\
         class Other:\n\
         \x20   def run(self):\n        self.view_functions['x']()\n\
         def index():\n    pass\n\
         def never():\n    pass\n\
         app = App()\n\
         app.add('index', index)\n\
         def oops():\n    pass\n\
         app.register(404, oops)\n\
         @app.hook\n\
         def check():\n    pass\n",
    )]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    for (a, b) in [
        ("py:web.app.App.dispatch", "py:web.app.index"),
        ("py:web.app.App.dispatch", "py:web.app.check"),
        ("py:web.app.App.dispatch", "py:web.app.App.ensure_sync"),
        ("py:web.app.App.handle", "py:web.app.oops"),
    ] {
        assert!(has(a, b), "no call {a} -> {b}: {edges:#?}");
    }
    for (a, b) in [
        ("py:web.app.App.dispatch", "py:web.app.never"),
        // Reading an element calls none.
        ("py:web.app.App.find", "py:web.app.oops"),
        ("py:web.app.Other.run", "py:web.app.index"),
    ] {
        assert!(!has(a, b), "a wrong call {a} -> {b}: {edges:#?}");
    }
}

/// A package's `.pyi` stub types its names; the `.py` beside it is what runs: a call through the
/// package reaches the definition its `__init__.py` re-exports, not the stub's declaration.
#[test]
fn a_stub_beside_its_module_does_not_take_its_names() {
    let edges = package_edges(&[
        ("pkg/__init__.py", "from ._make import attrib\n"),
        (
            "pkg/__init__.pyi",
            "def attrib(default: int = ...) -> int: ...\n",
        ),
        (
            "pkg/_make.py",
            "def attrib(default=None):\n    return default\n",
        ),
        ("app.py", "import pkg\n\ndef main():\n    pkg.attrib(1)\n"),
        ("stubonly/__init__.pyi", "def run() -> None: ...\n"),
        (
            "tool.py",
            "import stubonly\n\ndef go():\n    stubonly.run()\n",
        ),
    ]);
    let calls: Vec<(&str, &str)> = edges
        .iter()
        .filter(|e| e.2 == "call")
        .map(|e| (e.0.as_str(), e.1.as_str()))
        .collect();
    assert!(
        calls.contains(&("py:app.main", "py:pkg._make.attrib")),
        "{calls:?}"
    );
    assert!(!calls.iter().any(|c| c.1 == "py:pkg.attrib"), "{calls:?}");
    // A module known only by its stub keeps the stub's names.
    assert!(
        calls.contains(&("py:tool.go", "py:stubonly.run")),
        "{calls:?}"
    );
}

/// Route edges of a small package as (route id, handler id).
fn package_routes(files: &[(&str, &str)]) -> Vec<(String, String)> {
    let analysed: Vec<(RepoPath, FileAnalysis)> = files
        .iter()
        .map(|(p, src)| {
            let p = path(p);
            let a =
                crate::lang::analyze(LANGUAGE, &p, "m", src.as_bytes(), &ParseLimits::default());
            (p, a)
        })
        .collect();
    let facts: Vec<(&RepoPath, &crate::graph::FileFacts)> = analysed
        .iter()
        .map(|(p, a)| (p, a.facts.as_deref().expect("facts")))
        .collect();
    let mut out: Vec<(String, String)> = crate::graph::build(&facts)
        .into_iter()
        .flat_map(|(_, es)| es)
        .filter(|e| e.kind == crate::graph::EdgeKind::Route)
        .map(|e| (e.caller, e.callee.unwrap_or_default()))
        .collect();
    out.sort();
    out
}

#[test]
fn django_urlconfs_route_under_their_include_prefixes() {
    let routes = package_routes(&[
        (
            "mysite/urls.py",
            "from django.urls import include, path, re_path\n\
             from rest_framework import routers\n\
             from shop import views as shop_views\n\
             from shop.api import OrderViewSet\n\
             router = routers.DefaultRouter()\n\
             router.register(r\"orders\", OrderViewSet)\n\
             urlpatterns = [\n\
             \x20   path(\"shop/\", include(\"shop.urls\")),\n\
             \x20   path(\"api/v1/\", include(router.urls)),\n\
             \x20   re_path(r\"^legacy/(?P<oid>[0-9]+)/$\", shop_views.detail),\n\
             ]\n",
        ),
        (
            "shop/urls.py",
            "from django.urls import include, path\n\
             from . import views\n\
             extra = [path(\"receipt/\", views.receipt)]\n\
             urlpatterns = [\n\
             \x20   path(\"orders/<int:pk>/\", views.detail, name=\"detail\"),\n\
             \x20   path(\"orders/<int:pk>/pay/\", views.PayView.as_view()),\n\
             \x20   path(\"orders/<int:pk>/\", include(extra)),\n\
             \x20   path(\"list/\", views.OrderList.as_view()),\n\
             ]\n",
        ),
        (
            "shop/views.py",
            "from django.views import View\n\
             from django.views.generic import ListView\n\
             from django.views.decorators.http import require_POST, require_http_methods\n\
             @require_http_methods([\"GET\", \"HEAD\"])\n\
             def detail(request, pk):\n    pass\n\
             @require_POST\ndef receipt(request, pk):\n    pass\n\
             class PayView(View):\n    def get(self, request, pk):\n        pass\n    def post(self, request, pk):\n        pass\n\
             class OrderList(ListView):\n    model = None\n",
        ),
        (
            "shop/api.py",
            "from rest_framework import viewsets\n\
             from rest_framework.decorators import action\n\
             class OrderViewSet(viewsets.ModelViewSet):\n\
             \x20   def list(self, request):\n        pass\n\
             \x20   @action(detail=True, methods=[\"post\"], url_path=\"cancel\")\n\
             \x20   def cancel_order(self, request, pk=None):\n        pass\n",
        ),
    ]);
    let want = [
        ("route:GET /shop/orders/{pk}", "py:shop.views.detail"),
        ("route:HEAD /shop/orders/{pk}", "py:shop.views.detail"),
        (
            "route:POST /shop/orders/{pk}/receipt",
            "py:shop.views.receipt",
        ),
        (
            "route:GET /shop/orders/{pk}/pay",
            "py:shop.views.PayView.get",
        ),
        (
            "route:POST /shop/orders/{pk}/pay",
            "py:shop.views.PayView.post",
        ),
        ("route:ANY /shop/list", "py:shop.views.OrderList"),
        ("route:GET /legacy/{oid}", "py:shop.views.detail"),
        ("route:HEAD /legacy/{oid}", "py:shop.views.detail"),
        ("route:GET /api/v1/orders", "py:shop.api.OrderViewSet.list"),
        (
            "route:POST /api/v1/orders/{pk}/cancel",
            "py:shop.api.OrderViewSet.cancel_order",
        ),
    ];
    for (route, handler) in want {
        assert!(
            routes.iter().any(|(r, h)| r == route && h == handler),
            "{route} -> {handler} in {routes:#?}"
        );
    }
    assert_eq!(routes.len(), want.len(), "{routes:#?}");
}

#[test]
fn signals_reach_their_receivers_from_senders_and_models() {
    let edges = package_edges(&[
        (
            "shop/signals.py",
            "from django.dispatch import Signal\nfrom blinker import signal\n\
             order_paid = Signal()\nstock_low = signal(\"stock-low\")\nunused = Signal()\n",
        ),
        (
            "shop/models.py",
            "from django.db import models\nfrom . import signals\n\
             class Order(models.Model):\n    def pay(self):\n        signals.order_paid.send(sender=Order, order=self)\n\
             def check():\n    signals.stock_low.send(\"sku\")\n    signals.unused.send(None)\n",
        ),
        (
            "shop/receivers.py",
            "from django.db.models.signals import post_save\n\
             from django.dispatch import receiver\n\
             from .models import Order\n\
             from .signals import order_paid, stock_low\n\
             @receiver(order_paid)\ndef notify(sender, **kw):\n    pass\n\
             def audit(sender, instance, **kw):\n    pass\n\
             post_save.connect(audit, sender=Order)\n\
             @stock_low.connect\ndef reorder(sender):\n    pass\n\
             import shop.signals\n\
             def again(sender, **kw):\n    pass\n\
             shop.signals.order_paid.connect(again)\n\
             class Holder:\n    def __init__(self):\n        self.sig = signals_mod.Signal()\n\
             \x20   def fire(self):\n        self.sig.send(None)\n\
             import django.dispatch as signals_mod\n\
             def stray(sender):\n    pass\n\
             h = Holder()\nh.sig.connect(stray)\n\
             def other(sender):\n    pass\n\
             class Mailer:\n    def send(self):\n        pass\n\
             def go(m: Mailer):\n    m.send()\n",
        ),
    ]);
    let has = |a: &str, b: &str, k: &str| edges.iter().any(|(x, y, z)| x == a && y == b && *z == k);
    assert!(
        has(
            "py:shop.models.Order.pay",
            "py:shop.receivers.notify",
            "event"
        ),
        "{edges:#?}"
    );
    assert!(has(
        "py:shop.models.check",
        "py:shop.receivers.reorder",
        "event"
    ));
    assert!(has(
        "py:shop.models.Order",
        "py:shop.receivers.audit",
        "event"
    ));
    let events: Vec<_> = edges.iter().filter(|e| e.2 == "event").collect();
    assert_eq!(events.len(), 4, "one edge per connection: {events:#?}");
}

/// The `db` edges of a small package as (caller, table, operation).
fn package_tables(files: &[(&str, &str)]) -> Vec<(String, String, String)> {
    let analysed: Vec<(RepoPath, FileAnalysis)> = files
        .iter()
        .map(|(p, src)| {
            let p = path(p);
            let a =
                crate::lang::analyze(LANGUAGE, &p, "m", src.as_bytes(), &ParseLimits::default());
            (p, a)
        })
        .collect();
    let facts: Vec<(&RepoPath, &crate::graph::FileFacts)> = analysed
        .iter()
        .map(|(p, a)| (p, a.facts.as_deref().expect("facts")))
        .collect();
    let mut out: Vec<(String, String, String)> = crate::graph::build(&facts)
        .into_iter()
        .flat_map(|(_, es)| es)
        .filter(|e| e.kind == crate::graph::EdgeKind::Db)
        .map(|e| (e.caller, e.callee.unwrap_or_default(), e.detail))
        .collect();
    out.sort();
    out
}

#[test]
fn models_name_their_tables_and_queries_use_them() {
    let db = package_tables(&[
        (
            "shop/models.py",
            "from django.db import models\n\
             class Stamped(models.Model):\n    class Meta:\n        abstract = True\n\
             class Order(Stamped):\n    def pay(self):\n        self.save()\n\
             class Receipt(models.Model):\n    class Meta:\n        db_table = \"receipts\"\n\
             class OrderProxy(Order):\n    class Meta:\n        proxy = True\n\
             class Plain:\n    pass\n",
        ),
        (
            "shop/views.py",
            "from .models import Order, Receipt, Plain\n\
             def show(pk):\n    o = Order.objects.get(pk=pk)\n    o.delete()\n    Receipt.objects.create(order=o)\n    Plain.objects.get()\n    {}.get(Order)\n",
        ),
        (
            "inv/tables.py",
            "from sqlalchemy import Column, Integer, MetaData, Table, select\n\
             from sqlalchemy.orm import DeclarativeBase, Session\n\
             metadata = MetaData()\n\
             stock = Table(\"stock\", metadata, Column(\"id\", Integer))\n\
             class Base(DeclarativeBase):\n    pass\n\
             class Item(Base):\n    __tablename__ = \"items\"\n\
             def find(session: Session):\n    session.query(Item).all()\n    session.execute(select(Item))\n    item = Item()\n    session.add(item)\n",
        ),
    ]);
    let has = |a: &str, t: &str, op: &str| db.iter().any(|(x, y, z)| x == a && y == t && z == op);
    for (caller, table, op) in [
        ("py:shop.models.Order", "table:shop_order", "model"),
        ("py:shop.models.Receipt", "table:receipts", "model"),
        ("py:shop.models.OrderProxy", "table:shop_order", "model"),
        ("py:shop.models.Order.pay", "table:shop_order", "save"),
        ("py:shop.views.show", "table:shop_order", "select"),
        ("py:shop.views.show", "table:shop_order", "delete"),
        ("py:shop.views.show", "table:receipts", "insert"),
        ("py:inv.tables.stock", "table:stock", "model"),
        ("py:inv.tables.Item", "table:items", "model"),
        ("py:inv.tables.find", "table:items", "select"),
        ("py:inv.tables.find", "table:items", "insert"),
    ] {
        assert!(has(caller, table, op), "{caller} {op} {table}: {db:#?}");
    }
    assert!(
        !db.iter().any(|e| e.0.contains("Stamped")),
        "abstract: {db:#?}"
    );
    assert_eq!(db.len(), 12, "{db:#?}");
}

#[test]
fn configuration_readers_reach_their_keys() {
    let analysed: Vec<(RepoPath, FileAnalysis)> = [
        (
            "site/settings.py",
            "import os\nfrom os import environ\n\
             DEBUG = os.environ.get(\"APP_DEBUG\") == \"1\"\n\
             TIMEOUT = int(os.getenv(\"APP_TIMEOUT\", \"30\"))\n\
             SECRET = environ[\"APP_SECRET\"]\n\
             import environ as django_environ\n\
             env = django_environ.Env()\n\
             HOSTS = env.list(\"APP_HOSTS\")\n",
        ),
        (
            "site/conf.py",
            "from pydantic import Field\n\
             from pydantic_settings import BaseSettings, SettingsConfigDict\n\
             class Pay(BaseSettings):\n    model_config = SettingsConfigDict(env_prefix=\"pay_\")\n    api_key: str\n    url: str = Field(\"x\", alias=\"PAYMENT_URL\")\n\
             class Old(BaseSettings):\n    host: str = \"h\"\n    class Config:\n        env_prefix = \"OLD_\"\n\
             class NotSettings:\n    port: int = 1\n",
        ),
        (
            "site/views.py",
            "from django.conf import settings\n\
             def show():\n    if settings.DEBUG:\n        return getattr(settings, \"TIMEOUT\", 5)\n    return settings.MISSING\n\
             class Local:\n    DEBUG = 1\n\
             def other(x: Local):\n    return x.DEBUG\n",
        ),
    ]
    .iter()
    .map(|(p, src)| {
        let p = path(p);
        let a = crate::lang::analyze(LANGUAGE, &p, "m", src.as_bytes(), &ParseLimits::default());
        (p, a)
    })
    .collect();
    let facts: Vec<(&RepoPath, &crate::graph::FileFacts)> = analysed
        .iter()
        .map(|(p, a)| (p, a.facts.as_deref().expect("facts")))
        .collect();
    let mut config: Vec<String> = crate::graph::build(&facts)
        .into_iter()
        .flat_map(|(_, es)| es)
        .filter(|e| e.kind == crate::graph::EdgeKind::Config)
        .map(|e| {
            let at = e
                .callee_file
                .map(|f| format!(" @{f}:{}", e.callee_line.unwrap_or(0)));
            format!(
                "{} -> {} [{}]{}",
                e.caller,
                e.callee.unwrap_or_default(),
                e.detail,
                at.unwrap_or_default()
            )
        })
        .collect();
    config.sort();
    assert_eq!(
        config,
        [
            "py:site.conf.Old.host -> config:OLD_HOST [settings field of Old]",
            "py:site.conf.Pay.api_key -> config:PAY_API_KEY [settings field of Pay]",
            "py:site.conf.Pay.url -> config:PAYMENT_URL [settings field of Pay]",
            "py:site.settings -> config:APP_DEBUG [environment]",
            "py:site.settings -> config:APP_HOSTS [environment]",
            "py:site.settings -> config:APP_SECRET [environment]",
            "py:site.settings -> config:APP_TIMEOUT [environment; default 30]",
            "py:site.views.show -> config:DEBUG [django setting] @site/settings.py:3",
            "py:site.views.show -> config:MISSING [django setting]",
            "py:site.views.show -> config:TIMEOUT [django setting] @site/settings.py:4",
        ]
    );
}

/// A factory whose result depends on the arguments of that call: `@group()` passes `Group` on
/// to `command(name, cls)`, whose decorator makes a `cls`, so the name is a `Group` (not the
/// `Command` that `command`'s own default gives); `make(Group)` returns a `Group`.
#[test]
fn a_factory_makes_what_the_call_passes_it() {
    let edges = package_edges(&[(
        "cli/core.py",
        "class Command:\n\
         \x20   def __init__(self, callback):\n        self.callback = callback\n\
         \x20   def main(self):\n        pass\n\
         class Group(Command):\n\
         \x20   def add(self):\n        pass\n\
         def command(name=None, cls=None):\n    if cls is None:\n        cls = Command\n\
         \x20   def decorator(f):\n        cmd = cls(f)\n        return cmd\n    return decorator\n\
         def group(name=None, cls=None):\n    if cls is None:\n        cls = Group\n    return command(name, cls)\n\
         def make(kind):\n    return kind(None)\n\
         @group()\n\
         def cli():\n    pass\n\
         @command()\n\
         def hello():\n    pass\n\
         def main():\n    cli.add()\n    hello.main()\n    made = make(Group)\n    made.add()\n",
    )]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    for (a, b) in [
        ("py:cli.core.main", "py:cli.core.Group.add"),
        ("py:cli.core.main", "py:cli.core.Command.main"),
    ] {
        assert!(has(a, b), "no call {a} -> {b}: {edges:#?}");
    }
    let adds = edges
        .iter()
        .filter(|(x, y, _)| x == "py:cli.core.main" && y == "py:cli.core.Group.add")
        .count();
    assert_eq!(
        adds, 2,
        "both `cli.add()` and `made.add()` are Group.add: {edges:#?}"
    );
}

/// A dispatcher handed hundreds of functions (flask's `view_functions`, click's `invoke`) calls
/// each of them: the values followed per parameter and container are not cut at a few hundred.
#[test]
fn a_dispatcher_reaches_every_function_registered_with_it() {
    let mut src = String::from(
        "class App:\n\
         \x20   def __init__(self):\n        self.views = {}\n\
         \x20   def add(self, name, view):\n        self.views[name] = view\n\
         \x20   def dispatch(self, name):\n        return self.views[name]()\n\
         app = App()\n",
    );
    for i in 0..600 {
        src.push_str(&format!(
            "def view{i}():\n    pass\napp.add('v{i}', view{i})\n"
        ));
    }
    let edges = package_edges(&[("web/app.py", &src)]);
    let reached = edges
        .iter()
        .filter(|(a, b, k)| {
            a == "py:web.app.App.dispatch" && b.starts_with("py:web.app.view") && *k == "call"
        })
        .count();
    assert_eq!(reached, 600, "{edges:#?}");
}

/// A container attribute iterated as it is (`for f in reversed(self.hooks)`) gives what is stored
/// in it, by the class's own methods or through any object that is one of its instances
/// (`self.reg.hooks.append(f)`); a container of the same name in another class is another bag.
#[test]
fn containers_are_filled_through_any_instance_and_iterated_whole() {
    let edges = package_edges(&[(
        "app/hooks.py",
        "class Registry:\n\
         \x20   def register(self, f):\n        self.hooks.append(f)\n\
         \x20   def run(self):\n        for h in reversed(self.hooks):\n            h()\n\
         class State:\n\
         \x20   def __init__(self, reg: Registry):\n        self.reg = reg\n\
         \x20   def add(self, f):\n        self.reg.hooks.append(f)\n\
         class Other:\n\
         \x20   def add(self, f):\n        self.hooks.append(f)\n\
         def first():\n    pass\n\
         def hook():\n    pass\n\
         def other():\n    pass\n\
         def setup(reg: Registry):\n    reg.register(first)\n    state = State(reg)\n    state.add(hook)\n    Other().add(other)\n",
    )]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    for b in ["py:app.hooks.first", "py:app.hooks.hook"] {
        assert!(
            has("py:app.hooks.Registry.run", b),
            "no call run -> {b}: {edges:#?}"
        );
    }
    assert!(
        !has("py:app.hooks.Registry.run", "py:app.hooks.other"),
        "{edges:#?}"
    );
}

/// An annotated assignment whose value is no name chain (`cmd: Group = group(…)(f)`) makes its
/// target an instance of the annotation's class; a value that is a name chain still wins.
#[test]
fn an_annotation_types_a_value_that_is_no_name_chain() {
    let edges = package_edges(&[(
        "app/groups.py",
        "class Group:\n\
         \x20   def add(self):\n        pass\n\
         class Other:\n\
         \x20   def add(self):\n        pass\n\
         def build():\n    return []\n\
         def main():\n    g: Group = build()[0]\n    g.add()\n    q: \"Group\" = build()()\n    q.add()\n    k: Other = Group()\n    k.add()\n",
    )]);
    let adds: Vec<&str> = edges
        .iter()
        .filter(|(a, _, k)| a == "py:app.groups.main" && *k == "call")
        .map(|(_, b, _)| b.as_str())
        .filter(|b| b.ends_with(".add"))
        .collect();
    assert_eq!(adds, ["py:app.groups.Group.add"; 3], "{edges:#?}");
}

/// An argument that is a call gives its parameter the call's result: a decorator's wrapper
/// calling `f(get_context(), *args)` hands `f` a `Context`.
#[test]
fn an_argument_that_is_a_call_gives_its_result() {
    let edges = package_edges(&[(
        "cli/ctx.py",
        "class Context:\n\
         \x20   def exit(self, code):\n        pass\n\
         def get_context() -> Context:\n    return None\n\
         def pass_context(f):\n    def new_func(*args):\n        return f(get_context(), *args)\n    return new_func\n\
         @pass_context\n\
         def cli(ctx):\n    ctx.exit(1)\n",
    )]);
    assert!(
        edges.iter().any(|(a, b, k)| a == "py:cli.ctx.cli"
            && b == "py:cli.ctx.Context.exit"
            && *k == "call"),
        "{edges:#?}"
    );
}

#[test]
fn an_f_string_keeps_its_expressions_as_placeholders() {
    let src = b"def pay(oid):\n    raise ValueError(f\"order {oid} is not awaiting payment\")\n";
    let a = analyze(&path("shop/orders.py"), "", src, &ParseLimits::default()).unwrap();
    let texts: Vec<&str> = symbol(&a, "py:shop.orders.pay")
        .literals
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(texts, ["order {} is not awaiting payment"]);
}

/// The (caller, callee) call edges of `edges` from `caller`.
fn calls_from<'a>(edges: &'a [(String, String, &'static str)], caller: &str) -> Vec<&'a str> {
    edges
        .iter()
        .filter(|(a, _, k)| a == caller && *k == "call")
        .map(|(_, b, _)| b.as_str())
        .collect()
}

/// Reading or assigning an attribute runs code with no call syntax: a property's getter or
/// setter, a descriptor's `__get__`/`__set__`, `__getattr__` for a name the class lacks,
/// `__setattr__` on an assignment; `getattr(x, "name")` spells the same read.
#[test]
fn attribute_reads_and_assignments_run_properties_descriptors_and_attribute_hooks() {
    let edges = package_edges(&[(
        "app/obj.py",
        "import functools\n\
         class Setting:\n\
         \x20   def __init__(self, key):\n        self.key = key\n\
         \x20   def __get__(self, obj, owner=None):\n        return 1\n\
         \x20   def __set__(self, obj, value):\n        pass\n\
         class Meta:\n\
         \x20   def lang(self):\n        pass\n\
         class App:\n\
         \x20   debug = Setting[bool](\"DEBUG\")\n\
         \x20   def __init__(self):\n        self.known = 1\n\
         \x20   @property\n    def name(self):\n        return 'x'\n\
         \x20   @name.setter\n    def name(self, v):\n        pass\n\
         \x20   @functools.cached_property\n    def meta(self) -> Meta:\n        return Meta()\n\
         \x20   def __getattr__(self, item):\n        return item\n\
         class Quiet:\n\
         \x20   def __setattr__(self, k, v):\n        pass\n\
         def main(app: App, q: Quiet):\n\
         \x20   print(app.name)\n    app.name = 'y'\n    app.meta.lang()\n\
         \x20   print(app.debug)\n    app.debug = True\n    print(app.known, app.missing)\n\
         \x20   q.x = 1\n\
         def by_name(app: App):\n    return getattr(app, \"meta\")\n",
    )]);
    let main = calls_from(&edges, "py:app.obj.main");
    for callee in [
        "py:app.obj.App.name",
        "py:app.obj.App.meta",
        "py:app.obj.Meta.lang",
        "py:app.obj.Setting.__get__",
        "py:app.obj.Setting.__set__",
        "py:app.obj.App.__getattr__",
        "py:app.obj.Quiet.__setattr__",
    ] {
        assert!(main.contains(&callee), "{callee} missing from {main:#?}");
    }
    let getattr_hooks = main.iter().filter(|c| c.ends_with("__getattr__")).count();
    assert_eq!(getattr_hooks, 1, "`known` is set in __init__: {main:#?}");
    assert_eq!(
        calls_from(&edges, "py:app.obj.by_name"),
        ["py:app.obj.App.meta"]
    );
}

/// `with` runs the manager's `__enter__` and `__exit__` (`async with` the async pair), as
/// `ExitStack.enter_context` runs `__enter__`; `for` runs the iterable's `__iter__`, an
/// operator or a builtin its operand's special method (`m == n`, `len(b)`), and a class
/// statement its base's `__init_subclass__`.
#[test]
fn statements_operators_and_builtins_run_their_special_methods() {
    let edges = package_edges(&[(
        "app/ctx.py",
        "class Ctx:\n\
         \x20   def __enter__(self):\n        return self\n\
         \x20   def __exit__(self, *a):\n        pass\n\
         \x20   async def __aenter__(self):\n        return self\n\
         \x20   async def __aexit__(self, *a):\n        pass\n\
         \x20   def __iter__(self):\n        return iter([])\n\
         class Base:\n\
         \x20   def __init_subclass__(cls, **kw):\n        pass\n\
         class App:\n\
         \x20   def context(self) -> Ctx:\n        return Ctx()\n\
         def main(app: App):\n\
         \x20   with app.context() as c:\n        pass\n\
         \x20   for x in Ctx():\n        pass\n\
         async def run(c: Ctx):\n    async with c:\n        pass\n\
         class Child(Base):\n    pass\n\
         def stacked(app: App):\n    with contextlib.ExitStack() as stack:\n        stack.enter_context(app.context())\n\
         def resource(stack, m):\n    return stack.enter_context(m)\n\
         def use(stack):\n    resource(stack, Ctx())\n\
         class Box:\n\
         \x20   def __len__(self):\n        return 0\n\
         \x20   def __repr__(self):\n        return 'Box'\n\
         def show(b: Box):\n    return len(b), str(b)\n\
         class Money:\n\
         \x20   def __eq__(self, o):\n        return True\n\
         \x20   def __add__(self, o):\n        return self\n\
         \x20   def __contains__(self, k):\n        return False\n\
         \x20   def __getitem__(self, k):\n        return 0\n\
         \x20   def __setitem__(self, k, v):\n        pass\n\
         \x20   def __neg__(self):\n        return self\n\
         \x20   def __repr__(self):\n        return 'Money'\n\
         def ops(m: Money, n: int):\n\
         \x20   m += m\n    m[0] = m[1]\n    return m == m, 1 in m, -m, f\"{m!r}\", n + 1\n",
    )]);
    let mut main = calls_from(&edges, "py:app.ctx.main");
    main.retain(|c| c.contains("__"));
    main.sort();
    assert_eq!(
        main,
        [
            "py:app.ctx.Ctx.__enter__",
            "py:app.ctx.Ctx.__exit__",
            "py:app.ctx.Ctx.__iter__"
        ]
    );
    assert_eq!(
        calls_from(&edges, "py:app.ctx.run"),
        ["py:app.ctx.Ctx.__aenter__", "py:app.ctx.Ctx.__aexit__"]
    );
    assert!(
        calls_from(&edges, "py:app.ctx").contains(&"py:app.ctx.Base.__init_subclass__"),
        "{edges:#?}"
    );
    let mut show = calls_from(&edges, "py:app.ctx.show");
    show.sort();
    assert_eq!(
        show,
        ["py:app.ctx.Box.__len__", "py:app.ctx.Box.__repr__"],
        "str() falls back on __repr__"
    );
    let mut ops = calls_from(&edges, "py:app.ctx.ops");
    ops.sort();
    assert_eq!(
        ops,
        [
            "py:app.ctx.Money.__add__",
            "py:app.ctx.Money.__contains__",
            "py:app.ctx.Money.__eq__",
            "py:app.ctx.Money.__getitem__",
            "py:app.ctx.Money.__neg__",
            "py:app.ctx.Money.__repr__",
            "py:app.ctx.Money.__setitem__",
        ],
        "`+=` falls back on __add__; an int's `+` runs nothing of the project"
    );
    for caller in ["py:app.ctx.stacked", "py:app.ctx.resource"] {
        assert!(
            calls_from(&edges, caller).contains(&"py:app.ctx.Ctx.__enter__"),
            "an ExitStack enters what {caller} hands it: {edges:#?}"
        );
    }
}

/// A name declared with a project class but assigned something the project does not define
/// (`request: Request = LocalProxy(…)`) holds that class, as a type checker reads it; a
/// value the project does define still wins.
#[test]
fn a_declared_type_holds_where_the_value_is_not_the_projects() {
    let edges = package_edges(&[
        (
            "web/wrappers.py",
            "class Request:\n\
             \x20   @property\n    def endpoint(self):\n        return ''\n\
             \x20   def get_json(self):\n        pass\n\
             class Fake(Request):\n\
             \x20   def get_json(self):\n        pass\n",
        ),
        (
            "web/globals.py",
            "from werkzeug.local import LocalProxy\n\
             from .wrappers import Request, Fake\n\
             request: Request = LocalProxy(\"request\")\n\
             fake: Request = Fake()\n",
        ),
        (
            "web/views.py",
            "from .globals import request, fake\n\
             def index():\n    print(request.endpoint)\n    request.get_json()\n\
             def test():\n    fake.get_json()\n",
        ),
    ]);
    let mut index = calls_from(&edges, "py:web.views.index");
    index.sort();
    assert_eq!(
        index,
        [
            "py:web.wrappers.Fake.get_json",
            "py:web.wrappers.Request.endpoint",
            "py:web.wrappers.Request.get_json"
        ],
        "an instance of Request may be a Fake"
    );
    assert_eq!(
        calls_from(&edges, "py:web.views.test"),
        ["py:web.wrappers.Fake.get_json"]
    );
}

/// A method called on what a call gives (`make().run()`, `Ctx().meta.lang()`).
#[test]
fn a_calls_result_is_a_receiver() {
    let edges = package_edges(&[(
        "app/chain.py",
        "class Meta:\n\
         \x20   def lang(self):\n        pass\n\
         class Ctx:\n\
         \x20   def __init__(self):\n        self.meta = Meta()\n\
         \x20   def run(self):\n        pass\n\
         def make() -> Ctx:\n    return Ctx()\n\
         def main():\n    make().run()\n    Ctx().meta.lang()\n",
    )]);
    let main = calls_from(&edges, "py:app.chain.main");
    for callee in [
        "py:app.chain.Ctx.run",
        "py:app.chain.Meta.lang",
        "py:app.chain.make",
    ] {
        assert!(main.contains(&callee), "{callee} missing from {main:#?}");
    }
}

/// A property given as a URLconf view (`admin.site.urls`) routes to the property, the code
/// that builds what is mounted there, though reading it elsewhere gives what it returns.
#[test]
fn a_property_given_as_a_view_is_the_routes_handler() {
    let routes = package_routes(&[
        (
            "admin/sites.py",
            "class AdminSite:\n\
             \x20   @property\n    def urls(self):\n        return [], 'admin', 'admin'\n\
             site = AdminSite()\n",
        ),
        (
            "mysite/urls.py",
            "from django.urls import path\n\
             from admin.sites import site\n\
             urlpatterns = [path(\"admin/\", site.urls)]\n",
        ),
    ]);
    assert_eq!(
        routes,
        [(
            "route:ANY /admin".to_string(),
            "py:admin.sites.AdminSite.urls".to_string()
        )]
    );
}
