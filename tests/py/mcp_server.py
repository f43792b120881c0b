"""An MCP server built with the official Python SDK (PyPI `mcp`) over its
Streamable HTTP transport, so that tests/js/mcp.test.mjs checks wiggum-rpc's
MCP client against an implementation it shares no code with.

Usage: mcp_server.py MODE [ORIGIN]
  MODE: "sse" replies as event streams, "json" as JSON bodies
  ORIGIN: a page origin allowed to call it from a browser (CORS), with the
          request headers MCP needs and Mcp-Session-Id exposed

Serves 127.0.0.1 on a free port at /mcp. Prints "listening <port>" on stdout
once it accepts connections. Exits on SIGTERM or SIGINT, and when its stdin is
a pipe that closes, so a test that dies cannot leave it behind.

Tools:
  add(a, b)   -> a + b
  count(n)    -> "counted to n", with a progress notification per step
  fail()      -> a tool error ("the tool failed")
"""

import asyncio
import socket
import sys

import uvicorn
from starlette.middleware.cors import CORSMiddleware
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from lifetime import stop_event

server = MCPServer("wiggum-py-test-server")


@server.tool()
async def add(a: int, b: int) -> int:
    return a + b


@server.tool()
async def count(n: int, ctx: Context) -> str:
    for step in range(1, n + 1):
        await ctx.report_progress(step, n)
        await asyncio.sleep(0.01)
    return f"counted to {n}"


@server.tool()
async def fail() -> str:
    raise ToolError("the tool failed")


async def main(mode, origin):
    stop = stop_event()
    app = server.streamable_http_app(json_response=(mode == "json"))
    if origin:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=[origin],
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id", "authorization"],
            expose_headers=["Mcp-Session-Id"],
        )
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    http = uvicorn.Server(config)
    serving = asyncio.create_task(http.serve(sockets=[listener]))
    while not http.started:
        if serving.done():
            serving.result()
        await asyncio.sleep(0.01)
    print(f"listening {listener.getsockname()[1]}", flush=True)
    await stop.wait()
    http.should_exit = True
    await serving


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in ("sse", "json"):
        sys.exit("usage: mcp_server.py sse|json [ORIGIN]")
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None))
