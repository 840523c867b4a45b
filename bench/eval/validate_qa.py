#!/usr/bin/env python3
"""Check a code-QA case file against the shared/eval/README.md schema and its corpus tree.

    python3 bench/eval/validate_qa.py CASES.jsonl CORPUS_ROOT

CORPUS_ROOT is the unpacked source folder the gold paths are relative to (e.g. commons-io-2.11.0/ or
corpus-1m/tomcat10/). Checks: exactly the schema's fields; one `corpus` value for the whole file; known
kinds and difficulties; ids `<prefix>-NNN` numbered by line; 3-6 gold steps for flow questions; every
gold path exists and is not test code; 1 <= start_line <= end_line <= file length; the start line looks
like a declaration (annotation, modifier or the symbol's name) and the end line is a lone `}`.
Gold in JavaScript/TypeScript and Vue files (bench/eval/frozen/qa-litemall.jsonl) is checked by their own
rules instead: the start line is a declaration (function, class, const/let/var, a method or a property
`name: ...`, or a statement such as `service.interceptors.response.use(`) naming the symbol, the end line
closes it (`}`, `},`, `})`, `];` ...) unless the declaration is one line, and in a `.vue` file the range
lies inside the `<script>` block. Gold in a MyBatis mapper `.xml` starts on the element whose `id` is the
symbol's name and ends on its closing tag. Every other file, Java included, gets the rules above.
Prints `ok N questions` or the problems; exits 1 on problems. Python 3 standard library only.
"""
import json
import os
import re
import sys

REQ = {'id', 'corpus', 'kind', 'difficulty', 'question', 'gold', 'notes'}
# trace (a pasted stack trace) and impact (a pasted diff) are used by the frozen sets (bench/eval/frozen/).
KINDS = {'locate', 'definition', 'callers', 'flow', 'config', 'trace', 'impact'}
DIFFS = {'easy', 'medium', 'hard'}
DECL = re.compile(r'^\s*(@\w|public|protected|private|static|final|abstract|synchronized|native|default|class|'
                  r'interface|enum|record|<|[\w.<>\[\], ?]+\s+\w+\s*\()')
JS_EXT = ('.js', '.mjs', '.cjs', '.jsx', '.ts', '.tsx', '.vue')
JS_DECL = re.compile(r'^\s*(export\s+(default\s+)?)?(async\s+)?(function\b|class\b|const\b|let\b|var\b)'
                     r'|^\s*(async\s+)?[\w$]+\s*\([^)]*\)\s*\{'   # method shorthand: name(args) {
                     r'|^\s*[\'"]?[\w$]+[\'"]?\s*:'                # property: name: function() { / name: {
                     r'|^\s*[\w$.]+\s*(\(|=[^=])')                  # statement: a.b.use( / module.exports =
JS_END = re.compile(r'^[}\])]+[,;]?$')
XML_START = re.compile(r'^\s*<([\w:-]+)\b[^>]*\bid="([^"]+)"')


def check_js(g, lines, name, bad, qid):
    """JavaScript, TypeScript and Vue gold: a declaration naming the symbol to the line that closes it."""
    first = lines[g['start_line'] - 1]
    if not (JS_DECL.match(first) and re.search(r'(?<![\w$])' + re.escape(name) + r'(?![\w$])', first)):
        bad(qid, 'start line is not a declaration of', g['symbol'], '|', first.strip())
    if g['end_line'] > g['start_line'] and not JS_END.match(lines[g['end_line'] - 1].strip()):
        bad(qid, 'end line does not close the declaration', g)
    if g['path'].endswith('.vue'):
        opens = [i for i, l in enumerate(lines, 1) if re.match(r'\s*<script\b', l)]
        closes = [i for i, l in enumerate(lines, 1) if re.match(r'\s*</script>', l)]
        if not any(o < g['start_line'] and g['end_line'] < c for o in opens for c in closes):
            bad(qid, 'range is not inside the <script> block', g)


def check_xml(g, lines, name, bad, qid):
    """MyBatis mapper gold: the element whose id is the symbol's name, to its closing tag."""
    m = XML_START.match(lines[g['start_line'] - 1])
    if not m or m.group(2) != name:
        bad(qid, 'start line is not the element with id', name, '|', lines[g['start_line'] - 1].strip())
    elif lines[g['end_line'] - 1].strip() != '</%s>' % m.group(1):
        bad(qid, 'end line is not </%s>' % m.group(1), g)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cases, root = sys.argv[1], sys.argv[2]
    if not os.path.isdir(root):
        sys.exit('validate_qa.py: no corpus folder %s' % root)
    problems = []
    ids, corpora, prefix = [], set(), None

    def bad(*msg):
        problems.append(' '.join(str(m) for m in msg))

    n = 0
    for n, line in enumerate(open(cases, encoding='utf-8'), 1):
        d = json.loads(line)
        if set(d) != REQ:
            bad('line', n, 'fields differ from the schema:', sorted(set(d) ^ REQ))
            continue
        corpora.add(d['corpus'])
        if d['kind'] not in KINDS or d['difficulty'] not in DIFFS:
            bad(d['id'], 'kind/difficulty', d['kind'], d['difficulty'])
        m = re.fullmatch(r'([a-z0-9]+)-(\d{3})', d['id'])
        prefix = prefix or (m and m.group(1))
        if not m or m.group(1) != prefix or int(m.group(2)) != n:
            bad('line', n, 'id', d['id'], 'is not %s-%03d' % (prefix, n))
        ids.append(d['id'])
        if not isinstance(d['gold'], list) or not d['gold']:
            bad(d['id'], 'empty gold')
            continue
        if d['kind'] == 'flow' and not 3 <= len(d['gold']) <= 6:
            bad(d['id'], 'flow with', len(d['gold']), 'steps')
        for g in d['gold']:
            if set(g) != {'path', 'symbol', 'start_line', 'end_line'}:
                bad(d['id'], 'gold fields', g)
                continue
            p = os.path.join(root, g['path'])
            if not os.path.isfile(p):
                bad(d['id'], 'no file', p)
                continue
            if g['path'].startswith('test/') or '/src/test/' in g['path'] or g['path'].startswith('src/test/'):
                bad(d['id'], 'gold in test code', g['path'])
            lines = open(p, encoding='utf-8', errors='replace').read().split('\n')
            if not 1 <= g['start_line'] <= g['end_line'] <= len(lines):
                bad(d['id'], 'line range', g)
                continue
            first = lines[g['start_line'] - 1]
            name = g['symbol'].split('(')[0].split('.')[-1]
            if g['path'].endswith(JS_EXT):
                check_js(g, lines, name, bad, d['id'])
                continue
            if g['path'].endswith('.xml'):
                check_xml(g, lines, name, bad, d['id'])
                continue
            if not (DECL.match(first) and (first.strip().startswith('@')
                                           or re.search(r'\b' + re.escape(name) + r'\b', first))):
                bad(d['id'], 'start line is not a declaration of', g['symbol'], '|', first.strip())
            if lines[g['end_line'] - 1].strip() != '}':
                bad(d['id'], 'end line is not a closing brace', g)
    if len(set(ids)) != len(ids):
        bad('duplicate ids')
    if len(corpora) > 1:
        bad('several corpus values', sorted(corpora))
    for p in problems:
        print('BAD', p)
    print('ok' if not problems else '%d problems' % len(problems), n, 'questions')
    sys.exit(1 if problems else 0)


if __name__ == '__main__':
    main()
