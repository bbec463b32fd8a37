"""Talking to a HeadlessEditor's handlers as the language server does: framed JSON-RPC
messages in through `handle_message`, the editor's framed replies and notifications read
back from its writer."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from headless_editor.editor import HeadlessEditor

_ids = itertools.count(1)


class Capture:
    """The editor's writer: every frame it writes, parsed."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    def write(self, data: bytes) -> None:
        header, _, body = data.partition(b"\r\n\r\n")
        assert header == b"Content-Length: %d" % len(body)
        self.messages.append(json.loads(body))
        self.arrived.set()

    def close(self) -> None:
        pass

    def notifications(self, method: str) -> list[Any]:
        return [m.get("params") for m in self.messages if m.get("method") == method]

    async def reply(self, msg_id: int | str, timeout: float = 10.0) -> dict[str, Any]:
        async def arrived() -> dict[str, Any]:
            while True:
                for message in self.messages:
                    if message.get("id") == msg_id and "method" not in message:
                        return message
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(arrived(), timeout)


def connected(editor: HeadlessEditor) -> Capture:
    capture = Capture()
    editor.protocol.set_writer(capture)  # type: ignore[arg-type]
    return capture


def send(
    editor: HeadlessEditor, method: str, params: Any, msg_id: int | str | None = None
) -> int | str:
    """A request from the server; its id."""
    msg_id = next(_ids) if msg_id is None else msg_id
    editor.protocol.handle_message(
        {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    )
    return msg_id


async def request(editor: HeadlessEditor, out: Capture, method: str, params: Any) -> dict[str, Any]:
    """The editor's whole reply (`result` or `error`) to one request."""
    return await out.reply(send(editor, method, params))


async def result(editor: HeadlessEditor, out: Capture, method: str, params: Any) -> Any:
    reply = await request(editor, out, method, params)
    assert "result" in reply, reply
    return reply["result"]


async def error(editor: HeadlessEditor, out: Capture, method: str, params: Any) -> dict[str, Any]:
    reply = await request(editor, out, method, params)
    assert "error" in reply, reply
    error: dict[str, Any] = reply["error"]
    return error
