#!/usr/bin/env python3
"""Python call edges recorded at run time, scored against codemap's call graph.

Usage: py_calls.py ROOT SYMBOLS.jsonl EDGES.jsonl [--src DIR] [--out FILE] [--misses N] -- PYTEST_ARGS…

Runs the package's own test suite (`pytest PYTEST_ARGS` from ROOT, with ROOT/`--src` first on
sys.path) under `sys.setprofile`, recording every call from a function of ROOT to a function of
ROOT. SYMBOLS.jsonl / EDGES.jsonl: `codemap export symbols` and `codemap export edges` of an index
of ROOT. Stdlib plus pytest.

A caller is the nearest frame of ROOT below the callee: a call made through library frames
(a decorator's wrapper, contextlib's __enter__, functools.partial) counts from the code of ROOT
that started it. A code object is mapped to codemap's symbol of that file whose range starts on its first line
(the first decorator's line for a decorated function) or whose name is on it; a caller that is a
lambda, comprehension or generator expression is the innermost symbol containing it (codemap
attributes their calls to the enclosing function). Edges are compared as (caller, callee)
symbol pairs.

Figures:
  recall     runtime edges that codemap has (all, and without implicit calls: dunder methods other
             than __init__/__call__/__new__, and property accessors, which have no call syntax);
  precision  codemap's resolved call edges whose caller ran, that also happened at run time (a
             branch the tests never take lowers it: the figure is a floor).
"""
import argparse
import bisect
import collections
import functools
import json
import os
import sys
import threading


def load_symbols(path):
    by_file = collections.defaultdict(list)
    for line in open(path, encoding='utf-8'):
        r = json.loads(line)
        if not r['file'].endswith(('.py', '.pyi')):
            continue
        by_file[r['file']].append(r)
    return by_file


class Mapper:
    def __init__(self, root, symbols):
        self.root = os.path.realpath(root)
        self.symbols = symbols
        self.cache = {}

    @functools.lru_cache(maxsize=None)
    def rel(self, filename):
        f = os.path.realpath(filename)
        if not f.startswith(self.root + os.sep):
            return None
        return os.path.relpath(f, self.root).replace(os.sep, '/')

    def symbol(self, code, innermost=False):
        key = (code, innermost)
        if key in self.cache:
            return self.cache[key]
        rel = self.rel(code.co_filename)
        found = None
        if rel is not None:
            syms = self.symbols.get(rel, [])
            line = code.co_firstlineno
            if code.co_name == '<module>':
                found = next((s for s in syms if s['kind'] == 'module'), None)
            elif not innermost:
                found = next((s for s in syms if s['kind'] in ('function', 'method')
                              and s['symbol'].rsplit('.', 1)[-1] == code.co_name
                              and line in (s.get('start_line'), s['line'])), None)
            if found is None and innermost:
                inside = [s for s in syms if s['kind'] in ('function', 'method', 'class', 'module')
                          and s.get('start_line', s['line']) <= line <= s['end_line']]
                found = max(inside, key=lambda s: s.get('start_line', s['line']), default=None)
        result = (rel, found['symbol']) if found else None
        self.cache[key] = result
        return result


PROPERTY = ('property', 'cached_property', 'setter', 'getter', 'deleter')


def property_accessors(root, symbols):
    """(file, qualified name) of functions decorated as properties: run by attribute access."""
    import ast
    out = set()
    for rel in symbols:
        try:
            tree = ast.parse(open(os.path.join(root, rel), 'rb').read())
        except (SyntaxError, ValueError, OSError):
            continue
        module = next((s['symbol'] for s in symbols[rel] if s['kind'] == 'module'), '')

        def walk(body, prefix):
            for n in body:
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    q = prefix + '.' + n.name
                    for d in getattr(n, 'decorator_list', []):
                        name = d.attr if isinstance(d, ast.Attribute) else getattr(d, 'id', '')
                        if name in PROPERTY:
                            out.add((rel, q))
                    walk(n.body, q)
                else:
                    for field in ('body', 'orelse', 'finalbody'):
                        walk(getattr(n, field, []) or [], prefix)
        walk(tree.body, module)
    return out


