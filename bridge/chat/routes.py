"""The Chat Completions dialect's routes: `POST /v1/chat/completions` (SSE or JSON).

Errors under these paths are written in OpenAI's envelope (`{"error": {...}}`). The handler
(bridge/chat/handlers.py) is imported on the first request or by the warm-up after start
(bridge/http/lazy_handler.py).
"""

from __future__ import annotations

from aiohttp import web

from bridge.core.request_limits import takes_model_slot
from bridge.http import error_shapes
from bridge.http.lazy_handler import lazy_handler

PREFIXES = ("/v1/chat/completions", "/chat/completions")


def mount(app: web.Application) -> None:
    """Mount the dialect on `app`, with OpenAI's error envelope for its paths."""
    error_shapes.register(app, PREFIXES, error_shapes.openai_error_body)
    create_completion = lazy_handler(app, "bridge.chat.handlers", "create_completion")
    for prefix in ("/v1", ""):
        takes_model_slot(app, f"{prefix}/chat/completions")
        app.router.add_post(f"{prefix}/chat/completions", create_completion)
