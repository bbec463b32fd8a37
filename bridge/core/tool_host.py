"""What the MCP server needs from the editor: its tools, a way to call them, and its language
features (docs/protocol.md, "Tools and language features")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from bridge.core.backend import DataPart, TextPart


class ToolInfo(BaseModel):
    """A tool of `vscode.lm.tools`, as the editor lists it."""

    model_config = ConfigDict(extra="ignore")
    name: str
    description: str = ""
    inputSchema: dict[str, Any] | None = None
    tags: list[str] = Field(default_factory=list)


ToolContent = list[TextPart | DataPart]


class ToolHost(Protocol):
    """The editor's side; raises bridge.core.backend.EditorError when the editor fails."""

    async def list_tools(self) -> list[ToolInfo]: ...

    async def invoke_tool(self, name: str, arguments: dict[str, Any]) -> ToolContent:
        """The tool's result parts; cancelling the awaiting task cancels the call."""
        ...

    async def language(self, feature: str, params: dict[str, Any]) -> dict[str, Any]: ...

    def on_tools_changed(self, listener: Callable[[], None]) -> None:
        """`listener` runs each time the editor says its tool list changed."""
        ...
