"""The simulated model and its tokenizer: every answer is deterministic and counted."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import jsonschema
import pytest

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    EditorError,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from headless_editor.chat_types import ChatRequest, ChatTool
from headless_editor.copilot.prompt import BASE_PROMPT_TOKENS
from headless_editor.script import Script
from headless_editor.simulated_model import MODELS, SimulatedModel, placeholder_input
from headless_editor.tokens import (
    count_message_tokens,
    count_tokens,
    count_tool_call_tokens,
    count_tool_tokens,
    split_tokens,
)

# Codex's exec_command tool, as the bridge passes it on.
EXEC_COMMAND = ChatTool(
    name="exec_command",
    description="Runs a command in a PTY, returning output or a session ID.",
    inputSchema={
        "type": "object",
        "properties": {
            "cmd": {"type": "string", "description": "Shell command to execute."},
            "workdir": {"type": "string"},
            "shell": {"type": "string"},
            "login": {"type": "boolean"},
            "tty": {"type": "boolean"},
            "yield_time_ms": {"type": "number"},
            "max_output_tokens": {"type": "number"},
            "sandbox_permissions": {"type": "string", "enum": ["use_default", "require_escalated"]},
            "justification": {"type": "string"},
        },
        "required": ["cmd"],
        "additionalProperties": False,
    },
)
WRITE_STDIN = ChatTool(
    name="write_stdin",
    description="Writes characters to an existing exec session.",
    inputSchema={
        "type": "object",
        "properties": {"session_id": {"type": "number"}, "chars": {"type": "string"}},
        "required": ["session_id"],
    },
)


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=[TextPart(value=text)])


def request(*messages: ChatMessage, **fields: Any) -> ChatRequest:
    return ChatRequest(model=fields.pop("model", "sim-echo"), messages=list(messages), **fields)


async def collect(
    req: ChatRequest, script: Script | None = None, copilot_rules: bool = True
) -> list[ResponsePart]:
    model = SimulatedModel(copilot_rules=copilot_rules)
    return [part async for part in model.respond(req, script)]


# A 1x1 PNG's signature and header: what the upstream reads to know an image.
PNG_1X1 = base64.b64encode(
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
).decode()


def text_of(parts: list[ResponsePart]) -> str:
    return "".join(part.value for part in parts if isinstance(part, TextPart))


def usage_of(parts: list[ResponsePart]) -> dict[str, Any]:
    last = parts[-1]
    assert isinstance(last, DataPart) and last.mimeType == "usage"
    assert not any(isinstance(p, DataPart) for p in parts[:-1])
    usage: dict[str, Any] = json.loads(base64.b64decode(last.data))
    return usage


# What the bridge sends a Claude model for a client's reasoning effort: Copilot thinks then.
THINK: dict[str, Any] = {"_enableThinking": True}


def ended_at_the_limit(parts: list[ResponsePart]) -> bool:
    """Copilot 0.67's length end: the answer so far and no usage part."""
    return not any(isinstance(p, DataPart) and p.mimeType == "usage" for p in parts)


def calls_of(parts: list[ResponsePart]) -> list[ToolCallPart]:
    return [part for part in parts if isinstance(part, ToolCallPart)]


