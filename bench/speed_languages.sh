#!/usr/bin/env bash
# Lines indexed per second of each corpus against the first (a Java corpus), issue 39: "a mixed
# repository indexes at the same lines-per-second as Java (±20 %)". The corpora are indexed in
# turn, RUNS times over (alternated, so that a slower minute of a shared machine falls on all of
# them), each from an empty index. Lines are what the index says it holds (`status -v`), by
# language, text included; the ratio is each corpus's median lines/s over the first corpus's.
#
#   CODEMAP_BIN=target/release/codemap RUNS=5 bench/speed_languages.sh \
#       /work/corpora/bench/corpus-1m /work/corpora/py/Django-4.2.16 /tmp/mixed
set -euo pipefail
BIN=${CODEMAP_BIN:-target/release/codemap}
RUNS=${RUNS:-5}
WORK=${WORK:-$(mktemp -d)}
[ $# -ge 2 ] || { echo "usage: $0 JAVA_CORPUS CORPUS..." >&2; exit 2; }
mkdir -p "$WORK"
times="$WORK/times.tsv"
: >"$times"
for run in $(seq "$RUNS"); do
  for corpus in "$@"; do
    rm -rf "$WORK/idx"
    start=$(date +%s.%N)
    "$BIN" --index-dir "$WORK/idx" index "$corpus" --quiet >/dev/null
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\n' "$corpus" "$run" "$(echo "$end - $start" | bc)" >>"$times"
  done
  for corpus in "$@"; do
    [ -s "$WORK/lines.$(basename "$corpus").json" ] && continue
    rm -rf "$WORK/idx"
    "$BIN" --index-dir "$WORK/idx" index "$corpus" --quiet >/dev/null
    "$BIN" --index-dir "$WORK/idx" --repo "$corpus" --json status -v >"$WORK/lines.$(basename "$corpus").json"
  done
done
python3 - "$WORK" "$@" <<'EOF'
import json, statistics, sys
from collections import Counter, defaultdict
work, corpora = sys.argv[1], sys.argv[2:]
walls = defaultdict(list)
for line in open(f"{work}/times.tsv"):
    corpus, _, wall = line.split("\t")
    walls[corpus].append(float(wall))
base = None
print(f"{'corpus':<40} {'lines':>10} {'median s':>9} {'runs (s)':<36} {'lines/s':>9} {'vs first':>8}")
for corpus in corpora:
    files = json.load(open(f"{work}/lines.{corpus.rstrip('/').split('/')[-1]}.json"))["indexed_files"]
    by_language = Counter()
    for f in files:
        by_language[f["language"]] += f["lines"] or 0
    lines = sum(by_language.values())
    median = statistics.median(walls[corpus])
    rate = lines / median
    base = base or rate
    runs = " ".join(f"{w:.2f}" for w in walls[corpus])
    print(f"{corpus:<40} {lines:>10,} {median:>9.2f} {runs:<36} {rate:>9,.0f} {rate / base:>8.2f}")
    print("    " + ", ".join(f"{k} {v:,}" for k, v in by_language.most_common()))
EOF
