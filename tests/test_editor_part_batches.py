"""The headless editor's `maestro/chatParts`: parts that come one per loop turn go out together
(headless_editor/editor.py, PartSender), a part that comes alone goes out at once, and the
text-only notifications msgspec encodes are the very bytes of the strict encoder's."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from bridge.core import strict_json
from bridge.core.backend import DataPart, ResponsePart, TextPart, ToolCallPart
from headless_editor.editor import BATCH_PARTS, PartSender
from headless_editor.jsonrpc import EditorConnection, _text_parts_frame
from lsp import rpc


class Recorder:
    """An EditorConnection that records the parts of each notification."""

    def __init__(self) -> None:
        self.batches: list[list[dict[str, Any]]] = []

    def notify_raw(self, method: str, params: Any = None) -> None:
        assert method == rpc.CHAT_PARTS
        self.batches.append(params["parts"])


async def test_parts_that_come_one_per_loop_turn_go_out_together() -> None:
    recorder = Recorder()
    sender = PartSender(recorder, "c", window=None)  # type: ignore[arg-type]
    count = 3 * BATCH_PARTS + 10
    for index in range(count):
        sender.add(TextPart(value=f"{index} "))
        await asyncio.sleep(0)  # as a model stream does between parts
    sender.flush()
    sent = [part["value"] for batch in recorder.batches for part in batch]
    assert sent == [f"{index} " for index in range(count)]  # every part, in order
    assert all(len(batch) <= BATCH_PARTS for batch in recorder.batches)
    # Not one notification per part (the editor's old way): a few full ones.
    assert len(recorder.batches) <= math.ceil(count / BATCH_PARTS) + 1, [
        len(batch) for batch in recorder.batches
    ]


async def test_a_part_that_comes_alone_goes_out_a_loop_turn_later() -> None:
    recorder = Recorder()
    sender = PartSender(recorder, "c", window=None)  # type: ignore[arg-type]
    for index in range(3):
        sender.add(TextPart(value=str(index)))
        for _ in range(3):  # its own turn, one more to see that no other part came; sent
            await asyncio.sleep(0)
        assert len(recorder.batches) == index + 1
    assert [batch[0]["value"] for batch in recorder.batches] == ["0", "1", "2"]


async def test_a_slow_stream_has_each_part_sent_before_the_next_comes() -> None:
    recorder = Recorder()
    sender = PartSender(recorder, "c", window=None)  # type: ignore[arg-type]
    for index in range(5):
        sender.add(TextPart(value=str(index)))
        await asyncio.sleep(0.005)
        assert len(recorder.batches) == index + 1


async def test_flush_sends_what_waits_and_stops_the_pending_look() -> None:
    recorder = Recorder()
    sender = PartSender(recorder, "c", window=None)  # type: ignore[arg-type]
    sender.add(TextPart(value="a"))
    sender.flush()  # the chat's end: every part before the reply
    assert recorder.batches == [[{"type": "text", "value": "a"}]]
    for _ in range(4):
        await asyncio.sleep(0)
    assert len(recorder.batches) == 1  # nothing sent twice, no empty notification


def strict_frame(params: Any) -> bytes:
    message = {"jsonrpc": "2.0", "method": rpc.CHAT_PARTS, "params": params}
    return rpc.encode_frame(strict_json.encode, message)


TEXTS = [
    "tok ",
    "",
    'quote " backslash \\ slash /',
    "é ü 中文 😀",
    "\x00\x1f\x7f\n\r\t\b\f",
    "\u2028",
]


@pytest.mark.parametrize("text", TEXTS)
def test_text_parts_frames_are_the_strict_encoders_bytes(text: str) -> None:
    params = {"chatId": "chat-7", "parts": [{"type": "text", "value": text}] * 3}
    assert _text_parts_frame(params) == strict_frame(params)


@pytest.mark.parametrize(
    "params",
    [
        {"chatId": "c", "parts": [{"type": "text", "value": "\ud800"}]},  # lone surrogate
        {"chatId": "c", "parts": [{"type": "data", "mimeType": "usage", "data": "e30="}]},
        {"chatId": "c", "parts": [{"type": "text", "value": "a", "x": math.nan}]},
        {"chatId": "c", "parts": [{"type": "text", "value": 1.5}]},
        {"chatId": "c", "parts": [], "x": math.nan},
        {"chatId": 1, "parts": []},
        {"chatId": "c", "parts": "text"},
    ],
)
def test_anything_but_text_parts_takes_the_strict_encoder(params: dict[str, Any]) -> None:
    assert _text_parts_frame(params) is None


class Pipe:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


async def test_the_connection_sends_every_kind_of_part_as_the_strict_encoder_would() -> None:
    connection = EditorConnection()
    pipe = Pipe()
    connection.set_writer(pipe)  # type: ignore[arg-type]
    sender = PartSender(connection, "chat-3", window=None)
    parts: list[ResponsePart] = [
        TextPart(value="a"),
        ToolCallPart(callId="call_1", name="f", input={"x": 1.5}),
        DataPart(mimeType="usage", data="e30="),
    ]
    wires: list[dict[str, Any]] = [  # each part's wire shape (docs/protocol.md)
        {"type": "text", "value": "a"},
        {"type": "toolCall", "callId": "call_1", "name": "f", "input": {"x": 1.5}},
        {"type": "data", "mimeType": "usage", "data": "e30="},
    ]
    expected = b""
    for part, wire in zip(parts, wires, strict=True):
        sender.add(part)
        sender.flush()
        expected += strict_frame({"chatId": "chat-3", "parts": [wire]})
    assert pipe.data == expected
    sender.add(ToolCallPart(callId="call_2", name="f", input={"x": math.nan}))
    with pytest.raises(rpc.UnsendableMessage):  # never a bare NaN, nor a `null` for it
        sender.flush()
