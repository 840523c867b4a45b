#!/usr/bin/env python3
"""Definitions of a language's own parser (ORACLE.jsonl: {"file","symbol","line","end_line"})
against `codemap export symbols` (SYSTEM.jsonl), for the files both list with extension EXT.

Usage: score_defs.py ORACLE.jsonl SYSTEM.jsonl --ext .go [--skip-kind package] [--misses N]

Prints recall and precision over (file, qualified name) multisets and, of the matched
definitions, the share whose name line and end line are exact. Stdlib only.
"""
import argparse
import collections
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('oracle')
    ap.add_argument('system')
    ap.add_argument('--ext', required=True)
    ap.add_argument('--skip-kind', action='append', default=[])
    ap.add_argument('--misses', type=int, default=0)
    a = ap.parse_args()
    oracle = collections.defaultdict(list)
    for line in open(a.oracle, encoding='utf-8'):
        r = json.loads(line)
        oracle[r['file']].append((r['symbol'], r['line'], r['end_line']))
    system = collections.defaultdict(list)
    for line in open(a.system, encoding='utf-8'):
        r = json.loads(line)
        if not r['file'].endswith(a.ext) or r.get('kind') in a.skip_kind:
            continue
        system[r['file']].append((r['symbol'].split('~')[0], r['line'], r.get('end_line')))
    files = set(oracle) & set(system)
    total_o = sum(len(oracle[f]) for f in files)
    total_s = sum(len(system[f]) for f in files)
    matched = line_ok = end_ok = 0
    misses, extras, bad = [], [], []
    for f in files:
        cands = collections.defaultdict(list)
        for q, l, e in system[f]:
            cands[q].append((l, e))
        for q, l, e in oracle[f]:
            c = cands.get(q)
            if not c:
                misses.append((f, q, l))
                continue
            i = min(range(len(c)), key=lambda k: abs(c[k][0] - l))
            sl, se = c.pop(i)
            matched += 1
            line_ok += sl == l
            end_ok += se == e
            if sl != l or se != e:
                bad.append((f, q, l, e, sl, se))
        extras += [(f, q, l) for q, rest in cands.items() for l, _ in rest]
    r = lambda n, d: n / d if d else 1.0
    print(f'files: {len(files)} compared, {len(set(oracle) - set(system))} only in the oracle, '
          f'{len(set(system) - set(oracle))} only in codemap')
    print(f'definitions: oracle {total_o}, codemap {total_s}, matched {matched}')
    print(f'recall {r(matched, total_o):.4f}  precision {r(matched, total_s):.4f}  '
          f'line exact {r(line_ok, matched):.4f}  end line exact {r(end_ok, matched):.4f}')
    for m in misses[: a.misses]:
        print('  missed', *m)
    for m in extras[: a.misses]:
        print('  extra ', *m)
    for m in bad[: a.misses]:
        print('  lines ', *m)


if __name__ == '__main__':
    main()
