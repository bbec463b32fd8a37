"""The headless editor's side of JSON-RPC: plain dicts over lsp.rpc's reader and framing.

The editor needs little of a JSON-RPC library: answer the server's requests, send a few of its
own, cancel on `$/cancelRequest`. Doing that here instead of with pygls's client keeps
lsprotocol (a third of a second of CPU and 20 MB) out of the editor process, which starts
side by side with the language server in `maestro-bridge serve`.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
from collections.abc import Callable
from typing import Any

import msgspec

from bridge.core import strict_json
from lsp import rpc

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603

Handler = Callable[[Any], Any]  # params -> result, or an awaitable of it


class RpcError(Exception):
    """A JSON-RPC error: raised by a handler to answer with it, or by a request it got back."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class EditorConnection:
    """What `rpc.read_messages` dispatches to (`structure_message`, `handle_message`)."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}
        self.writer: rpc.PipeWriter | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int | str, asyncio.Future[Any]] = {}  # our requests
        self._running: dict[int | str, asyncio.Task[None]] = {}  # the server's requests
        self._encode = strict_json.encode

    def feature(self, method: str) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.handlers[method] = handler
            return handler

        return register

    # -- sending -----------------------------------------------------------------------------

    def set_writer(self, writer: rpc.PipeWriter) -> None:
        self.writer = writer

    def _send(self, message: dict[str, Any]) -> None:
        if self.writer is None:
            return
        try:
            frame = rpc.encode_frame(self._encode, message)
        except rpc.UnsendableMessage as exc:
            msg_id = rpc.reply_id(message)
            if msg_id is None:
                log.error("Not sending a message to the language server: %s", exc)
                raise
            log.error("Sending an error instead of a result: %s", exc)
            frame = rpc.encode_frame(self._encode, rpc.unsendable_reply(msg_id, exc))
        self.writer.write(frame)

    def notify_raw(self, method: str, params: Any = None) -> None:
        if method == rpc.CHAT_PARTS and self.writer is not None:
            frame = _text_parts_frame(params)
            if frame is not None:
                self.writer.write(frame)
                return
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def send_request_async(self, method: str, params: Any = None) -> Any:
        """The result of the server's answer; RpcError if it answered with an error."""
        msg_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        try:
            self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            return await future
        finally:
            self._pending.pop(msg_id, None)

    def fail_pending(self, error: BaseException) -> None:
        """The server is gone: nothing it was asked will be answered, nothing it asked matters."""
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()
        for task in self._running.values():
            task.cancel()

    # -- receiving ---------------------------------------------------------------------------

    def structure_message(self, message: Any) -> Any:
        return message

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, dict):
            log.warning("Ignoring a message that is not a JSON object")
            return
        method, msg_id = message.get("method"), message.get("id")
        if method is None:
            self._answered(message)
        elif method == rpc.CANCEL_REQUEST:
            params = message.get("params")
            target = params.get("id") if isinstance(params, dict) else None
            task = self._running.get(target) if isinstance(target, int | str) else None
            if task is not None:
                task.cancel()
        elif msg_id is None:
            handler = self.handlers.get(method)  # notification handlers are synchronous
            if handler is not None:
                handler(message.get("params"))
        else:
            task = asyncio.ensure_future(self._answer(msg_id, method, message.get("params")))
            self._running[msg_id] = task
            task.add_done_callback(lambda _: self._running.pop(msg_id, None))

    def _answered(self, message: dict[str, Any]) -> None:
        future = self._pending.get(message.get("id"))  # type: ignore[arg-type]
        if future is None or future.done():
            return
        error = message.get("error")
        if isinstance(error, dict):
            future.set_exception(
                RpcError(
                    int(error.get("code", 0)), str(error.get("message", "")), error.get("data")
                )
            )
        else:
            future.set_result(message.get("result"))

    async def _answer(self, msg_id: int | str, method: str, params: Any) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id}
        handler = self.handlers.get(method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Unknown method {method}")
            result = handler(params)
            reply["result"] = await result if inspect.isawaitable(result) else result
        except asyncio.CancelledError:
            reply["error"] = {"code": rpc.REQUEST_CANCELLED, "message": "Request cancelled"}
        except RpcError as exc:
            reply["error"] = exc.to_json()
        except Exception as exc:
            log.exception("The editor failed to answer %s", method)
            reply["error"] = {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
        self._send(reply)


_encode_fast = msgspec.json.Encoder().encode
_CHAT_PARTS_HEAD = b'{"jsonrpc":"2.0","method":"%s","params":' % rpc.CHAT_PARTS.encode()


def _text_parts_frame(params: Any) -> bytes | None:
    """A `maestro/chatParts` notification of text parts only (nearly all of a stream), encoded
    by msgspec: the same bytes as the strict encoder's, at a fraction of the cost. None for
    anything else: msgspec writes a NaN as `null` where the strict encoder refuses it, and only
    text parts are sure to hold no number."""
    if type(params) is not dict or len(params) != 2 or type(params.get("chatId")) is not str:
        return None
    parts = params.get("parts")
    if type(parts) is not list or any(
        type(part) is not dict
        or len(part) != 2
        or part.get("type") != "text"
        or type(part.get("value")) is not str
        for part in parts
    ):
        return None
    try:
        body = _CHAT_PARTS_HEAD + _encode_fast(params) + b"}"
    except (TypeError, ValueError):  # a lone surrogate: the strict path says why
        return None
    return rpc.frame(body)
