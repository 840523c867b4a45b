"""Signs Slack requests with slack_sdk's own SignatureVerifier, and checks signatures with it.

stdin:  {"secret": s, "sign": [{"timestamp": t, "body": b}], "check": [{"timestamp", "body", "signature"}]}
stdout: {"signatures": [...], "valid": [...]}
"""
import json
import sys

from slack_sdk.signature import SignatureVerifier

req = json.load(sys.stdin)
verifier = SignatureVerifier(signing_secret=req["secret"])
out = {
    "signatures": [
        verifier.generate_signature(timestamp=str(r["timestamp"]), body=r["body"]) for r in req.get("sign", [])
    ],
    "valid": [
        verifier.is_valid(body=r["body"], timestamp=str(r["timestamp"]), signature=r["signature"])
        for r in req.get("check", [])
    ],
}
json.dump(out, sys.stdout)
