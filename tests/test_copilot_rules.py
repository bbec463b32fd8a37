"""The headless editor's stand-in for GitHub Copilot's provider: every rule, each refusal
with Copilot's own message and error name (headless_editor/copilot/, read from
microsoft/vscode-copilot-chat: languageModelAccess.ts, languageModelAccessPrompt.tsx,
toolSchemaNormalizer.ts, chatMLFetcher.ts)."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import pytest

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    EditorError,
    MessagePart,
    ResponsePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from headless_editor.chat_types import ChatRequest, ChatTool, ModelInfo
from headless_editor.copilot import PERMISSIVE_ENV, copilot_view, model_options, rules_on_by_env
from headless_editor.copilot.draft7 import draft7_problem
from headless_editor.copilot.images import refusal, size, sniff
from headless_editor.copilot.prompt import BASE_PROMPT_TOKENS, SYSTEM_PROMPT
from headless_editor.simulated_model import MODELS, SimulatedModel
from headless_editor.tokens import count_message_tokens, count_tool_tokens

MODEL = {model.id: model for model in MODELS}
GPT4, CLAUDE, GEMINI, TEXT_ONLY, GPT5 = (
    MODEL["sim-echo"],
    MODEL["sim-reasoning"],
    MODEL["sim-gemini"],
    MODEL["sim-text-only"],
    MODEL["sim-gpt5"],
)


def user(*parts: MessagePart | str) -> ChatMessage:
    return ChatMessage(
        role="user", content=[TextPart(value=p) if isinstance(p, str) else p for p in parts]
    )


def assistant(*parts: MessagePart | str) -> ChatMessage:
    return ChatMessage(
        role="assistant", content=[TextPart(value=p) if isinstance(p, str) else p for p in parts]
    )


def tool(
    name: str = "lookup", schema: dict[str, Any] | None = None, description: str = "Looks up."
) -> ChatTool:
    return ChatTool(
        name=name,
        description=description,
        inputSchema=schema if schema is not None else {"type": "object", "properties": {}},
    )


def req(*messages: ChatMessage, model: ModelInfo = GPT4, **fields: Any) -> ChatRequest:
    return ChatRequest(model=model.id, messages=list(messages), **fields)


def refused(request: ChatRequest, model: ModelInfo = GPT4) -> EditorError:
    with pytest.raises(EditorError) as caught:
        copilot_view(request, model)
    assert caught.value.code == "Other" and caught.value.name == "Error"
    return caught.value


def upstream_message(error: EditorError) -> str:
    """The message inside `Request Failed: 400 {"error": {...}}`."""
    prefix = "Request Failed: 400 "
    assert error.message.startswith(prefix), error.message
    body = json.loads(error.message.removeprefix(prefix))
    message: str = body["error"]["message"]
    return message


def seen_texts(request: ChatRequest, model: ModelInfo = GPT4) -> list[tuple[str, list[str]]]:
    seen = copilot_view(request, model).request
    return [
        (m.role, [p.value if isinstance(p, TextPart) else p.type for p in m.content])
        for m in seen.messages
    ]


def image(kind: str, width: int = 1, height: int = 1) -> bytes:
    if kind == "png":
        return (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
            + struct.pack(">II", width, height)
            + b"\x08\x06\0\0\0"
        )
    if kind == "jpeg":
        sof = b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", height, width) + b"\x03" + b"\0" * 9
        return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + sof
    if kind == "gif":
        return b"GIF89a" + struct.pack("<HH", width, height) + b"\0\0\0"
    if kind == "bmp":
        return b"BM" + b"\0" * 16 + struct.pack("<ii", width, height)
    assert kind == "webp"
    bits = (width - 1) | ((height - 1) << 14)
    return b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f" + bits.to_bytes(4, "little")


def data(raw: bytes, mime: str) -> DataPart:
    return DataPart(mimeType=mime, data=base64.b64encode(raw).decode())


# --- The provider's own checks (languageModelAccess.ts) ----------------------------------------


def test_no_messages() -> None:
    assert refused(req()).message == "Invalid request: no messages."


@pytest.mark.parametrize("name", ["mcp__srv__read", "read-file", "A_9"])
def test_valid_tool_names_pass(name: str) -> None:
    copilot_view(req(user("hi"), tools=[tool(name)]), GPT4)


@pytest.mark.parametrize("name", ["mcp.read", "read file", "lire_café", "a/b", ""])
def test_invalid_tool_name(name: str) -> None:
    error = refused(req(user("hi"), tools=[tool("ok"), tool(name)]))
    assert error.message == (
        f'Invalid tool name "{name}": only alphanumeric characters, hyphens, and underscores '
        "are allowed."
    )


def test_at_most_128_tools() -> None:
    tools = [tool(f"t{i}") for i in range(129)]
    for model in (GPT4, CLAUDE, GEMINI):
        assert refused(req(user("hi"), tools=tools, model=model), model).message == (
            "Cannot have more than 128 tools per request."
        )
    copilot_view(req(user("hi"), tools=tools[:128]), GPT4)


def test_a_model_with_tool_search_takes_more_than_128_tools() -> None:
    tools = [tool(f"t{i}") for i in range(300)]
    assert len(copilot_view(req(user("hi"), tools=tools, model=GPT5), GPT5).request.tools) == 300
    # Claude Sonnet or Opus 4.5 and later, by model id (chatModelCapabilities.ts).
    for model_id in ("claude-opus-4.6", "claude-sonnet-4-5-20250929", "claude-opus-5"):
        opus = ModelInfo(id=model_id, family="claude-opus-4.6", maxInputTokens=200_000)
        copilot_view(req(user("hi"), tools=tools, model=opus), opus)
    for model_id in ("claude-sonnet-4", "claude-haiku-4.5", "claude-opus-4-20250514"):
        older = ModelInfo(id=model_id, family="claude-sonnet-4", maxInputTokens=200_000)
        assert "128 tools" in refused(req(user("hi"), tools=tools, model=older), older).message


def test_required_with_more_than_one_tool() -> None:
    two = [tool("a"), tool("b")]
    error = refused(req(user("hi"), tools=two, toolMode="required"))
    assert error.message == (
        "LanguageModelChatToolMode.Required is not supported with more than one tool"
    )
    copilot_view(req(user("hi"), tools=two[:1], toolMode="required"), GPT4)


def test_only_copilots_five_options_pass() -> None:
    options = {
        "max_tokens": 100,
        "temperature": 0.5,
        "stop": "END",
        "frequency_penalty": 0.1,
        "presence_penalty": 0.2,
        "maxOutputTokens": 5,
        "topP": 0.9,
        "reasoningEffort": "low",
        "responseFormat": {"type": "json_object"},
    }
    assert model_options(options) == {
        "max_tokens": 100,
        "temperature": 0.5,
        "stop": "END",
        "frequency_penalty": 0.1,
        "presence_penalty": 0.2,
    }
    # Copilot keeps scalars only: a list of stop sequences passes its check, then is dropped.
    assert model_options({"stop": ["a", "b"], "temperature": "hot", "max_tokens": True}) == {}


def test_copilot_fills_in_the_options_the_caller_left_out() -> None:
    assert copilot_view(req(user("hi")), GPT4).body == {
        "temperature": 0.1,
        "top_p": 1,
        "n": 1,
        "max_tokens": GPT4.maxOutputTokens,
    }
    mine = {"temperature": 0.7, "max_tokens": 50, "stop": "END"}
    assert copilot_view(req(user("hi"), modelOptions=mine), GPT4).body == {
        "temperature": 0.7,
        "top_p": 1,
        "n": 1,
        "max_tokens": 50,
        "stop": "END",
    }
    listed = copilot_view(req(user("hi"), modelOptions={"stop": ["a", "b"]}), GPT4).body
    assert "stop" not in listed


def test_a_responses_api_model_reasons_instead_of_sampling() -> None:
    body = copilot_view(req(user("hi"), modelOptions={"temperature": 0.7}, model=GPT5), GPT5).body
    # As real Copilot 0.67 sent it (tests/test_copilot_differential.py): no sampling options.
    assert body == {
        "max_output_tokens": GPT5.maxOutputTokens,
        "reasoning": {"effort": "medium"},
        "include": ["reasoning.encrypted_content"],
        "text": {"verbosity": "low"},
        "store": False,
        "truncation": "disabled",
    }
    high = req(user("hi"), modelConfiguration={"reasoningEffort": "high"}, model=GPT5)
    assert copilot_view(high, GPT5).body["reasoning"] == {"effort": "high"}


def test_reasoning_effort_is_read_from_model_configuration() -> None:
    view = copilot_view(
        req(user("hi"), modelOptions={"reasoningEffort": "high"}, modelConfiguration={}), CLAUDE
    )
    assert view.reasoning_effort is None
    view = copilot_view(req(user("hi"), modelConfiguration={"reasoningEffort": "low"}), CLAUDE)
    assert view.reasoning_effort == "low"


def test_output_limit_is_max_tokens_else_the_models() -> None:
    assert copilot_view(req(user("hi")), GPT4).output_limit == GPT4.maxOutputTokens == 16384
    assert copilot_view(req(user("hi"), modelOptions={"max_tokens": 50}), GPT4).output_limit == 50
    limited = req(user("hi"), modelOptions={"maxOutputTokens": 50})
    assert copilot_view(limited, GPT4).output_limit == 16384


# --- The token limit counts the tools' definitions --------------------------------------------


# Copilot's own prompt counts against the listed window (which already left it out): a model
# listed with BASE_PROMPT_TOKENS + 100 input tokens takes 100 of the conversation's.
SMALL = ModelInfo(
    id="sim-echo", family="gpt-4.1", maxInputTokens=BASE_PROMPT_TOKENS + 100, maxOutputTokens=10
)


def test_token_limit_counts_the_tools() -> None:
    small = SMALL
    messages = [user("word " * 60)]
    assert count_message_tokens(messages) <= 100
    copilot_view(req(*messages), small)
    schema = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(10)}}
    tools = [tool("big", schema)]
    assert count_message_tokens(messages) + count_tool_tokens(tools) > 100
    assert refused(req(*messages, tools=tools), small).message == "Message exceeds token limit."


def test_over_budget_images_go_first() -> None:
    small = SMALL
    picture = data(image("png"), "image/png")
    messages = [user("word " * 60, picture)]
    assert seen_texts(req(*messages), small) == [("user", ["word " * 60])]
    assert refused(req(user("word " * 120)), small).message == "Message exceeds token limit."


def test_the_system_prompt_counts_against_the_window() -> None:
    messages = [user("word " * 60)]
    exact = ModelInfo(
        id="sim-echo",
        family="gpt-4.1",
        maxInputTokens=BASE_PROMPT_TOKENS + count_message_tokens(messages),
    )
    copilot_view(req(*messages), exact)
    short = ModelInfo(id="sim-echo", family="gpt-4.1", maxInputTokens=exact.maxInputTokens - 1)
    assert refused(req(*messages), short).message == "Message exceeds token limit."


def test_copilots_system_prompt_comes_first() -> None:
    view = copilot_view(req(user("hi")), GPT4)
    assert view.system == SYSTEM_PROMPT
    assert view.system.startswith("Follow Microsoft content policies.\n")
    assert "Keep your answers short and impersonal." in view.system
    assert "Use Markdown formatting in your answers." in view.system


def test_only_empty_text_renders_nothing() -> None:
    assert refused(req(user(""))).message == "Message exceeds token limit."


# --- Rendering (languageModelAccessPrompt.tsx) -------------------------------------------------


def test_assistant_keeps_its_first_text_part_only() -> None:
    request = req(user("hi"), assistant("first", "second"), user("next"))
    assert seen_texts(request) == [
        ("user", ["hi"]),
        ("assistant", ["first"]),
        ("user", ["next"]),
    ]


async def test_the_echo_shows_what_the_model_saw_of_its_last_answer() -> None:
    request = req(
        user("hi"), assistant("Part one.", " Part two."), user("Repeat your last answer.")
    )
    strict = [p async for p in SimulatedModel(copilot_rules=True).respond(request)]
    loose = [p async for p in SimulatedModel(copilot_rules=False).respond(request)]
    assert text(strict) == "My last answer: Part one."
    assert text(loose) == "My last answer: Part one. Part two."


def text(parts: list[ResponsePart]) -> str:
    return "".join(p.value for p in parts if isinstance(p, TextPart))


def test_empty_text_parts_are_dropped() -> None:
    assert seen_texts(req(user("", "hi", ""))) == [("user", ["hi"])]


def test_trailing_assistant_turn_gets_please_continue() -> None:
    assert seen_texts(req(user("hi"), assistant("Sure,"))) == [
        ("user", ["hi"]),
        ("assistant", ["Sure,"]),
        ("user", ["Please continue."]),
    ]


async def test_the_echo_answers_please_continue() -> None:
    parts = [p async for p in SimulatedModel().respond(req(user("hi"), assistant("Sure,")))]
    assert text(parts) == "You said: Please continue."


def test_only_the_five_image_types_count() -> None:
    request = req(
        user("look", data(b"%PDF-1.4", "application/pdf"), data(image("gif"), "image/gif"))
    )
    assert seen_texts(request) == [("user", ["look", "data"])]
    assert copilot_view(request, GPT4).request.messages[0].content[1] == data(
        image("gif"), "image/gif"
    )


# --- Tool calls and results the upstream refuses -----------------------------------------------


def call(call_id: str = "call_1") -> ToolCallPart:
    return ToolCallPart(callId=call_id, name="lookup", input={})


def result(call_id: str = "call_1") -> ToolResultPart:
    return ToolResultPart(callId=call_id, content=[TextPart(value="ok")])


def test_paired_calls_and_results_pass() -> None:
    request = req(
        user("go"),
        assistant("On it.", call("a"), call("b")),
        user(result("a"), result("b"), "and?"),
        tools=[tool()],
    )
    assert seen_texts(request) == [
        ("user", ["go"]),
        ("assistant", ["On it.", "toolCall", "toolCall"]),
        ("user", ["toolResult", "toolResult", "and?"]),
    ]


# Copilot does not pair calls and results (its check filters the wrong part type and never
# fires): every one of these reaches the model as rendered (the cloud may refuse them).


@pytest.mark.parametrize("model", [GPT4, CLAUDE], ids=lambda m: m.family)
def test_unpaired_calls_and_results_pass(model: ModelInfo) -> None:
    orphan = req(user("go"), assistant("ok"), user(result("call_x")), model=model)
    assert seen_texts(orphan, model) == [
        ("user", ["go"]),
        ("assistant", ["ok"]),
        ("user", ["toolResult"]),
    ]
    unanswered = req(user("go"), assistant(call()), user("well?"), model=model)
    assert seen_texts(unanswered, model)[-1] == ("user", ["well?"])
    ending = req(user("go"), assistant(call()), model=model)
    assert seen_texts(ending, model)[-1] == ("user", ["Please continue."])
    misordered = req(user("go"), assistant(call()), user("here:", result()), model=model)
    assert seen_texts(misordered, model)[-1] == ("user", ["here:", "toolResult"])


# --- Tool schemas CAPI refuses, per family (toolSchemaNormalizer.ts) ---------------------------

EVERY_FAMILY = [GPT4, CLAUDE, GEMINI, TEXT_ONLY]


@pytest.mark.parametrize("model", EVERY_FAMILY, ids=lambda m: m.family)
@pytest.mark.parametrize(
    ("schema", "description", "problem"),
    [
        ({"type": "object", "properties": {}}, "", "tool description may not be empty"),
        ({"type": "string"}, "d", "parameters must be an object schema with properties"),
        ({"type": "object"}, "d", "parameters must be an object schema with properties"),
        ({"type": "object", "properties": {"a": {"type": "text"}}}, "d", "draft 7"),
        ({"type": "object", "properties": {"a": {"type": "array"}}}, "d", "no items"),
        ({"type": "object", "properties": {}, "anyOf": [{}]}, "d", "top-level keyword 'anyOf'"),
        ({"type": "object", "properties": {}, "required": ["x"]}, "d", "'x' is not defined"),
    ],
)
def test_schemas_every_family_refuses(
    model: ModelInfo, schema: dict[str, Any], description: str, problem: str
) -> None:
    error = refused(req(user("hi"), tools=[tool("t", schema, description)], model=model), model)
    message = upstream_message(error)
    assert message.startswith("Invalid schema for function 't': ") and problem in message


def test_an_empty_schema_is_sent_without_parameters() -> None:
    copilot_view(req(user("hi"), tools=[ChatTool(name="t", description="d")]), GPT4)
    copilot_view(req(user("hi"), tools=[ChatTool(name="t", description="d", inputSchema={})]), GPT4)


def prop(extra: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {"type": "string", **extra}}}


@pytest.mark.parametrize(
    ("schema", "refused_by"),
    [
        (prop({"format": "uri"}), {"gpt-4.1"}),
        (prop({"minLength": 1}), {"gpt-4.1"}),
        (prop({"pattern": "^a"}), {"gpt-4.1"}),
        (prop({"default": "x"}), {"gpt-4.1"}),
        (prop({"description": "x" * 1025}), {"gpt-4.1"}),
        (prop({"description": "x" * 1024}), set()),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "array", "items": [{"type": "string"}]}},
            },
            {"gpt-4.1", "claude-sonnet-4.5"},
        ),
        (prop({"type": ["string", "null"]}), {"gemini-2.5-pro"}),
        (prop({"type": ["string", "integer", "null"]}), {"gemini-2.5-pro"}),
        (prop({"type": ["string", "integer"]}), set()),
        ({"$schema": "http://json-schema.org/draft-07/schema#", **prop({"enum": ["a"]})}, set()),
    ],
)
def test_schemas_per_family(schema: dict[str, Any], refused_by: set[str]) -> None:
    for model in EVERY_FAMILY:
        request = req(user("hi"), tools=[tool("t", schema)], model=model)
        if model.family in refused_by:
            assert upstream_message(refused(request, model)).startswith("Invalid schema")
        else:
            copilot_view(request, model)


def test_draft7_shapes() -> None:
    assert draft7_problem({"type": "object", "properties": {"a": {"minLength": "3"}}}) is None
    assert draft7_problem({"required": "a"}) == "/required must be a list of unique strings"
    assert draft7_problem({"properties": {"a": {"minimum": "low"}}}) == (
        "/properties/a/minimum must be a number"
    )
    assert draft7_problem({"items": [{"type": 3}]}) is not None
    assert draft7_problem({"allOf": []}) == "/allOf must be a non-empty list"
    assert draft7_problem({"$defs": {"x": {"type": "nope"}}}) is None  # not a draft-7 keyword


# --- Images ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["png", "jpeg", "gif", "bmp", "webp"])
def test_images_are_sniffed_and_measured(kind: str) -> None:
    raw = image(kind, 1000, 20)
    assert sniff(raw) == f"image/{kind}"
    assert size(raw, f"image/{kind}") == (1000, 20)
    assert refusal(f"image/{kind}", base64.b64encode(raw).decode()) is None


def test_an_image_must_match_its_label() -> None:
    picture = data(image("jpeg"), "image/png")
    message = upstream_message(refused(req(user("see", picture))))
    assert message == "Image does not match the provided media type image/png"
    assert refusal("image/png", base64.b64encode(b"not an image").decode()) is not None


def test_a_large_image_is_re_encoded_to_png_under_its_old_label() -> None:
    large = data(image("jpeg", 800, 800), "image/jpeg")
    message = upstream_message(refused(req(user("see", large))))
    assert message == "Image does not match the provided media type image/jpeg"
    copilot_view(req(user("see", data(image("jpeg", 800, 700), "image/jpeg"))), GPT4)
    copilot_view(req(user("see", data(image("png", 2000, 2000), "image/png"))), GPT4)


def test_images_in_tool_results_are_checked_too() -> None:
    bad = ToolResultPart(callId="call_1", content=[data(image("gif"), "image/webp")])
    request = req(user("go"), assistant(call()), user(bad), tools=[tool()])
    assert "Image does not match" in upstream_message(refused(request))


def test_a_model_without_image_input_fails_upstream() -> None:
    picture = data(image("png"), "image/png")
    error = refused(req(user("see", picture), model=TEXT_ONLY), TEXT_ONLY)
    assert error.message == (
        'Request Failed: 400 {"error":{"message":"model \\"sim-text-only\\" not supported '
        'for vision","code":""}}'
    )
    # A type Copilot does not count as an image is dropped, so it does not fail.
    copilot_view(req(user("see", data(b"%PDF", "application/pdf")), model=TEXT_ONLY), TEXT_ONLY)


# --- Through the model, and the switch ---------------------------------------------------------


async def test_the_model_fails_as_copilot_does_before_any_part() -> None:
    model = SimulatedModel()
    with pytest.raises(EditorError) as caught:
        async for _ in model.respond(req(user("hi"), tools=[tool("a.b")])):
            pass
    assert caught.value.message.startswith('Invalid tool name "a.b"')


async def test_the_permissive_model_takes_what_copilot_refuses() -> None:
    request = req(user("hi"), tools=[tool("a.b"), tool("c")], toolMode="required")
    parts = [p async for p in SimulatedModel(copilot_rules=False).respond(request)]
    assert [p.name for p in parts if isinstance(p, ToolCallPart)] == ["a.b"]


async def test_a_stop_string_ends_the_answer() -> None:
    request = req(user("one two three"), modelOptions={"stop": " two"})
    assert text([p async for p in SimulatedModel().respond(request)]) == "You said: one"


def test_the_switch_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PERMISSIVE_ENV, raising=False)
    assert rules_on_by_env() and SimulatedModel().copilot_rules
    monkeypatch.setenv(PERMISSIVE_ENV, "1")
    assert not rules_on_by_env() and not SimulatedModel().copilot_rules
    assert SimulatedModel(copilot_rules=True).copilot_rules