# --- Tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("   ", 0),
        ("Hello, world!", 6),  # Hell-o , worl-d !
        ("internationalization", 5),  # 20 characters, 4 per piece
        ("abcd abcde", 3),
        ("x=1;", 4),
        ("naïve café", 3),
    ],
)
def test_count_tokens(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


@pytest.mark.parametrize("text", ["", "  ", "Hello,  world! ", " lead\n\ttrail  ", "a" * 11])
def test_split_tokens_concatenates_back_and_counts(text: str) -> None:
    pieces = split_tokens(text)
    assert "".join(pieces) == text
    assert sum(count_tokens(piece) for piece in pieces) == count_tokens(text)


def test_count_message_tokens() -> None:
    png = base64.b64encode(b"\x89PNG...").decode()
    note = base64.b64encode(b'{"ok": true}').decode()
    messages = [
        ChatMessage(
            role="user",
            content=[
                TextPart(value="Hello, world!"),  # 6
                DataPart(mimeType="image/png", data=png),  # 85
            ],
        ),
        ChatMessage(
            role="assistant",
            content=[
                ToolCallPart(callId="c1", name="exec_command", input={"cmd": "ls"}),
            ],
        ),
        ChatMessage(
            role="user",
            content=[
                ToolResultPart(
                    callId="c1",
                    content=[
                        TextPart(value="a b"),  # 2
                        DataPart(mimeType="application/json", data=note),  # {"ok": true} is 7
                    ],
                ),
            ],
        ),
    ]
    call_tokens = count_tokens("exec_command") + count_tokens('{"cmd": "ls"}')
    assert call_tokens == count_tool_call_tokens("exec_command", {"cmd": "ls"}) == 12
    assert count_message_tokens(messages) == 6 + 85 + call_tokens + 2 + 7


def test_count_tool_tokens() -> None:
    tool = ChatTool(name="f", description="Do it.", inputSchema={"type": "object"})
    assert (
        count_tool_tokens([tool, ChatTool(name="g")])
        == 1 + 3 + count_tokens('{"type": "object"}') + 1
    )


# --- Models -------------------------------------------------------------------------------------


def test_models() -> None:
    models = {model.id: model for model in SimulatedModel().models()}
    echo = models["sim-echo"]
    assert (echo.name, echo.vendor, echo.family, echo.version, echo.maxInputTokens) == (
        "Simulated echo",
        "maestro-sim",
        "gpt-4.1",  # Copilot's families, so its per-family rules apply
        "1",
        128000,
    )
    assert echo.maxOutputTokens == 16384 and echo.capabilities.imageInput
    reasoning = models["sim-reasoning"]
    assert (reasoning.vendor, reasoning.family) == ("maestro-sim", "claude-sonnet-4.5")
    assert models["sim-gemini"].family == "gemini-2.5-pro"
    assert not models["sim-text-only"].capabilities.imageInput
    assert SimulatedModel().count_tokens("Hello, world!") == 6


def test_auto_and_the_utility_aliases_are_listed_and_answer() -> None:
    models = {model.id: model for model in SimulatedModel().models()}
    assert models["auto"].name == "Auto"
    for alias in ("copilot-utility", "copilot-utility-small"):
        assert models[alias].family == alias  # a copy of its model's entry under the alias
    gpt5 = models["sim-gpt5"]
    # CAPI's 64,000-token window less Copilot's own prompt (o200k: 63,790; our estimate below).
    assert gpt5.maxInputTokens == 64000 - BASE_PROMPT_TOKENS - 3 < 64000


async def test_auto_is_answered_by_a_model() -> None:
    for model_id in ("auto", "copilot-utility", "copilot-utility-small"):
        parts = await collect(request(user("hi"), model=model_id))
        assert text_of(parts) == "You said: hi"


async def test_a_responses_api_answer_carries_a_stateful_marker() -> None:
    model = SimulatedModel()
    parts = [p async for p in model.respond(request(user("hi"), model="sim-gpt5"))]
    marker, usage = parts[-2:]
    assert isinstance(marker, DataPart) and marker.mimeType == "stateful_marker"
    model_id, response_id = base64.b64decode(marker.data).decode().split("\\")
    assert model_id == "sim-gpt5" and response_id.startswith("resp_")
    assert isinstance(usage, DataPart) and usage.mimeType == "usage"
    again = [p async for p in model.respond(request(user("hi"), model="sim-gpt5"))]
    assert again[-2] != marker  # each response has its own id
    echo = await collect(request(user("hi")))
    assert [p.mimeType for p in echo if isinstance(p, DataPart)] == ["usage"]


def test_models_returns_copies() -> None:
    SimulatedModel().models()[0].name = "changed"
    assert MODELS[0].name == "Simulated echo"


async def test_unknown_model_is_not_found() -> None:
    with pytest.raises(EditorError) as caught:
        await collect(request(user("hi"), model="gpt-5"))
    assert caught.value.code == "NotFound"
    assert "gpt-5" in caught.value.message


# --- Text ---------------------------------------------------------------------------------------


async def test_echo_streams_small_parts_that_join_exactly() -> None:
    parts = await collect(request(user("Please  say\n hello,   world!")))
    texts = [part for part in parts if isinstance(part, TextPart)]
    assert text_of(parts) == "You said: Please say hello, world!"
    assert len(texts) > 3
    assert all(count_tokens(part.value) <= 2 for part in texts)
    assert len(parts) == len(texts) + 1


async def test_echo_is_truncated_to_200_characters() -> None:
    words = " ".join(f"word{i}" for i in range(100))
    parts = await collect(request(user(words)))
    assert text_of(parts) == "You said: " + words[:200]


async def test_echo_uses_the_last_user_text() -> None:
    image = DataPart(mimeType="image/png", data=PNG_1X1)
    parts = await collect(
        request(
            user("first"),
            ChatMessage(role="assistant", content=[TextPart(value="ok")]),
            ChatMessage(role="user", content=[TextPart(value="look at this"), image]),
        )
    )
    assert text_of(parts) == "You said: look at this"


async def test_tool_result_is_reported_by_tool_name() -> None:
    parts = await collect(
        request(
            user("run it"),
            ChatMessage(
                role="assistant",
                content=[
                    ToolCallPart(callId="call_1", name="exec_command", input={"cmd": "ls"}),
                ],
            ),
            ChatMessage(
                role="user",
                content=[
                    ToolResultPart(
                        callId="call_1",
                        content=[
                            TextPart(value="hello"),
                            TextPart(value=" world"),
                        ],
                    )
                ],
            ),
            tools=[EXEC_COMMAND],
        )
    )
    assert text_of(parts) == "The tool exec_command returned 11 characters."
    assert calls_of(parts) == []


async def test_tool_result_without_its_call_is_reported_by_call_id() -> None:
    # Only the permissive model answers this: Copilot's upstream refuses an unpaired result.
    parts = await collect(
        request(
            ChatMessage(
                role="user",
                content=[
                    ToolResultPart(callId="call_x", content=[TextPart(value="abc")]),
                ],
            )
        ),
        copilot_rules=False,
    )
    assert text_of(parts) == "The tool call_x returned 3 characters."


# --- Tool calls ---------------------------------------------------------------------------------


async def test_calls_the_first_tool_with_a_valid_input() -> None:
    req = request(user("list the files"), tools=[EXEC_COMMAND, WRITE_STDIN])
    parts = await collect(req)
    # Copilot's chat and Messages processors put a lone space between text and a call.
    assert text_of(parts) == "Calling exec_command. "
    assert calls_of(parts) == [
        ToolCallPart(callId="call_sim_1", name="exec_command", input={"cmd": "placeholder"}),
    ]
    assert isinstance(parts[-2], ToolCallPart)  # the call comes after the text
    assert parts[-3] == TextPart(value=" ")
    assert EXEC_COMMAND.inputSchema is not None
    jsonschema.validate(calls_of(parts)[0].input, EXEC_COMMAND.inputSchema)


async def test_call_input_never_comes_from_the_prompt() -> None:
    parts = await collect(request(user("rm -rf / please"), tools=[EXEC_COMMAND]))
    assert calls_of(parts)[0].input == {"cmd": "placeholder"}


async def test_call_ids_follow_the_turn() -> None:
    history = [
        user("one"),
        ChatMessage(role="assistant", content=[TextPart(value="ok")]),
        user("two"),
    ]
    parts = await collect(request(*history, tools=[EXEC_COMMAND]))
    assert calls_of(parts)[0].callId == "call_sim_3"


async def test_no_tools_means_no_call() -> None:
    parts = await collect(request(user("hi"), toolMode="required"))
    assert calls_of(parts) == []


async def test_required_mode_calls_even_after_a_tool_result() -> None:
    history = [
        user("type it"),
        ChatMessage(
            role="assistant",
            content=[ToolCallPart(callId="call_1", name="write_stdin", input={"session_id": 1})],
        ),
        ChatMessage(
            role="user",
            content=[
                ToolResultPart(callId="call_1", content=[TextPart(value="done")]),
            ],
        ),
    ]
    auto = await collect(request(*history, tools=[WRITE_STDIN]))
    assert calls_of(auto) == []
    required = await collect(request(*history, tools=[WRITE_STDIN], toolMode="required"))
    assert calls_of(required) == [
        ToolCallPart(callId="call_sim_3", name="write_stdin", input={"session_id": 0}),
    ]


async def test_last_message_from_assistant_gets_no_call_in_auto_mode() -> None:
    # Permissive only: Copilot appends "Please continue." after an assistant turn.
    assistant = ChatMessage(role="assistant", content=[TextPart(value="prefill")])
    parts = await collect(request(user("hi"), assistant, tools=[EXEC_COMMAND]), copilot_rules=False)
    assert calls_of(parts) == []


DEFS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "Point": {
            "type": "object",
            "properties": {"x": {"type": "integer", "minimum": 3}, "y": {"type": "number"}},
            "required": ["x", "y"],
        },
        "Mode": {"type": "string", "enum": ["fast", "slow"]},
    },
    "properties": {
        "origin": {"$ref": "#/$defs/Point"},
        "mode": {"$ref": "#/$defs/Mode"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "path": {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/Point"}},
        "label": {"anyOf": [{"type": "string", "minLength": 15}, {"type": "null"}]},
        "maybe": {"type": ["null", "boolean"]},
        "nothing": {"type": "null"},
        "kind": {"const": "shape"},
        "optional": {"type": "string"},
    },
    "required": ["origin", "mode", "tags", "path", "label", "maybe", "nothing", "kind"],
    "additionalProperties": False,
}


def test_placeholder_input_with_defs_and_refs() -> None:
    value = placeholder_input(DEFS_SCHEMA)
    assert value == {
        "origin": {"x": 3, "y": 0},
        "mode": "fast",
        "tags": [],
        "path": [{"x": 3, "y": 0}, {"x": 3, "y": 0}],
        "label": "placeholderxxxx",
        "maybe": False,
        "nothing": None,
        "kind": "shape",
    }
    jsonschema.Draft202012Validator(DEFS_SCHEMA).validate(value)


def test_placeholder_input_with_draft7_definitions_and_all_of() -> None:
    schema: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {
            "Base": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
            },
            "Level": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9},
        },
        "type": "object",
        "properties": {
            "item": {
                "allOf": [
                    {"$ref": "#/definitions/Base"},
                    {
                        "properties": {"name": {"type": "string", "maxLength": 4}},
                        "required": ["name"],
                    },
                ]
            },
            "level": {"$ref": "#/definitions/Level"},
            "choice": {"oneOf": [{"type": "boolean"}, {"type": "string"}]},
            "ratio": {"type": "number", "minimum": 0.5},
        },
        "required": ["item", "level", "choice", "ratio"],
    }
    value = placeholder_input(schema)
    assert value == {
        "item": {"id": 0, "name": "plac"},
        "level": 1,
        "choice": False,
        "ratio": 0.5,
    }
    jsonschema.Draft7Validator(schema).validate(value)


