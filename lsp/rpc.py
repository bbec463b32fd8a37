"""JSON-RPC plumbing shared by the language server and the headless editor.

pygls is kept for what it does well (LSP lifecycle, request/response bookkeeping, handler
dispatch). Three things are replaced, for the reasons measured in pygls-notes.md:
- custom `maestro/*` messages are typed with `params: Any`, so their JSON reaches handlers
  untouched (pygls would otherwise rename keys such as `$schema` in tool schemas);
- our own reader parses each message once and hands hot notifications (`maestro/chatParts`)
  straight to their handler, skipping pygls's per-message overhead;
- our own writer serializes without pygls's INFO log of every body (prompts must not be logged).
The first and the last are pygls's protocol class taught our messages: lsp/raw_messages.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1

# Method names of docs/protocol.md.
MODELS = "maestro/models"
CHAT = "maestro/chat"
CHAT_PARTS = "maestro/chatParts"
CHAT_ACK = "maestro/chatAck"
CHAT_INPUT = "maestro/chatInput"
COUNT_TOKENS = "maestro/countTokens"
MODELS_CHANGED = "maestro/modelsChanged"
SERVER_READY = "maestro/serverReady"
SERVER_FAILED = "maestro/serverFailed"
SERVER_STANDBY = "maestro/serverStandby"
CANCEL_REQUEST = "$/cancelRequest"
STATS = "maestro/stats"
TOOLS = "maestro/tools"
TOOLS_CHANGED = "maestro/toolsChanged"
INVOKE_TOOL = "maestro/invokeTool"
LANGUAGE = "maestro/language"

REQUESTS = {MODELS, CHAT, COUNT_TOKENS, STATS, TOOLS, INVOKE_TOOL, LANGUAGE}
NOTIFICATIONS = {
    CHAT_PARTS,
    CHAT_ACK,
    CHAT_INPUT,
    MODELS_CHANGED,
    SERVER_READY,
    SERVER_FAILED,
    SERVER_STANDBY,
    TOOLS_CHANGED,
}

# JSON-RPC error codes carrying the editor's LanguageModelError codes.
EDITOR_ERROR_CODES = {
    "NotFound": -32001,
    "NoPermissions": -32002,
    "Blocked": -32003,
    "Other": -32000,
}
REQUEST_CANCELLED = -32800
INTERNAL_ERROR = -32603


def frame(*body: bytes) -> bytes:
    """An LSP frame of the body's pieces. One join: `%` formatting a 0.5 MB chat into the frame
    copied it several times (0.23 ms against 0.02)."""
    return b"".join((b"Content-Length: %d\r\n\r\n" % sum(map(len, body)), *body))


class UnsendableMessage(ValueError):
    """A message JSON cannot carry (NaN, Infinity, a lone surrogate): nothing was written."""


def encode_frame(encode: Callable[[Any], str], message: Any) -> bytes:
    """One whole LSP frame, or UnsendableMessage before a byte of it exists.

    vscode-jsonrpc cannot parse a bare `NaN`, and VS Code's client stops the server when it
    meets one: so no writer of ours ever lets one out, whatever put it in a message.
    """
    try:
        body = encode(message).encode()
    except ValueError as exc:  # allow_nan=False, and UnicodeEncodeError for lone surrogates
        raise UnsendableMessage(f"the message is not valid JSON ({exc})") from None
    return frame(body)


def reply_id(message: Any) -> Any:
    """The id of a reply (a message with a result), else None."""
    if isinstance(message, dict):
        return message.get("id") if "result" in message else None
    return getattr(message, "id", None) if hasattr(message, "result") else None


def unsendable_reply(msg_id: Any, error: UnsendableMessage) -> dict[str, Any]:
    """The error reply sent instead of a result that cannot be encoded: the peer must not
    wait for an answer that will never come."""
    return {
        "jsonrpc": "2.0",
        "id": msg_id,
        "error": {"code": INTERNAL_ERROR, "message": f"The result cannot be sent: {error}"},
    }


class PipeWriter:
    """pygls's writer interface over an asyncio write transport (never blocks the loop)."""

    def __init__(self, transport: asyncio.WriteTransport) -> None:
        self.transport = transport

    def write(self, data: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(data)

    def close(self) -> None:
        self.transport.close()


class ByteReader(Protocol):
    """asyncio's StreamReader, or lsp/stdio_transport.py's threaded reader."""

    async def read(self, n: int = -1) -> bytes: ...


FastHandlers = Mapping[str, Callable[[Any], None]]
# Sees a message's raw JSON before it is parsed; True if it handled the message.
RawHandler = Callable[[bytes], bool]


_HEADER_END = b"\r\n\r\n"
_MAX_HEADER = 1 << 16
_READ_SIZE = 1 << 16
_PLAIN_HEADER = b"Content-Length: "


async def read_messages(
    reader: ByteReader,
    protocol: Any,
    fast: FastHandlers | None = None,
    raw: RawHandler | None = None,
) -> None:
    """Read LSP-framed messages until EOF and dispatch each one; returns when the peer closes.

    Reads whatever the pipe holds (up to 64 KiB) at once and dispatches every whole message
    in it: one await per read instead of two per message, which matters when the editor
    streams thousands of small `maestro/chatParts` notifications a second.
    """

    def dispatch(body: bytes) -> None:
        _dispatch(body, protocol, fast or {}, raw)

    buffer = bytearray()
    while True:
        try:
            chunk = await reader.read(_READ_SIZE)
        except ConnectionError:
            return
        if not chunk:
            return
        buffer += chunk
        try:
            used = _dispatch_all(buffer, dispatch)
        except ValueError:
            log.error("Malformed message header from the peer; closing the connection")
            return
        if used:
            del buffer[:used]


def _dispatch_all(buffer: bytearray, dispatch: Callable[[bytes], None]) -> int:
    """Dispatch every whole message at the start of `buffer`; how many bytes they took."""
    position = 0
    while True:
        end = buffer.find(_HEADER_END, position)
        if end < 0:
            if len(buffer) - position > _MAX_HEADER:
                raise ValueError("header too long")
            return position
        start = end + len(_HEADER_END)
        stop = start + _content_length(bytes(buffer[position:end]))
        if stop > len(buffer):
            return position  # the rest of this body is still on its way
        dispatch(bytes(buffer[start:stop]))  # pydantic parses bytes faster than a bytearray
        position = stop


def _dispatch(body: bytes, protocol: Any, fast: FastHandlers, raw: RawHandler | None) -> None:
    try:
        if raw is not None and raw(body):
            return
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
    length = -1
    if header.startswith(_PLAIN_HEADER) and b"\n" not in header:
        length = int(header[len(_PLAIN_HEADER) :])  # the usual header: nothing but the length
    else:
        for line in header.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
                break
    if length < 0:
        raise ValueError("no valid Content-Length header")
    return length
