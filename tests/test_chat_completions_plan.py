"""`parse_completion_request` + `plan_completion`: options, tools, formats, stops, the 400s."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from counting_backend import CountingBackend
from fixture_files import FIXTURES

from bridge.chat.convert import LABELS
from bridge.chat.plan import (
    JUSTIFICATION,
    CompletionPlan,
    parse_completion_request,
    plan_completion,
)
from bridge.chat.prepare import prepare_completion
from bridge.chat.stop import MAX_STOP_CHARS, MAX_STOP_SEQUENCES
from bridge.core.backend import ChatTool, ModelInfo, TextPart
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames
from bridge.core.structured_output import OutputFormat
from bridge.core.turn_notes import HEADER

MODEL = ModelInfo(id="sim-echo", maxInputTokens=100_000)


def body(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], **extra}


def plan(**extra: Any) -> CompletionPlan:
    return plan_completion(parse_completion_request(body(**extra)), MODEL)


def error(raw: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        plan_completion(parse_completion_request(raw), MODEL)
    assert caught.value.status == 400
    assert caught.value.body()["error"]["message"]
    return caught.value


def test_a_minimal_request() -> None:
    got = plan()
    assert got.model == "gpt-4o" and got.chat.model == "sim-echo"
    assert got.stream is False and got.include_usage is False
    assert got.stop_sequences == [] and got.parallel_tool_calls is True
    assert got.output_format is None
    assert got.chat.modelOptions == {}
    assert got.chat.tools == [] and got.chat.toolMode == "auto"
    assert got.chat.justification == JUSTIFICATION
    assert [m.role for m in got.chat.messages] == ["user"]
    assert got.chat.messages[0].content == [TextPart(value="hi")]


def test_stream_and_usage() -> None:
    got = plan(stream=True, stream_options={"include_usage": True})
    assert got.stream is True and got.include_usage is True
    # Usage comes in a last chunk of a stream only: without a stream there is no chunk.
    assert plan(stream=False, stream_options={"include_usage": True}).include_usage is False
    assert plan(stream=True, stream_options={"include_usage": False}).include_usage is False


@pytest.mark.parametrize(
    ("extra", "limit"),
    [
        ({"max_tokens": 50}, 50),
        ({"max_completion_tokens": 70}, 70),
        ({"max_tokens": 50, "max_completion_tokens": 70}, 70),
    ],
)
def test_max_tokens_become_the_editors_max_tokens(extra: dict[str, Any], limit: int) -> None:
    assert plan(**extra).chat.modelOptions == {"max_tokens": limit}


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"model": ""}, "model"),
        ({"model": 3}, "model"),
        ({"messages": []}, "messages"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_completion_tokens": "9"}, "max_completion_tokens"),
        ({"stream": "yes"}, "stream"),
        ({"stream_options": {"include_usage": 1}}, "stream_options.include_usage"),
    ],
)
def test_bad_basics_name_their_param(extra: dict[str, Any], param: str) -> None:
    assert error(body(**extra)).param == param


@pytest.mark.parametrize("missing", ["model", "messages"])
def test_missing_required(missing: str) -> None:
    raw = body()
    del raw[missing]
    got = error(raw)
    assert got.param == missing and got.code == "missing_required_parameter"


def test_a_body_that_is_no_object() -> None:
    assert error([1, 2]).code == "invalid_json"


def test_function_tools_are_offered() -> None:
    tool = {
        "type": "function",
        "function": {"name": "f", "description": "F.", "parameters": {"type": "object"}},
    }
    got = plan(tools=[tool])
    # Copilot's upstream wants an object schema with `properties`.
    schema = {"type": "object", "properties": {}}
    assert got.chat.tools == [ChatTool(name="f", description="F.", inputSchema=schema)]


# Options


def test_sampling_options_map_to_copilots_keys() -> None:
    got = plan(
        max_completion_tokens=80,
        temperature=1.5,
        top_p=0.9,
        reasoning_effort="high",
        stop=["END"],
        frequency_penalty=0.5,
        presence_penalty=-0.5,
    )
    # top_p has no way through Copilot (docs/github-copilot.md); the effort goes in
    # modelConfiguration.
    assert got.chat.modelOptions == {
        "max_tokens": 80,
        "temperature": 1.5,
        "stop": "END",
        "frequency_penalty": 0.5,
        "presence_penalty": -0.5,
    }
    assert got.chat.modelConfiguration == {"reasoningEffort": "high"}
    assert got.stop_sequences == ["END"]  # still cut by the bridge too


def test_stop_goes_as_one_string() -> None:
    # Copilot's option check keeps strings and drops lists (LanguageModelOptions.convert).
    assert plan(stop="##").chat.modelOptions == {"stop": "##"}
    assert plan(stop=["a", "b"]).chat.modelOptions == {"stop": "a"}


@pytest.mark.parametrize(
    ("effort", "level"),
    [("minimal", "low"), ("low", "low"), ("medium", "medium"), ("high", "high"), ("xhigh", "high")],
)
def test_known_efforts_go_as_a_level_every_model_takes(effort: str, level: str) -> None:
    got = plan(reasoning_effort=effort)
    assert got.chat.modelConfiguration == {"reasoningEffort": level}
    assert got.chat.modelOptions == {}


def test_effort_none_leaves_the_model_its_default() -> None:
    got = plan(reasoning_effort="none")
    assert got.chat.modelConfiguration == {} and got.chat.modelOptions == {}


def test_an_unknown_effort_is_dropped_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bridge.chat")
    assert plan(reasoning_effort="extreme").chat.modelOptions == {}
    assert "extreme" in caplog.text


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"temperature": 2.5}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"top_p": 1.5}, "top_p"),
        ({"reasoning_effort": 3}, "reasoning_effort"),
        ({"parallel_tool_calls": "no"}, "parallel_tool_calls"),
    ],
)
def test_bad_options_name_their_param(extra: dict[str, Any], param: str) -> None:
    assert error(body(**extra)).param == param


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"n": 2}, "n"),
        ({"n": 0}, "n"),
        ({"logprobs": True}, "logprobs"),
        ({"top_logprobs": 3}, "top_logprobs"),
        ({"audio": {"voice": "alloy", "format": "wav"}}, "audio"),
        ({"modalities": ["text", "audio"]}, "modalities"),
        ({"functions": [{"name": "f"}]}, "functions"),
        ({"function_call": "auto"}, "function_call"),
    ],
)
def test_what_the_editor_cannot_give_is_a_400_naming_it(extra: dict[str, Any], param: str) -> None:
    got = error(body(**extra))
    assert got.param == param and got.code == "unsupported_parameter"
    assert f"`{param}`" in got.message or param in got.message.lower()


def test_their_harmless_values_are_accepted() -> None:
    got = plan(n=1, logprobs=False, top_logprobs=0, modalities=["text"])
    assert got.chat.modelOptions == {}


def test_keys_without_meaning_in_the_editor_are_accepted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.chat")
    secret = "user-4711-secret"
    got = plan(
        seed=7,
        user=secret,
        metadata={"k": secret},
        store=True,
        logit_bias={"50256": -100},
        service_tier="auto",
        prediction={"type": "content", "content": secret},
        verbosity="low",
        prompt_cache_key=secret,
        safety_identifier=secret,
        stream=True,
        stream_options={"include_usage": True, "include_obfuscation": False},
    )
    assert got.chat.modelOptions == {}
    for name in ("seed", "logit_bias", "prompt_cache_key", "stream_options.include_obfuscation"):
        assert name in caplog.text
    assert secret not in caplog.text  # names only, never the values


def test_unknown_keys_are_accepted_and_named_in_a_bounded_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.chat")
    extra = {f"x_{i}_" + "k" * 100: "secret" for i in range(30)}
    assert plan(extra_body={"a": "secret"}, **extra).chat.modelOptions == {}
    line = next(r.getMessage() for r in caplog.records if "Unknown keys" in r.getMessage())
    assert "extra_body" in line and "(and 11 more)" in line
    assert "secret" not in caplog.text and len(line) < 1200


# stop


@pytest.mark.parametrize(
    ("stop", "expected"),
    [
        ("END", ["END"]),
        (["END", "\n\n", "END", ""], ["END", "\n\n"]),
        ([], []),
        (None, []),
    ],
)
def test_stop_becomes_the_plans_sequences(stop: Any, expected: list[str]) -> None:
    assert plan(stop=stop).stop_sequences == expected


@pytest.mark.parametrize(
    ("stop", "param", "code"),
    [
        ([f"s{i}" for i in range(MAX_STOP_SEQUENCES + 1)], "stop", "array_above_max_length"),
        (["ok", "x" * (MAX_STOP_CHARS + 1)], "stop[1]", "string_above_max_length"),
        ("x" * (MAX_STOP_CHARS + 1), "stop", "string_above_max_length"),
        (["ok", 3], "stop[1]", "invalid_value"),
        (3, "stop", "invalid_value"),
    ],
)
def test_a_bad_stop_is_a_400_naming_it(stop: Any, param: str, code: str) -> None:
    got = error(body(stop=stop))
    assert (got.param, got.code) == (param, code)


# Tools and tool_choice

READ = {
    "type": "function",
    "function": {
        "name": "read",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}
WRITE = {"type": "function", "function": {"name": "write"}}


def names(got: CompletionPlan) -> list[str]:
    return [tool.name for tool in got.chat.tools]


def test_a_tool_without_parameters_takes_an_empty_object() -> None:
    (tool,) = plan(tools=[WRITE]).chat.tools
    assert tool.inputSchema == {"type": "object", "properties": {}}


def test_a_custom_tool_takes_one_string() -> None:
    (tool,) = plan(tools=[{"type": "custom", "custom": {"name": "patch"}}]).chat.tools
    assert tool.name == "patch" and tool.inputSchema is not None
    assert tool.inputSchema["properties"] == {"input": {"type": "string"}}


def test_unknown_tool_kinds_are_dropped_and_repeated_names_kept_once() -> None:
    got = plan(tools=[READ, {"type": "web_search"}, READ, WRITE])
    assert names(got) == ["read", "write"]


@pytest.mark.parametrize(
    ("choice", "offered", "mode"),
    [
        (None, ["read", "write"], "auto"),
        ("auto", ["read", "write"], "auto"),
        ("none", [], "auto"),
        # Copilot throws for required with several tools: auto plus an instruction.
        ("required", ["read", "write"], "auto"),
        ({"type": "function", "function": {"name": "write"}}, ["write"], "required"),
        ({"type": "function", "name": "write"}, ["write"], "required"),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "auto",
                    "tools": [{"type": "function", "function": {"name": "read"}}],
                },
            },
            ["read"],
            "auto",
        ),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": "required",
                    "tools": [{"type": "function", "function": {"name": "write"}}],
                },
            },
            ["write"],
            "required",
        ),
    ],
)
def test_tool_choice(choice: Any, offered: list[str], mode: str) -> None:
    got = plan(tools=[READ, WRITE], tool_choice=choice)
    assert names(got) == offered and got.chat.toolMode == mode


@pytest.mark.parametrize(
    ("tools", "choice", "param"),
    [
        ([READ], "sometimes", "tool_choice"),
        ([READ], {"type": "function", "function": {"name": "nope"}}, "tool_choice.function.name"),
        ([READ], {"type": "function"}, "tool_choice.function"),
        ([READ], {"type": "mystery"}, "tool_choice.type"),
        ([], "required", "tool_choice"),
        ([READ], {"type": "allowed_tools"}, "tool_choice.allowed_tools"),
        (
            [READ],
            {"type": "allowed_tools", "allowed_tools": {"mode": "any", "tools": []}},
            "tool_choice.allowed_tools.mode",
        ),
        (
            [READ],
            {"type": "allowed_tools", "allowed_tools": {"tools": [{"type": "x"}]}},
            "tool_choice.allowed_tools.tools[0].type",
        ),
        ([READ, "x"], None, "tools[1]"),
        ([{"type": "function"}], None, "tools[0].function"),
        ([{"type": "function", "function": {"name": ""}}], None, "tools[0].function.name"),
        (
            [{"type": "function", "function": {"name": "f", "parameters": []}}],
            None,
            "tools[0].function.parameters",
        ),
        (
            [{"type": "function", "function": {"name": "f", "description": 3}}],
            None,
            "tools[0].function.description",
        ),
    ],
)
def test_bad_tools_and_choices_name_their_param(tools: Any, choice: Any, param: str) -> None:
    extra: dict[str, Any] = {"tools": tools}
    if choice is not None:
        extra["tool_choice"] = choice
    assert error(body(**extra)).param == param


def test_parallel_tool_calls() -> None:
    assert plan().parallel_tool_calls is True
    assert plan(parallel_tool_calls=True).parallel_tool_calls is True
    assert plan(parallel_tool_calls=False).parallel_tool_calls is False


# response_format

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def test_text_format_is_free_text() -> None:
    assert plan(response_format={"type": "text"}).output_format is None


def test_json_object_format() -> None:
    got = plan(response_format={"type": "json_object"})
    assert got.output_format == OutputFormat("json_object")
    assert got.chat.modelOptions == {}  # no option carries it through Copilot
    assert got.chat.messages[-1].content[0] == TextPart(value=HEADER)  # after the history
    note = got.chat.messages[-1].content[1]
    assert isinstance(note, TextPart) and "JSON object" in note.value


def test_json_schema_format() -> None:
    spec = {"name": "answer", "schema": SCHEMA, "strict": True}
    got = plan(response_format={"type": "json_schema", "json_schema": spec})
    assert got.output_format == OutputFormat("json_schema", "answer", SCHEMA, strict=True)
    note = got.chat.messages[-1].content[1]
    assert isinstance(note, TextPart) and "'answer'" in note.value


def test_json_schema_without_a_schema_asks_for_an_object() -> None:
    got = plan(response_format={"type": "json_schema", "json_schema": {"name": "x"}})
    assert got.output_format == OutputFormat("json_object")


@pytest.mark.parametrize(
    ("fmt", "param"),
    [
        ({"type": "yaml"}, "response_format.type"),
        ({}, "response_format.type"),
        ({"type": "json_schema"}, "response_format.json_schema"),
        (
            {"type": "json_schema", "json_schema": {"schema": 3}},
            "response_format.json_schema.schema",
        ),
        ("json", "response_format"),
    ],
)
def test_a_bad_response_format_names_its_param(fmt: Any, param: str) -> None:
    assert error(body(response_format=fmt)).param == param


# prepare: the model, the schema check and the context check


async def test_prepare_resolves_the_model_and_counts_the_input() -> None:
    got = await prepare_completion(CountingBackend(), body(model="sim-echo"), ModelNames())
    assert got.chat.model == "sim-echo" and got.model == "sim-echo"
    assert got.chat.countInput is None  # it fits for certain: not counted


async def test_prepare_asks_the_editor_to_count_an_input_that_may_not_fit() -> None:
    raw = {"model": "sim-echo", "messages": [{"role": "user", "content": "aaaaaaaaaaaa bb"}]}
    got = await prepare_completion(CountingBackend(max_input_tokens=8), raw, ModelNames())
    assert got.chat.countInput is not None and got.chat.countInput.maxTokens == 8


async def test_prepare_an_unknown_model_is_a_404() -> None:
    with pytest.raises(ApiError) as caught:
        await prepare_completion(CountingBackend(), body(model="nope"), ModelNames())
    assert caught.value.status == 404


async def test_prepare_gives_a_schema_its_checker() -> None:
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
    got = await prepare_completion(
        CountingBackend(), body(model="sim-echo", response_format=fmt), ModelNames()
    )
    assert got.output_format is not None and got.output_format.checker is not None


async def test_prepare_an_invalid_schema_names_the_chat_field() -> None:
    fmt = {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": 12}}}
    with pytest.raises(ApiError) as caught:
        await prepare_completion(
            CountingBackend(), body(model="sim-echo", response_format=fmt), ModelNames()
        )
    assert caught.value.status == 400
    assert caught.value.param == "response_format.json_schema.schema"
    assert "text.format" not in caught.value.message


async def test_prepare_names_messages_for_an_input_too_long() -> None:
    long = {"role": "user", "content": "word " * 50}
    got = await prepare_completion(
        CountingBackend(max_input_tokens=10),
        {"model": "sim-echo", "messages": [long]},
        ModelNames(),
    )
    assert got.chat.inputParam == "messages"  # what the editor's refusal becomes a 400 for


# What Aider sends (tests/fixtures/aider: captured from the real Aider)

AIDER = sorted((FIXTURES / "aider").glob("*.json"))


@pytest.mark.parametrize("capture", AIDER, ids=[path.stem for path in AIDER])
def test_aiders_requests_plan(capture: Path) -> None:
    sent = json.loads(capture.read_text())["body"]
    got = plan_completion(parse_completion_request(sent), MODEL)
    assert got.model == sent["model"] and got.stream is bool(sent.get("stream"))
    assert got.chat.modelOptions == {"temperature": 0}
    assert got.include_usage is False and got.stop_sequences == [] and got.chat.tools == []
    roles = [message["role"] for message in sent["messages"]]
    texts = [p.value for m in got.chat.messages for p in m.content if isinstance(p, TextPart)]
    # Every message's text reaches the editor, in order.
    assert [t for t in texts if t not in LABELS.values()] == [
        message["content"] for message in sent["messages"]
    ]
    if roles[-1] == "system" and "assistant" in roles:
        # The edit rules Aider sends last, after the user's message, stay last.
        last = got.chat.messages[-1]
        assert last.role == "user" and last.content[0] == TextPart(value=LABELS["system"])


def test_aiders_captures_are_there() -> None:
    assert len(AIDER) >= 2
