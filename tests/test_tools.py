"""`plan_tools`: Responses tools and `tool_choice` -> the editor's tool list and tool mode."""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fixture_files import client_request, client_requests

from bridge.core.backend import ChatTool
from bridge.core.errors import ApiError
from bridge.responses.encrypted_params import without_encrypted_markers
from bridge.responses.request import parse_create_request
from bridge.responses.tools import (
    CUSTOM_INPUT_SCHEMA,
    ToolPlan,
    ToolTarget,
    plan_request_tools,
    plan_tools,
)

LARK = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\n'

PARAMS_WITH_DEFS: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "when": {"$ref": "#/$defs/Day"},
    },
    "required": ["city", "when"],
    "additionalProperties": False,
    "$defs": {"Day": {"type": "string", "enum": ["today", "tomorrow"]}},
}


def function(name: str, parameters: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "type": "function",
        "name": name,
        "description": f"The {name} tool.",
        "strict": False,
        "parameters": parameters
        if parameters is not None
        else {"type": "object", "properties": {}, "additionalProperties": False},
    }
    tool.update(extra)
    return tool


def apply_patch() -> dict[str, Any]:
    return {
        "type": "custom",
        "name": "apply_patch",
        "description": "Edit files. This is a FREEFORM tool.",
        "format": {"type": "grammar", "syntax": "lark", "definition": LARK},
    }


def namespace() -> dict[str, Any]:
    return {
        "type": "namespace",
        "name": "multi_agent_v1",
        "description": "Sub-agents.",
        "tools": [function("spawn_agent"), function("close_agent"), {**apply_patch()}],
    }


TOOLS: list[dict[str, Any]] = [function("exec_command"), function("view_image"), apply_patch()]

