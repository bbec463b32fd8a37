"""Streamable HTTP at /mcp (the MCP specification's transport): POST carries one JSON-RPC
message and gets its answer as JSON, GET opens the session's stream of server notifications
(SSE), DELETE ends the session. The API's key and Host/Origin checks run first (their
middleware), so an MCP client is held to the same rules as an API client."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web
from mcp_types.jsonrpc import INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

from bridge.core import strict_json
from bridge.core.strict_json import JsonInputError
from bridge.mcp.calls import ToolCalls
from bridge.mcp.catalog import Catalog
from bridge.mcp.dispatch import Dispatcher, RpcFailure, initialize_result
from bridge.mcp.host import ToolHost
from bridge.mcp.mount import MCP_PATH
from bridge.mcp.sessions import Session, Sessions, TooManySessions
from bridge.settings import BridgeSettings
from bridge.usage.clients import OTHER, client_of
from bridge.usage.meter import USAGE_LEDGER
from bridge.usage.rows import ToolCallRow

log = logging.getLogger(__name__)

SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
STREAM_KEEPALIVE_SECONDS = 15.0
LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}

SESSIONS: web.AppKey[Sessions] = web.AppKey("mcp_sessions", Sessions)
DISPATCHER: web.AppKey[Dispatcher] = web.AppKey("mcp_dispatcher", Dispatcher)
WRITE_TIMEOUT: web.AppKey[float] = web.AppKey("mcp_write_timeout", float)


def _reply(msg_id: Any, *, result: Any = None, code: int = 0, message: str = "") -> dict[str, Any]:
    if code:
        return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def _json(
    body: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.json_response(body, status=status, headers=headers, dumps=strict_json.dumps)


def _refused(status: int, code: int, message: str, msg_id: Any = None) -> web.Response:
    return _json(_reply(msg_id, code=code, message=message), status)


def _client_name(request: web.Request, declared: str) -> str:
    """The ledger's client name: the User-Agent's product, else what initialize declared."""
    known = client_of(request.headers)
    if known != OTHER or not declared:
        return known
    cleaned = "".join(ch for ch in declared if ch.isprintable())[:64]
    return cleaned or OTHER


def _session(request: web.Request) -> Session | web.Response:
    session_id = request.headers.get(SESSION_HEADER)
    if not session_id:
        return _refused(
            400, INVALID_REQUEST, f"Missing {SESSION_HEADER} header: send initialize first."
        )
    session = request.app[SESSIONS].get(session_id)
    if session is None:
        return _refused(404, INVALID_REQUEST, "Unknown or ended session: initialize again.")
    version = request.headers.get(VERSION_HEADER)
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return _refused(
            400,
            INVALID_REQUEST,
            f"Unsupported {VERSION_HEADER} {version!r}; this server speaks "
            f"{', '.join(HANDSHAKE_PROTOCOL_VERSIONS)}.",
        )
    return session


async def post(request: web.Request) -> web.StreamResponse:
    try:
        body = strict_json.decode(await request.read())
    except (JsonInputError, RecursionError):
        return _refused(400, PARSE_ERROR, "The body is not valid JSON.")
    if isinstance(body, list):
        return _refused(
            400, INVALID_REQUEST, "Batches are not accepted (MCP 2025-06-18 and later)."
        )
    try:
        message = jsonrpc_message_adapter.validate_python(body)
    except ValidationError:
        msg_id = body.get("id") if isinstance(body, dict) else None
        return _refused(
            400,
            INVALID_REQUEST,
            "Not a JSON-RPC 2.0 message.",
            msg_id if isinstance(msg_id, int | str) else None,
        )
    method = getattr(message, "method", None)
    msg_id = getattr(message, "id", None)
    params = getattr(message, "params", None)
    if msg_id is None and method is not None and "id" in body:
        # The SDK's types read `"id": null` (or an object, a float) as a notification, which
        # gets no answer: the client would wait for one until its own timeout.
        return _refused(
            400, INVALID_REQUEST, "A request's id must be a string or an integer (never null)."
        )
    if method == "initialize" and msg_id is not None:
        return _initialize(request, msg_id, params)
    found = _session(request)
    if isinstance(found, web.Response):
        return found
    dispatcher = request.app[DISPATCHER]
    if method is None or msg_id is None:  # a notification, or a response we never asked for
        if method is not None:
            dispatcher.notification(found, method, params)
        return web.Response(status=202)
    try:
        result = await dispatcher.request(found, msg_id, method, params)
    except RpcFailure as exc:
        return _json(_reply(msg_id, code=exc.code, message=exc.message))
    return _json(_reply(msg_id, result=result))


def _initialize(request: web.Request, msg_id: Any, params: dict[str, Any] | None) -> web.Response:
    try:
        version, declared, result = initialize_result(params)
    except RpcFailure as exc:
        return _json(_reply(msg_id, code=exc.code, message=exc.message))
    try:
        session = request.app[SESSIONS].create(version, _client_name(request, declared))
    except TooManySessions:
        return _refused(
            503, INVALID_REQUEST, "Too many MCP sessions are open; end one first.", msg_id
        )
    log.info("MCP session for %s (protocol %s)", session.client, version)
    return _json(_reply(msg_id, result=result), headers={SESSION_HEADER: session.id})


async def stream(request: web.Request) -> web.StreamResponse:
    """The session's server-to-client stream: `notifications/tools/list_changed`."""
    found = _session(request)
    if isinstance(found, web.Response):
        return found
    if "text/event-stream" not in request.headers.get("Accept", ""):
        return _refused(406, INVALID_REQUEST, "GET /mcp needs `Accept: text/event-stream`.")
    if found.stream is not None:
        return _refused(409, INVALID_REQUEST, "This session already has a stream open.")
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(8)
    found.stream = queue
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    write_timeout = request.app[WRITE_TIMEOUT]
    try:
        await response.prepare(request)
        while True:
            try:
                message = await asyncio.wait_for(queue.get(), STREAM_KEEPALIVE_SECONDS)
            except asyncio.TimeoutError:
                chunk = b": keepalive\n\n"  # finds a client that went away
            else:
                if message is None:
                    break
                chunk = b"event: message\ndata: " + strict_json.dumps(message).encode() + b"\n\n"
            await asyncio.wait_for(response.write(chunk), write_timeout)
    except (ConnectionError, asyncio.TimeoutError):
        pass
    finally:
        if found.stream is queue:
            found.stream = None
    return response


