"""`/mcp` on the bridge's app: the MCP server when tools are on, else a clear 404.

The server itself (bridge/mcp/server.py) is imported only when tools are on: the MCP SDK's
types take about half a second to import, which a bridge without tools should not pay.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bridge.core.errors import ApiError
from bridge.core.tool_host import ToolHost
from bridge.http.error_shapes import register
from bridge.settings import BridgeSettings

MCP_PATH = "/mcp"

# JSON-RPC's "server error" code for failures that are the HTTP layer's (a key, a Host, an
# unknown path): MCP clients read the HTTP status; the body says why in JSON-RPC's own shape.
HTTP_ERROR_CODE = -32000


def jsonrpc_error_body(error: ApiError) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": HTTP_ERROR_CODE,
            "message": error.message,
            "data": {"status": error.status, "code": error.code},
        },
    }


async def tools_off(request: web.Request) -> web.StreamResponse:
    raise ApiError(
        404,
        "The editor's tools are off. Start the bridge with `maestro-bridge serve --tools`, or "
        "turn on the VS Code setting maestroBridge.tools.enable (docs/editor-tools.md).",
        code="tools_off",
    )


def mount(app: web.Application, settings: BridgeSettings, host: ToolHost | None) -> None:
    register(app, (MCP_PATH,), jsonrpc_error_body)
    if not settings.tools.enable or host is None:
        app.router.add_route("*", MCP_PATH, tools_off)
        return
    from bridge.mcp import key_guard

    if key_guard.unguarded(settings):
        app.router.add_route("*", MCP_PATH, key_guard.tools_need_a_key)
        return
    from bridge.mcp import server

    server.mount(app, settings, host, MCP_PATH)
