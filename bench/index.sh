#!/usr/bin/env bash
# bench/index.sh [BENCH_DIR] -- indexing figures for codemap against the perf anchors
# (docs: bench/README.md; anchors: perf-anchors.md, "Limits" and "Single-file incremental anchors").
#
# Prints figures, is not a test: the exit code is 0 whenever the figures were produced, even if a
# target is missed. Knobs (environment): CODEMAP_BENCH_DIR, MAKE_CORPUS, ROUNDS, WARMUP, FOUNDATION,
# NOCHANGE_RUNS, EDITS, ANCHOR_THREADS, EDIT_FILE, EDIT_TIMEOUT, CODEMAP_BIN, ANCHORS_BIN.
set -euo pipefail
export LC_ALL=C # '.' decimal point in $EPOCHREALTIME and awk

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
BENCH_DIR=${1:-${CODEMAP_BENCH_DIR:-/work/corpora/bench}}
MAKE_CORPUS=${MAKE_CORPUS:-$ROOT/../shared/bench/make-corpus.sh}
ROUNDS=${ROUNDS:-3}                 # measured rounds of parse / tantivy / codemap full index
WARMUP=${WARMUP:-1}                 # unrecorded rounds before them
NOCHANGE_RUNS=${NOCHANGE_RUNS:-5}   # no-change re-runs (median)
EDITS=${EDITS:-20}                  # one-file edits while `codemap watch` runs
FOUNDATION=${FOUNDATION:-1}         # also time the full index without the call graph (0: skip)
ANCHOR_THREADS=${ANCHOR_THREADS:-2}
EDIT_FILE=${EDIT_FILE:-tomcat10/java/org/apache/catalina/session/StandardSession.java}
EDIT_TIMEOUT=${EDIT_TIMEOUT:-10}    # seconds to wait for one edit to become searchable
READY_TIMEOUT=${READY_TIMEOUT:-300} # seconds to wait for `codemap watch` to print "watching"
# Targets.
T_RATIO=1.5 T_RSS_MIB=1024 T_NOCHANGE_S=0.5 T_EDIT_MS=100

export TOMCAT_VERSION=${TOMCAT_VERSION:-10.1.55-1~deb12u1}
export OPENJDK_VERSION=${OPENJDK_VERSION:-17.0.19+10-1~deb12u2}
export KEEP_JDK=${KEEP_JDK:-0}

