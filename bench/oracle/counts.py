#!/usr/bin/env python3
"""Counts table (README-callgraph.md layout).

    python3 counts.py DEFS.jsonl EDGES.jsonl [PKG_ROOT CLASSES_DIR]

Uses score_callgraph.py (oracle scored against itself) for the scored-key rows: $SCORE_CALLGRAPH, else
$EVAL_DIR/score_callgraph.py, else <git top level>/../shared/eval/score_callgraph.py."""
import json, subprocess, sys, tempfile, os


def find_scorer():
    if os.environ.get('SCORE_CALLGRAPH'):
        return os.environ['SCORE_CALLGRAPH']
    eval_dir = os.environ.get('EVAL_DIR')
    if not eval_dir:
        here = os.path.dirname(os.path.abspath(__file__))
        p = subprocess.run(['git', '-C', here, 'rev-parse', '--show-toplevel'], capture_output=True, text=True)
        root = p.stdout.strip() if p.returncode == 0 else os.path.join(here, '..', '..')
        eval_dir = os.path.join(root, '..', 'shared', 'eval')
    return os.path.join(eval_dir, 'score_callgraph.py')



defs = [json.loads(l) for l in open(sys.argv[1])]
edges = [json.loads(l) for l in open(sys.argv[2])]
scorer = find_scorer()
if not os.path.isfile(scorer):
    sys.exit('counts.py: no scorer at %s (set EVAL_DIR or SCORE_CALLGRAPH)' % scorer)
classes = {d['class'] for d in defs}
files = {d['file'] for d in defs}
if len(sys.argv) > 4:  # PKG_ROOT CLASSES_DIR: count classes without methods too
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True  # no __pycache__ inside the repo
    import build_oracle
    B = build_oracle.Builder(sys.argv[3], sys.argv[4])
    classes = set(B.classes)
    files = {B.file_of(c) for c in B.classes}
decl = [d for d in defs if not (d['synthetic'] or d['bridge'] or d['lambda'] or d['implicit'] or d['method'] == '<clinit>')]
named = [d for d in decl if not d['class_anonymous']]
anon = [d for d in decl if d['class_anonymous']]
lam = sum(d['lambda'] for d in defs)
br = sum(d['bridge'] for d in defs)
osyn = sum(d['synthetic'] and not d['lambda'] and not d['bridge'] for d in defs)
impl = sum(d['implicit'] and not d['synthetic'] for d in defs)
clinit = sum(d['method'] == '<clinit>' for d in defs)
def cnt(ext):
    es = [e for e in edges if e['external'] == ext]
    mr = sum(1 for e in es if e.get('method_ref'))
    cg = sum(1 for e in es if e['compiler_generated'])
    return len(es) - mr - cg, cg, mr
rows = [
    ('classes / source files with classes', '%d / %d' % (len(classes), len(files))),
    ('method definitions (all)', '{:,}'.format(len(defs))),
    ('… declared in source, named classes', '{:,} ({} abstract)'.format(len(named), sum(d['abstract'] for d in named))),
    ('… declared in anonymous classes', '{:,}'.format(len(anon))),
    ('… lambda / bridge / other synthetic / implicit / `<clinit>`', '%d / %d / %d / %d / %d' % (lam, br, osyn, impl, clinit)),
    ('edges (after merging duplicates)', '{:,}'.format(len(edges))),
    ('internal: source calls / compiler-generated / method refs', '{:,} / {:,} / {:,}'.format(*cnt(False))),
    ('external (JDK): source calls / compiler-generated / method refs', '{:,} / {:,} / {:,}'.format(*cnt(True))),
    ('edges from lambda bodies / initializer edges', '%d / %d' % (sum(1 for e in edges if e.get('via_lambda')), sum(1 for e in edges if e.get('initializer')))),
    ('callee declared in a class other than the receiver type (internal source calls)',
     str(sum(1 for e in edges if not e['external'] and not e['compiler_generated'] and not e.get('method_ref') and e['callee_class'] != e['callee_owner'] and not e.get('anonymous_class_creation')))),
]
res = json.loads(subprocess.run([sys.executable, scorer, sys.argv[2], sys.argv[2], '--json'], capture_output=True, text=True).stdout)
k = {(r['scope'], r['level']): r['oracle_edges'] for r in res['results']}
for sc in ('internal', 'all'):
    rows.append(('scored keys, scope %s: level a / a\' / b' % sc, '{:,} / {:,} / {:,}'.format(k[(sc, 'name')], k[(sc, 'name-nocls')], k[(sc, 'line')])))
for a, b in rows:
    print('| %s | %s |' % (a, b))
