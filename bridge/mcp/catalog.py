"""The tools MCP clients see: the editor's own (`vscode.lm.tools`) and its language features,
as far as `tools.allow` and `tools.deny` let them through."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from bridge.core.tool_host import ToolHost
from bridge.mcp.language_tools import LANGUAGE_TOOLS, LanguageTool
from bridge.mcp.tool_classes import offered
from bridge.settings import ToolSettings

log = logging.getLogger(__name__)

_NO_INPUT: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class CatalogTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    language: LanguageTool | None  # None: the editor's own tool, called by name


class ToolRefused(Exception):
    """A name no offered tool has: `unknown`, or `denied` by the allow and deny lists."""

    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


class Catalog:
    def __init__(self, host: ToolHost, settings: ToolSettings) -> None:
        self._host = host
        self._allow = settings.allow
        self._deny = settings.deny

    def offered(self, name: str) -> bool:
        return offered(name, self._allow, self._deny)

    async def tools(self) -> list[CatalogTool]:
        found = [
            CatalogTool(tool.name, tool.description, tool.input_schema, tool)
            for tool in LANGUAGE_TOOLS
        ]
        ours = {tool.name for tool in found}
        for tool in await self._host.list_tools():
            if tool.name in ours:
                log.warning("The editor's tool %s is hidden by the bridge's own", tool.name)
                continue
            schema = tool.inputSchema if tool.inputSchema else _NO_INPUT
            if schema.get("type") != "object":  # MCP's inputSchema is always an object's
                schema = {**schema, "type": "object"}
            found.append(CatalogTool(tool.name, tool.description, schema, None))
        return [tool for tool in found if self.offered(tool.name)]

    async def find(self, name: str) -> CatalogTool:
        if not self.offered(name):
            raise ToolRefused(
                "denied",
                f"The tool {name!r} is not offered: the settings tools.allow / tools.deny "
                "(maestroBridge.tools.allow, --tools-allow, --tools-deny) keep it out; by "
                "default only the language tools and the editor's read-only tools are offered "
                "(docs/editor-tools.md).",
            )
        for tool in await self.tools():
            if tool.name == name:
                return tool
        raise ToolRefused(
            "unknown", f"Unknown tool {name!r}: tools/list names the tools there are."
        )
