"""The bridge's Backend, answered by the editor over JSON-RPC (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncGenerator
from typing import Any, Literal

import msgspec
from pygls.exceptions import JsonRpcException

from bridge.core.backend import (
    ChatRequest,
    EditorError,
    EditorErrorCode,
    ModelInfo,
    ResponsePart,
    model_list,
    response_parts,
)
from bridge.core.token_limits import enforce_count_input
from lsp import rpc
from lsp.chat_json import chat_params_json, params_json
from lsp.chat_stream import ChatStream

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 30.0  # models and token counts; chats stream for as long as the model talks


def editor_error(exc: BaseException) -> EditorError:
    """A JSON-RPC error from the editor -> the editor's own error code."""
    if isinstance(exc, EditorError):
        return exc
    if isinstance(exc, rpc.UnsendableMessage):
        return EditorError("Other", f"The request could not be sent to the editor: {exc}.")
    if isinstance(exc, JsonRpcException):
        data = exc.data if isinstance(exc.data, dict) else {}
        code: EditorErrorCode = "Other"
        if data.get("code") in ("NotFound", "NoPermissions", "Blocked"):
            code = data["code"]
        # The provider's Error.name (Copilot's ChatQuotaExceeded...): core/editor_failures.py.
        name = data.get("name")
        return EditorError(
            code,
            exc.message or "The editor failed the request.",
            name if isinstance(name, str) else "",
            _tokens(data.get("inputTokens")),  # with the name InputTooLong
        )
    return EditorError("Other", f"The editor failed the request: {exc}")


def _tokens(value: Any) -> int | None:
    return value if type(value) is int and value >= 0 else None


