"""`to_chat_messages`: Responses input items -> the editor's user/assistant chat messages."""

from __future__ import annotations

import json
import logging
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from fixture_files import client_request, client_requests

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.responses.convert_input import to_chat_messages
from bridge.responses.request import parse_create_request


def convert(
    items: str | list[dict[str, Any]], instructions: str | None = None
) -> list[ChatMessage]:
    raw: dict[str, Any] = {"model": "gpt-5", "input": items}
    if instructions is not None:
        raw["instructions"] = instructions
    return to_chat_messages(parse_create_request(raw))


def user(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="user", content=list(parts))


def assistant(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="assistant", content=list(parts))


def text(value: str) -> TextPart:
    return TextPart(value=value)


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "status": "completed",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }


def output(call_id: str, value: Any) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": value}


def result(call_id: str, *parts: TextPart | DataPart) -> ToolResultPart:
    return ToolResultPart(callId=call_id, content=list(parts))


def shape(messages: list[ChatMessage]) -> list[tuple[str, list[str]]]:
    """(role, part types) per message: the structure the model provider checks."""
    return [(m.role, [p.type for p in m.content]) for m in messages]


# --------------------------------------------------------------------------- messages


def test_string_input_is_one_user_message() -> None:
    assert convert("What is 2+2?") == [user(text("What is 2+2?"))]


def test_messages_with_and_without_type_convert_alike() -> None:
    typed = [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "content": "hello"},
    ]
    untyped = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]

    expected = [user(text("hi")), assistant(text("hello"))]
    assert convert(typed) == expected
    assert convert(untyped) == expected


def test_system_text_before_the_first_answer_comes_first_later_stays_in_place() -> None:
    messages = convert(
        [
            {"role": "user", "content": "u1"},
            {"role": "system", "content": "s1"},
            {"role": "assistant", "content": "a1"},
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "d1"}],
            },
            {"role": "user", "content": "u2"},
            {"role": "developer", "content": "d2"},
        ],
        instructions="i0",
    )

    # What came after the model's first answer stays there, labelled: moved to the start it
    # would change the start of every later prompt (the provider's prompt cache).
    assert messages == [
        user(text("i0")),
        user(text("s1")),
        user(text("u1")),
        assistant(text("a1")),
        user(text("[Developer message]"), text("d1")),
        user(text("u2")),
        user(text("[Developer message]"), text("d2")),
    ]


def test_instructions_alone_with_string_input() -> None:
    assert convert("hello", instructions="Be brief.") == [
        user(text("Be brief.")),
        user(text("hello")),
    ]


def test_text_part_kinds() -> None:
    messages = convert(
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "one"},
                    {"type": "input_text", "text": "two"},
                ],
            },
            {
                "type": "message",
                "role": "assistant",
                "id": "msg_1",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": "answer", "annotations": [], "logprobs": []},
                    {"type": "refusal", "refusal": "I cannot help with that."},
                ],
            },
        ]
    )

    assert messages == [
        user(text("one"), text("two")),
        assistant(text("answer"), text("I cannot help with that.")),
    ]


def test_instructions_without_input_are_the_whole_conversation() -> None:
    raw = {"model": "gpt-5", "instructions": "Say hi."}
    assert to_chat_messages(parse_create_request(raw)) == [user(text("Say hi."))]


def test_unknown_content_part_becomes_a_short_note(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bridge.responses.convert_input")
    messages = convert(
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Listen:"},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                ],
            }
        ]
    )

    assert messages == [user(text("Listen:"), text("[content of type 'input_audio' not included]"))]
    assert "input_audio" in caplog.text
    assert "UklGRg" not in caplog.text


def test_unknown_part_in_a_tool_output_becomes_a_note_too() -> None:
    messages = convert([call("c1", "f"), output("c1", [{"type": "input_video", "id": "v1"}])])
    assert messages[1] == user(result("c1", text("[content of type 'input_video' not included]")))


