"""Chat Completions `messages` -> the editor's chat messages: roles, parts, tool history."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from bridge.chat.convert import (
    ASSISTANT_DATA_NOTE,
    LABELS,
    editor_messages,
    to_chat_messages,
)
from bridge.chat.plan import parse_completion_request
from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.history import NO_CALL
from bridge.core.tools import tool_input

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
PNG_B64 = base64.b64encode(PNG).decode("ascii")


def parsed(messages: list[Any]) -> Any:
    return parse_completion_request({"model": "gpt-4o", "messages": messages}).messages


def convert(messages: list[Any]) -> list[ChatMessage]:
    return to_chat_messages(parsed(messages))


def paired(messages: list[Any]) -> list[ChatMessage]:
    return editor_messages(parsed(messages))


def user(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="user", content=list(parts))


def assistant(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="assistant", content=list(parts))


def text(value: str) -> TextPart:
    return TextPart(value=value)


def call(call_id: str, name: str = "f", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def error(messages: list[Any]) -> ApiError:
    with pytest.raises(ApiError) as caught:
        convert(messages)
    assert caught.value.status == 400
    return caught.value


# System and developer text


@pytest.mark.parametrize("role", ["system", "developer"])
def test_system_text_goes_first_as_a_user_message(role: str) -> None:
    got = convert([{"role": "user", "content": "hi"}, {"role": role, "content": "Be brief."}])
    assert got == [user(text("Be brief.")), user(text("hi"))]


def test_system_text_parts_keep_their_text() -> None:
    got = convert(
        [
            {
                "role": "system",
                "content": [{"type": "text", "text": "A."}, {"type": "text", "text": "B."}],
            },
            {"role": "user", "content": "hi"},
        ]
    )
    assert got == [user(text("A."), text("B.")), user(text("hi"))]


@pytest.mark.parametrize("role", ["system", "developer"])
def test_a_later_system_message_stays_in_place_labelled(role: str) -> None:
    got = convert(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": role, "content": "Now be formal."},
            {"role": "user", "content": "and?"},
        ]
    )
    assert got == [
        user(text("hi")),
        assistant(text("hello")),
        user(text(LABELS[role]), text("Now be formal.")),
        user(text("and?")),
    ]


def test_empty_system_text_is_dropped() -> None:
    assert convert([{"role": "system", "content": ""}, {"role": "user", "content": "hi"}]) == [
        user(text("hi"))
    ]


# User content parts


def test_text_parts_and_strings() -> None:
    got = convert(
        [
            {"role": "user", "content": "one"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "two"}, {"type": "text", "text": ""}],
            },
        ]
    )
    assert got == [user(text("one")), user(text("two"))]


def test_a_data_url_image_becomes_image_data_typed_by_its_bytes() -> None:
    url = f"data:image/jpeg;base64,{PNG_B64}"  # declared wrong: the bytes say PNG
    got = convert([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}])
    assert got == [user(DataPart(mimeType="image/png", data=PNG_B64))]


def test_an_http_image_url_becomes_a_note() -> None:
    url = "https://example.com/cat.png"
    got = convert(
        [
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": url, "detail": "low"}}],
            }
        ]
    )
    (part,) = got[0].content
    assert isinstance(part, TextPart) and url in part.value and "not included" in part.value


def test_an_inline_text_file_gives_its_text() -> None:
    data = base64.b64encode(b"print(1)\n").decode("ascii")
    got = convert(
        [
            {
                "role": "user",
                "content": [{"type": "file", "file": {"filename": "a.py", "file_data": data}}],
            }
        ]
    )
    assert got == [user(text("[file a.py:]\nprint(1)\n"))]


def test_an_unknown_part_becomes_a_note() -> None:
    got = convert([{"role": "user", "content": [{"type": "video", "video": {}}]}])
    assert got == [user(text("[content of type 'video' not included]"))]


def test_audio_input_is_a_400_naming_the_part() -> None:
    part = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
    got = error(
        [
            {"role": "user", "content": "hi"},
            {"role": "user", "content": [{"type": "text", "text": "listen"}, part]},
        ]
    )
    assert got.param == "messages[1].content[1].input_audio"
    assert "audio" in got.message.lower()


@pytest.mark.parametrize(
    ("part", "param"),
    [
        ({"type": "image_url", "image_url": {}}, "messages[0].content[0].image_url.url"),
        ({"type": "image_url"}, "messages[0].content[0].image_url"),
        ({"type": "text"}, "messages[0].content[0].text"),
        ({"type": "text", "text": 3}, "messages[0].content[0].text"),
    ],
)
def test_a_bad_part_names_its_field(part: dict[str, Any], param: str) -> None:
    assert error([{"role": "user", "content": [part]}]).param == param


# Assistant messages


def test_assistant_text_refusal_and_calls() -> None:
    got = convert(
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Let me look."}],
                "refusal": "Not that.",
                "tool_calls": [call("c1", "read", '{"path": "a.py"}')],
            },
        ]
    )
    assert got[1] == assistant(
        text("Let me look."),
        text("Not that."),
        ToolCallPart(callId="c1", name="read", input={"path": "a.py"}),
    )


def test_an_assistant_image_is_only_noted() -> None:
    url = f"data:image/png;base64,{PNG_B64}"
    got = convert(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "image_url", "image_url": {"url": url}}]},
        ]
    )
    assert got[1] == assistant(text(ASSISTANT_DATA_NOTE))


def test_an_assistant_with_null_content_and_no_calls_is_dropped() -> None:
    got = convert([{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}])
    assert got == [user(text("hi"))]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("", {}),
        ('{"a": 1}', {"a": 1}),
        ("[1]", {"value": [1]}),
        ('{"a": ', {"arguments": '{"a": '}),
        ('{"a": NaN}', {"arguments": '{"a": NaN}'}),
    ],
)
def test_call_arguments_become_an_object(arguments: str, expected: dict[str, Any]) -> None:
    assert tool_input(arguments) == expected


def test_a_call_without_its_function_is_a_400() -> None:
    got = error([{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]}])
    assert got.param == "messages[0].tool_calls[0].function"


def test_a_custom_tool_call_carries_its_text_as_input() -> None:
    got = convert(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "type": "custom", "custom": {"name": "patch", "input": "*** diff"}}
                ],
            }
        ]
    )
    assert got == [assistant(ToolCallPart(callId="c1", name="patch", input={"input": "*** diff"}))]


# Tool results and the history rules


def test_a_call_and_its_results_pair() -> None:
    got = paired(
        [
            {"role": "user", "content": "read both"},
            {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2")]},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "one"}]},
            {"role": "user", "content": "thanks"},
        ]
    )
    assert got == [
        user(text("read both")),
        assistant(
            ToolCallPart(callId="c1", name="f", input={}),
            ToolCallPart(callId="c2", name="f", input={}),
        ),
        user(
            ToolResultPart(callId="c1", content=[text("one")]),
            ToolResultPart(callId="c2", content=[text("two")]),
        ),
        user(text("thanks")),
    ]


def test_consecutive_tool_messages_share_one_user_message() -> None:
    got = convert(
        [
            {"role": "assistant", "tool_calls": [call("c1"), call("c2")]},
            {"role": "tool", "tool_call_id": "c1", "content": "one"},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
        ]
    )
    assert [m.role for m in got] == ["assistant", "user"]
    assert len(got[1].content) == 2


def test_an_image_in_a_tool_result_is_kept() -> None:
    url = f"data:image/png;base64,{PNG_B64}"
    got = paired(
        [
            {"role": "assistant", "tool_calls": [call("c1")]},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {"type": "text", "text": "shot"},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            },
        ]
    )
    assert got[1] == user(
        ToolResultPart(
            callId="c1", content=[text("shot"), DataPart(mimeType="image/png", data=PNG_B64)]
        )
    )


def test_an_empty_result_is_still_a_result() -> None:
    got = paired(
        [
            {"role": "assistant", "tool_calls": [call("c1")]},
            {"role": "tool", "tool_call_id": "c1", "content": ""},
        ]
    )
    assert got[1] == user(ToolResultPart(callId="c1", content=[text("")]))


def test_a_result_without_its_call_becomes_labelled_text() -> None:
    got = paired(
        [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "lost", "content": "orphan"},
        ]
    )
    assert got == [
        user(text("hi")),
        user(text(f"[Result of tool call lost, {NO_CALL}:]"), text("orphan")),
    ]


def test_a_call_without_its_result_becomes_labelled_text() -> None:
    got = paired(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [call("c1", "read", '{"p": 1}')]},
            {"role": "user", "content": "never mind"},
        ]
    )
    (part,) = got[1].content
    assert isinstance(part, TextPart) and "read" in part.value and "c1" in part.value
    assert "result is not in the conversation" in part.value


def test_calls_split_over_two_assistant_messages_pair_with_their_results() -> None:
    got = paired(
        [
            {"role": "assistant", "content": "first", "tool_calls": [call("c1")]},
            {"role": "assistant", "tool_calls": [call("c2")]},
            {"role": "tool", "tool_call_id": "c1", "content": "one"},
            {"role": "tool", "tool_call_id": "c2", "content": "two"},
        ]
    )
    assert got[0].role == "assistant" and len(got[0].content) == 3
    assert [type(p) for p in got[1].content] == [ToolResultPart, ToolResultPart]


def test_a_tool_message_without_its_call_id_is_a_400() -> None:
    assert error([{"role": "tool", "content": "x"}]).param == "messages[0].tool_call_id"


# The legacy function messages in a history


def test_a_legacy_function_call_pairs_with_its_function_message() -> None:
    got = paired(
        [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "w", "arguments": '{"c": "Oslo"}'},
            },
            {"role": "function", "name": "w", "content": "rain"},
        ]
    )
    assert got[1] == assistant(
        ToolCallPart(callId="function_call_1", name="w", input={"c": "Oslo"})
    )
    assert got[2] == user(ToolResultPart(callId="function_call_1", content=[text("rain")]))


def test_equal_legacy_calls_take_their_own_positions_as_ids() -> None:
    # The same call sent twice: each id is its own message's position (not the first equal's).
    call = {"role": "assistant", "function_call": {"name": "w", "arguments": "{}"}}
    got = convert(
        [{"role": "user", "content": "go"}, call, {**call}, {"role": "user", "content": "ok"}]
    )
    assert got[1] == assistant(
        ToolCallPart(callId="function_call_1", name="w"),
        ToolCallPart(callId="function_call_2", name="w"),
    )


def test_a_param_names_the_part_at_its_place_in_a_long_history() -> None:
    history = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}] * 50
    audio = {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}
    got = error([*history, {"role": "user", "content": [{"type": "text", "text": "c"}, audio]}])
    assert got.param == "messages[100].content[1].input_audio"


# Roles


@pytest.mark.parametrize("role", ["bot", None, 3])
def test_an_unknown_role_names_the_role(role: Any) -> None:
    assert error([{"role": "user", "content": "hi"}, {"role": role, "content": "x"}]).param == (
        "messages[1].role"
    )


def test_a_message_that_is_no_object_is_named() -> None:
    assert error(["hi"]).param == "messages[0]"