@pytest.mark.parametrize(
    "schema", [None, {}, {"type": "object"}, {"type": "string"}, {"$ref": "#/$defs/Missing"}]
)
def test_placeholder_input_without_required_properties_is_empty(
    schema: dict[str, Any] | None,
) -> None:
    assert placeholder_input(schema) == {}


def test_placeholder_input_survives_recursive_refs() -> None:
    schema = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/Node"}},
                "required": ["next"],
            }
        },
        "$ref": "#/$defs/Node",
    }
    value = placeholder_input(schema)
    depth = 0
    while isinstance(value, dict):
        value = value["next"]
        depth += 1
    assert 1 < depth < 40


async def test_custom_tool_input() -> None:
    apply_patch = ChatTool(
        name="apply_patch",
        description="Edits files with a patch.",
        inputSchema={
            "type": "object",
            "properties": {"input": {"type": "string"}},
            "required": ["input"],
            "additionalProperties": False,
        },
    )
    parts = await collect(request(user("patch it"), tools=[apply_patch]))
    assert calls_of(parts)[0].input == {"input": "placeholder"}


# --- Thinking -----------------------------------------------------------------------------------


async def test_reasoning_model_thinks_first() -> None:
    prompt = "Explain the following code in great detail, line by line: SECRET_TAIL"
    parts = await collect(
        request(user(prompt), model="sim-reasoning", tools=[EXEC_COMMAND], modelOptions=THINK)
    )
    thinking = [part for part in parts if isinstance(part, ThinkingPart)]
    assert 2 <= len(thinking) <= 3
    assert parts[: len(thinking)] == thinking
    reasoning = "".join(part.value for part in thinking)
    assert reasoning.startswith('Considering the request: "Explain the following code in great ')
    assert prompt[:40] in reasoning and prompt[:41] not in reasoning
    assert "SECRET_TAIL" not in reasoning
    assert "exec_command" in reasoning
    assert usage_of(parts)["completion_tokens_details"]["reasoning_tokens"] == count_tokens(
        reasoning
    )


