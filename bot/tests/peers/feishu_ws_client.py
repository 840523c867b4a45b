"""lark-oapi's own long-connection client (lark.ws.Client), pointed at a stand-in.

Reads one JSON object from stdin: {"domain": "http://127.0.0.1:PORT", "app_id": ..., "app_secret": ...}.
Prints one JSON line per im.message.receive_v1 event the SDK hands its handler:
{"event_id": ..., "message_id": ..., "chat_id": ..., "text": ...}. Runs until killed; exits
non-zero when the SDK gives up (a refused app id or secret).
"""

import json
import sys

import lark_oapi as lark


def main():
    cfg = json.loads(sys.stdin.readline())

    def on_message(data):
        msg = data.event.message
        print(
            json.dumps(
                {
                    "event_id": data.header.event_id,
                    "message_id": msg.message_id,
                    "chat_id": msg.chat_id,
                    "text": json.loads(msg.content)["text"],
                },
                ensure_ascii=False,
            ),
            flush=True,
        )

    handler = (
        lark.EventDispatcherHandler.builder("", "")
        .register_p2_im_message_receive_v1(on_message)
        .build()
    )
    client = lark.ws.Client(
        cfg["app_id"],
        cfg["app_secret"],
        event_handler=handler,
        domain=cfg["domain"],
        log_level=lark.LogLevel.DEBUG,
    )
    client.start()


if __name__ == "__main__":
    main()