HOSTED: list[dict[str, Any]] = [
    {"type": "web_search", "external_web_access": False},
    {"type": "file_search", "vector_store_ids": ["vs_1"]},
    {"type": "code_interpreter", "container": {"type": "auto"}},
    {"type": "computer_use_preview", "display_width": 1024, "display_height": 768},
    {"type": "image_generation"},
    {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.example.com"},
    {"type": "local_shell"},
    {"type": "shell"},
    {"type": "tool_search"},  # hosted; a client-run one is offered (test_deferred_tools.py)
]


def names(plan: ToolPlan) -> list[str]:
    return [tool.name for tool in plan.tools]


def rejected(tools: list[dict[str, Any]] | None, choice: Any) -> ApiError:
    with pytest.raises(ApiError) as info:
        plan_tools(tools, choice)
    return info.value


# --------------------------------------------------------------------------- tool kinds


def test_function_schema_passes_through_intact() -> None:
    params = copy.deepcopy(PARAMS_WITH_DEFS)
    plan = plan_tools([function("get_weather", params, strict=True)], None)

    (tool,) = plan.tools
    assert tool == ChatTool(
        name="get_weather", description="The get_weather tool.", inputSchema=PARAMS_WITH_DEFS
    )
    # On the wire to the editor too: `$schema`, `$defs` and `$ref` arrive as sent.
    wire = json.loads(msgspec.json.encode(tool))
    assert wire["inputSchema"] == PARAMS_WITH_DEFS
    assert wire["inputSchema"]["$defs"] == {
        "Day": {"type": "string", "enum": ["today", "tomorrow"]}
    }
    assert wire["inputSchema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert plan.targets == {"get_weather": ToolTarget("function", "get_weather")}
    assert plan.echo == [
        {
            "type": "function",
            "name": "get_weather",
            "description": "The get_weather tool.",
            "parameters": PARAMS_WITH_DEFS,
            "strict": True,
        }
    ]


def test_function_without_parameters_gets_an_empty_object_schema() -> None:
    plan = plan_tools([{"type": "function", "name": "ping"}], None)

    assert plan.tools == [
        ChatTool(name="ping", description="", inputSchema={"type": "object", "properties": {}})
    ]


def test_custom_tool_becomes_an_input_string_function() -> None:
    plan = plan_tools([apply_patch()], None)

    (tool,) = plan.tools
    assert tool.name == "apply_patch"
    assert tool.inputSchema == CUSTOM_INPUT_SCHEMA
    assert tool.inputSchema is not None
    assert tool.inputSchema["properties"]["input"]["type"] == "string"
    assert tool.inputSchema["required"] == ["input"]
    assert tool.description.startswith("Edit files. This is a FREEFORM tool.")
    assert "grammar" in tool.description
    assert "lark" in tool.description
    assert LARK in tool.description
    assert plan.targets == {"apply_patch": ToolTarget("custom", "apply_patch")}
    assert plan.echo == []  # the Response lists function tools only


def test_custom_tool_without_grammar_keeps_its_description() -> None:
    plan = plan_tools([{"type": "custom", "name": "notes", "description": "Free text."}], None)

    assert plan.tools == [
        ChatTool(name="notes", description="Free text.", inputSchema=CUSTOM_INPUT_SCHEMA)
    ]


def test_namespace_tools_are_flattened_and_mapped_back() -> None:
    plan = plan_tools([function("exec_command"), namespace()], "auto")

    assert names(plan) == [
        "exec_command",
        "multi_agent_v1__spawn_agent",
        "multi_agent_v1__close_agent",
        "multi_agent_v1__apply_patch",
    ]
    assert plan.targets == {
        "exec_command": ToolTarget("function", "exec_command"),
        "multi_agent_v1__spawn_agent": ToolTarget("function", "spawn_agent", "multi_agent_v1"),
        "multi_agent_v1__close_agent": ToolTarget("function", "close_agent", "multi_agent_v1"),
        "multi_agent_v1__apply_patch": ToolTarget("custom", "apply_patch", "multi_agent_v1"),
    }
    spawn = plan.tools[1]
    assert spawn.description == "The spawn_agent tool."
    assert spawn.inputSchema == function("spawn_agent")["parameters"]
    assert plan.tools[3].inputSchema == CUSTOM_INPUT_SCHEMA


def test_hosted_tools_are_dropped_with_one_log_line_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bridge.responses.tools")

    plan = plan_tools([*HOSTED[:4], function("exec_command"), *HOSTED[4:]], "auto")

    assert names(plan) == ["exec_command"]
    assert list(plan.targets) == ["exec_command"]
    records = [r for r in caplog.records if r.name == "bridge.responses.tools"]
    assert len(records) == len(HOSTED)
    for record, tool in zip(records, HOSTED, strict=True):
        assert record.levelno == logging.INFO
        assert repr(tool["type"]) in record.getMessage()


def test_unknown_tool_type_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bridge.responses.tools")

    plan = plan_tools([{"type": "teleport", "name": "x"}, function("f")], None)

    assert names(plan) == ["f"]
    assert len(caplog.records) == 1
    assert "'teleport'" in caplog.records[0].getMessage()


@pytest.mark.parametrize(
    ("tools", "param"),
    [
        ([{"type": "function", "description": "no name"}], "tools[0].name"),
        ([function("ok"), {"type": "custom"}], "tools[1].name"),
        (
            [{"type": "namespace", "name": "ns", "tools": [function("a"), {"type": "function"}]}],
            "tools[0].tools[1].name",
        ),
        ([function("ok"), "web_search"], "tools[1]"),
    ],
)
def test_invalid_tool_definition_names_the_param(tools: list[Any], param: str) -> None:
    error = rejected(tools, None)

    assert error.status == 400
    assert error.code == "invalid_value"
    assert error.param == param


# --------------------------------------------------------------------------- tool_choice


@pytest.mark.parametrize("choice", [None, "auto"])
def test_auto_offers_every_usable_tool(choice: str | None) -> None:
    plan = plan_tools([*TOOLS, HOSTED[0]], choice)

    assert names(plan) == ["exec_command", "view_image", "apply_patch"]
    assert plan.mode == "auto"
    assert plan.choice_echo == "auto"


def test_none_offers_no_tools() -> None:
    plan = plan_tools(TOOLS, "none")

    assert plan.tools == []
    assert plan.mode == "auto"
    assert plan.choice_echo == "none"
    # Calls in the history can still be mapped back.
    assert set(plan.targets) == {"exec_command", "view_image", "apply_patch"}


def test_required_uses_required_mode() -> None:
    plan = plan_tools(TOOLS, "required")

    assert names(plan) == ["exec_command", "view_image", "apply_patch"]
    assert plan.mode == "required"
    assert plan.choice_echo == "required"


@pytest.mark.parametrize(
    "tools",
    [[{"type": "web_search"}], HOSTED, [], None],
    ids=["web_search", "hosted", "empty", "none"],
)
def test_required_without_usable_tool_is_rejected(tools: list[dict[str, Any]] | None) -> None:
    error = rejected(tools, "required")

    assert error.status == 400
    assert error.code == "tool_not_found"
    assert error.param == "tool_choice"


def test_named_function_offers_only_that_tool() -> None:
    plan = plan_tools(TOOLS, {"type": "function", "name": "view_image"})

    assert names(plan) == ["view_image"]
    assert plan.mode == "required"
    assert plan.choice_echo == {"type": "function", "name": "view_image"}


def test_named_custom_tool_offers_only_that_tool() -> None:
    plan = plan_tools(TOOLS, {"type": "custom", "name": "apply_patch"})

    assert names(plan) == ["apply_patch"]
    assert plan.tools[0].inputSchema == CUSTOM_INPUT_SCHEMA
    assert plan.mode == "required"


def test_named_namespaced_function() -> None:
    plan = plan_tools(
        [function("exec_command"), namespace()],
        {"type": "function", "name": "close_agent", "namespace": "multi_agent_v1"},
    )

    assert names(plan) == ["multi_agent_v1__close_agent"]
    assert plan.mode == "required"


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "function", "name": "rm_rf"},
        {"type": "web_search"},
        {"type": "function"},
    ],
    ids=["absent", "hosted", "no-name"],
)
def test_named_tool_not_available_is_rejected(choice: dict[str, Any]) -> None:
    error = rejected([*TOOLS, {"type": "web_search"}], choice)

    assert error.status == 400
    assert error.code == "tool_not_found"
    assert error.param == "tool_choice"


