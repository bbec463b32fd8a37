"""The HTTP side of the ledger's tags: every request is tagged with its client and path
before its handler runs (the dialect adds the rest, bridge/core/request_tags.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from bridge.core.request_tags import RequestTags, tag_request
from bridge.usage.clients import client_of

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def tag_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    tag_request(RequestTags(client=client_of(request.headers), path=request.path))
    return await handler(request)
