"""The Anthropic Messages dialect's handlers (bridge/anthropic/routes.py mounts them):
`POST /v1/messages` (SSE or JSON) and count_tokens."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bridge.anthropic.body import fast_body
from bridge.anthropic.events import fold_message
from bridge.anthropic.frames import sse_frames
from bridge.anthropic.plan import parse_messages_request
from bridge.anthropic.prepare import plan_body, prepare_messages
from bridge.anthropic.stream import message_events
from bridge.anthropic.wire import MessagesBody
from bridge.core.request_limits import check_request_shape
from bridge.core.token_limits import chat_input_tokens
from bridge.core.validation_errors import json_object
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import read_json, strict_json_response
from bridge.http.sse_response import stream_events


async def _checked_body(request: web.Request) -> Any:
    body = await read_json(request)
    check_request_shape(body, request.app[SETTINGS].limits, items="messages")
    return body


async def _parsed_body(request: web.Request, counting: bool = False) -> MessagesBody:
    """The body as wire Structs: decoded in one pass (body.py) when that is certain to
    read it as the exact path would, else by the exact path (read_json, the request limits and
    pydantic), which raises today's 400s. A count takes any `max_tokens` and `stream`."""
    body = fast_body(await request.read(), request.app[SETTINGS].limits, counting=counting)
    if body is not None:
        return body
    raw = await _checked_body(request)
    if counting:
        # Not parameters of a count: whatever they say, the input is the same.
        raw = {**json_object(raw), "max_tokens": 1, "stream": False}
    return parse_messages_request(raw)


async def create_message(request: web.Request) -> web.StreamResponse:
    backend = request.app[BACKEND]
    settings = request.app[SETTINGS]
    body = await _parsed_body(request)
    check_seconds = settings.limits.answerCheckSeconds
    plan = await prepare_messages(backend, body, settings.model_names(), check_seconds)
    if not plan.stream:
        events = message_events(backend, plan, check_seconds=check_seconds, raise_failures=True)
        return strict_json_response(fold_message([e async for batch in events for e in batch]))
    return await stream_events(
        request,
        message_events(backend, plan, settings.keepaliveSeconds, check_seconds),
        settings.limits,
        sse_frames,
    )


async def count_tokens(request: web.Request) -> web.Response:
    """`{"input_tokens": N}`: what `POST /v1/messages` with this body would send, counted by
    the editor. `max_tokens` may be left out, as Anthropic's endpoint allows."""
    body = await _parsed_body(request, counting=True)
    backend = request.app[BACKEND]
    plan, _ = await plan_body(backend, body, request.app[SETTINGS].model_names())
    return strict_json_response({"input_tokens": await chat_input_tokens(backend, plan.chat)})
