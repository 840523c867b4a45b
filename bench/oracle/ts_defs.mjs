#!/usr/bin/env node
// TypeScript and JavaScript definitions from the TypeScript compiler's own parser
// (`ts.createSourceFile`), scored against codemap's symbols.
//
// Usage: NODE_PATH=/tmp/ts-oracle/node_modules node ts_defs.mjs ROOT SYSTEM.jsonl [--misses N]
//        [--oracle-out FILE]
//
// ROOT: a source tree. SYSTEM.jsonl: `codemap export symbols` of an index of ROOT
// ({"file","symbol","kind","line","start_line","end_line"}). Needs the npm `typescript` package
// (NODE_PATH pointing at the node_modules that holds it); nothing else.
//
// The oracle, per .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs file of ROOT that codemap indexed:
//   - classes, interfaces, type aliases, enums and their members, functions (overload
//     signatures included) and namespaces at any depth (`namespace A.B` is one definition,
//     `declare global` none); methods, constructors, accessors and properties of a named class
//     or of a class expression bound to a module-level variable; property and method signatures
//     of interfaces;
//   - names bound by `const`/`let`/`var` statements of a source file or namespace body
//     (destructuring included), function bodies not;
//   - `export default <expression>` other than a name, and anonymous default functions and
//     classes, as `default`;
//   - qualified names start with the module's dotted name, the rule codemap documents: the
//     path without its extension (`.d.ts` whole), a trailing `index` dropped, everything up to
//     the last `src/` directory dropped, `/` read as `.`; then the enclosing definitions.
//   - line: the line of the name (of `default` for a default export); start line: the first
//     token (decorators, `export`, `declare` included; a variable's statement); end line: the
//     last token.
// Module symbols (kind "module" for the file) are not compared.
//
// Figures: recall and precision over (file, qualified name) multisets; of the matched
// definitions, the share whose line, start line and end line are exact.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');

export const EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

export function moduleName(rel) {
  let p = rel.endsWith('.d.ts') ? rel.slice(0, -5) : rel.replace(/\.[^./]+$/, '');
  let parts = p.split('/');
  const head = parts.slice(0, -1);
  const i = head.lastIndexOf('src');
  if (i >= 0) parts = parts.slice(i + 1);
  if (parts.length > 1 && parts[parts.length - 1] === 'index') parts.pop();
  return parts.join('.');
}

