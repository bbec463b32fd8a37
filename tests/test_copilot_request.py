"""`bridge.core.copilot`: the one step that makes every editor request one Copilot accepts.

Each rule is checked against what Copilot does (microsoft/vscode-copilot-chat's
languageModelAccess.ts, languageModelAccessPrompt.tsx and toolSchemaNormalizer.ts)."""

from __future__ import annotations

import re
from typing import Any, Literal

import pytest

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    ChatTool,
    DataPart,
    ModelCapabilities,
    ModelInfo,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.copilot.messages import CONTINUE, EMPTY_RESULT
from bridge.core.copilot.options import RequestOptions
from bridge.core.copilot.request import copilot_request
from bridge.core.copilot.required import INSTRUCTION
from bridge.core.copilot.tool_names import ToolNames, editor_name
from bridge.core.errors import ApiError
from bridge.core.turn_notes import HEADER

COPILOT_NAME = re.compile(r"^[\w-]{1,64}$", re.ASCII)
MODEL = ModelInfo(id="gpt-4.1", family="gpt-4.1", maxInputTokens=100_000)


def user(*parts: Any) -> ChatMessage:
    return ChatMessage(
        role="user", content=[TextPart(value=p) if isinstance(p, str) else p for p in parts]
    )


def assistant(*parts: Any) -> ChatMessage:
    return ChatMessage(
        role="assistant", content=[TextPart(value=p) if isinstance(p, str) else p for p in parts]
    )


def shape(
    messages: list[ChatMessage],
    tools: list[ChatTool] | None = None,
    mode: Literal["auto", "required"] = "auto",
    model: ModelInfo = MODEL,
    options: RequestOptions | None = None,
) -> ChatRequest:
    return copilot_request(model, messages, tools or [], mode, options or RequestOptions(), "test")


# --------------------------------------------------------------------------- options


def test_options_go_under_copilots_keys_and_effort_in_model_configuration() -> None:
    options = RequestOptions(
        max_tokens=50,
        temperature=0.3,
        stop=["END"],
        frequency_penalty=0.1,
        presence_penalty=0.2,
        reasoning_effort="high",
        not_passed=("top_p",),
    )
    chat = shape([user("hi")], options=options)
    assert chat.modelOptions == {
        "max_tokens": 50,
        "temperature": 0.3,
        "stop": "END",
        "frequency_penalty": 0.1,
        "presence_penalty": 0.2,
    }
    assert chat.modelConfiguration == {"reasoningEffort": "high"}


def test_nothing_given_nothing_sent() -> None:
    chat = shape([user("hi")])
    assert chat.modelOptions == {} and chat.modelConfiguration == {}


# --------------------------------------------------------------------------- tool names


@pytest.mark.parametrize(
    "name",
    ["mcp.server/read file", "ç€", "a" * 80, "", "weird:name", "x" * 64 + "é"],
)
def test_names_copilot_refuses_are_mapped_to_valid_ones(name: str) -> None:
    mapped = editor_name(name)
    assert COPILOT_NAME.fullmatch(mapped), mapped
    assert editor_name(name) == mapped  # the same every time: stable across turns


def test_valid_names_stay_as_they_are() -> None:
    for name in ("Bash", "mcp__github__create_issue", "apply-patch", "a" * 64):
        assert editor_name(name) == name


def test_similar_names_do_not_collide() -> None:
    names = ToolNames()
    mapped = {names.editor(n) for n in ("a.b", "a/b", "a b", "a_b")}
    assert len(mapped) == 4
    # A client that sends the hash-suffixed name itself still gets its own.
    tricky = ToolNames()
    first = tricky.editor("a.b")
    assert tricky.editor(first) != first
    assert tricky.to_client[first] == "a.b"


