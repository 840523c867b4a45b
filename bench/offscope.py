#!/usr/bin/env python3
"""How many answers say that nothing matches: for questions about code that is not there
(bench/eval/offscope/*.jsonl) that is the share to raise, for in-scope QA sets the share to keep
near zero. Reads `codemap ask --batch` results:

    codemap ask --batch bench/eval/offscope/jsoup.jsonl --index-dir IDX > r.jsonl
    python3 bench/offscope.py r.jsonl [more results …]
"""
import json
import sys

# How an index-only answer opens when nothing matches well (query::answer::not_found_line), or
# when nothing matched at all (a callers question about a method the code does not have).
NOTHING = ("Nothing in ", "No indexed code matches")


def main(paths):
    for path in paths:
        rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        said = [r["id"] for r in rows if r.get("answer", "").startswith(NOTHING)]
        print(f"{path}: {len(said)}/{len(rows)} say nothing matches ({len(said) / max(len(rows), 1):.1%})"
              + (f": {' '.join(said)}" if len(said) <= 5 else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
