#!/usr/bin/env python3
"""Summary of bench/qa.sh: tuned and frozen QA sets apart, and the issue-23 targets.

    python3 bench/qa_summary.py GROUP:NAME:CASES.jsonl:SCORES.json ...

GROUP is `tuned` or `frozen`; SCORES.json is what `shared/eval/score.py --json` wrote for CASES.
Prints per set hit@1, hit@5 and file hit@5; for frozen sets English and Chinese apart (a question
is Chinese when its text holds a CJK ideograph) and, in a set that marks them (notes starting with
`[cross-boundary]`, issue 39: the question is on one side of a front end / back end boundary and the
answer on the other or both), those questions apart from the rest; the mean over the sets of each
group; and the targets of issue 23. Python 3 standard library only; prints figures, exits 0.
"""
import json
import re
import sys

CJK = re.compile('[\u3400-\u4dbf\u4e00-\u9fff]')
CROSS = '[cross-boundary]'
COLS = ('hit@1', 'hit@5', 'file_hit@5')
# Issue 23, acceptance: frozen hit@5 >= .85 and within .05 of the tuned average; file hit@5 >= .92;
# Chinese within .05 of English.
HIT5_FLOOR, HIT5_GAP, FILE5_FLOOR, LANG_GAP = 0.85, 0.05, 0.92, 0.05


def mean(rows, key):
    return sum(r[key] for r in rows) / len(rows) if rows else None


def fmt(v):
    return '   -  ' if v is None else '%6.3f' % v


def line(label, n, vals):
    print('  %-34s %4s ' % (label, n) + ' '.join('%8s' % fmt(v) for v in vals))


def load(arg):
    group, name, cases, scores = arg.split(':', 3)
    if group not in ('tuned', 'frozen'):
        sys.exit('qa_summary.py: group must be tuned or frozen, not %r' % group)
    qs = [json.loads(l) for l in open(cases, encoding='utf-8') if l.strip()]
    per_q = json.load(open(scores, encoding='utf-8'))['per_question']
    rows = []
    for q in qs:
        r = dict(per_q[q['id']])
        r['zh'] = bool(CJK.search(q['question']))
        r['cross'] = q.get('notes', '').startswith(CROSS)
        rows.append(r)
    return group, name, rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sets = [load(a) for a in sys.argv[1:]]
    print('Tuned and frozen sets (hit@5 = top 5; file = path only; averages are means over the sets)')
    print('  %-34s %4s ' % ('set', 'n') + ' '.join('%8s' % c for c in COLS))
    avgs = {}
    for group in ('tuned', 'frozen'):
        mine = [(n, rows) for g, n, rows in sets if g == group]
        if not mine:
            continue
        print('  -- %s' % group)
        for name, rows in mine:
            line(name, len(rows), [mean(rows, c) for c in COLS])
            if group == 'frozen':
                for lang, zh in (('English', False), ('Chinese', True)):
                    sub = [r for r in rows if r['zh'] == zh]
                    line('  ' + lang, len(sub), [mean(sub, c) for c in COLS])
                if any(r['cross'] for r in rows):
                    for label, cross in (('cross-boundary', True), ('one side only', False)):
                        sub = [r for r in rows if r['cross'] == cross]
                        line('  ' + label, len(sub), [mean(sub, c) for c in COLS])
        avgs[group] = {c: sum(mean(rows, c) for _, rows in mine) / len(mine) for c in COLS}
        line('%s average (%d sets)' % (group, len(mine)), sum(len(r) for _, r in mine),
             [avgs[group][c] for c in COLS])
        if group == 'frozen':
            pooled = [r for _, rows in mine for r in rows]
            for lang, zh in (('English', False), ('Chinese', True)):
                sub = [r for r in pooled if r['zh'] == zh]
                line('frozen %s, all questions' % lang, len(sub), [mean(sub, c) for c in COLS])
            avgs['en'] = {c: mean([r for r in pooled if not r['zh']], c) for c in COLS}
            avgs['zh'] = {c: mean([r for r in pooled if r['zh']], c) for c in COLS}
    if 'frozen' not in avgs:
        print('no frozen set ran: no targets to check')
        return
    f, t = avgs['frozen'], avgs.get('tuned')
    print('Targets (issue 23)')

    def check(label, ok, detail):
        print('  %-4s %s: %s' % ('ok' if ok else 'MISS', label, detail))

    check('frozen hit@5 >= %.2f' % HIT5_FLOOR, f['hit@5'] >= HIT5_FLOOR, '%.3f' % f['hit@5'])
    if t:
        gap = t['hit@5'] - f['hit@5']
        check('frozen hit@5 within %.2f of the tuned average' % HIT5_GAP, gap <= HIT5_GAP,
              'tuned %.3f, frozen %.3f, gap %.3f' % (t['hit@5'], f['hit@5'], gap))
    check('frozen file hit@5 >= %.2f' % FILE5_FLOOR, f['file_hit@5'] >= FILE5_FLOOR, '%.3f' % f['file_hit@5'])
    en, zh = avgs['en']['hit@5'], avgs['zh']['hit@5']
    if en is not None and zh is not None:
        check('frozen Chinese hit@5 within %.2f of English' % LANG_GAP, en - zh <= LANG_GAP,
              'English %.3f, Chinese %.3f, gap %.3f' % (en, zh, en - zh))


if __name__ == '__main__':
    main()
