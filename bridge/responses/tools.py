"""Responses tools and `tool_choice` -> the editor's tool list and tool mode (pure functions).

The editor knows only function tools (name, description, JSON schema). So:
- `function` tools pass through;
- `custom` tools (Codex's freeform `apply_patch`) become functions taking `{input: string}`,
  and the model's calls are turned back into `custom_tool_call` items;
- `namespace` tools are flattened to `<namespace>__<name>` and mapped back;
- tools offered inside `additional_tools` input items (Codex) join the request's `tools`;
- hosted tools (web search, code interpreter, ...) run on OpenAI's servers, which the editor
  cannot reach: they are dropped with one log line each;
- a client-run `tool_search` is offered as a function and deferred tools wait for it
  (`tool_search.py`);
- a second tool of a name already offered is dropped with a log line (providers reject
  duplicate names);
- `"encrypted": true` markers in parameter schemas (Codex's collaboration tools ask OpenAI to
  encrypt those arguments) are OpenAI's extension, not JSON Schema: the editor never sees them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bridge.core.backend import ChatTool
from bridge.core.errors import invalid_request
from bridge.core.savings_off import off
from bridge.responses.encrypted_params import without_encrypted_markers
from bridge.responses.tool_search import (
    SEARCH_TOOL_NAME,
    ToolSearchTool,
    is_client_search,
    offers_client_search,
    search_chat_tool,
    search_output_groups,
)
from bridge.responses.web_search import runs_web_search
from bridge.responses.wire import AdditionalToolsItem, AnyRequest, CreateBody, as_body

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
    defer_loading: bool | None = None  # offered once a tool search loaded it


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

    kind: Literal["function", "custom", "tool_search"]
    name: str
    namespace: str | None = None
    # Its schema marks arguments `encrypted`: its calls must say they are plain text.
    has_encrypted_params: bool = False


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
# Where a custom tool's call may carry its raw text: `input` (the schema above), or `source`
# (models trained on Codex's code mode write it there whatever the schema says).
CUSTOM_TEXT_KEYS = ("input", "source")


def custom_tool_text(arguments: dict[str, Any]) -> str | None:
    """The raw text of a custom tool's call, when its arguments carry it as a string."""
    for key in CUSTOM_TEXT_KEYS:
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


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


_Parsed = FunctionTool | CustomTool | NamespaceTool | ToolSearchTool


def _parse_tool(raw: dict[str, Any], index: str) -> _Parsed | None:
    kind = raw.get("type")
    model: type[_Parsed]
    if is_client_search(raw):
        model = ToolSearchTool
    elif kind == "function":
        model = FunctionTool
    elif kind == "custom":
        model = CustomTool
    elif kind == "namespace":
        model = NamespaceTool
    else:
        if runs_web_search(raw):
            return None  # the bridge runs it (web_search.py), beside the editor's tools
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


@dataclass
class _Found:
    flat: str
    chat: ChatTool
    target: ToolTarget
    echo: dict[str, Any] | None  # function tools, as the Response object lists them


def _found(tool: FunctionTool | CustomTool, namespace: str | None) -> _Found:
    flat = f"{namespace}{NAMESPACE_SEPARATOR}{tool.name}" if namespace else tool.name
    if isinstance(tool, CustomTool):
        chat = ChatTool(
            name=flat, description=_custom_description(tool), inputSchema=CUSTOM_INPUT_SCHEMA
        )
        return _Found(flat, chat, ToolTarget("custom", tool.name, namespace), None)
    schema = tool.parameters or {"type": "object", "properties": {}}
    clean = without_encrypted_markers(schema)
    encrypted = clean != schema
    chat = ChatTool(name=flat, description=tool.description or "", inputSchema=clean)
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
    return _Found(flat, chat, ToolTarget("function", tool.name, namespace, encrypted), echo)


def _search_found(tool: ToolSearchTool) -> _Found:
    target = ToolTarget("tool_search", SEARCH_TOOL_NAME)
    return _Found(SEARCH_TOOL_NAME, search_chat_tool(tool), target, None)


