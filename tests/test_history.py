"""`bridge.core.history.normalise_tool_history`: every call paired with its result, nothing lost."""

from __future__ import annotations

import copy
from typing import Any

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.history import call_as_text, normalise_tool_history
from bridge.responses.convert_input import editor_messages
from bridge.responses.request import parse_create_request


def user(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="user", content=list(parts))


def assistant(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="assistant", content=list(parts))


def text(value: str) -> TextPart:
    return TextPart(value=value)


def call(call_id: str, name: str = "f", **arguments: Any) -> ToolCallPart:
    return ToolCallPart(callId=call_id, name=name, input=arguments)


def result(call_id: str, value: str = "ok") -> ToolResultPart:
    return ToolResultPart(callId=call_id, content=[TextPart(value=value)])


def is_paired(messages: list[ChatMessage]) -> bool:
    """What the providers check: each assistant turn's calls answered in the next message."""
    for index, message in enumerate(messages):
        calls = {p.callId for p in message.content if isinstance(p, ToolCallPart)}
        results = [p.callId for p in message.content if isinstance(p, ToolResultPart)]
        if calls:
            if message.role != "assistant" or index + 1 >= len(messages):
                return False
            answered = [
                p.callId for p in messages[index + 1].content if isinstance(p, ToolResultPart)
            ]
            if sorted(answered) != sorted(calls):
                return False
        if results:
            before = messages[index - 1] if index else None
            if before is None or not set(results) <= {
                p.callId for p in before.content if isinstance(p, ToolCallPart)
            }:
                return False
    ids = [p.callId for m in messages for p in m.content if isinstance(p, ToolCallPart)]
    return len(ids) == len(set(ids))


def test_well_formed_history_is_unchanged() -> None:
    history = [
        user(text("go")),
        assistant(text("Calling."), call("a"), call("b")),
        user(result("a"), result("b")),
        assistant(text("Done.")),
        user(text("again")),
    ]
    assert normalise_tool_history(history) == history
    assert is_paired(history)


def test_call_without_result_becomes_labelled_text_in_place() -> None:
    history = [
        user(text("go")),
        assistant(text("Calling."), call("a", "ls", path="/")),
        user(text("stop")),
    ]

    fixed = normalise_tool_history(history)

    assert fixed == [
        user(text("go")),
        assistant(text("Calling."), text(call_as_text(call("a", "ls", path="/")))),
        user(text("stop")),
    ]
    assert "ls" in call_as_text(call("a", "ls")) and "a" in call_as_text(call("a", "ls"))
    assert is_paired(fixed)


def test_history_ending_in_an_unanswered_call() -> None:
    fixed = normalise_tool_history([user(text("go")), assistant(call("a"))])
    assert fixed == [user(text("go")), assistant(text(call_as_text(call("a"))))]


def test_one_of_two_parallel_calls_answered() -> None:
    history = [assistant(call("a"), call("b")), user(result("b"))]
    fixed = normalise_tool_history(history)
    assert fixed == [assistant(text(call_as_text(call("a"))), call("b")), user(result("b"))]
    assert is_paired(fixed)


def test_orphan_result_becomes_labelled_text_with_its_images() -> None:
    image = DataPart(mimeType="image/png", data="iVBORw0KGgo=")
    orphan = ToolResultPart(callId="gone", content=[text("output"), image])
    fixed = normalise_tool_history([user(text("hi")), user(orphan)])

    (_, second) = fixed
    label, output, kept_image = second.content
    assert (
        isinstance(label, TextPart)
        and "gone" in label.value
        and "not in the conversation" in label.value
    )
    assert output == text("output") and kept_image == image
    assert is_paired(fixed)


def test_result_for_a_call_of_an_earlier_turn_is_an_orphan() -> None:
    history = [
        assistant(call("a")),
        user(result("a")),
        assistant(text("thinking")),
        user(result("a", "late")),
    ]
    fixed = normalise_tool_history(history)
    assert fixed[:3] == history[:3]
    assert "late" in [p.value for p in fixed[3].content if isinstance(p, TextPart)]
    assert is_paired(fixed)