def test_empty_messages_are_dropped() -> None:
    messages = convert(
        [
            {"role": "user", "content": ""},
            {"role": "assistant", "content": [{"type": "output_text", "text": ""}]},
            {"role": "user", "content": "real"},
        ]
    )
    assert messages == [user(text("real"))]


def test_base64_image_becomes_data_part() -> None:
    messages = convert(
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {
                        "type": "input_image",
                        "detail": "auto",
                        "image_url": "data:image/jpeg;base64,/9j/4AAQSkZJRg==",
                    },
                ],
            },
        ]
    )

    assert messages == [
        user(text("What is this?"), DataPart(mimeType="image/jpeg", data="/9j/4AAQSkZJRg=="))
    ]


def test_remote_image_url_becomes_a_text_note() -> None:
    url = "https://example.com/cat.png"
    (message,) = convert([{"role": "user", "content": [{"type": "input_image", "image_url": url}]}])

    assert message.role == "user"
    (part,) = message.content
    assert isinstance(part, TextPart)
    assert url in part.value
    assert "not included" in part.value


def test_non_base64_data_url_becomes_a_text_note() -> None:
    (message,) = convert(
        [
            {
                "role": "user",
                "content": [{"type": "input_image", "image_url": "data:image/svg+xml,<svg/>"}],
            }
        ]
    )
    (part,) = message.content
    assert isinstance(part, TextPart)
    assert "not included" in part.value


@pytest.mark.parametrize(
    ("file_part", "shown"),
    [
        ({"type": "input_file", "filename": "report.pdf", "file_data": "JVBERi0x"}, "report.pdf"),
        ({"type": "input_file", "file_id": "file-abc"}, "file-abc"),
        (
            {"type": "input_file", "file_url": "https://example.com/a.pdf"},
            "https://example.com/a.pdf",
        ),
    ],
)
def test_input_file_becomes_a_text_note(file_part: dict[str, Any], shown: str) -> None:
    (message,) = convert([{"role": "user", "content": [file_part]}])

    (part,) = message.content
    assert isinstance(part, TextPart)
    assert shown in part.value
    assert "not included" in part.value
    assert "JVBERi0x" not in part.value  # the file's bytes are not pasted into the prompt


# --------------------------------------------------------------------------- tool calls


def test_function_call_and_output() -> None:
    messages = convert(
        [
            {"role": "user", "content": "Weather in Paris?"},
            call("call_1", "get_weather", city="Paris", days=2),
            output("call_1", "22C and sunny"),
        ]
    )

    assert messages == [
        user(text("Weather in Paris?")),
        assistant(
            ToolCallPart(callId="call_1", name="get_weather", input={"city": "Paris", "days": 2})
        ),
        user(result("call_1", text("22C and sunny"))),
    ]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"cmd": "ls"', {"arguments": '{"cmd": "ls"'}),
        ("not json at all", {"arguments": "not json at all"}),
        ("[1, 2]", {"value": [1, 2]}),
        ("", {}),
        ("   ", {}),
    ],
    ids=["truncated", "prose", "array", "empty", "blank"],
)
def test_function_call_arguments_that_are_not_an_object(
    arguments: str, expected: dict[str, Any]
) -> None:
    messages = convert(
        [{"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": arguments}]
    )
    assert messages == [assistant(ToolCallPart(callId="c1", name="exec_command", input=expected))]


def test_namespaced_function_call_is_flattened() -> None:
    messages = convert(
        [
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "spawn_agent",
                "namespace": "multi_agent_v1",
                "arguments": '{"task": "x"}',
            }
        ]
    )
    assert messages == [
        assistant(
            ToolCallPart(callId="c1", name="multi_agent_v1__spawn_agent", input={"task": "x"})
        )
    ]


def test_parallel_calls_are_one_assistant_message_and_outputs_one_user_message() -> None:
    messages = convert(
        [
            {"role": "user", "content": "Weather in Paris and Tokyo?"},
            call("call_p", "get_weather", city="Paris"),
            call("call_t", "get_weather", city="Tokyo"),
            output("call_p", "22C"),
            output("call_t", "18C"),
        ]
    )

    assert messages == [
        user(text("Weather in Paris and Tokyo?")),
        assistant(
            ToolCallPart(callId="call_p", name="get_weather", input={"city": "Paris"}),
            ToolCallPart(callId="call_t", name="get_weather", input={"city": "Tokyo"}),
        ),
        user(result("call_p", text("22C")), result("call_t", text("18C"))),
    ]


