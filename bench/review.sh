#!/usr/bin/env bash
# bench/review.sh [CORPUS] -- review comment latency: wall time from a signed `pull_request`
# webhook received by `codemap docgen serve` to the impact comment arriving at the code host, for
# a request that changes 10 files.
#
# CORPUS (default: $CODEMAP_BENCH_DIR/corpus-1m) is copied into WORK/dev, committed and pushed to
# a bare repository WORK/remote.git. The server runs with `[repo.review]` against a stand-in of
# GitHub's comment API on loopback (bench/review_api.py, which records when each comment write
# arrives). A push webhook first runs the docs job once, so the request's indexes start from the
# docs index as in production. Then request 1 is opened (the first review: base and head indexes
# seeded and brought to the merge base and the head) and pushed to RUNS times (each push: a new
# 10-file head; the same comment is edited). Each change appends a comment to the first
# `return …;` line of 10 main-source files spread over the tree (body changes).
# Prints figures, is not a test. Knobs: RUNS (default 5), WORK (default /tmp/codemap-review-bench),
# CODEMAP_BIN (default: a release build of this checkout), PORT / API_PORT (18787 / 18788).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
BENCH_DIR=${CODEMAP_BENCH_DIR:-/work/corpora/bench}
CORPUS=${1:-$BENCH_DIR/corpus-1m}
[ -d "$CORPUS" ] || { echo "review.sh: no corpus at $CORPUS" >&2; exit 1; }
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/codemap-review-bench}
PORT=${PORT:-18787}
API_PORT=${API_PORT:-18788}
SECRET=bench-secret
say() { printf '== %s\n' "$*"; }
rm -rf "$WORK" && mkdir -p "$WORK/logs"

if [ -z "${CODEMAP_BIN:-}" ]; then
  TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
  say "cargo build --release (log: $WORK/logs/build.log)"
  cargo build --manifest-path "$ROOT/Cargo.toml" --release --bin codemap >"$WORK/logs/build.log" 2>&1 \
    || { tail -20 "$WORK/logs/build.log" >&2; exit 1; }
  CODEMAP=$TARGET/release/codemap
else
  CODEMAP=$CODEMAP_BIN
fi

# ---------------------------------------------------------------- remote and developer clone
DEV=$WORK/dev BARE=$WORK/remote.git
g() { git -C "$DEV" -c user.name=bench -c user.email=bench@example.com "$@"; }
say "copying $CORPUS to $DEV"
mkdir -p "$DEV"
(cd "$CORPUS" && tar --exclude=.git --exclude=.codemap -cf - .) | (cd "$DEV" && tar -xf -)
git init -q --bare -b main "$BARE"
g init -q -b main
g add -A
g commit -qm base
g remote add origin "$BARE"
g push -q origin main
MAIN=$(g rev-parse HEAD)

mapfile -t CANDIDATES < <(cd "$DEV" && git ls-files '*.java' | grep -v '/test/' | sort \
  | while read -r f; do grep -qE '^\s+return [^;]+;\s*$' "$f" && echo "$f"; done)
