"""JSON-RPC plumbing shared by the language server and the headless editor.

pygls is kept for what it does well (LSP lifecycle, request/response bookkeeping, handler
dispatch). Three things are replaced, for the reasons measured in pygls-notes.md:
- custom `maestro/*` messages are typed with `params: Any`, so their JSON reaches handlers
  untouched (pygls would otherwise rename keys such as `$schema` in tool schemas);
- our own reader parses each message once and hands hot notifications (`maestro/chatParts`)
  straight to their handler, skipping pygls's per-message overhead;
- our own writer serializes without pygls's INFO log of every body (prompts must not be logged).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import attrs

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1

# Method names of docs/protocol.md.
MODELS = "maestro/models"
CHAT = "maestro/chat"
CHAT_PARTS = "maestro/chatParts"
COUNT_TOKENS = "maestro/countTokens"
MODELS_CHANGED = "maestro/modelsChanged"
SERVER_READY = "maestro/serverReady"
SERVER_FAILED = "maestro/serverFailed"
CANCEL_REQUEST = "$/cancelRequest"
STATS = "maestro/stats"

REQUESTS = {MODELS, CHAT, COUNT_TOKENS, STATS}
NOTIFICATIONS = {CHAT_PARTS, MODELS_CHANGED, SERVER_READY, SERVER_FAILED}

# JSON-RPC error codes carrying the editor's LanguageModelError codes.
EDITOR_ERROR_CODES = {
    "NotFound": -32001,
    "NoPermissions": -32002,
    "Blocked": -32003,
    "Other": -32000,
}
REQUEST_CANCELLED = -32800


# `jsonrpc` has no default on purpose: pygls's converter omits fields equal to their default.
@attrs.define
class RawRequest:
    id: int | str
    jsonrpc: str
    method: str
    params: Any


@attrs.define
class RawNotification:
    jsonrpc: str
    method: str
    params: Any


@attrs.define
class RawResponse:
    id: int | str
    jsonrpc: str
    result: Any


class RawMessagesMixin:
    """Mix into a pygls protocol class (before it) to type our methods and own the writer."""

    writer: Any

    def get_message_type(self, method: str) -> type[Any] | None:
        if method in REQUESTS:
            return RawRequest
        if method in NOTIFICATIONS:
            return RawNotification
        return super().get_message_type(method)  # type: ignore[misc, no-any-return]

    def get_result_type(self, method: str) -> type[Any] | None:
        if method in REQUESTS:
            return RawResponse
        return super().get_result_type(method)  # type: ignore[misc, no-any-return]

    def _send_data(self, data: Any) -> None:
        if not data or self.writer is None:
            return
        body = json.dumps(
            data,
            default=self._serialize_message,  # type: ignore[attr-defined]
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify_raw(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification whose params are plain JSON, without building attrs objects."""
        self._send_data({"jsonrpc": "2.0", "method": method, "params": params})


class PipeWriter:
    """pygls's writer interface over an asyncio write transport (never blocks the loop)."""

    def __init__(self, transport: asyncio.WriteTransport) -> None:
        self.transport = transport

    def write(self, data: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        self.transport.close()


FastHandlers = Mapping[str, Callable[[Any], None]]


async def read_messages(
    reader: asyncio.StreamReader, protocol: Any, fast: FastHandlers | None = None
) -> None:
    """Read LSP-framed messages until EOF and dispatch each one; returns when the peer closes."""
    fast = fast or {}
    while True:
        try:
            header = await reader.readuntil(b"\r\n\r\n")
            length = _content_length(header)
            body = await reader.readexactly(length)
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        except (ValueError, asyncio.LimitOverrunError):
            log.error("Malformed message header from the peer; closing the connection")
            return
        try:
            message = json.loads(body)
            method = message.get("method") if isinstance(message, dict) else None
            handler = fast.get(method) if method and "id" not in message else None
            if handler is not None:
                handler(message.get("params"))
            else:
                protocol.handle_message(protocol.structure_message(message))
        except Exception:
            log.exception("Failed to handle a message from the peer")


def _content_length(header: bytes) -> int:
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value.strip())
    raise ValueError("no Content-Length header")
