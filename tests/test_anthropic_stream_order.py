"""The order rules of Messages streams (`check_stream` in tests/anthropic_validation.py):
good streams pass, are read by the anthropic SDK and assemble their message; each way of
breaking the order fails, naming the rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from anthropic.types import RawMessageStreamEvent
from anthropic_replies import as_events, error_body, text_answer, tool_use_answer, with_thinking
from anthropic_samples import MODEL, Events, named, text_stream, thinking_stream, tool_stream
from anthropic_validation import check_stream
from pydantic import TypeAdapter

START: dict[str, Any] = as_events(text_answer("x"), MODEL, 1)[0]


def thinking_tool_stream() -> Events:
    answer = with_thinking(tool_use_answer("Bash", {"command": "ls"}), "Hm.", "c2ln")
    return named(as_events(answer, MODEL, 10))


@pytest.mark.parametrize(
    "stream", [text_stream, tool_stream, thinking_stream, thinking_tool_stream]
)
def test_good_streams_pass_and_the_sdk_reads_every_event(stream: Callable[[], Events]) -> None:
    events = stream()
    result = check_stream(events)
    assert result.error is None
    assert result.message is not None
    adapter: TypeAdapter[Any] = TypeAdapter(RawMessageStreamEvent)
    for name, data in events:
        if name != "ping":  # the SDK skips pings before parsing
            assert adapter.validate_python(data).type == name


def test_the_stream_assembles_the_message() -> None:
    tool = check_stream(tool_stream()).message
    assert tool is not None
    assert tool["content"][0]["input"] == {"command": "ls -l"}
    assert tool["stop_reason"] == "tool_use"
    thinking = check_stream(thinking_stream()).message
    assert thinking is not None
    assert [block["type"] for block in thinking["content"]] == [
        "thinking",
        "redacted_thinking",
        "text",
    ]
    assert thinking["content"][0] == {
        "type": "thinking",
        "thinking": "Let me see.",
        "signature": "c2ln",
    }
    assert thinking["usage"]["output_tokens"] == 9


def test_an_error_event_ends_a_stream_midway() -> None:
    error = error_body("overloaded_error", "Overloaded")
    result = check_stream([*text_stream()[:4], ("error", error)])
    assert result.error == error
    assert result.message is None
    assert check_stream([("error", error)]).error == error  # an error may be all there is


def text_at(index: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "text_delta", "text": "a"},
        },
        {"type": "content_block_stop", "index": index},
    ]


END: list[dict[str, Any]] = [
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 1},
    },
    {"type": "message_stop"},
]
PING: dict[str, Any] = {"type": "ping"}
TOOL_START: dict[str, Any] = {
    "type": "content_block_start",
    "index": 0,
    "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}},
}
BROKEN_STREAMS: dict[str, tuple[list[dict[str, Any]], str]] = {
    "empty": ([], "without message_stop"),
    "not message_start first": ([*text_at(0), *END], "first event must be message_start"),
    "ping before message_start": ([PING, START, *END], "first event must be message_start"),
    "two message_starts": ([START, START, *END], "second message_start"),
    "first block index 1": ([START, *text_at(1), *END], "expected 0"),
    "indexes out of order": ([START, *text_at(0), *text_at(2), *END], "expected 1"),
    "two blocks open": ([START, *text_at(0)[:2], *text_at(1), *END], "still open"),
    "delta of another kind": (
        [
            START,
            text_at(0)[0],
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
        ],
        "input_json_delta in a text block",
    ),
    "delta for a closed block": ([START, *text_at(0), text_at(0)[1], *END], "open: None"),
    "stop for another index": (
        [START, text_at(0)[0], {"type": "content_block_stop", "index": 1}],
        "open: 0",
    ),
    "message_delta with a block open": ([START, *text_at(0)[:2], *END], "still open"),
    "message_stop without message_delta": ([START, *text_at(0), END[1]], "before message_delta"),
    "two message_deltas": ([START, END[0], *END], "after message_delta"),
    "block after message_delta": ([START, END[0], *text_at(0), END[1]], "after message_delta"),
    "event after message_stop": ([START, *END, PING], "after the stream ended"),
    "event after an error": ([START, error_body("api_error", "x"), PING], "after the stream ended"),
    "no message_stop": ([START, *text_at(0), END[0]], "without message_stop"),
    "tool input not JSON": (
        [
            START,
            TOOL_START,
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"a": '},
            },
            {"type": "content_block_stop", "index": 0},
            *END,
        ],
        "not JSON",
    ),
    "tool_use stop without tool_use": (
        [
            START,
            *text_at(0),
            {**END[0], "delta": {"stop_reason": "tool_use", "stop_sequence": None}},
            END[1],
        ],
        "without a tool_use block",
    ),
    "a broken event inside": (
        [START, {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}],
        "event #1",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_STREAMS))
def test_broken_streams_fail(case: str) -> None:
    events, reason = BROKEN_STREAMS[case]
    with pytest.raises(AssertionError, match=reason):
        check_stream(named(json.loads(json.dumps(events))))