def test_named_choice_of_a_dropped_hosted_function_name() -> None:
    error = rejected([{"type": "web_search"}], {"type": "function", "name": "web_search"})
    assert error.code == "tool_not_found"
    assert "web_search" in error.message


@pytest.mark.parametrize("choice", ["sometimes", "", 7])
def test_invalid_tool_choice(choice: Any) -> None:
    error = rejected(TOOLS, choice)

    assert error.status == 400
    assert error.code == "invalid_value"
    assert error.param == "tool_choice"


@pytest.mark.parametrize("mode", ["auto", "required"])
def test_allowed_tools_restricts_the_list(mode: str) -> None:
    plan = plan_tools(
        TOOLS,
        {
            "type": "allowed_tools",
            "mode": mode,
            "tools": [
                {"type": "function", "name": "exec_command"},
                {"type": "custom", "name": "apply_patch"},
                {"type": "function", "name": "not_there"},
                {"type": "web_search"},
            ],
        },
    )

    assert names(plan) == ["exec_command", "apply_patch"]
    assert plan.mode == mode
    assert isinstance(plan.choice_echo, dict)
    assert plan.choice_echo["type"] == "allowed_tools"
    assert plan.choice_echo["mode"] == mode


def test_allowed_tools_with_no_match() -> None:
    choice: dict[str, Any] = {
        "type": "allowed_tools",
        "mode": "required",
        "tools": [{"type": "function", "name": "not_there"}],
    }
    error = rejected(TOOLS, choice)
    assert error.status == 400
    assert error.code == "tool_not_found"
    assert error.param == "tool_choice.tools"

    plan = plan_tools(TOOLS, {**choice, "mode": "auto"})
    assert plan.tools == []
    assert plan.mode == "auto"


@pytest.mark.parametrize(
    "choice",
    [
        {"type": "allowed_tools", "mode": "sometimes", "tools": []},
        {"type": "allowed_tools", "mode": "auto"},
        {"type": "allowed_tools", "mode": "auto", "tools": "exec_command"},
    ],
)
def test_malformed_allowed_tools(choice: dict[str, Any]) -> None:
    error = rejected(TOOLS, choice)
    assert error.status == 400
    assert error.code == "invalid_value"
    assert error.param == "tool_choice"


# --------------------------------------------------------------------------- duplicates


