"""One `tools/call`: arguments checked against the tool's schema, the editor asked within the
timeout (cancelled with the client), the result converted and bounded, the call logged and
recorded."""

from __future__ import annotations

import asyncio
import base64
import logging
import time
from collections.abc import Callable
from typing import Any

import mcp_types as types

from bridge.core.backend import DataPart, EditorError, TextPart
from bridge.core.schema_check import SafeSchema, Unchecked
from bridge.core.tool_host import ToolContent, ToolHost
from bridge.mcp import language_tools
from bridge.mcp.catalog import CatalogTool
from bridge.mcp.workspace_paths import PathError
from bridge.settings import ToolSettings
from bridge.usage.rows import ToolCallRow

log = logging.getLogger(__name__)

# Checking a client's arguments against a tool's schema: bounded (bridge/core/schema_check.py).
SCHEMA_CHECK_SECONDS = 1.0

Content = types.TextContent | types.ImageContent


class ToolCalls:
    def __init__(
        self, host: ToolHost, settings: ToolSettings, record: Callable[[ToolCallRow], None]
    ) -> None:
        self._host = host
        self._settings = settings
        self._record = record

    async def call(
        self, tool: CatalogTool, arguments: dict[str, Any], client: str
    ) -> types.CallToolResult:
        started, clock = time.time(), time.monotonic()
        outcome, error = "ok", None
        content: list[Content] = []
        truncated = False
        try:
            problem = await _argument_problem(tool.input_schema, arguments)
            if problem is not None:
                outcome, error = "invalid", f"Invalid arguments for {tool.name}: {problem}"
                return _failed(error)
            try:
                parts = await asyncio.wait_for(
                    self._run(tool, arguments), self._settings.timeoutSeconds
                )
            except asyncio.TimeoutError:
                outcome = "timeout"
                error = (
                    f"The tool {tool.name} did not finish within "
                    f"{self._settings.timeoutSeconds:g} s (tools.timeoutSeconds) and was cancelled."
                )
                return _failed(error)
            except PathError as exc:
                outcome, error = "invalid", str(exc)
                return _failed(error)
            except EditorError as exc:
                outcome, error = "error", exc.message or f"The tool {tool.name} failed."
                return _failed(error)
            content, truncated = bounded(parts, self._settings.maxResultChars)
            return types.CallToolResult(content=list(content))
        except asyncio.CancelledError:
            outcome, error = "cancelled", "The client went away."
            raise
        finally:
            duration = (time.monotonic() - clock) * 1000
            chars = sum(
                len(c.text) if isinstance(c, types.TextContent) else len(c.data) for c in content
            )
            log.info("Tool %s for %s: %s in %.0f ms", tool.name, client, outcome, duration)
            self._record(
                ToolCallRow(started, client, tool.name, duration, outcome, error, chars, truncated)
            )

    def refused(self, name: str, client: str, outcome: str, why: str) -> None:
        """A call of a tool that is not offered (`unknown`, `denied`): logged and recorded."""
        log.info("Tool %s for %s: %s", name, client, outcome)
        self._record(ToolCallRow(time.time(), client, name, 0.0, outcome, why, 0, False))

    async def _run(self, tool: CatalogTool, arguments: dict[str, Any]) -> ToolContent:
        # Logged as the editor is asked, not when the call ends: a call that hangs shows here.
        log.debug("Tool %s: asking the editor, arguments %s", tool.name, arguments)
        if tool.language is not None:
            return [TextPart(value=await language_tools.run(self._host, tool.language, arguments))]
        return await self._host.invoke_tool(tool.name, arguments)


def _failed(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


async def _argument_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """Why the arguments do not fit the tool's schema, or None (also when the schema cannot be
    checked: the tool then judges its input itself)."""

    def check() -> str | None:
        try:
            error = SafeSchema(schema).first_error(
                arguments, time.monotonic() + SCHEMA_CHECK_SECONDS
            )
        except Unchecked:
            return None
        except Exception:  # a schema jsonschema cannot use: nothing to check against
            log.debug("Tool schema could not be used to check arguments", exc_info=True)
            return None
        if error is None:
            return None
        where = "/".join(str(p) for p in error.absolute_path)
        return f"{error.message}" + (f" (at {where})" if where else "")

    return await asyncio.to_thread(check)


_TEXT_TYPES = ("text/", "application/json", "application/xml")


def _content(part: TextPart | DataPart) -> Content:
    if isinstance(part, TextPart):
        return types.TextContent(type="text", text=part.value)
    mime = part.mimeType.lower()
    if mime.startswith("image/"):
        return types.ImageContent(type="image", data=part.data, mime_type=part.mimeType)
    if mime.startswith(_TEXT_TYPES) or mime.endswith(("+json", "+xml")):
        try:
            return types.TextContent(type="text", text=base64.b64decode(part.data).decode())
        except (ValueError, UnicodeDecodeError):
            pass
    return types.TextContent(
        type="text", text=f"[{len(part.data) * 3 // 4} bytes of {part.mimeType} not shown]"
    )


def bounded(parts: ToolContent, limit: int) -> tuple[list[Content], bool]:
    """The parts as MCP content, their text cut at `limit` characters in all with a note
    saying so; data (images) kept whole unless it alone is over the limit."""
    out: list[Content] = []
    left, total, cut = limit, 0, False
    for part in parts:
        item = _content(part)
        if isinstance(item, types.TextContent):
            total += len(item.text)
            if len(item.text) > left:
                cut = True
                if left:
                    out.append(types.TextContent(type="text", text=item.text[:left]))
                left = 0
                continue
            left -= len(item.text)
        elif len(item.data) > limit:
            cut = True
            total += len(item.data)
            continue
        out.append(item)
    if cut:
        out.append(
            types.TextContent(
                type="text",
                text=f"[Maestro Bridge cut this result: it was {total} characters, over the "
                f"limit of {limit} (tools.maxResultChars).]",
            )
        )
    return out, cut