async def test_echo_model_does_not_think() -> None:
    parts = await collect(request(user("hi")))
    assert not any(isinstance(part, ThinkingPart) for part in parts)
    assert usage_of(parts)["completion_tokens_details"]["reasoning_tokens"] == 0


async def test_claude_thinks_only_when_asked() -> None:
    """Copilot 0.67 switches a Claude model's thinking on only when the caller's raw options say
    `_enableThinking` (the bridge does for a client's reasoning effort)."""
    parts = await collect(
        request(user("hi"), model="sim-reasoning", modelConfiguration={"reasoningEffort": "low"})
    )
    assert not any(isinstance(part, ThinkingPart) for part in parts)
    assert text_of(parts) == "You said: hi"
    low = await collect(request(user("hi"), model="sim-reasoning", modelOptions=THINK))
    assert any(isinstance(part, ThinkingPart) for part in low)


# --- Usage, limits, determinism -----------------------------------------------------------------


async def test_usage_counts_prompt_and_completion() -> None:
    parts = await collect(request(user("Hello, world!")))
    # The prompt is Copilot's system prompt, then the conversation (6 tokens).
    assert usage_of(parts) == {
        "prompt_tokens": BASE_PROMPT_TOKENS + 6,
        "completion_tokens": count_tokens("You said: Hello, world!"),
        "total_tokens": BASE_PROMPT_TOKENS + 15,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }
    assert usage_of(parts)["completion_tokens"] == 9
    permissive = await collect(request(user("Hello, world!")), copilot_rules=False)
    assert usage_of(permissive)["prompt_tokens"] == 6  # no Copilot, no system prompt


