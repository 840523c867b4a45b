#!/usr/bin/env bash
# bench/oracle_go.sh ROOT  -- codemap's Go call graph against go/types.
#
#   1. builds bench/oracle/go_calls (Go toolchain, standard library only) and runs it on ROOT:
#      every call of ROOT's packages (tests included) whose callee is a function or method
#      declared in ROOT, as the type checker resolves it;
#   2. `codemap index ROOT` (into WORK/idx) and `codemap export edges`;
#   3. bench/oracle/score_calls.py prints recall and precision, per call site and per
#      (caller, callee) pair; MISSES=N lists N of each kind of difference.
#
# Figures, not a test. Knobs: CODEMAP_BIN (<repo>/target/release/codemap),
# WORK (${TMPDIR:-/tmp}/codemap-gooracle-<name>), MISSES (0).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
CODEMAP=${CODEMAP_BIN:-$ROOT/target/release/codemap}
die() { printf 'oracle_go.sh: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: bench/oracle_go.sh ROOT"
PKG=$(cd "$1" && pwd)
[ -x "$CODEMAP" ] || die "no codemap binary at $CODEMAP (cargo build --release)"
command -v go >/dev/null || die "no go toolchain on PATH"
WORK=${WORK:-${TMPDIR:-/tmp}/codemap-gooracle-$(basename "$PKG")}
rm -rf "$WORK" && mkdir -p "$WORK"

(cd "$HERE/oracle/go_calls" && go build -o "$WORK/go_calls" .)
printf '== go/types over %s\n' "$PKG"
/usr/bin/time -f '   oracle: %e s' "$WORK/go_calls" "$PKG" > "$WORK/oracle.jsonl"
printf '== codemap index\n'
/usr/bin/time -f '   index: %e s, %M KB peak' "$CODEMAP" --index-dir "$WORK/idx" index "$PKG" --quiet
"$CODEMAP" --index-dir "$WORK/idx" --repo "$PKG" export edges > "$WORK/edges.jsonl"
printf '== calls\n'
python3 "$HERE/oracle/score_calls.py" "$WORK/oracle.jsonl" "$WORK/edges.jsonl" --misses "${MISSES:-0}"
