"""`maestro/chatParts` handling in the language server: the raw-JSON fast path and its fallback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bridge.core.backend import TextPart, ToolCallPart
from lsp import rpc
from lsp.chat_stream import ChatStream
from lsp.editor_backend import EditorBackend


def backend_with_stream(chat_id: str = "chat-1") -> tuple[EditorBackend, ChatStream]:
    backend = EditorBackend(protocol=None)
    stream = ChatStream(lambda parts: None)
    backend._streams[chat_id] = stream
    return backend, stream


def body(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def notification(parts: list[Any], **extra: Any) -> dict[str, Any]:
    params = {"chatId": "chat-1", "parts": parts}
    return {"jsonrpc": "2.0", "method": rpc.CHAT_PARTS, "params": params, **extra}


async def test_well_formed_parts_are_taken_by_the_fast_path() -> None:
    backend, queue = backend_with_stream()
    call = {"type": "toolCall", "callId": "c1", "name": "ls", "input": {"$schema": 1}}
    parts = [{"type": "text", "value": "Hi", "future": 1}, call]
    assert backend.on_chat_parts_json(body(notification(parts)))
    assert await queue.take() == [
        TextPart(value="Hi"),
        ToolCallPart(callId="c1", name="ls", input={"$schema": 1}),
    ]


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 3, "result": {"models": []}},
        {"jsonrpc": "2.0", "method": rpc.MODELS_CHANGED, "params": None},
        notification([{"type": "text", "value": "ok"}, {"type": "text"}]),  # a malformed part
        notification([{"type": "text", "value": "ok"}], id=9),  # a request, not a notification
    ],
)
async def test_anything_else_is_declined(message: dict[str, Any]) -> None:
    backend, queue = backend_with_stream()
    assert not backend.on_chat_parts_json(body(message))
    assert queue.queued == 0


async def test_the_general_path_keeps_the_good_parts_of_a_malformed_batch() -> None:
    backend, queue = backend_with_stream()
    parts = [{"type": "text", "value": "ok"}, {"type": "text"}, {"type": "text", "value": "!"}]
    backend.on_chat_parts(notification(parts)["params"])
    assert await queue.take() == [TextPart(value="ok"), TextPart(value="!")]


async def test_parts_for_an_unknown_chat_are_dropped() -> None:
    backend, queue = backend_with_stream("chat-2")
    assert backend.on_chat_parts_json(body(notification([{"type": "text", "value": "x"}])))
    assert queue.queued == 0