def test_duplicate_names_keep_the_first_and_log_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bridge.responses.tools")
    first = function("lookup", description="first")
    plan = plan_tools(
        [
            first,
            function("lookup", description="second"),
            function("ns__f"),
            {"type": "namespace", "name": "ns", "tools": [function("f"), function("g")]},
        ],
        "auto",
    )

    assert names(plan) == ["lookup", "ns__f", "ns__g"]
    assert plan.tools[0].description == "first"
    assert plan.targets["ns__f"] == ToolTarget("function", "ns__f")  # the first one
    assert [e["description"] for e in plan.echo] == ["first", "The ns__f tool."]
    dropped = [r.getMessage() for r in caplog.records]
    assert len(dropped) == 2
    assert "'lookup'" in dropped[0] and "tools[1]" in dropped[0]
    assert "'ns__f'" in dropped[1] and "tools[3].tools[0]" in dropped[1]


# --------------------------------------------------------------------------- encrypted


ENCRYPTED_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "Task.", "encrypted": True},
        "target": {"type": "string"},
        # A property that happens to be called `encrypted` is the tool's own: kept.
        "encrypted": {"type": "boolean", "default": False},
        "notes": {"type": "array", "items": {"type": "string", "encrypted": True}},
    },
    "required": ["message", "encrypted"],
    "additionalProperties": False,
}


def test_encrypted_markers_never_reach_the_editor() -> None:
    plan = plan_tools(
        [
            {
                "type": "namespace",
                "name": "collaboration",
                "tools": [function("send", ENCRYPTED_PARAMS)],
            }
        ],
        "auto",
    )

    (tool,) = plan.tools
    assert tool.inputSchema == {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "Task."},
            "target": {"type": "string"},
            "encrypted": {"type": "boolean", "default": False},
            "notes": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["message", "encrypted"],
        "additionalProperties": False,
    }
    assert "'encrypted': True" in repr(ENCRYPTED_PARAMS)  # the request is not changed
    assert plan.targets["collaboration__send"].has_encrypted_params


def test_schemas_without_markers_are_passed_as_they_are() -> None:
    plan = plan_tools([function("f", PARAMS_WITH_DEFS)], "auto")
    assert plan.tools[0].inputSchema == PARAMS_WITH_DEFS
    assert not plan.targets["f"].has_encrypted_params
    assert without_encrypted_markers(PARAMS_WITH_DEFS) == PARAMS_WITH_DEFS


# --------------------------------------------------------------------------- namespaces


def collaboration() -> dict[str, Any]:
    return {
        "type": "namespace",
        "name": "collaboration",
        "tools": [function("spawn_agent"), function("wait_agent")],
    }


def test_named_namespaced_function_by_its_bare_name() -> None:
    plan = plan_tools(
        [function("exec_command"), collaboration()], {"type": "function", "name": "wait_agent"}
    )

    assert names(plan) == ["collaboration__wait_agent"]
    assert plan.mode == "required"
    assert plan.choice_echo == {"type": "function", "name": "wait_agent"}


def test_a_top_level_tool_of_the_bare_name_wins() -> None:
    plan = plan_tools(
        [function("wait_agent"), collaboration()], {"type": "function", "name": "wait_agent"}
    )
    assert names(plan) == ["wait_agent"]


def test_bare_name_of_the_wrong_kind_is_not_found() -> None:
    error = rejected([collaboration()], {"type": "custom", "name": "wait_agent"})
    assert error.code == "tool_not_found"


def test_allowed_tools_by_bare_name() -> None:
    plan = plan_tools(
        [function("exec_command"), collaboration()],
        {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "spawn_agent"}],
        },
    )
    assert names(plan) == ["collaboration__spawn_agent"]


def test_tools_of_additional_tools_items_are_offered() -> None:
    request = parse_create_request(
        {
            "model": "m",
            "tools": [function("exec_command")],
            "input": [
                {"type": "additional_tools", "role": "developer", "tools": [collaboration()]},
                {"role": "user", "content": "hi"},
                {"type": "additional_tools", "tools": [apply_patch(), function("exec_command")]},
            ],
            "tool_choice": {"type": "function", "name": "spawn_agent"},
        }
    )

    everything = plan_request_tools(request.model_copy(update={"tool_choice": "auto"}))
    assert names(everything) == [
        "exec_command",
        "collaboration__spawn_agent",
        "collaboration__wait_agent",
        "apply_patch",
    ]
    assert plan_request_tools(request).tools[0].name == "collaboration__spawn_agent"


