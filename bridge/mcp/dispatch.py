"""The MCP methods a session answers, on the official SDK's types and per-version checks
(`mcp_types.methods`): initialize and its version negotiation, ping, tools/list, tools/call,
and the client's notifications."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import mcp_types as types
from mcp_types import methods
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from bridge import __version__
from bridge.core.backend import EditorError
from bridge.mcp.calls import ToolCalls
from bridge.mcp.catalog import Catalog, ToolRefused
from bridge.mcp.sessions import Session

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Tools of the editor the user works in (VS Code): its language servers' diagnostics, "
    "definitions, references, symbols and hovers (editor_*), and the tools its extensions "
    "contribute. Paths are relative to the workspace folder; lines and columns are 1-based."
)


READ_ONLY = types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


class RpcFailure(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def negotiate(requested: object) -> str:
    """The version to speak: the client's when this server knows it, else the latest one
    reachable by `initialize` (the client then decides whether it can go on)."""
    if isinstance(requested, str) and requested in HANDSHAKE_PROTOCOL_VERSIONS:
        return requested
    return LATEST_HANDSHAKE_VERSION


def parse_request(method: str, version: str, params: dict[str, Any] | None) -> Any:
    try:
        return methods.parse_client_request(method, version, params)
    except KeyError:
        raise RpcFailure(METHOD_NOT_FOUND, f"Method not found: {method}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RpcFailure(
            INVALID_PARAMS, f"Invalid params for {method}: {where}: {first['msg']}"
        ) from None


def initialize_result(params: dict[str, Any] | None) -> tuple[str, str, dict[str, Any]]:
    """(negotiated version, the client's name, the result) of an initialize request."""
    version = negotiate((params or {}).get("protocolVersion"))
    request = parse_request("initialize", version, params)
    result = types.InitializeResult(
        protocol_version=version,
        capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=True)),
        server_info=types.Implementation(name="maestro-bridge", version=__version__),
        instructions=INSTRUCTIONS,
    )
    return version, request.params.client_info.name, serialized("initialize", version, result)


def serialized(method: str, version: str, result: types.Result) -> dict[str, Any]:
    data = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    return methods.serialize_server_result(method, version, data)


class Dispatcher:
    def __init__(self, catalog: Catalog, calls: ToolCalls) -> None:
        self._catalog = catalog
        self._calls = calls

    async def request(
        self, session: Session, msg_id: Any, method: str, params: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The JSON-RPC result of one request; RpcFailure for an error response."""
        parsed = parse_request(method, session.version, params)
        if method == "ping":
            return {}
        if method == "tools/list":
            if (params or {}).get("cursor") is not None:  # this server never hands one out
                raise RpcFailure(INVALID_PARAMS, "Unknown cursor: tools/list has one page.")
            tools = [
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.input_schema,
                    # The language tools only read; agents (Codex) then run them unasked.
                    # An editor tool says nothing of the kind in vscode.lm.tools.
                    annotations=READ_ONLY if t.language is not None else None,
                )
                for t in await self._editor(self._catalog.tools())
            ]
            return serialized(method, session.version, types.ListToolsResult(tools=tools))
        if method == "tools/call":
            return await self._call(session, msg_id, parsed.params)
        raise RpcFailure(
            METHOD_NOT_FOUND, f"Method not found: {method} (this server has tools only)"
        )

    async def _call(self, session: Session, msg_id: Any, params: Any) -> dict[str, Any]:
        try:
            tool = await self._editor(self._catalog.find(params.name))
        except ToolRefused as exc:
            self._calls.refused(params.name, session.client, exc.outcome, str(exc))
            raise RpcFailure(INVALID_PARAMS, str(exc)) from None
        if msg_id in session.calls:  # `notifications/cancelled` could not tell the two apart
            raise RpcFailure(INVALID_REQUEST, f"A call with id {msg_id!r} is still running.")
        # Its own task, so `notifications/cancelled` can cancel it without ending this request.
        call = asyncio.ensure_future(self._calls.call(tool, params.arguments or {}, session.client))
        session.calls[msg_id] = call
        try:
            result = await call
        except asyncio.CancelledError:
            if call.cancelled() and not _current_cancelling():
                raise RpcFailure(INTERNAL_ERROR, "The call was cancelled by the client.") from None
            raise
        finally:
            session.calls.pop(msg_id, None)
        return serialized("tools/call", session.version, result)

    async def _editor(self, pending: Any) -> Any:
        """The editor's answer; an editor that failed or went away is a JSON-RPC error."""
        try:
            return await pending
        except EditorError as exc:
            raise RpcFailure(
                INTERNAL_ERROR, f"The editor could not answer: {exc.message}"
            ) from None

    def notification(self, session: Session, method: str, params: dict[str, Any] | None) -> None:
        if method == "notifications/cancelled":
            target = (params or {}).get("requestId")
            call = session.calls.get(target)
            if call is not None:
                log.info("The client cancelled a tool call")
                call.cancel()


def _current_cancelling() -> bool:
    """Whether this task itself is being cancelled (the HTTP client went away)."""
    task = asyncio.current_task()
    return task is not None and getattr(task, "cancelling", lambda: 0)() > 0
