#!/usr/bin/env bash
# bench/oracle_ts.sh ROOT [ts_calls.mjs options…]  -- codemap's TypeScript and JavaScript call
# graph against the TypeScript compiler's type checker.
#
#   1. `codemap index ROOT` (into WORK/idx), `codemap export symbols` and `export edges`;
#   2. bench/oracle/ts_calls.mjs builds the oracle (ts.createProgram over ROOT's files, or the
#      folders given with --dir, and its type checker: every call, `new`, tagged template and
#      bare decorator resolved to the declaration it reaches, named with codemap's qualified-name
#      rule) and prints recall and precision, per call site and per (caller, callee) pair, with
#      the misses and false positives by category; MISSES=N lists N examples of each.
#
# Options after ROOT go to ts_calls.mjs: `--dir src` (repeatable) compares the files under
# ROOT/src only, `--condition NAME` honours a package.json `exports` condition.
#
#   bench/oracle_ts.sh /work/corpora/ts/zod-3.25.76 --dir src --condition @zod/source
#   bench/oracle_ts.sh /work/corpora/ts/express-4.22.3 --dir lib --dir index.js
#
# Needs node and the npm `typescript` package: TS_ORACLE_MODULES (default
# /tmp/ts-oracle/node_modules, made by `npm install --prefix /tmp/ts-oracle typescript@5`).
# Figures, not a test. Knobs: CODEMAP_BIN (<repo>/target/release/codemap),
# WORK (${TMPDIR:-/tmp}/codemap-tsoracle-<name>), MISSES (0).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
CODEMAP=${CODEMAP_BIN:-$ROOT/target/release/codemap}
MODULES=${TS_ORACLE_MODULES:-/tmp/ts-oracle/node_modules}
die() { printf 'oracle_ts.sh: %s\n' "$*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: bench/oracle_ts.sh ROOT [--dir SUB]... [--condition NAME]..."
PKG=$(cd "$1" && pwd); shift
[ -x "$CODEMAP" ] || die "no codemap binary at $CODEMAP (cargo build --release)"
command -v node >/dev/null || die "no node on PATH"
[ -d "$MODULES/typescript" ] || die "no typescript package in $MODULES (npm install --prefix /tmp/ts-oracle typescript@5)"
WORK=${WORK:-${TMPDIR:-/tmp}/codemap-tsoracle-$(basename "$PKG")}
rm -rf "$WORK" && mkdir -p "$WORK"

printf '== codemap index %s\n' "$PKG"
/usr/bin/time -f '   index: %e s, %M KB peak' "$CODEMAP" --index-dir "$WORK/idx" index "$PKG" --quiet
"$CODEMAP" --index-dir "$WORK/idx" --repo "$PKG" export symbols > "$WORK/symbols.jsonl"
"$CODEMAP" --index-dir "$WORK/idx" --repo "$PKG" export edges > "$WORK/edges.jsonl"
printf '== calls against the type checker\n'
NODE_PATH=$MODULES /usr/bin/time -f '   oracle: %e s, %M KB peak' node "$HERE/oracle/ts_calls.mjs" \
  "$PKG" "$WORK/symbols.jsonl" "$WORK/edges.jsonl" --oracle-out "$WORK/oracle.jsonl" \
  --misses "${MISSES:-0}" "$@"
