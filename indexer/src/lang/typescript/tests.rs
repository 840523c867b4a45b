use super::*;
use crate::lang::assert_inline_defs;
use crate::model::{Symbol, SymbolKind};

const KITCHEN: &[u8] = include_bytes!("../../../../tests/fixtures/typescript/kitchen.ts");

fn symbol<'a>(a: &'a FileAnalysis, id: &str) -> &'a Symbol {
    a.symbols.iter().find(|s| s.id.0 == id).unwrap_or_else(|| {
        panic!(
            "no symbol {id}: {:#?}",
            a.symbols.iter().map(|s| &s.id.0).collect::<Vec<_>>()
        )
    })
}

fn path(p: &str) -> RepoPath {
    RepoPath::new(p).unwrap()
}

#[test]
fn kitchen_fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(LANGUAGE, "src/kitchen/shop.ts", KITCHEN);
    assert_eq!(a.package.as_deref(), Some("kitchen.shop"));
    assert_eq!(
        a.imports,
        [
            "@nestjs/common.Injectable",
            "@nestjs/common.Get",
            "fs.fs",
            "./repo.Repo",
            "./repo.Row"
        ]
    );
}

const KITCHEN_JS: &[u8] = include_bytes!("../../../../tests/fixtures/typescript/kitchen.js");

#[test]
fn javascript_fixture_symbols_are_where_its_comments_say() {
    let a = assert_inline_defs(JAVASCRIPT, "lib/kitchen.js", KITCHEN_JS);
    assert_eq!(symbol(&a, "js:lib.kitchen.ids").kind, SymbolKind::Function);
    assert_eq!(
        symbol(&a, "js:lib.kitchen.Kitchen.constructor").kind,
        SymbolKind::Constructor
    );
    assert_eq!(symbol(&a, "js:lib.kitchen.cook").kind, SymbolKind::Function);
    assert_eq!(symbol(&a, "js:lib.kitchen.Kitchen").supertypes, ["Base"]);
    assert_eq!(
        (
            symbol(&a, "js:lib.kitchen.cook").start_line,
            symbol(&a, "js:lib.kitchen.cook").end_line
        ),
        (27, 30)
    );
}

#[test]
fn kinds_ranges_and_heads_follow_the_source() {
    let a = assert_inline_defs(LANGUAGE, "src/kitchen/shop.ts", KITCHEN);
    assert_eq!(a.symbols[0].kind, SymbolKind::Module);
    let order = symbol(&a, "ts:kitchen.shop.Order");
    assert_eq!(order.kind, SymbolKind::Class);
    assert_eq!(
        (order.start_line, order.name_line, order.end_line),
        (34, 35, 61),
        "decorators and `export` belong to the declaration"
    );
    assert_eq!(order.annotations, ["@Injectable()"]);
    assert_eq!(order.supertypes, ["Base", "Priced"]);
    assert_eq!(order.visibility, "public");
    let pay = symbol(&a, "ts:kitchen.shop.Order.pay");
    assert_eq!(pay.kind, SymbolKind::Method);
    assert_eq!(
        (pay.start_line, pay.end_line),
        (44, 50),
        "a member's decorators are its own"
    );
    assert_eq!(pay.annotations, ["@Get(\":id\")"]);
    assert_eq!(pay.signature, "async pay(amount: number): Promise<Order>");
    assert_eq!(pay.value_type, "Promise<Order>");
    assert_eq!(pay.thrown, ["OrderError"]);
    assert_eq!(pay.params[0].name, "amount");
    assert_eq!(pay.params[0].ty, "number");
    assert!(!pay.is_static && pay.has_body);
    let ctor = symbol(&a, "ts:kitchen.shop.Order.constructor");
    assert_eq!(ctor.kind, SymbolKind::Constructor);
    assert_eq!(ctor.params[0].name, "repo");
    assert_eq!(ctor.params[0].ty, "Repo");
    assert!(symbol(&a, "ts:kitchen.shop.Order.count").is_static);
    assert_eq!(
        symbol(&a, "ts:kitchen.shop.Order.#secret").visibility,
        "private"
    );
    let place = symbol(&a, "ts:kitchen.shop.place");
    assert_eq!(place.doc.as_deref(), Some("Places an order."));
    assert_eq!((place.start_line, place.end_line), (11, 15));
    let total = symbol(&a, "ts:kitchen.shop.total");
    assert_eq!(total.kind, SymbolKind::Function);
    assert_eq!((total.start_line, total.end_line), (17, 18));
    assert_eq!(total.params[0].ty, "number[]");
    let counter = symbol(&a, "ts:kitchen.shop.counter");
    assert_eq!(
        (counter.kind, counter.start_line, counter.end_line),
        (SymbolKind::Field, 7, 8)
    );
    assert_eq!(counter.visibility, "private", "not exported");
    assert_eq!(symbol(&a, "ts:kitchen.shop.Id").kind, SymbolKind::Interface);
    assert_eq!(
        symbol(&a, "ts:kitchen.shop.Status.Paid").kind,
        SymbolKind::Constant
    );
    assert_eq!(
        symbol(&a, "ts:kitchen.shop.Shop.Inner").kind,
        SymbolKind::Module
    );
    assert_eq!(symbol(&a, "ts:kitchen.shop.Widget").kind, SymbolKind::Class);
    assert!(!symbol(&a, "ts:kitchen.shop.Base.run").has_body);
    let default = symbol(&a, "ts:kitchen.shop.default");
    assert_eq!((default.start_line, default.end_line), (87, 92));
    let literals: Vec<&str> = symbol(&a, "ts:kitchen.shop.Order.pay")
        .literals
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(literals, ["negative"]);
}

