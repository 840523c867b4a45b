#!/usr/bin/env python3
"""Call edges of a compiler oracle (ORACLE.jsonl: {"file","line","caller","callee"} per call
site, {"checked": file} per file it type-checked) against `codemap export edges` (EDGES.jsonl),
for the call edges whose callee codemap places in a file of the repository.

Usage: score_calls.py ORACLE.jsonl EDGES.jsonl [--misses N]

Compared as call sites (file, line, caller, callee) and as distinct (caller, callee) pairs;
codemap's edges count only from files the oracle checked (a file left out by build
constraints has no truth). Stdlib only.
"""
import argparse
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('oracle')
    ap.add_argument('edges')
    ap.add_argument('--misses', type=int, default=0)
    a = ap.parse_args()
    checked, oracle = set(), set()
    for line in open(a.oracle, encoding='utf-8'):
        r = json.loads(line)
        if 'checked' in r:
            checked.add(r['checked'])
        else:
            oracle.add((r['file'], r['line'], r['caller'], r['callee']))
    system = set()
    for line in open(a.edges, encoding='utf-8'):
        r = json.loads(line)
        if r['kind'] != 'call' or not r.get('callee_file') or r['caller_file'] not in checked:
            continue
        system.add((r['caller_file'], r['line'], r['caller_symbol'], r['callee_symbol']))
    both = oracle & system
    ratio = lambda n, d: n / d if d else 1.0
    print(f'files checked {len(checked)}; call sites: oracle {len(oracle)}, codemap {len(system)}, '
          f'both {len(both)}')
    print(f'sites  recall {ratio(len(both), len(oracle)):.4f}  precision {ratio(len(both), len(system)):.4f}')
    po = {(f, c, t) for f, _, c, t in oracle}
    ps = {(f, c, t) for f, _, c, t in system}
    print(f'pairs  recall {ratio(len(po & ps), len(po)):.4f}  precision {ratio(len(po & ps), len(ps)):.4f}'
          f'  ({len(po)} oracle, {len(ps)} codemap)')
    for m in sorted(oracle - system)[: a.misses]:
        print('  missed', *m)
    for m in sorted(system - oracle)[: a.misses]:
        print('  extra ', *m)


if __name__ == '__main__':
    main()