def _flatten(groups: list[tuple[str, list[Any]]], loaded: set[str] | None = None) -> list[_Found]:
    """Every usable tool of every group (`(param, tools)`), first of each flat name only.

    `loaded`: the deferred tools a tool search loaded (others are left out); None: all."""
    found: dict[str, _Found] = {}

    def add(tool: _Parsed, namespace: str | None, where: str) -> None:
        if isinstance(tool, ToolSearchTool):
            entry = _search_found(tool)
        elif isinstance(tool, NamespaceTool):
            return
        else:
            entry = _found(tool, namespace)
            if tool.defer_loading and loaded is not None and entry.flat not in loaded:
                return  # deferred, not loaded by a tool search yet
        if entry.flat in found:
            # Providers reject a request with two tools of one name; the first one wins.
            log.warning(
                "Dropping tool %r at `%s`: a tool of that name came first", entry.flat, where
            )
            return
        found[entry.flat] = entry

    for param, raw_tools in groups:
        for i, raw in enumerate(raw_tools):
            index = f"{param}[{i}]"
            if not isinstance(raw, dict):
                raise invalid_request(
                    f"`{index}` must be an object.", param=index, code="invalid_value"
                )
            tool = _parse_tool(raw, index)
            if isinstance(tool, NamespaceTool):
                for j, inner_raw in enumerate(tool.tools):
                    inner = _parse_tool(inner_raw, f"{index}.tools[{j}]")
                    if inner is not None:
                        add(inner, tool.name, f"{index}.tools[{j}]")
            elif tool is not None:
                add(tool, None, index)
    return list(found.values())


def _chosen_name(choice: dict[str, Any]) -> str | None:
    name = choice.get("name")
    if choice.get("type") in ("function", "custom") and isinstance(name, str):
        namespace = choice.get("namespace")
        return f"{namespace}{NAMESPACE_SEPARATOR}{name}" if namespace else name
    return None


def _named_tools(
    choice: dict[str, Any], tools: list[ChatTool], targets: dict[str, ToolTarget], same_kind: bool
) -> list[ChatTool]:
    """The tools a `{type, name, namespace?}` entry names (of its type, when `same_kind`)."""
    name = _chosen_name(choice)
    if name is None:
        return []
    kinds = (choice.get("type"),) if same_kind else ("function", "custom")
    exact = [t for t in tools if t.name == name and targets[t.name].kind in kinds]
    if exact or choice.get("namespace"):
        return exact
    # Clients name a namespaced tool by its bare name too (Codex's `spawn_agent`).
    return [
        t
        for t in tools
        if targets[t.name].namespace is not None
        and targets[t.name].name == name
        and targets[t.name].kind in kinds
    ]


def additional_tool_groups(request: CreateBody, kinds: set[type]) -> list[tuple[str, list[Any]]]:
    """The tools of the request's `additional_tools` input items, each list with its param
    (`kinds`: the input items' types, looked at once for the whole request)."""
    items = request.input
    if AdditionalToolsItem not in kinds or not isinstance(items, list):
        return []
    return [
        (f"input[{index}].tools", list(item.tools))
        for index, item in enumerate(items)
        if type(item) is AdditionalToolsItem
    ]


def plan_request_tools(request: AnyRequest) -> ToolPlan:
    """`plan_tools` for everything a request offers (`tools`, `additional_tools` items and
    the tools `tool_search_output` items loaded)."""
    request = as_body(request)
    items = request.input
    # The items' types, once for both (a long history: 0.1 ms a look).
    kinds = set(map(type, items)) if isinstance(items, list) else set()
    return plan_tools(
        request.tools,
        request.tool_choice,
        additional_tool_groups(request, kinds),
        search_output_groups(request, kinds),
    )


def plan_tools(
    raw_tools: list[dict[str, Any]] | None,
    choice: str | dict[str, Any] | None,
    more: list[tuple[str, list[Any]]] | None = None,
    searched: list[tuple[str, list[Any]]] | None = None,
) -> ToolPlan:
    """Decide which tools the editor sees and in which mode; 400 when the choice cannot be met.

    `more` are further tool lists after `raw_tools`, each with its param (`input[3].tools`);
    `searched` the lists a client's tool search loaded. With a client-run tool search,
    deferred tools are offered only when loaded; without one, all of them.
    """
    searched = searched or []
    searching = offers_client_search(raw_tools) and not off("deferred_tools")
    loaded = {f.flat for f in _flatten(searched)} if searching else None
    found = _flatten([("tools", list(raw_tools or [])), *(more or []), *searched], loaded)
    echo = [f.echo for f in found if f.echo is not None]
    targets = {f.flat: f.target for f in found}
    tools = [f.chat for f in found]

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
        only = _named_tools(choice, tools, targets, same_kind=True)
        if not only:
            raise invalid_request(
                f"`tool_choice` names the {kind} tool {name!r}, which is not among the usable "
                "tools.",
                param="tool_choice",
                code="tool_not_found",
            )
        choice_echo: str | dict[str, Any] = (
            {"type": "function", "name": choice["name"]} if kind == "function" else "required"
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
    named = {
        t.name
        for entry in allowed
        if isinstance(entry, dict)
        for t in _named_tools(entry, tools, targets, same_kind=False)
    }
    kept = [t for t in tools if t.name in named]
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
