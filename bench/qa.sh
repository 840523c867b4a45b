#!/usr/bin/env bash
# bench/qa.sh [--ablate] [CASES.jsonl CORPUS_ROOT]...  -- code-QA hit@k / MRR of `codemap ask` (shared/eval/README.md)
#
# Each pair is a case file and the folder its gold paths are relative to. Without arguments, twelve sets.
# Tuned (the ranking was developed looking at them):
#   shared/eval/qa-public.jsonl          on $CIO    (default /work/corpora/commons-io-2.11.0)
#   bench/eval/qa-tomcat10.jsonl         on $TOMCAT (default /work/corpora/bench/corpus-1m/tomcat10)
#   bench/eval/qa-commons-lang3.jsonl    on $LANG3  (apt-get source libcommons-lang3-java)
#   bench/eval/qa-jsoup.jsonl            on $JSOUP  (apt-get source jsoup)
#   bench/eval/qa-jackson-databind.jsonl on $JACKSON (apt-get source jackson-databind)
#   bench/eval/qa-collections4.jsonl     on $COLL4  (apt-get source libcommons-collections4-java)
#   bench/eval/qa-commons-compress.jsonl on $COMPRESS (apt-get source libcommons-compress-java)
#   bench/eval/qa-logback.jsonl          on $LOGBACK (logback 1.2.11 orig tarball, see bench/README.md)
# Frozen (bench/eval/frozen/: never tuned on, SHA-256 in bench/eval/frozen/manifest.tsv):
#   bench/eval/frozen/qa-jetty9.jsonl    on $JETTY9 (default /work/corpora/frozen/jetty9-9.4.57)
#   bench/eval/frozen/qa-netty.jsonl     on $NETTY  (default /work/corpora/frozen/netty-4.1.48)
#   bench/eval/frozen/qa-flask.jsonl     on $FLASK  (default /work/corpora/py/flask-3.0.3; Python,
#                                        issue 39: `pip download --no-binary :all: --no-deps flask==3.0.3`)
#   bench/eval/frozen/qa-litemall.jsonl  on $LITEMALL (default /work/corpora/fb/litemall; Vue front ends and
#                                        Java back ends, issue 39: linlinjava/litemall at a1ef964a, see
#                                        bench/eval/frozen/README.md)
# First the frozen files are checked against their manifest (a mismatch stops the run). For each set:
# `codemap index CORPUS --index-dir WORK/<name>/idx --quiet` (an existing index is reused as is unless
# REINDEX=1), `codemap ask --batch CASES --index-dir IDX > WORK/<name>/results.jsonl` (index-only
# unless QA_LLM_URL, default --limit), then `score.py CASES results.jsonl` prints its table. At the end `qa_summary.py`
# prints tuned and frozen sets apart (hit@1, hit@5, file hit@5; frozen English and Chinese apart, and
# a set's [cross-boundary] questions apart from the rest; the mean of each group) and the issue-23 targets. A set whose corpus folder is absent is skipped.
#
# Prints figures, is not a test. Knobs (environment): EVAL_DIR (<repo>/../shared/eval; from a git
# worktree, the main checkout's), SCORER
# (EVAL_DIR/score.py), WORK (${TMPDIR:-/tmp}/codemap-qa), REINDEX, CODEMAP_BIN
# (<repo>/target/release/codemap, not built here), the corpus folders above, QA_LLM_URL and
# QA_LLM_MODEL (answer through that model: rewrite, rerank, answer; key in CODEMAP_LLM_KEY).
# QA_BACKEND=meilisearch (team mode; MEILI_URL and MEILI_MASTER_KEY set): every set is published
# to the server as repository `<set>` (`qa-jsoup`) (`index --backend meilisearch`, each run: the server's
# copy is not checked for staleness) and asked as `ask --batch` does by default, the server
# searching for every question; QA_WARM=1 asks through an in-memory copy of the chunks instead
# (`--memory-copy`).
# `--ablate` first: after the summary, bench/ablate.py asks every set again once per ranking rule
# with that rule off and prints what each rule is worth per set and per group (tuned, frozen).
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
# In a git worktree the shared folder sits beside the main checkout, not beside the worktree.
MAIN=$(dirname "$(git -C "$HERE" rev-parse --path-format=absolute --git-common-dir)")
BESIDE=$ROOT
[ -d "$ROOT/../shared/eval" ] || BESIDE=$MAIN
EVAL_DIR=${EVAL_DIR:-$BESIDE/../shared/eval}
SCORER=${SCORER:-$EVAL_DIR/score.py}
CODEMAP=${CODEMAP_BIN:-$ROOT/target/release/codemap}
WORK=${WORK:-${TMPDIR:-/tmp}/codemap-qa}
REINDEX=${REINDEX:-0}
QA_BACKEND=${QA_BACKEND:-embedded}
case $QA_BACKEND in embedded|meilisearch) ;; *) echo "qa.sh: QA_BACKEND is embedded or meilisearch" >&2; exit 2 ;; esac
# Index-only unless QA_LLM_URL names a model endpoint: a CODEMAP_LLM_URL left in the shell must
# not turn the figures into a model's without saying so.
unset CODEMAP_LLM_URL
if [ -n "${QA_LLM_URL:-}" ]; then
  export CODEMAP_LLM_URL=$QA_LLM_URL
  [ -n "${QA_LLM_MODEL:-}" ] && export CODEMAP_LLM_MODEL=$QA_LLM_MODEL
