"""Chat Completions `tools` and `tool_choice` -> the editor's tool list and tool mode (pure).

The editor knows only function tools (name, description, JSON schema). A `custom` tool (free
text input, perhaps a grammar) has no schema: it is offered with one string property `input`,
as the Responses dialect does. `tool_choice`:
- `none`: no tools are offered; `auto` (or absent): all, the model chooses;
- `required`: all, the model must call one;
- `{"type": "function", "function": {"name"}}` (or `custom`): only that tool, required;
- `{"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}`: only those, in that mode.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from bridge.core.backend import ChatTool
from bridge.core.errors import ApiError, invalid_request
from bridge.core.tools import first_of_each_name

log = logging.getLogger(__name__)

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
CUSTOM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
}


@dataclass
class ToolPlan:
    tools: list[ChatTool]
    mode: Literal["auto", "required"]


def _bad(param: str, message: str, code: str = "invalid_value") -> ApiError:
    return invalid_request(message, param=param, code=code)


def _object(raw: Any, param: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _bad(param, f"`{param}` must be an object.")
    return raw


def _name(raw: dict[str, Any], param: str) -> str:
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise _bad(f"{param}.name", f"`{param}.name` must be a non-empty string.")
    return name


def _description(raw: dict[str, Any], param: str) -> str:
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise _bad(f"{param}.description", f"`{param}.description` must be a string.")
    return description or ""


def _tool(raw: Any, param: str) -> ChatTool | None:
    """One entry of `tools`: a ChatTool, or None for a kind the editor cannot offer."""
    tool = _object(raw, param)
    kind = tool.get("type", "function")
    if kind not in ("function", "custom"):
        log.info("Dropping tool of type %r at `%s`: the editor cannot run it", kind, param)
        return None
    inner_param = f"{param}.{kind}"
    if tool.get(kind) is None:
        raise _bad(inner_param, f"`{inner_param}` is required.", "missing_required_parameter")
    inner = _object(tool.get(kind), inner_param)
    name, description = _name(inner, inner_param), _description(inner, inner_param)
    if kind == "custom":
        return ChatTool(name=name, description=description, inputSchema=CUSTOM_SCHEMA)
    schema = inner.get("parameters")
    if schema is None:
        schema = EMPTY_SCHEMA
    if not isinstance(schema, dict):
        raise _bad(
            f"{inner_param}.parameters", f"`{inner_param}.parameters` must be a JSON Schema object."
        )
    return ChatTool(name=name, description=description, inputSchema=schema)


def _named(tools: list[ChatTool], names: list[str], param: str) -> list[ChatTool]:
    missing = [name for name in names if name not in {tool.name for tool in tools}]
    if missing:
        raise _bad(
            param,
            f"`{param}` names the tool {missing[0]!r}, which is not among `tools`.",
            "tool_not_found",
        )
    return [tool for tool in tools if tool.name in names]


def _chosen_name(choice: dict[str, Any], param: str) -> str:
    """The tool a `{"type": "function" | "custom", ...}` choice names."""
    kind = choice.get("type")
    assert isinstance(kind, str)
    inner = choice.get(kind)
    if inner is None and isinstance(choice.get("name"), str):
        return str(choice["name"])  # the flat shape the Responses API uses
    if inner is None:
        raise _bad(
            f"{param}.{kind}", f"`{param}.{kind}` is required.", "missing_required_parameter"
        )
    return _name(_object(inner, f"{param}.{kind}"), f"{param}.{kind}")


def _allowed(tools: list[ChatTool], choice: dict[str, Any], param: str) -> ToolPlan:
    allowed = _object(choice.get("allowed_tools"), f"{param}.allowed_tools")
    mode = allowed.get("mode", "auto")
    if mode not in ("auto", "required"):
        raise _bad(
            f"{param}.allowed_tools.mode",
            f"Invalid `{param}.allowed_tools.mode` {mode!r}: expected `auto` or `required`.",
        )
    listed = allowed.get("tools")
    if not isinstance(listed, list):
        raise _bad(f"{param}.allowed_tools.tools", "`allowed_tools.tools` must be an array.")
    names = []
    for index, entry in enumerate(listed):
        where = f"{param}.allowed_tools.tools[{index}]"
        entry = _object(entry, where)
        if entry.get("type") not in ("function", "custom"):
            raise _bad(f"{where}.type", f"`{where}.type` must be `function` or `custom`.")
        names.append(_chosen_name(entry, where))
    return _required_or_auto(_named(tools, names, f"{param}.allowed_tools.tools"), mode, param)


def _required_or_auto(tools: list[ChatTool], mode: str, param: str) -> ToolPlan:
    if mode == "required" and not tools:
        raise _bad(
            param, f"`{param}` requires a tool call but no usable tool was given.", "tool_not_found"
        )
    return ToolPlan(tools, "required" if mode == "required" else "auto")


def plan_tools(raw_tools: list[Any] | None, choice: str | dict[str, Any] | None) -> ToolPlan:
    """Which tools the editor sees, in which mode; a 400 when the choice cannot be met."""
    tools = first_of_each_name(
        _tool(raw, f"tools[{index}]") for index, raw in enumerate(raw_tools or [])
    )
    param = "tool_choice"
    if choice is None or choice == "auto":
        return ToolPlan(tools, "auto")
    if choice == "none":
        return ToolPlan([], "auto")
    if choice == "required":
        return _required_or_auto(tools, "required", param)
    if isinstance(choice, str):
        raise _bad(
            param,
            f"Invalid `tool_choice` {choice!r}: expected `none`, `auto`, `required` or an object.",
        )
    kind = choice.get("type")
    if kind in ("function", "custom"):
        only = _named(tools, [_chosen_name(choice, param)], f"{param}.{kind}.name")
        # The editor can only require some tool: offering just this one makes it that one.
        return ToolPlan(only, "required")
    if kind == "allowed_tools":
        return _allowed(tools, choice, param)
    raise _bad(
        f"{param}.type",
        f"Invalid `tool_choice.type` {kind!r}: expected `function`, `custom` or `allowed_tools`.",
    )
