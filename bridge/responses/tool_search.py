"""Responses' tool search, as far as the editor can take part in it (pure functions).

A `tool_search` tool with `execution: "client"` (Codex sends one) is searched by the client:
the editor's model sees it as a function, its calls go back as `tool_search_call` items, and
the client answers with a `tool_search_output` item holding the definitions of the tools it
found. Those tools are offered from then on; deferred tools (`defer_loading: true`, on a
function or on a function inside a namespace) are offered only once such an output loaded
them, as OpenAI does. The editor's models take at most 128 tools per request: this is how a
client with many tools stays under that.

A hosted `tool_search` (no `execution`, or `"server"`) runs on OpenAI's servers, which the
editor cannot reach: it is dropped, and deferred tools are then offered right away (the model
sees them, having no search to run), up to the same limit.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from bridge.core.backend import ChatTool
from bridge.responses.wire import CreateBody, ToolSearchOutputItem

SEARCH_TOOL_NAME = "tool_search"
DEFAULT_DESCRIPTION = (
    "Search the tools that are not loaded yet. The tools it finds can be called from the next "
    "turn on."
)
DEFAULT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "What to search for."}},
    "required": ["query"],
}


class ToolSearchTool(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["tool_search"]
    execution: str | None = None
    description: str | None = None
    parameters: dict[str, Any] | None = None


def is_client_search(raw: Any) -> bool:
    """Whether a `tools` entry is a tool search the client runs itself."""
    return (
        isinstance(raw, dict)
        and raw.get("type") == "tool_search"
        and (raw.get("execution") == "client")
    )


def offers_client_search(raw_tools: list[Any] | None) -> bool:
    return any(is_client_search(raw) for raw in raw_tools or [])


def search_chat_tool(tool: ToolSearchTool) -> ChatTool:
    """The client's tool search as the editor's model sees it: a plain function."""
    return ChatTool(
        name=SEARCH_TOOL_NAME,
        description=tool.description or DEFAULT_DESCRIPTION,
        inputSchema=tool.parameters or DEFAULT_PARAMETERS,
    )


def search_output_groups(request: CreateBody, kinds: set[type]) -> list[tuple[str, list[Any]]]:
    """The tools each `tool_search_output` input item loaded, each list with its param
    (`kinds`: the input items' types, looked at once for the whole request)."""
    items = request.input
    if ToolSearchOutputItem not in kinds or not isinstance(items, list):
        return []
    return [
        (f"input[{index}].tools", list(item.tools))
        for index, item in enumerate(items)
        if type(item) is ToolSearchOutputItem
    ]


def loaded_note(item: ToolSearchOutputItem) -> str:
    """A tool search's answer as text for the model: which tools it loaded."""
    names: list[str] = []
    for tool in item.tools:
        if tool.get("type") == "namespace":
            inner = [t.get("name") for t in tool.get("tools") or [] if isinstance(t, dict)]
            names.extend(f"{tool.get('name')}__{name}" for name in inner if isinstance(name, str))
        elif isinstance(tool.get("name"), str):
            names.append(tool["name"])
    if not names:
        return "The tool search found no tools."
    return f"Tools loaded (they can be called now): {', '.join(names)}"
