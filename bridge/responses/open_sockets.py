"""The Responses WebSocket connections open on an app, closed when it shuts down.

Apart from bridge/responses/websocket.py so that mounting the dialect does not import the
WebSocket mode itself (start-up time: bridge/http/lazy_handler.py).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Protocol

from aiohttp import WSCloseCode, web


class OpenSocket(Protocol):
    """What shutting down needs of a connection (bridge/responses/websocket.py's
    ResponsesSocket): described here, so that this module does not import that one."""

    ws: web.WebSocketResponse

    def running_turn(self) -> asyncio.Task[None] | None: ...


OPEN_SOCKETS: web.AppKey[weakref.WeakSet[OpenSocket]] = web.AppKey(
    "open_websockets", weakref.WeakSet
)
# On shutdown, how long running turns may take to send their final event before their
# sockets are closed: a turn whose editor went away fails at once (`editor_unavailable`).
SHUTDOWN_GRACE_SECONDS = 1.0


def track_websockets(app: web.Application) -> None:
    """Remember open connections so that shutting down closes them instead of waiting."""
    app[OPEN_SOCKETS] = weakref.WeakSet()
    app.on_shutdown.append(_close_all)


async def _close_all(app: web.Application) -> None:
    """Every open socket gets 1001, after its running turn, if any, sent its final event.

    When the editor goes away the language server shuts down at once: its turns are failing
    (`response.failed`, `editor_unavailable`, as HTTP streams get) but have not sent it yet.
    A turn still streaming after the grace is cancelled when its socket closes."""
    open_sockets = app[OPEN_SOCKETS]
    sockets = list(open_sockets)
    turns = [turn for socket in sockets if (turn := socket.running_turn()) is not None]
    if turns:
        await asyncio.wait(turns, timeout=SHUTDOWN_GRACE_SECONDS)
    for socket in sockets:
        await socket.ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
