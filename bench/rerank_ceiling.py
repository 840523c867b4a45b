#!/usr/bin/env python3
"""bench/rerank_ceiling.py CODEMAP SCORER WORK CASES NAME [CASES NAME]...

What the LLM rerank (query/src/rerank.rs) can give at most: `codemap ask --batch` through an
OpenAI-compatible loopback server that answers every rerank request as an oracle would, picking
the candidates whose place overlaps a gold location of the question (so a perfect model), and
every other request (rewrite, answer) with nothing usable, so the citations are the reranked
retrieval's. The same binary, index and options as bench/qa.sh otherwise; WORK/NAME/idx must exist
(run bench/qa.sh first). Prints hit@1 / hit@5 / file hit@5 per set, index-only beside
oracle-reranked, the tuned and frozen means, and the size of the rerank prompts.

A ceiling, not a model's figure: a real model picks worse than the gold does. Prints figures; not
a test.
"""
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CARD = re.compile(r"^\[(\d+)\] .*?  (\S+):(\d+)-(\d+)$")


def gold_by_question(pairs):
    out = {}
    for cases, _ in pairs:
        for line in open(cases, encoding="utf-8"):
            if line.strip():
                c = json.loads(line)
                out[c["question"].strip()] = c["gold"]
    return out


def oracle_order(user, gold_of):
    m = re.search(r"Question:\n(.*?)\n\nCandidates", user, re.S)
    gold = gold_of.get(m.group(1).strip(), []) if m else []
    picks = []
    for line in user.splitlines():
        c = CARD.match(line)
        if not c:
            continue
        n, path, start, end = c.group(1), c.group(2), int(c.group(3)), int(c.group(4))
        if any(g["path"] == path and start <= g.get("end_line", 10**9) and end >= g["start_line"] for g in gold):
            picks.append(n)
    return " ".join(picks[:10]) or "0"


PROMPT_BYTES = []


def serve(gold_of):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            msgs = body["messages"]
            if "rank places" in msgs[0]["content"]:
                text = oracle_order(msgs[1]["content"], gold_of)
                PROMPT_BYTES.append(sum(len(m["content"].encode()) for m in msgs))
            else:
                text = ""  # no rewrite keywords, no answer prose: the index's citations stand
            out = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *_):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def overall(scorer, cases, results):
    out = results + ".scores.json"
    subprocess.run([sys.executable, scorer, cases, results, "--json", out], check=True,
                   stdout=subprocess.DEVNULL)
    summary = json.load(open(out))["summary"]
    o = next(iter(summary.values()))["overall"]
    return tuple(o[k] for k in COLS)


COLS = ("hit@1", "hit@5", "file_hit@5")


def main():
    if len(sys.argv) < 6 or len(sys.argv[4:]) % 2:
        sys.exit(__doc__)
    codemap, scorer, work = sys.argv[1:4]
    pairs = list(zip(sys.argv[4::2], sys.argv[5::2]))
    srv = serve(gold_by_question(pairs))
    env = dict(os.environ, CODEMAP_LLM_URL=f"http://127.0.0.1:{srv.server_port}/v1")
    rows = []
    for cases, name in pairs:
        idx = os.path.join(work, name, "idx")
        if not os.path.isdir(idx):
            print(f"-- skipping {name}: no index {idx} (run bench/qa.sh first)")
            continue
        out = os.path.join(work, name, "rerank-ceiling.jsonl")
        with open(out, "w") as f:
            subprocess.run([codemap, "ask", "--batch", cases, "--index-dir", idx], stdout=f,
                           stderr=subprocess.DEVNULL, env=env, check=True)
        group = "frozen" if os.sep + "frozen" + os.sep in os.path.abspath(cases) else "tuned"
        rows.append((group, name, overall(scorer, cases, os.path.join(work, name, "results.jsonl")),
                     overall(scorer, cases, out)))
    srv.shutdown()
    fmt = lambda t: " / ".join(f"{x:.3f}" for x in t)
    print(f"{'set':24} {'index-only':24} oracle rerank   (hit@1 / hit@5 / file hit@5)")
    for group in ("tuned", "frozen"):
        mine = [r for r in rows if r[0] == group]
        for _, name, a, b in mine:
            print(f"{name:24} {fmt(a):24} {fmt(b)}")
        if mine:
            mean = lambda k: tuple(sum(r[k][i] for r in mine) / len(mine) for i in range(3))
            print(f"{group + ' mean':24} {fmt(mean(2)):24} {fmt(mean(3))}")
    if PROMPT_BYTES:
        b = sorted(PROMPT_BYTES)
        print(f"rerank prompts: {len(b)}, bytes median {b[len(b) // 2]}, max {b[-1]} "
              f"(~{b[len(b) // 2] // 4} / ~{b[-1] // 4} tokens at 4 bytes a token)")


if __name__ == "__main__":
    main()
