#!/usr/bin/env node
// TypeScript and JavaScript calls as the TypeScript compiler's type checker resolves them,
// scored against codemap's call edges.
//
// Usage: NODE_PATH=/tmp/ts-oracle/node_modules node ts_calls.mjs ROOT SYMBOLS.jsonl EDGES.jsonl
//        [--dir SUB]... [--exclude PART]... [--condition NAME]... [--misses N] [--oracle-out FILE]
//
// ROOT: a source tree; SYMBOLS.jsonl and EDGES.jsonl: `codemap export symbols` and `codemap
// export edges` of an index of ROOT. --dir (repeatable): the folders of ROOT whose files are
// the program and whose calls are compared (default: all of ROOT), e.g. `src` of a package that
// also ships compiled copies; --exclude (repeatable): leave out the files whose path holds PART
// (`/tests/`). --condition (repeatable): a package.json `exports` condition the
// resolution honours besides `import`/`types` (zod's `@zod/source` names its `src` files, which
// its tests import by the package's own name). Needs the npm `typescript` package (NODE_PATH), nothing else.
//
// The program: `ts.createProgram` over the .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs files of the
// folders that codemap indexed (`allowJs`, the `bundler` module resolution — relative paths
// with or without extension, `index` files, the package's own name through its `exports` —
// default libraries, no `@types`); files they import elsewhere in ROOT come in as the compiler finds them. A package
// outside ROOT does not resolve, and what is typed by it stays untyped.
//
// The oracle, per call site of a compared file:
//   - sites: call expressions (`f()`, `a.b()`, `a?.b()`, `a['b']()`, `super()`), `new`
//     expressions, tagged templates (`` tag`…` ``) and decorators that are a bare name
//     (`@dec`; `@dec()` is a call). `require(…)` and `import(…)` are imports, not sites;
//   - the callee: the symbol the checker gives the called name (`getSymbolAtLocation` on the
//     identifier, the property name, or the element access' string literal), import aliases
//     followed to the original declaration (`getAliasedSymbol`, through re-exports). A class
//     called or constructed is its constructor as the checker picks the signature
//     (`getResolvedSignature`; inherited from a base when the class declares none), the class
//     itself when no class up the chain declares one; `super(…)` the same for the base. A
//     variable, object-literal property or CommonJS export whose value is a bare name or
//     property access (`const f = g`, `{ g }`, `{ k: a.g }`, `exports.f = g`) is followed to
//     what that names (up to 5 steps): the call runs that; when the checker cannot resolve
//     that name (an untyped library), the site is not compared. A class property is not
//     followed (each instance may hold another value). A union of receivers names each
//     member the checker lists.
//   - kept when the callee is a declaration of an indexed file, as bench/oracle/ts_defs.mjs
//     defines them (classes, their members, functions at any depth, module- and
//     namespace-level variables, interface members, enums, namespaces, `default`), named as
//     codemap names them: the module's dotted name and the enclosing definitions (the rule of
//     ts_defs.mjs). Sites whose callee is anything else (a parameter, a local, a declaration
//     in a library) are counted by reason and not compared;
//   - the caller: the innermost definition (again as ts_defs.mjs) whose code holds the site —
//     a function, method, constructor, accessor, property initializer, class (decorators,
//     heritage), namespace, or a module-level variable bound to a function or class; calls
//     in closures and object literals are their enclosing definition's; top-level code is the
//     module's (its dotted name);
//   - line: the line of the property name for `a.b()`, else of the called expression's first
//     token (codemap's rule).
//   - dispatch: for a callee that is a member of a class or interface, the members of the same
//     name declared in the project's subtypes (extends/implements, transitively).
//
// Figures: over (file, line, caller, callee file, callee) records, codemap's call edges whose
// callee is in a file of the repository, from the compared files only:
//   recall    = oracle records codemap has, / oracle records; "strict" needs the callee
//               itself, otherwise a callee without code (interface member, abstract method,
//               body-less declaration) also counts when codemap names an implementation;
//   precision = codemap edges that are an oracle record, or (not strict) a dispatch target of
//               the oracle's callee at the same site, / codemap edges;
// then the same as (file, caller, callee) pairs, strict. Misses and false positives are
// broken down by category: the site's kind and shape and the callee's declaration kind for a
// miss, with what codemap has there; what the oracle says of the site for a false positive.
// --misses N lists N examples of each category.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { EXTS, defsOf, moduleName, optionTaker, walk } from './ts_defs.mjs';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const K = ts.SyntaxKind;

