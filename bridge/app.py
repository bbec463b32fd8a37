"""The aiohttp application: what every dialect shares, then one line per dialect.

Above every dialect and feature, which it mounts; nothing in them imports it
(docs/architecture.md).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bridge import SERVICE_NAME, __version__
from bridge.anthropic import routes as anthropic
from bridge.budgets import wiring as budgets
from bridge.chat import routes as chat
from bridge.core.backend import Backend, EditorError
from bridge.core.errors import ApiError, from_editor
from bridge.core.fallback import FallbackBackend
from bridge.core.request_limits import (
    MODEL_SLOTS,
    ModelSlots,
    TimedBackend,
    concurrency_middleware,
)
from bridge.core.tool_host import ToolHost
from bridge.gemini import routes as gemini
from bridge.http import model_routes, security
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.body_budget import BODY_BUDGET, BodyBudget
from bridge.http.body_deadline import read_body_first
from bridge.http.error_shapes import error_response
from bridge.http.json_body import strict_json_response
from bridge.mcp import mount as mcp
from bridge.responses import routes as responses
from bridge.settings import BridgeSettings
from bridge.usage import wiring as usage
from bridge.web_search.loop import SearchingBackend
from bridge.web_search.request import set_available
from bridge.web_search.service import search_service

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Each dialect is a folder whose `mount` adds its routes and its error envelope.
DIALECTS: tuple[Callable[[web.Application], None], ...] = (
    responses.mount,
    anthropic.mount,
    chat.mount,
    gemini.mount,
)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure leaves in its dialect's error envelope; nothing leaves as a bare 500."""
    try:
        return await handler(request)
    except ApiError as exc:
        return error_response(request, exc)
    except EditorError as exc:
        return error_response(request, from_editor(exc.code, exc.message, exc.name))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = {404: "not_found", 405: "method_not_allowed", 413: "request_too_large"}.get(
            exc.status
        )
        message = {404: f"Unknown path {request.path}.", 413: "The request body is too large."}.get(
            exc.status, exc.reason
        )
        return error_response(request, ApiError(exc.status, message, code=code))
    except Exception:
        log.exception("Unexpected error while handling %s %s", request.method, request.path)
        return error_response(
            request,
            ApiError(
                500, "Internal error in Maestro Bridge.", type="server_error", code="internal_error"
            ),
        )


@web.middleware
async def web_search_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Tells the dialects' planners that a search service runs their hosted search tools."""
    set_available(True)
    return await handler(request)


async def health(request: web.Request) -> web.Response:
    return strict_json_response({"status": "ok", "service": SERVICE_NAME, "version": __version__})


def create_app(
    backend: Backend, settings: BridgeSettings, tools: ToolHost | None = None
) -> web.Application:
    app = web.Application(
        client_max_size=settings.limits.maxBodyBytes, middlewares=[errors_middleware]
    )
    security.install(app, settings)  # Host, Origin, API key: before any route runs
    # The whole body before the model slot: a slow sender must not hold one.
    app[BODY_BUDGET] = BodyBudget.for_limits(settings.limits)  # HTTP bodies and WebSocket frames
    app.middlewares.append(read_body_first(settings.limits, app[BODY_BUDGET]))
    app.middlewares.append(concurrency_middleware)
    app[MODEL_SLOTS] = ModelSlots(settings.limits.maxConcurrentRequests)
    metered = usage.install(app, TimedBackend(backend, settings.limits), settings)
    budgets.install(app, settings)  # counts from the ledger usage.install opened
    if settings.fallbackModel:  # outside the meter: the ledger has a row per attempt
        metered = FallbackBackend(metered, settings.fallbackModel, settings.model_names())
    service = search_service(settings.webSearch, tools)
    if service is not None:  # the clients' hosted search tools, run by the bridge
        metered = SearchingBackend(metered, service)
        app.middlewares.append(web_search_middleware)
    else:
        log.info("Web search is off: hosted search tools are dropped (docs/web-search.md)")
    app[BACKEND] = metered
    app[SETTINGS] = settings
    model_routes.mount(app)
    app.router.add_get("/health", health)
    for mount in DIALECTS:
        mount(app)
    mcp.mount(app, settings, tools)  # /mcp: the editor's tools, when enabled
    return app
