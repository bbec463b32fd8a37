"""Request bodies are read whole, within a deadline and a memory budget, before any handler.

The model slot (bridge/core/request_limits.py) is taken only after this, so a client that sends
its headers and then trickles or stalls its body holds no slot. A body that has not arrived
within `limits.bodyTimeoutSeconds` gets 408 `request_timeout` and its connection is closed
at once (no lingering read of the rest).

Reading before the slot also means more bodies may be in memory at once than there are
slots; the bytes actually received (not the declared lengths, which a stalled client would
use to block others) are bounded across requests by `maxConcurrentRequests * maxBodyBytes`,
what the slots allowed before: past it a request gets 429 with Retry-After.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware

from bridge.core.errors import ApiError, invalid_request
from bridge.core.request_limits import RETRY_AFTER_SECONDS
from bridge.http.error_shapes import error_response
from bridge.settings import Limits

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def body_timeout_error(seconds: float) -> ApiError:
    return ApiError(
        408,
        f"The request body did not arrive within {seconds:g} s (limits.bodyTimeoutSeconds); "
        "the connection is closed.",
        code="request_timeout",
    )


class BodyBudget:
    """Bytes of request bodies held at once (being received, or by a running handler)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_use = 0

    def take(self, size: int) -> None:
        if self.in_use + size > self.limit:
            raise ApiError(
                429,
                "Too many request bodies are being received at once "
                "(limits.maxConcurrentRequests x limits.maxBodyBytes). Retry shortly.",
                type="rate_limit_error",
                code="too_many_concurrent_requests",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        self.in_use += size


async def _receive(request: web.Request, budget: BodyBudget, taken: list[int]) -> None:
    """Reads the body as `request.read()` does, counting each chunk against the budget."""
    body = bytearray()
    while chunk := await request.content.readany():
        budget.take(len(chunk))
        taken.append(len(chunk))
        body.extend(chunk)
        if len(body) > request.client_max_size:
            raise web.HTTPRequestEntityTooLarge(request.client_max_size, len(body))
    # aiohttp's cache: `request.read()`, `.text()` and `.json()` return this from now on.
    request._read_bytes = bytes(body)


def read_body_first(limits: Limits) -> Middleware:
    """A middleware that reads every request body before the handlers that follow it."""
    seconds = limits.bodyTimeoutSeconds
    budget = BodyBudget(limits.maxConcurrentRequests * limits.maxBodyBytes)

    @web.middleware
    async def body_deadline(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not request.can_read_body:
            return await handler(request)
        taken: list[int] = []
        try:
            try:
                # wait_for, not asyncio.timeout: Python 3.10 is supported.
                await asyncio.wait_for(_receive(request, budget, taken), seconds)
            except asyncio.TimeoutError:
                return await _answer_and_close(request, body_timeout_error(seconds))
            except (web.HTTPException, ApiError):
                raise
            except Exception:
                # A body that cannot be decoded (a bad Content-Encoding): the rest of the
                # stream cannot be framed either, so the connection must not be reused.
                return await _answer_and_close(request, undecodable_body_error())
            return await handler(request)
        finally:
            budget.in_use -= sum(taken)

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
