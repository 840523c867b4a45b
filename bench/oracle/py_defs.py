#!/usr/bin/env python3
"""Python definitions from CPython's own parser (`ast`), scored against codemap's symbols.

Usage: py_defs.py ROOT SYSTEM.jsonl [--oracle-out FILE] [--misses N]

ROOT: a Python source tree. SYSTEM.jsonl: `codemap export symbols` of an index of ROOT
({"file","symbol","kind","line","end_line"}). Stdlib only.

The oracle, per .py file of ROOT that codemap indexed (files it skipped are counted apart):
  - classes, functions and methods at any depth (`ast.ClassDef`, `FunctionDef`,
    `AsyncFunctionDef`), qualified by the chain of enclosing classes and functions;
  - names bound by `=` and annotated assignments in a module or class body, compound statements
    (if/try/with/for/while/match) included, function bodies not: plain names, tuple and list
    targets, starred names;
  - qualified names start with the module's dotted name, the rule codemap documents for Python:
    the path without `.py`/`.pyi`, a trailing `__init__` dropped, everything up to the last `src/`
    directory dropped.
  - line: the line of the name (`def`/`class` line, or the target's line); end line: `end_lineno`
    of the definition or of the assignment statement.
Module symbols (kind "module") are not compared.

Figures: recall and precision over (file, qualified name) multisets; of the matched definitions,
the share whose line and whose end line are exact.
"""
import argparse
import ast
import collections
import json
import os
import sys
import warnings


def module_name(rel):
    p = rel
    for ext in ('.py', '.pyi'):
        if p.endswith(ext):
            p = p[: -len(ext)]
            break
    parts = p.split('/')
    head = parts[:-1]
    if 'src' in head:
        i = len(head) - 1 - head[::-1].index('src')
        parts = parts[i + 1:]
    if parts[-1] == '__init__' and len(parts) > 1:
        parts.pop()
    return '.'.join(parts)


def names(target, out):
    if isinstance(target, ast.Name):
        out.append(target)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            names(e, out)
    elif isinstance(target, ast.Starred):
        names(target.value, out)


def defs_of(tree, module):
    out = []

    def body(stmts, prefix, in_function):
        for s in stmts:
            stmt(s, prefix, in_function)

    def stmt(s, prefix, in_function):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            q = prefix + '.' + s.name
            out.append((q, s.lineno, s.end_lineno))
            body(s.body, q, not isinstance(s, ast.ClassDef))
            return
        if not in_function and isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            found = []
            for t in targets:
                names(t, found)
            for n in found:
                out.append((prefix + '.' + n.id, n.lineno, s.end_lineno))
        # Compound statements: their blocks are in the same scope; nested defs anywhere count.
        for field in ('body', 'orelse', 'finalbody', 'handlers', 'cases'):
            for child in getattr(s, field, []) or []:
                if isinstance(child, ast.ExceptHandler) or type(child).__name__ == 'match_case':
                    body(child.body, prefix, in_function)
                elif isinstance(child, ast.stmt):
                    stmt(child, prefix, in_function)

    body(tree.body, module, False)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root')
    ap.add_argument('system')
    ap.add_argument('--oracle-out')
    ap.add_argument('--misses', type=int, default=0)
    a = ap.parse_args()

    system = collections.defaultdict(list)  # file -> [(qname, line, end)]
    for line in open(a.system, encoding='utf-8'):
        r = json.loads(line)
        if not r['file'].endswith(('.py', '.pyi')) or r.get('kind') == 'module':
            continue
        q = r['symbol']
        q = q.split('~')[0]
        system[r['file']].append((q, r['line'], r.get('end_line')))
    indexed = set()
    for line in open(a.system, encoding='utf-8'):
        f = json.loads(line)['file']
        if f.endswith(('.py', '.pyi')):
            indexed.add(f)

    oracle = {}
    skipped = unparsable = 0
    for dirpath, dirnames, filenames in os.walk(a.root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
        for fn in sorted(filenames):
            if not fn.endswith(('.py', '.pyi')):
                continue
            rel = os.path.relpath(os.path.join(dirpath, fn), a.root).replace(os.sep, '/')
            src = open(os.path.join(dirpath, fn), 'rb').read()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    tree = ast.parse(src, filename=rel)
            except (SyntaxError, ValueError):
                unparsable += 1
                continue
            if rel not in indexed:
                skipped += 1
                continue
            oracle[rel] = defs_of(tree, module_name(rel))
    if a.oracle_out:
        with open(a.oracle_out, 'w', encoding='utf-8') as w:
            for f in sorted(oracle):
                for q, l, e in oracle[f]:
                    w.write(json.dumps({'file': f, 'symbol': q, 'line': l, 'end_line': e}) + '\n')

    total_o = total_s = matched = line_ok = end_ok = 0
    misses, extras, line_bad = [], [], []
    for f, defs in oracle.items():
        sys_defs = system.get(f, [])
        total_o += len(defs)
        total_s += len(sys_defs)
        by_name = collections.defaultdict(list)
        for q, l, e in sys_defs:
            by_name[q].append((l, e))
        for q, l, e in defs:
            cands = by_name.get(q)
            if not cands:
                misses.append((f, q, l))
                continue
            # One-to-one: the candidate nearest in line.
            best = min(range(len(cands)), key=lambda i: abs(cands[i][0] - l))
            sl, se = cands.pop(best)
            matched += 1
            line_ok += sl == l
            end_ok += se == e
            if sl != l or se != e:
                line_bad.append((f, q, l, e, sl, se))
        for q, rest in by_name.items():
            for l, _ in rest:
                extras.append((f, q, l))
    extra_files = sorted(set(system) - set(oracle))
    for f in extra_files:
        total_s += len(system[f])

    def ratio(n, d):
        return n / d if d else 1.0

    print(f'files: {len(oracle)} compared, {skipped} not indexed by codemap, {unparsable} not parsable by ast, '
          f'{len(extra_files)} indexed but not in the oracle')
    print(f'definitions: oracle {total_o}, codemap {total_s}, matched {matched}')
    print(f'recall {ratio(matched, total_o):.4f}  precision {ratio(matched, total_s):.4f}  '
          f'line exact {ratio(line_ok, matched):.4f}  end line exact {ratio(end_ok, matched):.4f}')
    if a.misses:
        for m in misses[: a.misses]:
            print('  missed', *m)
        for m in extras[: a.misses]:
            print('  extra ', *m)
        for m in line_bad[: a.misses]:
            print('  lines ', *m)


if __name__ == '__main__':
    main()
