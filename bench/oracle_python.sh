#!/usr/bin/env bash
# bench/oracle_python.sh PKG_ROOT [SRC_DIR] [-- PYTEST_ARGS…]  -- codemap's Python symbols and call
# graph against CPython's own parser and against calls recorded while the package's tests run.
#
#   1. `codemap index PKG_ROOT` (into WORK/idx), `codemap export symbols` / `export edges`;
#   2. definitions: bench/oracle/py_defs.py (the oracle is `ast`: qualified names, def lines, end
#      lines of classes, functions, methods and module/class-level names) prints recall, precision,
#      line-exact and end-line-exact figures;
#   3. calls, when PYTEST_ARGS are given: bench/oracle/py_calls.py runs `pytest PYTEST_ARGS` on a
#      copy of PKG_ROOT under sys.setprofile (SRC_DIR, default `src`, first on sys.path) and
#      compares the calls between the package's own functions with codemap's call edges.
#
# PYTHON (default python3) must have pytest and the package's test dependencies installed (a
# virtualenv: `python3 -m venv V && V/bin/pip install "pytest<8" …`). Figures, not a test.
# Knobs: CODEMAP_BIN (<repo>/target/release/codemap), WORK (${TMPDIR:-/tmp}/codemap-pyoracle-<name>).
set -euo pipefail
export LC_ALL=C PYTHONDONTWRITEBYTECODE=1

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
CODEMAP=${CODEMAP_BIN:-$ROOT/target/release/codemap}
PYTHON=${PYTHON:-python3}
die() { printf 'oracle_python.sh: %s\n' "$*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: bench/oracle_python.sh PKG_ROOT [SRC_DIR] [-- PYTEST_ARGS…]"
PKG=$(cd "$1" && pwd); shift
SRC=src
if [ $# -ge 1 ] && [ "$1" != "--" ]; then SRC=$1; shift; fi
[ "${1:-}" = "--" ] && shift
[ -x "$CODEMAP" ] || die "no codemap binary at $CODEMAP (cargo build --release)"
WORK=${WORK:-${TMPDIR:-/tmp}/codemap-pyoracle-$(basename "$PKG")}
rm -rf "$WORK" && mkdir -p "$WORK"

printf '== codemap index %s\n' "$PKG"
/usr/bin/time -f '   index: %e s, %M KB peak' "$CODEMAP" --index-dir "$WORK/idx" index "$PKG" --quiet
"$CODEMAP" --index-dir "$WORK/idx" --repo "$PKG" export symbols > "$WORK/symbols.jsonl"
"$CODEMAP" --index-dir "$WORK/idx" --repo "$PKG" export edges > "$WORK/edges.jsonl"

printf '== definitions against ast\n'
python3 "$HERE/oracle/py_defs.py" "$PKG" "$WORK/symbols.jsonl" --oracle-out "$WORK/defs-oracle.jsonl"

if [ $# -gt 0 ]; then
  printf '== calls against the test suite run (%s)\n' "$*"
  cp -r "$PKG" "$WORK/run"
  "$PYTHON" "$HERE/oracle/py_calls.py" "$WORK/run" "$WORK/symbols.jsonl" "$WORK/edges.jsonl" \
    --src "$SRC" --out "$WORK/calls-runtime.jsonl" -- "$@" | tail -3
fi
