"""A Chat Completions body read into wire.py's Structs: the fast path, else the exact path.

The fast path (`fast_request`) decodes the bytes in one msgspec pass and then makes every
check the exact path would make and could fail: the shape limits of
bridge/core/request_limits.py (items, tools, the depth of free-form values; the count of JSON
values is bounded by the body's size in TypedBody). It only ever accepts: on any doubt it
returns None, and the exact path (exact.py, after today's `read_json` and
`check_request_shape`) answers, with today's 400s, or hands what it accepts over as the same
Structs. Either way one conversion follows.
"""

from __future__ import annotations

import logging

from aiohttp import web

from bridge.chat import wire
from bridge.chat.exact import parse_completion_request
from bridge.chat.options import log_ignored_keys
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape
from bridge.core.typed_body import within_depth
from bridge.http.json_body import read_json

log = logging.getLogger(__name__)

_GEMINI_DECLARATIONS = ("functionDeclarations", "function_declarations")


def fast_request(raw: bytes, limits: Limits) -> wire.CompletionRequest | None:
    """The body as Structs when it certainly passes the exact path's checks, else None."""
    if limits.maxJsonDepth < wire.TYPED_DEPTH:
        return None
    request = wire.TYPED.decode(raw, limits)
    if request is None or len(request.messages) > limits.maxInputItems:
        return None
    tools = request.tools
    if tools is not None:
        if len(tools) > limits.maxTools:
            return None
        for tool in tools:
            # An entry with Gemini's declarations counts as several tools in the shape check.
            if type(tool) is dict and any(key in tool for key in _GEMINI_DECLARATIONS):
                return None
    for name in wire.CompletionRequest.FREE_FORM:
        value = getattr(request, name)
        if value is not None and not within_depth(value, limits, 1):
            return None
    log_ignored_keys(request)
    return request


async def exact_request(request: web.Request, limits: Limits) -> wire.CompletionRequest:
    """Today's path, for any body the fast path did not take: its 400s, or its result."""
    body = await read_json(request)
    check_request_shape(body, limits, items="messages")
    return parse_completion_request(body)


async def read_request(request: web.Request, limits: Limits) -> wire.CompletionRequest:
    """The request's body as Structs (raises ApiError 400 as the exact path does)."""
    raw = await request.read()
    fast = fast_request(raw, limits)
    if fast is not None:
        return fast
    log.debug("Chat Completions body read on the exact path")
    return await exact_request(request, limits)
