#!/usr/bin/env bash
# bench/ask.sh [BENCH_DIR] -- `codemap ask` latency on corpus-1m against the ask issue's targets:
#   - retrieval latency (index-only answer: understand, retrieve, plan, assemble) over the questions
#     of bench/questions-1m.txt in ONE warm process: p95 <= 50 ms (p50 and max printed too);
#   - a one-shot `codemap ask "question"` in a new process: median wall of RUNS <= 150 ms.
#
# Prints figures, is not a test: exits 0 whenever the figures were produced, even if a target is
# missed. Knobs (environment): CODEMAP_BENCH_DIR, QUESTIONS, COLD_QUESTION, RUNS, PASSES,
# CODEMAP_BIN, LATENCY_BIN. Writes only under BENCH_DIR/work/ask-sh/ (the index folder and logs).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
BENCH_DIR=${1:-${CODEMAP_BENCH_DIR:-/work/corpora/bench}}
QUESTIONS=${QUESTIONS:-$HERE/questions-1m.txt}
COLD_QUESTION=${COLD_QUESTION:-How does the Mapper find the servlet wrapper for a request URI?}
RUNS=${RUNS:-5}       # one-shot runs (median)
PASSES=${PASSES:-2}   # passes over the questions in the warm process (pass 1 is the figure)
T_P95_MS=50 T_COLD_MS=150

say() { printf '== %s\n' "$*"; }
die() { printf 'ask.sh: %s\n' "$*" >&2; exit 1; }
check() { # check LABEL VALUE LIMIT UNIT
  local verdict
  if [ "$2" = - ]; then verdict="n/a "; elif awk "BEGIN{exit !($2 <= $3)}"; then verdict=PASS; else verdict=FAIL; fi
  printf '  %-46s %s  (%s %s, target <= %s %s)\n' "$1" "$verdict" "$2" "$4" "$3" "$4"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{if(NR==0)print "-"; else if(NR%2)printf "%.1f\n",a[(NR+1)/2]; else printf "%.1f\n",(a[NR/2]+a[NR/2+1])/2}'; }

CORPUS=$BENCH_DIR/corpus-1m
[ -d "$CORPUS" ] || die "no corpus at $CORPUS (bench/index.sh builds it; see bench/README.md)"
[ -f "$QUESTIONS" ] || die "no questions file $QUESTIONS"
WORK=$BENCH_DIR/work/ask-sh
mkdir -p "$WORK/logs"
IDX=$WORK/codemap-idx
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"

# ---------------------------------------------------------------- build
TARGET=$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps 2>/dev/null | jq -r .target_directory 2>/dev/null) || TARGET=
[ -n "$TARGET" ] && [ "$TARGET" != null ] || TARGET=$ROOT/target
CODEMAP=${CODEMAP_BIN:-$TARGET/release/codemap}
LATENCY=${LATENCY_BIN:-$TARGET/release/examples/ask_latency}
if [ -z "${CODEMAP_BIN:-}" ] || [ -z "${LATENCY_BIN:-}" ]; then
  say "cargo build --release (log: $WORK/logs/build.log)"
  cargo build --manifest-path "$ROOT/Cargo.toml" --release --bin codemap >"$WORK/logs/build.log" 2>&1 \
    && cargo build --manifest-path "$ROOT/Cargo.toml" --release -p query --example ask_latency >>"$WORK/logs/build.log" 2>&1 \
    || { tail -20 "$WORK/logs/build.log" >&2; die "build failed"; }
fi

# ---------------------------------------------------------------- index (incremental: a no-op when current)
say "codemap index $CORPUS --index-dir $IDX"
"$CODEMAP" index "$CORPUS" --index-dir "$IDX" --quiet >"$WORK/logs/index.log" 2>&1 \
  || { cat "$WORK/logs/index.log" >&2; die "codemap index failed"; }
tail -1 "$WORK/logs/index.log" | sed 's/^/   /'

