#!/usr/bin/env python3
"""A stand-in for the GitHub REST API's issue comments, for bench/review.sh (stdlib only).

Keeps real comment state (a list returns what was posted; PATCH edits) and appends one JSON
line per write to the record file: {"t_ns", "method", "path", "chars"}. Usage:
    review_api.py PORT RECORD_FILE
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, RECORD = int(sys.argv[1]), sys.argv[2]
LOCK = threading.Lock()
COMMENTS = []  # {"id", "list", "body"}


def record(method, path, body):
    with LOCK, open(RECORD, "a") as f:
        f.write(json.dumps({"t_ns": time.time_ns(), "method": method, "path": path,
                            "chars": len(body), "body": body}) + "\n")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, code, value):
        data = json.dumps(value).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        n = int(self.headers.get("content-length", "0"))
        return json.loads(self.rfile.read(n) or b"{}").get("body", "")

    def do_GET(self):
        path = self.path.split("?")[0]
        with LOCK:
            items = [{"id": c["id"], "body": c["body"]} for c in COMMENTS if c["list"] == path]
        self.answer(200, items)

    def do_POST(self):
        path, body = self.path.split("?")[0], self.body()
        with LOCK:
            cid = 1000 + len(COMMENTS)
            COMMENTS.append({"id": cid, "list": path, "body": body})
        record("POST", path, body)
        self.answer(201, {"id": cid, "body": body})

    def do_PATCH(self):
        path, body = self.path.split("?")[0], self.body()
        cid = int(path.rsplit("/", 1)[1])
        with LOCK:
            for c in COMMENTS:
                if c["id"] == cid:
                    c["body"] = body
        record("PATCH", path, body)
        self.answer(200, {"id": cid, "body": body})


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