N=${#CANDIDATES[@]}
[ "$N" -ge 10 ] || { echo "review.sh: fewer than 10 files with a return line" >&2; exit 1; }

# A request head: main plus the 10-file change tagged `round`, pushed to refs/pull/1/head.
make_head() {
  g checkout -q --detach "$MAIN"
  for i in $(seq 0 9); do
    f=${CANDIDATES[$(( i * N / 10 ))]}
    sed -i -E "0,/^(\s+return [^;]+;)\s*\$/s//\1 \/\/ review-bench $1/" "$DEV/$f"
  done
  g commit -qam "review bench $1"
  g push -q -f origin HEAD:refs/pull/1/head
  g rev-parse HEAD
}

# ---------------------------------------------------------------- API stand-in and server
RECORD=$WORK/api.jsonl
: >"$RECORD"
python3 "$HERE/review_api.py" "$API_PORT" "$RECORD" >"$WORK/logs/api.log" 2>&1 &
API_PID=$!
cat >"$WORK/serve.toml" <<TOML
[server]
listen = "127.0.0.1:$PORT"
state_dir = "$WORK/state"

[[repo]]
name = "bench"
remote = "$BARE"
host = "github"
webhook_secret_env = "BENCH_HOOK_SECRET"

[repo.review]
api = "http://127.0.0.1:$API_PORT"
project = "acme/bench"
token_env = "BENCH_API_TOKEN"
TOML
BENCH_HOOK_SECRET=$SECRET BENCH_API_TOKEN=t CODEMAP_LOG=info \
  "$CODEMAP" docgen serve --config "$WORK/serve.toml" >"$WORK/logs/serve.log" 2>&1 &
SERVE_PID=$!
cleanup() { kill "$SERVE_PID" "$API_PID" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done

# Signs and posts a delivery; prints the time it was sent (ns).
deliver() {
  local event=$1 payload=$2 sig
  sig=$(printf '%s' "$payload" | python3 -c "import hmac,hashlib,sys; print('sha256='+hmac.new(b'$SECRET', sys.stdin.buffer.read(), hashlib.sha256).hexdigest())")
  date +%s%N
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$PORT/hooks/bench" -H "content-type: application/json" \
    -H "x-github-event: $event" -H "x-hub-signature-256: $sig" --data-binary "$payload"
}
status() { curl -sf "http://127.0.0.1:$PORT/status"; }

say "docs job on main (builds the index the reviews start from)"
T0=$(deliver push "{\"ref\":\"refs/heads/main\",\"after\":\"$MAIN\",\"head_commit\":{\"id\":\"$MAIN\",\"message\":\"base\"}}")
until status | python3 -c "import json,sys; r=json.load(sys.stdin)['repos'][0]; sys.exit(0 if r['jobs_finished']>=1 and not r['running'] else 1)"; do sleep 1; done
DOCS_MS=$(( ($(date +%s%N) - T0) / 1000000 ))
status | python3 -c "import json,sys; print('   docs job:', json.load(sys.stdin)['repos'][0]['last'].get('outcome'))"

# Waits for the k-th comment write; prints its arrival time (ns).
wait_write() {
  local deadline=$(( $(date +%s) + 1200 ))
  while [ "$(wc -l <"$RECORD")" -lt "$1" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "review.sh: no comment after 20 min; see $WORK/logs/serve.log" >&2; exit 1; }
    sleep 0.05
  done
  sed -n "${1}p" "$RECORD" | python3 -c "import json,sys; print(json.load(sys.stdin)['t_ns'])"
}

pr() { printf '{"action":"%s","number":1,"pull_request":{"head":{"ref":"f","sha":"%s","repo":{"full_name":"acme/bench"}},"base":{"ref":"main","sha":"%s","repo":{"full_name":"acme/bench"}}},"repository":{"full_name":"acme/bench"}}' "$1" "$2" "$MAIN"; }

say "request 1 opened (first review)"
HEAD=$(make_head 0)
T0=$(deliver pull_request "$(pr opened "$HEAD")")
T1=$(wait_write 1)
FIRST_MS=$(( (T1 - T0) / 1000000 ))
T=()
for r in $(seq "$RUNS"); do
  HEAD=$(make_head "$r")
  T0=$(deliver pull_request "$(pr synchronize "$HEAD")")
  T1=$(wait_write $(( r + 1 )))
  T+=("$(( (T1 - T0) / 1000000 ))")
done
read -r P50 MAX < <(printf '%s\n' "${T[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)], a[NR]}')
WRITES=$(python3 -c "
import json; w=[json.loads(l) for l in open('$RECORD')]
print(sum(x['method']=='POST' for x in w), 'POST,', sum(x['method']=='PATCH' for x in w), 'PATCH; last body', w[-1]['chars'], 'chars:', next((l for l in w[-1]['body'].splitlines() if 'declarations changed' in l), '?'))")

echo
echo "codemap review comment, 10-file request on $(basename "$CORPUS") ($(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores)"
echo "  binary: $CODEMAP"
echo "  comments: $WRITES"
printf '  %-44s %s ms\n' "docs job (clone, index, maps; not a review)" "$DOCS_MS" \
  "first review (request opened)" "$FIRST_MS" \
  "next push, p50 of $RUNS" "$P50" "next push, max" "$MAX"
echo "  (webhook sent → comment write received by the API stand-in; includes fetch, two incremental"
echo "   index runs (merge base, head), two impact reports and the comment calls)"
