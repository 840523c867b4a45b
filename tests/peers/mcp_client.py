"""Drives `codemap mcp` with the official MCP Python SDK client (pip install mcp) and prints
what it saw as one JSON object, for tests/mcp.rs to check.

    mcp_client.py stdio BIN DIFF_FILE -- ARGS...   spawn BIN ARGS... and talk over stdio
    mcp_client.py http URL DIFF_FILE TOKEN         connect over streamable HTTP with a bearer token
    mcp_client.py refused URL TOKEN                try to connect with a wrong token; report the failure
    mcp_client.py call URL TOKEN TOOL ARGS_JSON    one tool call over HTTP
"""

import asyncio
import contextlib
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
import mcp.client.streamable_http as streamable_http

try:  # the SDK's HTTP client: httpx2 from mcp 2.x, httpx before
    import httpx2 as httpx
except ImportError:
    import httpx


def is_error(result):
    for name in ("is_error", "isError"):
        if hasattr(result, name):
            return bool(getattr(result, name))
    return False


def text_of(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def exercise(session, diff):
    await session.initialize()
    out = {}
    tools = await session.list_tools()
    out["tools"] = sorted(t.name for t in tools.tools)
    schema = {t.name: (getattr(t, "input_schema", None) or getattr(t, "inputSchema", None)) for t in tools.tools}
    out["read_schema"] = schema.get("read")
    calls = {
        "search": ("search", {"query": "deductStock"}),
        "callers": ("callers", {"symbol": "InventoryServiceImpl.deductStock", "depth": 2}),
        "impact": ("impact", {"diff": diff}),
        "read_surface": ("read", {"target": "OrderServiceImpl", "level": "surface"}),
        "read_structured": ("read", {"target": "OrderServiceImpl.cancelOrder", "level": "structured"}),
        "read_full": ("read", {"target": "OrderServiceImpl.cancelOrder", "level": "full"}),
        "read_full_small_budget": (
            "read",
            {"target": "shop-order/src/main/java/com/shop/order/service/impl/OrderServiceImpl.java", "level": "full", "budget": 100},
        ),
        "repo_map": ("repo_map", {}),
        "flows": ("flows", {"module": "shop-order"}),
        "flows_unknown_module": ("flows", {"module": "shop-nowhere"}),
        "definition": ("definition", {"name": "OrderController.cancel"}),
        "callees": ("callees", {"symbol": "OrderServiceImpl.cancelOrder"}),
        "path": ("path", {"from": "OrderController.cancel", "to": "table:t_order"}),
        "ask": ("ask", {"question": "who calls cancelOrder?", "level": "surface"}),
        "trace": (
            "trace",
            {
                "trace": "java.lang.IllegalStateException: not cancellable\n"
                "\tat com.shop.order.service.impl.OrderServiceImpl.cancelOrder(OrderServiceImpl.java:99)\n"
                "\tat com.shop.order.controller.OrderController.cancel(OrderController.java:37)\n"
            },
        ),
        # Malformed arguments: a wrong type, a missing field, an unknown level, an unknown repo.
        "bad_type": ("search", {"query": 42}),
        "missing_field": ("callers", {}),
        "bad_level": ("read", {"target": "OrderServiceImpl", "level": "everything"}),
        "unknown_field": ("search", {"query": "x", "limt": 3}),
        "other_repo": ("search", {"query": "x", "repo": "secret"}),
        "not_a_diff": ("impact", {"diff": "hello"}),
    }
    out["calls"] = {}
    for key, (name, args) in calls.items():
        try:
            r = await session.call_tool(name, args)
            out["calls"][key] = {"is_error": is_error(r), "text": text_of(r)}
        except Exception as e:  # a protocol error: the test fails on it
            out["calls"][key] = {"protocol_error": repr(e)}
    res = await session.list_resources()
    out["resources"] = [str(r.uri) for r in res.resources]
    if res.resources:
        rr = await session.read_resource(str(res.resources[0].uri))
        out["resource_text"] = "".join(getattr(c, "text", "") for c in rr.contents)
    return out


@contextlib.asynccontextmanager
async def connect(url, token, timeout):
    """The SDK's streamable HTTP transport with a bearer token (mcp 2.x or 1.x spelling)."""
    headers = {"Authorization": f"Bearer {token}"}
    if hasattr(streamable_http, "streamable_http_client"):
        async with httpx.AsyncClient(headers=headers, timeout=timeout) as client:
            async with streamable_http.streamable_http_client(url, http_client=client) as streams:
                yield streams
    else:
        async with streamable_http.streamablehttp_client(url, headers=headers) as streams:
            yield streams


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        bin_, diff_file = sys.argv[2], sys.argv[3]
        args = sys.argv[sys.argv.index("--") + 1 :]
        diff = open(diff_file).read()
        params = StdioServerParameters(command=bin_, args=args)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                out = await exercise(session, diff)
    elif mode == "http":
        url, diff_file, token = sys.argv[2], sys.argv[3], sys.argv[4]
        diff = open(diff_file).read()
        async with connect(url, token, 60) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                out = await exercise(session, diff)
    elif mode == "refused":
        url, token = sys.argv[2], sys.argv[3]
        out = {"connected": False}
        try:
            async with connect(url, token, 20) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await asyncio.wait_for(session.initialize(), 20)
                    await session.list_tools()
                    out["connected"] = True
        except BaseException as e:  # anyio wraps it in an exception group
            out["error"] = repr(e)[:500]
    elif mode == "call":
        url, token, tool, args = sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
        async with connect(url, token, 60) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                r = await session.call_tool(tool, args)
                out = {"is_error": is_error(r), "text": text_of(r)}
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
