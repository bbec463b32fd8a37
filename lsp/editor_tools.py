"""The editor's tools and language features over JSON-RPC (docs/protocol.md, "Tools and
language features"): the MCP server's ToolHost (bridge/core/tool_host.py)."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

import msgspec
from pydantic import TypeAdapter, ValidationError

from bridge.core.backend import DataPart, EditorError, TextPart
from bridge.core.tool_host import ToolContent, ToolInfo
from lsp import rpc
from lsp.chat_json import params_json
from lsp.editor_backend import EditorBackend, editor_error

log = logging.getLogger(__name__)

_TOOLS: TypeAdapter[list[ToolInfo]] = TypeAdapter(list[ToolInfo])


class EditorToolHost:
    def __init__(self, backend: EditorBackend) -> None:
        self._backend = backend
        self._protocol = backend.protocol
        self._ids = itertools.count(1)
        self._tools: list[ToolInfo] | None = None
        self._listeners: list[Callable[[], None]] = []

    def on_tools_changed(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def tools_changed(self) -> None:
        """`maestro/toolsChanged` from the editor."""
        self._tools = None
        for listener in self._listeners:
            listener()

    async def list_tools(self) -> list[ToolInfo]:
        if self._tools is None:
            result = await self._backend.request(rpc.TOOLS, None)
            try:
                self._tools = _TOOLS.validate_python(result["tools"])
            except (ValidationError, TypeError, KeyError) as exc:
                raise EditorError(
                    "Other", f"The editor sent a malformed tool list: {exc}"
                ) from None
        return self._tools

    async def language(self, feature: str, params: dict[str, Any]) -> dict[str, Any]:
        result = await self._backend.request(rpc.LANGUAGE, {"feature": feature, **params})
        if not isinstance(result, dict):
            raise EditorError("Other", f"The editor sent a malformed {feature} answer.")
        return result

    async def invoke_tool(self, name: str, arguments: dict[str, Any]) -> ToolContent:
        """No timeout of its own (the MCP server bounds the call); a cancelled call is
        cancelled in the editor too."""
        self._backend.check_alive()
        invocation = f"tool-{next(self._ids)}"
        params = {"invocationId": invocation, "name": name, "input": arguments}
        try:
            sent = self._protocol.send_request_json(
                rpc.INVOKE_TOOL, invocation, params_json(params)
            )
        except rpc.UnsendableMessage as exc:  # nothing was written: nothing to cancel
            self._backend.forget(invocation)
            raise editor_error(exc) from None
        try:
            result = await asyncio.wrap_future(sent)
        except asyncio.CancelledError:  # the client went away, or the call timed out
            self._backend.cancel_request(invocation, sent)
            raise
        except Exception as exc:
            raise editor_error(exc) from None
        finally:
            self._backend.forget(invocation)
        try:
            return msgspec.convert(result["content"], list[TextPart | DataPart])
        except (msgspec.ValidationError, TypeError, KeyError) as exc:
            raise EditorError("Other", f"The editor sent a malformed tool result: {exc}") from None
