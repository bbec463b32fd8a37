"""The streaming HTTP answer: response headers held back until there is an event to send.

A stream's status line cannot change once sent, so nothing is sent before the first batch
of events (the editor's first part, or the first keepalive while it is silent). A failure
before that (the editor's Blocked, NoPermissions, an unknown model...) is raised by the event
source as an ApiError and goes out as the same HTTP error as without streaming: 429 with
`Retry-After`, 403, 404, 502. After it, the source ends the stream in its dialect's way
(`response.failed`, an `error` event...). The dialect says how a batch is framed.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any

from aiohttp import web

from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.http.write_bounds import ClientStuck, WriteBounds

Event = dict[str, Any]
Frames = Callable[[list[Event]], bytes]

log = logging.getLogger(__name__)

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}


async def stream_events(
    request: web.Request,
    events: AsyncGenerator[list[Event], None],
    limits: Limits,
    frames: Frames,
) -> web.StreamResponse:
    """Write the batches of `events` as SSE; raises what `events` raises before its first.

    Each write is bounded in time (bridge/http/write_bounds.py): a client that stops reading has
    its connection aborted, which ends the stream and the editor request."""
    bounds = WriteBounds(limits)
    try:
        try:
            first = await anext(events)
        except StopAsyncIteration:  # cannot happen: the events end with a terminal event
            raise ApiError(
                502,
                "The editor ended the response without a result.",
                type="server_error",
                code="editor_error",
            ) from None
        response = web.StreamResponse(headers=SSE_HEADERS)
        try:
            await bounds.write(response.prepare(request))
            await bounds.write(response.write(frames(first)))
            async for batch in events:
                await bounds.write(response.write(frames(batch)))
        except ClientStuck:
            if request.transport is not None:
                request.transport.abort()  # unsent data is dropped: the client reads nothing
        except (ConnectionResetError, ConnectionError):
            log.info("The client went away; the editor request is cancelled")
        return response
    finally:
        await events.aclose()  # stops the editor request when the client left early
