"""Responses tools and `tool_choice` -> the editor's tool list and tool mode (pure functions).

The editor knows only function tools (name, description, JSON schema). So:
- `function` tools pass through;
- `custom` tools (Codex's freeform `apply_patch`) become functions taking `{input: string}`,
  and the model's calls are turned back into `custom_tool_call` items;
- `namespace` tools are flattened to `<namespace>__<name>` and mapped back;
- hosted tools (web search, code interpreter, ...) run on OpenAI's servers, which the editor
  cannot reach: they are dropped with one log line each.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bridge.backend import ChatTool
from bridge.errors import invalid_request

log = logging.getLogger(__name__)

HOSTED_TOOL_PREFIXES = (
    "web_search",
    "file_search",
    "code_interpreter",
    "computer_use",
    "computer",
    "image_generation",
    "mcp",
    "local_shell",
    "shell",
    "tool_search",
    "apply_patch",
)

NAMESPACE_SEPARATOR = "__"


class _Tool(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    description: str | None = None


class FunctionTool(_Tool):
    type: Literal["function"]
    parameters: dict[str, Any] | None = None
    strict: bool | None = None


class CustomTool(_Tool):
    type: Literal["custom"]
    format: dict[str, Any] | None = None


class NamespaceTool(_Tool):
    type: Literal["namespace"]
    tools: list[dict[str, Any]] = Field(default_factory=list)


@dataclass(frozen=True)
class ToolTarget:
    """What a tool call the editor reports under a flat name stands for."""

    kind: Literal["function", "custom"]
    name: str
    namespace: str | None = None


@dataclass
class ToolPlan:
    tools: list[ChatTool]
    mode: Literal["auto", "required"]
    targets: dict[str, ToolTarget]
    echo: list[dict[str, Any]]  # function tools, as the Response object lists them
    choice_echo: str | dict[str, Any]


CUSTOM_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "The raw input for the tool."}},
    "required": ["input"],
    "additionalProperties": False,
}


def _custom_description(tool: CustomTool) -> str:
    text = tool.description or ""
    fmt = tool.format or {}
    if fmt.get("type") == "grammar" and fmt.get("definition"):
        # The model must produce text in this grammar; the editor has no other way to say so.
        text += (
            f"\n\nPut the raw tool input (not JSON) in `input`. It must follow this "
            f"{fmt.get('syntax', '')} grammar:\n{fmt['definition']}"
        )
    return text


def _parse_tool(
    raw: dict[str, Any], index: str
) -> FunctionTool | CustomTool | NamespaceTool | None:
    kind = raw.get("type")
    model: type[FunctionTool] | type[CustomTool] | type[NamespaceTool]
    if kind == "function":
        model = FunctionTool
    elif kind == "custom":
        model = CustomTool
    elif kind == "namespace":
        model = NamespaceTool
    else:
        if isinstance(kind, str) and kind.startswith(HOSTED_TOOL_PREFIXES):
            log.info("Dropping hosted tool %r: the editor cannot run it", kind)
        else:
            log.info("Dropping tool of unknown type %r", kind)
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise invalid_request(
            f"Invalid tool definition at `{index}.{where}`: {err['msg']}.",
            param=f"{index}.{where}",
            code="invalid_value",
        ) from None


def _flatten(
    raw_tools: list[dict[str, Any]],
) -> list[tuple[str, ChatTool, ToolTarget, dict[str, Any] | None]]:
    found: list[tuple[str, ChatTool, ToolTarget, dict[str, Any] | None]] = []

    def add(tool: FunctionTool | CustomTool, namespace: str | None) -> None:
        flat = f"{namespace}{NAMESPACE_SEPARATOR}{tool.name}" if namespace else tool.name
        if isinstance(tool, FunctionTool):
            chat = ChatTool(
                name=flat,
                description=tool.description or "",
                inputSchema=tool.parameters or {"type": "object", "properties": {}},
            )
            echo = (
                None
                if namespace
                else {
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "strict": tool.strict,
                }
            )
            found.append((flat, chat, ToolTarget("function", tool.name, namespace), echo))
        else:
            chat = ChatTool(
                name=flat, description=_custom_description(tool), inputSchema=CUSTOM_INPUT_SCHEMA
            )
            found.append((flat, chat, ToolTarget("custom", tool.name, namespace), None))

    for i, raw in enumerate(raw_tools):
        if not isinstance(raw, dict):
            raise invalid_request(
                f"`tools[{i}]` must be an object.", param=f"tools[{i}]", code="invalid_value"
            )
        tool = _parse_tool(raw, f"tools[{i}]")
        if isinstance(tool, NamespaceTool):
            for j, inner_raw in enumerate(tool.tools):
                inner = _parse_tool(inner_raw, f"tools[{i}].tools[{j}]")
                if isinstance(inner, (FunctionTool, CustomTool)):
                    add(inner, tool.name)
        elif tool is not None:
            add(tool, None)
    return found


def _chosen_name(choice: dict[str, Any]) -> str | None:
    name = choice.get("name")
    if choice.get("type") in ("function", "custom") and isinstance(name, str):
        namespace = choice.get("namespace")
        return f"{namespace}{NAMESPACE_SEPARATOR}{name}" if namespace else name
    return None


def plan_tools(
    raw_tools: list[dict[str, Any]] | None, choice: str | dict[str, Any] | None
) -> ToolPlan:
    """Decide which tools the editor sees and in which mode; 400 when the choice cannot be met."""
    found = _flatten(raw_tools or [])
    echo = [e for _, _, _, e in found if e is not None]
    targets = {flat: target for flat, _, target, _ in found}
    tools = [chat for _, chat, _, _ in found]

    if choice is None or choice == "auto":
        return ToolPlan(tools, "auto", targets, echo, "auto")
    if choice == "none":
        return ToolPlan([], "auto", targets, echo, "none")
    if choice == "required":
        if not tools:
            raise invalid_request(
                "`tool_choice` is `required` but no usable tool was given (hosted tools such as "
                "web_search cannot run in the editor).",
                param="tool_choice",
                code="tool_not_found",
            )
        return ToolPlan(tools, "required", targets, echo, "required")
    if isinstance(choice, dict):
        if choice.get("type") == "allowed_tools":
            return _allowed(choice, tools, targets, echo)
        name = _chosen_name(choice)
        if name is None:
            raise invalid_request(
                f"`tool_choice` of type {choice.get('type')!r} names a tool the editor cannot run.",
                param="tool_choice",
                code="tool_not_found",
            )
        kind = choice.get("type")
        only = [t for t in tools if t.name == name and targets[t.name].kind == kind]
        if not only:
            raise invalid_request(
                f"`tool_choice` names the {kind} tool {name!r}, which is not among the usable "
                "tools.",
                param="tool_choice",
                code="tool_not_found",
            )
        choice_echo: str | dict[str, Any] = (
            {"type": "function", "name": name} if choice.get("type") == "function" else "required"
        )
        return ToolPlan(only, "required", targets, echo, choice_echo)
    raise invalid_request(
        f"Invalid value for `tool_choice`: {choice!r}.", param="tool_choice", code="invalid_value"
    )


def _allowed(
    choice: dict[str, Any],
    tools: list[ChatTool],
    targets: dict[str, ToolTarget],
    echo: list[dict[str, Any]],
) -> ToolPlan:
    mode = choice.get("mode", "auto")
    allowed = choice.get("tools")
    if mode not in ("auto", "required") or not isinstance(allowed, list):
        raise invalid_request(
            "`tool_choice` of type `allowed_tools` needs `mode` (auto or "
            "required) and a `tools` list.",
            param="tool_choice",
            code="invalid_value",
        )
    names = {n for t in allowed if isinstance(t, dict) and (n := _chosen_name(t))}
    kept = [t for t in tools if t.name in names]
    if mode == "required" and not kept:
        raise invalid_request(
            "`tool_choice.tools` matches none of the usable tools.",
            param="tool_choice.tools",
            code="tool_not_found",
        )
    choice_echo = {
        "type": "allowed_tools",
        "mode": mode,
        "tools": [{"type": "function", "name": t.name} for t in kept],
    }
    return ToolPlan(kept, mode, targets, echo, choice_echo)
