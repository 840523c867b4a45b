#!/usr/bin/env python3
"""Compare two oracle builds record by record (defs and edges) and write scorer system-input files.

    python3 compare.py REF_DEFS REF_EDGES MINE_DEFS MINE_EDGES OUTDIR
"""
import collections
import json
import os
import sys


def load(p):
    return [json.loads(l) for l in open(p, encoding='utf-8') if l.strip()]


def to_sys_edges(edges, path):
    with open(path, 'w') as fh:
        for e in edges:
            fh.write(json.dumps(dict(caller_file=e['caller_file'], caller_symbol=e['caller_symbol'],
                                     callee_file=e['callee_file'], callee_symbol=e['callee_symbol'],
                                     line=e['line'])) + '\n')


def to_sys_edges_named(edges, path):
    """callee symbol = declaring named class + method (what an indexer would write)"""
    with open(path, 'w') as fh:
        for e in edges:
            if e.get('compiler_generated'):
                continue
            caller = e['caller_named_class'] + '.' + e['caller_method']
            fh.write(json.dumps(dict(caller_file=e['caller_file'], caller_symbol=caller,
                                     callee_file=e['callee_file'],
                                     callee_symbol=e['callee_named_class'] + '.' + e['callee_method'],
                                     line=e['line'])) + '\n')


def to_sys_defs(defs, path):
    with open(path, 'w') as fh:
        for d in defs:
            if d['synthetic'] or d['bridge'] or d['lambda'] or d['implicit'] or d['method'] == '<clinit>':
                continue
            line = d['decl_line'] if d['decl_line'] is not None else d['first_line']
            fh.write(json.dumps(dict(file=d['file'], symbol=d['named_class'] + '.' + d['method'], line=line,
                                     kind='method')) + '\n')


def field_diffs(label, ref, mine, example, show):
    """Counts, per field, the records both sides have whose field differs, and prints examples."""
    diffs = collections.Counter()
    ex = collections.defaultdict(list)
    for k in set(ref) & set(mine):
        a, b = ref[k], mine[k]
        for f in set(a) | set(b):
            if a.get(f) != b.get(f):
                diffs[f] += 1
                ex[f].append(example(k, a, b, f))
    print('%s field differences:' % label, dict(diffs))
    for f, l in ex.items():
        for x in sorted(l, key=str)[:show]:
            print('  ', f, x)


def main():
    rd, re_, md, me, out = sys.argv[1:6]
    os.makedirs(out, exist_ok=True)
    R_d, R_e, M_d, M_e = load(rd), load(re_), load(md), load(me)
    print('defs  ref %d mine %d' % (len(R_d), len(M_d)))
    print('edges ref %d mine %d' % (len(R_e), len(M_e)))
    # defs by (class, method, desc)
    dk = lambda d: (d['class'], d['method'], d['desc'])
    Rd = {dk(d): d for d in R_d}
    Md = {dk(d): d for d in M_d}
    print('defs only in ref: %d, only in mine: %d' % (len(set(Rd) - set(Md)), len(set(Md) - set(Rd))))
    for k in sorted(set(Rd) - set(Md))[:10]:
        print('  ref-only', k)
    for k in sorted(set(Md) - set(Rd))[:10]:
        print('  mine-only', k)
    field_diffs('def', Rd, Md, lambda k, a, b, f: (k, a.get(f), b.get(f)), 5)
    # edges by (caller_class, bytecode caller, caller_desc, pc-ish): use full identity
    ek = lambda e: (e['caller_class'], e['caller_method'], e['caller_desc'], e.get('bytecode_caller'),
                    e['callee_owner'], e['callee_method'], e['callee_desc'], e['opcode'], e['pc'])
    Re = {ek(e): e for e in R_e}
    Me = {ek(e): e for e in M_e}
    print('edges only in ref: %d, only in mine: %d' % (len(set(Re) - set(Me)), len(set(Me) - set(Re))))
    for k in sorted(set(Re) - set(Me), key=str)[:10]:
        print('  ref-only', json.dumps(Re[k]))
    for k in sorted(set(Me) - set(Re), key=str)[:10]:
        print('  mine-only', json.dumps(Me[k]))
    field_diffs('edge', Re, Me,
                lambda k, a, b, f: (k[:3] + k[5:6] + k[8:], a.get(f), b.get(f), a.get('line'), a.get('reason')), 8)
    to_sys_edges(R_e, os.path.join(out, 'ref-as-system.jsonl'))
    to_sys_edges(M_e, os.path.join(out, 'mine-as-system.jsonl'))
    to_sys_edges_named(R_e, os.path.join(out, 'ref-as-system-named.jsonl'))
    to_sys_edges_named(M_e, os.path.join(out, 'mine-as-system-named.jsonl'))
    to_sys_defs(R_d, os.path.join(out, 'ref-defs-as-system.jsonl'))
    to_sys_defs(M_d, os.path.join(out, 'mine-defs-as-system.jsonl'))


if __name__ == '__main__':
    main()