def test_bad_tool_in_additional_tools_names_its_param() -> None:
    request = parse_create_request(
        {
            "model": "m",
            "input": [
                {"role": "user", "content": "hi"},
                {"type": "additional_tools", "tools": [{"type": "function", "name": 7}]},
            ],
        }
    )
    with pytest.raises(ApiError) as info:
        plan_request_tools(request)
    assert info.value.param == "input[1].tools[0].name"


# --------------------------------------------------------------------------- real clients


def test_codex_tools(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bridge.responses.tools")
    raw = client_request("codex-patch-1")
    request = parse_create_request(raw)

    plan = plan_tools(request.tools, request.tool_choice)

    assert "apply_patch" in names(plan)
    assert plan.targets["apply_patch"] == ToolTarget("custom", "apply_patch")
    assert "exec_command" in names(plan)
    assert "web_search" not in names(plan)
    # Codex runs its tool search itself: the model sees it as a function.
    assert plan.targets["tool_search"] == ToolTarget("tool_search", "tool_search")
    assert len(plan.tools) == len(raw["tools"]) - 1
    assert len(caplog.records) == 1
    exec_command = next(t for t in plan.tools if t.name == "exec_command")
    raw_exec = next(t for t in raw["tools"] if t.get("name") == "exec_command")
    assert exec_command.inputSchema == raw_exec["parameters"]


def test_codex_namespace_tools() -> None:
    raw = client_request("codex-hi-1")
    request = parse_create_request(raw)

    plan = plan_tools(request.tools, request.tool_choice)

    (ns,) = [t for t in raw["tools"] if t["type"] == "namespace"]
    for inner in ns["tools"]:
        flat = f"{ns['name']}__{inner['name']}"
        assert flat in names(plan)
        assert plan.targets[flat] == ToolTarget("function", inner["name"], ns["name"])


CLIENT_FIXTURES = client_requests()


@pytest.mark.parametrize("path", CLIENT_FIXTURES, ids=lambda path: path.stem)
def test_client_tools_plan(path: Path) -> None:
    raw = json.loads(path.read_text("utf-8"))

    plan = plan_tools(raw.get("tools"), raw.get("tool_choice"))

    usable = [t for t in raw.get("tools") or [] if t["type"] in ("function", "custom")]
    inner = [t for ns in raw.get("tools") or [] if ns["type"] == "namespace" for t in ns["tools"]]
    # Codex runs its own tool search (`execution: "client"`): offered as a function too.
    searches = [t for t in raw.get("tools") or [] if t.get("execution") == "client"]
    assert len(plan.tools) == len(usable) + len(inner) + len(searches)
    assert set(plan.targets) == {tool.name for tool in plan.tools}
    assert plan.mode == "auto"
    for tool in usable:
        if tool["type"] == "function":
            chat = next(t for t in plan.tools if t.name == tool["name"])
            assert chat.inputSchema == tool["parameters"]


def test_codex_multi_agent_tools() -> None:
    """Codex 0.169 with multi_agent_v2: the `collaboration` namespace, markers removed."""
    raw = json.loads(
        (
            Path(__file__).parent / "fixtures" / "clients" / "codex-multi-agent-parent-1.json"
        ).read_text("utf-8")
    )
    plan = plan_request_tools(parse_create_request(raw))

    (ns,) = [t for t in raw["tools"] if t["type"] == "namespace"]
    assert ns["name"] == "collaboration"
    for inner in ns["tools"]:
        flat = f"collaboration__{inner['name']}"
        chat = next(t for t in plan.tools if t.name == flat)
        assert '"encrypted"' not in json.dumps(chat.inputSchema)
        marked = '"encrypted": true' in json.dumps(inner["parameters"])
        assert plan.targets[flat].has_encrypted_params == marked
    assert plan.targets["collaboration__spawn_agent"].has_encrypted_params
    assert not plan.targets["collaboration__wait_agent"].has_encrypted_params