async def delete(request: web.Request) -> web.StreamResponse:
    session_id = request.headers.get(SESSION_HEADER)
    if not session_id:
        return _refused(400, INVALID_REQUEST, f"Missing {SESSION_HEADER} header.")
    if not request.app[SESSIONS].end(session_id):
        return _refused(404, INVALID_REQUEST, "Unknown or ended session.")
    return web.Response(status=200)


def mount(app: web.Application, settings: BridgeSettings, host: ToolHost) -> None:
    sessions = Sessions()
    app[SESSIONS] = sessions
    app[WRITE_TIMEOUT] = settings.limits.writeTimeoutSeconds
    calls = ToolCalls(host, settings.tools, lambda record: _record(app, record))
    app[DISPATCHER] = Dispatcher(Catalog(host, settings.tools), calls)
    host.on_tools_changed(lambda: sessions.notify_all(LIST_CHANGED))

    async def end_sessions(_: web.Application) -> None:
        sessions.close_all()  # ends the GET streams, which would hold shutdown up

    app.on_shutdown.append(end_sessions)
    app.router.add_post(MCP_PATH, post)
    app.router.add_get(MCP_PATH, stream)
    app.router.add_delete(MCP_PATH, delete)


def _record(app: web.Application, row: ToolCallRow) -> None:
    """Into the usage ledger, when it is on (bridge/usage/): it never raises."""
    ledger = app.get(USAGE_LEDGER)
    if ledger is not None:
        ledger.record_tool_call(row)
