#!/usr/bin/env bash
# bench/buglocal.sh [CASES.jsonl] -- bug localization on the public set (shared/eval/README-buglocal.md):
# codemap and a plain BM25 file ranking built from the same index, scored in the same run.
#
#   codemap : `codemap ask --batch` with each case's report text as the question (index-only, no
#             LLM); files ranked by their first citation, methods as cited (<path>#<Class.method>).
#   bm25    : query/examples/bm25_files.rs — the report text as is to the index's full-text search
#             (tantivy BM25 over chunks with the index's field weights: symbols x3, header x1.5,
#             body), files ranked by their best chunk (max over chunks); no ask legs, boosts or
#             intent logic. Files only.
#
# Prints figures (file Acc@1/Acc@5/Acc@10, MRR, MAP; method level for codemap), is not a test.
# Knobs (environment): CORPUS (default /work/corpora/commons-io-2.11.0), EVAL_DIR (shared/eval),
# WORK (scratch folder), LIMIT (citations per answer, 30), CODEMAP_BIN, BM25_BIN.
set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(git -C "$HERE" rev-parse --show-toplevel)
EVAL_DIR=${EVAL_DIR:-$ROOT/../shared/eval}
CASES=${1:-$EVAL_DIR/buglocal-public.jsonl}
SCORER=${SCORER:-$EVAL_DIR/score_buglocal.py}
CORPUS=${CORPUS:-/work/corpora/commons-io-2.11.0}
WORK=${WORK:-${TMPDIR:-/tmp}/codemap-buglocal}
LIMIT=${LIMIT:-30}

say() { printf '== %s\n' "$*"; }
die() { printf 'buglocal.sh: %s\n' "$*" >&2; exit 1; }
[ -f "$CASES" ] || die "no cases file $CASES"
[ -f "$SCORER" ] || die "no scorer $SCORER"
[ -d "$CORPUS" ] || die "no corpus at $CORPUS (apt-get source libcommons-io-java=2.11.0-2; see $EVAL_DIR/README-buglocal.md)"
mkdir -p "$WORK"
IDX=$WORK/idx

TARGET=$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps 2>/dev/null | jq -r .target_directory 2>/dev/null) || TARGET=
[ -n "$TARGET" ] && [ "$TARGET" != null ] || TARGET=$ROOT/target
CODEMAP=${CODEMAP_BIN:-$TARGET/release/codemap}
BM25=${BM25_BIN:-$TARGET/release/examples/bm25_files}
if [ -z "${CODEMAP_BIN:-}" ] || [ -z "${BM25_BIN:-}" ]; then
  say "cargo build --release (log: $WORK/build.log)"
  cargo build --manifest-path "$ROOT/Cargo.toml" --release --bin codemap >"$WORK/build.log" 2>&1 \
    && cargo build --manifest-path "$ROOT/Cargo.toml" --release -p query --example bm25_files >>"$WORK/build.log" 2>&1 \
    || { tail -20 "$WORK/build.log" >&2; die "build failed"; }
fi

say "codemap index $CORPUS --index-dir $IDX"
"$CODEMAP" index "$CORPUS" --index-dir "$IDX" --quiet >"$WORK/index.log" 2>&1 || { cat "$WORK/index.log" >&2; die "index failed"; }
tail -1 "$WORK/index.log" | sed 's/^/   /'

# Questions: the report text of each case.
python3 - "$CASES" "$WORK/questions.jsonl" <<'EOF'
import json, sys
with open(sys.argv[1], encoding='utf-8') as f, open(sys.argv[2], 'w', encoding='utf-8') as o:
    for line in f:
        if line.strip():
            c = json.loads(line)
            o.write(json.dumps({'id': c['id'], 'question': c['query']}, ensure_ascii=False) + '\n')
EOF
N=$(wc -l <"$WORK/questions.jsonl")

say "codemap ask --batch ($N cases, --limit $LIMIT)"
T0=$(date +%s%N)
"$CODEMAP" --index-dir "$IDX" ask --batch "$WORK/questions.jsonl" --limit "$LIMIT" >"$WORK/codemap-answers.jsonl" 2>"$WORK/codemap.log" || true
CM_MS=$(( ($(date +%s%N) - T0) / 1000000 ))
python3 - "$WORK/codemap-answers.jsonl" "$WORK/codemap-rankings.jsonl" <<'EOF'
import json, sys
with open(sys.argv[1], encoding='utf-8') as f, open(sys.argv[2], 'w', encoding='utf-8') as o:
    for line in f:
        a = json.loads(line)
        files, methods = [], []
        for c in a.get('citations', []):
            if c['path'] not in files:
                files.append(c['path'])
            if c.get('symbol'):
                methods.append(c['path'] + '#' + c['symbol'])
        o.write(json.dumps({'id': a['id'], 'files': files, 'methods': methods}) + '\n')
EOF

say "bm25_files ($N cases)"
T0=$(date +%s%N)
"$BM25" "$IDX" "$CASES" "$WORK/bm25-rankings.jsonl" 2>"$WORK/bm25.log" || die "bm25_files failed: $(cat "$WORK/bm25.log")"
BM_MS=$(( ($(date +%s%N) - T0) / 1000000 ))

python3 "$SCORER" "$CASES" "$WORK/codemap-rankings.jsonl" --json >"$WORK/codemap-score.json"
python3 "$SCORER" "$CASES" "$WORK/bm25-rankings.jsonl" --json >"$WORK/bm25-score.json"
echo
echo "bug localization, $(basename "$CASES") ($N cases, corpus $(basename "$CORPUS")), $(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$WORK/codemap-score.json" "$WORK/bm25-score.json" "$CM_MS" "$BM_MS" <<'EOF'
import json, sys
cm = json.load(open(sys.argv[1]))['results']
bm = json.load(open(sys.argv[2]))['results']
rows = [('codemap', cm, 'file', sys.argv[3]), ('bm25 (max over chunks)', bm, 'file', sys.argv[4]),
        ('codemap', cm, 'method', '')]
print('  %-24s %-6s %6s %6s %6s %6s %6s %8s' % ('system', 'level', 'acc@1', 'acc@5', 'acc@10', 'mrr', 'map', 'time'))
for name, r, level, ms in rows:
    m = r.get('all/' + level)
    if not m:
        continue
    print('  %-24s %-6s %6.3f %6.3f %6.3f %6.3f %6.3f %8s' % (name, level, m['acc@1'], m['acc@5'], m['acc@10'],
                                                              m['mrr'], m['map'], (ms + ' ms') if ms else ''))
c, b = cm['all/file'], bm['all/file']
verdict = 'codemap beats bm25' if (c['mrr'] > b['mrr'] and c['acc@1'] >= b['acc@1'] and c['acc@5'] >= b['acc@5']) \
    else 'codemap does NOT beat bm25 on every file metric'
print('  file level: %s (mrr %+.3f, acc@1 %+.3f, acc@5 %+.3f)' % (verdict, c['mrr'] - b['mrr'],
                                                                  c['acc@1'] - b['acc@1'], c['acc@5'] - b['acc@5']))
EOF
echo "  (rankings and scores in $WORK)"
