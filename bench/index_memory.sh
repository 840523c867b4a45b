#!/usr/bin/env bash
# Peak memory of a full index of one repository, with the resident memory at each stage of the
# run, and (with REFERENCE_BIN) a check that another build of codemap exports the very same
# symbols and edges: what a change to how the index is built must keep.
#
# Usage: bench/index_memory.sh REPO [CODEMAP_BINARY]
#   REPO is indexed in place (read only); the index goes to a scratch folder.
#   Default binary: target/release/codemap (CARGO_TARGET_DIR honoured).
#   REFERENCE_BIN=/path/to/codemap  also index with that binary and compare `export symbols`
#                                   and `export edges --kind all` byte for byte.
#   INDEX_ARGS="--memory-budget 1G"  more arguments for the measured binary's `index` (not the
#                                   reference's).
set -euo pipefail
repo=${1:?usage: bench/index_memory.sh REPO [CODEMAP_BINARY]}
bin=${2:-${CARGO_TARGET_DIR:-target}/release/codemap}
[ -x "$bin" ] || { echo "no codemap binary at $bin (cargo build --release)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The pipeline logs the resident MiB at each stage (rss_mib=…) at debug level.
index() { # BIN IDX LOG [INDEX ARGS…]
  local bin=$1 idx=$2 log=$3
  shift 3
  CODEMAP_LOG=indexer=debug /usr/bin/time -f '%e %M' -o "$work/time" \
    "$bin" --index-dir "$idx" index "$repo" "$@" >"$log.out" 2>"$log"
  read -r wall rss < <(tail -1 "$work/time")
  printf '%-22s %8.1f s   peak RSS %7.1f MiB\n' "$(basename "$bin"):" "$wall" "$(echo "$rss / 1024" | bc -l)"
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -o '[a-z]*::[a-z:_]*: [a-z ]*\( files=[0-9]*\)\?.*rss_mib=[0-9]*' |
    sed -E 's/^[a-z:_]+: //; s/ (ms|decode_ms|build_ms|edges|rewritten)=[0-9]+//g; s/^/    /' || true
  tail -2 "$log.out" | sed 's/^/    /'
}

exports() { # BIN IDX PREFIX
  "$1" --index-dir "$2" export symbols >"$3.symbols"
  "$1" --index-dir "$2" export edges --kind all >"$3.edges"
}

echo "repository: $repo ($(find "$repo" -type f | wc -l) files)"
# shellcheck disable=SC2086 # INDEX_ARGS is a list of arguments
index "$bin" "$work/idx" "$work/log" ${INDEX_ARGS:-}
if [ -n "${REFERENCE_BIN:-}" ]; then
  index "$REFERENCE_BIN" "$work/ref" "$work/ref-log"
  exports "$bin" "$work/idx" "$work/new"
  exports "$REFERENCE_BIN" "$work/ref" "$work/old"
  for what in symbols edges; do
    if cmp -s "$work/new.$what" "$work/old.$what"; then
      echo "exports: $what identical ($(wc -l <"$work/new.$what") lines)"
    else
      echo "exports: $what DIFFER ($(wc -l <"$work/new.$what") lines against $(wc -l <"$work/old.$what"))"
    fi
  done
fi
