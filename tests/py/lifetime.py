"""How the test servers here end: on SIGTERM or SIGINT, and when their stdin
is a pipe that closes, so a Node test that dies cannot leave one behind."""

import asyncio
import os
import signal
import stat
import sys


def stop_event():
    """An event set when the server should stop. Call it inside the running loop."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    mode = os.fstat(sys.stdin.fileno()).st_mode
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return stop  # a terminal or /dev/null: only signals stop it

    def readable():
        try:
            data = os.read(sys.stdin.fileno(), 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(sys.stdin.fileno())
            stop.set()

    loop.add_reader(sys.stdin.fileno(), readable)
    return stop