def test_parallel_calls_with_reasoning_between_are_still_grouped() -> None:
    messages = convert(
        [
            {"role": "user", "content": "go"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
            call("a", "f"),
            {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAA"},
            call("b", "f"),
            output("a", "1"),
            output("b", "2"),
        ]
    )
    assert shape(messages) == [
        ("user", ["text"]),
        ("assistant", ["toolCall", "toolCall"]),
        ("user", ["toolResult", "toolResult"]),
    ]


def test_consecutive_turns_are_not_merged() -> None:
    messages = convert(
        [
            {"role": "user", "content": "go"},
            call("a", "f"),
            output("a", "1"),
            call("b", "f"),
            output("b", "2"),
        ]
    )
    assert shape(messages) == [
        ("user", ["text"]),
        ("assistant", ["toolCall"]),
        ("user", ["toolResult"]),
        ("assistant", ["toolCall"]),
        ("user", ["toolResult"]),
    ]
    assert [p.callId for m in messages[1:] for p in m.content if hasattr(p, "callId")] == [
        "a",
        "a",
        "b",
        "b",
    ]


def test_assistant_text_then_its_tool_call_is_one_assistant_message() -> None:
    messages = convert(
        [
            {"role": "user", "content": "list files"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Listing them."}],
            },
            call("c1", "exec_command", cmd="ls"),
            output("c1", "a.txt"),
        ]
    )

    assert messages == [
        user(text("list files")),
        assistant(
            text("Listing them."),
            ToolCallPart(callId="c1", name="exec_command", input={"cmd": "ls"}),
        ),
        user(result("c1", text("a.txt"))),
    ]


def test_interleaved_text_and_parallel_calls_stay_one_turn() -> None:
    """The bridge keeps the model's order (text, call, text, call); echoed back as history,
    that turn must still be ONE assistant message with both calls, then ONE user message."""
    messages = convert(
        [
            {"role": "user", "content": "check both"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "First A."}]},
            call("a", "f", x=1),
            {"role": "assistant", "content": [{"type": "output_text", "text": "Then B."}]},
            call("b", "f", x=2),
            output("a", "ra"),
            output("b", "rb"),
        ]
    )

    assert [m.role for m in messages] == ["user", "assistant", "user"], shape(messages)
    turn, results = messages[1], messages[2]
    calls = [p for p in turn.content if isinstance(p, ToolCallPart)]
    assert calls == [
        ToolCallPart(callId="a", name="f", input={"x": 1}),
        ToolCallPart(callId="b", name="f", input={"x": 2}),
    ]
    texts = [p.value for p in turn.content if isinstance(p, TextPart)]
    assert texts == ["First A.", "Then B."]
    assert results == user(result("a", text("ra")), result("b", text("rb")))


def test_custom_tool_call_and_output() -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
    messages = convert(
        [
            {"role": "user", "content": "add a file"},
            {
                "type": "custom_tool_call",
                "id": "ctc_1",
                "status": "completed",
                "call_id": "call_p",
                "name": "apply_patch",
                "input": patch,
            },
            {
                "type": "custom_tool_call_output",
                "id": "ctco_1",
                "call_id": "call_p",
                "output": "Success. Updated the following files:\nA a.txt\n",
            },
        ]
    )

    assert messages == [
        user(text("add a file")),
        assistant(ToolCallPart(callId="call_p", name="apply_patch", input={"input": patch})),
        user(result("call_p", text("Success. Updated the following files:\nA a.txt\n"))),
    ]


