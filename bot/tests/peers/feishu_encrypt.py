"""Produces Feishu/Lark callbacks the way Feishu sends them, checked by lark-oapi itself.

The ciphertext uses lark-oapi's key derivation (AESCipher(key).digest = SHA-256 of the Encrypt
Key) and pycryptodome (lark-oapi's own AES dependency); each one is decrypted back with
lark_oapi.core.utils.AESCipher, and lark-oapi's EventDispatcherHandler must accept the signed
request before it is handed to the Rust router.

stdin:  {"encrypt_key", "verification_token", "events": [{"plain": {...}, "timestamp": t, "nonce": n}]}
stdout: {"requests": [{"body": str, "headers": {...}, "sdk_status": int, "sdk_body": str}]}
"""
import base64
import hashlib
import json
import os
import sys

from Crypto.Cipher import AES
from lark_oapi.core.model import RawRequest
from lark_oapi.core.utils import AESCipher
from lark_oapi.event.dispatcher_handler import EventDispatcherHandler

req = json.load(sys.stdin)
key = req["encrypt_key"]
cipher = AESCipher(key)
seen = []
handler = (
    EventDispatcherHandler.builder(key, req["verification_token"])
    .register_p2_im_message_receive_v1(lambda data: seen.append(data.header.event_id))
    .build()
)

out = []
for ev in req["events"]:
    plain = json.dumps(ev["plain"], ensure_ascii=False).encode("utf-8")
    pad = 16 - len(plain) % 16
    iv = os.urandom(16)
    ct = AES.new(cipher.digest, AES.MODE_CBC, iv).encrypt(plain + bytes([pad]) * pad)
    encrypted = base64.b64encode(iv + ct).decode()
    assert cipher.decrypt_str(encrypted) == plain.decode("utf-8"), "lark-oapi does not read it back"
    body = json.dumps({"encrypt": encrypted})
    ts, nonce = str(ev["timestamp"]), ev["nonce"]
    headers = {}
    if ev["plain"].get("type") != "url_verification":
        sig = hashlib.sha256((ts + nonce + key).encode("utf-8") + body.encode("utf-8")).hexdigest()
        headers = {"X-Lark-Request-Timestamp": ts, "X-Lark-Request-Nonce": nonce, "X-Lark-Signature": sig}
    raw = RawRequest()
    raw.uri = "/feishu/events"
    raw.body = body.encode("utf-8")
    raw.headers = headers
    resp = handler.do(raw)
    out.append({
        "body": body,
        "headers": headers,
        "sdk_status": resp.status_code,
        "sdk_body": resp.content.decode("utf-8") if resp.content else "",
    })
json.dump({"requests": out, "sdk_handled": seen}, sys.stdout)