def test_results_after_user_text_are_moved_up_to_their_calls() -> None:
    history = [
        assistant(call("a"), call("b")),
        user(result("a")),
        user(text("by the way")),
        user(result("b")),
    ]
    fixed = normalise_tool_history(history)
    assert fixed == [
        assistant(call("a"), call("b")),
        user(result("a"), result("b")),
        user(text("by the way")),
    ]
    assert is_paired(fixed)


def test_results_come_first_in_call_order() -> None:
    history = [assistant(call("a"), call("b")), user(text("note"), result("b"), result("a"))]
    fixed = normalise_tool_history(history)
    assert fixed == [assistant(call("a"), call("b")), user(result("a"), result("b"), text("note"))]


def test_exact_repeat_of_a_call_and_its_result_is_dropped() -> None:
    history = [assistant(call("a", x=1), call("a", x=1)), user(result("a"), result("a"))]
    fixed = normalise_tool_history(history)
    assert fixed == [assistant(call("a", x=1)), user(result("a"))]


def test_same_id_for_two_different_calls_in_one_turn() -> None:
    history = [
        assistant(call("a", x=1), call("a", x=2)),
        user(result("a", "one"), result("a", "two")),
    ]
    fixed = normalise_tool_history(history)
    assert fixed == [
        assistant(call("a", x=1), call("a_2", x=2)),
        user(result("a", "one"), result("a_2", "two")),
    ]
    assert is_paired(fixed)


def test_call_id_reused_by_a_later_turn_gets_a_suffix() -> None:
    history = [
        assistant(call("call_1", "ls")),
        user(result("call_1", "files")),
        assistant(call("call_1", "cat")),
        user(result("call_1", "content")),
    ]
    fixed = normalise_tool_history(history)
    assert fixed == [
        assistant(call("call_1", "ls")),
        user(result("call_1", "files")),
        assistant(call("call_1_2", "cat")),
        user(result("call_1_2", "content")),
    ]
    assert is_paired(fixed)


def test_second_different_result_for_one_call_is_labelled_as_such() -> None:
    fixed = normalise_tool_history([assistant(call("a")), user(result("a", "1"), result("a", "2"))])
    assert fixed[0] == assistant(call("a"))
    assert fixed[1].content[0] == result("a", "1")
    label, second = fixed[1].content[1:]
    assert second == text("2")
    assert isinstance(label, TextPart)
    assert "further, different result" in label.value and "a" in label.value
    assert "not in the conversation" not in label.value
    assert is_paired(fixed)


def test_result_of_a_call_elsewhere_says_so() -> None:
    """A result before its call (out of order) is not one "whose call is not there"."""
    fixed = normalise_tool_history([user(result("a", "early")), assistant(call("a"))])
    label = fixed[0].content[0]
    assert isinstance(label, TextPart)
    assert "elsewhere in the conversation" in label.value
    assert is_paired(fixed)


def test_input_is_not_changed() -> None:
    history = [assistant(call("a")), user(text("x"))]
    snapshot = copy.deepcopy(history)
    normalise_tool_history(history)
    assert history == snapshot


def test_messages_left_empty_are_dropped() -> None:
    fixed = normalise_tool_history([assistant(call("a")), user(result("a")), user(result("a"))])
    assert fixed == [assistant(call("a")), user(result("a"))]


def test_editor_messages_normalise_a_client_history() -> None:
    """Items as a client sends them: an interrupted call, then a late output of an earlier call."""
    raw = {
        "model": "m",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "list files"},
            {"type": "function_call", "call_id": "c0", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c0", "output": "files"},
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "exec_command",
                "arguments": '{"cmd": "ls"}',
            },
            {"role": "user", "content": "never mind"},
            {"type": "function_call_output", "call_id": "c0", "output": "stale"},
            {"role": "user", "content": "hello"},
        ],
    }
    messages = editor_messages(parse_create_request(raw))
    assert is_paired(messages)
    flat = [p.value for m in messages for p in m.content if isinstance(p, TextPart)]
    assert flat[0] == "Be brief."
    assert any("exec_command" in v and "c1" in v for v in flat)
    assert "stale" in flat and flat[-1] == "hello"
    label = flat[flat.index("stale") - 1]
    assert "c0" in label and "elsewhere in the conversation" in label
