"""Request bodies are read whole, within a deadline and a memory budget, before any handler.

The model slot (bridge/core/request_limits.py) is taken only after this, so a client that sends
its headers and then trickles or stalls its body holds no slot. A body that has not arrived
within `limits.bodyTimeoutSeconds` gets 408 `request_timeout` and its connection is closed
at once (no lingering read of the rest).

Reading before the slot also means more bodies may be in memory at once than there are
slots: their bytes are bounded across requests by `limits.maxConcurrentBodyBytes`
(bridge/http/body_budget.py), reserved from `Content-Length` before the body is read. A
declared length above `limits.maxBodyBytes` gets 413 before it is read, too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from bridge.core.errors import ApiError, invalid_request
from bridge.core.limits import Limits
from bridge.http.body_budget import BodyBudget, Reservation
from bridge.http.error_shapes import error_response

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def body_timeout_error(seconds: float) -> ApiError:
    return ApiError(
        408,
        f"The request body did not arrive within {seconds:g} s (limits.bodyTimeoutSeconds); "
        "the connection is closed.",
        code="request_timeout",
    )


async def _receive(request: web.Request, held: Reservation) -> None:
    """Reads the body as `request.read()` does; what it holds past its reservation (no
    Content-Length, or a compressed body) is reserved as it grows."""
    body = bytearray()
    while chunk := await request.content.readany():
        body.extend(chunk)
        if len(body) > request.client_max_size:
            raise web.HTTPRequestEntityTooLarge(request.client_max_size, len(body))
        held.grow_to(len(body))
    # aiohttp's cache: `request.read()`, `.text()` and `.json()` return this from now on.
    request._read_bytes = bytes(body)


def read_body_first(limits: Limits, budget: BodyBudget) -> Middleware:
    """A middleware that reads every request body before the handlers that follow it."""
    seconds = limits.bodyTimeoutSeconds

    @web.middleware
    async def body_deadline(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.can_read_body:
            return await handler(request)
        declared = request.content_length or 0
        if declared > request.client_max_size:
            raise web.HTTPRequestEntityTooLarge(request.client_max_size, declared)
        held = Reservation(budget)
        held.grow_to(declared)  # before one byte is read: 429 when there is no room
        try:
            try:
                # wait_for, not asyncio.timeout: Python 3.10 is supported.
                await asyncio.wait_for(_receive(request, held), seconds)
            except asyncio.TimeoutError:
                return await _answer_and_close(request, body_timeout_error(seconds))
            except (web.HTTPException, ApiError):
                raise
            except Exception:
                if request.transport is None or request.transport.is_closing():
                    # The client went away mid-body (its handler is being cancelled): there
                    # is nobody to answer, and nothing unexpected to log.
                    raise asyncio.CancelledError from None
                # A body that cannot be decoded (a bad Content-Encoding): the rest of the
                # stream cannot be framed either, so the connection must not be reused.
                return await _answer_and_close(request, undecodable_body_error())
            return await handler(request)
        finally:
            held.release()

    return body_deadline


def undecodable_body_error() -> ApiError:
    return invalid_request(
        "The request body could not be decoded as its Content-Encoding says; "
        "the connection is closed.",
        code="invalid_body",
    )


async def _answer_and_close(request: web.Request, error: ApiError) -> web.StreamResponse:
    response = error_response(request, error)
    response.force_close()  # `Connection: close`
    await response.prepare(request)
    await response.write_eof()
    # Without this aiohttp would wait up to its lingering time for the rest of the body.
    request.protocol.force_close()
    return response
