#!/usr/bin/env bash
# bench/many_repos.sh -- many repositories, one question (issue 40 point 4): twenty real
# repositories (Java, Python, TypeScript/JavaScript, Go) indexed side by side, one bot whose every
# channel is scoped to all of them, so each question is asked of all twenty at once and the
# answers merged (query::Service::ask_across). Runs bench/bot_load.sh's load (examples/bot_load.rs,
# BOT_LOAD_INDEXES) and prints p50/p95 from submit to delivered, peak RSS, and how many answers
# cite first the repository the question is about.
#
# Questions: those of the code-QA sets whose corpus is among the twenty (bench/qa.sh lists them),
# each tagged with its set's repository; the gold lines are not used, only which repository holds
# the answer.
#
# Knobs: CODEMAP_BIN, BOT_LOAD_BIN (release builds; built here otherwise), WORK (indexes kept
# there between runs: ${TMPDIR:-/tmp}/codemap-many), REINDEX=1, BOT_LOAD_N (default: every
# question once), BOT_LOAD_CONCURRENCY (8), BOT_LOAD_CHANNELS (10), BOT_LOAD_WORKERS (1 per
# repository), BOT_LOAD_RATE. Corpus folders: as below (absent ones are skipped and named).
# Prints figures, is not a test.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
C=${CORPORA:-/work/corpora}
say() { printf '== %s\n' "$*"; }
die() { printf 'many_repos.sh: %s\n' "$*" >&2; exit 1; }

TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
CODEMAP=${CODEMAP_BIN:-$TARGET/release/codemap}
LOAD=${BOT_LOAD_BIN:-$TARGET/release/examples/bot_load}
if [ -z "${CODEMAP_BIN:-}" ] || [ -z "${BOT_LOAD_BIN:-}" ]; then
  say "cargo build --release (codemap, bot_load)"
  cargo build --manifest-path "$ROOT/Cargo.toml" --release -p codemap --bin codemap -p bot --example bot_load >&2
fi
WORK=${WORK:-${TMPDIR:-/tmp}/codemap-many}
mkdir -p "$WORK"

# name folder [question set]
REPOS="
commons-lang3 $C/qa/libcommons-lang3-java-3.12.0 $ROOT/bench/eval/qa-commons-lang3.jsonl
jackson-databind $C/qa/jackson-databind-2.14.0 $ROOT/bench/eval/qa-jackson-databind.jsonl
commons-compress $C/qa/libcommons-compress-java-1.22 $ROOT/bench/eval/qa-commons-compress.jsonl
logback $C/qa/logback-1.2.11 $ROOT/bench/eval/qa-logback.jsonl
tomcat10 ${TOMCAT:-$C/bench/corpus-1m/tomcat10} $ROOT/bench/eval/qa-tomcat10.jsonl
jetty9 ${JETTY9:-$C/qa/jetty9-9.4.57} $ROOT/bench/eval/frozen/qa-jetty9.jsonl
netty ${NETTY:-$C/qa/netty-4.1.48} $ROOT/bench/eval/frozen/qa-netty.jsonl
flask $C/py/flask-3.0.3 $ROOT/bench/eval/frozen/qa-flask.jsonl
litemall $C/fb/litemall $ROOT/bench/eval/frozen/qa-litemall.jsonl
mall ${MALL:-/tmp/mall} -
click $C/py/click-8.1.7 -
attrs $C/py/attrs-23.2.0 -
requests $C/py/requests-2.32.3 -
axios $C/ts/axios-1.21.1 -
express $C/ts/express-4.22.3 -
rxjs $C/ts/rxjs-7.8.2 -
nestjs-core $C/ts/nestjs-core-10.4.22 -
zod $C/ts/zod-3.25.76 -
gorilla-mux $C/go/golang-github-gorilla-mux-1.8.0 -
cobra $C/go/golang-github-spf13-cobra-1.6.1 -
"

indexes=()
questions=$WORK/questions.tsv
: >"$questions"
files=0
while read -r name dir set; do
  [ -n "$name" ] || continue
  if [ ! -d "$dir" ]; then
    say "skipped $name: no folder $dir"
    continue
  fi
  idx=$WORK/$name/idx
  if [ ! -d "$idx" ] || [ "${REINDEX:-0}" = 1 ]; then
    rm -rf "$idx"
    mkdir -p "$WORK/$name"
    "$CODEMAP" index "$dir" --index-dir "$idx" --quiet >/dev/null
  fi
  n=$("$CODEMAP" --index-dir "$idx" status --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("files", 0))' 2>/dev/null || echo "?")
  [ "$n" != "?" ] && files=$((files + n))
  indexes+=("$name=$idx")
  if [ "$set" != "-" ] && [ -f "$set" ]; then
    python3 - "$set" "$name" >>"$questions" <<'EOF'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if line:
        q = json.loads(line)["question"].replace("\t", " ").replace("\n", " ")
        print(f"{sys.argv[2]}\t{q}")
EOF
  fi
done <<<"$REPOS"
[ "${#indexes[@]}" -ge 2 ] || die "fewer than two repositories found"
total=$(wc -l <"$questions")
say "${#indexes[@]} repositories ($files files indexed), $total questions tagged with their repository"

BOT_LOAD_INDEXES=$(IFS=,; echo "${indexes[*]}") \
BOT_LOAD_QUESTIONS=$questions \
BOT_LOAD_N=${BOT_LOAD_N:-$total} \
  "$LOAD"
