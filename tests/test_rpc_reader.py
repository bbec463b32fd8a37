"""`lsp.rpc.read_messages`: LSP framing however the bytes arrive on the pipe."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from lsp import rpc


def frame(message: dict[str, Any], header: bytes | None = None) -> bytes:
    body = json.dumps(message).encode()
    head = header if header is not None else b"Content-Length: %d\r\n\r\n" % len(body)
    return head + body


class Recorder:
    """Stands in for the pygls protocol: records what the reader hands over."""

    def __init__(self) -> None:
        self.handled: list[Any] = []

    def structure_message(self, message: Any) -> Any:
        return message

    def handle_message(self, message: Any) -> None:
        self.handled.append(message)


async def read(chunks: list[bytes]) -> tuple[list[Any], list[Any]]:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    protocol = Recorder()
    fast: list[Any] = []
    await rpc.read_messages(reader, protocol, {rpc.CHAT_PARTS: fast.append})
    return protocol.handled, fast


def parts(n: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": rpc.CHAT_PARTS, "params": {"chatId": "c", "n": n}}


async def test_many_messages_in_one_chunk_and_split_anywhere() -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": rpc.MODELS, "params": None}
    data = b"".join([frame(parts(1)), frame(request), frame(parts(2))])
    for cut in range(1, len(data)):
        handled, fast = await read([data[:cut], data[cut:]])
        assert handled == [request]
        assert fast == [{"chatId": "c", "n": 1}, {"chatId": "c", "n": 2}]


async def test_one_byte_at_a_time_and_a_body_larger_than_a_read() -> None:
    big = {"jsonrpc": "2.0", "method": rpc.CHAT_PARTS, "params": {"text": "x" * 200_000}}
    data = frame(parts(1)) + frame(big)
    handled, fast = await read([data[i : i + 1] for i in range(200)] + [data[200:]])
    assert handled == [] and fast == [{"chatId": "c", "n": 1}, big["params"]]


async def test_headers_with_content_type_are_read() -> None:
    body = json.dumps(parts(5)).encode()
    header = b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
    header += b"content-length: %d\r\n\r\n" % len(body)
    _, fast = await read([header + body])
    assert fast == [{"chatId": "c", "n": 5}]


@pytest.mark.parametrize(
    "header", [b"Content-Length: -5\r\n\r\n", b"Content-Length: x\r\n\r\n", b"X: 1\r\n\r\n"]
)
async def test_a_malformed_header_ends_the_connection(header: bytes) -> None:
    handled, fast = await read([frame(parts(1)), header + b"{}", frame(parts(2))])
    assert fast == [{"chatId": "c", "n": 1}] and handled == []


async def test_bad_json_is_skipped_and_reading_goes_on() -> None:
    bad = b"Content-Length: 3\r\n\r\n{x}"
    _, fast = await read([bad + frame(parts(2))])
    assert fast == [{"chatId": "c", "n": 2}]
