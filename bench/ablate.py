#!/usr/bin/env python3
"""bench/ablate.py -- what each ranking rule is worth, on every QA set (`bench/qa.sh --ablate`).

Usage: ablate.py CODEMAP SCORER WORK CASES.jsonl NAME [CASES.jsonl NAME]...

For every set, the index `WORK/NAME/idx` that bench/qa.sh built is asked the set's questions
(`codemap ask --batch`, index-only) once with every rule on and once per rule with that rule off
(`--rules -NAME`, from `codemap ask --list-rules --json`). Prints one row per rule: the change in
hit@1, hit@5 and file hit@5 against all rules on, per set and averaged over the sets, so a rule
that does not help the frozen sets shows as a row of zeros or worse there. Sets are grouped as
qa.sh groups them (tuned, frozen) by the `frozen` word in their path.

Prints figures; not a test. Runtime: (rules + 1) x the time of one qa.sh run's asks.
"""
import json
import os
import subprocess
import sys
import tempfile


def metrics(codemap, scorer, cases, idx, rules, work):
    out = os.path.join(work, "ablate-results.jsonl")
    log = os.path.join(work, "ablate-ask.log")
    env = dict(os.environ, CODEMAP_RULES=rules)
    with open(out, "w") as o, open(log, "w") as e:
        rc = subprocess.call([codemap, "ask", "--batch", cases, "--index-dir", idx], stdout=o,
                             stderr=e, env=env)
    if rc not in (0, 1):
        sys.exit("ablate.py: ask --batch failed on %s with rules %r (see %s)" % (cases, rules, log))
    with tempfile.NamedTemporaryFile("r", suffix=".json") as j:
        subprocess.check_call([sys.executable, scorer, cases, out, "--json", j.name],
                              stdout=subprocess.DEVNULL)
        summary = json.load(open(j.name))["summary"]
    overall = summary["ALL"]["overall"] if "ALL" in summary else next(iter(summary.values()))["overall"]
    return {k: overall.get(k) or 0.0 for k in ("hit@1", "hit@5", "file_hit@5")}


def main():
    if len(sys.argv) < 6 or (len(sys.argv) - 4) % 2:
        sys.exit(__doc__)
    codemap, scorer, work = sys.argv[1:4]
    sets = [(sys.argv[i], sys.argv[i + 1]) for i in range(4, len(sys.argv), 2)]
    listed = subprocess.check_output([codemap, "--json", "ask", "--list-rules"], text=True)
    rules = [json.loads(l) for l in listed.splitlines() if l.strip()]
    base, rows = {}, {}
    for cases, name in sets:
        w = os.path.join(work, name)
        idx = os.path.join(w, "idx")
        if not os.path.isdir(idx):
            print("-- skipping %s: no index %s (run bench/qa.sh first)" % (name, idx))
            continue
        base[name] = metrics(codemap, scorer, cases, idx, "", w)
        for r in rules:
            rows.setdefault(r["name"], {})[name] = metrics(codemap, scorer, cases, idx,
                                                          "-" + r["name"], w)
        print("   %s: %d rules ablated" % (name, len(rules)), file=sys.stderr)
    names = list(base)
    if not names:
        sys.exit("ablate.py: no set had an index")
    groups = [("tuned", [n for n in names if not is_frozen(n, sets)]),
              ("frozen", [n for n in names if is_frozen(n, sets)])]
    groups = [(g, ns) for g, ns in groups if ns]

    print("All rules on (hit@1 / hit@5 / file hit@5):")
    for n in names:
        b = base[n]
        print("  %-28s %.3f / %.3f / %.3f" % (n, b["hit@1"], b["hit@5"], b["file_hit@5"]))
    print()
    print("Each rule off: change in hit@5 per set (hit@1 change in brackets), then the mean change")
    print("per group (hit@1 in brackets). Negative: the rule helps; zero: it does nothing there.")
    head = "  %-20s" % "rule" + "".join(" %15s" % short(n)[:15] for n in names)
    head += "".join(" %17s" % ("mean " + g) for g, _ in groups)
    print(head)
    for r in rules:
        cells = []
        for n in names:
            d5 = rows[r["name"]][n]["hit@5"] - base[n]["hit@5"]
            d1 = rows[r["name"]][n]["hit@1"] - base[n]["hit@1"]
            cells.append("%16s" % ("%+.2f (%+.2f)" % (d5, d1)))
        for _, ns in groups:
            m5 = sum(rows[r["name"]][n]["hit@5"] - base[n]["hit@5"] for n in ns) / len(ns)
            m1 = sum(rows[r["name"]][n]["hit@1"] - base[n]["hit@1"] for n in ns) / len(ns)
            cells.append(" %17s" % ("%+.3f (%+.3f)" % (m5, m1)))
        print("  %-20s" % r["name"] + "".join(cells))


def is_frozen(name, sets):
    return any(n == name and "/frozen/" in c for c, n in sets)


def short(name):
    return name.replace("qa-", "")[:15]


if __name__ == "__main__":
    main()
