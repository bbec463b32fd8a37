"""Each rule of a Chat Completions stream (tests/chat_stream_rules.py) can fail: a good stream
from tests/chat_samples.py, broken in one place, is refused with that rule's message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from chat_samples import ID, USAGE, chunk, text_stream, tool_stream
from chat_validation import DONE, check_failed_stream, check_stream

ERROR = {
    "error": {"message": "the editor failed", "type": "server_error", "param": None, "code": None}
}


def tool_delta(**call: Any) -> dict[str, Any]:
    return chunk({"tool_calls": [call]})


def arguments(index: int, text: str) -> dict[str, Any]:
    return tool_delta(index=index, function={"arguments": text})


def second_call(index: int = 1, **changes: Any) -> dict[str, Any]:
    call = {"index": index, "id": "call_2", "type": "function", "function": {"name": "f"}}
    return tool_delta(**{**call, **changes})


def insert(position: int, *items: Any) -> Callable[[list[Any]], list[Any]]:
    return lambda chunks: [*chunks[:position], *items, *chunks[position:]]


def replace(position: int, item: Any) -> Callable[[list[Any]], list[Any]]:
    return lambda chunks: [*chunks[:position], item, *chunks[position + 1 :]]


def without(position: int) -> Callable[[list[Any]], list[Any]]:
    return lambda chunks: [*chunks[:position], *chunks[position + 1 :]]


# (the sample stream, how it is broken, the message expected): every rule, one case or more.
BROKEN_STREAMS: dict[str, tuple[Callable[[], list[Any]], Callable[[list[Any]], list[Any]], str]] = {
    "a chunk invalid for the schema": (
        text_stream,
        replace(3, {**chunk({"content": "Hello"}), "object": "chat.completion"}),
        "chunk #3: chat.completion.chunk is not a valid",
    ),
    "not an object": (text_stream, insert(1, ["x"]), "chunk #1: .* not a valid"),
    "another id": (text_stream, replace(3, {**chunk({"content": "Hello"}), "id": "x"}), "id 'x'"),
    "another created": (
        text_stream,
        replace(3, {**chunk({"content": "Hello"}), "created": 1}),
        "created 1 differs",
    ),
    "another model": (
        text_stream,
        replace(3, {**chunk({"content": "Hello"}), "model": "gpt-x"}),
        "model 'gpt-x' differs",
    ),
    "first delta without role": (
        text_stream,
        replace(0, chunk({"content": ""}, usage=None)),
        "first delta of choice 0 has role None",
    ),
    "role repeated": (
        text_stream,
        replace(3, chunk({"role": "assistant", "content": "Hello"}, usage=None)),
        "repeats the role",
    ),
    "tool calls start at 1": (
        tool_stream,
        replace(1, second_call(1)),
        "tool call index 1; expected 0",
    ),
    "tool call index skipped": (tool_stream, insert(4, second_call(2)), "index 2; expected 1"),
    "tool call index goes back": (
        tool_stream,
        insert(4, second_call(), arguments(0, " ")),
        "index 0; expected 2",
    ),
    "tool call begins without id": (tool_stream, insert(4, second_call(id=None)), "without id:"),
    "tool call begins without name": (
        tool_stream,
        insert(4, second_call(function={"arguments": "{}"})),
        "without function.name",
    ),
    "tool call begins without type": (
        tool_stream,
        insert(4, second_call(type=None)),
        "without type function",
    ),
    "tool call repeats its id": (
        tool_stream,
        insert(3, tool_delta(index=0, id="call_1")),
        "repeats its id or name",
    ),
    "tool call repeats its name": (
        tool_stream,
        insert(3, tool_delta(index=0, function={"name": "get_weather"})),
        "repeats its id or name",
    ),
    "no finish_reason": (tool_stream, without(4), r"choices \[0\] never got a finish_reason"),
    "two finish_reasons": (
        text_stream,
        insert(6, chunk({}, "stop", usage=None)),
        "after its finish_reason 'stop'",
    ),
    "a delta after the finish_reason": (
        text_stream,
        insert(6, chunk({"content": "!"}, usage=None)),
        "after its finish_reason",
    ),
    "tool_calls finish without tool calls": (
        text_stream,
        replace(5, chunk({}, "tool_calls", usage=None)),
        "the folded stream: .*finish_reason tool_calls without tool_calls",
    ),
    "usage chunk not last": (
        text_stream,
        insert(7, chunk({"content": "late"}, usage=None)),
        "after the usage chunk",
    ),
    "usage chunk missing": (text_stream, without(6), "no usage chunk came"),
    "usage on a chunk with choices": (
        text_stream,
        replace(5, chunk({}, "stop", usage=USAGE)),
        "usage on a chunk with choices",
    ),
    "choices [] without usage": (text_stream, replace(6, chunk(usage=None)), "no usage"),
    "usage that does not add up": (
        text_stream,
        replace(6, chunk(usage={**USAGE, "total_tokens": 1})),
        "total_tokens 1 is not 12 \\+ 5",
    ),
    "no [DONE]": (text_stream, without(7), "without data: \\[DONE\\]"),
    "a chunk after [DONE]": (text_stream, insert(8, chunk(usage=USAGE)), "after data: \\[DONE\\]"),
    "two [DONE]": (text_stream, insert(8, DONE), "after data: \\[DONE\\]"),
    "a chunk after an error": (
        text_stream,
        insert(3, ERROR),
        "after the error that ended the stream",
    ),
    "ended by an error": (text_stream, lambda c: [*c[:3], ERROR, DONE], "ended with an error"),
    "an invalid error": (
        text_stream,
        insert(3, {"error": {"message": "x"}}),
        "chunk #3: error body is not a valid Error",
    ),
    "no chunk": (text_stream, lambda c: [DONE], "no chunk"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_STREAMS))
def test_broken_streams_fail(case: str) -> None:
    sample, change, message = BROKEN_STREAMS[case]
    check_stream(sample(), include_usage=True)  # the sample itself is good
    with pytest.raises(AssertionError, match=message):
        check_stream(change(sample()), include_usage=True)


def test_usage_chunk_only_when_asked() -> None:
    check_stream(text_stream(include_usage=False))
    with pytest.raises(AssertionError, match="though include_usage was not asked"):
        check_stream(text_stream(include_usage=True))
    with pytest.raises(AssertionError, match="no usage chunk came"):
        check_stream(text_stream(include_usage=False), include_usage=True)


def test_done_belongs_to_the_wire_only() -> None:
    sdk_chunks = text_stream()[:-1]
    assert check_stream(sdk_chunks, include_usage=True, wire=False)["id"] == ID
    with pytest.raises(AssertionError, match="among the chunks an SDK handed over"):
        check_stream(text_stream(), include_usage=True, wire=False)
    with pytest.raises(AssertionError, match="without data: \\[DONE\\]"):
        check_stream(sdk_chunks, include_usage=True)


def test_a_failed_stream_gives_its_error() -> None:
    chunks = [*text_stream()[:3], ERROR, DONE]
    assert check_failed_stream(chunks) == ERROR
    assert check_failed_stream(chunks[:-1]) == ERROR  # no [DONE] after an error is fine
    assert check_failed_stream(chunks[:-1], wire=False) == ERROR
    with pytest.raises(AssertionError, match="ended without an error"):
        check_failed_stream(text_stream(include_usage=False))


def test_several_tool_calls_fold_in_order() -> None:
    stream = tool_stream()
    stream = [*stream[:4], second_call(), arguments(1, "{}"), *stream[4:]]
    calls = check_stream(stream, include_usage=True)["choices"][0]["message"]["tool_calls"]
    assert [(call["id"], call["function"]["name"]) for call in calls] == [
        ("call_1", "get_weather"),
        ("call_2", "f"),
    ]
    assert calls[0]["function"]["arguments"] == '{"city": "Paris"}'
    assert calls[1]["function"]["arguments"] == "{}"
