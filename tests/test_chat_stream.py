"""Flow control of chat parts (docs/protocol.md, `window` and `maestro/chatAck`): the language
server's per-chat queue, and the headless editor's sender that waits for credit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bridge.core.backend import EditorError, ResponsePart, TextPart
from headless_editor.editor import PartSender, chat_window
from lsp import rpc
from lsp.chat_stream import OVERRUN_FACTOR, ChatStream


def parts(count: int) -> list[ResponsePart]:
    return [TextPart(value="w ") for _ in range(count)]


async def test_parts_are_acknowledged_in_batches_of_half_a_window() -> None:
    acks: list[int] = []
    stream = ChatStream(acks.append, window=8)
    stream.put(parts(3))
    assert await stream.take() == parts(3)
    assert acks == []  # 3 < 4: no ack yet, the editor still has credit
    stream.put(parts(1))
    stream.put(parts(2))
    assert len(await stream.take() or []) == 3  # what queued up comes as one batch
    assert acks == [6]
    stream.end()
    assert await stream.take() is None


async def test_dropped_malformed_parts_still_count_as_sent() -> None:
    acks: list[int] = []
    stream = ChatStream(acks.append, window=4)
    stream.put(parts(1), sent=3)  # two of the three parts the editor sent were malformed
    assert await stream.take() == parts(1)
    assert acks == [3]


async def test_an_editor_that_ignores_the_window_fails_the_chat() -> None:
    stream = ChatStream(lambda _: None, window=4)
    for _ in range(4 * OVERRUN_FACTOR):
        stream.put(parts(1))
    assert stream.queued == 4 * OVERRUN_FACTOR  # overrunning a little is tolerated
    stream.put(parts(1))
    assert stream.queued == 0  # memory is given back at once
    with pytest.raises(EditorError, match="ahead of the client"):
        await stream.take()


async def test_take_waits_for_parts() -> None:
    stream = ChatStream(lambda _: None, window=4)
    waiting = asyncio.ensure_future(stream.take())
    await asyncio.sleep(0)
    assert not waiting.done()
    stream.put(parts(2))
    assert await asyncio.wait_for(waiting, 5) == parts(2)


class Recorder:
    """An EditorConnection that records notifications."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def notify_raw(self, method: str, params: Any = None) -> None:
        self.sent.append((method, params))


async def test_the_headless_editor_waits_for_credit() -> None:
    recorder = Recorder()
    sender = PartSender(recorder, "chat-1", window=4)  # type: ignore[arg-type]
    for part in parts(4):
        sender.add(part)
    assert sender.blocked
    waiting = asyncio.ensure_future(sender.credit())
    await asyncio.sleep(0.01)
    assert not waiting.done()
    sent = [params for method, params in recorder.sent if method == rpc.CHAT_PARTS]
    assert sum(len(params["parts"]) for params in sent) == 4  # flushed before waiting
    sender.acknowledged(2)
    await asyncio.wait_for(waiting, 5)
    assert not sender.blocked


def test_no_window_from_an_older_server_means_no_flow_control() -> None:
    assert chat_window({"chatId": "c"}) is None
    assert chat_window({"window": True}) is None
    assert chat_window({"window": 0}) is None
    assert chat_window({"window": 64}) == 64
    sender = PartSender(Recorder(), "c", window=None)  # type: ignore[arg-type]
    sender.flush()
    assert not sender.blocked