class EditorBackend:
    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol
        self._streams: dict[str, ChatStream] = {}
        # The open chats' requests, for the input count the editor tells (maestro/chatInput).
        self._requests: dict[str, ChatRequest] = {}
        # The editor said it counts a chat's input when asked (initialize `countsChatInput`).
        self.editor_counts_input = False
        self._ids = itertools.count(1)
        self._models: list[ModelInfo] | None = None
        self._gone = False

    @property
    def protocol(self) -> Any:
        return self._protocol

    # -- notifications from the editor -------------------------------------------------------

    def on_chat_parts_json(self, body: bytes) -> bool:
        """The hot path: a `maestro/chatParts` notification as raw JSON, straight from the
        reader. msgspec parses and validates it in one pass, several times faster than
        json.loads and then validating the parts; anything unusual (or any other message)
        returns False and takes the general path."""
        if body.find(_CHAT_PARTS_METHOD, 0, 128) < 0:
            return False
        try:
            message = _CHAT_PARTS_MESSAGE.decode(body)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return False
        stream = self._streams.get(message.params.chatId)
        if stream is not None:
            stream.put(message.params.parts)
        return True

    def on_chat_parts(self, params: Any) -> None:
        """`maestro/chatParts` that the fast path declined: parts checked one by one."""
        stream = self._streams.get(str(params.get("chatId"))) if isinstance(params, dict) else None
        if stream is not None:
            raw = params.get("parts") or []
            stream.put(_parse_parts(raw), len(raw) if isinstance(raw, list) else 0)

    def on_chat_input(self, params: Any) -> None:
        """`maestro/chatInput`: the editor's count of a chat's input, before its first part."""
        if not isinstance(params, dict):
            return
        request = self._requests.get(str(params.get("chatId")))
        tokens = _tokens(params.get("inputTokens"))
        if request is not None and tokens is not None:
            request.counted_input = tokens

    def forget_models(self) -> None:
        self._models = None

    def editor_gone(self) -> None:
        """The editor closed the pipe: end every open stream, refuse new work."""
        if self._gone:
            return
        self._gone = True
        log.warning("The editor closed the connection; model requests now fail")
        for stream in self._streams.values():
            stream.end()
        # Requests in flight (models, token counts) will never be answered either.
        # pygls files the editor's own requests being answered (tasks) in the same table:
        # those are ours to run, not futures to fail (a Task refuses set_exception).
        for msg_id, future in list(self._protocol._request_futures.items()):
            if isinstance(future, asyncio.Task) or str(msg_id).startswith("chat-"):
                continue
            if not future.done():
                future.set_exception(EditorError("Unavailable", "The editor disconnected."))

    def pending(self) -> dict[str, int]:
        """Bookkeeping sizes, for the editor's `maestro/stats` (leaks show up here first)."""
        return {
            "chats": len(self._streams),
            "requestFutures": len(self._protocol._request_futures),
            "resultTypes": len(self._protocol._result_types),
        }

    # -- requests to the editor --------------------------------------------------------------

    def check_alive(self) -> None:
        if self._gone:
            raise EditorError("Unavailable", "The editor is no longer connected.")

    async def request(self, method: str, params: dict[str, Any] | None) -> Any:
        self.check_alive()
        msg_id = f"req-{next(self._ids)}"
        try:
            sent = self._protocol.send_request_json(method, msg_id, params_json(params))
            return await asyncio.wait_for(asyncio.wrap_future(sent), REQUEST_TIMEOUT)
        except asyncio.TimeoutError:
            # The editor is there but slow (a huge token count): a timeout, not its absence.
            raise EditorError(
                "Timeout", f"The editor did not answer {method} within {REQUEST_TIMEOUT:.0f} s."
            ) from None
        except Exception as exc:
            raise editor_error(exc) from None
        finally:
            self.forget(msg_id)

    async def list_models(self) -> list[ModelInfo]:
        self.check_alive()  # every request asks first: with the editor gone, 503 up front
        if self._models is None:
            result = await self.request(rpc.MODELS, None)
            try:
                self._models = model_list(result["models"])
            except (msgspec.ValidationError, TypeError, KeyError) as exc:
                raise EditorError(
                    "Other", f"The editor sent a malformed model list: {exc}"
                ) from None
        return self._models

    async def count_tokens(self, model: str, text: str) -> int:
        result = await self.request(rpc.COUNT_TOKENS, {"model": model, "text": text})
        try:
            return int(result["tokens"])
        except (TypeError, KeyError, ValueError):
            raise EditorError("Other", "The editor sent a malformed token count.") from None

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.check_alive()
        if request.countInput is not None and not self.editor_counts_input:
            # An older editor: the input is counted (and maybe refused) before it is sent.
            await enforce_count_input(lambda text: self.count_tokens(request.model, text), request)
        chat_id = f"chat-{next(self._ids)}"
        stream = ChatStream(lambda parts: self._acknowledge(chat_id, parts))
        self._streams[chat_id] = stream
        self._requests[chat_id] = request
        # The request id doubles as the chat id, so `$/cancelRequest` can name it.
        try:
            count = self.editor_counts_input
            params = chat_params_json(chat_id, stream.window, request, count_input=count)
            future = self._protocol.send_request_json(rpc.CHAT, chat_id, params)
        except rpc.UnsendableMessage as exc:  # nothing was written: nothing to cancel
            self._streams.pop(chat_id, None)
            self._requests.pop(chat_id, None)
            self.forget(chat_id)
            raise editor_error(exc) from None
        # Runs on the loop thread, after every chatParts the editor sent before its reply.
        future.add_done_callback(lambda _: stream.end())
        finished = False
        try:
            while True:
                batch = await stream.take()
                if batch is None:
                    finished = True
                    break
                if batch:
                    yield batch
            if not future.done():
                raise EditorError("Unavailable", "The editor closed the connection mid-answer.")
            if future.exception() is not None:
                raise editor_error(future.exception())
        finally:
            self._streams.pop(chat_id, None)
            self._requests.pop(chat_id, None)
            if not finished:
                self.cancel_request(chat_id, future)
            self.forget(chat_id)

    def _acknowledge(self, chat_id: str, parts: int) -> None:
        if not self._gone:
            self._protocol.notify_raw(rpc.CHAT_ACK, {"chatId": chat_id, "parts": parts})

    def forget(self, msg_id: str) -> None:
        # pygls keeps a request's result type until a *successful* reply arrives: an error
        # reply, a timeout or a cancel would leave it behind forever.
        self._protocol._request_futures.pop(msg_id, None)
        self._protocol._result_types.pop(msg_id, None)

    def cancel_request(self, msg_id: str, future: Any) -> None:
        # pygls does not tell the peer when a request future is cancelled; and a late reply to
        # a future still registered would raise inside pygls. Forget it, then tell the editor.
        self.forget(msg_id)
        future.cancel()
        if not self._gone:
            self._protocol.notify_raw(rpc.CANCEL_REQUEST, {"id": msg_id})


class _ChatPartsParams(msgspec.Struct):
    chatId: str
    parts: list[ResponsePart]


class _ChatPartsMessage(msgspec.Struct):
    """A well-formed `maestro/chatParts` notification (no `id`: a notification)."""

    jsonrpc: Literal["2.0"]
    method: Literal["maestro/chatParts"]
    params: _ChatPartsParams
    id: None = None


_CHAT_PARTS_MESSAGE = msgspec.json.Decoder(_ChatPartsMessage)
_CHAT_PARTS_METHOD = b'"' + rpc.CHAT_PARTS.encode() + b'"'


def _parse_parts(raw: Any) -> list[ResponsePart]:
    try:
        return response_parts(raw)
    except msgspec.ValidationError:
        parts: list[ResponsePart] = []
        for item in raw if isinstance(raw, list) else []:
            try:
                parts.extend(response_parts([item]))
            except msgspec.ValidationError:
                log.warning("Ignoring a malformed part from the editor")
        return parts


__all__ = ["EditorBackend", "EditorErrorCode", "editor_error"]
