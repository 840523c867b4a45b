"""discord.py as a client of the loopback Discord stand-in (tests/support/discord_standin.rs).

Reads {"api_base", "token", "messages", "privileged"?} as JSON from stdin, points discord.py's Web API base at
`api_base` (the gateway URL then comes from its GET /gateway/bot, as with Discord), connects with
the GUILD_MESSAGES | DIRECT_MESSAGES intents, and prints one JSON line per event it sees (ready,
resumed, message) until `messages` messages arrived. The Rust test drives the stand-in from
these lines, so the stand-in is checked by an independent implementation of the protocol.
"""

import asyncio
import json
import sys
import urllib.error
import urllib.request

import yarl

import discord
from discord.gateway import DiscordWebSocket
from discord.http import Route


def emit(**event):
    print(json.dumps(event), flush=True)


def main():
    spec = json.load(sys.stdin)
    Route.BASE = spec["api_base"]
    # discord.py dials its DEFAULT_GATEWAY; point it at the URL GET /gateway/bot gives.
    req = urllib.request.Request(
        spec["api_base"] + "/gateway/bot", headers={"Authorization": "Bot " + spec["token"]}
    )
    try:
        url = json.load(urllib.request.urlopen(req))["url"]
    except urllib.error.HTTPError:
        url = json.load(urllib.request.urlopen(spec["api_base"] + "/gateway"))["url"]
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url + "/")
    intents = discord.Intents.none()
    intents.guild_messages = True
    intents.dm_messages = True
    # A privileged intent the stand-in's "portal" does not allow (close code 4014).
    intents.message_content = bool(spec.get("privileged"))
    client = discord.Client(intents=intents)
    seen = {"messages": 0}

    @client.event
    async def on_ready():
        emit(event="ready", user=str(client.user.id), application=str(client.application_id))

    @client.event
    async def on_resumed():
        emit(event="resumed")

    @client.event
    async def on_message(m):
        emit(
            event="message",
            id=str(m.id),
            channel=str(m.channel.id),
            guild=str(m.guild.id) if m.guild else None,
            content=m.content,
            mentions=[str(u.id) for u in m.mentions],
        )
        seen["messages"] += 1
        if seen["messages"] >= spec["messages"]:
            await client.close()

    asyncio.run(client.start(spec["token"]))


if __name__ == "__main__":
    main()
