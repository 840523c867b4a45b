#!/usr/bin/env bash
# bench/impact.sh [CORPUS] -- `codemap impact` latency on a 10-file diff: p50 and p95 wall time
# of a one-shot `codemap impact --format json` (a new process each run, as a review hook runs it).
#
# CORPUS: a Java source tree (default: $CODEMAP_BENCH_DIR/corpus-1m, else the commons-io source
# package). It is copied into WORK/repo and committed there, indexed into WORK/idx, and a diff is
# made by changing one `return` line in the bodies of 10 main-source files spread over the tree.
# Prints figures, is not a test. Knobs (environment): RUNS (default 20), WORK (default
# /tmp/codemap-impact-bench), CODEMAP_BIN (default: a release build of this checkout).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
BENCH_DIR=${CODEMAP_BENCH_DIR:-/work/corpora/bench}
CORPUS=${1:-}
if [ -z "$CORPUS" ]; then
  for c in "$BENCH_DIR/corpus-1m" /work/corpora/commons-io-2.11.0 /tmp/corpus/commons-io-2.11.0; do
    [ -d "$c" ] && { CORPUS=$c; break; }
  done
fi
[ -n "$CORPUS" ] && [ -d "$CORPUS" ] || { echo "impact.sh: no corpus (pass a Java source tree; apt-get source libcommons-io-java gives one)" >&2; exit 1; }
RUNS=${RUNS:-20}
WORK=${WORK:-/tmp/codemap-impact-bench}
say() { printf '== %s\n' "$*"; }
mkdir -p "$WORK/logs"

if [ -z "${CODEMAP_BIN:-}" ]; then
  TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
  say "cargo build --release (log: $WORK/logs/build.log)"
  cargo build --manifest-path "$ROOT/Cargo.toml" --release --bin codemap >"$WORK/logs/build.log" 2>&1 \
    || { tail -20 "$WORK/logs/build.log" >&2; exit 1; }
  CODEMAP=$TARGET/release/codemap
else
  CODEMAP=$CODEMAP_BIN
fi

# ---------------------------------------------------------------- the repository, committed
REPO=$WORK/repo IDX=$WORK/idx
say "copying $CORPUS to $REPO"
rm -rf "$REPO" && mkdir -p "$REPO"
(cd "$CORPUS" && tar --exclude=.git --exclude=.codemap -cf - .) | (cd "$REPO" && tar -xf -)
git -C "$REPO" init -q
git -C "$REPO" add -A
git -C "$REPO" -c user.name=bench -c user.email=bench@example.com commit -qm base
say "codemap index ($(git -C "$REPO" ls-files '*.java' | wc -l) Java files)"
"$CODEMAP" index "$REPO" --index-dir "$IDX" --quiet >"$WORK/logs/index.log" 2>&1 \
  || { cat "$WORK/logs/index.log" >&2; exit 1; }
tail -1 "$WORK/logs/index.log" | sed 's/^/   /'

# ---------------------------------------------------------------- a 10-file diff
mapfile -t CANDIDATES < <(cd "$REPO" && git ls-files '*.java' | grep -v '/test/' | sort \
  | while read -r f; do grep -qE '^\s+return [^;]+;\s*$' "$f" && echo "$f"; done)
N=${#CANDIDATES[@]}
[ "$N" -ge 10 ] || { echo "impact.sh: fewer than 10 files with a return line" >&2; exit 1; }
for i in $(seq 0 9); do
  f=${CANDIDATES[$(( i * N / 10 ))]}
  # The first `return …;` line gets a trailing comment: a body change of its method.
  sed -i -E '0,/^(\s+return [^;]+;)\s*$/s//\1 \/\/ impact-bench/' "$REPO/$f"
done
git -C "$REPO" diff >"$WORK/ten.diff"
git -C "$REPO" checkout -q -- .
say "diff: $(grep -c '^+++ ' "$WORK/ten.diff") files, $(grep -c '^@@' "$WORK/ten.diff") hunks"

# ---------------------------------------------------------------- runs
# The first run after an index derives the query view tables once per snapshot; not counted.
"$CODEMAP" --index-dir "$IDX" impact --diff "$WORK/ten.diff" --format json >"$WORK/report.json" 2>"$WORK/logs/first.log" || true
T=()
for _ in $(seq "$RUNS"); do
  T0=$(date +%s%N)
  "$CODEMAP" --index-dir "$IDX" impact --diff "$WORK/ten.diff" --format json >/dev/null 2>>"$WORK/logs/runs.log" || true
  T+=("$(( ($(date +%s%N) - T0) / 1000000 ))")
done
read -r P50 P95 MAX < <(printf '%s\n' "${T[@]}" | sort -n | awk '{a[NR]=$1} END{
  p50=a[int((NR+1)/2)]; i=int(NR*0.95+0.999); if(i<1)i=1; if(i>NR)i=NR; print p50, a[i], a[NR]}')
COUNTS=$(python3 -c "
import json; r=json.load(open('$WORK/report.json'))
print(f\"{len(r['changes'])} changed, {len(r['callers'])} callers, {len(r['entry_points'])} entry points, {len(r['tests'])} tests, {len(r['crossings'])} framework edges{', truncated' if r['truncated'] else ''}\")" 2>/dev/null || echo "?")

echo
echo "codemap impact, 10-file diff on $(basename "$CORPUS") ($(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
echo "  binary: $CODEMAP"
echo "  report: $COUNTS"
printf '  %-28s %s ms\n' "p50 ($RUNS one-shot runs)" "$P50" "p95" "$P95" "max" "$MAX"
