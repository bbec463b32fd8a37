"""SSE framing: the text-delta fast path writes exactly what the generic encoder writes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bridge.http.sse import encode_event, encode_events


def generic(event: dict[str, Any]) -> str:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n"


def delta(**changes: Any) -> dict[str, Any]:
    event = {
        "type": "response.output_text.delta",
        "sequence_number": 7,
        "item_id": "msg_AM-1",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hel",
        "logprobs": [],
    }
    event.update(changes)
    return event


@pytest.mark.parametrize(
    "event",
    [
        delta(),
        delta(delta='quotes " and \\ backslash, newline \n, tab \t, control \x01'),
        delta(delta="non-ASCII é ü 😀 \u2028 kept as is"),
        delta(item_id='odd "id"', sequence_number=123456789, output_index=3),
        delta(logprobs=[{"token": "x"}]),  # not the usual shape: the generic path
        delta(extra=True),
        delta(sequence_number=True),
        {"type": "response.created", "sequence_number": 0, "response": {"id": "r", "x": None}},
    ],
)
def test_every_event_encodes_as_json_dumps_would(event: dict[str, Any]) -> None:
    assert encode_event(event) == generic(event)


def test_events_are_joined_into_one_utf8_buffer() -> None:
    events = [delta(sequence_number=1, delta="é"), delta(sequence_number=2, delta="x")]
    assert encode_events(events) == "".join(map(generic, events)).encode()


def test_fast_path_output_parses_back_to_the_event() -> None:
    event = delta(delta='a\u0000b"c')
    frame = encode_event(event)
    assert frame.startswith("event: response.output_text.delta\ndata: ")
    assert json.loads(frame.split("data: ", 1)[1]) == event
