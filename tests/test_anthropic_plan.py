"""`parse_messages_request` + `plan_messages`: tools, tool_choice, options, errors, Claude Code."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from counting_backend import CountingBackend
from fixture_files import claude_code_captures

from bridge.anthropic.plan import JUSTIFICATION, MessagesPlan, parse_messages_request, plan_messages
from bridge.anthropic.prepare import prepare_messages
from bridge.core.backend import ChatTool, ModelInfo, TextPart
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames
from bridge.core.turn_notes import HEADER

MODEL = ModelInfo(id="sim-echo", maxInputTokens=100_000)
BASH: dict[str, Any] = {
    "name": "Bash",
    "description": "Run a command.",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
}
READ: dict[str, Any] = {"name": "Read", "input_schema": {"type": "object", "properties": {}}}


def body(**extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-opus-5-5",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
        **extra,
    }


def plan(**extra: Any) -> MessagesPlan:
    return plan_messages(parse_messages_request(body(**extra)), MODEL)


def error(raw: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        plan_messages(parse_messages_request(raw), MODEL)
    assert caught.value.status == 400
    return caught.value


# The plan


def test_a_minimal_request() -> None:
    got = plan()
    assert got.model == "claude-opus-5-5" and got.chat.model == "sim-echo"
    assert got.stream is False and got.thinking is False and got.stop_sequences == []
    assert got.chat.modelOptions == {"max_tokens": 100}
    assert got.chat.modelConfiguration == {}
    assert got.chat.tools == [] and got.chat.toolMode == "auto"
    assert got.chat.justification == JUSTIFICATION
    assert "Claude Code" in JUSTIFICATION


def test_options_map_to_the_editor() -> None:
    got = plan(temperature=0.2, top_p=0.9, top_k=40, stream=True, stop_sequences=["END", "\n\n"])
    # Copilot's keys only: top_p has no way through (docs/github-copilot.md); the stop sequences
    # are cut by the bridge alone, so that the answer can say which one ended it (`stop_sequence`).
    assert got.chat.modelOptions == {"max_tokens": 100, "temperature": 0.2}
    assert got.stream is True and got.stop_sequences == ["END", "\n\n"]


@pytest.mark.parametrize(
    ("extra", "effort", "thinking"),
    [
        ({"thinking": {"type": "enabled", "budget_tokens": 1024}}, "low", True),
        ({"thinking": {"type": "enabled", "budget_tokens": 10_000}}, "medium", True),
        ({"thinking": {"type": "enabled", "budget_tokens": 31_999}}, "high", True),
        ({"thinking": {"type": "adaptive"}}, "medium", True),  # thinking on, amount unsaid
        (
            {
                "thinking": {"type": "adaptive", "display": "omitted"},
                "output_config": {"effort": "medium"},
            },
            "medium",
            True,
        ),
        ({"output_config": {"effort": "low"}}, "low", False),
        # Copilot's models all take low/medium/high; `max` is the nearest (core/reasoning.py).
        ({"output_config": {"effort": "max"}}, "high", False),
        ({"output_config": {"effort": "astronomical"}}, None, False),
        # No level turns reasoning off on every model: the model's default.
        ({"thinking": {"type": "disabled"}}, None, False),
        ({"thinking": {"type": "disabled"}, "output_config": {"effort": "high"}}, None, False),
        ({}, None, False),
    ],
)
def test_thinking_and_effort_become_the_reasoning_option(
    extra: dict[str, Any], effort: str | None, thinking: bool
) -> None:
    got = plan(**extra)
    assert got.chat.modelConfiguration.get("reasoningEffort") == effort
    assert "reasoningEffort" not in got.chat.modelOptions
    assert got.thinking is thinking


@pytest.mark.parametrize(
    ("thinking", "omitted"),
    [
        ({"type": "adaptive", "display": "omitted"}, True),
        ({"type": "enabled", "budget_tokens": 2048, "display": "omitted"}, True),
        ({"type": "adaptive", "display": "summarized"}, False),
        ({"type": "adaptive"}, False),
        ({"type": "disabled", "display": "omitted"}, False),
    ],
)
def test_omitted_thinking_display(thinking: dict[str, Any], omitted: bool) -> None:
    assert plan(thinking=thinking).thinking_omitted is omitted


def test_keys_without_meaning_in_the_editor_are_accepted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.anthropic")
    got = plan(
        metadata={"user_id": "u"},
        service_tier="auto",
        context_management={"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]},
        container="c",
        mcp_servers=[{"type": "url", "url": "https://example.com", "name": "x"}],
        tools=[BASH],
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
        cache_control={"type": "ephemeral"},
        brand_new_option=1,
    )
    assert got.chat.modelOptions == {"max_tokens": 100}
    assert "context_management" in caplog.text and "disable_parallel_tool_use" in caplog.text


# Tools


def test_client_tools_are_offered() -> None:
    got = plan(tools=[BASH, {**READ, "type": "custom", "cache_control": {"type": "ephemeral"}}])
    assert got.chat.tools == [
        ChatTool(name="Bash", description="Run a command.", inputSchema=BASH["input_schema"]),
        # Copilot's upstream refuses an empty description.
        ChatTool(
            name="Read", description="No description provided.", inputSchema=READ["input_schema"]
        ),
    ]


def test_deferred_tools_wait_for_a_tool_reference() -> None:
    # tests/test_deferred_tools.py has the rest: loading, server-side search, the limit.
    got = plan(tools=[BASH, {**READ, "defer_loading": True}])
    assert [t.name for t in got.chat.tools] == ["Bash"]


def test_server_tools_are_dropped_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bridge.anthropic")
    server = [
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        {"type": "code_execution_20250825", "name": "code_execution"},
        {"type": "bash_20250124", "name": "bash"},
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
        {"type": "computer_20250124", "name": "computer", "display_width_px": 1024},
        {"type": "web_fetch_20250910", "name": "web_fetch"},
        {"type": "memory_20250818", "name": "memory"},
    ]
    got = plan(tools=[*server, BASH])
    assert [t.name for t in got.chat.tools] == ["Bash"]
    assert "web_search_20250305" in caplog.text and "memory_20250818" in caplog.text


def test_a_second_tool_of_one_name_is_dropped() -> None:
    got = plan(tools=[BASH, {**BASH, "description": "other"}])
    assert [t.description for t in got.chat.tools] == ["Run a command."]


@pytest.mark.parametrize(
    ("choice", "names", "mode"),
    [
        ({"type": "auto"}, ["Bash", "Read"], "auto"),
        # Copilot throws for required with several tools: auto plus an instruction.
        ({"type": "any"}, ["Bash", "Read"], "auto"),
        ({"type": "any", "disable_parallel_tool_use": True}, ["Bash", "Read"], "auto"),
        ({"type": "tool", "name": "Read"}, ["Read"], "required"),
        ({"type": "none"}, [], "auto"),
    ],
)
def test_tool_choice(choice: dict[str, Any], names: list[str], mode: str) -> None:
    got = plan(tools=[BASH, READ], tool_choice=choice)
    assert [t.name for t in got.chat.tools] == names
    assert got.chat.toolMode == mode


# Structured outputs

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}


@pytest.mark.parametrize("where", ["output_config", "output_format"])
def test_a_json_schema_format_goes_to_the_model_as_an_instruction(where: str) -> None:
    fmt = {"type": "json_schema", "schema": SCHEMA}
    got = plan(**({"output_config": {"format": fmt}} if where == "output_config" else {where: fmt}))
    assert got.output_format is not None and got.output_format.schema == SCHEMA
    assert "responseFormat" not in got.chat.modelOptions  # Copilot would drop it
    # After the client's messages (bridge/core/turn_notes.py), which keep their places.
    assert got.chat.messages[0].content == [TextPart(value="hi")]
    assert got.chat.messages[-1].content[0] == TextPart(value=HEADER)
    note = got.chat.messages[-1].content[1]
    assert isinstance(note, TextPart) and json.dumps(SCHEMA, separators=(",", ":")) in note.value


def test_no_format_no_option() -> None:
    got = plan(output_config={"effort": "low"})
    assert got.output_format is None and "responseFormat" not in got.chat.modelOptions


# Errors name their param


@pytest.mark.parametrize(
    ("raw", "param"),
    [
        (body(max_tokens=None), "max_tokens"),
        ({"model": "m", "messages": []}, "max_tokens"),
        (body(max_tokens=0), "max_tokens"),
        (body(max_tokens="5"), "max_tokens"),
        (body(max_tokens=True), "max_tokens"),
        (body(model=""), "model"),
        (body(messages=None), "messages"),
        (body(messages=[]), "messages"),
        (body(messages="hi"), "messages"),
        (body(messages=[{"role": "bot", "content": "x"}]), "messages[0].role"),
        (body(messages=[{"role": "user"}]), "messages[0].content"),
        (
            body(messages=[{"role": "user", "content": [{"type": "text"}]}]),
            "messages[0].content[0].text",
        ),
        (
            body(
                messages=[
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "name": "x", "input": {}}],
                    }
                ]
            ),
            "messages[0].content[0].id",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]),
            "messages[0].content[0].tool_use_id",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "image"}]}]),
            "messages[0].content[0].source",
        ),
        (body(messages=[{"role": "user", "content": ""}]), "messages"),
        (body(stop_sequences=[""]), "stop_sequences[0]"),
        (body(stop_sequences="END"), "stop_sequences"),
        (body(temperature=1.5), "temperature"),
        (body(top_p=-0.1), "top_p"),
        (body(stream="yes"), "stream"),
        (body(system=5), "system"),
        (body(thinking={"type": "enabled", "budget_tokens": 100}), "thinking.budget_tokens"),
        (body(thinking={"type": "sometimes"}), "thinking.type"),
        (body(tools="Bash"), "tools"),
        (body(tools=[5]), "tools[0]"),
        (body(tools=[{"input_schema": {}}]), "tools[0].name"),
        (body(tools=[{"name": "x", "input_schema": "object"}]), "tools[0].input_schema"),
        (body(tool_choice="auto"), "tool_choice"),
        (body(tool_choice={"type": "any"}), "tool_choice"),
        (body(tools=[BASH], tool_choice={"type": "tool"}), "tool_choice.name"),
        (body(tools=[BASH], tool_choice={"type": "tool", "name": "Read"}), "tool_choice.name"),
        (body(tools=[BASH], tool_choice={"type": "sometimes"}), "tool_choice.type"),
        (body(output_config={"format": {"type": "json_schema"}}), "output_config.format.schema"),
        (body(output_config={"format": {"type": "xml"}}), "output_config.format.type"),
        (body(output_config={"format": "json"}), "output_config.format"),
        (body(output_format={"type": "json_schema", "schema": []}), "output_format.schema"),
    ],
)
def test_bad_input_is_a_400_naming_its_param(raw: Any, param: str) -> None:
    got = error(raw)
    assert got.param == param, got.message
    assert got.message


def test_a_body_that_is_not_an_object_is_a_400() -> None:
    assert error([1, 2]).status == 400


def test_nan_is_not_a_number_we_send() -> None:
    assert error(body(temperature=float("nan"))).param == "temperature"


# Claude Code's captured requests


CAPTURES = claude_code_captures()


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_every_claude_code_request_plans(name: str) -> None:
    captured = CAPTURES[name]["body"]
    got = plan_messages(parse_messages_request(captured), MODEL)
    chat = got.chat
    assert got.model == captured["model"] and got.stream == captured["stream"]
    assert chat.modelOptions["max_tokens"] == captured["max_tokens"]
    assert chat.modelConfiguration["reasoningEffort"] == captured["output_config"]["effort"]
    assert got.thinking is True  # adaptive thinking
    assert "Bash" in {tool.name for tool in chat.tools}
    everything = json.dumps(chat.model_dump())
    assert "x-anthropic-billing-header" not in everything
    # The system text comes first (the block after the billing line; the fixtures hold a
    # placeholder of its size, not its words); the client's last user words stay last.
    first = chat.messages[0].content[0]
    assert isinstance(first, TextPart) and first.value == captured["system"][1]["text"]
    assert chat.messages[-1].role == "user"
    # Only user and assistant messages, each tool call answered right after it.
    assert {m.role for m in chat.messages} <= {"user", "assistant"}
    for index, message in enumerate(chat.messages):
        calls = [p.callId for p in message.content if p.type == "toolCall"]
        if calls:
            after = chat.messages[index + 1].content
            assert [p.callId for p in after if p.type == "toolResult"] == calls


def test_claude_code_s_system_message_joins_the_system_text() -> None:
    captured = CAPTURES["bash-default-2"]["body"]
    environment = captured["messages"][1]
    assert environment["role"] == "system"
    got = plan_messages(parse_messages_request(captured), MODEL).chat.messages
    texts = [p.value for m in got for p in m.content if isinstance(p, TextPart)]
    assert environment["content"] in texts
    # Before the user's first words, with the rest of the system text.
    first_user = captured["messages"][0]["content"][-1]["text"]
    assert texts.index(environment["content"]) < texts.index(first_user)


def test_there_are_captures_with_a_tool_turn() -> None:
    assert any(
        block.get("type") == "tool_result"
        for capture in CAPTURES.values()
        for message in capture["body"]["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    )


# prepare: its 400s name the Messages fields (the core's checks are shared with Responses)


async def test_prepare_an_invalid_schema_names_the_messages_field() -> None:
    fmt = {"type": "json_schema", "schema": {"type": 12}}
    with pytest.raises(ApiError) as caught:
        await prepare_messages(
            CountingBackend(), body(model="sim-echo", output_config={"format": fmt}), ModelNames()
        )
    assert caught.value.status == 400
    assert caught.value.param == "output_config.format.schema"
    assert "`output_config.format.schema` is not a valid JSON Schema" in caught.value.message


async def test_prepare_asks_the_editor_to_limit_an_input_that_may_not_fit() -> None:
    raw = body(model="sim-echo", messages=[{"role": "user", "content": "word " * 50}])
    got = await prepare_messages(CountingBackend(max_input_tokens=10), raw, ModelNames())
    assert got.chat.countInput is not None and got.chat.countInput.maxTokens == 10
    assert got.chat.inputParam == "messages"  # what a refusal's 400 names


async def test_prepare_asks_for_the_count_that_message_start_states() -> None:
    raw = body(model="sim-echo", messages=[{"role": "user", "content": "hi"}])
    got = await prepare_messages(CountingBackend(), raw, ModelNames())
    assert got.chat.countInput is not None and got.chat.countInput.maxTokens == 0
