"""Messages `tools` and `tool_choice` -> the editor's tool list and tool mode (pure functions).

The editor knows only client tools (name, description, JSON schema), which is what a Messages
tool without `type` (or with `type: "custom"`) is. Anthropic's own tools (`web_search_*`,
`code_execution_*`, `bash_*`, `text_editor_*`, `computer_*`, ...) have no schema the editor
could offer and mostly run on Anthropic's servers: they are dropped with one log line each.

Deferred tools (`defer_loading: true`) are offered as Anthropic's API offers them: only once
the history has loaded them, with a `tool_reference` block naming them (what a client's own
tool search, such as Claude Code's ToolSearch, answers). The editor's models take at most 128
tools per request, so this is what lets a client with many MCP tools through. Anthropic's
server-side tool search (`tool_search_tool_regex_*`, `tool_search_tool_bm25_*`) cannot run in
the editor: with one in the request, deferred tools are offered right away instead (the model
can see them, having no search to run), up to the same limit.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from bridge.core.backend import ChatTool
from bridge.core.errors import invalid_request
from bridge.core.savings_off import off
from bridge.core.tools import first_of_each_name
from bridge.web_search.request import (
    SearchAsk,
    location_of,
    max_uses_of,
    search_available,
    search_tool,
    string_list,
)

log = logging.getLogger(__name__)

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
SERVER_SEARCH_PREFIXES = ("tool_search_tool_regex", "tool_search_tool_bm25")
# `web_search_20250305`, `web_search_20260209`...: run by the bridge when a search service is
# configured (bridge/web_search/), else dropped as the other server tools are.
WEB_SEARCH_PREFIX = "web_search_"


@dataclass
class ToolPlan:
    tools: list[ChatTool]
    mode: Literal["auto", "required"]
    search: SearchAsk | None = None  # the web search tool, which the bridge runs


def web_search_ask(raw: dict[str, Any], param: str) -> SearchAsk:
    """Anthropic's `web_search_*` tool: its limit, domain filters and location."""
    return SearchAsk(
        max_uses=max_uses_of(raw.get("max_uses")),
        allowed_domains=string_list(raw.get("allowed_domains")),
        blocked_domains=string_list(raw.get("blocked_domains")),
        location=location_of(raw.get("user_location")),
        param=param,
    )


def has_server_search(raw_tools: list[Any] | None) -> bool:
    """Whether the request offers Anthropic's server-side tool search."""
    return any(
        isinstance(raw, dict)
        and isinstance(raw.get("type"), str)
        and raw["type"].startswith(SERVER_SEARCH_PREFIXES)
        for raw in raw_tools or []
    )


def _client_tool(raw: Any, param: str, loaded: Collection[str] | None) -> ChatTool | None:
    """One entry of `tools`: a ChatTool, or None for a tool the editor cannot (or may not
    yet) offer. `loaded`: the deferred tools the history has loaded (None: offer them all)."""
    if not isinstance(raw, dict):
        raise invalid_request(f"`{param}` must be an object.", param=param, code="invalid_value")
    kind = raw.get("type")
    if isinstance(kind, str) and kind.startswith(WEB_SEARCH_PREFIX) and search_available():
        return search_tool(web_search_ask(raw, param))
    if kind not in (None, "custom"):
        log.info("Dropping Anthropic tool of type %r: the editor cannot run it", kind)
        return None
    if raw.get("defer_loading") is True and loaded is not None and raw.get("name") not in loaded:
        return None  # not loaded by a tool search yet
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise invalid_request(
            f"`{param}.name` must be a non-empty string.",
            param=f"{param}.name",
            code="invalid_value",
        )
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise invalid_request(
            f"`{param}.description` must be a string.",
            param=f"{param}.description",
            code="invalid_value",
        )
    schema = raw.get("input_schema", EMPTY_SCHEMA)
    if not isinstance(schema, dict):
        raise invalid_request(
            f"`{param}.input_schema` must be a JSON Schema object.",
            param=f"{param}.input_schema",
            code="invalid_value",
        )
    return ChatTool(name=name, description=description or "", inputSchema=schema)


def plan_tools(
    raw_tools: list[Any] | None,
    choice: dict[str, Any] | None,
    loaded: Collection[str] = frozenset(),
) -> ToolPlan:
    """`_tool_plan`, with the web search the bridge runs when the model is offered it."""
    plan = _tool_plan(raw_tools, choice, loaded)
    ask = next(
        (
            web_search_ask(raw, f"tools[{index}]")
            for index, raw in enumerate(raw_tools or [])
            if isinstance(raw, dict)
            and isinstance(raw.get("type"), str)
            and raw["type"].startswith(WEB_SEARCH_PREFIX)
        ),
        None,
    )
    # Only when the model is offered the bridge's search (not a client tool of that name).
    if ask is not None and search_tool(ask) in plan.tools:
        plan.search = ask
    return plan


def _tool_plan(
    raw_tools: list[Any] | None,
    choice: dict[str, Any] | None,
    loaded: Collection[str] = frozenset(),
) -> ToolPlan:
    """Which tools the editor sees, in which mode; a 400 when the choice cannot be met.

    `loaded` names the deferred tools the history has loaded (`blocks.loaded_tool_names`).
    `disable_parallel_tool_use` is accepted and has no effect: the editor has no such option.
    """
    deferred_from = None if has_server_search(raw_tools) or off("deferred_tools") else loaded
    tools = first_of_each_name(
        _client_tool(raw, f"tools[{index}]", deferred_from)
        for index, raw in enumerate(raw_tools or [])
    )
    kind = None if choice is None else choice.get("type")
    if kind in (None, "auto"):
        return ToolPlan(tools, "auto")
    if kind == "none":
        return ToolPlan([], "auto")
    if kind == "any":
        if not tools:
            raise invalid_request(
                "`tool_choice` is `any` but no tool the editor can run was given (Anthropic's "
                "server tools such as web_search cannot run in the editor).",
                param="tool_choice",
                code="tool_not_found",
            )
        return ToolPlan(tools, "required")
    if kind == "tool":
        assert choice is not None  # kind came from it
        name = choice.get("name")
        if not isinstance(name, str) or not name:
            raise invalid_request(
                "`tool_choice.name` is required when `tool_choice.type` is `tool`.",
                param="tool_choice.name",
                code="missing_required_parameter",
            )
        only = [tool for tool in tools if tool.name == name]
        if not only:
            raise invalid_request(
                f"`tool_choice` names the tool {name!r}, which is not among the usable tools.",
                param="tool_choice.name",
                code="tool_not_found",
            )
        # The editor can only require some tool: offering just this one makes it that one.
        return ToolPlan(only, "required")
    raise invalid_request(
        f"Invalid `tool_choice.type` {kind!r}: expected `auto`, `any`, `tool` or `none`.",
        param="tool_choice.type",
        code="invalid_value",
    )
