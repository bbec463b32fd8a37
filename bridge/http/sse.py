"""Server-sent events framing, as the Responses clients parse it."""

from __future__ import annotations

from typing import Any

import msgspec

from bridge.core import strict_json

# The bridge's one strict encoder (no `default`: the C encoder), never a bare NaN.
_encode = strict_json.encode
_encode_fast = msgspec.json.Encoder().encode  # only where no float can be: see _text_delta

# After the terminal event (Open Responses: "The terminal event MUST be the literal string
# `[DONE]`"); the openai SDKs, the AI SDK and Codex skip it, as for chat completions.
DONE = b"data: [DONE]\n\n"

_DELTA = "response.output_text.delta"
_DELTA_KEYS = (
    "type",
    "sequence_number",
    "item_id",
    "output_index",
    "content_index",
    "delta",
    "logprobs",
)
_DELTA_HEAD = f"event: {_DELTA}\ndata: ".encode()


def _text_delta(e: dict[str, Any]) -> bytes | None:
    """A text delta event written without the generic encoder (most events of a stream are
    these); None when the event is not exactly the shape bridge.responses.events builds.
    Its values are strings and integers only, which msgspec writes byte for byte as the strict
    encoder does (a lone surrogate raises in both); it would write a NaN as `null`: no float
    gets here."""
    if tuple(e) != _DELTA_KEYS or e["logprobs"] != []:
        return None
    if type(e["sequence_number"]) is not int or type(e["output_index"]) is not int:
        return None
    if type(e["content_index"]) is not int:
        return None
    if type(e["item_id"]) is not str or type(e["delta"]) is not str:
        return None
    try:
        return _DELTA_HEAD + _encode_fast(e) + b"\n\n"
    except UnicodeEncodeError:
        return None  # the generic encoder says what is wrong


def event_frame(e: dict[str, Any]) -> bytes:
    """`event: <type>\ndata: <json>\n\n`, `\n` line ends, UTF-8."""
    if e["type"] == _DELTA:
        fast = _text_delta(e)
        if fast is not None:
            return fast
    return f"event: {e['type']}\ndata: {_encode(e)}\n\n".encode()


def encode_event(e: dict[str, Any]) -> str:
    return event_frame(e).decode()


def encode_events(events: list[dict[str, Any]]) -> bytes:
    """`event: <type>\ndata: <json>\n\n` per event, `\n` line ends, all in one buffer."""
    return b"".join(map(event_frame, events))
