"""However the editor's parts are batched (one per `maestro/chatParts`, as the headless editor
sent them before it grouped the parts of a fast stream, or all in one), every dialect that
writes one event per part writes the same bytes, and those are the generic encoder's bytes:
the text-delta fast paths and the grouping change the cost of a stream, never its bytes."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from bridge.anthropic import events as message_events
from bridge.anthropic.events import MessageEventBuilder
from bridge.anthropic.frames import sse_frames as message_frames
from bridge.chat.chunks import DONE, KEEPALIVE, ChunkBuilder
from bridge.chat.frames import sse_frames as chat_frames
from bridge.core import ids
from bridge.core.backend import ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts
from bridge.responses.events import ResponseEventBuilder
from bridge.responses.handlers import sse_frames as response_frames
from bridge.responses.request import parse_create_request
from bridge.responses.response_object import new_response, usage_object

TEXTS = ["tok ", 'quote " \\ /', "é 中文 😀 \u2028", "\x00\x1f\n\t", "x" * 300]
PARTS: list[ResponsePart] = [
    *(TextPart(value=text) for text in TEXTS * 20),
    ThinkingPart(value="hmm"),
    *(TextPart(value=text) for text in TEXTS),
    ToolCallPart(callId="call_1", name="f", input={"a": [1, 2.5, "b"]}),
    *(TextPart(value=text) for text in TEXTS * 3),
]


def splits() -> list[list[list[ResponsePart]]]:
    """The parts one per batch, all in one batch, and cut at random places."""
    cuts = random.Random(31)
    ragged: list[list[ResponsePart]] = []
    at = 0
    while at < len(PARTS):
        size = cuts.randint(1, 40)
        ragged.append(PARTS[at : at + size])
        at += size
    return [[[part] for part in PARTS], [PARTS], ragged]


@pytest.fixture(autouse=True)
def fixed_ids_and_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ids, "_random", lambda n: "x" * n)
    monkeypatch.setattr(message_events, "thinking_signature", lambda: "AM-signature")
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.0)


def generic_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def responses_stream(batches: list[list[ResponsePart]]) -> tuple[bytes, bytes]:
    parsed = parse_create_request({"model": "sim-echo", "input": "hi", "stream": True})
    builder = ResponseEventBuilder(new_response(parsed, "resp_1", [], "auto"), {}, True)
    written = generic = b""
    for events in [*map(builder.add, batches), builder.complete(usage_object(3, 5))]:
        written += response_frames(events)
        generic += "".join(
            f"event: {e['type']}\ndata: {generic_json(e)}\n\n" for e in events
        ).encode()
    return written, generic + b"data: [DONE]\n\n"


def messages_stream(batches: list[list[ResponsePart]]) -> tuple[bytes, bytes]:
    builder = MessageEventBuilder("sim-echo", thinking=True, input_tokens=3)
    written = generic = b""
    for events in [*map(builder.add, batches), builder.finish("end_turn", None, UsageCounts(3, 5))]:
        written += message_frames(events)
        generic += "".join(
            f"event: {e['type']}\ndata: {generic_json(e)}\n\n" for e in events
        ).encode()
    return written, generic


def chat_stream(batches: list[list[ResponsePart]]) -> tuple[bytes, bytes]:
    builder = ChunkBuilder("sim-echo", include_usage=True)
    written = generic = b""
    for chunks in [*map(builder.add, batches), builder.finish("stop", UsageCounts(3, 5))]:
        written += chat_frames(chunks)
        generic += "".join(
            "data: [DONE]\n\n" if c == DONE else f"data: {generic_json(c)}\n\n"
            for c in chunks
            if c != KEEPALIVE
        ).encode()
    return written, generic


DIALECTS: dict[str, Callable[[list[list[ResponsePart]]], tuple[bytes, bytes]]] = {
    "responses": responses_stream,
    "messages": messages_stream,
    "chat": chat_stream,
}


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_every_batching_writes_the_same_bytes_as_the_generic_encoder(dialect: str) -> None:
    streams = [DIALECTS[dialect](batches) for batches in splits()]
    one_per_batch, generic = streams[0]
    assert one_per_batch == generic
    for written, _ in streams[1:]:
        assert written == one_per_batch
    assert one_per_batch.count(b'"tok "') >= 24  # every text part is in it