say() { printf '== %s\n' "$*"; }
die() { printf 'index.sh: %s\n' "$*" >&2; exit 1; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# ---------------------------------------------------------------- statistics (awk, one value a line)
median() { (($#)) || { echo -; return; }; printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END{if(NR==0)print "-"; else if(NR%2)printf "%.3f\n",a[(NR+1)/2]; else printf "%.3f\n",(a[NR/2]+a[NR/2+1])/2}'; }
pctl() { local p=$1; shift; (($#)) || { echo -; return; }; printf '%s\n' "$@" | sort -g | awk -v p="$p" '{a[NR]=$1} END{if(NR==0){print "-";exit} i=int(p*NR/100); if(i<p*NR/100)i++; if(i<1)i=1; printf "%.3f\n",a[i]}'; }
minmax() { (($#)) || { echo -; return; }; printf '%s\n' "$@" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{printf "%.3f-%.3f\n",lo,hi}'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
calc() { awk "BEGIN{printf \"%.3f\", $*}"; }
check() { # check LABEL VALUE OP LIMIT UNIT
  local verdict
  if [ "$2" = - ]; then verdict="n/a "; elif awk "BEGIN{exit !($2 $3 $4)}"; then verdict=PASS; else verdict=FAIL; fi
  printf '  %-44s %s  (%s %s, target %s %s)\n' "$1" "$verdict" "$2" "$5" "$3 $4" "$5"
}

# Every child runs in its own process group (set -m) and is waited for in the background, so an
# interrupt stops it (with its children) and the trap puts the edited corpus file back.
set -m
CHILD= WATCH_PID= BACKUP= EDIT_PATH=
stop() { # stop PID: end a process group this script started
  if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then kill -- "-$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi
}
restore() { if [ -n "$BACKUP" ] && [ -f "$BACKUP" ] && ! cmp -s "$BACKUP" "$EDIT_PATH"; then cp -p "$BACKUP" "$EDIT_PATH"; fi; }
cleanup() { stop "$CHILD"; restore; stop "$WATCH_PID"; CHILD= WATCH_PID=; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# job CMD... : run CMD as a separate job (own process group) and wait for it.
job() { local rc=0; "$@" </dev/null & CHILD=$!; wait "$CHILD" || rc=$?; CHILD=; return "$rc"; }

START_LOAD=$(loadavg)
START_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
CORES=$(nproc)
say "load average at start: $START_LOAD ($CORES cores)"

# ---------------------------------------------------------------- 0. tools
if [ ! -x /usr/bin/time ]; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq time >/dev/null; else die "GNU time missing: apt-get install time"; fi
fi

# ---------------------------------------------------------------- 1. corpus
CORPUS=$BENCH_DIR/corpus-1m
if pgrep -f 'make-corpus[.]sh' >/dev/null; then
  say "a make-corpus.sh is running; waiting for it to finish"
  while pgrep -f 'make-corpus[.]sh' >/dev/null; do sleep 5; done
fi
if [ ! -d "$CORPUS" ]; then
  [ -f "$MAKE_CORPUS" ] || die "no corpus at $CORPUS and no make-corpus.sh at $MAKE_CORPUS"
  say "building the corpus: $MAKE_CORPUS $BENCH_DIR (tomcat10 $TOMCAT_VERSION, openjdk-17 $OPENJDK_VERSION)"
  job bash "$MAKE_CORPUS" "$BENCH_DIR"
fi
CORPUS=$(cd "$CORPUS" && pwd)
EDIT_PATH=$CORPUS/$EDIT_FILE
[ -f "$EDIT_PATH" ] || die "edit file $EDIT_PATH not found"
WORK=$BENCH_DIR/work/index-sh
BACKUP=$WORK/edit-file.orig
restore # a run killed with -9 may have left its edit behind
rm -rf "$WORK" && mkdir -p "$WORK/logs"
read -r C_FILES < <(find "$CORPUS" -type f -name '*.java' | wc -l)
read -r C_LINES C_BYTES < <(find "$CORPUS" -type f -name '*.java' -print0 | xargs -0 cat | wc -lc) # also warms the page cache
say "corpus-1m: $C_FILES files, $C_LINES lines, $C_BYTES bytes ($CORPUS)"
if [ "$C_FILES $C_LINES $C_BYTES" != "3467 1015292 38159123" ]; then
  say "WARNING: corpus-1m differs from perf-anchors.md (3467 files, 1015292 lines, 38159123 bytes)"
fi
IDX=$WORK/codemap-idx   # outside the corpus, so watch never sees its own writes
TV_OUT=$WORK/anchor-tantivy

# ---------------------------------------------------------------- 2. build
TARGET=$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps 2>/dev/null | jq -r .target_directory) || TARGET=$ROOT/target
CODEMAP=${CODEMAP_BIN:-$TARGET/release/codemap}
ANCHORS=${ANCHORS_BIN:-$TARGET/release/examples/anchors}
CODEMAP_OK=1 CODEMAP_WHY=
if [ -z "${CODEMAP_BIN:-}" ] || [ -z "${ANCHORS_BIN:-}" ]; then
  say "cargo build --release (log: $WORK/logs/build.log)"
  if ! job cargo build --manifest-path "$ROOT/Cargo.toml" --release --bin codemap --example anchors -p codemap -p indexer >"$WORK/logs/build.log" 2>&1; then
    tail -n 15 "$WORK/logs/build.log" >&2
    say "building codemap failed; measuring the anchors only"
    CODEMAP_OK=0 CODEMAP_WHY="codemap did not build"
    job cargo build --manifest-path "$ROOT/Cargo.toml" --release -p indexer --example anchors >>"$WORK/logs/build.log" 2>&1 \
      || { tail -n 15 "$WORK/logs/build.log" >&2; die "the anchors example does not build either"; }
  fi
fi
[ -x "$ANCHORS" ] || die "no anchors binary at $ANCHORS"
if [ "$CODEMAP_OK" = 1 ] && [ ! -x "$CODEMAP" ]; then CODEMAP_OK=0 CODEMAP_WHY="no binary at $CODEMAP"; fi
VERSION=$([ "$CODEMAP_OK" = 1 ] && "$CODEMAP" --version 2>/dev/null || echo "codemap ?")
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "no commit")
DIRTY=$(git -C "$ROOT" status --porcelain | wc -l)

# ---------------------------------------------------------------- 3. timed runs
# timed LOG CMD... : runs CMD under GNU time; sets WALL (s, from the shell clock), CPU (user+sys s), RSS (MiB).
timed() {
  local log=$1 t0 t1; shift
  t0=$EPOCHREALTIME
  if ! job /usr/bin/time -v -o "$log.time" "$@" >"$log" 2>&1; then
    printf 'FAILED: %s (log: %s)\n' "$*" "$log" >&2; tail -n 5 "$log" >&2; return 1
  fi
  t1=$EPOCHREALTIME
  WALL=$(calc "$t1 - $t0")
  CPU=$(awk -F': ' '/User time|System time/{s+=$2} END{printf "%.3f", s}' "$log.time")
  RSS=$(awk -F': ' '/Maximum resident set size/{printf "%.1f", $2/1024}' "$log.time")
}

declare -a P_WALL=() P_CPU=() P_RSS=() T_WALL=() T_CPU=() T_RSS=() F_WALL=() F_CPU=() F_RSS=()
declare -a N_WALL=() N_CPU=() N_RSS=() R_WALL=() R_CPU=()
# The foundation alone (issue 2's scope): the same full index with the call graph turned off.
declare -a G_WALL=() G_CPU=() G_RSS=() GR_WALL=() GR_CPU=()
# Not an anchor of the ratio: the same tantivy index with codemap's code analyzer (identifier
# splitting, whole identifiers, stemming, all required by issue 2), to show what that alone costs.
declare -a K_WALL=() K_CPU=() K_RSS=() KR_WALL=()
for ((r = 1 - WARMUP; r <= ROUNDS; r++)); do
  tag=$([ "$r" -le 0 ] && echo "warm-up" || echo "round $r/$ROUNDS")
  timed "$WORK/logs/parse.$r" "$ANCHORS" parse "$CORPUS" "$ANCHOR_THREADS"
  pw=$WALL pc=$CPU pr=$RSS
  rm -rf "$TV_OUT"
  timed "$WORK/logs/tantivy.$r" "$ANCHORS" tantivy "$CORPUS" "$TV_OUT" "$ANCHOR_THREADS"
  tw=$WALL tc=$CPU tr=$RSS
  line="$tag: parse ${pw}s (cpu ${pc}) | tantivy ${tw}s (cpu ${tc})"
  kw=
  if [ "$FOUNDATION" = 1 ]; then
    rm -rf "$TV_OUT-code"
    if timed "$WORK/logs/tantivy-code.$r" "$ANCHORS" tantivy-code "$CORPUS" "$TV_OUT-code" "$ANCHOR_THREADS"; then
      kw=$WALL kc=$CPU kr=$RSS
      line+=" | tantivy, code analyzer ${kw}s (cpu ${kc})"
    fi
  fi
  gw= # first, so that the full index below is the one the no-change and watch runs use
  if [ "$CODEMAP_OK" = 1 ] && [ "$FOUNDATION" = 1 ]; then
    rm -rf "$IDX"
    if timed "$WORK/logs/codemap-nograph.$r" env CODEMAP_SKIP_GRAPH=1 "$CODEMAP" index "$CORPUS" --index-dir "$IDX" --rebuild --quiet; then
      gw=$WALL gc=$CPU gr=$RSS
    fi
  fi
  fw=
  if [ "$CODEMAP_OK" = 1 ]; then
    rm -rf "$IDX"
    if timed "$WORK/logs/codemap-full.$r" "$CODEMAP" index "$CORPUS" --index-dir "$IDX" --rebuild --quiet; then
      fw=$WALL fc=$CPU fr=$RSS
      line+=" | codemap full ${fw}s (cpu ${fc}, ratio wall $(calc "$fw / ($pw + $tw)"))"
    else
      CODEMAP_OK=0 CODEMAP_WHY="codemap index failed (log: $WORK/logs/codemap-full.$r)"
    fi
  fi
  [ -n "$gw" ] && line+=" | without graph ${gw}s (cpu ${gc}, ratio wall $(calc "$gw / ($pw + $tw)"))"
  echo "$line"
  [ "$r" -le 0 ] && continue
  if [ -n "$gw" ]; then
    G_WALL+=("$gw") G_CPU+=("$gc") G_RSS+=("$gr")
    GR_WALL+=("$(calc "$gw / ($pw + $tw)")") GR_CPU+=("$(calc "$gc / ($pc + $tc)")")
  fi
  if [ -n "$kw" ]; then
    K_WALL+=("$kw") K_CPU+=("$kc") K_RSS+=("$kr")
    [ -n "$gw" ] && KR_WALL+=("$(calc "$gw / ($pw + $kw)")")
  fi
  P_WALL+=("$pw") P_CPU+=("$pc") P_RSS+=("$pr") T_WALL+=("$tw") T_CPU+=("$tc") T_RSS+=("$tr")
  if [ -n "$fw" ]; then
    F_WALL+=("$fw") F_CPU+=("$fc") F_RSS+=("$fr")
    R_WALL+=("$(calc "$fw / ($pw + $tw)")") R_CPU+=("$(calc "$fc / ($pc + $tc)")")
  fi
done
PARSE_OUT=$(head -n 1 "$WORK/logs/parse.$ROUNDS")
TV_SIZE=$(du -sb "$TV_OUT" | cut -f1)
echo "anchor: $PARSE_OUT"

FULL_OUT= NOCHANGE_OUT= IDX_SIZE=
if [ "$CODEMAP_OK" = 1 ]; then
  FULL_OUT=$(tail -n 1 "$WORK/logs/codemap-full.$ROUNDS")
  IDX_SIZE=$(du -sb "$IDX" | cut -f1)
  echo "codemap full: $FULL_OUT"
  for ((i = 1; i <= NOCHANGE_RUNS; i++)); do
    timed "$WORK/logs/codemap-nochange.$i" "$CODEMAP" index "$CORPUS" --index-dir "$IDX" --quiet \
      || { CODEMAP_OK=0 CODEMAP_WHY="no-change re-run failed"; break; }
    N_WALL+=("$WALL") N_CPU+=("$CPU") N_RSS+=("$RSS")
  done
  if [ "$CODEMAP_OK" = 1 ]; then
    NOCHANGE_OUT=$(tail -n 1 "$WORK/logs/codemap-nochange.$NOCHANGE_RUNS")
    echo "codemap no-change x$NOCHANGE_RUNS: ${N_WALL[*]} s; $NOCHANGE_OUT"
  fi
fi

# ---------------------------------------------------------------- 4. one-file edit under `codemap watch`
WATCH_STATUS= WATCH_CPU=- WATCH_HWM=-
declare -a E_MS=()
E_TIMEOUTS=0
proc_cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
rand_word() { local s= l=abcdefghijklmnopqrstuvwxyz i; for ((i = 0; i < 10; i++)); do s+=${l:RANDOM%26:1}; done; echo "$s"; }

if [ "$CODEMAP_OK" != 1 ]; then
  WATCH_STATUS="not measured: $CODEMAP_WHY"
else
  cp -p "$EDIT_PATH" "$BACKUP"
  # The token goes in as a comment line just before the file's last closing brace (inside the class).
  LAST_BRACE=$(grep -n '^}' "$BACKUP" | tail -n 1 | cut -d: -f1)
  [ -n "$LAST_BRACE" ] || die "no closing brace in $EDIT_PATH"
  WLOG=$WORK/logs/watch
  "$CODEMAP" watch "$CORPUS" --index-dir "$IDX" --quiet >"$WLOG.out" 2>"$WLOG.err" </dev/null &
  WATCH_PID=$!
  say "codemap watch started (pid $WATCH_PID, logs $WLOG.out/.err); waiting for 'watching' on its stdout"
  t0=$EPOCHREALTIME
  while ! grep -q watching "$WLOG.out"; do
    if ! kill -0 "$WATCH_PID" 2>/dev/null; then
      wait "$WATCH_PID" && rc=0 || rc=$?
      WATCH_STATUS="not available (watch exited with $rc: $(cat "$WLOG.out" "$WLOG.err" | tail -n 1))"
      WATCH_PID=
      break
    fi
    if awk "BEGIN{exit !($EPOCHREALTIME - $t0 > $READY_TIMEOUT)}"; then
      WATCH_STATUS="not available (no 'watching' line after ${READY_TIMEOUT}s)"
      break
    fi
    sleep 0.05
  done
  if [ -z "$WATCH_STATUS" ]; then
    say "watch ready after $(calc "$EPOCHREALTIME - $t0")s; $EDITS edits of $EDIT_FILE"
    cpu0=$(proc_cpu_s "$WATCH_PID")
    for ((i = 1; i <= EDITS; i++)); do
      if ! kill -0 "$WATCH_PID" 2>/dev/null; then WATCH_STATUS="watch exited during edit $i (log $WLOG.err)"; break; fi
      tok=cmzq$(rand_word)
      awk -v n="$LAST_BRACE" -v t="$tok" 'NR == n { print "    // " t } { print }' "$BACKUP" >"$WORK/edit-file.new"
      t0=${EPOCHREALTIME/./} # microseconds
      cat "$WORK/edit-file.new" >"$EDIT_PATH" # in place, as most editors save
      polls=0 ms=
      while :; do
        polls=$((polls + 1))
        out=$("$CODEMAP" search "$tok" --index-dir "$IDX" --json 2>/dev/null) || true
        now=${EPOCHREALTIME/./}
        if [[ $out == *"$EDIT_FILE"* ]]; then ms=$(calc "($now - $t0) / 1000"); break; fi
        if ((now - t0 > EDIT_TIMEOUT * 1000000)); then break; fi
      done
      if [ -n "$ms" ]; then E_MS+=("$ms"); echo "edit $i: ${ms} ms ($polls searches)"
      else E_TIMEOUTS=$((E_TIMEOUTS + 1)); echo "edit $i: not searchable after ${EDIT_TIMEOUT}s"; fi
      sleep 0.2 # let the watcher settle before the next edit
    done
    if [ -z "$WATCH_STATUS" ] && cpu1=$(proc_cpu_s "$WATCH_PID" 2>/dev/null); then
      WATCH_CPU=$(calc "$cpu1 - $cpu0")
      WATCH_HWM=$(awk '/^VmHWM/{printf "%.1f", $2/1024}' "/proc/$WATCH_PID/status")
      WATCH_STATUS=ok
    fi
    : "${WATCH_STATUS:=watch exited during the edits (log $WLOG.err)}"
  fi
  cleanup
fi

# ---------------------------------------------------------------- 5. figures
END_LOAD=$(loadavg)
row() { # row LABEL N WALLS CPUS RSSES (space-separated lists)
  local -a w=($3) c=($4) m=($5)
  printf '%-36s %3s %9s %13s %8s %9s\n' "$1" "$2" "$(median "${w[@]}")" "$(minmax "${w[@]}")" \
    "$(median "${c[@]}")" "$(printf '%.0f' "$(median "${m[@]}")")"
}
MAX_RSS=$( ((${#F_RSS[@]} + ${#N_RSS[@]})) && maxof "${F_RSS[@]}" "${N_RSS[@]}" || echo -)
[ "$WATCH_HWM" != - ] && [ "$MAX_RSS" != - ] && MAX_RSS=$(maxof "$MAX_RSS" "$WATCH_HWM")
R_WALL_MED=$(median "${R_WALL[@]}") R_CPU_MED=$(median "${R_CPU[@]}")
N_MED=$(median "${N_WALL[@]}")
E_MED=$(median "${E_MS[@]}") E_P90=$(pctl 90 "${E_MS[@]}")

echo
echo "=== codemap index benchmark, $START_DATE"
echo "$VERSION @ $REV ($DIRTY uncommitted paths), $(cd "$ROOT" && rustc --version | cut -d' ' -f1-2), $CORES cores"
echo "corpus-1m: $C_FILES files, $C_LINES lines, $C_BYTES bytes; warm page cache; rounds: $ROUNDS (+$WARMUP warm-up), interleaved"
echo "load average: start $START_LOAD, end $END_LOAD"
echo
printf '%-36s %3s %9s %13s %8s %9s\n' measure n "wall s" "wall min-max" "CPU s" "RSS MiB"
row "anchor tree-sitter parse, ${ANCHOR_THREADS}t" "${#P_WALL[@]}" "${P_WALL[*]}" "${P_CPU[*]}" "${P_RSS[*]}"
row "anchor tantivy index, ${ANCHOR_THREADS}t" "${#T_WALL[@]}" "${T_WALL[*]}" "${T_CPU[*]}" "${T_RSS[*]}"
((${#K_WALL[@]})) && row "  tantivy with the code analyzer" "${#K_WALL[@]}" "${K_WALL[*]}" "${K_CPU[*]}" "${K_RSS[*]}"
if ((${#F_WALL[@]})); then
  row "codemap index --rebuild (full)" "${#F_WALL[@]}" "${F_WALL[*]}" "${F_CPU[*]}" "${F_RSS[*]}"
else
  echo "codemap index --rebuild (full)       $CODEMAP_WHY"
fi
((${#G_WALL[@]})) && row "  the same without the call graph" "${#G_WALL[@]}" "${G_WALL[*]}" "${G_CPU[*]}" "${G_RSS[*]}"
((${#N_WALL[@]})) && row "codemap index (no change)" "${#N_WALL[@]}" "${N_WALL[*]}" "${N_CPU[*]}" "${N_RSS[*]}"
echo
echo "codemap full / (parse + tantivy), median of per-round ratios: wall $R_WALL_MED, CPU $R_CPU_MED"
((${#GR_WALL[@]})) && echo "without the call graph (CODEMAP_SKIP_GRAPH=1: issue 2's foundation) / (parse + tantivy): wall $(median "${GR_WALL[@]}"), CPU $(median "${GR_CPU[@]}")"
((${#KR_WALL[@]})) && echo "  (for reference, not a check) foundation / (parse + tantivy with the code analyzer): wall $(median "${KR_WALL[@]}")"
echo "anchor tantivy index: $TV_SIZE bytes${IDX_SIZE:+; codemap index dir: $IDX_SIZE bytes}"
[ -n "$FULL_OUT" ] && echo "codemap full: $FULL_OUT"
[ -n "$NOCHANGE_OUT" ] && echo "codemap no change: $NOCHANGE_OUT"
if [ "$WATCH_STATUS" = ok ]; then
  echo "watch, one-file edit until searchable ($EDIT_FILE, ${#E_MS[@]} of $EDITS found, $E_TIMEOUTS timed out): median $E_MED ms, p90 $E_P90 ms, min-max $(minmax "${E_MS[@]}") ms; watch CPU ${WATCH_CPU}s, peak RSS $WATCH_HWM MiB"
else
  echo "watch: $WATCH_STATUS"
fi
echo
echo "checks:"
check "full / (parse + tantivy), wall" "$R_WALL_MED" "<=" "$T_RATIO" x
check "full / (parse + tantivy), CPU" "$R_CPU_MED" "<=" "$T_RATIO" x
if ((${#GR_WALL[@]})); then
  check "foundation (no call graph) / anchors, wall" "$(median "${GR_WALL[@]}")" "<=" "$T_RATIO" x
fi
check "peak RSS (index, re-run, watch)" "$MAX_RSS" "<=" "$T_RSS_MIB" MiB
check "no-change re-run, median wall" "$N_MED" "<=" "$T_NOCHANGE_S" s
if ((E_TIMEOUTS)); then
  printf '  %-44s FAIL  (%s of %s edits not searchable within %ss)\n' "watch one-file edit, median" "$E_TIMEOUTS" "$EDITS" "$EDIT_TIMEOUT"
else
  check "watch one-file edit, median" "$([ "$WATCH_STATUS" = ok ] && echo "$E_MED" || echo -)" "<=" "$T_EDIT_MS" ms
fi
echo "logs: $WORK/logs"