export function scriptKind(rel) {
  if (rel.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (rel.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.(js|mjs|cjs)$/.test(rel)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

// `on` (optional, for bench/oracle/ts_calls.mjs): `on.def(node, q)` for each declaration node
// (the compiler's, as a symbol's declarations name it) and `on.scope(node, q)` for each node whose
// descendants' calls are made by definition q.
export function defsOf(sf, module, on = { def() {}, scope() {} }) {
  const out = [];
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const record = (q, nameNode, node) => {
    out.push([q, line(nameNode.getStart(sf)), line(node.getStart(sf)), line(node.end)]);
  };
  const nameText = (n) => (ts.isStringLiteral(n) || ts.isNumericLiteral(n) ? n.text : n.getText(sf));
  const unwrap = (e) => {
    while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression?.(e) || ts.isTypeAssertionExpression(e))) e = e.expression;
    return e;
  };
  const defaultKeyword = (node) => node.modifiers?.find((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

  function bindingNames(b, acc) {
    if (ts.isIdentifier(b)) acc.push(b);
    else if (ts.isObjectBindingPattern(b) || ts.isArrayBindingPattern(b)) {
      for (const e of b.elements) if (!ts.isOmittedExpression(e)) bindingNames(e.name, acc);
    }
  }

  function classMembers(cls, q) {
    for (const m of cls.members) {
      if (ts.isMethodDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m) || ts.isPropertyDeclaration(m)) {
        if (!m.name) continue;
        const mq = q + '.' + nameText(m.name);
        record(mq, m.name, m);
        on.def(m, mq);
        on.scope(m, mq);
        visitChildren(m, mq);
      } else if (ts.isConstructorDeclaration(m)) {
        const k = m.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
        const mq = q + '.constructor';
        record(mq, k ?? m, m);
        on.def(m, mq);
        on.scope(m, mq);
        visitChildren(m, mq);
      } else {
        visitChildren(m, q);
      }
    }
  }

  function statements(list, prefix) {
    for (const s of list) {
      if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          const names = [];
          bindingNames(d.name, names);
          for (const n of names) {
            record(prefix + '.' + n.text, n, s);
            on.def(n === d.name ? d : n.parent, prefix + '.' + n.text);
          }
          const init = unwrap(d.initializer);
          if (ts.isIdentifier(d.name) && init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
            on.scope(init, prefix + '.' + d.name.text);
            visitChildren(init, prefix + '.' + d.name.text);
          } else if (ts.isIdentifier(d.name) && init && ts.isClassExpression(init)) {
            on.scope(init, prefix + '.' + d.name.text);
            classMembers(init, prefix + '.' + d.name.text);
          } else if (d.initializer) {
            visit(d.initializer, prefix);
          }
        }
      } else {
        visit(s, prefix);
      }
    }
  }

  function visitChildren(node, prefix) {
    ts.forEachChild(node, (c) => visit(c, prefix));
  }

  function visit(node, prefix) {
    if (ts.isClassDeclaration(node)) {
      const nameNode = node.name ?? defaultKeyword(node);
      if (!nameNode) return visitChildren(node, prefix);
      const q = prefix + '.' + (node.name ? node.name.text : 'default');
      record(q, nameNode, node);
      on.def(node, q);
      on.scope(node, q);
      return classMembers(node, q);
    }
    if (ts.isFunctionDeclaration(node)) {
      const nameNode = node.name ?? defaultKeyword(node);
      if (!nameNode) return visitChildren(node, prefix);
      const q = prefix + '.' + (node.name ? node.name.text : 'default');
      record(q, nameNode, node);
      on.def(node, q);
      on.scope(node, q);
      return visitChildren(node, q);
    }
    if (ts.isInterfaceDeclaration(node)) {
      const q = prefix + '.' + node.name.text;
      record(q, node.name, node);
      on.def(node, q);
      for (const m of node.members) {
        if ((ts.isPropertySignature(m) || ts.isMethodSignature(m)) && m.name) {
          record(q + '.' + nameText(m.name), m.name, m);
          on.def(m, q + '.' + nameText(m.name));
        }
      }
      return;
    }
    if (ts.isTypeAliasDeclaration(node)) {
      on.def(node, prefix + '.' + node.name.text);
      return record(prefix + '.' + node.name.text, node.name, node);
    }
    if (ts.isEnumDeclaration(node)) {
      const q = prefix + '.' + node.name.text;
      record(q, node.name, node);
      on.def(node, q);
      for (const m of node.members) {
        record(q + '.' + nameText(m.name), m.name, m);
        on.def(m, q + '.' + nameText(m.name));
      }
      return;
    }
    if (ts.isModuleDeclaration(node)) {
      if (node.flags & ts.NodeFlags.GlobalAugmentation) {
        if (node.body) statements(node.body.statements ?? [], prefix);
        return;
      }
      // `namespace A.B.C {}` is nested declarations in the compiler's tree: one name here.
      let names = [nameText(node.name)];
      const nested = [node];
      let body = node.body;
      while (body && ts.isModuleDeclaration(body)) {
        names.push(nameText(body.name));
        nested.push(body);
        body = body.body;
      }
      const q = prefix + '.' + names.join('.');
      record(q, node.name, node);
      for (const n of nested) on.def(n, q);
      on.scope(node, q);
      if (body && ts.isModuleBlock(body)) statements(body.statements, q);
      return;
    }
    if (ts.isExportAssignment(node) && !node.isExportEquals) {
      const e = unwrap(node.expression);
      if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) return;
      const k = node.getChildren(sf).find((c) => c.kind === ts.SyntaxKind.DefaultKeyword);
      const q = prefix + '.default';
      record(q, k ?? node, node);
      on.def(node, q);
      if (ts.isClassExpression(e)) {
        on.scope(e, q);
        return classMembers(e, q);
      }
      if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) {
        on.scope(e, q);
        return visitChildren(e, q);
      }
      return visitChildren(node, prefix);
    }
    visitChildren(node, prefix);
  }

  statements(sf.statements, module);
  return out;
}

