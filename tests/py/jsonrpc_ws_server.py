"""A plain JSON-RPC 2.0 server over WebSocket, made only of registry packages
(websockets for the socket, jsonrpcserver for the protocol), so that
tests/js/plain-ws.test.mjs checks wiggum-rpc against an implementation it
shares no code with.

Usage: jsonrpc_ws_server.py PORT    (0 picks a free port)

Serves 127.0.0.1 only. Prints "listening <port>" on stdout once it accepts
connections. Exits on SIGTERM or SIGINT, and when its stdin is a pipe that
closes, so a test that dies cannot leave it behind.

Methods (state is per connection, so tests do not see each other's):
  add(a, b), subtract(minuend=, subtrahend=), sleep(seconds) -> seconds
  fail()          -> error -32001 "Build failed" with data {"file", "line"}
  log(...)        notification: records its params
  get_logs()      -> the recorded params, in order
  notify_me()     -> true, then pushes {"method": "tick", "params": [1]}
  batch_count()   -> how many batch arrays this connection has sent
  batches()       -> the method names of each of those batches
"""

import asyncio
import json
import sys

from jsonrpcserver import Error, Success, async_dispatch, method
from websockets.asyncio.server import serve

from lifetime import stop_event


class Connection:
    def __init__(self, websocket):
        self.websocket = websocket
        self.logs = []
        self.batches = []


class Context:
    """What a method sees of one incoming message."""

    def __init__(self, connection):
        self.connection = connection
        # Sent only after the response to this message, so the client sees
        # them in a fixed order.
        self.pushes = []


@method
async def add(context, a, b):
    return Success(a + b)


@method
async def subtract(context, minuend, subtrahend):
    return Success(minuend - subtrahend)


@method
async def sleep(context, seconds):
    # Keeps a call in flight without blocking other messages.
    await asyncio.sleep(seconds)
    return Success(seconds)


@method
async def fail(context):
    return Error(code=-32001, message="Build failed", data={"file": "a.ts", "line": 3})


@method
async def log(context, *params, **named):
    context.connection.logs.append(named if named else list(params))
    return Success(None)


@method
async def get_logs(context):
    return Success(context.connection.logs)


@method
async def notify_me(context):
    context.pushes.append({"jsonrpc": "2.0", "method": "tick", "params": [1]})
    return Success(True)


@method
async def batch_count(context):
    return Success(len(context.connection.batches))


@method(name="batches")
async def list_batches(context):
    return Success(context.connection.batches)


async def handle(connection, message):
    if isinstance(message, bytes):
        message = message.decode("utf-8", errors="replace")
    try:
        parsed = json.loads(message)
    except ValueError:
        parsed = None
    if isinstance(parsed, list):
        connection.batches.append(
            [item.get("method") for item in parsed if isinstance(item, dict)]
        )
    context = Context(connection)
    response = await async_dispatch(message, context=context)
    if response:
        await connection.websocket.send(response)
    for push in context.pushes:
        await connection.websocket.send(json.dumps(push))


async def session(websocket):
    connection = Connection(websocket)
    tasks = set()
    # One task per message: a slow call must not hold up the ones behind it.
    async for message in websocket:
        task = asyncio.create_task(handle(connection, message))
        tasks.add(task)
        task.add_done_callback(tasks.discard)


async def main(port):
    stop = stop_event()
    async with serve(session, "127.0.0.1", port) as server:
        actual = server.sockets[0].getsockname()[1]
        print(f"listening {actual}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: jsonrpc_ws_server.py PORT")
    asyncio.run(main(int(sys.argv[1])))
