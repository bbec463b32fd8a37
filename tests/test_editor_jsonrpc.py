"""The headless editor's JSON-RPC side: answers, errors, cancellation, its own requests."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from headless_editor.jsonrpc import EditorConnection, RpcError
from lsp import rpc


class Capture:
    """Collects what the connection writes, as parsed messages."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    def write(self, data: bytes) -> None:
        header, _, body = data.partition(b"\r\n\r\n")
        assert header == b"Content-Length: %d" % len(body)
        self.messages.append(json.loads(body))

    def close(self) -> None:
        pass


def connection() -> tuple[EditorConnection, Capture]:
    conn = EditorConnection()
    capture = Capture()
    conn.set_writer(capture)  # type: ignore[arg-type]
    return conn, capture


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_requests_are_answered_sync_and_async() -> None:
    conn, out = connection()
    conn.feature("sync")(lambda params: {"got": params})

    async def later(params: Any) -> int:
        await asyncio.sleep(0)
        return 7

    conn.feature("async")(later)
    conn.handle_message({"jsonrpc": "2.0", "id": 1, "method": "sync", "params": [1]})
    conn.handle_message({"jsonrpc": "2.0", "id": "b", "method": "async", "params": None})
    await settle()
    assert {"jsonrpc": "2.0", "id": 1, "result": {"got": [1]}} in out.messages
    assert {"jsonrpc": "2.0", "id": "b", "result": 7} in out.messages


async def test_errors_unknown_methods_and_crashes_become_error_replies() -> None:
    conn, out = connection()

    def refuse(params: Any) -> None:
        raise RpcError(-32001, "no such model", {"code": "NotFound"})

    def crash(params: Any) -> None:
        raise KeyError("x")

    conn.feature("refuse")(refuse)
    conn.feature("crash")(crash)
    for msg_id, method in ((1, "refuse"), (2, "nope"), (3, "crash")):
        conn.handle_message({"jsonrpc": "2.0", "id": msg_id, "method": method})
    await settle()
    errors = {m["id"]: m["error"] for m in out.messages}
    assert errors[1] == {"code": -32001, "message": "no such model", "data": {"code": "NotFound"}}
    assert errors[2]["code"] == -32601
    assert errors[3]["code"] == -32603


async def test_cancel_request_stops_the_handler_and_answers_cancelled() -> None:
    conn, out = connection()
    stopped = asyncio.Event()

    async def endless(params: Any) -> None:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    conn.feature("chat")(endless)
    conn.handle_message({"jsonrpc": "2.0", "id": "chat-1", "method": "chat"})
    await settle()
    conn.handle_message(
        {"jsonrpc": "2.0", "method": rpc.CANCEL_REQUEST, "params": {"id": "chat-1"}}
    )
    await settle()
    assert stopped.is_set()
    assert out.messages == [
        {
            "jsonrpc": "2.0",
            "id": "chat-1",
            "error": {"code": -32800, "message": "Request cancelled"},
        }
    ]


async def test_own_requests_get_results_errors_or_fail_when_the_server_goes() -> None:
    conn, out = connection()
    first = asyncio.ensure_future(conn.send_request_async("initialize", {"x": 1}))
    second = asyncio.ensure_future(conn.send_request_async("shutdown"))
    third = asyncio.ensure_future(conn.send_request_async("other"))
    await settle()
    ids = [m["id"] for m in out.messages]
    assert [m["method"] for m in out.messages] == ["initialize", "shutdown", "other"]
    conn.handle_message({"jsonrpc": "2.0", "id": ids[0], "result": {"ok": True}})
    conn.handle_message(
        {"jsonrpc": "2.0", "id": ids[1], "error": {"code": -32602, "message": "bad"}}
    )
    conn.fail_pending(ConnectionError("gone"))
    assert await first == {"ok": True}
    with pytest.raises(RpcError, match="bad"):
        await second
    with pytest.raises(ConnectionError):
        await third


async def test_notifications_reach_their_handler_and_unknown_ones_are_ignored() -> None:
    conn, out = connection()
    seen: list[Any] = []
    conn.feature(rpc.SERVER_READY)(seen.append)
    conn.handle_message({"jsonrpc": "2.0", "method": rpc.SERVER_READY, "params": {"url": "u"}})
    conn.handle_message({"jsonrpc": "2.0", "method": "window/logMessage", "params": {}})
    conn.handle_message(["not", "an", "object"])
    await settle()
    assert seen == [{"url": "u"}] and out.messages == []