function unwrap(e) {
  while (e && (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)
    || ts.isTypeAssertionExpression(e) || (ts.isSatisfiesExpression && ts.isSatisfiesExpression(e)))) {
    e = e.expression;
  }
  return e;
}

function main() {
  const args = process.argv.slice(2);
  const opt = optionTaker(args);
  const dirs = [];
  for (let d; (d = opt('--dir', null)) !== null;) dirs.push(d.replace(/\/+$/, ''));
  const excluded = [];
  for (let x; (x = opt('--exclude', null)) !== null;) excluded.push(x);
  const conditions = [];
  for (let c; (c = opt('--condition', null)) !== null;) conditions.push(c);
  const misses = Number(opt('--misses', 0));
  const oracleOut = opt('--oracle-out', null);
  const [rootArg, symbolsPath, edgesPath] = args;
  if (!edgesPath) {
    console.error('usage: ts_calls.mjs ROOT SYMBOLS.jsonl EDGES.jsonl [--dir SUB]... [--exclude PART]... [--condition NAME]... [--misses N] [--oracle-out FILE]');
    process.exit(2);
  }
  const root = path.resolve(rootArg);
  const indexed = new Set();
  for (const l of fs.readFileSync(symbolsPath, 'utf8').split('\n')) {
    if (l.trim()) indexed.add(JSON.parse(l).file);
  }
  const all = [];
  walk(root, '', all);
  const inDirs = (rel) => !dirs.length || dirs.some((d) => rel === d || rel.startsWith(d + '/'));
  const compared = all.filter((r) => indexed.has(r) && inDirs(r) && !excluded.some((x) => r.includes(x)));
  const program = ts.createProgram(compared.map((r) => path.join(root, r)), {
    allowJs: true, checkJs: false, noEmit: true, skipLibCheck: true, types: [],
    target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, customConditions: conditions,
    jsx: ts.JsxEmit.Preserve,
    esModuleInterop: true, allowSyntheticDefaultImports: true, resolveJsonModule: true,
    maxNodeModuleJsDepth: 0,
  });
  const checker = program.getTypeChecker();
  const relOf = (sf) => path.relative(root, sf.fileName).split(path.sep).join('/');

  // Definitions of every indexed file in the program: declaration node → [file, q], and the
  // nodes whose calls a definition makes.
  const defs = new Map();
  const scopes = new Map();
  for (const sf of program.getSourceFiles()) {
    const rel = relOf(sf);
    if (rel.startsWith('..') || !indexed.has(rel)) continue;
    defsOf(sf, moduleName(rel), {
      def: (n, q) => defs.set(n, [rel, q]),
      scope: (n, q) => scopes.set(n, q),
    });
  }

  const aliased = (s) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const nameOf = (e) => {
    if (ts.isIdentifier(e) || ts.isPrivateIdentifier?.(e)) return e;
    if (ts.isPropertyAccessExpression(e)) return e.name;
    if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression;
    return null;
  };
  // A declaration whose value is another name: what that name is. An alias of a name the
  // checker cannot resolve (an untyped library) has no truth: null.
  function follow(decl, depth) {
    if (depth > 5) return [decl];
    let target = null;
    let alias = false;
    if (ts.isShorthandPropertyAssignment(decl)) {
      alias = true;
      target = checker.getShorthandAssignmentValueSymbol(decl);
    } else {
      let init = null;
      if (ts.isVariableDeclaration(decl) || ts.isPropertyAssignment(decl)) init = decl.initializer;
      else if (ts.isBinaryExpression(decl)) init = decl.right;
      else if (ts.isPropertyAccessExpression(decl) && decl.parent && ts.isBinaryExpression(decl.parent) && decl.parent.left === decl) init = decl.parent.right;
      init = unwrap(init);
      const n = init && (ts.isIdentifier(init) || ts.isPropertyAccessExpression(init)) ? nameOf(init) : null;
      if (n) {
        alias = true;
        target = checker.getSymbolAtLocation(n);
      }
    }
    if (!alias) return [decl];
    target = aliased(target);
    if (!target || !target.declarations?.length) return null;
    const out = [];
    for (const d of target.declarations) {
      const f = d === decl ? [d] : follow(d, depth + 1);
      if (f === null) return null;
      out.push(...f);
    }
    return out;
  }

  // Subtypes: a class or interface symbol → the classes and interfaces naming it in a heritage clause.
  const subs = new Map();
  for (const sf of program.getSourceFiles()) {
    if (relOf(sf).startsWith('..') || !indexed.has(relOf(sf))) continue;
    const visit = (n) => {
      if ((ts.isClassLike(n) || ts.isInterfaceDeclaration(n)) && n.heritageClauses && n.symbol) {
        for (const h of n.heritageClauses) {
          for (const t of h.types) {
            const b = aliased(checker.getSymbolAtLocation(t.expression));
            if (!b) continue;
            if (!subs.has(b)) subs.set(b, []);
            subs.get(b).push(n.symbol);
          }
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  function overriders(decl) {
    const owner = decl.parent;
    if (!owner || !(ts.isClassLike(owner) || ts.isInterfaceDeclaration(owner)) || !owner.symbol || !decl.name) return [];
    const name = ts.isIdentifier(decl.name) || ts.isStringLiteral(decl.name) ? decl.name.text : null;
    if (!name) return [];
    const out = [];
    const seen = new Set([owner.symbol]);
    const todo = [owner.symbol];
    while (todo.length) {
      for (const s of subs.get(todo.pop()) ?? []) {
        if (seen.has(s)) continue;
        seen.add(s);
        todo.push(s);
        const m = s.members?.get(ts.escapeLeadingUnderscores(name));
        for (const d of m?.declarations ?? []) {
          const q = defs.get(d);
          if (q && !out.some((o) => o[0] === q[0] && o[1] === q[1])) out.push(q);
        }
      }
    }
    return out;
  }
  // A callee without code: an interface member, an abstract method, a declaration file's or
  // an ambient declaration (an overload signature whose implementation follows has code).
  const hasBody = (d) => (ts.isMethodDeclaration(d) || ts.isFunctionDeclaration(d)) && !!d.body;
  const withoutCode = (d) =>
    ts.isMethodSignature(d) || ts.isPropertySignature(d) || d.getSourceFile().isDeclarationFile
    || ((ts.isMethodDeclaration(d) || ts.isFunctionDeclaration(d)) && !d.body && !(d.symbol?.declarations ?? []).some(hasBody))
    || !!(ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Abstract);

  function callerOf(node, module) {
    for (let p = node.parent; p; p = p.parent) {
      const q = scopes.get(p);
      if (q) return q;
    }
    return module;
  }

  const line = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const records = [];
  const checked = [];
  const why = new Map();
  const count = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);

  for (const rel of compared) {
    const sf = program.getSourceFile(path.join(root, rel));
    if (!sf || sf.isDeclarationFile) continue;
    checked.push(rel);
    const module = moduleName(rel);
    const site = (node, kind, callee) => {
      const e = unwrap(callee);
      let shape;
      if (e.kind === K.SuperKeyword) shape = 'super()';
      else if (ts.isIdentifier(e)) shape = 'name';
      else if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
        const r = unwrap(e.expression);
        const el = ts.isElementAccessExpression(e) ? '[k]' : '.m';
        shape = r.kind === K.ThisKeyword ? 'this' + el : r.kind === K.SuperKeyword ? 'super' + el : 'x' + el;
      } else shape = 'expression';
      const at = ts.isPropertyAccessExpression(callee) ? callee.name : callee;
      const rec = { file: rel, line: line(sf, at.getStart(sf)), caller: callerOf(node, module), kind, shape, callees: [] };
      records.push(rec);
      let decls = [];
      if (e.kind === K.SuperKeyword) {
        const sig = checker.getResolvedSignature(node);
        if (sig?.declaration && ts.isConstructorDeclaration(sig.declaration)) decls = [sig.declaration];
        else {
          const t = checker.getTypeAtLocation(e);
          const s = t?.symbol;
          if (s?.valueDeclaration) decls = [s.valueDeclaration];
        }
        if (!decls.length) { rec.why = 'super() of a base outside the program'; return; }
      } else {
        const n = nameOf(e);
        if (!n) { rec.why = 'callee is an expression'; return; }
        const s = aliased(checker.getSymbolAtLocation(n));
        if (!s) { rec.why = 'no symbol (untyped or unresolved)'; return; }
        if (s.flags & ts.SymbolFlags.Class && kind !== 'decorator' && kind !== 'tagged') {
          const sig = checker.getResolvedSignature(node);
          if (sig?.declaration && ts.isConstructorDeclaration(sig.declaration)) decls = [sig.declaration];
          else if (s.valueDeclaration) decls = [s.valueDeclaration];
        } else {
          // A name that is a type and a value (`interface X` + `const X = …`) is called as the value.
          const all = s.declarations ?? [];
          const values = all.filter((d) => !ts.isInterfaceDeclaration(d) && !ts.isTypeAliasDeclaration(d) && !ts.isModuleDeclaration(d));
          const followed = (values.length ? values : all).map((d) => follow(d, 0));
          if (followed.some((f) => f === null)) { rec.why = 'alias of a name the checker cannot resolve'; return; }
          decls = followed.flat();
        }
        if (!decls.length) { rec.why = 'symbol without declarations'; return; }
      }
      const seen = new Set();
      for (const d of decls) {
        const q = defs.get(d);
        if (!q) continue;
        const key = q[0] + '\t' + q[1];
        if (seen.has(key)) continue;
        seen.add(key);
        rec.callees.push({ file: q[0], q: q[1], dkind: K[d.kind], abstract: withoutCode(d), over: overriders(d) });
      }
      if (!rec.callees.length) {
        const d = decls[0];
        const f = d.getSourceFile();
        const r = relOf(f);
        rec.why = r.startsWith('..') || f.isDeclarationFile && !indexed.has(r)
          ? 'declared outside the repository (a library)'
          : !indexed.has(r) ? 'declared in a file codemap did not index'
            : `callee is a ${K[d.kind]} (not a definition)`;
      }
    };
    const visit = (node) => {
      if (ts.isCallExpression(node)) {
        const e = unwrap(node.expression);
        const isImport = node.expression.kind === K.ImportKeyword
          || (ts.isIdentifier(e) && e.text === 'require' && node.arguments.length === 1 && ts.isStringLiteralLike(node.arguments[0]));
        if (!isImport) site(node, e.kind === K.SuperKeyword ? 'super' : 'call', node.expression);
      } else if (ts.isNewExpression(node)) {
        site(node, 'new', node.expression);
      } else if (ts.isTaggedTemplateExpression(node)) {
        site(node, 'tagged', node.tag);
      } else if (ts.isDecorator(node) && !ts.isCallExpression(node.expression)) {
        site(node, 'decorator', node.expression);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  for (const r of records) if (r.why) count(why, r.why);

  if (oracleOut) {
    const w = checked.map((f) => JSON.stringify({ checked: f }));
    for (const r of records) w.push(JSON.stringify(r));
    fs.writeFileSync(oracleOut, w.join('\n') + '\n');
  }
  score(records, new Set(checked), why, edgesPath, misses);
}

const strip = (id) => (id ?? '').replace(/^[a-z]+:/, '').replace(/~\d+$/, '');

function score(records, checked, why, edgesPath, misses) {
  const siteKey = (f, l, c) => `${f}\t${l}\t${c}`;
  const oracle = new Map(); // record key → {rec, callee}
  const oracleSites = new Map(); // site key → record
  const oracleLines = new Map(); // file\tline → records
  for (const r of records) {
    const sk = siteKey(r.file, r.line, r.caller);
    oracleSites.set(sk, [...(oracleSites.get(sk) ?? []), r]);
    const lk = `${r.file}\t${r.line}`;
    oracleLines.set(lk, [...(oracleLines.get(lk) ?? []), r]);
    for (const c of r.callees) oracle.set(`${sk}\t${c.file}\t${c.q}`, { r, c });
  }
  const system = new Set();
  const systemSites = new Map(); // site key → callee keys
  const rawLines = new Map(); // file\tline → codemap edges of any resolution
  for (const l of fs.readFileSync(edgesPath, 'utf8').split('\n')) {
    if (!l.trim()) continue;
    const e = JSON.parse(l);
    if (e.kind !== 'call' || !checked.has(e.caller_file)) continue;
    const lk = `${e.caller_file}\t${e.line}`;
    rawLines.set(lk, [...(rawLines.get(lk) ?? []), e]);
    if (!e.callee_file) continue;
    const sk = siteKey(e.caller_file, e.line, strip(e.caller_id ?? e.caller_symbol));
    const ck = `${e.callee_file}\t${strip(e.callee_id ?? e.callee_symbol)}`;
    system.add(`${sk}\t${ck}`);
    if (!systemSites.has(sk)) systemSites.set(sk, new Set());
    systemSites.get(sk).add(ck);
  }
  let exact = 0, viaImpl = 0;
  const missed = new Map();
  for (const [k, { r, c }] of oracle) {
    if (system.has(k)) { exact++; continue; }
    const at = systemSites.get(siteKey(r.file, r.line, r.caller)) ?? new Set();
    if (c.abstract && c.over.some(([f, q]) => at.has(`${f}\t${q}`))) { viaImpl++; continue; }
    let codemap;
    const raw = rawLines.get(`${r.file}\t${r.line}`) ?? [];
    if (at.size) codemap = 'codemap names another callee';
    else if (raw.some((e) => e.callee_file && strip(e.callee_id ?? e.callee_symbol) === c.q)) codemap = 'codemap names it from another caller';
    else if (raw.some((e) => e.callee_file)) codemap = 'codemap names another callee (other caller)';
    else if (raw.some((e) => e.confidence >= 0.5)) codemap = 'codemap: outside name';
    else if (raw.length) codemap = 'codemap: unresolved';
    else codemap = 'codemap: no call';
    const cat = `${r.kind} ${r.shape} -> ${c.dkind}${c.abstract ? ' (no code)' : ''}; ${codemap}`;
    if (!missed.has(cat)) missed.set(cat, []);
    missed.get(cat).push(`${r.file}:${r.line} ${r.caller} -> ${c.file} ${c.q}` + (at.size ? `  [codemap: ${[...at].map((x) => x.replace('\t', ' ')).join(', ')}]` : ''));
  }
  let good = 0, dispatch = 0;
  const extra = new Map();
  for (const k of system) {
    if (oracle.has(k)) { good++; continue; }
    const [f, l, c, cf, cq] = k.split('\t');
    const recs = oracleSites.get(siteKey(f, l, c)) ?? [];
    if (recs.some((r) => r.callees.some((x) => x.over.some(([of, oq]) => of === cf && oq === cq)))) { dispatch++; continue; }
    let cat;
    const named = recs.flatMap((r) => r.callees);
    if (named.length) cat = 'oracle names another callee';
    else if (recs.length) cat = `oracle: ${recs[0].why}`;
    else if ((oracleLines.get(`${f}\t${l}`) ?? []).length) cat = 'oracle has the line under another caller';
    else cat = 'no oracle site on the line';
    if (!extra.has(cat)) extra.set(cat, []);
    extra.get(cat).push(`${f}:${l} ${c} -> ${cf} ${cq}` + (named.length ? `  [oracle: ${named.map((x) => x.file + ' ' + x.q).join(', ')}]` : ''));
  }
  const ratio = (n, d) => (d ? n / d : 1).toFixed(4);
  const sites = records.length;
  const named = records.filter((r) => r.callees.length).length;
  console.log(`files compared ${checked.size}; call sites ${sites}, ${named} with a callee among the repository's definitions`);
  console.log(`sites not compared: ${[...why].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join('; ')}`);
  console.log(`records: oracle ${oracle.size}, codemap ${system.size}; exact ${exact}, through an implementation ${viaImpl}, dispatch targets ${dispatch}`);
  console.log(`recall ${ratio(exact + viaImpl, oracle.size)} (strict ${ratio(exact, oracle.size)})  precision ${ratio(good + dispatch, system.size)} (strict ${ratio(good, system.size)})`);
  const po = new Set([...oracle.keys()].map((k) => k.split('\t').filter((_, i) => i !== 1).join('\t')));
  const ps = new Set([...system].map((k) => k.split('\t').filter((_, i) => i !== 1).join('\t')));
  const both = [...po].filter((k) => ps.has(k)).length;
  console.log(`pairs  recall ${ratio(both, po.size)}  precision ${ratio(both, ps.size)}  (${po.size} oracle, ${ps.size} codemap)`);
  const show = (title, m) => {
    const total = [...m.values()].reduce((a, v) => a + v.length, 0);
    console.log(`${title}: ${total}`);
    for (const [k, v] of [...m].sort((a, b) => b[1].length - a[1].length)) {
      console.log(`  ${String(v.length).padStart(6)}  ${k}`);
      for (const x of v.slice(0, misses)) console.log(`            ${x}`);
    }
  };
  show('missed', missed);
  show('false positives', extra);
}

main();