def main():
    argv = sys.argv[1:]
    extra = []
    if '--' in argv:
        i = argv.index('--')
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument('root')
    ap.add_argument('symbols')
    ap.add_argument('edges')
    ap.add_argument('--src', default='src')
    ap.add_argument('--out')
    ap.add_argument('--misses', type=int, default=0)
    a = ap.parse_args(argv)

    symbols = load_symbols(a.symbols)
    mapper = Mapper(a.root, symbols)
    accessors = property_accessors(a.root, symbols)
    dynamic = set()
    executed = set()
    implicit = set()

    def profile(frame, event, arg):
        if event != 'call':
            return
        code = frame.f_code
        callee = mapper.symbol(code)
        if callee is None:
            return
        executed.add(callee)
        # The nearest frame of ROOT below: a call through a library frame (a decorator's
        # wrapper, contextlib's __enter__, functools.partial) counts from the code that made it.
        back, hops = frame.f_back, 0
        while back is not None and mapper.rel(back.f_code.co_filename) is None and hops < 8:
            back, hops = back.f_back, hops + 1
        if back is None:
            return
        caller = mapper.symbol(back.f_code, innermost=True)
        if caller is None:
            return
        edge = (caller, callee)
        dynamic.add(edge)
        name = code.co_name
        if (name.startswith('__') and name.endswith('__') and name not in ('__init__', '__call__', '__new__')) \
                or callee in accessors:
            implicit.add(edge)

    os.chdir(a.root)
    sys.path.insert(0, os.path.join(os.path.realpath(a.root), a.src))
    import pytest
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        code = pytest.main(['-q', '-p', 'no:cacheprovider'] + extra)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)

    # A call of a class with no __init__ of its own in the project is an edge to the class: no
    # Python frame runs for it, so it cannot be seen at run time and is not judged.
    classes = {(f, s['symbol']) for f, syms in symbols.items() for s in syms if s['kind'] == 'class'}
    static = set()
    for line in open(a.edges, encoding='utf-8'):
        r = json.loads(line)
        if r['kind'] != 'call' or not r.get('callee_file'):
            continue
        if (r['callee_file'], r['callee_symbol']) in classes:
            continue
        static.add(((r['caller_file'], r['caller_symbol']), (r['callee_file'], r['callee_symbol'])))
    # Callers that ran, as codemap names them (a lambda's caller is its enclosing function).
    ran_callers = {e[0] for e in dynamic} | executed
    explicit = dynamic - implicit
    found = dynamic & static
    judged = {e for e in static if e[0] in ran_callers}
    print(f'pytest exit {int(code)}; runtime edges {len(dynamic)} ({len(implicit)} implicit), '
          f'codemap resolved call edges {len(static)}, of which {len(judged)} from callers that ran')
    print(f'recall {len(found) / max(1, len(dynamic)):.4f}  '
          f'recall without implicit calls {len(explicit & static) / max(1, len(explicit)):.4f}  '
          f'precision (floor) {len(judged & dynamic) / max(1, len(judged)):.4f}')
    if a.out:
        with open(a.out, 'w', encoding='utf-8') as w:
            for (cf, cs), (tf, ts) in sorted(dynamic):
                w.write(json.dumps({'caller_file': cf, 'caller_symbol': cs, 'callee_file': tf,
                                    'callee_symbol': ts, 'implicit': ((cf, cs), (tf, ts)) in implicit}) + '\n')
    if a.misses:
        for e in sorted(explicit - static)[: a.misses]:
            print('  missed', e[0][1], '->', e[1][1])
        for e in sorted(judged - dynamic)[: a.misses]:
            print('  not seen', e[0][1], '->', e[1][1])


if __name__ == '__main__':
    main()
