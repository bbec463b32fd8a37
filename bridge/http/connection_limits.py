"""Connections: how many may be open, and how long one may sit idle or half-sent.

aiohttp itself closes a connection with no request running `keepalive_timeout` after it
opened or answered its last request (`limits.keepAliveTimeoutSeconds`; aiohttp's default is
an hour). This module adds:

- a deadline for a request's headers once its first bytes arrived (slowloris): 408, closed;
- a cap on open connections (`limits.maxConnections`), kept below the process's file
  descriptor limit, which start-up raises toward what the cap needs (within the hard limit).
  At the cap a new connection closes the one idle longest: an HTTP connection with no request
  running (idle, or still sending its headers) first, else a WebSocket with no response
  running, the one heard from least recently. When every connection is busy, the new one
  gets 503 `too_many_connections` and is closed;
- one log line per burst of `accept()` failures (out of descriptors) instead of one per try:
  asyncio logs every failed try, and retries in a tight loop (177k lines in 30 s measured).

`GuardedAppRunner` replaces `web.AppRunner` (lsp/endpoint.py); it makes aiohttp's connection
objects (`web.RequestHandler`) `GuardedConnection`s.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import http
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.web_request import BaseRequest

from bridge.core.errors import ApiError
from bridge.core.limits import Limits

log = logging.getLogger(__name__)

# Descriptors kept free beyond the cap: stdio, the listening socket, the event loop's own,
# and one batch of accept() calls (asyncio accepts up to the backlog, 128, per loop pass)
# that exist before the cap can close them.
RESERVED_FDS = 192
BURST_SECONDS = 60.0
ACCEPT_FAILED = "socket.accept() out of system resource"  # asyncio's message
_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class BurstLog:
    """Logs the first event of a burst, then at most one line per `window` seconds, saying
    how many events it left out."""

    def __init__(self, logger: logging.Logger, window: float = BURST_SECONDS) -> None:
        self._logger = logger
        self._window = window
        self._quiet_until = float("-inf")
        self._left_out = 0

    def warning(self, message: str, *args: object) -> None:
        now = time.monotonic()
        if now < self._quiet_until:
            self._left_out += 1
            return
        if self._left_out:
            message += " (%d more such events in the last %g s)"
            args = (*args, self._left_out, self._window)
        self._logger.warning(message, *args)
        self._quiet_until = now + self._window
        self._left_out = 0


# --------------------------------------------------------------------------- descriptors


def raise_descriptor_limit(wanted: int) -> int | None:
    """Raises the soft RLIMIT_NOFILE to `wanted` as far as the hard limit allows; returns the
    soft limit now (None: unlimited, or a platform without it)."""
    if sys.platform == "win32":  # no descriptor limit to raise (nor a `resource` module)
        return None
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return None if soft == resource.RLIM_INFINITY else soft


def connection_cap(configured: int) -> int:
    """`configured`, lowered so that the open connections leave descriptors to spare."""
    soft = raise_descriptor_limit(configured + RESERVED_FDS)
    if soft is None:
        return configured
    return max(1, min(configured, soft - min(RESERVED_FDS, soft // 2)))


def limit_accept_error_logs(loop: asyncio.AbstractEventLoop) -> None:
    """Out-of-descriptor `accept()` failures: one line per burst; everything else as before."""
    previous = loop.get_exception_handler()
    if getattr(previous, "limits_accept_errors", False):
        return
    burst = BurstLog(log)

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if context.get("message") == ACCEPT_FAILED or (
            isinstance(exc, OSError) and exc.errno in _OUT_OF_RESOURCES
        ):
            burst.warning(
                "Cannot accept connections: %s. New clients wait until connections close "
                "(limits.maxConnections; raise the file descriptor limit, `ulimit -n`)",
                exc,
            )
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.limits_accept_errors = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


# --------------------------------------------------------------------------- connections


def raw_error(error: ApiError) -> bytes:
    """A whole HTTP/1.1 error response, for connections that have no request to answer."""
    body = json.dumps(error.body()).encode()
    lines = [
        f"HTTP/1.1 {error.status} {http.HTTPStatus(error.status).phrase}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in error.headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class GuardedConnection(web.RequestHandler):
    """aiohttp's connection, admitted by the guard, with a deadline for headers and what the
    guard needs to know to choose which connection to close."""

    def __init__(self, manager: web.Server, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self.guard = guard
        self.busy = False  # a request (or a WebSocket) is being handled
        self.idle_since = time.monotonic()  # opened, or answered its last request
        self.heard_at = self.idle_since  # last bytes received
        # WebSockets only: whether a response is running on it (bridge/responses/websocket.py).
        self.responding: Callable[[], bool] | None = None
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        admitted = self.guard.admit(self)
        super().connection_made(transport)
        if not admitted:
            self.close_with(
                ApiError(
                    503,
                    f"Too many open connections ({self.guard.cap}, limits.maxConnections), "
                    "all busy. Retry shortly.",
                    type="server_error",
                    code="too_many_connections",
                    headers={"Retry-After": "1"},
                )
            )

    def connection_lost(self, exc: BaseException | None) -> None:
        self.guard.forget(self)
        self._stop_header_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.heard_at = time.monotonic()
        if data and not self.busy and self._header_timer is None:
            # The first bytes of a request: its headers have a deadline from now.
            self._header_timer = asyncio.get_running_loop().call_later(
                self.guard.header_timeout, self._headers_late
            )
        super().data_received(data)

    async def _handle_request(
        self,
        request: BaseRequest,
        start_time: float | None,
        request_handler: Callable[[BaseRequest], Awaitable[web.StreamResponse]],
    ) -> tuple[web.StreamResponse, bool]:
        # The headers are in; the body has its own deadline (bridge/http/body_deadline.py).
        self._stop_header_timer()
        self.busy = True
        try:
            return await super()._handle_request(request, start_time, request_handler)
        finally:
            self.busy = False
            self.idle_since = time.monotonic()

    def idle_rank(self) -> tuple[int, float] | None:
        """Eviction order, smallest first; None for a connection that must stay."""
        if not self.busy:
            return (0, self.idle_since)
        if self.responding is not None and not self.responding():
            return (1, self.heard_at)
        return None

    def close_with(self, error: ApiError) -> None:
        if self.transport is not None:
            self.transport.write(raw_error(error))
        self.force_close()  # the transport sends what it holds, then closes

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.busy:
            seconds = self.guard.header_timeout
            self.close_with(
                ApiError(
                    408,
                    f"The request headers did not arrive within {seconds:g} s "
                    "(limits.headerTimeoutSeconds); the connection is closed.",
                    code="request_timeout",
                )
            )

    def _stop_header_timer(self) -> None:
        timer, self._header_timer = self._header_timer, None
        if timer is not None:
            timer.cancel()


class ConnectionGuard:
    """The open connections and their cap."""

    def __init__(self, cap: int, header_timeout: float) -> None:
        self.cap = cap
        self.header_timeout = header_timeout
        self.open: set[GuardedConnection] = set()
        self._full = BurstLog(log)

    def admit(self, connection: GuardedConnection) -> bool:
        if len(self.open) >= self.cap:
            ranked = [(rank, c) for c in self.open if (rank := c.idle_rank()) is not None]
            self._full.warning(
                "%d connections open (limits.maxConnections): new connections close the "
                "longest-idle ones, or get 503 when all are busy",
                len(self.open),
            )
            if not ranked:
                return False
            victim = min(ranked, key=lambda pair: pair[0])[1]
            self.open.discard(victim)
            victim.force_close()
        self.open.add(connection)
        return True

    def forget(self, connection: GuardedConnection) -> None:
        self.open.discard(connection)


def watch_responses(request: web.Request, responding: Callable[[], bool]) -> None:
    """For a WebSocket: the guard may close it, when connections run short, while
    `responding()` is false (no response running on it)."""
    connection = request.protocol
    if isinstance(connection, GuardedConnection):
        connection.responding = responding


class GuardedServer(web.Server):
    """aiohttp's Server, making GuardedConnections."""

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard

    def __call__(self) -> web.RequestHandler:
        return GuardedConnection(self, self.guard, loop=self._loop, **self._kwargs)


class GuardedAppRunner(web.AppRunner):
    """`web.AppRunner` with the bounds of this module; kwargs as for `web.AppRunner`."""

    def __init__(self, app: web.Application, limits: Limits, **kwargs: Any) -> None:
        super().__init__(app, keepalive_timeout=limits.keepAliveTimeoutSeconds, **kwargs)
        self.limits = limits
        self.guard: ConnectionGuard | None = None

    async def setup(self) -> None:
        limit_accept_error_logs(asyncio.get_running_loop())
        cap = connection_cap(self.limits.maxConnections)
        if cap < self.limits.maxConnections:
            log.info("At most %d open connections (the file descriptor limit allows no more)", cap)
        self.guard = ConnectionGuard(cap, self.limits.headerTimeoutSeconds)
        await super().setup()

    async def _make_server(self) -> web.Server:
        plain = await super()._make_server()
        assert self.guard is not None
        return GuardedServer(
            plain.request_handler,
            request_factory=plain.request_factory,
            handler_cancellation=plain.handler_cancellation,
            loop=plain._loop,
            guard=self.guard,
            **plain._kwargs,
        )