fi

say() { printf '== %s\n' "$*"; }
die() { printf 'qa.sh: %s\n' "$*" >&2; exit 1; }
case "${1:-}" in -h|--help) sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
ABLATE=0
[ "${1:-}" = --ablate ] && { ABLATE=1; shift; }
[ $(($# % 2)) = 0 ] || die "arguments come in pairs: CASES.jsonl CORPUS_ROOT"
[ $# -gt 0 ] || set -- "$EVAL_DIR/qa-public.jsonl" "${CIO:-/work/corpora/commons-io-2.11.0}" \
                       "$HERE/eval/qa-tomcat10.jsonl" "${TOMCAT:-/work/corpora/bench/corpus-1m/tomcat10}" \
                       "$HERE/eval/qa-commons-lang3.jsonl" "${LANG3:-/work/corpora/libcommons-lang3-java-3.12.0}" \
                       "$HERE/eval/qa-jsoup.jsonl" "${JSOUP:-/work/corpora/jsoup-1.15.3}" \
                       "$HERE/eval/qa-jackson-databind.jsonl" "${JACKSON:-/work/corpora/jackson-databind-2.14.0}" \
                       "$HERE/eval/qa-collections4.jsonl" "${COLL4:-/work/corpora/libcommons-collections4-java-4.2}" \
                       "$HERE/eval/qa-commons-compress.jsonl" "${COMPRESS:-/work/corpora/libcommons-compress-java-1.22}" \
                       "$HERE/eval/qa-logback.jsonl" "${LOGBACK:-/work/corpora/logback-1.2.11}" \
                       "$HERE/eval/frozen/qa-jetty9.jsonl" "${JETTY9:-/work/corpora/frozen/jetty9-9.4.57}" \
                       "$HERE/eval/frozen/qa-netty.jsonl" "${NETTY:-/work/corpora/frozen/netty-4.1.48}" \
                       "$HERE/eval/frozen/qa-flask.jsonl" "${FLASK:-/work/corpora/py/flask-3.0.3}" \
                       "$HERE/eval/frozen/qa-litemall.jsonl" "${LITEMALL:-/work/corpora/fb/litemall}"
[ -f "$SCORER" ] || die "no scorer $SCORER (set EVAL_DIR or SCORER)"
[ -x "$CODEMAP" ] || die "no codemap binary at $CODEMAP (cargo build --release, or set CODEMAP_BIN)"

# The frozen sets must be byte for byte what was committed before their first run.
FROZEN=$HERE/eval/frozen
frozen_files=()
while IFS=$'\t' read -r file sum _; do
  case $file in ''|'#'*) continue ;; esac
  [ -f "$FROZEN/$file" ] || die "frozen set $file is listed in $FROZEN/manifest.tsv but missing"
  [ "$(sha256sum "$FROZEN/$file" | cut -d' ' -f1)" = "$sum" ] \
    || die "frozen set $FROZEN/$file differs from its SHA-256 in manifest.tsv: frozen sets are never edited"
  frozen_files+=("$file")
done <"$FROZEN/manifest.tsv"
for f in "$FROZEN"/*.jsonl; do
  [[ " ${frozen_files[*]} " == *" $(basename "$f") "* ]] || die "$f is not in $FROZEN/manifest.tsv"
done
say "frozen sets match manifest.tsv: ${frozen_files[*]}"
if [ -n "${CODEMAP_LLM_URL:-}" ]; then
  say "answers through the model at $CODEMAP_LLM_URL (${CODEMAP_LLM_MODEL:-the default model}): rewrite, rerank and answer"
else
  say "answers index-only (QA_LLM_URL=… to answer through a model)"
fi

ran=0
summary=()
ablate=()
while [ $# -gt 0 ]; do
  CASES=$1 CORPUS=$2
  shift 2
  [ -f "$CASES" ] || die "no cases file $CASES"
  NAME=$(basename "$CASES" .jsonl)
  if [ ! -d "$CORPUS" ]; then
    echo "-- skipping $NAME: no corpus folder $CORPUS"
    echo
    continue
  fi
  CORPUS=$(cd "$CORPUS" && pwd)
  W=$WORK/$NAME
  IDX=$W/idx
  mkdir -p "$W"
  # The index is tied to its corpus: a different folder under the same set name means a fresh index.
  if [ -d "$IDX" ] && [ "$REINDEX" != 1 ] && [ "$(cat "$W/corpus" 2>/dev/null)" = "$CORPUS" ]; then
    say "$NAME: reusing index $IDX (REINDEX=1 to rebuild)"
  else
    say "$NAME: codemap index $CORPUS --index-dir $IDX"
    rm -rf "$IDX"
    "$CODEMAP" index "$CORPUS" --index-dir "$IDX" --quiet >"$W/index.log" 2>&1 \
      || { cat "$W/index.log" >&2; die "index of $CORPUS failed"; }
    echo "$CORPUS" >"$W/corpus"
    tail -1 "$W/index.log" | sed 's/^/   /'
  fi
  team=()
  if [ "$QA_BACKEND" = meilisearch ]; then
    team=(--backend meilisearch --repo-name "$NAME")
    say "$NAME: publishing to $MEILI_URL as $NAME"
    "$CODEMAP" "${team[@]}" index "$CORPUS" --index-dir "$IDX" --quiet >"$W/publish.log" 2>&1 \
      || { tail -5 "$W/publish.log" >&2; die "publish of $CORPUS failed"; }
    if [ "${QA_WARM:-0}" = 1 ]; then team+=(--memory-copy); fi
  fi
  N=$(grep -c . "$CASES")
  say "$NAME: codemap ask --batch ($N questions${team:+, ${team[*]}})"
  T0=$(date +%s%N)
  "$CODEMAP" ask --batch "$CASES" --index-dir "$IDX" "${team[@]}" >"$W/results.jsonl" 2>"$W/ask.log" \
    || { tail -5 "$W/ask.log" >&2; die "ask --batch failed on $CASES"; }
  MS=$(( ($(date +%s%N) - T0) / 1000000 ))
  echo "   $(tail -1 "$W/ask.log"), $MS ms"
  echo
  echo "$NAME on $(basename "$CORPUS"), $(date -u '+%Y-%m-%d %H:%M UTC')"
  python3 "$SCORER" "$CASES" "$W/results.jsonl" --json "$W/scores.json" | sed 's/^./  &/'
  GROUP=tuned
  [ "$(cd "$(dirname "$CASES")" && pwd)" = "$(cd "$FROZEN" && pwd)" ] && GROUP=frozen
  summary+=("$GROUP:$NAME:$CASES:$W/scores.json")
  ablate+=("$CASES" "$NAME")
  echo "  (index, answers and logs in $W)"
  echo
  ran=$((ran + 1))
done
[ $ran -gt 0 ] || die "no set ran (no corpus folder found)"
python3 "$HERE/qa_summary.py" "${summary[@]}"
if [ "$ABLATE" = 1 ]; then
  echo
  say "ablation: every ranking rule off in turn (bench/ablate.py)"
  python3 "$HERE/ablate.py" "$CODEMAP" "$SCORER" "$WORK" "${ablate[@]}"
fi