def test_tool_output_as_content_parts_keeps_text_and_image() -> None:
    messages = convert(
        [
            call("c1", "view_image", path="/tmp/cat.png"),
            output(
                "c1",
                [
                    {"type": "input_text", "text": "Here is the image:"},
                    {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
                ],
            ),
        ]
    )

    assert messages[1] == user(
        result(
            "c1", text("Here is the image:"), DataPart(mimeType="image/png", data="iVBORw0KGgo=")
        )
    )


def test_empty_tool_output_still_answers_the_call() -> None:
    messages = convert([call("c1", "f"), output("c1", "")])
    assert messages[1] == user(result("c1", text("")))


def test_namespaced_custom_tool_call_keeps_its_namespace() -> None:
    """Replayed as the flat name the tool was offered under (`functions__exec`)."""
    messages = convert(
        [
            {"role": "user", "content": "run it"},
            {
                "type": "custom_tool_call",
                "call_id": "call_x",
                "name": "exec",
                "namespace": "functions",
                "input": "text(1)",
                "status": "completed",
            },
            {"type": "custom_tool_call_output", "call_id": "call_x", "output": "1"},
        ]
    )

    assert messages[1] == assistant(
        ToolCallPart(callId="call_x", name="functions__exec", input={"input": "text(1)"})
    )


# --------------------------------------------------------------------------- orphan results


def orphan_error(items: list[dict[str, Any]]) -> ApiError:
    with pytest.raises(ApiError) as info:
        convert(items)
    return info.value


@pytest.mark.parametrize("kind", ["function_call_output", "custom_tool_call_output"])
def test_output_whose_call_is_nowhere_is_a_400(kind: str) -> None:
    error = orphan_error(
        [
            {"role": "user", "content": "hi"},
            call("c1", "f"),
            output("c1", "ok"),
            {"type": kind, "call_id": "call_gone", "output": "stale"},
        ]
    )

    assert error.status == 400
    assert error.type == "invalid_request_error"
    assert error.param == "input[3].call_id"
    assert "call_gone" in error.message
    assert error.message.startswith("No tool call found for function call output with call_id")


def test_the_first_orphan_in_input_order_is_named() -> None:
    """A client-run tool search's output is a result too; the first orphan is the one named."""
    search = {"type": "tool_search_output", "call_id": "s9", "execution": "client", "tools": []}
    error = orphan_error([{"role": "user", "content": "hi"}, search, output("gone", "x")])
    assert error.param == "input[1].call_id"
    assert "s9" in error.message
    error = orphan_error([call("c1", "f"), output("gone", "x"), output("c1", "ok"), search])
    assert error.param == "input[1].call_id"


def test_output_before_its_call_is_not_an_orphan() -> None:
    """The call is in the input, only out of order: history normalisation labels it."""
    messages = convert([output("c1", "early"), call("c1", "f"), {"role": "user", "content": "?"}])
    assert len(messages) == 3


# --------------------------------------------------------------------------- Codex agents


def test_agent_message_with_encrypted_content_is_a_user_message() -> None:
    """The child's task as Codex 0.169 sends it (tests/fixtures/clients/codex-multi-agent-*)."""
    messages = convert(
        [
            {
                "type": "agent_message",
                "id": "amsg_1",
                "author": "/root",
                "recipient": "/root/helper",
                "content": [
                    {
                        "type": "input_text",
                        "text": "Message Type: NEW_TASK\nTask name: /root/helper\nSender: /root\n"
                        "Payload:\n",
                    },
                    {"type": "encrypted_content", "encrypted_content": "Compute 2+2."},
                ],
            }
        ]
    )

    assert messages == [
        user(
            text("[Message from agent /root to /root/helper]"),
            text("Message Type: NEW_TASK\nTask name: /root/helper\nSender: /root\nPayload:\n"),
            text("Compute 2+2."),
        )
    ]


def test_agent_answer_after_a_wait_follows_the_tool_result() -> None:
    messages = convert(
        [
            {"role": "user", "content": "delegate"},
            call("c1", "wait_agent"),
            output("c1", '{"message":"Wait completed.","timed_out":false}'),
            {
                "type": "agent_message",
                "author": "/root/helper",
                "recipient": "/root",
                "content": [{"type": "input_text", "text": "Payload:\n4"}],
            },
        ]
    )

    assert shape(messages) == [
        ("user", ["text"]),
        ("assistant", ["toolCall"]),
        ("user", ["toolResult"]),
        ("user", ["text", "text"]),
    ]
    assert messages[-1] == user(
        text("[Message from agent /root/helper to /root]"), text("Payload:\n4")
    )


def test_additional_tools_add_no_message_and_an_empty_agent_message_says_who(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.responses.convert_input")
    messages = convert(
        [
            {"type": "additional_tools", "role": "developer", "tools": [{"type": "function"}]},
            {"type": "agent_message", "author": "/root", "recipient": "/root/a", "content": []},
            {"role": "user", "content": "hi"},
        ]
    )
    # A notification with no text still tells the model who wrote to whom (issue 27).
    assert messages == [
        user(text("[Message from agent /root to /root/a, with no text]")),
        user(text("hi")),
    ]
    assert caplog.records == []


# --------------------------------------------------------------------------- skipped items


def test_reasoning_items_are_skipped_silently(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.responses.convert_input")
    messages = convert(
        [
            {"role": "user", "content": "hi"},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "secret thoughts"}],
                "content": None,
                "encrypted_content": "gAAAAB",
            },
            {"role": "assistant", "content": "hello"},
        ]
    )

    assert messages == [user(text("hi")), assistant(text("hello"))]
    assert "secret thoughts" not in repr(messages)
    assert caplog.records == []