async def test_usage_counts_tools_and_calls() -> None:
    messages = [user("go")]
    parts = await collect(request(*messages, tools=[EXEC_COMMAND], model="sim-reasoning"))
    call = calls_of(parts)[0]
    thinking = "".join(p.value for p in parts if isinstance(p, ThinkingPart))
    usage = usage_of(parts)
    assert usage["prompt_tokens"] == (
        BASE_PROMPT_TOKENS + count_message_tokens(messages) + count_tool_tokens([EXEC_COMMAND])
    )
    assert usage["completion_tokens"] == (
        count_tokens(text_of(parts))
        + count_tool_call_tokens(call.name, call.input)
        + count_tokens(thinking)
    )
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


# Copilot 0.67 streams what fits in the output limit and ends the answer normally (it only
# logs a warning; 0.42 threw "Response too long."); the usage part's completion_tokens are the
# limit in force, which is how a caller tells a length finish.


async def test_max_tokens_truncates_text_and_ends_normally() -> None:
    parts = await collect(request(user("one two three four"), modelOptions={"max_tokens": 4}))
    assert text_of(parts) == "You said: one"
    assert ended_at_the_limit(parts)
    permissive = await collect(
        request(user("one two three four"), modelOptions={"maxOutputTokens": 4}),
        copilot_rules=False,
    )
    assert text_of(permissive) == "You said: one"
    assert usage_of(permissive)["completion_tokens"] == 4


async def test_the_models_own_limit_cuts_when_no_max_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    echo = next(m for m in MODELS if m.id == "sim-echo")
    monkeypatch.setattr(echo, "maxOutputTokens", 5)
    parts = await collect(request(user("word " * 40)))
    assert ended_at_the_limit(parts)
    assert 0 < count_tokens(text_of(parts)) <= 5


async def test_max_tokens_drops_a_call_that_does_not_fit() -> None:
    parts = await collect(request(user("go"), tools=[EXEC_COMMAND], modelOptions={"max_tokens": 6}))
    assert text_of(parts) == "Calling exec_command."  # 6 tokens: exec_com-mand
    assert calls_of(parts) == []
    assert ended_at_the_limit(parts)