# The first question after an index run derives the view tables once per snapshot
# (<index>/query-cache/); later processes map them.
T0=$(date +%s%N)
"$CODEMAP" --index-dir "$IDX" ask "where is the main entry point?" >/dev/null 2>"$WORK/logs/first-ask.log" || true
FIRST_MS=$(( ($(date +%s%N) - T0) / 1000000 ))
say "first ask after the index run (builds or checks the view tables): $FIRST_MS ms; tables: $(du -sh "$IDX/query-cache" 2>/dev/null | cut -f1)"

# ---------------------------------------------------------------- warm process
# `--graph auto` answers as `codemap ask` does (the stored call graph when the index has one);
# the lexical graph's figures follow for reference.
NQ=$(grep -cv '^\s*\(#\|$\)' "$QUESTIONS")
say "warm process: $NQ questions from $(basename "$QUESTIONS"), $PASSES pass(es), call graph as codemap ask uses it"
"$LATENCY" "$IDX" "$QUESTIONS" --passes "$PASSES" --verbose --graph auto | tee "$WORK/logs/latency.log" | grep -v '^RESULT' | sed 's/^/   /'
GRAPH=$(sed -n 's/.*; \([a-z]*\) call graph$/\1/p' "$WORK/logs/latency.log" | head -1)
field() { awk -v k="$2" '/^RESULT pass=1 /{for(i=1;i<=NF;i++) if(index($i,k"=")==1){sub(k"=","",$i); print $i}}' "$1"; }
P50=$(field "$WORK/logs/latency.log" p50_ms) P95=$(field "$WORK/logs/latency.log" p95_ms) MAX=$(field "$WORK/logs/latency.log" max_ms)
LP50=- LP95=- LMAX=-
if [ "$GRAPH" != lexical ]; then
  say "warm process, lexical call graph (reference)"
  "$LATENCY" "$IDX" "$QUESTIONS" --graph lexical | tee "$WORK/logs/latency-lexical.log" | grep -v '^RESULT' | sed 's/^/   /'
  LP50=$(field "$WORK/logs/latency-lexical.log" p50_ms) LP95=$(field "$WORK/logs/latency-lexical.log" p95_ms) LMAX=$(field "$WORK/logs/latency-lexical.log" max_ms)
fi

# ---------------------------------------------------------------- one-shot
say "one-shot: codemap ask \"$COLD_QUESTION\" ($RUNS runs, median)"
COLD=-
if command -v hyperfine >/dev/null; then
  hyperfine --warmup 1 --runs "$RUNS" --export-json "$WORK/logs/cold.json" --style basic \
    "$CODEMAP --index-dir $IDX ask '$COLD_QUESTION'" >"$WORK/logs/cold.log" 2>&1 || true
  COLD=$(jq -r '.results[0].median * 1000 | . * 10 | round / 10' "$WORK/logs/cold.json" 2>/dev/null || echo -)
  grep -E "Time|Range" "$WORK/logs/cold.log" | sed 's/^/   /' || true
  echo "   (hyperfine: median over $RUNS runs after 1 warm-up)"
else
  "$CODEMAP" --index-dir "$IDX" ask "$COLD_QUESTION" >/dev/null 2>&1 || true # warm-up
  T=()
  for _ in $(seq "$RUNS"); do
    T0=$(date +%s%N)
    "$CODEMAP" --index-dir "$IDX" ask "$COLD_QUESTION" >/dev/null 2>&1 || true
    T+=("$(awk "BEGIN{printf \"%.1f\", ($(date +%s%N) - $T0) / 1e6}")")
  done
  COLD=$(median "${T[@]}")
  echo "   runs (ms): ${T[*]}"
fi

# ---------------------------------------------------------------- figures
echo
echo "ask latency, corpus-1m ($(date -u '+%Y-%m-%d %H:%M UTC'), load at end: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '  %-46s %s ms\n' "warm process p50 (pass 1, ${GRAPH:-?} graph)" "${P50:--}" "warm process max (pass 1)" "${MAX:--}"
check "warm process p95 (pass 1, $NQ questions)" "${P95:--}" "$T_P95_MS" ms
if [ "$LP95" != - ]; then
  printf '  %-46s p50 %s, p95 %s, max %s ms\n' "  for reference, lexical graph:" "$LP50" "$LP95" "$LMAX"
fi
check "one-shot codemap ask, median wall" "${COLD:--}" "$T_COLD_MS" ms
