#!/usr/bin/env bash
# docgen wall time and peak RSS on a real repository: a full generation of every module's page,
# then a one-file edit regenerated (incremental index + docgen), each timed on its own.
#
# Usage: bench/docgen.sh REPO [CODEMAP_BINARY]
#   REPO is copied to a scratch folder (the original is never touched); the index goes beside it.
#   Default binary: target/release/codemap (CARGO_TARGET_DIR honoured).
set -euo pipefail
repo=${1:?usage: bench/docgen.sh REPO [CODEMAP_BINARY]}
bin=${2:-${CARGO_TARGET_DIR:-target}/release/codemap}
[ -x "$bin" ] || { echo "no codemap binary at $bin (cargo build --release)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$repo" "$work/repo"
idx="$work/idx"
root="$work/repo"

# docgen logs its stages (read, models, diff, render, check, total in ms) at info level.
export CODEMAP_LOG=${CODEMAP_LOG:-docgen=info}

# One measured step: prints "<label>: <wall> s, peak RSS <MiB> MiB".
measure() {
  local label=$1; shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>&1 || {
    rc=$?; [ "$rc" -le 1 ] || { cat "$work/out" >&2; exit "$rc"; }; }
  read -r wall rss < <(tail -1 "$work/time")
  printf '%-34s %7.2f s   peak RSS %6.1f MiB\n' "$label:" "$wall" "$(echo "$rss / 1024" | bc -l)"
  # The stage times of a docgen step.
  sed 's/\x1b\[[0-9;]*m//g' "$work/out" | grep -o 'read_ms=.*total_ms=[0-9]*' |
    sed 's/^/    stages: /' || true
}

measure "index (full, not counted)" "$bin" --index-dir "$idx" index "$root"
measure "docgen full (all modules)" "$bin" --index-dir "$idx" --repo "$root" docgen
pages=$(find "$root/docs/codemap" -name '*.md' | wc -l)
measure "docgen again (nothing changed)" "$bin" --index-dir "$idx" --repo "$root" docgen

# A one-file edit: a statement inside the first method body of a mid-sized Java file, same
# line count (so only that module's model changes).
file=$(find "$root" -name '*.java' -size +4k -size -40k -not -path '*/test/*' -not -path '*/.*' | sort |
  python3 -c '
import re, sys
for p in sys.stdin.read().split("\n"):
    if not p:
        continue
    s = open(p, encoding="utf-8", errors="surrogateescape").read()
    m = re.search(r"\)\s*(throws [\w., ]+)?\s*\{\n", s)
    if m:
        s = s[:m.end()] + "        int codemapBench = 1; " + s[m.end():]
        open(p, "w", encoding="utf-8", errors="surrogateescape").write(s)
        print(p)
        break
')
[ -n "$file" ] || { echo "no Java file with a method body to edit" >&2; exit 2; }
measure "index after one-file edit" "$bin" --index-dir "$idx" index "$root"
measure "docgen after one-file edit" "$bin" --index-dir "$idx" --repo "$root" docgen
echo "pages: $pages; edited: ${file#$root/}; rewritten: $(grep -c '^wrote' "$work/out" || true) files"
grep '^wrote' "$work/out" | sed 's/^/  /'
