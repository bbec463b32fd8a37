"""The OpenAI Responses dialect's routes: create (SSE, JSON, WebSocket), compact, input_tokens,
and the stored-response paths. Errors keep OpenAI's envelope, the default.

The handlers (bridge/responses/handlers.py, endpoints.py) are imported on the first request or
by the warm-up after start (bridge/http/lazy_handler.py).
"""

from __future__ import annotations

from aiohttp import web

from bridge.core.request_limits import takes_model_slot
from bridge.http.app_keys import SETTINGS
from bridge.http.lazy_handler import lazy_handler
from bridge.responses.item_cache import ITEM_CACHE, ItemCache
from bridge.responses.open_sockets import track_websockets

HANDLERS = "bridge.responses.handlers"
ENDPOINTS = "bridge.responses.endpoints"


def mount(app: web.Application) -> None:
    """Mount the dialect on `app` (its errors keep OpenAI's envelope, the default)."""
    app[ITEM_CACHE] = ItemCache(app[SETTINGS].limits.itemCacheBytes)
    track_websockets(app)
    create = lazy_handler(app, HANDLERS, "create_response")
    websocket = lazy_handler(app, HANDLERS, "responses_websocket")
    compact = lazy_handler(app, HANDLERS, "compact_response")
    input_tokens = lazy_handler(app, ENDPOINTS, "input_tokens")
    stored = lazy_handler(app, ENDPOINTS, "stored_response")
    cancel = lazy_handler(app, ENDPOINTS, "cancel")
    # A response id is never one of the fixed names, so `GET /responses/compact` stays a 405.
    response_id = "{id:(?!compact$|input_tokens$)[^/]+}"
    for prefix in ("/v1", ""):
        takes_model_slot(
            app, *(f"{prefix}/responses{end}" for end in ("", "/compact", "/input_tokens"))
        )
        app.router.add_post(f"{prefix}/responses", create)
        app.router.add_get(f"{prefix}/responses", websocket)
        app.router.add_post(f"{prefix}/responses/compact", compact)
        app.router.add_post(f"{prefix}/responses/input_tokens", input_tokens)
        app.router.add_get(f"{prefix}/responses/{response_id}", stored)
        app.router.add_delete(f"{prefix}/responses/{response_id}", stored)
        app.router.add_get(f"{prefix}/responses/{response_id}/input_items", stored)
        app.router.add_post(f"{prefix}/responses/{response_id}/cancel", cancel)
