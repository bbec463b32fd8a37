"""The OpenAI Responses dialect's handlers (bridge/responses/routes.py mounts them): create (SSE,
JSON, WebSocket) and compact; the smaller endpoints are bridge/responses/endpoints.py."""

from __future__ import annotations

from aiohttp import web

from bridge.core.errors import invalid_request
from bridge.core.request_limits import MODEL_SLOTS, check_request_shape
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import read_json, strict_json_response
from bridge.http.sse import DONE, encode_events
from bridge.http.sse_response import stream_events
from bridge.responses.body import read_create_body
from bridge.responses.compaction import compact_conversation
from bridge.responses.events import Event
from bridge.responses.item_cache import ITEM_CACHE, remembering, resolve_references
from bridge.responses.responder import (
    TERMINAL_EVENTS,
    fold_response,
    prepare_response,
    response_events,
)
from bridge.responses.websocket import serve_websocket


def sse_frames(batch: list[Event]) -> bytes:
    data = encode_events(batch)
    if batch and batch[-1]["type"] in TERMINAL_EVENTS:
        data += DONE  # in the same write as the terminal event
    return data


async def create_response(request: web.Request) -> web.StreamResponse:
    backend = request.app[BACKEND]
    settings = request.app[SETTINGS]
    items = request.app[ITEM_CACHE]
    parsed = await read_create_body(request, settings.limits, items)
    plan = await prepare_response(
        backend, parsed, settings.model_names(), settings.limits.answerCheckSeconds
    )
    if not parsed.stream:
        return strict_json_response(
            await fold_response(remembering(response_events(backend, plan), items))
        )
    return await stream_events(
        request,
        remembering(response_events(backend, plan, settings.keepaliveSeconds), items),
        settings.limits,
        sse_frames,
    )


async def responses_websocket(request: web.Request) -> web.StreamResponse:
    # aiohttp's handshake base64-decodes the key and fails with a bare ValueError (a 500) on
    # bytes that are not ASCII; any other bad key it answers with a 400 itself.
    if not request.headers.get("Sec-WebSocket-Key", "").isascii():
        raise invalid_request(
            "The WebSocket handshake's Sec-WebSocket-Key is not base64.", code="invalid_handshake"
        )
    app = request.app
    return await serve_websocket(
        request, app[BACKEND], app[SETTINGS], app[MODEL_SLOTS], app[ITEM_CACHE]
    )


async def compact_response(request: web.Request) -> web.Response:
    body = await read_json(request)
    check_request_shape(body, request.app[SETTINGS].limits)
    body = resolve_references(body, request.app[ITEM_CACHE])
    return strict_json_response(
        await compact_conversation(request.app[BACKEND], body, request.app[SETTINGS].model_names())
    )
