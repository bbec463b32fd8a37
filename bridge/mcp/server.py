"""Streamable HTTP at /mcp (the MCP specification's transport): POST carries one JSON-RPC
message and gets its answer as JSON, GET opens the session's stream of server notifications
(SSE), DELETE ends the session. The API's key and Host/Origin checks run first (their
middleware), so an MCP client is held to the same rules as an API client."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web
from mcp_types.jsonrpc import (
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    jsonrpc_message_adapter,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

from bridge.core import strict_json
from bridge.core.strict_json import JsonInputError
from bridge.core.tool_host import ToolHost
from bridge.mcp import modern
from bridge.mcp.calls import ToolCalls
from bridge.mcp.catalog import Catalog
from bridge.mcp.dispatch import Dispatcher, RpcFailure, initialize_result, parse_request
from bridge.mcp.sessions import STREAM_QUEUE, Session, Sessions, TooManySessions
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
# The open `subscriptions/listen` streams (MCP 2026-07-28): (the listen request's id, its queue).
Listener = tuple[Any, "asyncio.Queue[dict[str, Any] | None]"]
LISTENERS: web.AppKey[set[Listener]] = web.AppKey("mcp_listeners", set)


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
    version = modern.requested_version(method, params) if method is not None else None
    if version is not None:  # MCP 2026-07-28: no session, everything in the request
        if msg_id is None:
            return web.Response(status=202)  # no notification of this revision is for us
        return await _modern(request, msg_id, str(method), params, version)
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
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(STREAM_QUEUE)
    found.stream = queue
    try:
        return await _pump(request, queue, [])
    finally:
        if found.stream is queue:
            found.stream = None


async def _pump(
    request: web.Request,
    queue: asyncio.Queue[dict[str, Any] | None],
    first: list[dict[str, Any]],
    last: dict[str, Any] | None = None,
) -> web.StreamResponse:
    """An SSE response: `first`, then what comes on `queue` until None (then `last`), with
    keepalive comments between (they also find a client that went away)."""
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        }
    )
    write_timeout = request.app[WRITE_TIMEOUT]
    try:
        await response.prepare(request)
        for opening in first:
            await asyncio.wait_for(response.write(_event(opening)), write_timeout)
        while True:
            try:
                queued = await asyncio.wait_for(queue.get(), STREAM_KEEPALIVE_SECONDS)
            except asyncio.TimeoutError:
                await asyncio.wait_for(response.write(b": keepalive\n\n"), write_timeout)
                continue
            if queued is None:
                if last is not None:
                    await asyncio.wait_for(response.write(_event(last)), write_timeout)
                break
            await asyncio.wait_for(response.write(_event(queued)), write_timeout)
    except (ConnectionError, asyncio.TimeoutError):
        pass
    return response


def _event(message: dict[str, Any]) -> bytes:
    return b"event: message\ndata: " + strict_json.dumps(message).encode() + b"\n\n"


async def _modern(
    request: web.Request, msg_id: Any, method: str, params: dict[str, Any] | None, version: str
) -> web.StreamResponse:
    try:
        modern.check_request(version, method, params, request.headers)
        if method == "server/discover":
            return _json(_reply(msg_id, result=modern.discover_result(version)))
        if method == "subscriptions/listen":
            return await _listen(request, msg_id, params, version)
        client = _client_name(request, modern.client_name(params))
        session = Session("", version, client)  # this request's, gone with it
        result = await request.app[DISPATCHER].request(session, msg_id, method, params)
    except modern.ModernFailure as exc:
        body = _reply(msg_id, code=exc.code, message=exc.message)
        if exc.data is not None:
            body["error"]["data"] = exc.data
        return _json(body, exc.status)
    except RpcFailure as exc:
        status = 404 if exc.code == METHOD_NOT_FOUND else 200
        return _json(_reply(msg_id, code=exc.code, message=exc.message), status)
    return _json(_reply(msg_id, result=modern.stamped(result)))


async def _listen(
    request: web.Request, msg_id: Any, params: dict[str, Any] | None, version: str
) -> web.StreamResponse:
    """`subscriptions/listen`: this request's SSE stream of tool list changes."""
    parse_request("subscriptions/listen", version, params)
    wanted = ((params or {}).get("notifications") or {}).get("toolsListChanged") is True
    listeners = request.app[LISTENERS]
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(STREAM_QUEUE)
    entry = (msg_id, queue)
    if wanted:
        listeners.add(entry)
    closing = _reply(msg_id, result=modern.stamped({"resultType": "complete"}))
    closing["result"]["_meta"][modern.SUBSCRIPTION_ID_META_KEY] = msg_id
    try:
        return await _pump(request, queue, [modern.acknowledged(msg_id, wanted)], closing)
    finally:
        listeners.discard(entry)


async def delete(request: web.Request) -> web.StreamResponse:
    session_id = request.headers.get(SESSION_HEADER)
    if not session_id:
        return _refused(400, INVALID_REQUEST, f"Missing {SESSION_HEADER} header.")
    if not request.app[SESSIONS].end(session_id):
        return _refused(404, INVALID_REQUEST, "Unknown or ended session.")
    return web.Response(status=200)


def mount(app: web.Application, settings: BridgeSettings, host: ToolHost, path: str) -> None:
    """The server's routes at `path` (bridge/mcp/mount.py's MCP_PATH: passed in, so that this
    module does not import the one that imports it only when tools are on)."""
    sessions = Sessions()
    app[SESSIONS] = sessions
    app[WRITE_TIMEOUT] = settings.limits.writeTimeoutSeconds
    calls = ToolCalls(host, settings.tools, lambda record: _record(app, record))
    app[DISPATCHER] = Dispatcher(Catalog(host, settings.tools), calls)
    listeners: set[Listener] = set()
    app[LISTENERS] = listeners

    def tools_changed() -> None:
        sessions.notify_all(LIST_CHANGED)
        for listen_id, queue in listeners:
            _offer(queue, modern.list_changed(listen_id))

    host.on_tools_changed(tools_changed)

    async def end_sessions(_: web.Application) -> None:
        sessions.close_all()  # ends the GET streams, which would hold shutdown up
        for _, queue in listeners:
            _offer(queue, None)

    app.on_shutdown.append(end_sessions)
    app.router.add_post(path, post)
    app.router.add_get(path, stream)
    app.router.add_delete(path, delete)


def _offer(queue: asyncio.Queue[dict[str, Any] | None], message: dict[str, Any] | None) -> None:
    """Queued for a stream; a full queue drops its oldest (a list change means the same
    however often it comes)."""
    if queue.full():
        queue.get_nowait()
    queue.put_nowait(message)


def _record(app: web.Application, row: ToolCallRow) -> None:
    """Into the usage ledger, when it is on (bridge/usage/): it never raises."""
    ledger = app.get(USAGE_LEDGER)
    if ledger is not None:
        ledger.record_tool_call(row)
