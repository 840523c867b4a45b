"""Signs Discord interactions with a fresh test Ed25519 key (the `cryptography` package), as
Discord does: signature over timestamp + raw body.

stdin:  {"requests": [{"timestamp": t, "body": str}]}
stdout: {"public_key": hex, "signatures": [hex, ...]}
"""
import json
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

req = json.load(sys.stdin)
key = Ed25519PrivateKey.generate()
public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
sigs = [key.sign((str(r["timestamp"]) + r["body"]).encode("utf-8")).hex() for r in req["requests"]]
json.dump({"public_key": public, "signatures": sigs}, sys.stdout)
