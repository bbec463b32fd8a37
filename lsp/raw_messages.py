"""The language server's side of lsp/rpc.py: pygls's protocol class taught our messages.

Apart from lsp/rpc.py, which the headless editor shares: these need attrs (pygls's message
classes are attrs classes), which the headless editor's process does without (`serve`'s idle
memory, docs/benchmarks.md).
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import attrs

from lsp.rpc import (
    NOTIFICATIONS,
    REQUESTS,
    UnsendableMessage,
    encode_frame,
    frame,
    reply_id,
    unsendable_reply,
)

log = logging.getLogger(__name__)


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

    _encode: Callable[[Any], str] | None = None

    def _send_data(self, data: Any) -> None:
        if not data or self.writer is None:
            return
        if self._encode is None:  # one encoder for every message: json.dumps builds one per call
            self._encode = json.JSONEncoder(
                default=self._serialize_message,  # type: ignore[attr-defined]
                ensure_ascii=False,
                separators=(",", ":"),
                allow_nan=False,
            ).encode
        try:
            frame = encode_frame(self._encode, data)
        except UnsendableMessage as exc:
            msg_id = reply_id(data)
            if msg_id is None:
                log.error("Not sending a message to the editor: %s", exc)
                raise
            log.error("Sending an error instead of a result: %s", exc)
            frame = encode_frame(self._encode, unsendable_reply(msg_id, exc))
        self.writer.write(frame)

    def handle_message(self, message: Any) -> None:
        """pygls 2.1's dispatch, minus its cost: pygls tells the kinds of message apart with
        isinstance on runtime-checkable Protocols, ~70 us each on Python 3.11 and up to three
        per message, most of the time spent on a reply from the editor. The same attribute
        checks, done directly, cost a microsecond."""
        if message.jsonrpc != "2.0" or getattr(self, "_shutdown", False):
            super().handle_message(message)  # type: ignore[misc]  # its warnings and `exit`
            return
        context = contextvars.copy_context()
        if _has(message, "id", "method", "params"):
            context.run(self._handle_request, message.id, message.method, message.params)  # type: ignore[attr-defined]
        elif _has(message, "method", "params"):
            context.run(self._handle_notification, message.method, message.params)  # type: ignore[attr-defined]
        elif _has(message, "id", "result"):
            context.run(self._handle_response, message.id, message.result)  # type: ignore[attr-defined]
        else:
            context.run(self._handle_response, message.id, None, message.error)  # type: ignore[attr-defined]

    def send_request_json(self, method: str, msg_id: str, params: bytes) -> Future[Any]:
        """pygls's `send_request` for params that are JSON already (a chat's long history is
        encoded in one pass by `lsp.chat_json`, not walked again by cattrs and json)."""
        future: Future[Any] = Future()
        self._request_futures[msg_id] = future  # type: ignore[attr-defined]
        self._result_types[msg_id] = RawResponse  # type: ignore[attr-defined]
        if self.writer is not None:
            head = b'{"jsonrpc":"2.0","id":%s,"method":%s,"params":' % (
                json.dumps(msg_id).encode(),
                json.dumps(method).encode(),
            )
            self.writer.write(frame(head, params, b"}"))
        return future

    def notify_raw(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification whose params are plain JSON, without building attrs objects."""
        self._send_data({"jsonrpc": "2.0", "method": method, "params": params})


def _has(message: Any, *names: str) -> bool:
    return all(hasattr(message, name) for name in names)
