"""An aiohttp app served on 127.0.0.1 from a thread of its own, for tests that need a server
beside synchronous code (a capture server a real CLI talks to)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

from aiohttp import web

STARTUP_TIMEOUT = 10.0


@contextlib.contextmanager
def serving(app: web.Application, name: str) -> Iterator[str]:
    """`app` running on a free port; yields its root URL (`http://127.0.0.1:PORT`). Stopped
    when the block ends, however it ends."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    ready = threading.Event()
    failure: list[BaseException] = []
    address: list[str] = []

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        address.append(f"http://{host}:{port}")

    def serve() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(start())
        except BaseException as exc:  # reported to the caller below
            failure.append(exc)
            ready.set()
            return
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=serve, name=name, daemon=True)
    thread.start()
    if not ready.wait(STARTUP_TIMEOUT) or failure:
        loop.call_soon_threadsafe(loop.stop)
        raise RuntimeError(f"the {name} server did not start: {failure}")
    try:
        yield address[0]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(STARTUP_TIMEOUT)
