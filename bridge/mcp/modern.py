"""MCP 2026-07-28, the stateless revision, beside the `initialize` handshake: each request
carries its version, client and capabilities in `_meta` (and the version, method and tool name
again in headers, which must match); no session; `server/discover` says what the server
speaks; `subscriptions/listen` is the stream of list changes. A request is modern when its
`_meta` names a protocol version (or it is `server/discover`)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp_types import (
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
)
from mcp_types.jsonrpc import HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from bridge import __version__
from bridge.mcp.dispatch import INSTRUCTIONS, RpcFailure, serialized

SUPPORTED = (*reversed(MODERN_PROTOCOL_VERSIONS), *reversed(HANDSHAKE_PROTOCOL_VERSIONS))
SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO = {"name": "maestro-bridge", "version": __version__}


class ModernFailure(RpcFailure):
    """A modern-era refusal: HTTP 400 (404 for an unknown method), with data."""

    def __init__(self, status: int, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message)
        self.status = status
        self.data = data


def requested_version(method: str | None, params: Mapping[str, Any] | None) -> str | None:
    """The version a modern request names in `_meta`; None for a handshake-era message."""
    meta = (params or {}).get("_meta")
    version = meta.get(PROTOCOL_VERSION_META_KEY) if isinstance(meta, dict) else None
    if isinstance(version, str):
        return version
    if method == "server/discover":
        return ""  # modern, whatever it names: refused below as unsupported
    return None


def client_name(params: Mapping[str, Any] | None) -> str:
    meta = (params or {}).get("_meta") or {}
    info = meta.get(CLIENT_INFO_META_KEY) if isinstance(meta, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else ""


def _header_value(raw: str) -> str:
    """`Mcp-Name` as sent: plain, or `=?base64?...?=` for what a header cannot carry."""
    if raw.startswith("=?base64?") and raw.endswith("?="):
        try:
            return base64.b64decode(raw[9:-2], validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise ModernFailure(400, HEADER_MISMATCH, "Mcp-Name is not valid base64.") from None
    return raw


def check_request(
    version: str, method: str, params: Mapping[str, Any] | None, headers: Mapping[str, str]
) -> None:
    """The version is one this server speaks and the headers mirror the body; else a refusal."""
    if version not in MODERN_PROTOCOL_VERSIONS:
        raise ModernFailure(
            400,
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(SUPPORTED), "requested": version},
        )
    expected = {"MCP-Protocol-Version": version, "Mcp-Method": method}
    if method == "tools/call":
        expected["Mcp-Name"] = str((params or {}).get("name", ""))
    for header, value in expected.items():
        sent = headers.get(header)
        if sent is None:
            raise ModernFailure(400, HEADER_MISMATCH, f"Header mismatch: {header} is missing")
        if (_header_value(sent) if header == "Mcp-Name" else sent) != value:
            raise ModernFailure(
                400,
                HEADER_MISMATCH,
                f"Header mismatch: {header} header value {sent!r} does not match body value "
                f"{value!r}",
            )


def stamped(result: dict[str, Any]) -> dict[str, Any]:
    """A modern result carries the server's identity in `_meta`."""
    meta = dict(result.get("_meta") or {})
    meta[SERVER_INFO_META_KEY] = SERVER_INFO
    return {**result, "_meta": meta}


def discover_result(version: str) -> dict[str, Any]:
    result = types.DiscoverResult(
        supported_versions=list(SUPPORTED),
        capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=True)),
        instructions=INSTRUCTIONS,
    )
    return stamped(serialized("server/discover", version, result))


def acknowledged(listen_id: Any, wants_tools: bool) -> dict[str, Any]:
    """The first message of a `subscriptions/listen` stream: what it will carry."""
    return {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "notifications": {"toolsListChanged": True} if wants_tools else {},
            "_meta": {SUBSCRIPTION_ID_META_KEY: listen_id},
        },
    }


def list_changed(listen_id: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
        "params": {"_meta": {SUBSCRIPTION_ID_META_KEY: listen_id}},
    }
