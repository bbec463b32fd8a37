"""The Chat Completions and Messages SSE framing: their text-delta fast paths write exactly what
the generic encoder writes, for the builders' own chunks and for anything shaped otherwise."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from bridge.anthropic.events import MessageEventBuilder
from bridge.anthropic.frames import frame as message_frame
from bridge.anthropic.frames import sse_frames as message_frames
from bridge.chat.chunks import DONE, KEEPALIVE, ChunkBuilder
from bridge.chat.frames import frame as chat_frame
from bridge.chat.frames import sse_frames as chat_frames
from bridge.core.backend import TextPart, ThinkingPart, ToolCallPart

TEXTS = [
    "tok ",
    'quotes " and \\ backslash, newline \n, tab \t, control \x01 \x00',
    "non-ASCII é ü 😀 \u2028 kept as is",
    "",
]


def generic_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def generic_chat(chunk: dict[str, Any]) -> str:
    return f"data: {generic_json(chunk)}\n\n"


def generic_message(event: dict[str, Any]) -> str:
    return f"event: {event['type']}\ndata: {generic_json(event)}\n\n"


def chat_chunks(include_usage: bool) -> list[dict[str, Any]]:
    builder = ChunkBuilder('sim "bench"', include_usage=include_usage)
    chunks = builder.add([TextPart(value=text) for text in TEXTS if text])
    chunks += builder.add([ThinkingPart(value="hmm")])
    chunks += builder.add([ToolCallPart(callId="c1", name="f", input={"a": 1})])
    return [chunk for chunk in chunks if chunk not in (DONE, KEEPALIVE)]


def content_chunk(**changes: Any) -> dict[str, Any]:
    builder = ChunkBuilder("sim-bench")
    [_, chunk] = builder.add([TextPart(value="Hel")])
    chunk = copy.deepcopy(chunk)
    choice = chunk["choices"][0]
    for key, value in changes.items():
        target = choice if key in choice else chunk
        target[key] = value
    return chunk


@pytest.mark.parametrize("include_usage", [False, True])
def test_chat_chunks_of_the_builder_encode_as_json_dumps_would(include_usage: bool) -> None:
    chunks = chat_chunks(include_usage)
    assert len(chunks) >= 5  # the role chunk, three texts, thinking, a tool call
    for chunk in chunks:
        assert chat_frame(chunk) == generic_chat(chunk)
    assert chat_frames(chunks) == "".join(map(generic_chat, chunks)).encode()


@pytest.mark.parametrize(
    "chunk",
    [
        content_chunk(),
        content_chunk(delta={"content": TEXTS[1]}),
        content_chunk(index=3, id='odd "id"', created=1795487546),
        content_chunk(delta={"content": "x", "role": "assistant"}),  # not the usual shape
        content_chunk(delta={"content": None}),
        content_chunk(finish_reason="stop"),
        content_chunk(finish_reason=""),
        content_chunk(logprobs={"content": []}),
        content_chunk(created=True),
        content_chunk(index=False),
        content_chunk(usage={"prompt_tokens": 1}),
        content_chunk(extra=1),
        content_chunk(choices=[]),
    ],
)
def test_chat_chunks_of_any_shape_encode_as_json_dumps_would(chunk: dict[str, Any]) -> None:
    assert chat_frame(chunk) == generic_chat(chunk)


def test_chat_markers_are_their_frames() -> None:
    assert chat_frames([KEEPALIVE, DONE]) == b": keepalive\n\ndata: [DONE]\n\n"


def message_events() -> list[dict[str, Any]]:
    builder = MessageEventBuilder('sim "bench"', thinking=True)
    events = builder.add([TextPart(value=text) for text in TEXTS if text])
    events += builder.add([ThinkingPart(value="hmm"), TextPart(value="after")])
    return events


def text_event(**changes: Any) -> dict[str, Any]:
    delta = {"type": "text_delta", "text": "Hel", **changes.pop("delta", {})}
    return {"type": "content_block_delta", "index": 0, "delta": delta, **changes}


def test_message_events_of_the_builder_encode_as_json_dumps_would() -> None:
    events = message_events()
    assert sum(e["type"] == "content_block_delta" for e in events) >= 4
    for event in events:
        assert message_frame(event) == generic_message(event)
    assert message_frames(events) == "".join(map(generic_message, events)).encode()


@pytest.mark.parametrize(
    "event",
    [
        text_event(),
        text_event(delta={"text": TEXTS[1]}, index=7),
        text_event(delta={"text": TEXTS[2]}),
        text_event(delta={"type": "thinking_delta", "text": "x"}),
        text_event(delta={"text": None}),
        text_event(delta={"citations": []}),
        text_event(index=True),
        text_event(extra=1),
        {"type": "message_stop"},
        {"type": "ping"},
    ],
)
def test_message_events_of_any_shape_encode_as_json_dumps_would(event: dict[str, Any]) -> None:
    assert message_frame(event) == generic_message(event)
