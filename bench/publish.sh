#!/usr/bin/env bash
# Team-mode publish speed (issue 40): index a corpus into a fresh folder, then publish it to a
# Meilisearch server (`codemap --backend meilisearch index`) as a new repository scope, and print
# the index and publish seconds, the tasks sent and documents per second. A second run with no
# change shows what an incremental publish costs.
#
#   MEILI_URL=http://127.0.0.1:7700 MEILI_MASTER_KEY=… bench/publish.sh /work/corpora/bench/corpus-1m
#
# CODEMAP_BIN (default target/release/codemap), REPO_NAME (default publish-bench-<epoch>), WORK
# (default /tmp/codemap-publish). The repository scope is dropped from the server at the end
# unless KEEP=1.
set -euo pipefail
CORPUS=${1:?usage: bench/publish.sh CORPUS}
BIN=${CODEMAP_BIN:-target/release/codemap}
: "${MEILI_URL:?set MEILI_URL}"
: "${MEILI_MASTER_KEY:?set MEILI_MASTER_KEY}"
NAME=${REPO_NAME:-publish-bench-$(date +%s)}
WORK=${WORK:-/tmp/codemap-publish}
rm -rf "$WORK" && mkdir -p "$WORK"

now() { date +%s.%N; }
# Waits until the server has no task enqueued or running (another run's clean-up would otherwise
# be timed as part of this one's publish).
idle() {
  while curl -s "$MEILI_URL/tasks?statuses=enqueued,processing&limit=1" \
      -H "Authorization: Bearer $MEILI_MASTER_KEY" | grep -q '"uid"'; do sleep 1; done
}
idle
secs() { python3 -c "print(f'{$2 - $1:.1f}')"; }

t0=$(now)
"$BIN" --index-dir "$WORK/idx" index "$CORPUS" >/dev/null
t1=$(now)
"$BIN" --index-dir "$WORK/idx" --backend meilisearch --repo-name "$NAME" index "$CORPUS" \
  | grep "^published" >"$WORK/publish.txt"
t2=$(now)
"$BIN" --index-dir "$WORK/idx" --backend meilisearch --repo-name "$NAME" index "$CORPUS" \
  | grep "^published" >"$WORK/republish.txt"
t3=$(now)

python3 - "$WORK" "$NAME" <<'EOF'
import json, os, sys, urllib.request
work, name = sys.argv[1], sys.argv[2]
url = os.environ["MEILI_URL"].rstrip("/")
key = os.environ["MEILI_MASTER_KEY"]
total = 0
for idx in ["files", "symbols", "chunks", "edges", "edge_files"]:
    body = json.dumps({"q": "", "limit": 0, "filter": f'repo = "{name}"'}).encode()
    req = urllib.request.Request(f"{url}/indexes/codemap_{idx}/search", body,
        {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    n = json.load(urllib.request.urlopen(req)).get("estimatedTotalHits", 0)
    print(f"documents {idx}: {n}")
    total += n
print(f"documents total: {total}")
for p in ["publish.txt", "republish.txt"]:
    print(open(os.path.join(work, p)).read().strip())
open(os.path.join(work, "docs"), "w").write(str(total))
EOF
DOCS=$(cat "$WORK/docs")
echo "index: $(secs "$t0" "$t1") s"
PUB=$(secs "$t1" "$t2")
echo "publish (full): $PUB s, $(python3 -c "print(round($DOCS / $PUB))") documents/s"
echo "publish (nothing changed): $(secs "$t2" "$t3") s"
if [ "${KEEP:-0}" != 1 ]; then
  for idx in files symbols chunks edges edge_files snapshots; do
    curl -s -X POST "$MEILI_URL/indexes/codemap_$idx/documents/delete" \
      -H "Authorization: Bearer $MEILI_MASTER_KEY" -H 'Content-Type: application/json' \
      --data "{\"filter\": \"repo = \\\"$NAME\\\"\"}" >/dev/null
  done
  idle
fi