async def test_max_tokens_counts_thinking() -> None:
    parts = await collect(
        request(user("hi"), model="sim-reasoning", modelOptions={**THINK, "max_tokens": 3})
    )
    assert [part.value for part in parts if isinstance(part, ThinkingPart)] == ["Considering"]
    assert text_of(parts) == ""
    assert ended_at_the_limit(parts)


async def test_max_tokens_zero_and_nonsense() -> None:
    zero = await collect(request(user("hi"), modelOptions={"max_tokens": 0}))
    assert text_of(zero) == "" and ended_at_the_limit(zero)
    ignored = await collect(request(user("hi"), modelOptions={"max_tokens": "5"}))
    assert text_of(ignored) == "You said: hi"
    exact = await collect(request(user("hi"), modelOptions={"max_tokens": 4}))
    assert text_of(exact) == "You said: hi"  # 4 tokens: an answer that fits is whole
    assert usage_of(exact)["completion_tokens"] == 4


async def test_two_runs_are_equal() -> None:
    req = request(
        user("Say something long enough to stream in pieces."),
        model="sim-reasoning",
        tools=[EXEC_COMMAND, WRITE_STDIN],
    )
    assert await collect(req) == await collect(req)
    plain = request(user("again"))
    assert await collect(plain) == await collect(plain)


async def test_cancelling_stops_the_stream() -> None:
    seen: list[ResponsePart] = []
    first = asyncio.Event()

    async def consume() -> None:
        async for part in SimulatedModel().respond(request(user("a b c d e f g h i j k"))):
            seen.append(part)
            first.set()

    task = asyncio.create_task(consume())
    await first.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert 1 <= len(seen) < 5
    assert not any(isinstance(part, DataPart) for part in seen)


# --- Scripts ------------------------------------------------------------------------------------


SCRIPT = Script.model_validate(
    {
        "rules": [
            {
                "match": "files",
                "reply": [
                    {"type": "text", "text": "Listing the files now."},
                    {"type": "tool_call", "name": "exec_command", "arguments": {"cmd": "ls"}},
                ],
            },
            {
                "match": "^total",
                "reply": [
                    {"type": "thinking", "text": "Read it."},
                    {"type": "text", "text": "Done."},
                ],
            },
        ]
    }
)


async def test_script_reply_replaces_the_default() -> None:
    parts = await collect(request(user("show files"), tools=[WRITE_STDIN]), SCRIPT)
    assert text_of(parts) == "Listing the files now. "  # Copilot's space before the call
    assert len([p for p in parts if isinstance(p, TextPart)]) > 1  # streamed in chunks
    assert calls_of(parts) == [
        ToolCallPart(callId="call_script_0_1_0", name="exec_command", input={"cmd": "ls"}),
    ]
    usage = usage_of(parts)
    assert usage["completion_tokens"] == count_tokens("Listing the files now.") + (
        count_tool_call_tokens("exec_command", {"cmd": "ls"})
    )


async def test_script_matches_tool_output_and_keeps_its_thinking() -> None:
    call = ToolCallPart(callId="call_script_0_1_0", name="exec_command", input={"cmd": "ls"})
    result = ChatMessage(
        role="user",
        content=[
            ToolResultPart(callId="call_script_0_1_0", content=[TextPart(value="total 0")]),
        ],
    )
    history = [user("show files"), ChatMessage(role="assistant", content=[call]), result]
    parts = await collect(request(*history), SCRIPT)
    assert parts[0] == ThinkingPart(value="Read it.")
    assert text_of(parts) == "Done."
    assert usage_of(parts)["completion_tokens_details"]["reasoning_tokens"] == 3


async def test_unmatched_script_falls_back_to_the_default() -> None:
    parts = await collect(request(user("hello")), SCRIPT)
    assert text_of(parts) == "You said: hello"


async def test_reasoning_model_thinks_before_a_script_reply() -> None:
    parts = await collect(
        request(user("show files"), model="sim-reasoning", modelOptions=THINK), SCRIPT
    )
    assert isinstance(parts[0], ThinkingPart)
    assert "exec_command" in "".join(p.value for p in parts if isinstance(p, ThinkingPart))