def test_tools_and_history_calls_use_the_same_editor_name() -> None:
    tool = ChatTool(
        name="fs.read", description="Read.", inputSchema={"type": "object", "properties": {}}
    )
    history = [
        user("read it"),
        assistant("Reading.", ToolCallPart(callId="c1", name="fs.read", input={})),
        user(ToolResultPart(callId="c1", content=[TextPart(value="data")])),
    ]
    chat = shape(history, [tool])
    sent = chat.tools[0].name
    assert COPILOT_NAME.fullmatch(sent) and sent != "fs.read"
    call = chat.messages[1].content[1]
    assert isinstance(call, ToolCallPart) and call.name == sent
    assert chat.clientToolNames == {sent: "fs.read"}
    # Next turn, another tool list: the same name.
    again = shape(history, [tool, ChatTool(name="other.tool", description="x")])
    assert again.tools[0].name == sent
    # The client's history was not changed in place.
    original = history[1].content[1]
    assert isinstance(original, ToolCallPart) and original.name == "fs.read"


# --------------------------------------------------------------------------- required


def test_required_with_several_tools_becomes_auto_with_an_instruction() -> None:
    tools = [ChatTool(name="a", description="A."), ChatTool(name="b", description="B.")]
    chat = shape([user("go")], tools, "required")
    assert chat.toolMode == "auto" and chat.toolCallRequired is True
    # After the history (turn_notes.py): the prompt's start stays the previous turn's.
    assert chat.messages[0].content == [TextPart(value="go")]
    assert chat.messages[-1].content == [TextPart(value=HEADER), TextPart(value=INSTRUCTION)]


def test_required_with_one_tool_stays_required() -> None:
    chat = shape([user("go")], [ChatTool(name="a", description="A.")], "required")
    assert chat.toolMode == "required" and chat.toolCallRequired is False
    assert len(chat.messages) == 1


# --------------------------------------------------------------------------- schemas


def tool_for(family: str, schema: dict[str, Any], description: str = "T.") -> ChatTool:
    model = ModelInfo(id=family, family=family)
    chat = shape(
        [user("hi")], [ChatTool(name="t", description=description, inputSchema=schema)], model=model
    )
    tool: ChatTool = chat.tools[0]
    return tool


def test_gpt4_keywords_are_removed_and_said_in_the_description() -> None:
    schema: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "path": {"type": "string", "pattern": "^/", "minLength": 1, "format": "uri"},
            "n": {"type": "integer", "minimum": 0, "default": 3},
        },
        "required": ["path", "ghost"],
    }
    tool = tool_for("gpt-4o", schema)
    assert tool.inputSchema == {
        "type": "object",
        "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["path"],
    }
    for said in (
        '`path`: pattern "^/"',
        "`path`: minLength 1",
        '`path`: format "uri"',
        "`n`: minimum 0",
    ):
        assert said in tool.description
    assert schema["properties"]["path"]["pattern"] == "^/"  # the client's own is untouched


def test_other_families_keep_those_keywords() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^/"}}}
    tool = tool_for("claude-sonnet-4.5", schema)
    assert tool.inputSchema == schema and tool.description == "T."


def test_gpt4_descriptions_are_cut_at_1024() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "string", "description": "x" * 2000}}}
    tool = tool_for("gpt-4.1", schema)
    assert tool.inputSchema is not None
    assert len(tool.inputSchema["properties"]["p"]["description"]) == 1024


def test_top_level_combinators_are_removed_for_every_family() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
    }
    tool = tool_for("claude-sonnet-4.5", schema)
    assert tool.inputSchema is not None and "anyOf" not in tool.inputSchema
    assert "anyOf" in tool.description


def test_arrays_get_items_and_item_lists_become_any_of() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "array"},
            "t": {"type": "array", "items": [{"type": "string"}]},
        },
    }
    tool = tool_for("claude-sonnet-4", schema)
    assert tool.inputSchema is not None
    assert tool.inputSchema["properties"]["a"]["items"] == {}
    assert tool.inputSchema["properties"]["t"]["items"] == {"anyOf": [{"type": "string"}]}


def test_gemini_nullable_types() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": ["string", "null"]},
            "b": {"type": ["string", "integer", "null"]},
        },
    }
    tool = tool_for("gemini-2.5-pro", schema)
    assert tool.inputSchema is not None
    assert tool.inputSchema["properties"]["a"] == {"type": "string", "nullable": True}
    assert tool.inputSchema["properties"]["b"] == {"type": ["string", "integer"]}
    # Other families keep the type list.
    other = tool_for("gpt-5", schema)
    assert other.inputSchema is not None and other.inputSchema["properties"]["a"]["type"] == [
        "string",
        "null",
    ]


