"""`tools` and `toolConfig` -> the editor's tool list and tool mode (pure functions).

The editor knows only function tools (name, description, JSON Schema). A function declaration
gives its parameters as Google's `Schema` (`parameters`, converted by schema.py) or as a JSON
Schema (`parametersJsonSchema`, as Gemini CLI sends); both at once is a 400, as at Google.
Google's hosted tools (`googleSearch`, `codeExecution`, `urlContext`...) run on Google's side:
the bridge cannot run them, so they are left out (logged at debug). `functionCallingConfig`:
- `AUTO` (or none) and `VALIDATED`: the tools, the model chooses whether to call one;
- `ANY`: the model must call one; `NONE`: no tools are offered;
- `allowedFunctionNames`: only those tools are offered.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from bridge.core.backend import ChatTool
from bridge.core.tools import first_of_each_name
from bridge.gemini.fields import bad_field, field_of, key_in
from bridge.gemini.schema import json_schema_with_lower_types, openapi_to_json_schema

log = logging.getLogger(__name__)

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
MODES = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")
CONFIG = "toolConfig.functionCallingConfig"


@dataclass
class ToolPlan:
    tools: list[ChatTool]
    mode: Literal["auto", "required"]


def _object(raw: Any, param: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise bad_field(param, f"`{param}` must be an object.")
    return raw


def _string(raw: dict[str, Any], name: str, param: str, required: bool) -> str:
    value = field_of(raw, name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        adjective = "a non-empty" if required else "a"
        raise bad_field(f"{param}.{name}", f"`{param}.{name}` must be {adjective} string.")
    return value


def _parameters(declaration: dict[str, Any], param: str) -> dict[str, Any]:
    openapi_key = key_in(declaration, "parameters")
    json_key = key_in(declaration, "parametersJsonSchema")
    openapi = declaration.get(openapi_key) if openapi_key else None
    plain = declaration.get(json_key) if json_key else None
    if openapi is not None and plain is not None:
        raise bad_field(
            param,
            f"`{param}` may give `parameters` or `parametersJsonSchema`, not both.",
        )
    if openapi is not None:
        return openapi_to_json_schema(openapi, f"{param}.parameters")
    if plain is None:
        return EMPTY_SCHEMA
    if not isinstance(plain, dict):
        raise bad_field(
            f"{param}.parametersJsonSchema",
            f"`{param}.parametersJsonSchema` must be a JSON Schema object.",
        )
    schema = json_schema_with_lower_types(plain, f"{param}.parametersJsonSchema")
    assert isinstance(schema, dict)
    return schema


def _declaration(raw: Any, param: str) -> ChatTool:
    declaration = _object(raw, param)
    return ChatTool(
        name=_string(declaration, "name", param, required=True),
        description=_string(declaration, "description", param, required=False),
        inputSchema=_parameters(declaration, param),
    )


def _tool(raw: Any, param: str) -> list[ChatTool | None]:
    """One entry of `tools`: its function declarations (a hosted tool gives none)."""
    tool = _object(raw, param)
    key = key_in(tool, "functionDeclarations")
    hosted = [str(k) for k in tool if k != key]
    if hosted:
        log.debug("Leaving out hosted tools at `%s` (Google runs them): %s", param, hosted[:10])
    declarations = tool.get(key) if key else None
    if declarations is None:
        return []
    where = f"{param}.functionDeclarations"
    if not isinstance(declarations, list):
        raise bad_field(where, f"`{where}` must be an array.")
    return [_declaration(d, f"{where}[{index}]") for index, d in enumerate(declarations)]


def declared_tools(raw_tools: list[Any] | None) -> list[ChatTool]:
    """Every function declared in `tools`, the first of each name."""
    found: list[ChatTool | None] = []
    for index, raw in enumerate(raw_tools or []):
        found.extend(_tool(raw, f"tools[{index}]"))
    return first_of_each_name(found)


def _allowed(tools: list[ChatTool], names: Any) -> list[ChatTool]:
    param = f"{CONFIG}.allowedFunctionNames"
    if names is None:
        return tools
    if not isinstance(names, list):
        raise bad_field(param, f"`{param}` must be an array of function names.")
    offered = {tool.name for tool in tools}
    for index, name in enumerate(names):
        if not isinstance(name, str) or name not in offered:
            raise bad_field(
                f"{param}[{index}]",
                f"`{param}[{index}]` names the function {name!r}, which `tools` does not declare.",
                "tool_not_found",
            )
    return [tool for tool in tools if tool.name in set(names)]


def plan_tools(raw_tools: list[Any] | None, tool_config: dict[str, Any] | None) -> ToolPlan:
    """Which tools the editor sees, in which mode; a 400 when the config cannot be met."""
    tools = declared_tools(raw_tools)
    config = field_of(tool_config or {}, "functionCallingConfig")
    if config is None:
        return ToolPlan(tools, "auto")
    config = _object(config, CONFIG)
    mode = field_of(config, "mode") or "AUTO"
    if not isinstance(mode, str) or mode.upper() not in MODES:
        raise bad_field(
            f"{CONFIG}.mode",
            f"Invalid value for `{CONFIG}.mode`: expected one of {', '.join(MODES)}.",
        )
    mode = mode.upper()
    if mode == "NONE":
        return ToolPlan([], "auto")
    tools = _allowed(tools, field_of(config, "allowedFunctionNames"))
    if mode != "ANY":
        return ToolPlan(tools, "auto")
    if not tools:
        raise bad_field(
            f"{CONFIG}.mode",
            f"`{CONFIG}.mode` ANY requires a function call, but no function is declared.",
            "tool_not_found",
        )
    return ToolPlan(tools, "required")
