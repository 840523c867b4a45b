"""slack_sdk's own SocketModeClient against a Socket Mode server (tests/support/slack_standin.rs).

argv: API_BASE APP_TOKEN ENVELOPES TIMEOUT_SECONDS
Connects the way a Slack app does (apps.connections.open through WebClient, then the WebSocket),
acknowledges every envelope with SocketModeResponse, and prints one JSON line per frame type it
saw ({"frame": "hello" | "disconnect", ...}) and per envelope ({"envelope_id": ...}). Exits 0 once
ENVELOPES envelopes arrived, 1 on timeout.
"""

import json
import sys
import threading

from slack_sdk.socket_mode import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web import WebClient


def main() -> int:
    api, app_token, want, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    done = threading.Event()
    seen = []
    lock = threading.Lock()

    def say(obj):
        with lock:
            print(json.dumps(obj), flush=True)

    client = SocketModeClient(
        app_token=app_token,
        web_client=WebClient(base_url=api.rstrip("/") + "/"),
        auto_reconnect_enabled=True,
    )

    def on_message(_client, message, _raw):
        if message.get("type") in ("hello", "disconnect"):
            say({"frame": message["type"], "reason": message.get("reason")})

    def on_request(c: SocketModeClient, req: SocketModeRequest):
        c.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
        event = (req.payload or {}).get("event", {})
        say({"envelope_id": req.envelope_id, "type": req.type,
             "event_id": (req.payload or {}).get("event_id"), "text": event.get("text")})
        seen.append(req.envelope_id)
        if len(seen) >= want:
            done.set()

    client.message_listeners.append(on_message)
    client.socket_mode_request_listeners.append(on_request)
    client.connect()
    ok = done.wait(timeout)
    client.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