# --- Structured output --------------------------------------------------------------------------

ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 3},
        "count": {"type": "integer", "minimum": 2},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}, "minItems": 1},
        "kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]},
    },
    "required": ["title", "count", "tags", "kind"],
    "additionalProperties": False,
    "$defs": {
        "Tag": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": False,
        },
        "Kind": {"type": "string", "enum": ["book", "film"]},
    },
}


# Copilot drops a `responseFormat` option; the model follows the bridge's instruction
# (bridge/core/structured_output.py words it), as a real model reads it.
SCHEMA_INSTRUCTION = (
    "Answer with one JSON value and nothing else (no prose, no Markdown code fences) "
    f"that is valid against this JSON Schema, named 'item':\n{json.dumps(ITEM_SCHEMA)}"
)
OBJECT_INSTRUCTION = (
    "Answer with one JSON object and nothing else: no prose, no Markdown code fences."
)


async def test_json_schema_instruction_gets_a_schema_valid_answer() -> None:
    asked = ChatMessage(
        role="user", content=[TextPart(value=SCHEMA_INSTRUCTION), TextPart(value="Describe it.")]
    )
    parts = await collect(request(asked))
    answer = json.loads(text_of(parts))
    jsonschema.validate(answer, ITEM_SCHEMA)
    assert answer["kind"] == "book"
    assert len([p for p in parts if isinstance(p, TextPart)]) > 1  # still streamed in parts


async def test_response_format_option_reaches_only_the_permissive_model() -> None:
    option = {"type": "json_schema", "json_schema": {"name": "item", "schema": ITEM_SCHEMA}}
    req = request(user("Describe it."), modelOptions={"responseFormat": option})
    jsonschema.validate(json.loads(text_of(await collect(req, copilot_rules=False))), ITEM_SCHEMA)
    assert text_of(await collect(req)) == "You said: Describe it."  # Copilot dropped it


async def test_json_object_instruction_wraps_the_answer() -> None:
    parts = await collect(request(user(OBJECT_INSTRUCTION), user("Hi there")))
    assert json.loads(text_of(parts)) == {"answer": "You said: Hi there"}


async def test_structured_answer_does_not_stop_a_tool_call() -> None:
    tool = ChatTool(
        name="lookup", description="Looks it up.", inputSchema={"type": "object", "properties": {}}
    )
    parts = await collect(request(user(OBJECT_INSTRUCTION), user("Hi"), tools=[tool]))
    assert [c.name for c in calls_of(parts)] == ["lookup"]


async def test_unknown_response_format_is_plain_text() -> None:
    req = request(user("Hi"), modelOptions={"responseFormat": {"type": "x"}})
    parts = await collect(req, copilot_rules=False)
    assert text_of(parts) == "You said: Hi"


async def test_a_rule_can_ignore_max_output_tokens() -> None:
    script = Script.model_validate(
        {
            "rules": [
                {
                    "match": "long",
                    "reply": [{"type": "text", "text": "one two three four five six"}],
                    "ignore_max_output_tokens": True,
                }
            ]
        }
    )
    parts = await collect(request(user("long"), modelOptions={"max_tokens": 2}), script)
    assert text_of(parts) == "one two three four five six"
    plain = await collect(request(user("long"), modelOptions={"max_tokens": 2}))
    assert len(text_of(plain).split()) <= 2 and ended_at_the_limit(plain)


async def test_script_error_fails_the_request_where_it_stands() -> None:
    script = Script.model_validate(
        {
            "rules": [
                {
                    "match": "mid",
                    "reply": [
                        {"type": "text", "text": "Partial"},
                        {"type": "error", "code": "Other", "message": "lost"},
                        {"type": "text", "text": "never"},
                    ],
                },
                {"match": "", "reply": [{"type": "error", "code": "Blocked"}]},
            ]
        }
    )
    model = SimulatedModel()
    seen: list[ResponsePart] = []
    with pytest.raises(EditorError) as caught:
        async for part in model.respond(request(user("mid")), script):
            seen.append(part)
    assert (caught.value.code, caught.value.message) == ("Other", "lost")
    assert text_of(seen) == "Partial"
    with pytest.raises(EditorError) as caught:
        await collect(request(user("first")), script)
    assert caught.value.code == "Blocked"