def test_unknown_item_types_are_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bridge.responses.convert_input")
    messages = convert(
        [
            {"role": "user", "content": "hi"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            {"type": "local_shell_call_output", "id": "x", "output": "ls"},
            {"role": "assistant", "content": "hello"},
        ]
    )

    assert messages == [user(text("hi")), assistant(text("hello"))]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert "web_search_call" in warnings[0]
    assert "local_shell_call_output" in warnings[1]


# --------------------------------------------------------------------------- real clients


def test_codex_resume_history() -> None:
    raw = client_request("codex-resume-1")
    messages = to_chat_messages(parse_create_request(raw))

    assert shape(messages) == [
        ("user", ["text"]),  # developer
        ("user", ["text", "text", "text"]),  # developer
        ("user", ["text"]),
        ("user", ["text"]),
        ("assistant", ["toolCall"]),
        ("user", ["toolResult"]),
        ("assistant", ["text"]),
        ("user", ["text"]),
    ]
    tool_call = messages[4].content[0]
    tool_result = messages[5].content[0]
    assert isinstance(tool_call, ToolCallPart)
    assert isinstance(tool_result, ToolResultPart)
    assert tool_call.name == "exec_command"
    assert tool_call.callId == tool_result.callId
    assert isinstance(tool_call.input.get("cmd"), str)
    assert messages[-1] == user(text("second turn please"))


CLIENT_FIXTURES = [
    path
    for path in client_requests()
    if not json.loads(path.read_text("utf-8")).get("previous_response_id")
]


def test_client_fixtures_are_present() -> None:
    assert len(CLIENT_FIXTURES) >= 25


@pytest.mark.parametrize("path", CLIENT_FIXTURES, ids=lambda path: path.stem)
def test_client_history_is_well_formed(path: Path) -> None:
    raw = json.loads(path.read_text("utf-8"))
    messages = to_chat_messages(parse_create_request(raw))

    assert messages
    assert all(message.content for message in messages)
    system_like = [
        item
        for item in (raw["input"] if isinstance(raw["input"], list) else [])
        if item.get("role") in ("system", "developer")
    ]
    preamble = len(system_like) + (1 if raw.get("instructions") else 0)
    assert all(message.role == "user" for message in messages[:preamble])
    if raw.get("instructions"):
        assert messages[0] == user(text(raw["instructions"]))
    # Every tool result answers a call of the assistant message right before it.
    for before, message in pairwise(messages):
        results = [p.callId for p in message.content if isinstance(p, ToolResultPart)]
        if results:
            assert before.role == "assistant"
            calls = [p.callId for p in before.content if isinstance(p, ToolCallPart)]
            assert results == calls