#[test]
fn module_names_follow_the_path() {
    assert_eq!(
        module_name(&path("src/services/orders.ts")),
        "services.orders"
    );
    assert_eq!(module_name(&path("src/api/index.ts")), "api");
    assert_eq!(module_name(&path("types/global.d.ts")), "types.global");
    assert_eq!(module_name(&path("lib/core/Axios.js")), "lib.core.Axios");
    assert_eq!(module_name(&path("index.js")), "index");
    assert_eq!(
        module_name(&path("packages/a/src/order.service.ts")),
        "order.service"
    );
}

#[test]
fn broken_source_still_yields_what_parses() {
    let src = b"export function ok() { return 1 }\n\nexport function broken( {\n";
    let a = crate::lang::analyze(LANGUAGE, &path("x.ts"), "m", src, &ParseLimits::default());
    assert!(a.degraded.is_none());
    assert!(a.symbols.iter().any(|s| s.id.0 == "ts:x.ok"));
    assert!(!a.chunks.is_empty());
}

#[test]
fn a_vue_component_is_its_script_with_lines_kept() {
    let src = b"<template>\n  <button @click=\"save\">Save</button>\n</template>\n\n<script setup lang=\"ts\">\nimport { save } from './api'\nconst count = 1\nfunction bump() {}\n</script>\n";
    let a = crate::lang::analyze(
        LANGUAGE,
        &path("src/components/Saver.vue"),
        "m",
        src,
        &ParseLimits::default(),
    );
    assert!(a.degraded.is_none());
    let bump = a.symbols.iter().find(|s| s.name == "bump").expect("bump");
    assert_eq!(
        (bump.id.0.as_str(), bump.start_line),
        ("ts:components.Saver.bump", 8)
    );
    assert_eq!(a.imports, ["./api.save"]);
    let covered = |l: u32| {
        a.chunks
            .iter()
            .any(|c| c.start_line <= l && l <= c.end_line)
    };
    assert!(
        covered(2) && covered(7),
        "template and script lines are both chunked"
    );
}

