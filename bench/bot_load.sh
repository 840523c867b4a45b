#!/usr/bin/env bash
# bench/bot_load.sh [--modes] [shop|corpus-1m] -- load on the team bot's answer core (issue 20): 50
# concurrent questions from 10 channels submitted to the inbox, answered over a real index by
# warm query workers, delivered to a recording sender. Prints p50/p95 from submit to delivered
# (the platform's own round trip excluded), lost and duplicated replies (every fifth question is
# re-sent with the same event id, as a platform retry), and peak RSS.
#
#   shop       (default) the e-commerce fixture, indexed into a temp folder
#   corpus-1m  $CODEMAP_BENCH_DIR/corpus-1m (bench/index.sh / make-corpus.sh builds it), asked
#              the questions of bench/questions-1m.txt
#
# Targets (issue 20): p95 <= 200 ms embedded, <= 1 s on Meilisearch. For Meilisearch set
# BOT_LOAD_MEILI_URL and BOT_LOAD_MEILI_REPO (+ BOT_LOAD_MEILI_KEY_ENV) to a published repository.
# Knobs: BOT_LOAD_N (50), BOT_LOAD_CHANNELS (10), BOT_LOAD_WORKERS (4), BOT_LOAD_CONCURRENCY (8),
# BOT_LOAD_PRELOAD (1: wait for the repository's preload before the load; 0: preload off),
# BOT_LOAD_INDEX (an existing index folder), BOT_LOAD_ANSWERS (a file: each question and its replies, to compare builds), BOT_LOAD_SERVER_PID (a search server on this machine:
# its CPU per answer is printed beside the bot's), CODEMAP_BIN, BOT_LOAD_BIN; CODEMAP_LOG (a filter such as
# info,query=debug) prints the workers' log, with the preload's stages, to stderr.
#
# --modes: the same load end to end through `codemap bot` in each connection mode (Slack Socket
# Mode and Events API, Discord gateway and interactions, Feishu long connection and callback),
# against the loopback stand-ins of tests/support: from sending a question as the platform does
# to the stand-in recording the reply (examples/bot_modes.rs; BOT_MODES picks modes,
# BOT_MODES_CHANNELS (50) the channels the questions come from).
# Prints figures, is not a test; exits non-zero only when a reply was lost or doubled.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
MODES=0
if [ "${1:-}" = "--modes" ]; then MODES=1; shift; fi
CORPUS=${1:-shop}
say() { printf '== %s\n' "$*"; }
die() { printf 'bot_load.sh: %s\n' "$*" >&2; exit 1; }

TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
CODEMAP=${CODEMAP_BIN:-$TARGET/release/codemap}
LOAD=${BOT_LOAD_BIN:-$TARGET/release/examples/bot_load}
MODES_BIN=${BOT_MODES_BIN:-$TARGET/release/examples/bot_modes}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bot-load.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
if [ -z "${CODEMAP_BIN:-}" ] || [ -z "${BOT_LOAD_BIN:-}" ]; then
  say "cargo build --release (codemap, bot_load)"
  cargo build --manifest-path "$ROOT/Cargo.toml" --release -p codemap --bin codemap --example bot_modes -p bot --example bot_load \
    >"$WORK/build.log" 2>&1 || { tail -20 "$WORK/build.log" >&2; die "build failed"; }
fi

case "$CORPUS" in
  shop)
    SRC=$ROOT/tests/fixtures/shop
    export BOT_LOAD_QUESTIONS=${BOT_LOAD_QUESTIONS:-$HERE/questions-shop.txt}
    ;;
  corpus-1m)
    SRC=${CODEMAP_BENCH_DIR:-/work/corpora/bench}/corpus-1m
    [ -d "$SRC" ] || die "no corpus at $SRC (see /work/shared/bench/make-corpus.sh)"
    export BOT_LOAD_QUESTIONS=${BOT_LOAD_QUESTIONS:-$HERE/questions-1m.txt}
    ;;
  *) die "unknown corpus $CORPUS (shop or corpus-1m)" ;;
esac

if [ -z "${BOT_LOAD_INDEX:-}" ] && [ -z "${BOT_LOAD_MEILI_URL:-}" ]; then
  export BOT_LOAD_INDEX=$WORK/idx
  say "codemap index $CORPUS"
  /usr/bin/time -f '   index: %e s, %M KB peak' "$CODEMAP" --index-dir "$BOT_LOAD_INDEX" index "$SRC" --quiet
  export BOT_LOAD_ROOT=$SRC
fi
say "load ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$MODES" = 1 ]; then
  CODEMAP_BIN=$CODEMAP "$MODES_BIN"
else
  "$LOAD"
fi
