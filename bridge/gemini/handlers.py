"""The Gemini dialect's handlers (bridge/gemini/routes.py mounts them): `POST
/v1beta/models/{model}:{action}`, the action split off here (aiohttp's path patterns cannot split
`name:action`).

`:generateContent` (JSON), `:streamGenerateContent` (with `alt=sse`, `data: <chunk>` lines and
no `event:`; without it, one JSON array of the same chunks, sent whole), `:countTokens`
(`{totalTokens}`). While the model is silent the stream carries blank lines: an SSE comment
would stall Google's SDKs, a blank line between events is skipped by every parser.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from bridge.core import strict_json
from bridge.core.errors import ApiError
from bridge.core.models import resolve_model
from bridge.core.request_limits import check_request_shape
from bridge.core.token_limits import chat_input_tokens
from bridge.gemini import models
from bridge.gemini.body import generate_request
from bridge.gemini.chunks import KEEPALIVE, Chunk, fold
from bridge.gemini.count import count_request
from bridge.gemini.prepare import prepare_generate
from bridge.gemini.stream import generate_chunks
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import read_json, strict_json_response
from bridge.http.sse_response import stream_events

KEEPALIVE_FRAME = b"\n"

Action = Callable[[web.Request, str], Awaitable[web.StreamResponse]]


def _frame(chunk: Chunk) -> bytes:
    if chunk == KEEPALIVE:
        return KEEPALIVE_FRAME
    return b"data: " + strict_json.encode(chunk).encode() + b"\n\n"


def sse_frames(batch: list[Chunk]) -> bytes:
    return b"".join(map(_frame, batch))


async def generate(request: web.Request, model_name: str, *, stream: bool) -> web.StreamResponse:
    backend = request.app[BACKEND]
    settings = request.app[SETTINGS]
    body = await generate_request(request, settings.limits)
    check_seconds = settings.limits.answerCheckSeconds
    names = settings.model_names()
    plan = await prepare_generate(backend, body, model_name, stream, names, check_seconds)
    if stream and request.query.get("alt") == "sse":
        return await stream_events(
            request,
            generate_chunks(backend, plan, settings.keepaliveSeconds, check_seconds),
            settings.limits,
            sse_frames,
        )
    batches = generate_chunks(backend, plan, check_seconds=check_seconds, raise_failures=True)
    chunks = [c async for batch in batches for c in batch]
    if stream:  # Google's stream without `alt=sse`: the chunks as one JSON array
        return strict_json_response([c for c in chunks if c != KEEPALIVE])
    return strict_json_response(fold(chunks))


async def generate_content(request: web.Request, model_name: str) -> web.StreamResponse:
    return await generate(request, model_name, stream=False)


async def stream_generate_content(request: web.Request, model_name: str) -> web.StreamResponse:
    return await generate(request, model_name, stream=True)


async def count_tokens(request: web.Request, model_name: str) -> web.StreamResponse:
    backend = request.app[BACKEND]
    settings = request.app[SETTINGS]
    body = await read_json(request)
    check_request_shape(body, settings.limits, items="contents")
    model = resolve_model(model_name, await backend.list_models(), settings.model_names())
    chat = count_request(body, model)
    return strict_json_response({"totalTokens": await chat_input_tokens(backend, chat)})


ACTIONS: dict[str, Action] = {
    "generateContent": generate_content,
    "streamGenerateContent": stream_generate_content,
    "countTokens": count_tokens,
}


async def model_action(request: web.Request) -> web.StreamResponse:
    """`models/{model}:{action}`: the action after the last colon (model ids have none)."""
    name, colon, action = request.match_info["name"].rpartition(":")
    handler = ACTIONS.get(action) if colon else None
    if handler is None or not name:
        known = ", ".join(f":{a}" for a in ACTIONS)
        raise ApiError(
            404,
            f"Unknown method {request.path}: expected models/MODEL and one of {known}.",
            code="not_found",
        )
    return await handler(request, models.bare_name(name))