def test_object_schema_with_properties_and_a_description_always() -> None:
    tool = tool_for("gpt-5", {"type": "object"}, description="")
    assert tool.inputSchema == {"type": "object", "properties": {}}
    assert tool.description == "No description provided."
    assert tool_for("gpt-5", {"properties": {"a": {"type": "string"}}}).inputSchema == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
    }


def test_an_empty_schema_is_sent_without_one() -> None:
    assert tool_for("gpt-5", {}).inputSchema is None


# --------------------------------------------------------------------------- messages


def test_assistant_text_parts_are_merged_into_one() -> None:
    call = ToolCallPart(callId="c", name="t", input={})
    history = [
        user("hi"),
        assistant("First.", "", "Second.", call),
        user(ToolResultPart(callId="c", content=[TextPart(value="ok")])),
    ]
    chat = shape(history)
    assert chat.messages[1].content == [TextPart(value="First.\n\nSecond."), call]


def test_tool_results_come_first_in_the_user_message() -> None:
    call = ToolCallPart(callId="c", name="t", input={})
    result = ToolResultPart(callId="c", content=[TextPart(value="ok")])
    chat = shape([user("hi"), assistant(call), user("and then", result)])
    assert chat.messages[2].content == [result, TextPart(value="and then")]


def test_empty_text_parts_and_messages_are_dropped() -> None:
    chat = shape([user("", "hi"), assistant(""), user("again")])
    assert [m.content for m in chat.messages] == [[TextPart(value="hi")], [TextPart(value="again")]]


def test_an_empty_tool_result_says_so() -> None:
    call = ToolCallPart(callId="c", name="t", input={})
    empty = ToolResultPart(callId="c", content=[TextPart(value="")])
    chat = shape([user("hi"), assistant(call), user(empty)])
    result = chat.messages[2].content[0]
    assert isinstance(result, ToolResultPart) and result.content == [TextPart(value=EMPTY_RESULT)]


def test_a_history_ending_on_the_assistant_gets_a_continuation() -> None:
    chat = shape([user("Write a poem"), assistant("Roses are")])
    assert chat.messages[-2].content == [TextPart(value="Roses are")]
    assert chat.messages[-1].role == "user" and chat.messages[-1].content == [
        TextPart(value=CONTINUE)
    ]


def test_messages_that_need_nothing_are_the_same_objects() -> None:
    history = [user("hi"), assistant("hello"), user("bye")]
    chat = shape(history)
    assert all(a is b for a, b in zip(chat.messages, history, strict=True))


PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5Er"
    "kJggg=="
)


def test_images_to_a_model_without_image_input_are_a_400() -> None:
    blind = ModelInfo(
        id="text-only", family="gpt-4.1", capabilities=ModelCapabilities(imageInput=False)
    )
    image = DataPart(mimeType="image/png", data=PNG)
    with pytest.raises(ApiError) as caught:
        shape([user("look", image)], model=blind)
    assert caught.value.status == 400 and "does not accept images" in caught.value.message
    call = ToolCallPart(callId="c", name="t", input={})
    in_result = ToolResultPart(callId="c", content=[image])
    with pytest.raises(ApiError):
        shape([user("look"), assistant(call), user(in_result)], model=blind)
    assert shape([user("look", image)]).messages[0].content[1] == image  # with vision: sent


async def test_the_context_check_counts_the_tools_as_sent() -> None:
    from bridge.core.token_limits import input_text, limit_context

    schema = {"type": "object", "properties": {"p": {"type": "string", "pattern": "^x+$"}}}
    chat = shape([user("hi")], [ChatTool(name="t", description="word " * 80, inputSchema=schema)])
    text = input_text(chat)
    assert "word word" in text and "pattern" in text  # the note in the description counts too

    small = ModelInfo(id="gpt-4.1", family="gpt-4.1", maxInputTokens=50)
    limit_context(chat, small)  # "hi" alone would fit; with the tools it may not
    assert chat.countInput is not None and chat.countInput.maxTokens == 50
