"""The Chat Completions dialect's handler (bridge/chat/routes.py mounts it): SSE or JSON.

The stream is
`data: <chunk>` frames ending with `data: [DONE]`; while the model is silent, SSE comment lines
keep the connection alive (every SSE parser skips them).
"""

from __future__ import annotations

from aiohttp import web

from bridge.chat.body import read_request
from bridge.chat.chunks import fold_completion
from bridge.chat.frames import sse_frames
from bridge.chat.prepare import prepare_request
from bridge.chat.stream import completion_chunks
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import strict_json_response
from bridge.http.sse_response import stream_events


async def create_completion(request: web.Request) -> web.StreamResponse:
    backend = request.app[BACKEND]
    settings = request.app[SETTINGS]
    body = await read_request(request, settings.limits)
    check_seconds = settings.limits.answerCheckSeconds
    plan = await prepare_request(backend, body, settings.model_names(), check_seconds)
    if not plan.stream:
        batches = completion_chunks(backend, plan, check_seconds=check_seconds, raise_failures=True)
        return strict_json_response(fold_completion([c async for batch in batches for c in batch]))
    return await stream_events(
        request,
        completion_chunks(backend, plan, settings.keepaliveSeconds, check_seconds),
        settings.limits,
        sse_frames,
    )
