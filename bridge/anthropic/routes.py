"""The Anthropic Messages dialect's routes: `POST /v1/messages` (SSE or JSON) and count_tokens.

Claude Code posts to `/v1/messages?beta=true`; the query is accepted and ignored. Every error
under these paths, and on any path for a request carrying `anthropic-version` (an unknown path,
a refused API key, the slot cap's 429), is written in Anthropic's envelope. The handlers
(bridge/anthropic/handlers.py) are imported on the first request or by the warm-up after start
(bridge/http/lazy_handler.py).
"""

from __future__ import annotations

from aiohttp import web

from bridge.anthropic.errors import anthropic_error_body
from bridge.core.request_limits import takes_model_slot
from bridge.http import error_shapes
from bridge.http.lazy_handler import lazy_handler

PREFIXES = ("/v1/messages", "/messages")
HANDLERS = "bridge.anthropic.handlers"


def mount(app: web.Application) -> None:
    """Mount the dialect on `app`, with Anthropic's error envelope for its paths."""
    error_shapes.register(app, PREFIXES, anthropic_error_body, header="anthropic-version")
    create_message = lazy_handler(app, HANDLERS, "create_message")
    count_tokens = lazy_handler(app, HANDLERS, "count_tokens")
    for prefix in ("/v1", ""):
        takes_model_slot(app, f"{prefix}/messages", f"{prefix}/messages/count_tokens")
        app.router.add_post(f"{prefix}/messages", create_message)
        app.router.add_post(f"{prefix}/messages/count_tokens", count_tokens)
