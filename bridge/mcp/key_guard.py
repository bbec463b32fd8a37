"""No key, no tools: `/mcp` is refused when tools are on but the bridge has no API key, unless
the user turned the key off on purpose (`tools.requireKey: false`, `serve --tools --no-key`),
which is logged as a warning. Any local process can reach 127.0.0.1, and a tool can run
commands or write files (docs/security.md)."""

from __future__ import annotations

import logging

from aiohttp import web

from bridge.core.errors import ApiError
from bridge.settings import BridgeSettings

log = logging.getLogger(__name__)

NO_KEY_WARNING = (
    "Editor tools are served WITHOUT an API key (tools.requireKey is false): any process on "
    "this machine can list and call them at /mcp"
)


async def tools_need_a_key(request: web.Request) -> web.StreamResponse:
    raise ApiError(
        401,
        "The editor's tools need an API key and the bridge has none: set apiKey (VS Code makes "
        "one itself; `maestro-bridge serve --tools` uses its key file), or turn the key off on "
        "purpose with tools.requireKey false (docs/security.md).",
        type="authentication_error",
        code="tools_need_key",
    )


def unguarded(settings: BridgeSettings) -> bool:
    """True when /mcp must refuse everything: tools on, a key required, none set."""
    if settings.apiKey:
        return False
    if settings.tools.requireKey:
        log.warning("Editor tools are on but no API key is set: /mcp refuses every request")
        return True
    log.warning(NO_KEY_WARNING)
    return False