/// The edges of a small package, as (caller, callee, kind), resolved ones only.
fn package_edges(files: &[(&str, &str)]) -> Vec<(String, String, &'static str)> {
    let analysed: Vec<(RepoPath, FileAnalysis)> = files
        .iter()
        .map(|(p, src)| {
            let p = path(p);
            let lang = crate::lang::detect(&p).expect("a TypeScript or JavaScript file");
            let a = crate::lang::analyze(lang, &p, "m", src.as_bytes(), &ParseLimits::default());
            assert_eq!(a.degraded, None, "{p}");
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

#[test]
fn calls_resolve_through_imports_this_bases_and_re_exports() {
    let edges = package_edges(&[
        (
            "src/index.ts",
            "export { OrderService as Orders } from './orders';\nexport * from './repo';\n",
        ),
        (
            "src/repo.ts",
            "export interface Store {\n  save(o: Order): void;\n}\n\
             export class Repo implements Store {\n  save(o: Order): void {}\n  find(): Order[] { return []; }\n}\n\
             export class SqlRepo extends Repo {\n  save(o: Order): void { super.save(o); }\n}\n\
             export class Order {\n  markPaid(): void {}\n}\n\
             export default function connect(): Repo { return new Repo(); }\n",
        ),
        (
            "src/orders.ts",
            "import connect, { Repo, Order, type Store } from './repo';\n\
             import * as util from './util/index.js';\n\
             import axios from 'axios';\n\
             import { upper } from '@lib/strings';\n\
             export class Base {\n  constructor() {}\n  audit(): void {}\n}\n\
             export class OrderService extends Base {\n  private cache = new Repo();\n\
             \x20 constructor(private readonly repo: Repo, private store: Store) {\n    super();\n  }\n\
             \x20 place(order: Order): void {\n    this.repo.save(order);\n    order.markPaid();\n    this.audit();\n    util.log('placed');\n    axios.post('/api/orders');\n    this.cache.find();\n    this.store.save(order);\n    upper('x');\n  }\n\
             \x20 reload(): void {\n    const r = connect();\n    r.find();\n    const s = new OrderService(r, r);\n    s.place(new Order());\n  }\n}\n",
        ),
        (
            "src/util/index.js",
            "function log(m) {}\nmodule.exports = { log };\n",
        ),
        (
            "src/util/validator.js",
            "function assertOptions(o) {}\nconst rules = { strict: assertOptions };\nexport default { assertOptions, rules };\n",
        ),
        (
            "src/util/strings.ts",
            "export function upper(s: string) { return s; }\n",
        ),
        (
            "tsconfig.json",
            "{\n  // aliases\n  \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@lib/*\": [\"src/util/*\"] } },\n}\n",
        ),
        (
            "src/app.js",
            "const { Orders } = require('./index');\nconst helpers = require('./util');\n\
             import validator from './util/validator';\n\
             function main() {\n  const o = new Orders();\n  o.place();\n  helpers.log('x');\n  validator.assertOptions({});\n  validator.rules.strict();\n}\n",
        ),
    ]);
    let has = |a: &str, b: &str, k: &str| edges.iter().any(|(x, y, z)| x == a && y == b && *z == k);
    for (a, b) in [
        ("ts:orders.OrderService.place", "ts:repo.Repo.save"),
        ("ts:orders.OrderService.place", "ts:repo.SqlRepo.save"),
        ("ts:orders.OrderService.place", "ts:repo.Order.markPaid"),
        ("ts:orders.OrderService.place", "ts:orders.Base.audit"),
        ("ts:orders.OrderService.place", "js:util.log"),
        ("ts:orders.OrderService.place", "ts:axios.post"),
        ("ts:orders.OrderService.place", "ts:repo.Repo.find"),
        // `@lib/*` is a `paths` alias of tsconfig.json.
        ("ts:orders.OrderService.place", "ts:util.strings.upper"),
        (
            "ts:orders.OrderService.constructor",
            "ts:orders.Base.constructor",
        ),
        ("ts:orders.OrderService.reload", "ts:repo.connect"),
        ("ts:orders.OrderService.reload", "ts:repo.Repo.find"),
        (
            "ts:orders.OrderService.reload",
            "ts:orders.OrderService.constructor",
        ),
        (
            "ts:orders.OrderService.reload",
            "ts:orders.OrderService.place",
        ),
        ("ts:orders.OrderService.reload", "ts:repo.Order"),
        ("ts:repo.SqlRepo.save", "ts:repo.Repo.save"),
        ("ts:repo.connect", "ts:repo.Repo"),
        ("js:app.main", "ts:orders.OrderService.constructor"),
        ("js:app.main", "ts:orders.OrderService.place"),
        ("js:app.main", "js:util.log"),
        // Members of an object literal exported by default, and of a variable's.
        ("js:app.main", "js:util.validator.assertOptions"),
    ] {
        assert!(has(a, b, "call"), "no call {a} -> {b}: {edges:#?}");
    }
    // A call through an interface runs its implementations, not the signature.
    assert!(!has(
        "ts:orders.OrderService.place",
        "ts:repo.Store.save",
        "call"
    ));
    assert!(has("ts:repo.Repo", "ts:repo.Store", "implements"));
    assert!(has("ts:repo.SqlRepo", "ts:repo.Repo", "inherits"));
    assert!(has(
        "ts:repo.SqlRepo.save",
        "ts:repo.Repo.save",
        "overrides"
    ));
}

#[test]
fn express_and_nest_routes_reach_their_handlers_and_requests_are_recorded() {
    let edges = package_edges(&[
        (
            "src/routes.js",
            "const express = require('express');\nconst orders = require('./orders');\n\
             const router = express.Router();\n\
             router.get('/orders/:id', orders.show);\n\
             router.post('/orders', (req, res) => res.send('ok'));\n\
             module.exports = router;\n",
        ),
        (
            "src/orders.js",
            "function show(req, res) {}\nexports.show = show;\n",
        ),
        (
            "src/app.js",
            "const express = require('express');\nconst app = express();\nconst api = express.Router();\n\
             api.use('/v1', require('./routes'));\napp.use('/api', api);\n",
        ),
        (
            "src/orders.controller.ts",
            "@Controller('api/orders')\nexport class OrdersController {\n  @Get(':id')\n  find(@Param('id') id: string) {}\n  @Post()\n  create() {}\n}\n",
        ),
    ]);
    let routes: Vec<String> = edges
        .iter()
        .filter(|e| e.2 == "route")
        .map(|(a, b, _)| format!("{a} -> {b}"))
        .collect();
    for want in [
        // `router` is mounted under `/v1` on `api`, itself under `/api` on `app`.
        "route:GET /api/v1/orders/{id} -> js:orders.show",
        "route:POST /api/v1/orders -> js:routes",
        "route:GET /api/orders/{id} -> ts:orders.controller.OrdersController.find",
        "route:POST /api/orders -> ts:orders.controller.OrdersController.create",
    ] {
        assert!(routes.iter().any(|r| r == want), "{want} in {routes:#?}");
    }
    let src = b"const BASE = '/api';\nexport async function load(id: string) {\n  await axios.get('/api/users/' + id);\n  await fetch(`${BASE}/orders/${id}`, { method: 'DELETE' });\n  return request({ url: '/api/items', method: 'post' });\n}\n";
    let a = crate::lang::analyze(
        LANGUAGE,
        &path("src/api.ts"),
        "m",
        src,
        &ParseLimits::default(),
    );
    let facts = TsFacts::decode(a.facts.as_deref().unwrap()).unwrap();
    let got: Vec<(&str, &str, &str)> = facts
        .requests
        .iter()
        .map(|r| (r.client.as_str(), r.verb.as_str(), r.url.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("axios.get", "GET", "/api/users/{id}"),
            ("fetch", "DELETE", "/api/orders/{id}"),
            ("request", "POST", "/api/items"),
        ]
    );
}

#[test]
fn calls_follow_call_results_function_properties_and_variables_holding_functions() {
    let edges = package_edges(&[
        (
            "src/schema.ts",
            "export class Num {\n  static create = (n: number): Num => new Num();\n  min(x: number): Num { return this; }\n}\n\
             export interface Ctor {\n  init(x: number): void;\n}\n\
             export function Ctor(name: string): Ctor { return null as any; }\n\
             export const Str: Ctor = Ctor('s');\n\
             export const isString = typeOf('string');\n\
             function typeOf(t: string) { return (x: unknown) => typeof x === t; }\n\
             export class Builder {\n  build(): Num { return new Num(); }\n}\n",
        ),
        (
            "src/use.ts",
            "import { Num, Str, isString, Builder } from './schema';\n\
             export function run() {\n  Num.create(1).min(2);\n  new Builder().build().min(3);\n  Str.init(1);\n  isString('x');\n}\n",
        ),
        (
            "lib/util.js",
            "const { isArray } = Array;\nconst resolve = require('path').resolve;\n\
             function each(xs) { if (isArray(xs)) resolve('x'); }\nmodule.exports = { each };\n",
        ),
    ]);
    let has = |a: &str, b: &str| {
        edges
            .iter()
            .any(|(x, y, z)| x == a && y == b && *z == "call")
    };
    for (a, b) in [
        // A class property holding an arrow function is called, and returns what it says.
        ("ts:use.run", "ts:schema.Num.create"),
        ("ts:use.run", "ts:schema.Num.min"),
        // A method called on what `new` and a call give.
        ("ts:use.run", "ts:schema.Builder.build"),
        // `Ctor` is a type and a function: the variable's declared type is the interface.
        ("ts:use.run", "ts:schema.Ctor.init"),
        // A variable whose function is made at run time is what is called.
        ("ts:use.run", "ts:schema.isString"),
        ("js:lib.util.each", "js:lib.util.isArray"),
        // `require('path').resolve` is a named import from outside.
        ("js:lib.util.each", "js:path.resolve"),
    ] {
        assert!(has(a, b), "no call {a} -> {b}: {edges:#?}");
    }
    let min_calls = edges
        .iter()
        .filter(|(x, y, _)| x == "ts:use.run" && y == "ts:schema.Num.min")
        .count();
    assert_eq!(min_calls, 2, "both chains reach Num.min: {edges:#?}");
}

#[test]
fn a_callbacks_untyped_parameters_take_the_callees_parameter_types() {
    let edges = package_edges(&[
        (
            "src/lift.ts",
            "export class Subscriber {\n  next(v: number): void {}\n}\n\
             export function operate(init: (source: number, subscriber: Subscriber) => void): void {}\n\
             export class Observable {\n  constructor(subscribe?: (this: Observable, subscriber: Subscriber) => void) {}\n}\n",
        ),
        (
            "src/op.ts",
            "import { operate, Observable } from './lift';\n\
             export function map() {\n  operate((source, subscriber) => {\n    subscriber.next(1);\n  });\n}\n\
             export function of() {\n  return new Observable((subscriber) => subscriber.next(2));\n}\n",
        ),
        (
            "src/range.ts",
            "import { Observable, Subscriber } from './lift';\n\
             export function range(s: boolean) {\n  return new Observable(s ? (a) => { a.next(1); } : (b) => { b.next(2); });\n}\n\
             export function from() {\n  return new Observable((subscriber: Subscriber) => { subscriber.next(3); });\n}\n",
        ),
    ]);
    // Either function of a conditional, and a function whose parameter is typed as written.
    for caller in ["ts:op.map", "ts:op.of", "ts:range.range", "ts:range.from"] {
        assert!(
            edges
                .iter()
                .any(|(a, b, k)| a == caller && b == "ts:lift.Subscriber.next" && *k == "call"),
            "no call {caller} -> Subscriber.next: {edges:#?}"
        );
    }
    let both = edges
        .iter()
        .filter(|(a, b, _)| a == "ts:range.range" && b == "ts:lift.Subscriber.next")
        .count();
    assert_eq!(both, 2, "both branches: {edges:#?}");
}

#[test]
fn an_untyped_parameter_hides_a_module_function_of_its_name() {
    let edges = package_edges(&[(
        "lib/router.js",
        "function next() {}\nfunction send(res, next) {\n  next();\n}\nfunction go() {\n  next();\n}\n",
    )]);
    let calls = |caller: &str| {
        edges
            .iter()
            .filter(|(a, b, k)| a == caller && b == "js:lib.router.next" && *k == "call")
            .count()
    };
    assert_eq!(calls("js:lib.router.send"), 0, "{edges:#?}");
    assert_eq!(calls("js:lib.router.go"), 1, "{edges:#?}");
}

#[test]
fn a_function_without_a_return_type_returns_what_its_own_return_constructs() {
    let edges = package_edges(&[
        (
            "lib/headers.js",
            "class Headers {\n  normalize() { return this; }\n  set(k) {}\n\
             static from(thing) {\n    [1].map(() => { return new Other(); });\n    return thing instanceof this ? thing : new this(thing);\n  }\n}\n\
             class Other {\n  set(k) {}\n}\nexport default Headers;\n",
        ),
        (
            "lib/use.js",
            "import Headers from './headers.js';\n\
             export function run(c) {\n  const headers = Headers.from(c).normalize();\n  headers.set('x');\n}\n",
        ),
    ]);
    let has = |b: &str| {
        edges
            .iter()
            .any(|(a, x, k)| a == "js:lib.use.run" && x == b && *k == "call")
    };
    assert!(has("js:lib.headers.Headers.normalize"), "{edges:#?}");
    assert!(has("js:lib.headers.Headers.set"), "{edges:#?}");
    // A return in a callback inside the method is the callback's.
    assert!(!has("js:lib.headers.Other.set"), "{edges:#?}");
}

#[test]
fn a_request_wrapper_makes_the_request_each_caller_names_with_urls_from_another_module() {
    let edges = package_edges(&[
        (
            "config/api.js",
            "var ApiRoot = 'http://localhost:8080/wx/';\n\
             module.exports = {\n  CatalogList: ApiRoot + 'catalog/index',\n  CartAdd: ApiRoot + 'cart/add',\n  Plain: '/wx/plain',\n  helper: require('./x'),\n};\n",
        ),
        (
            "utils/util.js",
            "function request(url, data = {}, method = \"GET\") {\n  return new Promise(function (resolve, reject) {\n    wx.request({ url: url, data: data, method: method, success: resolve });\n  });\n}\nmodule.exports = { request };\n",
        ),
        (
            "pages/catalog.js",
            "var util = require('../utils/util.js');\nvar api = require('../config/api.js');\n\
             function load() {\n  util.request(api.CatalogList).then(function (res) {});\n  util.request(api.CartAdd, { id: 1 }, 'POST');\n  util.request(api.Plain + '?id=' + 1);\n}\n\
             function add() {\n  wx.request({ url: api.CartAdd, method: 'POST' });\n}\n",
        ),
        (
            "web/urls.ts",
            "export const ORDERS = '/wx/orders';\nconst HIDDEN = '/nowhere';\n",
        ),
        (
            "web/client.ts",
            "import axios from 'axios';\nimport { ORDERS } from './urls';\n\
             export function orders() {\n  return axios.get(ORDERS);\n}\n",
        ),
        (
            "server/routes.js",
            "const express = require('express');\nconst app = express();\n\
             app.get('/wx/orders', orders);\nfunction orders(req, res) {}\n\
             app.get('/wx/catalog/index', list);\napp.post('/wx/cart/add', add);\napp.get('/wx/plain', plain);\napp.get('/', home);\n\
             function list(req, res) {}\nfunction add(req, res) {}\nfunction plain(req, res) {}\nfunction home(req, res) {}\n",
        ),
    ]);
    let rpc: Vec<(&str, &str)> = edges
        .iter()
        .filter(|e| e.2 == "rpc")
        .map(|(a, b, _)| (a.as_str(), b.as_str()))
        .collect();
    for want in [
        ("js:pages.catalog.load", "js:server.routes.list"),
        ("js:pages.catalog.load", "js:server.routes.add"),
        ("js:pages.catalog.load", "js:server.routes.plain"),
        // A request made directly, its URL from the other module too.
        ("js:pages.catalog.add", "js:server.routes.add"),
        // A constant imported by name from another module.
        ("ts:web.client.orders", "js:server.routes.orders"),
    ] {
        assert!(rpc.contains(&want), "{want:?} in {rpc:#?}");
    }
    // The wrapper's own request has no URL of its own: it reaches no route (not even `/`).
    assert!(
        rpc.iter().all(|(a, _)| !a.starts_with("js:utils.util")),
        "{rpc:#?}"
    );
    // `'POST'` picks the POST route only; no method given is any method.
    assert_eq!(rpc.len(), 5, "{rpc:#?}");
}

#[test]
fn a_template_keeps_its_substitutions_as_placeholders() {
    let src = b"export function pay(id: string) {\n  throw new Error(`order ${id} is not awaiting payment`);\n}\n";
    let a = analyze(&path("src/orders.ts"), "", src, &ParseLimits::default()).unwrap();
    let texts: Vec<&str> = symbol(&a, "ts:orders.pay")
        .literals
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(texts, ["order {} is not awaiting payment"]);
}
