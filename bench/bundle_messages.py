#!/usr/bin/env python3
"""Log messages kept in resource bundles: does `codemap ask` find the code that logs them?

Samples keys of a repository's base bundles (`LocalStrings.properties`, `messages.properties`,
no locale suffix) whose value has at least five words and whose key one Java method names as a
string literal (`sm.getString("key"`), fills the value's `{n}` arguments with sample text, asks
"Our logs show: <message>. Where does that come from?" and scores where the naming method ranks.

    bench/bundle_messages.py REPO INDEX_DIR [--n 40] [--seed 1] [--codemap target/release/codemap]

Prints hit@1, hit@5 and MRR. The questions are generated, not hand-written: a figure for the
feature on a real code base, not a tuning set.
"""
import argparse, json, os, random, re, subprocess, sys

def bundles(repo):
    for d, _, fs in os.walk(repo):
        if '/.' in d:
            continue
        for f in fs:
            if re.fullmatch(r'(LocalStrings|messages|Messages)\.properties', f):
                yield os.path.join(d, f)

def entries(path):
    key = None
    for line in open(path, encoding='utf-8', errors='replace'):
        line = line.rstrip('\n')
        t = line.lstrip()
        if key is not None:
            val += t.rstrip('\\')
            if not t.endswith('\\'):
                yield key, val; key = None
            continue
        if not t or t[0] in '#!':
            continue
        m = re.match(r'([^=:\s]+)\s*[=:]?\s*(.*)', t)
        if not m:
            continue
        k, v = m.group(1), m.group(2)
        if v.endswith('\\'):
            key, val = k, v.rstrip('\\')
        else:
            yield k, v

def java_uses(repo):
    """key -> [(path, line)] of `"key"` literals in Java files."""
    uses = {}
    pat = re.compile(r'"([A-Za-z][\w.-]*\.[\w.-]+)"')
    for d, _, fs in os.walk(repo):
        if '/.' in d:
            continue
        for f in fs:
            if not f.endswith('.java'):
                continue
            p = os.path.join(d, f)
            for n, line in enumerate(open(p, encoding='utf-8', errors='replace'), 1):
                for k in pat.findall(line):
                    uses.setdefault(k, []).append((os.path.relpath(p, repo), n))
    return uses

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('repo'); ap.add_argument('index')
    ap.add_argument('--n', type=int, default=40); ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--codemap', default='target/release/codemap')
    a = ap.parse_args()
    uses = java_uses(a.repo)
    cands = []
    for b in sorted(bundles(a.repo)):
        for k, v in entries(b):
            words = re.findall(r'[A-Za-z]{2,}', v)
            if len(words) >= 5 and len(uses.get(k, [])) == 1 and "''" not in v:
                cands.append((k, v, uses[k][0]))
    random.Random(a.seed).shuffle(cands)
    cands = cands[:a.n]
    fill = ['shop', 'worker-3', '/var/tmp/app', '8443', 'com.acme.Order', 'localhost']
    hits1 = hits5 = 0; rr = 0.0
    for k, v, (path, line) in cands:
        msg = re.sub(r'\{(\d+)[^}]*\}', lambda m: fill[int(m.group(1)) % len(fill)], v)
        q = f'Our logs show: {msg} Where does that come from?'
        out = subprocess.run([a.codemap, '--index-dir', a.index, 'ask', q, '--json'],
                             capture_output=True, text=True)
        cits = json.loads(out.stdout)['citations'] if out.returncode == 0 else []
        rank = next((i for i, c in enumerate(cits[:10], 1)
                     if c['path'] == path and c['start_line'] <= line <= c['end_line']), None)
        hits1 += rank == 1; hits5 += bool(rank and rank <= 5); rr += 1 / rank if rank else 0
        print(f'{rank or "-":>2}  {k}  ({path}:{line})')
    n = max(len(cands), 1)
    print(f'{len(cands)} messages: hit@1 {hits1/n:.3f}  hit@5 {hits5/n:.3f}  MRR {rr/n:.3f}')

if __name__ == '__main__':
    main()
