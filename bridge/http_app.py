"""The aiohttp application: routes and the error envelope."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bridge import SERVICE_NAME, __version__, endpoints, security, strict_json
from bridge.backend import Backend, EditorError
from bridge.body_deadline import read_body_first
from bridge.compaction import compact_conversation
from bridge.errors import ApiError, from_editor, invalid_request
from bridge.item_cache import ITEM_CACHE, ItemCache, remembering, resolve_references
from bridge.models import listed_models
from bridge.request import parse_create_request
from bridge.request_limits import (
    MODEL_SLOTS,
    ModelSlots,
    TimedBackend,
    check_request_shape,
    concurrency_middleware,
)
from bridge.responder import fold_response, prepare_response, response_events
from bridge.settings import BridgeSettings
from bridge.sse_response import stream_events
from bridge.strict_json import JsonInputError
from bridge.websocket import serve_websocket, track_websockets

log = logging.getLogger(__name__)

BACKEND: web.AppKey[Backend] = web.AppKey("backend", Backend)
SETTINGS: web.AppKey[BridgeSettings] = web.AppKey("settings", BridgeSettings)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def strict_json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """Every JSON answer: never a bare NaN or Infinity (they are not JSON)."""
    return web.json_response(data, status=status, headers=headers, dumps=strict_json.dumps)


def error_response(error: ApiError) -> web.Response:
    return strict_json_response(error.body(), status=error.status, headers=error.headers)


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure leaves as an OpenAI error envelope; nothing leaves as a bare 500."""
    try:
        return await handler(request)
    except ApiError as exc:
        return error_response(exc)
    except EditorError as exc:
        return error_response(from_editor(exc.code, exc.message))
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        code = {404: "not_found", 405: "method_not_allowed", 413: "request_too_large"}.get(
            exc.status
        )
        message = {404: f"Unknown path {request.path}.", 413: "The request body is too large."}.get(
            exc.status, exc.reason
        )
        return error_response(ApiError(exc.status, message, code=code))
    except Exception:
        log.exception("Unexpected error while handling %s %s", request.method, request.path)
        return error_response(
            ApiError(
                500, "Internal error in Maestro Bridge.", type="server_error", code="internal_error"
            )
        )


async def _read_json(request: web.Request) -> Any:
    raw = await request.read()  # read already, within its deadline (bridge/body_deadline.py)
    try:
        return strict_json.decode(raw)
    except JsonInputError as exc:
        raise invalid_request(exc.message, param=exc.param, code=exc.code) from None
    except RecursionError:
        raise invalid_request(
            "The request body is nested too deeply to be read.", code="invalid_json"
        ) from None


async def create_response(request: web.Request) -> web.StreamResponse:
    backend = request.app[BACKEND]
    body = await _read_json(request)
    check_request_shape(body, request.app[SETTINGS].limits)
    items = request.app[ITEM_CACHE]
    parsed = parse_create_request(resolve_references(body, items))
    settings = request.app[SETTINGS]
    plan = await prepare_response(
        backend, parsed, settings.model_names(), settings.limits.answerCheckSeconds
    )
    if not parsed.stream:
        return strict_json_response(
            await fold_response(remembering(response_events(backend, plan), items))
        )
    settings = request.app[SETTINGS]
    return await stream_events(
        request,
        remembering(response_events(backend, plan, settings.keepaliveSeconds), items),
        settings.limits,
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
    body = await _read_json(request)
    check_request_shape(body, request.app[SETTINGS].limits)
    body = resolve_references(body, request.app[ITEM_CACHE])
    return strict_json_response(
        await compact_conversation(request.app[BACKEND], body, request.app[SETTINGS].model_names())
    )


async def list_models(request: web.Request) -> web.Response:
    models = await request.app[BACKEND].list_models()
    data = listed_models(models, request.app[SETTINGS].model_names())
    return strict_json_response({"object": "list", "data": data})


async def health(request: web.Request) -> web.Response:
    return strict_json_response({"status": "ok", "service": SERVICE_NAME, "version": __version__})


def create_app(backend: Backend, settings: BridgeSettings) -> web.Application:
    app = web.Application(
        client_max_size=settings.limits.maxBodyBytes, middlewares=[errors_middleware]
    )
    security.install(app, settings)  # Host, Origin, API key: before any route runs
    # The whole body before the model slot: a slow sender must not hold one.
    app.middlewares.append(read_body_first(settings.limits))
    app.middlewares.append(concurrency_middleware)
    app[MODEL_SLOTS] = ModelSlots(settings.limits.maxConcurrentRequests)
    app[BACKEND] = TimedBackend(backend, settings.limits)
    app[SETTINGS] = settings
    app[ITEM_CACHE] = ItemCache(settings.limits.itemCacheBytes)
    track_websockets(app)
    for prefix in ("/v1", ""):
        app.router.add_post(f"{prefix}/responses", create_response)
        app.router.add_get(f"{prefix}/responses", responses_websocket)
        app.router.add_post(f"{prefix}/responses/compact", compact_response)
        app.router.add_get(f"{prefix}/models", list_models)
    app.router.add_get("/health", health)
    endpoints.add_routes(app, BACKEND, SETTINGS, _read_json)
    return app
