#!/usr/bin/env bash
# bench/oracle.sh PKG_ROOT [WORK]  -- codemap's symbols and call graph against a bytecode oracle
# bench/oracle.sh --check [PKG_ROOT [WORK]]  -- first validate the oracle builder on commons-io
#
# PKG_ROOT is an unpacked Debian Java source package (e.g. `apt-get source libcommons-lang3-java`
# -> libcommons-lang3-java-3.12.0/). Steps:
#   1. oracle: bench/oracle/build_oracle.py compiles PKG_ROOT/src/main/java with `javac -g --release 17`
#      (files that fail are excluded, listed in WORK/oracle/excluded.txt) and reads the class files
#      into WORK/defs.jsonl and WORK/callgraph.jsonl (record format of shared/eval/README-callgraph.md);
#   2. `codemap index PKG_ROOT --index-dir WORK/idx --quiet` (incremental), then
#      `codemap export symbols` and `codemap export edges` into WORK;
#   3. score_defs.py and score_callgraph.py from shared/eval print their tables.
# --check: before that, rebuilds the commons-io oracle (CIO) and `cmp`s it against the public
#   shared/eval/{defs,callgraph}-commons-io.jsonl; stops if either differs (the builder is then wrong).
#
# Prints figures, is not a test. Needs JDK 17+ `javac` and `java` on PATH and Python 3 (stdlib only).
# Knobs (environment): EVAL_DIR (<repo>/../shared/eval), CODEMAP_BIN (<repo>/target/release/codemap,
# not built here), CIO (commons-io tree for --check, /work/corpora/commons-io-2.11.0),
# WORK default ${TMPDIR:-/tmp}/codemap-oracle-<basename of PKG_ROOT>.
set -euo pipefail
export LC_ALL=C PYTHONDONTWRITEBYTECODE=1

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
EVAL_DIR=${EVAL_DIR:-$ROOT/../shared/eval}
ORACLE=$HERE/oracle
CODEMAP=${CODEMAP_BIN:-$ROOT/target/release/codemap}
CIO=${CIO:-/work/corpora/commons-io-2.11.0}

say() { printf '== %s\n' "$*"; }
die() { printf 'oracle.sh: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,3p' "${BASH_SOURCE[0]}" | sed 's/^# //' >&2; exit 2; }

CHECK=0
if [ "${1:-}" = --check ]; then CHECK=1; shift; fi
case "${1:-}" in -h|--help) usage ;; esac
[ $# -ge 1 ] || [ $CHECK = 1 ] || usage

# JDK 17 or later: the oracle compiles with --release 17 and resolves methods by reflection.
jdk_major() { "$1" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p; s/^javac \([0-9][0-9]*\).*/\1/p' | head -1; }
for tool in javac java; do
  command -v "$tool" >/dev/null || die "needs a JDK 17 '$tool' on PATH (e.g. apt-get install openjdk-17-jdk-headless)"
  v=$(jdk_major "$tool")
  [ -n "$v" ] && [ "$v" -ge 17 ] || die "needs JDK 17 or later '$tool'; found: $("$tool" -version 2>&1 | head -1)"
done
command -v python3 >/dev/null || die "needs python3"
for f in score_defs.py score_callgraph.py; do [ -f "$EVAL_DIR/$f" ] || die "no scorer $EVAL_DIR/$f (set EVAL_DIR)"; done

# build_oracle PKG WORKDIR DEFS EDGES
build_oracle() {
  rm -rf "$2"
  mkdir -p "$2"
  python3 "$ORACLE/build_oracle.py" "$1" --work "$2" --defs "$3" --edges "$4" >"$2/build.log" 2>&1 \
    || { tail -20 "$2/build.log" >&2; die "oracle build failed for $1 (log: $2/build.log)"; }
  sed 's/^/   /' "$2/build.log"
}

if [ $CHECK = 1 ]; then
  [ -d "$CIO" ] || die "no commons-io tree at $CIO (apt-get source libcommons-io-java=2.11.0-2; set CIO)"
  CW=${TMPDIR:-/tmp}/codemap-oracle-check
  say "check: oracle of $CIO (work $CW)"
  build_oracle "$CIO" "$CW/oracle" "$CW/defs.jsonl" "$CW/callgraph.jsonl"
  ok=1
  cmp "$EVAL_DIR/defs-commons-io.jsonl" "$CW/defs.jsonl" && echo "   defs-commons-io.jsonl: byte-identical" || ok=0
  cmp "$EVAL_DIR/callgraph-commons-io.jsonl" "$CW/callgraph.jsonl" && echo "   callgraph-commons-io.jsonl: byte-identical" || ok=0
  if [ $ok = 0 ]; then
    python3 "$ORACLE/compare.py" "$EVAL_DIR/defs-commons-io.jsonl" "$EVAL_DIR/callgraph-commons-io.jsonl" \
      "$CW/defs.jsonl" "$CW/callgraph.jsonl" "$CW/cmp" | head -60 >&2
    die "the oracle builder does not reproduce the public commons-io oracle"
  fi
  [ $# -ge 1 ] || exit 0
fi

PKG=$(cd "$1" 2>/dev/null && pwd) || die "no package folder $1"
[ -d "$PKG/src/main/java" ] || die "$PKG has no src/main/java (expects an unpacked Maven-layout source package)"
WORK=${2:-${TMPDIR:-/tmp}/codemap-oracle-$(basename "$PKG")}
[ -x "$CODEMAP" ] || die "no codemap binary at $CODEMAP (cargo build --release, or set CODEMAP_BIN)"
mkdir -p "$WORK"
IDX=$WORK/idx

say "oracle of $PKG (work $WORK/oracle)"
build_oracle "$PKG" "$WORK/oracle" "$WORK/defs.jsonl" "$WORK/callgraph.jsonl"
echo "   excluded (javac errors): $(wc -l <"$WORK/oracle/excluded.txt") file(s)"

say "codemap index $PKG --index-dir $IDX"
"$CODEMAP" index "$PKG" --index-dir "$IDX" --quiet >"$WORK/index.log" 2>&1 || { cat "$WORK/index.log" >&2; die "index failed"; }
tail -1 "$WORK/index.log" | sed 's/^/   /'
"$CODEMAP" export symbols --index-dir "$IDX" >"$WORK/codemap-symbols.jsonl" 2>"$WORK/export.log" || { cat "$WORK/export.log" >&2; die "export symbols failed"; }
"$CODEMAP" export edges --index-dir "$IDX" >"$WORK/codemap-edges.jsonl" 2>>"$WORK/export.log" || { cat "$WORK/export.log" >&2; die "export edges failed"; }
echo "   exported $(wc -l <"$WORK/codemap-symbols.jsonl") symbols, $(wc -l <"$WORK/codemap-edges.jsonl") edges"

echo
echo "definitions, $(basename "$PKG") (score_defs.py), $(date -u '+%Y-%m-%d %H:%M UTC')"
python3 "$EVAL_DIR/score_defs.py" "$WORK/defs.jsonl" "$WORK/codemap-symbols.jsonl" | sed 's/^/  /'
echo
echo "call graph, $(basename "$PKG") (score_callgraph.py)"
python3 "$EVAL_DIR/score_callgraph.py" "$WORK/callgraph.jsonl" "$WORK/codemap-edges.jsonl" | sed 's/^/  /'
echo "  (oracle, exports and logs in $WORK)"