// `opt(name, default)` over `args`: the value after `name`, taken out of `args` (so what stays
// is the positional arguments), else `default`.
export function optionTaker(args) {
  return (name, d) => {
    const i = args.indexOf(name);
    if (i < 0) return d;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
}

export function walk(root, rel, out) {
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const r = rel ? rel + '/' + e.name : e.name;
    if (e.isDirectory()) walk(root, r, out);
    else if (EXTS.some((x) => e.name.endsWith(x))) out.push(r);
  }
}

function main() {
  const args = process.argv.slice(2);
  const opt = optionTaker(args);
  const misses = Number(opt('--misses', 0));
  const oracleOut = opt('--oracle-out', null);
  const [root, systemPath] = args;
  const system = new Map();
  const indexed = new Set();
  for (const l of fs.readFileSync(systemPath, 'utf8').split('\n')) {
    if (!l.trim()) continue;
    const r = JSON.parse(l);
    if (!EXTS.some((x) => r.file.endsWith(x))) continue;
    indexed.add(r.file);
    if (r.kind === 'module' && r.line === 1 && r.start_line === 1 && moduleName(r.file) === r.symbol) continue;
    if (!system.has(r.file)) system.set(r.file, []);
    system.get(r.file).push([r.symbol.replace(/~\d+$/, ''), r.line, r.start_line, r.end_line]);
  }
  const files = [];
  walk(root, '', files);
  const oracle = new Map();
  let skipped = 0;
  for (const rel of files) {
    if (!indexed.has(rel)) { skipped++; continue; }
    const text = fs.readFileSync(path.join(root, rel), 'utf8');
    const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, scriptKind(rel));
    oracle.set(rel, defsOf(sf, moduleName(rel)));
  }
  if (oracleOut) {
    const w = [];
    for (const [f, defs] of oracle) for (const [q, l, s, e] of defs) w.push(JSON.stringify({ file: f, symbol: q, line: l, start_line: s, end_line: e }));
    fs.writeFileSync(oracleOut, w.join('\n') + '\n');
  }
  let totalO = 0, totalS = 0, matched = 0, lineOk = 0, startOk = 0, endOk = 0;
  const missed = [], extra = [], bad = [];
  for (const [f, defs] of oracle) {
    const sys = system.get(f) ?? [];
    totalO += defs.length;
    totalS += sys.length;
    const byName = new Map();
    for (const [q, l, s, e] of sys) {
      if (!byName.has(q)) byName.set(q, []);
      byName.get(q).push([l, s, e]);
    }
    for (const [q, l, s, e] of defs) {
      const c = byName.get(q);
      if (!c || !c.length) { missed.push([f, q, l]); continue; }
      let best = 0;
      c.forEach((x, i) => { if (Math.abs(x[0] - l) < Math.abs(c[best][0] - l)) best = i; });
      const [sl, ss, se] = c.splice(best, 1)[0];
      matched++;
      lineOk += sl === l;
      startOk += ss === s;
      endOk += se === e;
      if (sl !== l || ss !== s || se !== e) bad.push([f, q, `oracle ${l} ${s}-${e}`, `codemap ${sl} ${ss}-${se}`]);
    }
    for (const [q, rest] of byName) for (const [l] of rest) extra.push([f, q, l]);
  }
  const extraFiles = [...system.keys()].filter((f) => !oracle.has(f));
  for (const f of extraFiles) totalS += system.get(f).length;
  const ratio = (n, d) => (d ? n / d : 1).toFixed(4);
  console.log(`files: ${oracle.size} compared, ${skipped} not indexed by codemap, ${extraFiles.length} indexed but not in the oracle`);
  console.log(`definitions: oracle ${totalO}, codemap ${totalS}, matched ${matched}`);
  console.log(`recall ${ratio(matched, totalO)}  precision ${ratio(matched, totalS)}  line exact ${ratio(lineOk, matched)}  start line exact ${ratio(startOk, matched)}  end line exact ${ratio(endOk, matched)}`);
  for (const m of missed.slice(0, misses)) console.log('  missed', ...m);
  for (const m of extra.slice(0, misses)) console.log('  extra ', ...m);
  for (const m of bad.slice(0, misses)) console.log('  lines ', ...m);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
